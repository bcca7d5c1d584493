"""``--output-format concise``: ``path:line:col: CODE [name] message``, one finding a line."""

from __future__ import annotations

from recipelint.lint.findings import Finding
from recipelint.report.common import concise_line


def render_concise(findings: list[Finding]) -> str:
    return "".join(concise_line(f) + "\n" for f in findings)
