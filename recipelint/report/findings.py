"""Rendering findings: full (code frames), concise, json."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from recipelint.lint.findings import Finding

FORMATS = ("full", "concise", "json", "json-lines", "github", "sarif")
SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"


def docs_url() -> str | None:
    """The project's documentation URL from the installed package metadata (Project-URL
    Documentation/Homepage), if it declares one."""
    try:
        from importlib.metadata import metadata

        md = metadata("recipelint")
    except Exception:
        return None
    for entry in md.get_all("Project-URL") or []:
        label, _, url = entry.partition(",")
        if label.strip().lower() in ("documentation", "homepage", "repository") and url.strip():
            return url.strip()
    return md.get("Home-page") or None


def concise_line(f: Finding) -> str:
    return f"{f.span.path}:{f.span.line}:{f.span.col}: {f.code} [{f.name}] {f.message}"


def render_concise(findings: list[Finding]) -> str:
    return "".join(concise_line(f) + "\n" for f in findings)


def render_json(findings: list[Finding]) -> str:
    return json.dumps([f.to_dict() for f in findings], indent=2) + "\n"


def render_json_lines(findings: list[Finding]) -> str:
    return "".join(json.dumps(f.to_dict(), separators=(",", ":")) + "\n" for f in findings)


def _esc_data(s: str) -> str:
    return s.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _esc_prop(s: str) -> str:
    return _esc_data(s).replace(":", "%3A").replace(",", "%2C")


GITHUB_LEVEL = {"error": "error", "warning": "warning", "info": "notice"}


def render_github(findings: list[Finding]) -> str:
    """GitHub Actions workflow commands: one annotation per finding."""
    out = []
    for f in findings:
        sp = f.span
        props = [f"file={_esc_prop(sp.path)}", f"line={sp.line}", f"col={sp.col}"]
        if sp.end_line >= sp.line:
            props += [f"endLine={sp.end_line}", f"endColumn={sp.end_col}"]
        props.append(f"title={_esc_prop(f'recipelint ({f.code})')}")
        msg = f"{f.code} [{f.name}] {f.message}"
        if f.points:
            msg += f"\nsweep points: {', '.join(f.points[:6])}" + (f" (+{len(f.points) - 6} more)" if len(f.points) > 6 else "")
        for r in f.related:
            msg += f"\nnote: {r.span.path}:{r.span.line}:{r.span.col}: {r.message}"
        out.append(f"::{GITHUB_LEVEL.get(f.severity, 'warning')} {','.join(props)}::{_esc_data(msg)}")
    return "".join(line + "\n" for line in out)


SARIF_LEVEL = {"error": "error", "warning": "warning", "info": "note"}


def _region(sp) -> dict:
    region = {"startLine": max(1, sp.line), "startColumn": max(1, sp.col)}
    if (sp.end_line, sp.end_col) > (sp.line, sp.col):
        region["endLine"] = sp.end_line
        region["endColumn"] = max(1, sp.end_col)
    return region


def _uri(path: str) -> str:
    from pathlib import PurePosixPath
    from urllib.parse import quote

    p = PurePosixPath(path.replace("\\", "/"))
    return quote(str(p)) if not p.is_absolute() else "file://" + quote(str(p))


def render_sarif(findings: list[Finding], rules=None) -> str:
    """SARIF 2.1.0 as GitHub code scanning reads it: rule metadata from the rule docs, results
    with repository-relative locations, related locations for siblings and config lines."""
    from recipelint import __version__
    from recipelint.lint.registry import all_rules

    rules = list(rules or all_rules())
    index = {r.code: i for i, r in enumerate(rules)}
    base = docs_url()
    driver_rules = []
    for r in rules:
        doc = r.doc()
        rule = {
            "id": r.code,
            "name": r.name,
            "shortDescription": {"text": r.summary()},
            "fullDescription": {"text": " ".join(doc.split("## Why is this bad?")[0].replace("## What it does", "").split())},
            "help": {"text": doc, "markdown": f"# {r.code} {r.name}\n\n{doc}"},
            "defaultConfiguration": {"level": SARIF_LEVEL.get(r.severity, "warning")},
            "properties": {"tags": ["recipelint"]},
        }
        if base:
            rule["helpUri"] = f"{base.rstrip('/')}#{r.code.lower()}-{r.name}"
        driver_rules.append(rule)
    results = []
    for f in findings:
        res = {
            "ruleId": f.code,
            "level": SARIF_LEVEL.get(f.severity, "warning"),
            "message": {
                "text": f.message
                + (
                    f" (sweep points: {', '.join(f.points[:6])}"
                    + (f", +{len(f.points) - 6} more" if len(f.points) > 6 else "")
                    + ")"
                    if f.points
                    else ""
                )
            },
            "locations": [
                {
                    "physicalLocation": {
                        "artifactLocation": {"uri": _uri(f.span.path), "uriBaseId": "%SRCROOT%"},
                        "region": _region(f.span),
                    }
                }
            ],
            "partialFingerprints": {"recipelint/v1": f"{f.code}:{f.span.path}:{f.key or f.message}"[:200]},
        }
        if f.code in index:
            res["ruleIndex"] = index[f.code]
        if f.related:
            res["relatedLocations"] = [
                {
                    "id": i,
                    "message": {"text": r.message},
                    "physicalLocation": {
                        "artifactLocation": {"uri": _uri(r.span.path), "uriBaseId": "%SRCROOT%"},
                        "region": _region(r.span),
                    },
                }
                for i, r in enumerate(f.related, 1)
            ]
        results.append(res)
    doc = {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": dict(
                        {"name": "recipelint", "version": __version__, "semanticVersion": __version__, "rules": driver_rules},
                        **({"informationUri": base} if base else {}),
                    )
                },
                "results": results,
                "columnKind": "unicodeCodePoints",
            }
        ],
    }
    return json.dumps(doc, indent=2) + "\n"


def render_statistics(findings: list[Finding]) -> str:
    counts: dict[tuple[str, str], int] = {}
    for f in findings:
        counts[(f.code, f.name)] = counts.get((f.code, f.name), 0) + 1
    width = max((len(str(n)) for n in counts.values()), default=1)
    return "".join(
        f"{n:>{width}}\t{code}\t[{name}]\n" for (code, name), n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    )


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
