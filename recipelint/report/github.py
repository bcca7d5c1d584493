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


#: GitHub keeps at most this many annotations of each kind (error, warning, notice) per step and
#: drops the rest without a word (actions/toolkit docs/problem-matchers.md, "Limitations")
ANNOTATIONS_PER_KIND = 10


def _overflow_notice(findings: list[Finding]) -> str | None:
    """A first annotation saying what GitHub will not show, when a kind holds more than it keeps."""
    counts: dict[str, int] = {}
    for f in findings:
        level = GITHUB_LEVEL.get(f.severity, "warning")
        counts[level] = counts.get(level, 0) + 1
    counts["notice"] = counts.get("notice", 0) + 1  # (this one)
    hidden = sum(max(0, n - ANNOTATIONS_PER_KIND) for n in counts.values())
    if not hidden:
        return None
    kinds = ", ".join(
        f"{counts[k] - (k == 'notice')} {k}s" for k in ("error", "warning", "notice") if counts.get(k, 0) - (k == "notice")
    )
    msg = (
        f"recipelint reported {len(findings)} findings ({kinds}); GitHub shows at most {ANNOTATIONS_PER_KIND} "
        f"annotations of each kind per step, so {hidden} are not shown on the files: every finding is "
        "printed in this step's log (and listed in the step summary when it is written: --summary-file)"
    )
    return f"::notice title={_esc_prop('recipelint: not every finding is annotated')}::{_esc_data(msg)}"


def render_github(findings: list[Finding]) -> str:
    """GitHub Actions workflow commands: one annotation per finding (first, when GitHub will not
    show them all, a notice saying how many it hides and where they are)."""
    out = []
    notice = _overflow_notice(findings)
    if notice is not None:
        out.append(notice)
    for f in findings:
        sp = f.span
        props = [f"file={_esc_prop(sp.path)}", f"line={sp.line}", f"col={sp.col}"]
        if sp.end_line >= sp.line:
            props += [f"endLine={sp.end_line}", f"endColumn={sp.end_col}"]
        props.append(f"title={_esc_prop(f'recipelint ({f.code})')}")
        msg = f"{f.code} [{f.name}] {f.message}" + "".join(f"\n{n}" for n in f.notes)
        if f.points:
            msg += f"\nsweep points: {', '.join(f.points[:6])}" + (f" (+{len(f.points) - 6} more)" if len(f.points) > 6 else "")
        for r in f.related:
            msg += f"\nnote: {r.span.path}:{r.span.line}:{r.span.col}: {r.message}"
        out.append(f"::{GITHUB_LEVEL.get(f.severity, 'warning')} {','.join(props)}::{_esc_data(msg)}")
    return "".join(line + "\n" for line in out)
