"""The cache's storage, below every stage: where it lives, the fingerprint of recipelint's own
code, file digests through a stat index, atomic writes, and ``memo_text`` — a computation on a
text remembered as JSON keyed by the text's SHA-256 (parsed configs, facts, trees use it)."""

from __future__ import annotations

import hashlib
import json
import os
import stat
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

FORMAT = 1


KEEP = 64


def cache_dir() -> Path:
    env = os.environ.get("RECIPELINT_CACHE_DIR")
    if env:
        return Path(env)
    xdg = os.environ.get("XDG_CACHE_HOME")
    return Path(xdg) / "recipelint" if xdg else Path.home() / ".cache" / "recipelint"


_CODE: str | None = None


def code_fingerprint() -> str:
    """Version + bytes of recipelint's modules, stubs and rules (data included), and of the
    parser's compiled modules (tree-sitter and its bash grammar: another build may give other trees)."""
    global _CODE
    if _CODE is None:
        from importlib.util import find_spec

        from recipelint import __version__

        h = hashlib.sha256(f"recipelint {__version__} cache {FORMAT}\n".encode())

        import recipelint

        pkg = Path(recipelint.__file__).resolve().parent
        # ./rules, mapped (or installed) into the package as recipelint.rules: located, not imported
        spec = find_spec("recipelint.rules")
        assert spec is not None and spec.submodule_search_locations
        rules = Path(spec.submodule_search_locations[0]).resolve()
        for base in (pkg,) if rules.is_relative_to(pkg) else (pkg, rules):
            for p in sorted(base.rglob("*")):
                if p.suffix in (".py", ".yaml", ".json", ".sh") and "__pycache__" not in p.parts:
                    _file_digest(str(p), str(p.relative_to(base.parent)), h)
        for name in ("tree_sitter", "tree_sitter_bash"):  # (located, not imported)
            spec = find_spec(name)
            for d in (spec.submodule_search_locations or []) if spec is not None else []:
                for p in sorted(Path(d).glob("_binding*")):
                    _file_digest(str(p), f"{name}/{p.name}", h)
        _CODE = h.hexdigest()
    return _CODE


class _StatIndex:
    """Digests of files by their stat, kept between runs (see the module docstring)."""

    RACY_NS = 2_000_000_000

    def __init__(self) -> None:
        self.path = cache_dir() / "files.idx"
        self.dirty = False
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
            self.files = data["files"] if data.get("format") == FORMAT and isinstance(data.get("files"), dict) else {}
        except (OSError, ValueError, TypeError):
            self.files = {}

    def digest(self, path: str) -> tuple[int, bytes]:
        """(size, SHA-256) of a file; raises OSError when it cannot be read."""
        st = os.stat(path)
        if not stat.S_ISREG(st.st_mode):  # (a FIFO or a device: opening or reading it may never end)
            raise OSError(f"{path}: not a regular file")
        e = self.files.get(path)
        if (
            isinstance(e, list)
            and len(e) == 5
            and e[0] == st.st_size
            and e[1] == st.st_mtime_ns
            and e[2] == st.st_ino
            and st.st_mtime_ns < e[3] - self.RACY_NS
        ):
            try:
                return st.st_size, bytes.fromhex(e[4])
            except (TypeError, ValueError):
                pass
        now = time.time_ns()
        with open(path, "rb") as f:
            data = f.read()
        d = hashlib.sha256(data).digest()
        self.files[path] = [len(data), st.st_mtime_ns, st.st_ino, now, d.hex()]
        self.dirty = True
        return len(data), d

    def save(self) -> None:
        if self.dirty:
            write_atomic(self.path, json.dumps({"format": FORMAT, "files": self.files}))
            self.dirty = False


_INDEX: _StatIndex | None = None


def _index() -> _StatIndex:
    global _INDEX
    if _INDEX is None:
        _INDEX = _StatIndex()
    return _INDEX


def forget_moved_index() -> None:
    """Drop the stat index when the cache directory is another than the one it was read from
    (tests point RECIPELINT_CACHE_DIR elsewhere)."""
    global _INDEX
    if _INDEX is not None and _INDEX.path != cache_dir() / "files.idx":
        _INDEX = None


def _file_digest(path: str | Path, label: str, h: Any) -> None:
    try:
        path = str(path)
        size, d = _index().digest(path if os.path.isabs(path) else os.path.abspath(path))
        h.update(f"{label}\0{size}\0".encode() + d)
    except OSError as e:
        h.update(f"{label}\0unreadable {e.errno}\0".encode())


def write_atomic(path: Path, text: str) -> bool:
    """Write a file of the cache in one step (a reader never sees half of it); False when the
    cache cannot be written (it is then skipped silently)."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".part")
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(text)
        os.replace(tmp, path)
        return True
    except OSError:
        return False


def memo_text(
    cache_dir: str | Path,
    kind: str,
    version: int | str,
    text: str,
    compute: Callable[[str], Any],
    encode: Callable[[Any], Any],
    decode: Callable[[Any], Any],
) -> Any:
    """``compute(text)``, remembered as JSON under ``cache_dir/kind`` keyed by the text's SHA-256
    (and ``version``, the format of the stored data).  ``encode(result)`` gives the JSON data (or
    raises TypeError/ValueError: not kept); ``decode(data)`` the result again (a stored file it
    cannot read is computed afresh)."""
    key = hashlib.sha256(f"{kind} {version}\0".encode() + text.encode("utf-8", "surrogatepass")).hexdigest()
    path = Path(cache_dir) / kind / f"{key}.json"
    try:
        return decode(json.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError, KeyError, TypeError, IndexError):
        pass
    result = compute(text)
    try:
        data = json.dumps(encode(result))
    except (TypeError, ValueError):
        return result
    write_atomic(path, data)
    _prune(path.parent)  # one file per distinct text: keep the most recent, as for results
    return result


def _prune(d: Path) -> None:
    entries = sorted((p for p in d.glob("*.json") if len(p.stem) == 64), key=lambda p: p.stat().st_mtime, reverse=True)
    for p in entries[KEEP:]:
        try:
            p.unlink()
        except OSError:
            pass
