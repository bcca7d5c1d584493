"""What every output format shares: the format names, the finding's headline (the concise line),
the summary line and a rule's documentation address."""

from __future__ import annotations

from recipelint.lint.findings import SEVERITY_RANK, Finding
from recipelint.report.style import SEVERITY_STYLE, Segments

FORMATS = ("full", "concise", "json", "json-lines", "github", "sarif")


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


def rule_url(code: str) -> str | None:
    """The address of a rule's documentation page (``docs/rules/RLxxx.md`` in the repository the
    package metadata names), or None when the metadata names none."""
    base = docs_url()
    if not base:
        return None
    base = base.rstrip("/")
    if base.endswith("/docs/rules"):  # a base that is already the rules' folder
        return f"{base}/{code}.md"
    return f"{base}/blob/main/docs/rules/{code}.md"


def headline(f: Finding) -> Segments:
    """``path:line:col: error[RL201] agentic-without-tool-calling: message``, as styled pieces:
    the first line of a finding in the full format, the whole of it in concise."""
    return [
        (f"{f.span.path}:{f.span.line}:{f.span.col}: ", "bold"),
        (f"{f.severity}[{f.code}]", SEVERITY_STYLE.get(f.severity, "bold")),
        (f" {f.name}: ", "dim"),
        (f.message, None),
    ]


def concise_line(f: Finding) -> str:
    return "".join(t for t, _ in headline(f))


def _n(count: int, noun: str) -> str:
    return f"{count} {noun}{'s' if count != 1 and noun != 'info' else ''}"


def summary_segments(findings: list[Finding], files: int) -> Segments:
    """The closing line of the terminal formats: ``Found 5 findings (2 errors, 3 warnings) in 3
    files.`` or ``All checks passed (3 files).``"""
    if not findings:
        return [(f"All checks passed ({_n(files, 'file')}).", "bold green")]
    by_sev: dict[str, int] = {}
    for f in findings:
        by_sev[f.severity] = by_sev.get(f.severity, 0) + 1
    out: Segments = [(f"Found {_n(len(findings), 'finding')} (", "bold")]
    for i, sev in enumerate(sorted(by_sev, key=lambda s: -SEVERITY_RANK.get(s, -1))):
        out += [(", ", None)] if i else []
        out.append((_n(by_sev[sev], sev), SEVERITY_STYLE.get(sev)))
    out.append((f") in {_n(files, 'file')}.", "bold"))
    return out


def fixable_line(findings: list[Finding]) -> Segments | None:
    """The line after the summary when fixes are known: ``3 fixable with `--fix` (2 more with
    `--fix --unsafe-fixes`).`` (ruff's), else None."""
    safe = sum(1 for f in findings if f.fix is not None and f.fix.applicability == "safe")
    unsafe = sum(1 for f in findings if f.fix is not None and f.fix.applicability != "safe")
    if not (safe or unsafe):
        return None
    if safe:
        text = f"{safe} fixable with `--fix`" + (f" ({unsafe} more with `--fix --unsafe-fixes`)" if unsafe else "") + "."
    else:
        text = f"{unsafe} fixable with `--fix --unsafe-fixes`."
    return [(text, None)]


def fix_hint(f: Finding) -> str:
    """How to apply a finding's fix: ``--fix``, or ``--fix --unsafe-fixes``."""
    return "--fix" if f.fix is not None and f.fix.applicability == "safe" else "--fix --unsafe-fixes"


def summary(findings: list[Finding], files: int) -> str:
    return "".join(t for t, _ in summary_segments(findings, files))
