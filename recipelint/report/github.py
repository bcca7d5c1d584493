"""``--output-format github``: GitHub Actions workflow commands (annotations on the PR's files)."""

from __future__ import annotations

from recipelint.lint.findings import Finding
from recipelint.report.style import printable


def _esc_data(s: str) -> str:
    """The workflow-command escapes (``%``, CR, LF), after the control characters a log viewer
    would act on (``printable``: a recipe's ESC never reaches the Actions log raw)."""
    return printable(s).replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


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
