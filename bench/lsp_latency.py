"""Per-change latency of ``recipelint server`` on one recipe: didChange → publishDiagnostics.

    python bench/lsp_latency.py --repo /path/to/InferenceX [--recipe benchmarks/.../x.sh] [-n 20]

The server is started over stdio (``python -m recipelint server``, the cache directory a fresh
temporary one) and driven by pygls's LanguageClient from ``--repo``: ``initialize``, ``didOpen``
of the recipe (its diagnostics: *open*, cold), then ``-n`` changes of the buffer (full text),
each sent once the diagnostics of the one before have arrived.  The changes cycle through the
recipe with a line that is a lone ``--flag`` dropped (``bench.drop_flag_line``), with the serve
flag ``--max-num-seqs`` misspelt (``--max-num-seqz``: an unknown flag, a diagnostic appears) and
with one more comment line (a new text each time).  The first change is
reported alone (*first*: the kept workspace fills); the others are the *warm* latencies,
reported as min/median/max (the issue's target: ≤ 0.5 s).  Nothing on disk is changed.

This is a development tool: it runs the program it measures.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench import drop_flag_line

RECIPE = "benchmarks/single_node/agentic/dsv4_fp4_b200_vllm_mtp.sh"
TARGET_S = 0.5


async def measure(repo: Path, recipe: str, n: int, timeout: float) -> dict:
    from lsprotocol import types
    from pygls.lsp.client import LanguageClient
    from pygls.uris import from_fs_path

    path = (repo / recipe).resolve()
    text = path.read_text(encoding="utf-8")
    uri = from_fs_path(str(path))
    client = LanguageClient("recipelint-bench", "1")
    arrived: asyncio.Queue = asyncio.Queue()

    @client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    def publish(ls, params: types.PublishDiagnosticsParams):
        if params.uri == uri:
            arrived.put_nowait((time.perf_counter(), params))

    async def until(version: int) -> tuple[float, int]:
        while True:
            at, params = await asyncio.wait_for(arrived.get(), timeout)
            if params.version == version:
                return at, len(params.diagnostics)

    with tempfile.TemporaryDirectory(prefix="recipelint-lsp-bench-") as cache:
        env = dict(os.environ, RECIPELINT_CACHE_DIR=cache)
        await client.start_io(sys.executable, "-m", "recipelint", "server", cwd=str(repo), env=env)
        await client.initialize_async(
            types.InitializeParams(capabilities=types.ClientCapabilities(), root_uri=from_fs_path(str(repo)))
        )
        client.initialized(types.InitializedParams())
        t0 = time.perf_counter()
        client.text_document_did_open(
            types.DidOpenTextDocumentParams(types.TextDocumentItem(uri=uri, language_id="shellscript", version=1, text=text))
        )
        at, count = await until(1)
        opened = (at - t0, count)
        edits = [drop_flag_line(text), text.replace("--max-num-seqs", "--max-num-seqz", 1)]
        changes = []
        for i in range(n):
            version = i + 2
            new = edits[i % 3] if i % 3 < 2 else f"{text}# bench: change {i}\n"
            t0 = time.perf_counter()
            client.text_document_did_change(
                types.DidChangeTextDocumentParams(
                    types.VersionedTextDocumentIdentifier(uri=uri, version=version),
                    [types.TextDocumentContentChangeWholeDocument(text=new)],
                )
            )
            at, count = await until(version)
            changes.append((at - t0, count))
        await client.shutdown_async(None)
        client.exit(None)
        await client.stop()
    warm = [s for s, _ in changes[1:]]
    return {
        "recipe": recipe,
        "open_s": opened[0],
        "open_diagnostics": opened[1],
        "first_change_s": changes[0][0] if changes else None,
        "warm_n": len(warm),
        "warm_min_s": min(warm) if warm else None,
        "warm_median_s": statistics.median(warm) if warm else None,
        "warm_max_s": max(warm) if warm else None,
        "diagnostics_per_change": sorted({c for _, c in changes}),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repo", type=Path, required=True, help="a benchmark repository (an InferenceX clone)")
    ap.add_argument("--recipe", default=RECIPE, help=f"the recipe edited (default: {RECIPE})")
    ap.add_argument("-n", type=int, default=20, help="changes sent (the first is not counted as warm)")
    ap.add_argument("--timeout", type=float, default=120.0, help="seconds to wait for one answer")
    args = ap.parse_args(argv)
    if not (args.repo / args.recipe).is_file():
        raise SystemExit(f"{args.repo / args.recipe}: no such recipe")
    if args.n < 2:
        raise SystemExit("-n: at least 2 changes (the first is not warm)")
    r = asyncio.run(measure(args.repo, args.recipe, args.n, args.timeout))
    print(f"recipe: {r['recipe']}")
    print(f"didOpen → diagnostics (cold): {r['open_s']:.3f} s ({r['open_diagnostics']} diagnostics)")
    print(f"first didChange → diagnostics: {r['first_change_s']:.3f} s")
    met = "met" if r["warm_median_s"] <= TARGET_S else "NOT met"
    print(
        f"warm didChange → diagnostics over {r['warm_n']} changes: min {r['warm_min_s']:.3f} s, "
        f"median {r['warm_median_s']:.3f} s, max {r['warm_max_s']:.3f} s (target ≤ {TARGET_S} s: {met}; "
        f"diagnostics per change: {r['diagnostics_per_change']})"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
