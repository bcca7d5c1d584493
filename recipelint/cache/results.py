"""Result cache for ``recipelint check``: a run whose inputs are byte-identical to an earlier
run's gives the earlier findings without analysing anything.

The key is a SHA-256 over

* recipelint itself: its version and the bytes of every module, stub and rule-data file (a
  new release, an edited rule or a regenerated catalog invalidates every entry);
* the options and settings of the run and the working directory (findings carry paths relative
  to it);
* the content of every file a run may read: the files named or walked, and every ``*.sh``,
  ``*.bash``, ``*.yaml``, ``*.yml``, ``*.md`` and ``*.toml`` under the project root — the folder
  with the master configs (``configs/*-master.yaml``) or else the git work tree.  Sourced
  libraries, sibling recipes, runner files, the review checklist and waivers live there.

Files are hashed once: a stat index (``files.idx``, JSON: path → size, mtime, inode, digest) gives
the digest of a file whose stat is unchanged, when the file was already older than two
seconds at the time it was hashed (a file modified again within the same clock tick is
hashed again, as git does for "racily clean" entries).

Without a project root (a recipe outside any repository) nothing is cached.  Entries are JSON
(never pickle: a cache directory is data, not code), one file per key, in
``$RECIPELINT_CACHE_DIR``, else ``$XDG_CACHE_HOME/recipelint``, else ``~/.cache/recipelint``;
the 64 most recent are kept.  ``--no-cache`` bypasses it.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

FORMAT = 1
KEEP = 64
SUFFIXES = (".sh", ".bash", ".yaml", ".yml", ".md", ".toml")
SKIP_DIRS = {".git", ".hg", ".svn", ".venv", "venv", "node_modules", "__pycache__", ".recipelint_cache", ".tox"}
MAX_FILES = 20_000  # a "project" larger than this is not hashed (and not cached)


@dataclass(slots=True)
class Cached:
    findings: list
    n_files: int
    suppressed: int


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
        import recipelint.rules

        pkg = Path(recipelint.__file__).resolve().parent
        rules = Path(recipelint.rules.__file__).resolve().parent  # ./rules, mapped (or installed) into the package
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


def project_root(paths: list[Path]) -> Path | None:
    from recipelint.bash.source import safe_resolve
    from recipelint.sweep.configs import find_root

    anchor = paths[0] if paths else Path(".")
    root = find_root(anchor)
    if root is not None:
        return safe_resolve(root)
    start = safe_resolve(anchor)
    for d in [start, *start.parents]:
        if (d / ".git").exists():
            return d
    return None


def _tree_digest(root: Path, h) -> bool:
    n = 0
    base = os.path.abspath(root)
    cut = len(base) + 1
    for dirpath, dirs, files in os.walk(base, followlinks=False):
        dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS and not d.startswith("."))
        for name in sorted(files):
            if not name.endswith(SUFFIXES):
                continue
            n += 1
            if n > MAX_FILES:
                return False
            p = os.path.join(dirpath, name)
            _file_digest(p, p[cut:], h)  # the label: the path below the root
    return True


class _StatIndex:
    """Digests of files by their stat, kept between runs (see the module docstring)."""

    RACY_NS = 2_000_000_000

    def __init__(self):
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
        e = self.files.get(path)
        if isinstance(e, list) and len(e) == 5 and e[0] == st.st_size and e[1] == st.st_mtime_ns \
                and e[2] == st.st_ino and st.st_mtime_ns < e[3] - self.RACY_NS:
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


def _file_digest(path, label: str, h) -> None:
    try:
        path = str(path)
        size, d = _index().digest(path if os.path.isabs(path) else os.path.abspath(path))
        h.update(f"{label}\0{size}\0".encode() + d)
    except OSError as e:
        h.update(f"{label}\0unreadable {e.errno}\0".encode())


def key(paths: list[Path], files: list[Path], options: str) -> str | None:
    """The run's cache key, or None when the run cannot be cached (no project root)."""
    global _INDEX
    root = project_root(paths)
    if root is None:
        return None
    if _INDEX is not None and _INDEX.path != cache_dir() / "files.idx":
        _INDEX = None  # another cache directory (tests)
    h = hashlib.sha256(code_fingerprint().encode())
    h.update(f"\0cwd {os.getcwd()}\0root {root}\0{options}\0".encode())
    for p in paths:
        h.update(f"arg {p}\0".encode())
    for p in files:  # inputs outside the root (and their exact order)
        _file_digest(p, f"input {p}", h)
    ok = _tree_digest(root, h)
    from recipelint.sweep.configs import workflow_files

    for p in workflow_files(root):  # sweep sources under .github/, which the tree walk skips
        _file_digest(str(p), f"workflow {p}", h)
    _index().save()
    return h.hexdigest() if ok else None


def load(k: str) -> Cached | None:
    from recipelint.bash.source import Span
    from recipelint.lint.findings import Finding, Related

    try:
        data = json.loads((cache_dir() / f"{k}.json").read_text(encoding="utf-8"))
        if data.get("format") != FORMAT:
            return None
        findings = []
        for d in data["findings"]:
            findings.append(Finding(d["code"], d["name"], d["severity"], d["message"], Span(**d["span"]),
                                    list(d["points"]), [Related(Span(**r["span"]), r["message"]) for r in d["related"]],
                                    d.get("key", "")))
        return Cached(findings, int(data["files"]), int(data["suppressed"]))
    except (OSError, ValueError, KeyError, TypeError):
        return None  # absent, or written by something else: analyse again


def store(k: str, findings: list, n_files: int, suppressed: int) -> None:
    """Write an entry (atomically); a cache that cannot be written is skipped silently."""
    d = cache_dir()
    payload = {
        "format": FORMAT,
        "files": n_files,
        "suppressed": suppressed,
        "findings": [
            {"code": f.code, "name": f.name, "severity": f.severity, "message": f.message,
             "span": _span(f.span), "points": list(f.points), "key": f.key,
             "related": [{"span": _span(r.span), "message": r.message} for r in f.related]}
            for f in findings
        ],
    }
    if write_atomic(d / f"{k}.json", json.dumps(payload)):
        _prune(d)


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


def memo_text(cache_dir, kind: str, version: int | str, text: str, compute, encode, decode):
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


def _span(s) -> dict:
    return {"path": s.path, "line": s.line, "col": s.col, "end_line": s.end_line, "end_col": s.end_col}


def _prune(d: Path) -> None:
    entries = sorted((p for p in d.glob("*.json") if len(p.stem) == 64), key=lambda p: p.stat().st_mtime, reverse=True)
    for p in entries[KEEP:]:
        try:
            p.unlink()
        except OSError:
            pass
