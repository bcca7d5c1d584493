"""``--summary-file``: a GitHub-flavoured markdown summary of a run, appended to a file (the job
step summary, ``$GITHUB_STEP_SUMMARY``): a heading, the counts, a table of the reported findings."""

from __future__ import annotations

import re

from recipelint.lint.findings import Finding
from recipelint.report.style import printable

#: rows of the findings table; the rest are counted in one line (a step summary is at most 1 MiB)
MAX_ROWS = 100
#: a message longer than this is cut in its cell
MAX_MESSAGE = 300

_SEVERITY_ORDER = ("error", "warning", "info")
#: markdown punctuation that could change how a cell reads (emphasis, links, HTML, a column break)
_MARKDOWN = re.compile(r"([\\`*_\[\]<>|~&])")
_WHITESPACE = re.compile(r"\s+")


def _cell(text: str) -> str:
    """``text`` as literal text in one table cell."""
    return _MARKDOWN.sub(r"\\\1", printable(_WHITESPACE.sub(" ", text)))


def _code(text: str) -> str:
    """``text`` as a code span in a table cell (plain escaped text if it holds a backtick)."""
    text = _WHITESPACE.sub(" ", text)
    if "`" in text or not text.strip():
        return _cell(text)
    return "`" + printable(text).replace("|", "\\|") + "`"


def _message(text: str) -> str:
    """A finding's message in a cell: its `code spans` kept as code when they pair up."""
    text = _WHITESPACE.sub(" ", text).strip()
    if len(text) > MAX_MESSAGE:
        text = text[: MAX_MESSAGE - 1] + "…"
    parts = text.split("`")
    if len(parts) % 2 == 0:  # an unpaired backtick: all literal text
        return _cell(text)
    return "".join(_cell(p) if i % 2 == 0 else _code(p) for i, p in enumerate(parts))


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def render_summary(
    findings: list[Finding],
    files: int,
    all_count: int | None = None,
    diff_base: str | None = None,
    scope_note: str = "",
    limit: int = MAX_ROWS,
) -> str:
    """The summary of a run that reported ``findings`` over ``files`` files; ``all_count`` is the
    number of findings in the whole tree when only the new ones are reported (``--diff-base``;
    None when only what the change can affect was analysed: ``scope_note`` says what)."""
    out = ["## recipelint", ""]
    scope = f" new since {_cell(diff_base)}" if diff_base else ""
    if not findings:
        out.append(f"All checks passed: no findings{scope} ({_plural(files, 'file')} checked).")
    else:
        by_sev: dict[str, int] = {}
        for f in findings:
            by_sev[f.severity] = by_sev.get(f.severity, 0) + 1
        order = sorted(by_sev, key=lambda s: _SEVERITY_ORDER.index(s) if s in _SEVERITY_ORDER else len(_SEVERITY_ORDER))
        counts = ", ".join(_plural(by_sev[s], s) for s in order)
        out.append(f"**{_plural(len(findings), 'finding')}**{scope} ({counts}) in {_plural(files, 'file')} checked.")
    if all_count is not None and (diff_base or all_count != len(findings)):
        out += ["", f"The whole tree has {_plural(all_count, 'finding')}."]
    if scope_note:
        out += ["", _cell(scope_note[:1].upper() + scope_note[1:]) + "."]
    if findings:
        out += ["", "| Location | Code | Severity | Message |", "| --- | --- | --- | --- |"]
        for f in findings[:limit]:
            where = _code(f"{f.span.path}:{f.span.line}")
            out.append(f"| {where} | {_cell(f.code)} | {_cell(f.severity)} | {_message(f.message)} |")
        if len(findings) > limit:
            out += ["", f"… and {len(findings) - limit} more (see the annotations or `recipelint check` output)."]
    return "\n".join(out) + "\n\n"
