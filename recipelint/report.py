"""Rendering findings: full (code frames), concise, json."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from .findings import Finding

FORMATS = ("full", "concise", "json")


def concise_line(f: Finding) -> str:
    return f"{f.span.path}:{f.span.line}:{f.span.col}: {f.code} [{f.name}] {f.message}"


def render_concise(findings: list[Finding]) -> str:
    return "".join(concise_line(f) + "\n" for f in findings)


def render_json(findings: list[Finding]) -> str:
    return json.dumps([f.to_dict() for f in findings], indent=2) + "\n"


def _source_lines(path: str, cache: dict) -> list[str]:
    if path not in cache:
        try:
            cache[path] = Path(path).read_text(encoding="utf-8", errors="replace").split("\n")
        except OSError:
            cache[path] = []
    return cache[path]


def render_full(findings: list[Finding], color: bool | None = None) -> str:
    """ruff-style code frames: the finding's line with a caret under its span, then the sweep
    points it holds for and its related locations."""
    from rich.console import Console
    from rich.text import Text

    console = Console(
        file=sys.stdout, record=True, highlight=False, soft_wrap=True,
        force_terminal=color, no_color=color is False, width=200,
    )
    cache: dict = {}
    with console.capture() as cap:
        for f in findings:
            sev_style = {"error": "bold red", "warning": "bold yellow", "info": "bold blue"}.get(f.severity, "bold")
            head = Text()
            head.append(f"{f.span.path}:{f.span.line}:{f.span.col}: ", style="bold")
            head.append(f.code, style=sev_style)
            head.append(f" [{f.name}] ", style="dim")
            head.append(f.message)
            console.print(head)
            lines = _source_lines(f.span.path, cache)
            width = len(str(f.span.end_line if f.span.end_line - f.span.line < 3 else f.span.line))
            if 1 <= f.span.line <= len(lines):
                text = lines[f.span.line - 1].expandtabs(4)
                console.print(Text(f"{' ' * width} |", style="blue"))
                console.print(Text.assemble((f"{f.span.line:>{width}} | ", "blue"), text))
                start = max(1, f.span.col)
                end = f.span.end_col if f.span.end_line == f.span.line and f.span.end_col > start else len(text) + 1
                caret = " " * (start - 1) + "^" * max(1, min(end, len(text) + 1) - start)
                console.print(Text.assemble((f"{' ' * width} | ", "blue"), (caret, sev_style)))
            if f.points:
                shown = ", ".join(f.points[:6]) + (f", … ({len(f.points)} in all)" if len(f.points) > 6 else "")
                console.print(Text.assemble((f"{' ' * width} = ", "blue"), ("sweep points: ", "bold"), shown))
            for r in f.related:
                console.print(Text.assemble((f"{' ' * width} = ", "blue"), ("note: ", "bold"),
                                            f"{r.span.path}:{r.span.line}:{r.span.col}: {r.message}"))
            console.print()
    return cap.get()


def summary(findings: list[Finding], files: int) -> str:
    if not findings:
        return f"All checks passed ({files} file{'s' if files != 1 else ''})."
    by_sev: dict[str, int] = {}
    for f in findings:
        by_sev[f.severity] = by_sev.get(f.severity, 0) + 1
    parts = ", ".join(f"{n} {s}{'s' if n != 1 else ''}" for s, n in sorted(by_sev.items()))
    return f"Found {len(findings)} finding{'s' if len(findings) != 1 else ''} ({parts}) in {files} file{'s' if files != 1 else ''}."
