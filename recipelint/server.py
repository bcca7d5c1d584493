"""``recipelint server``: a Language Server (LSP over stdio, with pygls) for editors.

* Diagnostics on open and on every change (full sync), from the **unsaved buffer**: its text is
  checked as if it were the file at its path (``lint.workspace.Workspace.lint`` with the text
  given: ``recipelint.files.overlaid``, the input ``recipelint check -`` uses too) — its master
  configs, sourced files and siblings are the repository's on disk.  Each diagnostic has the
  rule's code and documentation address, its severity, the finding's range and its related
  locations.
* Hover on a flag, its value or a word the value came from: the value at each sweep point
  (``report.hover``: the launch ``recipelint render`` shows per point).
* Code actions: a finding's fix (``Finding.fix``; an unsafe one's title says it chooses a value)
  and, for every finding, a suppression comment on its line with a reason placeholder (placed by
  ``lint.addsuppress.plan``, as ``--add-suppressions`` places it).

One ``Workspace`` per project root and settings file is kept (``Workspace.keep``): sourced
libraries stay parsed between changes.  Checks run one at a time in a worker thread, newest text
first: a change that a newer one has replaced before its check starts is not checked.
Positions: LSP lines and characters are 0-based, characters in UTF-16 code units; a finding's
``Span`` is 1-based, in characters.
"""

from __future__ import annotations

import asyncio
import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from lsprotocol import types
from pygls.lsp.server import LanguageServer
from pygls.uris import from_fs_path, to_fs_path

from recipelint import __version__
from recipelint.lint.findings import Finding
from recipelint.lint.workspace import Workspace, WorkspaceError
from recipelint.stack import roomy

SEVERITY = {
    "error": types.DiagnosticSeverity.Error,
    "warning": types.DiagnosticSeverity.Warning,
    "info": types.DiagnosticSeverity.Information,
}
SOURCE = "recipelint"


# --- positions ---------------------------------------------------------------------------------


def utf16_len(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


class Lines:
    """A text's lines, for positions: characters (a Span's) and bytes (an Edit's) to LSP's."""

    def __init__(self, data: bytes):
        self.data = data
        self.raw = data.split(b"\n")
        self.starts = [0]
        for line in self.raw[:-1]:
            self.starts.append(self.starts[-1] + len(line) + 1)
        self._text: dict[int, str] = {}

    def text(self, row: int) -> str:
        if row not in self._text:
            self._text[row] = self.raw[row].decode("utf-8", "replace") if 0 <= row < len(self.raw) else ""
        return self._text[row]

    def from_span(self, line: int, col: int) -> types.Position:
        """A Span's 1-based line and character column."""
        row = max(0, line - 1)
        return types.Position(row, utf16_len(self.text(row)[: max(0, col - 1)]))

    def from_offset(self, offset: int) -> types.Position:
        import bisect

        offset = max(0, min(offset, len(self.data)))
        row = bisect.bisect_right(self.starts, offset) - 1
        return types.Position(row, utf16_len(self.data[self.starts[row] : offset].decode("utf-8", "replace")))

    def to_offset(self, pos: types.Position) -> int:
        """The byte offset of an LSP position (clamped to its line)."""
        row = min(max(0, pos.line), len(self.raw) - 1)
        text, units, chars = self.text(row), 0, 0
        for ch in text:
            if units >= pos.character:
                break
            units += 2 if ord(ch) > 0xFFFF else 1
            chars += 1
        return self.starts[row] + len(text[:chars].encode("utf-8"))


def same_file(a: str | Path, b: str | Path) -> bool:
    try:
        return os.path.realpath(a) == os.path.realpath(b)
    except (OSError, ValueError):
        return False


# --- state -------------------------------------------------------------------------------------


@dataclass(slots=True)
class Checked:
    """A document's last check: the text, the findings on it, its analysis (for hover)."""

    version: int | None
    lines: Lines
    findings: list[Finding] = field(default_factory=list)
    analysis: object = None


class RecipeServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__("recipelint", __version__, text_document_sync_kind=types.TextDocumentSyncKind.Full)
        self.workspaces: dict[tuple[str, str], Workspace] = {}
        self.checked: dict[str, Checked] = {}
        self.pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="recipelint-check")
        #: the newest version of each document asked for (a check of an older one is skipped)
        self.wanted: dict[str, int | None] = {}

    # the workspace of a document: one per project root and settings file, kept
    def workspace_of(self, path: Path) -> Workspace:
        from recipelint.lint.settings import SettingsError, find
        from recipelint.sweep.configs import project_root

        try:
            settings = find(path)
        except SettingsError as e:
            raise WorkspaceError(str(e)) from None
        key = (str(project_root(path)), str(settings))
        ws = self.workspaces.get(key)
        if ws is None:
            ws = Workspace.open([path], cache=False).keep()
            self.workspaces[key] = ws
        return ws

    def check(self, uri: str, version: int | None, text: str, language: str | None = None) -> Checked | None:
        """Check a document's text (in the worker thread); None when a newer text is wanted."""
        if self.wanted.get(uri, version) != version:
            return None
        fs = to_fs_path(uri)
        data = text.encode("utf-8")
        done = Checked(version, Lines(data))
        if fs is None or not checked_kind(Path(fs), language, data):
            return done
        path = Path(fs)
        try:
            ws = self.workspace_of(path)
            result = roomy(ws.lint, ws.options(jobs=1, progress=None), paths=[path], texts={path: data})
        except WorkspaceError as e:
            done.findings = [_problem(str(e), path)]
            return done
        except RecursionError:
            done.findings = [_problem("recipelint: internal error: input nested too deeply", path)]
            return done
        except Exception as e:  # (as the command line says it: one line, and the server goes on)
            done.findings = [_problem(f"recipelint: internal error: {type(e).__name__}: {e}", path)]
            return done
        done.findings = [f for f in result.findings if same_file(f.span.path, path)]
        done.analysis = next((r for r in result.files if same_file(r.path, path) and not r.slim), None)
        return done

    async def refresh(self, uri: str) -> None:
        doc = self.workspace.get_text_document(uri)
        self.wanted[uri] = doc.version
        loop = asyncio.get_running_loop()
        done = await loop.run_in_executor(self.pool, self.check, uri, doc.version, doc.source, doc.language_id)
        if done is None:
            return
        self.checked[uri] = done
        diagnostics = [diagnostic(f, done.lines, i) for i, f in enumerate(done.findings)]
        self.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri, diagnostics, version=doc.version))

    async def current(self, uri: str) -> Checked | None:
        """The document's check of its current text (checked now when it is not yet)."""
        doc = self.workspace.get_text_document(uri)
        have = self.checked.get(uri)
        if have is None or have.version != doc.version:
            await self.refresh(uri)
        return self.checked.get(uri)


#: the editors' language ids of shell scripts (VS Code's, Neovim's filetypes)
SHELL_LANGUAGES = frozenset({"shellscript", "sh", "bash"})


def checked_kind(path: Path, language: str | None, data: bytes) -> bool:
    """Whether a document is checked: a shell script by its language id, a recipe's or a master
    config's name (as a directory walk takes them), or a name without suffix and a ``#!`` line
    that runs bash or sh; an editor's other files (Python, Markdown) are not."""
    from recipelint.files import WALKED_SHELLS, has_no_suffix, shebang_interpreter
    from recipelint.lint.check import RECIPE_SUFFIXES

    name = path.name
    if language in SHELL_LANGUAGES or name.endswith((*RECIPE_SUFFIXES, "-master.yaml", "-master.yml")):
        return True
    return has_no_suffix(name) and shebang_interpreter(data[:256]) in WALKED_SHELLS


def _problem(message: str, path: Path) -> Finding:
    from recipelint.bash.source import Span

    return Finding("", "workspace", "error", message, Span(str(path), 1, 1, 1, 1))


# --- diagnostics -------------------------------------------------------------------------------


def diagnostic(f: Finding, lines: Lines, index: int) -> types.Diagnostic:
    from recipelint.report.common import rule_url
    from recipelint.report.points import compact_points

    sp = f.span
    start = lines.from_span(sp.line, sp.col)
    end = lines.from_span(sp.end_line, sp.end_col)
    if (end.line, end.character) < (start.line, start.character):
        end = start
    url = rule_url(f.code) if f.code else None
    message = f.message + "".join(f"\n{n}" for n in f.notes)  # (the headline, then its notes: the release judged, why)
    if f.points:
        groups = compact_points(f.points)
        message += "\nsweep points: " + "; ".join(groups[:4]) + (f"; … ({len(groups) - 4} more)" if len(groups) > 4 else "")
    related = [
        types.DiagnosticRelatedInformation(types.Location(_uri(r.span.path), _range_elsewhere(r.span, lines, sp.path)), r.message)
        for r in f.related
    ]
    return types.Diagnostic(
        range=types.Range(start, end),
        message=message,
        severity=SEVERITY.get(f.severity, types.DiagnosticSeverity.Information),
        code=f.code or None,
        code_description=types.CodeDescription(href=url) if url else None,
        source=SOURCE,
        related_information=related or None,
        data={"index": index, "code": f.code},
    )


def _uri(path: str) -> str:
    return from_fs_path(os.path.abspath(path)) or path


def _range_elsewhere(span, lines: Lines, here: str) -> types.Range:
    """A related location's range: in the document, from its text; in another file, from that
    file's lines (read through ``recipelint.files``), else with characters taken for UTF-16 units."""
    other = lines if same_file(span.path, here) else _file_lines(span.path)
    if other is None:
        return types.Range(
            types.Position(max(0, span.line - 1), max(0, span.col - 1)),
            types.Position(max(0, span.end_line - 1), max(0, span.end_col - 1)),
        )
    return types.Range(other.from_span(span.line, span.col), other.from_span(span.end_line, span.end_col))


def _file_lines(path: str) -> Lines | None:
    from recipelint.bash.source import MAX_RECIPE_BYTES
    from recipelint.files import Refused, confine, read_regular
    from recipelint.sweep.configs import project_root

    try:
        return Lines(read_regular(confine(path, [project_root(Path(path))]), MAX_RECIPE_BYTES))
    except (Refused, OSError, ValueError):
        return None


# --- code actions ------------------------------------------------------------------------------


def fix_action(f: Finding, uri: str, lines: Lines, diag: types.Diagnostic) -> types.CodeAction | None:
    """The finding's fix as a quick fix (None when its text is no longer what it replaces)."""
    if f.fix is None or not f.fix.edits:
        return None
    here = to_fs_path(uri) or ""
    changes: dict[str, list[types.TextEdit]] = {}
    for e in f.fix.edits:
        target = lines if same_file(e.path, here) else _file_lines(e.path)
        if target is None or target.data[e.start : e.end] != e.old.encode("utf-8"):
            return None
        doc = uri if target is lines else _uri(e.path)
        rng = types.Range(target.from_offset(e.start), target.from_offset(e.end))
        changes.setdefault(doc, []).append(types.TextEdit(rng, e.new))
    unsafe = f.fix.applicability != "safe"
    title = f"{f.fix.title} (unsafe: it chooses a value, review it)" if unsafe else f.fix.title
    return types.CodeAction(
        title=f"{f.code}: {title}",
        kind=types.CodeActionKind.QuickFix,
        diagnostics=[diag],
        edit=types.WorkspaceEdit(changes=changes),
        is_preferred=not unsafe,
    )


def suppress_action(f: Finding, uri: str, lines: Lines, diag: types.Diagnostic) -> types.CodeAction | None:
    """A suppression comment for the finding on its line, placed as ``--add-suppressions`` places
    it (``lint.addsuppress.plan``), as the one edit that inserts it."""
    from recipelint.lint import addsuppress

    if not f.code or f.code in addsuppress.NEVER or f.span.path.endswith((".yaml", ".yml", ".toml", ".json", ".md")):
        return None
    edit = addsuppress.plan(lines.data, {f.span.line: {f.code}})
    if f.span.line in edit.unplaced or edit.data == lines.data:
        return None
    old, new = lines.data, edit.data
    a = 0
    while a < min(len(old), len(new)) and old[a] == new[a]:
        a += 1
    b = 0
    while b < min(len(old), len(new)) - a and old[len(old) - 1 - b] == new[len(new) - 1 - b]:
        b += 1
    while a > 0 and a < len(old) and (old[a] & 0xC0) == 0x80:  # (whole characters: back to one's first byte)
        a -= 1
    while b > 0 and (old[len(old) - b] & 0xC0) == 0x80:
        b -= 1
    rng = types.Range(lines.from_offset(a), lines.from_offset(len(old) - b))
    text = new[a : len(new) - b].decode("utf-8", "replace")
    return types.CodeAction(
        title=f"Suppress {f.code} here",
        kind=types.CodeActionKind.QuickFix,
        diagnostics=[diag],
        edit=types.WorkspaceEdit(changes={uri: [types.TextEdit(rng, text)]}),
    )


def _finding_of(diag: types.Diagnostic, checked: Checked) -> Finding | None:
    data = diag.data if isinstance(diag.data, dict) else {}
    i = data.get("index")
    if isinstance(i, int) and 0 <= i < len(checked.findings) and checked.findings[i].code == diag.code:
        return checked.findings[i]
    for f in checked.findings:  # (a client that does not send the data back: by code and range)
        if f.code == diag.code and checked.lines.from_span(f.span.line, f.span.col) == diag.range.start:
            return f
    return None


# --- the server --------------------------------------------------------------------------------


def make_server() -> RecipeServer:
    server = RecipeServer()

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    async def did_open(ls: RecipeServer, params: types.DidOpenTextDocumentParams) -> None:
        await ls.refresh(params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    async def did_change(ls: RecipeServer, params: types.DidChangeTextDocumentParams) -> None:
        await ls.refresh(params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE)
    async def did_save(ls: RecipeServer, params: types.DidSaveTextDocumentParams) -> None:
        await ls.refresh(params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: RecipeServer, params: types.DidCloseTextDocumentParams) -> None:
        uri = params.text_document.uri
        ls.checked.pop(uri, None)
        ls.wanted.pop(uri, None)
        ls.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri, []))

    @server.feature(types.TEXT_DOCUMENT_HOVER)
    async def hover(ls: RecipeServer, params: types.HoverParams) -> types.Hover | None:
        from recipelint.report.hover import hover_markdown

        checked = await ls.current(params.text_document.uri)
        if checked is None or checked.analysis is None:
            return None
        text = hover_markdown(checked.analysis, checked.lines.to_offset(params.position))  # type: ignore[arg-type]
        if text is None:
            return None
        return types.Hover(types.MarkupContent(types.MarkupKind.Markdown, text))

    @server.feature(
        types.TEXT_DOCUMENT_CODE_ACTION,
        types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix]),
    )
    async def code_action(ls: RecipeServer, params: types.CodeActionParams) -> list[types.CodeAction]:
        uri = params.text_document.uri
        checked = await ls.current(uri)
        if checked is None:
            return []
        out: list[types.CodeAction] = []
        for diag in params.context.diagnostics:
            if diag.source != SOURCE:
                continue
            f = _finding_of(diag, checked)
            if f is None:
                continue
            for make in (fix_action, suppress_action):
                action = make(f, uri, checked.lines, diag)
                if action is not None:
                    out.append(action)
        return out

    @server.feature(types.SHUTDOWN)
    def shutdown(ls: RecipeServer, params: None) -> None:
        ls.pool.shutdown(wait=True, cancel_futures=True)

    return server


def main() -> None:
    """Serve over stdin/stdout until the client says exit."""
    make_server().start_io()
