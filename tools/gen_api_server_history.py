"""Write ``rules/data/catalogs/wrappers/vllm.entrypoints.api_server-history.json``: the own flags of
vLLM's demo server, ``python -m vllm.entrypoints.api_server``, per release, from vLLM's sdists.

    python tools/gen_api_server_history.py SDIST_DIR

``vllm/entrypoints/api_server.py`` builds a ``FlexibleArgumentParser`` in its ``__main__`` block,
adds a few options of its own (``--host``, ``--port``, ``--ssl-*``, ``--root-path``,
``--log-level``) and then ``AsyncEngineArgs.add_cli_args``: the engine's arguments, which the
release's vLLM catalog already holds.  So the module is a *wrapper* of vLLM (like
``python -m dynamo.vllm``): its own flags are the ``--`` literals of those ``add_argument`` calls.
Releases whose sdist has no such file (the module was removed in 0.25.0) are not listed; the
sdists read are recorded with their SHA-256.
"""

from __future__ import annotations

import ast
import hashlib
import json
import re
import sys
import tarfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "rules" / "data" / "catalogs" / "wrappers" / "vllm.entrypoints.api_server-history.json"
MODULE = "vllm/entrypoints/api_server.py"


def own_flags(source: str) -> list[str]:
    """The ``--`` literals of the ``add_argument`` calls under ``if __name__ == "__main__":``."""
    flags: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.If) and "__main__" in ast.unparse(node.test):
            for sub in ast.walk(node):
                if isinstance(sub, ast.Call) and getattr(sub.func, "attr", None) == "add_argument":
                    for a in sub.args:
                        if isinstance(a, ast.Constant) and isinstance(a.value, str) and a.value.startswith("--"):
                            flags.add(a.value)
    return sorted(flags)


def _key(v: str) -> tuple:
    return tuple(int(x) if x.isdigit() else -1 for x in re.split(r"[.]", re.sub(r"(rc|post)\d+", "", v)))


def main(argv: list[str] | None = None) -> int:
    args = argv if argv is not None else sys.argv[1:]
    if len(args) != 1:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    found: dict[str, tuple[str, str, list[str]]] = {}
    for sdist in sorted(Path(args[0]).glob("vllm-*.tar.gz")):
        version = sdist.name[len("vllm-") : -len(".tar.gz")]
        with tarfile.open(sdist) as tar:
            try:
                member = tar.extractfile(f"vllm-{version}/{MODULE}")
            except KeyError:
                continue
            if member is None:
                continue
            source = member.read().decode("utf-8")
        found[version] = (sdist.name, hashlib.sha256(sdist.read_bytes()).hexdigest(), own_flags(source))
    releases = sorted(found, key=_key)
    flags: dict[str, list[int]] = {}
    for i, v in enumerate(releases):
        for f in found[v][2]:
            flags.setdefault(f, []).append(i)
    runs: dict[str, str] = {}
    for f, idx in sorted(flags.items()):
        parts, start = [], idx[0]
        for a, b in zip(idx, idx[1:] + [None]):
            if b != a + 1:
                parts.append(releases[start] if start == a else f"{releases[start]}..{releases[a]}")
                if b is not None:
                    start = b
        runs[f] = ",".join(parts)
    data = {
        "engine": "vllm.entrypoints.api_server",
        "wraps": "vllm",
        "package": "vllm",
        "generator": "tools/gen_api_server_history.py",
        "releases": releases,
        "sources": {v: [found[v][0], found[v][1]] for v in releases},
        "flags": runs,
    }
    OUT.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
    print(f"wrote {OUT.relative_to(ROOT)}: {len(releases)} releases, {len(runs)} flags")
    return 0


if __name__ == "__main__":
    sys.exit(main())
