"""Result cache for ``recipelint check``: a run whose inputs are byte-identical to an earlier
run's gives the earlier findings without analysing anything.

The key is a SHA-256 over

* recipelint itself: its version and the bytes of every module, stub and rule-data file (a
  new release, an edited rule or a regenerated catalog invalidates every entry);
* the options and settings of the run and the working directory (findings carry paths relative
  to it);
* the content of every file a run may read: the files named or walked, and every ``*.sh``,
  ``*.bash``, ``*.slurm``, ``*.sbatch``, ``*.yaml``, ``*.yml``, ``*.md`` and ``*.toml`` under the
  project root — the folder
  with the master configs (``configs/*-master.yaml``) or else the git work tree.  Sourced
  libraries, sibling recipes, runner files, the review checklist and waivers live there.

Files are hashed once: a stat index (``files.idx``, JSON: path → size, mtime, inode, digest) gives
the digest of a file whose stat is unchanged, when the file was already older than two
seconds at the time it was hashed (a file modified again within the same clock tick is
hashed again, as git does for "racily clean" entries).

The analysis also says which files it read beyond those (``Library.read_files``: a sourced
``.env``, a file under a skipped dot-folder such as ``.venv/`` or ``.cache/``) and which paths it
looked for a sourced file at and found nothing (``Library.absent``): the entry keeps their digests
and paths, and a load checks them — a file changed, appeared or gone is a miss.  A run that read a
file outside the project root is not cached (the tree walk does not cover it); a file the walk
reaches through a link is digested only when the link resolves inside the root (else the key
holds where it resolves: recipelint does not read it), and FIFOs and devices are never opened.

Without a project root (a recipe outside any repository) nothing is cached.  Entries are JSON
(never pickle: a cache directory is data, not code), sealed with a check digest
(``store.seal``), one file per key, in ``$RECIPELINT_CACHE_DIR``, else
``$XDG_CACHE_HOME/recipelint``, else ``~/.cache/recipelint``; the 64 most recent are kept.
Every failure of the cache is a miss, never an error.  ``--no-cache`` bypasses it.
See docs/security-cache.md."""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass, field
from pathlib import Path

from recipelint.cache.store import (
    BAD_ENTRY,
    FORMAT,
    _file_digest,
    _index,
    cache_dir,
    code_fingerprint,
    file_digest,
    forget_moved_index,
    prune,
    read_entry,
    write_entry,
)
from recipelint.files import Refused, confine, confine_resolved, has_no_suffix

SUFFIXES = (".sh", ".bash", ".slurm", ".sbatch", ".yaml", ".yml", ".md", ".toml")


#: folders no walk enters (version control, environments, tool caches: as ruff's defaults);
#: other dot-folders are walked (`.buildkite/scripts/*.sh`, `.github/scripts/*.sh` are scripts)
SKIP_DIRS = frozenset(
    {".git", ".hg", ".svn", ".bzr", ".venv", "venv", ".direnv", ".tox", ".nox", "node_modules", "__pycache__",
     "__pypackages__", ".mypy_cache", ".pytest_cache", ".ruff_cache", ".pytype", ".eggs", ".ipynb_checkpoints",
     ".recipelint_cache", ".cache", "site-packages", ".idea", ".vscode"}
)  # fmt: skip


def skipped_dir(parent: str, name: str) -> bool:
    """Whether a walk leaves the folder ``parent/name`` out: one of :data:`SKIP_DIRS`, or a Python
    virtual environment under any name (it holds ``pyvenv.cfg``, PEP 405: `.venv311/`, `env/`),
    whose console scripts start with ``#!/bin/sh`` and are no recipes."""
    return name in SKIP_DIRS or os.path.isfile(os.path.join(parent, name, "pyvenv.cfg"))


MAX_FILES = 20_000  # a "project" larger than this is not hashed (and not cached)
#: files read and paths looked at by an analysis that an entry keeps (a run beyond it is not cached)
MAX_READS = 10_000


@dataclass(slots=True)
class Cached:
    findings: list
    n_files: int
    suppressed: int
    unrun: list = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class Key:
    """A run's cache key and the project root it was computed for."""

    digest: str
    root: Path


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


def walk_files(root: Path | str, on_error=None):
    """The entries (``os.DirEntry``) of every file under ``root`` that is not a folder — depth
    first, in name order — not entering the folders :func:`skipped_dir` names nor linked folders;
    ``on_error(folder, exc)`` hears of a folder that cannot be listed.  The one walk of a tree
    the caches and diff mode's scope share."""
    stack = [os.path.abspath(root)]
    while stack:
        d = stack.pop()
        try:
            with os.scandir(d) as it:
                entries = sorted(it, key=lambda e: e.name)
        except OSError as exc:
            if on_error is not None:
                on_error(d, exc)
            continue
        dirs = []
        for e in entries:
            try:
                if e.is_dir(follow_symlinks=False):
                    if not skipped_dir(d, e.name):
                        dirs.append(e.path)
                    continue
            except OSError:
                pass  # (the caller's own look at it fails the same way, and says so)
            yield e
        stack.extend(reversed(dirs))  # (depth first, in name order)


def _tree_digest(root: Path, h) -> bool:
    """Digest every file with a suffix of :data:`SUFFIXES` under ``root`` (folders of
    :data:`SKIP_DIRS` and linked folders not entered); False beyond :data:`MAX_FILES`."""
    n = 0
    base = os.path.abspath(root)
    cut = len(base) + 1

    def unlistable(d: str, exc: OSError) -> None:
        h.update(f"{d[cut:]}\0unlistable {exc.errno}\0".encode())

    for e in walk_files(base, unlistable):
        try:
            if not e.name.endswith(SUFFIXES) and not has_no_suffix(e.name):
                continue  # (a file with no suffix may be a script: the walk sniffs its first line)
            n += 1
            if n > MAX_FILES:
                return False
            label = e.path[cut:]  # the path below the root
            if e.is_symlink():
                try:  # (a link is followed only inside the root; else where it leads is the input)
                    real = str(confine(e.path, [base]))
                except Refused as exc:
                    h.update(f"{label}\0refused {exc.kind} {exc}\0".encode())
                    continue
                _file_digest(real, label, h)
            else:
                _file_digest(e.path, label, h)
        except OSError as err:
            h.update(f"{e.path[cut:]}\0unreadable {err.errno}\0".encode())
    return True


def key(paths: list[Path], files: list[Path], options: str, resolved: dict[str, str] | None = None) -> Key | None:
    """The run's cache key, or None when the run cannot be cached (no cache directory, no
    project root, an input outside the root, a tree too large).  ``resolved``: inputs whose
    links the caller has resolved already (path → real path), not resolved again."""
    if cache_dir() is None:
        return None
    root = project_root(paths)
    if root is None:
        return None
    forget_moved_index()
    h = hashlib.sha256(code_fingerprint().encode())
    h.update(f"\0cwd {os.getcwd()}\0root {root}\0{options}\0".encode())
    for p in paths:
        h.update(f"arg {p}\0".encode())
    for p in files:  # the inputs (and their exact order)
        try:
            done = resolved.get(str(p)) if resolved else None
            real = confine_resolved(done, [root], p) if done is not None else confine(p, [root])
        except Refused:
            return None  # (outside the root: not digested, so not cached)
        _file_digest(real, f"input {p}", h)
    ok = _tree_digest(root, h)
    from recipelint.sweep.configs import workflow_files

    for p in workflow_files(root):  # sweep sources under .github/, which the tree walk skips
        _file_digest(str(p), f"workflow {p}", h)
    _index().save()
    return Key(h.hexdigest(), root) if ok else None


def _entry_path(k: Key) -> Path | None:
    d = cache_dir()
    return d / f"{k.digest}.json" if d is not None else None


def _reads_unchanged(root: Path, reads, absent) -> bool:
    """Whether the files an analysis read are as it read them (same digest, still inside the
    root) and the paths it found nothing at still hold no file."""
    if not isinstance(reads, dict) or not isinstance(absent, list) or len(reads) + len(absent) > MAX_READS:
        return False
    for p, v in reads.items():
        try:
            real = str(confine(p, [root]))
        except Refused:
            return False
        try:
            size, d = file_digest(real)
        except OSError:
            if v is not None:
                return False  # (gone, or no longer a regular file)
            continue
        if v is None or [size, d.hex()] != v:
            return False
    for p in absent:
        try:
            if os.path.isfile(p):  # (as the library looks: a regular file, links followed)
                return False
        except (OSError, TypeError, ValueError):
            return False
    return True


def load(k: Key) -> Cached | None:
    """The entry of key ``k``, when there is one recipelint of this version wrote and the files
    its analysis read are unchanged; else None (a miss: analyse again)."""
    from recipelint.lint.findings import Finding

    path = _entry_path(k)
    if path is None:
        return None
    try:
        data = read_entry(path)
        if data.get("format") != FORMAT:
            return None
        if not _reads_unchanged(k.root, data.get("reads", {}), data.get("absent", [])):
            return None
        findings = [Finding.from_record(d) for d in data["findings"]]
        return Cached(findings, int(data["files"]), int(data["suppressed"]), [str(u) for u in data.get("unrun", [])])
    except BAD_ENTRY:
        return None  # absent, or written by something else: analyse again


def store(
    k: Key,
    findings: list,
    n_files: int,
    suppressed: int,
    unrun: list[str] | tuple = (),
    reads: dict[str, tuple[int, str] | None] | None = None,
    absent: set[str] | list[str] | tuple = (),
) -> None:
    """Write an entry (atomically); a cache that cannot be written is skipped silently, and so is
    a run whose analysis read a file outside the project root (the key cannot cover it).
    ``reads``: path → (size, SHA-256 hex) of what the analysis read (None: could not read it);
    ``absent``: paths it found no file at."""
    path = _entry_path(k)
    if path is None:
        return
    reads = reads or {}
    if len(reads) + len(absent) > MAX_READS:
        return
    for p in reads:
        try:
            confine(p, [k.root])
        except Refused:
            return
    payload = {
        "format": FORMAT,
        "files": n_files,
        "suppressed": suppressed,
        "unrun": list(unrun),
        "reads": {p: (list(v) if v is not None else None) for p, v in sorted(reads.items())},
        "absent": sorted(absent),
        "findings": [f.record() for f in findings],
    }
    if write_entry(path, payload):
        prune(path.parent)
