"""The default output: each finding with a code frame of its lines (rich-like, plain text; colour on
a terminal), related locations as notes, and the closing summary line."""

from __future__ import annotations

import sys
from pathlib import Path

from recipelint.lint.findings import Finding


def _source_lines(path: str, cache: dict) -> list[str]:
    if path not in cache:
        try:
            cache[path] = Path(path).read_text(encoding="utf-8", errors="replace").split("\n")
        except OSError:
            cache[path] = []
    return cache[path]


def render_full(findings: list[Finding], color: bool = False) -> str:
    """ruff-style code frames: the finding's line with a caret under its span, then the sweep
    points it holds for and its related locations.  In colour through rich; plain text (what
    rich prints without colour: control codes dropped, tabs expanded) without importing it."""
    lines = _full_lines(findings)
    if not color:
        return "".join("".join(t for t, _ in segs).translate(_CONTROL_CODES).expandtabs(8) + "\n" for segs in lines)
    from rich.console import Console
    from rich.text import Text

    console = Console(file=sys.stdout, record=True, highlight=False, soft_wrap=True, force_terminal=True, width=200)
    with console.capture() as cap:
        for segs in lines:
            console.print(Text.assemble(*segs))
    return cap.get()


#: the control codes rich drops from text (bell, backspace, vertical tab, form feed, carriage return)
_CONTROL_CODES = {7: None, 8: None, 11: None, 12: None, 13: None}


def _full_lines(findings: list[Finding]) -> list[list[tuple[str, str | None]]]:
    """The lines of the full format, each as (text, rich style) pieces."""
    out: list[list[tuple[str, str | None]]] = []
    cache: dict = {}
    for f in findings:
        sev_style = {"error": "bold red", "warning": "bold yellow", "info": "bold blue"}.get(f.severity, "bold")
        out.append(
            [
                (f"{f.span.path}:{f.span.line}:{f.span.col}: ", "bold"),
                (f.code, sev_style),
                (f" [{f.name}] ", "dim"),
                (f.message, None),
            ]
        )
        lines = _source_lines(f.span.path, cache)
        width = len(str(f.span.end_line if f.span.end_line - f.span.line < 3 else f.span.line))
        if 1 <= f.span.line <= len(lines):
            text = lines[f.span.line - 1].expandtabs(4)
            out.append([(f"{' ' * width} |", "blue")])
            out.append([(f"{f.span.line:>{width}} | ", "blue"), (text, None)])
            start = max(1, f.span.col)
            end = f.span.end_col if f.span.end_line == f.span.line and f.span.end_col > start else len(text) + 1
            caret = " " * (start - 1) + "^" * max(1, min(end, len(text) + 1) - start)
            out.append([(f"{' ' * width} | ", "blue"), (caret, sev_style)])
        if f.points:
            shown = ", ".join(f.points[:6]) + (f", … ({len(f.points)} in all)" if len(f.points) > 6 else "")
            out.append([(f"{' ' * width} = ", "blue"), ("sweep points: ", "bold"), (shown, None)])
        for r in f.related:
            out.append(
                [
                    (f"{' ' * width} = ", "blue"),
                    ("note: ", "bold"),
                    (f"{r.span.path}:{r.span.line}:{r.span.col}: {r.message}", None),
                ]
            )
        out.append([])
    return out


def summary(findings: list[Finding], files: int) -> str:
    if not findings:
        return f"All checks passed ({files} file{'s' if files != 1 else ''})."
    by_sev: dict[str, int] = {}
    for f in findings:
        by_sev[f.severity] = by_sev.get(f.severity, 0) + 1
    parts = ", ".join(f"{n} {s}{'s' if n != 1 else ''}" for s, n in sorted(by_sev.items()))
    return (
        f"Found {len(findings)} finding{'s' if len(findings) != 1 else ''} ({parts}) in {files} file{'s' if files != 1 else ''}."
    )
