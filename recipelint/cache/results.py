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
the 64 most recent are kept.  ``--no-cache`` bypasses it."""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass, field
from pathlib import Path

from recipelint.cache.store import (
    FORMAT,
    _file_digest,
    _index,
    _prune,
    cache_dir,
    code_fingerprint,
    forget_moved_index,
    write_atomic,
)

SUFFIXES = (".sh", ".bash", ".yaml", ".yml", ".md", ".toml")


#: folders no walk enters (version control, environments, tool caches: as ruff's defaults);
#: other dot-folders are walked (`.buildkite/scripts/*.sh`, `.github/scripts/*.sh` are scripts)
SKIP_DIRS = frozenset(
    {".git", ".hg", ".svn", ".bzr", ".venv", "venv", ".direnv", ".tox", ".nox", "node_modules", "__pycache__",
     "__pypackages__", ".mypy_cache", ".pytest_cache", ".ruff_cache", ".pytype", ".eggs", ".ipynb_checkpoints",
     ".recipelint_cache", ".cache", "site-packages", ".idea", ".vscode"}
)  # fmt: skip


MAX_FILES = 20_000  # a "project" larger than this is not hashed (and not cached)


@dataclass(slots=True)
class Cached:
    findings: list
    n_files: int
    suppressed: int
    unrun: list = field(default_factory=list)


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
        dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS)
        for name in sorted(files):
            if not name.endswith(SUFFIXES):
                continue
            n += 1
            if n > MAX_FILES:
                return False
            p = os.path.join(dirpath, name)
            _file_digest(p, p[cut:], h)  # the label: the path below the root
    return True


def key(paths: list[Path], files: list[Path], options: str) -> str | None:
    """The run's cache key, or None when the run cannot be cached (no project root)."""
    root = project_root(paths)
    if root is None:
        return None
    forget_moved_index()
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
            findings.append(
                Finding(
                    d["code"],
                    d["name"],
                    d["severity"],
                    d["message"],
                    Span(**d["span"]),
                    list(d["points"]),
                    [Related(Span(**r["span"]), r["message"]) for r in d["related"]],
                    d.get("key", ""),
                    d.get("variant", ""),
                    d.get("documented", ""),
                )
            )
        return Cached(findings, int(data["files"]), int(data["suppressed"]), [str(u) for u in data.get("unrun", [])])
    except (OSError, ValueError, KeyError, TypeError):
        return None  # absent, or written by something else: analyse again


def store(k: str, findings: list, n_files: int, suppressed: int, unrun: list[str] | tuple = ()) -> None:
    """Write an entry (atomically); a cache that cannot be written is skipped silently."""
    d = cache_dir()
    payload = {
        "format": FORMAT,
        "files": n_files,
        "suppressed": suppressed,
        "unrun": list(unrun),
        "findings": [
            {
                "code": f.code,
                "name": f.name,
                "severity": f.severity,
                "message": f.message,
                "span": _span(f.span),
                "points": list(f.points),
                "key": f.key,
                "variant": f.variant,
                "documented": f.documented,
                "related": [{"span": _span(r.span), "message": r.message} for r in f.related],
            }
            for f in findings
        ],
    }
    if write_atomic(d / f"{k}.json", json.dumps(payload)):
        _prune(d)


def _span(s) -> dict:
    return {"path": s.path, "line": s.line, "col": s.col, "end_line": s.end_line, "end_col": s.end_col}
