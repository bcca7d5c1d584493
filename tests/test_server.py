"""`recipelint server`, end to end: the server started as a subprocess over stdio and driven by
pygls's LanguageClient (initialize, didOpen, didChange, hover, codeAction, shutdown, exit) on a
copy of the seed repository."""

from __future__ import annotations

import asyncio
import os
import shutil
import sys
from pathlib import Path

import pytest
from helpers import FIXTURES
from lsprotocol import types
from pygls.lsp.client import LanguageClient
from pygls.uris import from_fs_path

AGENTIC = "benchmarks/single_node/agentic"
B200 = f"{AGENTIC}/dsv4_fp4_b200_vllm.sh"
B300 = f"{AGENTIC}/dsv4_fp4_b300_vllm.sh"
#: how long a test waits for the server's answer before it fails (not a speed check: bench/ has those)
PATIENCE = 120


class Session:
    """A client talking to one server subprocess; diagnostics kept per document as published."""

    def __init__(self, root: Path):
        self.root = root
        self.client = LanguageClient("recipelint-test", "1")
        self.diagnostics: dict[str, list[types.Diagnostic]] = {}
        self.published: dict[str, asyncio.Queue] = {}
        self.texts: dict[str, str] = {}
        self.versions: dict[str, int] = {}

        @self.client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        def publish(ls, params: types.PublishDiagnosticsParams):
            self.diagnostics[params.uri] = params.diagnostics
            self.queue(params.uri).put_nowait(params)

    def queue(self, uri: str) -> asyncio.Queue:
        return self.published.setdefault(uri, asyncio.Queue())

    def uri(self, rel: str) -> str:
        return from_fs_path(str(self.root / rel))

    async def start(self, *args: str) -> None:
        env = dict(os.environ, RECIPELINT_CACHE_DIR=str(self.root.parent / "cache"))
        await self.client.start_io(sys.executable, *args, cwd=str(self.root), env=env)
        result = await asyncio.wait_for(
            self.client.initialize_async(
                types.InitializeParams(
                    capabilities=types.ClientCapabilities(),
                    root_uri=from_fs_path(str(self.root)),
                    process_id=os.getpid(),
                )
            ),
            PATIENCE,
        )
        assert result.capabilities.hover_provider
        assert result.capabilities.code_action_provider
        self.client.initialized(types.InitializedParams())

    async def until(self, uri: str, version: int) -> list[types.Diagnostic]:
        while True:
            params = await asyncio.wait_for(self.queue(uri).get(), PATIENCE)
            if params.version == version:
                return list(params.diagnostics)

    async def open(self, rel: str) -> list[types.Diagnostic]:
        uri, text = self.uri(rel), (self.root / rel).read_text()
        self.texts[uri], self.versions[uri] = text, 1
        self.client.text_document_did_open(
            types.DidOpenTextDocumentParams(types.TextDocumentItem(uri=uri, language_id="shellscript", version=1, text=text))
        )
        return await self.until(uri, 1)

    async def change(self, rel: str, text: str) -> list[types.Diagnostic]:
        uri = self.uri(rel)
        self.texts[uri] = text
        self.versions[uri] += 1
        self.client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                types.VersionedTextDocumentIdentifier(uri=uri, version=self.versions[uri]),
                [types.TextDocumentContentChangeWholeDocument(text=text)],
            )
        )
        return await self.until(uri, self.versions[uri])

    async def hover(self, rel: str, line: int, character: int) -> types.Hover | None:
        params = types.HoverParams(types.TextDocumentIdentifier(self.uri(rel)), types.Position(line, character))
        return await asyncio.wait_for(self.client.text_document_hover_async(params), PATIENCE)

    async def actions(self, rel: str, diag: types.Diagnostic) -> list[types.CodeAction]:
        params = types.CodeActionParams(
            types.TextDocumentIdentifier(self.uri(rel)), diag.range, types.CodeActionContext(diagnostics=[diag])
        )
        return list(await asyncio.wait_for(self.client.text_document_code_action_async(params), PATIENCE) or [])

    async def stop(self) -> int | None:
        await asyncio.wait_for(self.client.shutdown_async(None), PATIENCE)
        self.client.exit(None)
        server = self.client._server
        code = await asyncio.wait_for(server.wait(), PATIENCE) if server is not None else None
        await self.client.stop()
        return code


def apply(text: str, edits: list[types.TextEdit]) -> str:
    """Apply LSP text edits (ASCII text here: characters are UTF-16 units) to ``text``."""
    lines = text.split("\n")

    def offset(p: types.Position) -> int:
        return sum(len(x) + 1 for x in lines[: p.line]) + p.character

    for e in sorted(edits, key=lambda e: offset(e.range.start), reverse=True):
        text = text[: offset(e.range.start)] + e.new_text + text[offset(e.range.end) :]
    return text


@pytest.fixture
def seed(tmp_path):
    shutil.copytree(FIXTURES / "seed", tmp_path / "seed")
    return tmp_path / "seed"


def test_the_server_end_to_end(seed):
    async def run():
        s = Session(seed)
        await s.start("-m", "recipelint", "server")
        # a clean recipe; then its buffer drops a flag: a diagnostic appears (the file on disk is unchanged)
        assert await s.open(B300) == []
        text = s.texts[s.uri(B300)]
        dropped = text.replace("    --enable-auto-tool-choice\n", "")
        assert dropped != text
        (diag,) = await s.change(B300, dropped)
        assert diag.code == "RL201" and diag.source == "recipelint"
        assert diag.severity == types.DiagnosticSeverity.Information
        assert diag.code_description is not None and diag.code_description.href.endswith("/docs/rules/RL201.md")
        assert diag.range == types.Range(types.Position(87, 4), types.Position(87, 8))  # (`vllm` on line 88, 1-based)
        assert "--enable-auto-tool-choice" in diag.message
        assert (seed / B300).read_text() == text
        # the buffer back as it was: no diagnostic
        assert await s.change(B300, text) == []
        # a file of another kind the editor opens (its text a recipe's that has a finding): not checked
        notes = f"{AGENTIC}/notes.txt"
        uri = s.uri(notes)
        s.client.text_document_did_open(
            types.DidOpenTextDocumentParams(types.TextDocumentItem(uri=uri, language_id="plaintext", version=1, text=dropped))
        )
        assert await s.until(uri, 1) == []

        # the B200 recipe: its findings, with related locations in its sibling and the master config
        found = await s.open(B200)
        by_code = {d.code: d for d in found}
        assert sorted(d.code for d in found) == ["RL101", "RL401", "RL401"]
        rl101 = by_code["RL101"]
        assert rl101.severity == types.DiagnosticSeverity.Warning
        assert rl101.range == types.Range(types.Position(59, 13), types.Position(59, 26))  # `$((2 * CONC))`, line 60
        assert rl101.related_information
        assert any(r.location.uri == s.uri("configs/nvidia-master.yaml") for r in rl101.related_information)

        # hover on `--max-num-seqs "$MAX_NUM_SEQS"` (line 77): the value at each sweep point, grouped
        hover = await s.hover(B200, 76, 8)
        assert hover is not None and hover.contents.kind == types.MarkupKind.Markdown
        md = hover.contents.value
        assert md.startswith("`--max-num-seqs` (vllm, line 77): 11 values over 13 sweep points")
        assert "- `16` at `nvidia-master.yaml:16 tp8-ep1-dpafalse-vllm-simple conc 8`, " in md
        assert "- `144` at `nvidia-master.yaml:18 tp8-ep8-dpatrue-vllm-simple conc 72`" in md
        # and on the assignment the value comes from (line 60): both flags it feeds
        md60 = (await s.hover(B200, 59, 16)).contents.value
        assert "`--max-num-seqs`" in md60 and "`--max-cudagraph-capture-size`" in md60
        assert await s.hover(B200, 0, 0) is None  # (the #! line: no flag)
        # the launch's environment (line 19: `export VLLM_ENGINE_READY_TIMEOUT_S=3600`) and its model (line 68)
        env = (await s.hover(B200, 18, 40)).contents.value
        assert env.startswith("`VLLM_ENGINE_READY_TIMEOUT_S` (environment, vllm, line 19): `3600` at every sweep point")
        model = (await s.hover(B200, 67, 17)).contents.value
        assert model.startswith("`argument 1` (vllm, line 68): `deepseek-ai/DeepSeek-V4-Pro` at every sweep point")

        # a suppression for RL101, placed as --add-suppressions places it; applied, RL101 is gone
        (suppress,) = [a for a in await s.actions(B200, rl101) if a.title == "Suppress RL101 here"]
        (edit,) = suppress.edit.changes[s.uri(B200)]
        assert edit.new_text == "  # recipelint: ignore[RL101] TODO: say why this is intended"
        assert edit.range.start.line == 59
        after = await s.change(B200, apply(s.texts[s.uri(B200)], [edit]))
        assert [d.code for d in after] == ["RL401", "RL401"]
        assert await s.stop() == 0

    asyncio.run(run())


def test_a_fix_is_a_code_action(seed):
    async def run():
        s = Session(seed)
        await s.start("-m", "recipelint", "server")
        text = (seed / B300).read_text()
        await s.open(B300)
        (diag,) = await s.change(B300, text.replace("    --enable-auto-tool-choice\n", ""))
        actions = await s.actions(B300, diag)
        titles = [a.title for a in actions]
        # RL201's fix is unsafe (it chooses where the flag goes, in the family's own form): the title says so
        assert titles == [
            "RL201: add `--enable-auto-tool-choice` after `--compilation-config` (line 99) (unsafe: it chooses a value, review it)",
            "Suppress RL201 here",
        ]
        fix = actions[0]
        assert fix.kind == types.CodeActionKind.QuickFix and not fix.is_preferred
        (edit,) = fix.edit.changes[s.uri(B300)]
        assert edit.range == types.Range(types.Position(99, 0), types.Position(99, 0))
        assert edit.new_text == "    --enable-auto-tool-choice\n"
        assert await s.change(B300, apply(s.texts[s.uri(B300)], [edit])) == []
        assert await s.stop() == 0

    asyncio.run(run())


def test_a_workspace_error_is_one_diagnostic(seed):
    async def run():
        (seed / ".recipelint.yaml").write_text("select: [RL9999]\nbogus-key: 1\n")
        s = Session(seed)
        await s.start("-m", "recipelint", "server")
        (diag,) = await s.open(B300)
        assert diag.severity == types.DiagnosticSeverity.Error and diag.code is None
        assert diag.range.start == types.Position(0, 0)
        assert "\n" not in diag.message and ".recipelint.yaml" in diag.message
        assert await s.stop() == 0

    asyncio.run(run())


def test_positions_are_utf16_code_units():
    from recipelint.server import Lines

    data = "x='😀é' --a\nb\n".encode()
    lines = Lines(data)
    # Span columns count characters: `--a` is character 8 (1-based); before it, 7 characters in 8
    # UTF-16 units (the emoji takes two) and 11 bytes
    assert lines.from_span(1, 8) == types.Position(0, 8)
    at = data.index(b"--a")
    assert at == 11
    assert lines.from_offset(at) == types.Position(0, 8)
    assert lines.to_offset(types.Position(0, 8)) == at
    assert lines.to_offset(types.Position(1, 0)) == data.index(b"b")
    assert lines.to_offset(types.Position(0, 99)) == data.index(b"\n")  # (past the line's end: its end)


def test_the_latency_bench_drives_a_server(seed):
    # bench/lsp_latency.py measures; here it only has to run end to end and see the edits' diagnostics
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))
    import lsp_latency

    r = asyncio.run(lsp_latency.measure(seed, B200, 3, PATIENCE))
    assert r["open_diagnostics"] == 3 and r["warm_n"] == 2
    # (a flag dropped and a comment added: the recipe's three findings; a flag misspelt: one more)
    assert r["diagnostics_per_change"] == [3, 4]
