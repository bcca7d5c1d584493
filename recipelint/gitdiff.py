"""``--diff-base REV``: keep the findings a change introduced.

The merge base of ``REV`` and ``HEAD`` (or of ``A`` and ``B`` for ``A...B``) is exported from git's
object store (``git ls-tree``/``git cat-file``: no checkout, no hooks, no filters, no
``.gitattributes``), linted like the working tree, and the working tree's findings the base does
not have are reported, matched by :mod:`recipelint.lint.fingerprint` (rule, file, key, sweep point;
not line numbers).  So a finding caused by a changed line elsewhere — a sibling, a sourced file, a
master config, a flag dropped from an array — is reported wherever it is anchored, and one that
only moved is not.

This is the one place recipelint runs a program: ``git``, with fixed arguments, never the
recipes.
"""

from __future__ import annotations

import functools
import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path


class DiffError(Exception):
    pass


#: what a checked repository's own git configuration must not change or run: its fsmonitor hook
#: and other hooks (programs named by an untrusted .git/config), external diff drivers and
#: textconv filters (.gitattributes), and the diff output's shape (prefixes, quoting, colour)
_HARDENED = [
    "-c",
    "core.fsmonitor=false",
    "-c",
    "core.hooksPath=/dev/null",
    "-c",
    "core.quotePath=false",
    "-c",
    "diff.noprefix=false",
    "-c",
    "diff.mnemonicPrefix=false",
    "-c",
    "diff.external=",
    "-c",
    "color.ui=false",
    "--no-pager",
]


#: the git commands that read work-tree files (and would run a filter driver on them)
_FILTERED = frozenset({"diff", "status", "add", "ls-files", "stash", "update-index", "hash-object", "checkout"})


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(GIT_CONFIG_NOSYSTEM="1", GIT_TERMINAL_PROMPT="0", GIT_OPTIONAL_LOCKS="0", LC_ALL="C")
    return env


#: what is exported from the base commit: every file up to _MAX_ANY (what a rule reads is not only
#: recipes and configs: a policy marker or waiver in Markdown, a JSON a flag names, a sourced file
#: without a suffix), and the kinds a lint reads up to the size limit of a recipe; in all at most
#: MAX_EXPORT_BYTES
_EXPORT_KINDS = (".sh", ".bash", ".yaml", ".yml", ".toml", ".json", ".md")
_MAX_ANY = 1024 * 1024
_MAX_FILE = 16 * 1024 * 1024
MAX_EXPORT_BYTES = 512 * 1024 * 1024
#: base trees kept in the cache (one per base commit), and the layout of one (a change to what
#: is exported makes a new one)
_KEEP_EXPORTS = 4
_EXPORT_FORMAT = 2


def _filter_overrides(cwd: Path) -> list[str]:
    return list(_filter_overrides_at(str(cwd)))


@functools.lru_cache(maxsize=16)
def _filter_overrides_at(cwd: str) -> tuple[str, ...]:
    """``-c`` options that switch off every filter driver the configuration defines
    (``filter.<name>.clean``/``smudge``/``process``, which a committed ``.gitattributes`` selects
    and git runs when it compares work-tree files: ``git diff REV``): empty commands and not
    required — git then passes the bytes through.  Reading the configuration runs nothing."""
    try:
        proc = subprocess.run(
            ["git", *_HARDENED, "config", "--null", "--get-regexp", r"^filter\."],
            cwd=cwd,
            capture_output=True,
            timeout=120,
            check=False,
            env=_env(),
            stdin=subprocess.DEVNULL,
        )
    except (FileNotFoundError, subprocess.TimeoutExpired):
        return ()
    names = set()
    for item in proc.stdout.decode("utf-8", "surrogateescape").split("\0"):
        key = item.split("\n", 1)[0]
        if key.startswith("filter.") and key.count(".") >= 2:
            names.add(key[len("filter.") : key.rindex(".")])
    out: list[str] = []
    for name in sorted(names):
        if "=" in name or "\n" in name or not name:
            raise DiffError("--diff-base: the git configuration defines a filter driver recipelint cannot switch off")
        for k, v in (("clean", ""), ("smudge", ""), ("process", ""), ("required", "false")):
            out += ["-c", f"filter.{name}.{k}={v}"]
    return tuple(out)


def _git(args: list[str], cwd: Path, *, data: bytes | None = None, binary: bool = False, check: bool = True):
    filters = _filter_overrides(cwd) if args and args[0] in _FILTERED else []
    try:
        proc = subprocess.run(
            ["git", *_HARDENED, *filters, *args],
            cwd=cwd,
            capture_output=True,
            input=data,
            timeout=120,
            check=False,
            env=_env(),
            stdin=None if data is not None else subprocess.DEVNULL,
        )
    except FileNotFoundError:
        raise DiffError("--diff-base needs git, which is not installed") from None
    except subprocess.TimeoutExpired:
        raise DiffError("--diff-base: git did not answer within 120 s") from None
    if proc.returncode != 0:
        if not check:
            return None
        msg = (proc.stderr or proc.stdout).decode("utf-8", "replace").strip().splitlines()
        raise DiffError(f"--diff-base: git {' '.join(args[:2])} failed: {msg[0] if msg else proc.returncode}")
    return proc.stdout if binary else proc.stdout.decode("utf-8", "surrogateescape")


@dataclass(slots=True)
class BaseTree:
    """The merge base's files, exported under ``dir`` (a folder laid out like the work tree ``top``)."""

    top: Path
    dir: Path
    commit: str
    spec: str
    #: root-relative path in the base -> root-relative path in the work tree (renames since the base)
    renamed: dict[str, str] = field(default_factory=dict)
    temporary: bool = False

    def map(self, p: Path) -> Path | None:
        """Where the work tree's ``p`` is in the export (None when it lies outside the work tree)."""
        try:
            rel = Path(os.path.abspath(p)).relative_to(self.top)
        except ValueError:
            return None
        back = {v: k for k, v in self.renamed.items()}
        return self.dir / back.get(rel.as_posix(), rel.as_posix())

    def cleanup(self) -> None:
        if self.temporary:
            shutil.rmtree(self.dir.parent, ignore_errors=True)


def _commit(rev: str, top: Path, spec: str) -> str:
    if rev.startswith("-") or not rev or any(c in rev for c in "\0\n"):
        raise DiffError(f"--diff-base: '{spec}' is not a revision")
    out = _git(["rev-parse", "--verify", "--quiet", "--end-of-options", f"{rev}^{{commit}}"], top, check=False)
    if out is None:
        if _shallow(top):
            raise DiffError(
                f"--diff-base: '{rev}' is not in this shallow clone: fetch the full history "
                "(actions/checkout with `fetch-depth: 0`, or `git fetch --unshallow`)"
            )
        raise DiffError(f"--diff-base: '{rev}' is not a commit of this repository")
    return out.strip()


def _shallow(top: Path) -> bool:
    out = _git(["rev-parse", "--is-shallow-repository"], top, check=False)
    return (out or "").strip() == "true"


def toplevel(anchor: Path) -> Path:
    cwd = anchor if anchor.is_dir() else (anchor.parent if anchor.parent.is_dir() else Path("."))
    out = _git(["rev-parse", "--show-toplevel"], cwd, check=False)
    if out is None:
        raise DiffError(f"--diff-base: {anchor} is not in a git work tree")
    return Path(out.strip()).resolve()


def merge_base(spec: str, top: Path) -> str:
    """The commit ``spec`` (``REV`` or ``A...B``, B the checked-out commit) is compared from."""
    if "..." in spec:
        a, _, b = spec.partition("...")
        a, b = a or "HEAD", b or "HEAD"
    elif ".." in spec:
        raise DiffError(f"--diff-base: '{spec}': give a revision or A...B (the merge base of A and B)")
    else:
        a, b = spec, "HEAD"
    ca, cb = _commit(a, top, spec), _commit(b, top, spec)
    head = _commit("HEAD", top, spec)
    if cb != head:
        raise DiffError(f"--diff-base: '{spec}': {b} is not the checked-out commit (check it out, then run again)")
    out = _git(["merge-base", ca, cb], top, check=False)
    if out is None:
        if _shallow(top):
            raise DiffError(
                f"--diff-base: no merge base of {a} and {b} in this shallow clone: fetch the full history "
                "(actions/checkout with `fetch-depth: 0`, or `git fetch --unshallow`)"
            )
        raise DiffError(f"--diff-base: {a} and {b} have no common ancestor")
    return out.strip()


def base_tree(spec: str, anchor: Path, cache_at: Path | None) -> BaseTree:
    """Export the merge base named by ``spec`` (into the cache, where a later run finds it again)."""
    top = toplevel(anchor)
    commit = merge_base(spec, top)
    renamed = _renames(commit, top)
    if cache_at is not None:
        root = cache_at / "base-trees"
        name = f"{commit}-v{_EXPORT_FORMAT}"
        dest = root / name / "tree"
        if (root / name / "complete").is_file():
            try:
                os.utime(root / name, None)  # (most recently used)
            except OSError:
                pass
            return BaseTree(top, dest, commit, spec, renamed)
        try:
            root.mkdir(parents=True, exist_ok=True)
            work = Path(tempfile.mkdtemp(prefix=".export-", dir=root))
        except OSError:
            cache_at = None
        else:
            try:
                _export(commit, top, work / "tree")
                (work / "complete").write_text(commit + "\n")
                try:
                    work.rename(root / name)
                except OSError:  # (another run exported it first)
                    shutil.rmtree(work, ignore_errors=True)
            except OSError:  # (the cache cannot hold it: a full disk): exported where it is not kept
                shutil.rmtree(work, ignore_errors=True)
            except BaseException:
                shutil.rmtree(work, ignore_errors=True)
                raise
            else:
                _prune(root)
                if (dest.parent / "complete").is_file():
                    return BaseTree(top, dest, commit, spec, renamed)
    work = Path(tempfile.mkdtemp(prefix="recipelint-base-"))
    try:
        _export(commit, top, work / "tree")
    except BaseException:
        shutil.rmtree(work, ignore_errors=True)
        raise
    return BaseTree(top, work / "tree", commit, spec, renamed, temporary=True)


def _prune(root: Path) -> None:
    try:
        done = [d for d in root.iterdir() if (d / "complete").is_file()]
        done.sort(key=lambda d: d.stat().st_mtime, reverse=True)
    except OSError:
        return
    for d in done[_KEEP_EXPORTS:]:
        shutil.rmtree(d, ignore_errors=True)


def _renames(commit: str, top: Path) -> dict[str, str]:
    """Files renamed between ``commit`` and the work tree (``--name-status -z``: no quoting)."""
    out = _git(["diff", "--name-status", "-z", "-M", "--no-ext-diff", "--no-textconv", "--no-color", commit, "--"], top)
    parts = out.split("\0")
    renamed: dict[str, str] = {}
    i = 0
    while i < len(parts) and parts[i]:
        status = parts[i]
        if status[:1] in ("R", "C") and i + 2 < len(parts):
            if status[0] == "R":
                renamed[parts[i + 1]] = parts[i + 2]
            i += 3
        else:
            i += 2
    return renamed


def changed_paths(commit: str, top: Path) -> list[str]:
    """The paths (relative to ``top``, POSIX) whose content differs between ``commit`` and the
    work tree: changed, added (untracked ones too, ignored or not: a run walks them) and deleted
    files; a rename is its two paths.  Untracked folders git collapses are walked here (the
    folders no run enters, ``cache.results.SKIP_DIRS``, skipped)."""
    from recipelint.cache.results import SKIP_DIRS

    out = _git(["diff", "--name-only", "-z", "--no-renames", "--no-ext-diff", "--no-textconv", commit, "--"], top)
    found = {n for n in out.split("\0") if n}
    others = _git(["ls-files", "-z", "--others", "--directory", "--no-empty-directory"], top)
    for name in others.split("\0"):
        if not name:
            continue
        if not name.endswith("/"):
            if not any(part in SKIP_DIRS for part in name.split("/")[:-1]):
                found.add(name)
            continue
        if any(part in SKIP_DIRS for part in name.rstrip("/").split("/")):
            continue
        for root, dirs, files in os.walk(top / name, followlinks=False):
            dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS)
            for f in files:
                found.add(Path(os.path.relpath(os.path.join(root, f), top)).as_posix())
            if len(found) > MAX_CHANGED:
                return sorted(found)
    return sorted(found)


#: more changed paths than this: the change is taken to affect everything (no walk goes on)
MAX_CHANGED = 50_000


def _export(commit: str, top: Path, dest: Path) -> None:
    """Write the files of ``commit`` that a lint may read under ``dest``: regular files (and
    symbolic links that stay inside the tree) within the size limits."""
    listing = _git(["ls-tree", "-r", "-z", "-l", "--full-tree", commit], top)
    blobs: list[tuple[str, str, str]] = []  # (mode, sha, path)
    total = 0
    for entry in listing.split("\0"):
        if not entry:
            continue
        meta, _, path = entry.partition("\t")
        fields = meta.split()
        if len(fields) != 4 or fields[1] != "blob":
            continue  # (submodules, trees)
        mode, _, sha, size = fields
        parts = path.split("/")
        if any(p in ("", ".", "..", ".git") for p in parts):
            continue
        n = int(size) if size.isdigit() else 0
        if mode in ("100644", "100755") and n > (_MAX_FILE if path.endswith(_EXPORT_KINDS) else _MAX_ANY):
            continue
        total += n
        if total > MAX_EXPORT_BYTES:
            raise DiffError(f"--diff-base: the base commit holds over {MAX_EXPORT_BYTES >> 20} MiB of files to lint")
        if mode in ("100644", "100755", "120000"):
            blobs.append((mode, sha, path))
    dest.mkdir(parents=True, exist_ok=True)
    if not blobs:
        return
    data = _git(["cat-file", "--batch"], top, data="".join(f"{sha}\n" for _, sha, _ in blobs).encode(), binary=True)
    pos = 0
    root = os.path.abspath(dest)
    links: list[Path] = []
    for mode, sha, path in blobs:
        nl = data.index(b"\n", pos)
        header = data[pos:nl].split()
        if len(header) != 3 or header[0] != sha.encode() or header[1] != b"blob":
            raise DiffError(f"--diff-base: git cat-file gave an unexpected answer for {path}")
        size = int(header[2])
        body = data[nl + 1 : nl + 1 + size]
        pos = nl + 1 + size + 1
        target = dest / path
        target.parent.mkdir(parents=True, exist_ok=True)
        if mode == "120000":
            link = body.decode("utf-8", "surrogateescape")
            where = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(target)), link))
            if os.path.isabs(link) or not (where == root or where.startswith(root + os.sep)):
                continue  # (a link out of the tree is not followed)
            os.symlink(link, target)
            links.append(target)
        else:
            target.write_bytes(body)
    # each link alone stays in the tree; through the tree's own directory links (`a -> ..` inside
    # `b/`, `b/c -> a/..`) a chain of them may still leave it: resolved against the export's
    # root, those are dropped (repeated: a drop can change where another one leads)
    while links:
        out = [t for t in links if not _resolves_within(t, root)]
        if not out:
            break
        for t in out:
            os.unlink(t)
        links = [t for t in links if t not in out]


def _resolves_within(link: Path, root: str) -> bool:
    """Whether a link of the export leads, through every link on its way, to a place inside
    ``root`` (a loop does not: it leads nowhere)."""
    try:
        real = os.path.realpath(link, strict=False)
    except (OSError, RuntimeError, ValueError):
        return False
    real_root = os.path.realpath(root)
    return real == real_root or real.startswith(real_root + os.sep)


#: the files the pre-commit hook is given (``files:`` in ``.pre-commit-hooks.yaml``, which
#: ``tests/test_precommit.py`` keeps equal to this)
HOOK_FILES = re.compile(r"(\.sh|-master\.ya?ml|^\.github/workflows/[^/]+\.ya?ml)$")


@dataclass(slots=True)
class HookPlan:
    """What ``check --pre-commit FILES`` does: ``paths`` to check, and the revision to compare
    with (None: report everything)."""

    paths: list[Path]
    diff_base: str | None
    why: str


def pre_commit_plan(files: list[Path], cwd: Path) -> HookPlan:
    """Read what pre-commit asked for from the files it passed.

    - a push or ``--from-ref/--to-ref`` run (``PRE_COMMIT_FROM_REF``): the change since that ref,
      over the whole tree;
    - a commit (every file given is staged): the change since ``HEAD``, over the whole tree — so a
      sibling's, a sourced file's or a config's finding the commit causes is reported, and findings
      that were there before are not;
    - ``--all-files`` (the files given cover every tracked file the hook matches): the whole tree,
      exactly as ``recipelint check .`` from the root;
    - other files (``pre-commit run --files ...``): those files.
    """
    top = toplevel(cwd)
    tree = [top]
    from_ref = os.environ.get("PRE_COMMIT_FROM_REF") or os.environ.get("PRE_COMMIT_ORIGIN")
    if from_ref:
        return HookPlan(tree, from_ref, f"the change since {from_ref}")
    has_head = _git(["rev-parse", "--verify", "--quiet", "HEAD^{commit}"], top, check=False) is not None
    given = {_rel_to(top, p) for p in files}
    given.discard(None)
    if has_head and given:
        staged = _git(["diff", "--cached", "--name-only", "-z", "--no-renames", "HEAD", "--"], top)
        if given <= {n for n in staged.split("\0") if n}:
            return HookPlan(tree, "HEAD", "the staged change")
    tracked = {n for n in _git(["ls-files", "-z"], top).split("\0") if n and HOOK_FILES.search(n)}
    if not files or tracked <= given:
        return HookPlan(tree, None, "all files")
    return HookPlan(list(files), None, "the files given")


def _rel_to(top: Path, p: Path) -> str | None:
    try:
        return Path(os.path.realpath(p)).relative_to(top).as_posix()
    except ValueError:
        return None
