"""``--output-format concise``: ``path:line:col: error[RL201] name: message``, one finding a
line, and the summary line."""

from __future__ import annotations

from recipelint.lint.findings import Finding
from recipelint.report.common import fixable_line, headline, summary_segments
from recipelint.report.style import paint


def render_concise(findings: list[Finding], files: int | None = None, color: bool = False) -> str:
    """One line per finding; with ``files``, the summary line last."""
    lines = [headline(f) for f in findings]
    if files is not None:
        lines.append(summary_segments(findings, files))
        fixable = fixable_line(findings)
        if fixable is not None:
            lines.append(fixable)
    return paint(lines, color)
