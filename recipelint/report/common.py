"""What every output format shares: the format names, the concise line and a rule's documentation address."""

from __future__ import annotations

from recipelint.lint.findings import Finding

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


def concise_line(f: Finding) -> str:
    return f"{f.span.path}:{f.span.line}:{f.span.col}: {f.code} [{f.name}] {f.message}"
