"""The default output: each finding with a code frame of its lines (ruff/rustc-like, plain text;
colour on a terminal), the sweep points it holds for (grouped), related locations as notes, a
link to the rule's documentation, and the closing summary line."""

from __future__ import annotations

from pathlib import Path

from recipelint.lint.findings import Finding
from recipelint.report.common import fix_hint, fixable_line, headline, rule_url, summary, summary_segments
from recipelint.report.points import compact_points
from recipelint.report.style import SEVERITY_STYLE, Segments, paint, printable

__all__ = ["render_full", "summary"]

#: at most this many groups of sweep points are shown under a finding; the rest are counted
POINT_GROUPS_MAX = 8


#: the largest file code frames are read from (a recipe's limit)
MAX_FRAME_BYTES = 16 * 1024 * 1024


def _source_lines(path: str, cache: dict) -> list[str]:
    if path not in cache:
        from recipelint.files import Refused, confine, read_regular
        from recipelint.sweep.configs import project_root

        try:  # (a finding on a recipe linked outside its project shows no line of the target)
            confine(path, [project_root(Path(path))])
            cache[path] = read_regular(path, MAX_FRAME_BYTES).decode("utf-8", errors="replace").split("\n")
        except Refused:
            cache[path] = []
    return cache[path]


def render_full(findings: list[Finding], files: int | None = None, color: bool = False) -> str:
    """ruff-style code frames: the finding's line with a caret under its span, then the sweep
    points it holds for, its related locations and its rule's documentation; with ``files``, the
    summary line last.  In colour through rich; plain text without importing it."""
    lines = _full_lines(findings)
    if files is not None:
        lines.append(summary_segments(findings, files))
        fixable = fixable_line(findings)
        if fixable is not None:
            lines.append(fixable)
    return paint(lines, color)


def _full_lines(findings: list[Finding]) -> list[Segments]:
    """The lines of the full format, each as (text, rich style) pieces."""
    out: list[Segments] = []
    cache: dict = {}
    urls = {code: rule_url(code) for code in sorted({f.code for f in findings})}
    for f in findings:
        sev_style = SEVERITY_STYLE.get(f.severity, "bold")
        out.append(headline(f))
        lines = _source_lines(f.span.path, cache)
        width = len(str(f.span.end_line if f.span.end_line - f.span.line < 3 else f.span.line))
        if 1 <= f.span.line <= len(lines):
            raw = lines[f.span.line - 1].expandtabs(4)
            text = printable(raw)  # (a control character is shown as its escape: the caret counts it so)
            out.append([(f"{' ' * width} |", "blue")])
            out.append([(f"{f.span.line:>{width}} | ", "blue"), (text, None)])
            start = max(1, f.span.col)
            end = f.span.end_col if f.span.end_line == f.span.line and f.span.end_col > start else len(raw) + 1
            end = min(end, len(raw) + 1)
            start, end = len(printable(raw[: start - 1])) + 1, len(printable(raw[: end - 1])) + 1
            caret = " " * (start - 1) + "^" * max(1, end - start)
            out.append([(f"{' ' * width} | ", "blue"), (caret, sev_style)])
        for n in f.notes:
            out.append([(f"{' ' * width} = ", "blue"), ("note: ", "bold"), (printable(n), None)])
        if f.points:
            out.extend(_point_lines(f.points, width))
        for r in f.related:
            out.append(
                [
                    (f"{' ' * width} = ", "blue"),
                    ("note: ", "bold"),
                    (f"{r.span.path}:{r.span.line}:{r.span.col}: {r.message}", None),
                ]
            )
        if f.fix is not None:
            out.append([(f"{' ' * width} = ", "blue"), ("fix: ", "bold"), (f"{printable(f.fix.title)} ({fix_hint(f)})", None)])
        if urls.get(f.code):
            out.append([(f"{' ' * width} = ", "blue"), ("help: ", "bold"), (urls[f.code] or "", "cyan")])
        out.append([])
    return out


def _point_lines(points: list[str], width: int) -> list[Segments]:
    """``= sweep points: <group>`` and one aligned line for each further group."""
    groups = compact_points(points)
    if len(groups) > POINT_GROUPS_MAX:
        rest = len(groups) - (POINT_GROUPS_MAX - 1)
        groups = [*groups[: POINT_GROUPS_MAX - 1], f"… and {rest} more groups ({len(points)} points in all)"]
    head = f"{' ' * width} = "
    out: list[Segments] = [[(head, "blue"), ("sweep points: ", "bold"), (groups[0], None)]]
    pad = " " * (len(head) + len("sweep points: "))
    out.extend([[(pad, None), (g, None)] for g in groups[1:]])
    return out
