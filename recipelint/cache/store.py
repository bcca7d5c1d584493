"""The cache's storage, below every stage: where it lives, the fingerprint of recipelint's own
code, file digests through a stat index, entries written atomically and checked when read, and
``memo_text`` — a computation on a text remembered as JSON keyed by the text's SHA-256 (parsed
configs, facts, trees use it).

Every failure of the cache means "no cache", never an error: a cache directory that cannot be
made or written, an entry that is missing, unreadable, not a regular file (a FIFO, a link to
``/dev/zero``), too large, truncated, not JSON, written by another version or edited (its check
digest does not match) is skipped and the work is done afresh.  Files are read only through
:func:`recipelint.files.read_regular` (never blocks, regular files only, bounded).

An entry is a JSON object ``{"check": HEX, "data": DATA}`` written as exactly that text, where
HEX is an HMAC-SHA-256 of the bytes of DATA keyed with recipelint's version and the cache format
(:func:`seal`): a truncated or corrupted entry, or one of another version, is a miss.  The key
is public: the check detects accidents and foreign versions, not a forger — whoever can write
the cache directory can change results (docs/security-cache.md)."""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import re
import stat
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from recipelint.files import Refused, overlay_of, read_regular

FORMAT = 2


KEEP = 64
#: the largest entry read back (a tree of 200,000 nodes is ~10 MB of JSON)
MAX_ENTRY = 64 << 20
#: the largest file digested by content; a larger one is known by its size, mtime and inode
#: (an edit moves its mtime), so a run never reads more than this of one file
MAX_DIGEST = 64 << 20
#: stat-index entries kept (compacted to the most recently used beyond it): one project of
#: ``results.MAX_FILES`` files, recipelint's own modules and some room
MAX_INDEX = 25_000
#: a temp file older than this is a write that died (SIGKILL, full disk): removed by a prune
STALE_TMP_S = 3600

_KEY_NAME = re.compile(r"[0-9a-f]{64}\.json")


def cache_dir() -> Path | None:
    """``$RECIPELINT_CACHE_DIR``, else ``$XDG_CACHE_HOME/recipelint`` (only an absolute
    ``XDG_CACHE_HOME``: the XDG spec says a relative one is ignored), else
    ``~/.cache/recipelint``; None when there is no home to put it in (nothing is cached)."""
    env = os.environ.get("RECIPELINT_CACHE_DIR")
    if env:
        return Path(env)
    xdg = os.environ.get("XDG_CACHE_HOME")
    if xdg and os.path.isabs(xdg):
        return Path(xdg) / "recipelint"
    try:
        return Path.home() / ".cache" / "recipelint"
    except (RuntimeError, KeyError, OSError):  # (no HOME and no passwd entry)
        return None


_SEAL_KEY: bytes | None = None


def _seal_key() -> bytes:
    global _SEAL_KEY
    if _SEAL_KEY is None:
        from recipelint import __version__

        _SEAL_KEY = f"recipelint {__version__} cache {FORMAT}".encode()
    return _SEAL_KEY


_HEAD = '{"check": "'
_MID = '", "data": '


def seal(data: Any) -> str:
    """The text of an entry holding ``data`` (JSON-able; TypeError/ValueError when not)."""
    body = json.dumps(data)
    check = hmac.new(_seal_key(), body.encode(), hashlib.sha256).hexdigest()
    return f"{_HEAD}{check}{_MID}{body}}}"


def unseal(raw: bytes) -> Any:
    """The data of an entry ``seal`` wrote; ValueError for anything else (another version's,
    truncated, edited, not an entry)."""
    head = len(_HEAD) + 64 + len(_MID)
    if len(raw) < head + 1 or not raw.startswith(_HEAD.encode()) or raw[head - len(_MID) : head] != _MID.encode():
        raise ValueError("not a cache entry")
    if not raw.endswith(b"}"):
        raise ValueError("a cache entry cut short")
    body = raw[head:-1]
    check = raw[len(_HEAD) : len(_HEAD) + 64]
    if not hmac.compare_digest(hmac.new(_seal_key(), body, hashlib.sha256).hexdigest().encode(), check):
        raise ValueError("a cache entry that does not match its check")
    return json.loads(body)


#: what reading an entry may raise on data that is not what recipelint wrote (deep nesting
#: included); all of it means "not cached"
BAD_ENTRY = (OSError, Refused, ValueError, KeyError, TypeError, IndexError, AttributeError, RecursionError)


def read_entry(path: Path | str, limit: int = MAX_ENTRY) -> Any:
    """The data of the entry at ``path``; raises one of :data:`BAD_ENTRY` when there is none
    that recipelint of this version wrote."""
    return unseal(read_regular(path, limit))


def write_entry(path: Path, data: Any) -> bool:
    """Seal ``data`` and write it atomically; False when not written (not JSON-able, or the
    cache cannot be written)."""
    try:
        text = seal(data)
    except (TypeError, ValueError, RecursionError):
        return False
    return write_atomic(path, text)


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


def _valid(e: Any) -> bool:
    """Whether ``e`` is a well-formed index entry (checked for each entry used: no generator)."""
    return (
        type(e) is list
        and len(e) == 5
        and type(e[0]) is int
        and type(e[1]) is int
        and type(e[2]) is int
        and type(e[3]) is int
        and type(e[4]) is str
        and len(e[4]) == 64
    )


class _StatIndex:
    """Digests of files by their stat, kept between runs (see the module docstring):
    path → [size, mtime_ns, inode, when hashed (ns), SHA-256 hex]; at most :data:`MAX_INDEX`
    entries (the ones used most recently)."""

    RACY_NS = 2_000_000_000

    def __init__(self) -> None:
        d = cache_dir()
        self.path = d / "files.idx" if d is not None else None
        self.dirty = False
        self.used: set[str] = set()
        self.files: dict[str, list] = {}
        if self.path is None:
            return
        try:
            data = read_entry(self.path, MAX_INDEX * 400)
            files = data["files"] if data.get("format") == FORMAT and isinstance(data.get("files"), dict) else {}
            self.files = files  # (entries are checked when used, and all of them when saved)
        except BAD_ENTRY:
            self.files = {}

    def digest(self, path: str) -> tuple[int, bytes]:
        """(size, SHA-256) of a regular file; raises OSError when it cannot be read (a FIFO, a
        device, a directory are never opened).  A file over :data:`MAX_DIGEST` bytes is not
        read: its digest is one of its size, mtime and inode.  A file given a text
        (``files.overlaid``) has that text's digest (not kept in the index)."""
        given = overlay_of(path)
        if given is not None:
            return len(given), hashlib.sha256(given).digest()
        st = os.stat(path)
        if not stat.S_ISREG(st.st_mode):  # (a FIFO or a device: opening or reading it may never end)
            raise OSError(0, f"{path}: not a regular file")
        self.used.add(path)
        e = self.files.get(path)
        if (
            e is not None
            and _valid(e)
            and e[0] == st.st_size
            and e[1] == st.st_mtime_ns
            and e[2] == st.st_ino
            and st.st_mtime_ns < e[3] - self.RACY_NS
        ):
            try:
                return st.st_size, bytes.fromhex(e[4])
            except ValueError:
                pass
        now = time.time_ns()
        if st.st_size > MAX_DIGEST:
            d = hashlib.sha256(f"large {st.st_size} {st.st_mtime_ns} {st.st_ino}".encode()).digest()
            return st.st_size, d  # (not kept: recomputed from the stat each time)
        try:
            data = read_regular(path, MAX_DIGEST)  # (O_NONBLOCK + fstat: a file swapped for a FIFO since the stat)
        except Refused as exc:
            raise OSError(0, str(exc)) from None
        d = hashlib.sha256(data).digest()
        self.files[path] = [len(data), st.st_mtime_ns, st.st_ino, now, d.hex()]
        self.dirty = True
        return len(data), d

    def save(self) -> None:
        if not self.dirty or self.path is None:
            return
        self.files = {k: v for k, v in self.files.items() if isinstance(k, str) and _valid(v)}
        if len(self.files) > MAX_INDEX:  # compact: this run's files, then the most recently hashed
            order = sorted(self.files.items(), key=lambda kv: (kv[0] in self.used, kv[1][3]), reverse=True)
            self.files = dict(order[:MAX_INDEX])
        if write_entry(self.path, {"format": FORMAT, "files": self.files}):
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
    d = cache_dir()
    if _INDEX is not None and _INDEX.path != (d / "files.idx" if d is not None else None):
        _INDEX = None


def file_digest(path: str) -> tuple[int, bytes]:
    """(size, SHA-256) of a regular file, through the stat index; OSError when not readable."""
    return _index().digest(path if os.path.isabs(path) else os.path.abspath(path))


def _file_digest(path: str | Path, label: str, h: Any) -> None:
    try:
        size, d = file_digest(str(path))
        h.update(f"{label}\0{size}\0".encode() + d)
    except OSError as e:
        h.update(f"{label}\0unreadable {e.errno}\0".encode())


def write_atomic(path: Path, text: str) -> bool:
    """Write a file of the cache in one step (a reader never sees half of it); False when the
    cache cannot be written (it is then skipped silently; the temp file is removed)."""
    tmp = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".part")
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(text)
        os.replace(tmp, path)
        tmp = None
        return True
    except (OSError, UnicodeError):
        return False
    finally:
        if tmp is not None:
            try:
                os.unlink(tmp)
            except OSError:
                pass


def memo_text(
    cache_dir: str | Path | None,
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
    cannot read is computed afresh).  ``cache_dir`` None: computed, not kept."""
    if cache_dir is None:
        return compute(text)
    key = hashlib.sha256(f"{kind} {version}\0".encode() + text.encode("utf-8", "surrogatepass")).hexdigest()
    path = Path(cache_dir) / kind / f"{key}.json"
    try:
        return decode(read_entry(path))
    except BAD_ENTRY:
        pass
    result = compute(text)
    try:
        data = encode(result)
    except (TypeError, ValueError):
        return result
    if write_entry(path, data):
        prune(path.parent)  # one file per distinct text: keep the most recent, as for results
    return result


def prune(d: Path, keep: int = KEEP) -> None:
    """Keep the ``keep`` most recent entries of folder ``d``; remove what is left of writes that
    died and entries that are not regular files (a dangling link, a FIFO).  Never fails: a file
    another process removed first, or one that cannot be removed, is passed over."""
    entries: list[tuple[int, str]] = []
    now = time.time()
    try:
        with os.scandir(d) as it:
            for e in it:
                name = e.name
                try:
                    if _KEY_NAME.fullmatch(name):
                        st = e.stat(follow_symlinks=False)
                        if stat.S_ISREG(st.st_mode):
                            entries.append((st.st_mtime_ns, e.path))
                        elif not stat.S_ISDIR(st.st_mode):
                            os.unlink(e.path)  # (a link or a FIFO: never an entry; unlinking a link leaves its target)
                    elif name.startswith(".tmp-") and name.endswith(".part"):
                        st = e.stat(follow_symlinks=False)
                        if now - st.st_mtime > STALE_TMP_S:
                            os.unlink(e.path)
                except OSError:
                    continue
    except OSError:
        return
    entries.sort(reverse=True)
    for _, p in entries[keep:]:
        try:
            os.unlink(p)
        except OSError:
            pass
