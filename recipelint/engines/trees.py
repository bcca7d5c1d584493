"""An engine's own source tree inside the checked repository: the engine's repository itself
(its benchmark scripts, a PR branch adding a flag), a fork that keeps the engine's layout
(Semi-PD's patched SGLang), a vendored checkout.  A script there runs that tree's engine, so the
flags its parser files define are the engine's flags for it ("its own tree is the catalog").

Where: the nearest folder, from the script's folder up to the project root, holding
``<package_root>/<marker>`` (``rules/data/engines.yaml``'s ``source_tree``: SGLang's
``python/sglang/srt/server_args.py``, vLLM's ``vllm/engine/arg_utils.py``).  What: every
``"--flag"`` string literal of the parser files, and, for the fields of a class whose name ends in
``Args`` (vLLM's ``FrontendArgs``: argparse options made from dataclass fields), ``--field``.
Read, never run: each file through :mod:`recipelint.files` (confined to the run's roots, regular,
at most :data:`MAX_BYTES`); the per-file cache keys these files for every recipe
(``lint.filecache``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from recipelint.engines import facts
from recipelint.files import Refused, confine, read_regular

MAX_BYTES = 2 * 1024 * 1024
#: folders looked in above the script (the project root bounds it first)
MAX_LEVELS = 12

_FLAG = re.compile(r"""(?<![\w-])["'](--[A-Za-z0-9][A-Za-z0-9_.-]*)["']""")
_CLASS = re.compile(r"^class\s+(\w+)")
_FIELD = re.compile(r"^    ([a-z_][a-z0-9_]*)\s*:")


@dataclass(frozen=True, slots=True)
class EngineTree:
    engine: str
    where: str  # the package root, relative to the project root ("Semi-PD/python")
    flags: frozenset[str]  # as the engine's parser spells them, `_` folded to `-` where it does
    read: tuple[str, ...] = ()  # the files read (absolute)


def tree_files() -> list[str]:
    """Every parser file of every engine's ``source_tree`` (``vllm/engine/arg_utils.py``, ...):
    a file of the tree whose path ends in one of these may be read (the per-file cache keys
    them for every recipe)."""
    out: list[str] = []
    for spec in (facts.load("engines").get("engines") or {}).values():
        out.extend(str(f) for f in ((spec or {}).get("source_tree") or {}).get("files") or [])
    return sorted(set(out))


def flags_of(text: str, underscores: bool) -> set[str]:
    """The flags a parser file defines (see the module's docstring)."""
    out = {m.group(1) for m in _FLAG.finditer(text)}
    in_args = False
    for line in text.splitlines():
        c = _CLASS.match(line)
        if c is not None:
            in_args = c.group(1).endswith("Args")
            continue
        if in_args:
            m = _FIELD.match(line)
            if m is not None and not m.group(1).startswith("_"):
                out.add("--" + m.group(1).replace("_", "-"))
    if underscores:
        out = {f[:2] + f[2:].replace("_", "-") for f in out}
    return out


def find(engine: str, script: Path, root: Path, roots) -> EngineTree | None:
    """The engine tree the script at ``script`` lies in (the nearest), below ``root``."""
    spec = ((facts.load("engines").get("engines") or {}).get(engine) or {}).get("source_tree") or {}
    files = [str(f) for f in spec.get("files") or []]
    if not files:
        return None
    underscores = bool(((facts.load("engines").get("engines") or {}).get(engine) or {}).get("underscores_as_dashes"))
    try:
        root = root.resolve()
        d = script.resolve().parent
    except (OSError, RuntimeError):
        return None
    if spec.get("declared"):
        # the settings' `engine-trees`: the package root of the build the scripts run
        return _read(engine, Path(str(spec["declared"])), files, underscores, root, roots)
    for _ in range(MAX_LEVELS):
        if d != root and root not in d.parents:
            break
        for pkg in spec.get("package_roots") or [""]:
            base = d / pkg if pkg else d
            marker = base / files[0]
            if marker.is_file():
                return _read(engine, base, files, underscores, root, roots)
        if d == root:
            break
        d = d.parent
    return None


def _read(engine: str, base: Path, files: list[str], underscores: bool, root: Path, roots) -> EngineTree | None:
    flags: set[str] = set()
    read: list[str] = []
    for f in files:
        p = base / f
        try:
            confine(p, roots)
            text = read_regular(p, MAX_BYTES).decode("utf-8", "replace")
        except (Refused, OSError):
            continue
        read.append(str(p))
        flags |= flags_of(text, underscores)
    if not flags:
        return None  # (not there, not readable, or defining nothing: upstream releases judge)
    try:
        where = base.resolve().relative_to(root).as_posix() or "."
    except (ValueError, OSError, RuntimeError):
        where = str(base)
    return EngineTree(engine, where, frozenset(flags), tuple(read))
