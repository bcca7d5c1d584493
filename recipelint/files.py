"""Reading files of a repository recipelint does not trust: the one place that opens them.

Every file recipelint reads from a checked repository (recipes, sourced files, master configs,
settings, the files the cache digests, code frames) goes through :func:`read_regular`: it opens
the path without blocking (``O_NONBLOCK``: a FIFO does not hang the run), checks with ``fstat``
on the open descriptor that it is a regular file (not a device such as ``/dev/zero``, not a
FIFO, not a directory: checked on what was opened, so a link swapped after a check changes
nothing) and reads at most ``limit`` bytes (a file larger than that, or one that grows while
read, is refused).  :func:`confine` says whether a path, links resolved, is inside one of the
roots a run may read (the project root, a configured search root) and not under ``/proc``,
``/dev`` or ``/sys``.

Failures are :class:`Refused`, whose message is one line meant for a finding or an error.

A run may be given the text of some files instead of their bytes on disk (an editor's unsaved
buffer, ``recipelint check -``): :func:`overlaid` puts it over those paths for the run, and
:func:`read_regular` and :func:`read_head` return it — after the same bound, and after the
confinement the caller asked for — so every reader (the recipe's analysis, a sibling's, the cache's
digests, a code frame) sees the text as if the file held it.
"""

from __future__ import annotations

import errno
import functools
import os
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

#: trees no recipe has business reading (`source /proc/self/environ` would put the CI job's
#: environment, tokens included, into launch values and finding messages)
SYSTEM_TREES = ("/proc", "/dev", "/sys")


#: version-control folders: nothing under them is read (``confine_resolved``)
VCS_DIRS = frozenset({".git", ".hg", ".svn", ".bzr"})


class Refused(Exception):
    """A file recipelint will not read; ``kind``: ``missing``, ``outside`` (not inside a root
    of the run), ``system`` (under /proc, /dev, /sys), ``vcs`` (under ``.git/`` and the like),
    ``special`` (not a regular file),
    ``too-large``, ``unreadable``, ``not-utf8`` (:func:`read_text`); ``str()`` is the one-line reason."""

    def __init__(self, kind: str, reason: str):
        super().__init__(reason)
        self.kind = kind
        self.reason = reason


def _within(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip("/") + "/")


@functools.lru_cache(maxsize=256)
def _real_root(root: str) -> str | None:
    """A root with its links resolved, once per process (a run asks for the same few roots for
    every file it reads: resolving them each time was half the cost of the warm path's checks)."""
    try:
        return os.path.realpath(root)
    except (OSError, ValueError):
        return None


def confine(path: Path | str, roots) -> Path:
    """``path`` with its links resolved, when that is inside one of ``roots`` (paths, resolved
    here too) and not under a system tree; else :class:`Refused` (``system`` or ``outside``).
    A path that does not exist resolves as far as it does (the read then says ``missing``)."""
    try:
        real = os.path.realpath(path)
    except (OSError, ValueError) as exc:
        raise Refused("unreadable", f"{path}: cannot resolve ({exc})") from None
    return confine_resolved(real, roots, path)


def confine_resolved(real: str, roots, path: Path | str | None = None) -> Path:
    """:func:`confine` for a path whose links are already resolved (``real``, e.g. from the walk
    that found the file): the same checks, without resolving it again."""
    path = real if path is None else path
    for tree in SYSTEM_TREES:
        if _within(real, tree):
            raise Refused("system", f"{path}: under {tree} (recipelint does not read system files)")
    inside = [r for root in roots if (r := _real_root(str(root))) is not None and _within(real, r)]
    if not inside:
        raise Refused("outside", f"{path}: outside the project root (resolves to {real})")
    # (below the innermost root holding it: a base tree exported into a cache under `.git/` is
    # a root of its own)
    rel = real[len(max(inside, key=len)) :].strip("/").split("/")
    vcs = next((part for part in rel[:-1] if part in VCS_DIRS), None)
    if vcs is not None:
        # (`.git/config` holds remotes with tokens, hooks name programs: never a recipe, a
        # sourced file or a config, even through a link committed in the tree)
        raise Refused("vcs", f"{path}: inside {vcs}/ (recipelint does not read version-control files)")
    return Path(real)


def repository_root(start: Path | str) -> Path | None:
    """The nearest directory at or above ``start``'s folder (``start`` itself when it is a
    directory; a link named is not followed: its folder counts) holding ``.git``, resolved; None
    when there is none."""
    p = Path(start)
    try:
        d = Path(os.path.realpath(p if p.is_dir() and not p.is_symlink() else p.parent if str(p.parent) else "."))
    except (OSError, ValueError):
        return None
    for a in [d, *d.parents]:
        try:
            if os.path.lexists(a / ".git"):
                return a
        except (OSError, ValueError):
            return None
    return None


#: real path → the text given for it (``overlaid``)
_OVERLAY: dict[str, bytes] = {}


@contextmanager
def overlaid(texts: dict[Path, bytes] | dict[str, bytes]) -> Iterator[None]:
    """Read ``texts`` (path → bytes) instead of those files' contents on disk until the block
    ends (the paths' links resolved now; a path need not exist)."""
    saved = dict(_OVERLAY)
    try:
        _OVERLAY.update({os.path.realpath(p): bytes(b) for p, b in texts.items()})
        yield
    finally:
        _OVERLAY.clear()
        _OVERLAY.update(saved)


#: the sets the files read are noted in (``recording``)
_RECORDING: list[set[str]] = []


@contextmanager
def recording() -> Iterator[set[str]]:
    """Note the real path of every file read (or sniffed) until the block ends, in the set given
    (a kept workspace checks them before it reuses what was computed from them)."""
    read: set[str] = set()
    _RECORDING.append(read)
    try:
        yield read
    finally:
        _RECORDING.remove(read)


def _note(path: Path | str) -> None:
    try:
        real = os.path.realpath(path)
    except (OSError, ValueError):
        return
    for read in _RECORDING:
        read.add(real)


def overlay_of(path: Path | str) -> bytes | None:
    """The text given for ``path`` (``overlaid``), or None (read it from disk)."""
    if not _OVERLAY:
        return None
    try:
        return _OVERLAY.get(os.path.realpath(path))
    except (OSError, ValueError):
        return None


def read_stream(stream, limit: int, name: str = "standard input") -> bytes:
    """At most ``limit`` bytes of a binary stream (standard input); :class:`Refused` when it holds
    more (read no further than ``limit + 1`` bytes)."""
    chunks, got = [], 0
    try:
        while got <= limit:
            b = stream.read(min(1 << 20, limit + 1 - got))
            if not b:
                break
            chunks.append(b)
            got += len(b)
    except OSError as exc:
        raise Refused("unreadable", f"{name}: cannot read ({exc.strerror or exc})") from None
    if got > limit:
        raise Refused("too-large", f"{name}: over the {limit}-byte limit")
    return b"".join(chunks)


def read_regular(path: Path | str, limit: int) -> bytes:
    """The bytes of a regular file of at most ``limit`` bytes; else :class:`Refused`.  Never
    blocks on a FIFO and never reads more than ``limit + 1`` bytes.  A path that is not a
    regular file is refused before it is opened (opening a device or a FIFO can have effects:
    a tape rewinds, a FIFO's writer wakes); the descriptor is checked again after the open (a
    path swapped in between changes nothing).  A path given a text (``overlaid``) reads it."""
    if _RECORDING:
        _note(path)
    given = overlay_of(path) if _OVERLAY else None
    if given is not None:
        if len(given) > limit:
            raise Refused("too-large", f"{path}: file is {len(given)} bytes, over the {limit}-byte limit")
        return given
    fd, st = _open_regular(path)
    try:
        if st.st_size > limit:
            raise Refused("too-large", f"{path}: file is {st.st_size} bytes, over the {limit}-byte limit")
        chunks, got = [], 0
        while got <= limit:
            b = os.read(fd, min(1 << 20, limit + 1 - got))
            if not b:
                break
            chunks.append(b)
            got += len(b)
        if got > limit:
            raise Refused("too-large", f"{path}: file grew over the {limit}-byte limit while read")
        return b"".join(chunks)
    except OSError as exc:
        raise Refused("unreadable", f"{path}: cannot read ({exc.strerror or exc})") from None
    finally:
        os.close(fd)


def read_head(path: Path | str, n: int = 256) -> bytes:
    """The first ``n`` bytes (at most) of a regular file of any size, opened as
    :func:`read_regular` opens one (or the text given for it); else :class:`Refused`."""
    if _RECORDING:
        _note(path)
    given = overlay_of(path) if _OVERLAY else None
    if given is not None:
        return given[:n]
    fd, _ = _open_regular(path)
    try:
        return os.read(fd, n)
    except OSError as exc:
        raise Refused("unreadable", f"{path}: cannot read ({exc.strerror or exc})") from None
    finally:
        os.close(fd)


def _open_regular(path: Path | str) -> tuple[int, os.stat_result]:
    """A descriptor of a regular file and its status (see :func:`read_regular`)."""
    try:
        st0 = os.stat(path)
    except FileNotFoundError:
        raise Refused("missing", f"{path}: no such file") from None
    except (OSError, ValueError) as exc:
        raise Refused("unreadable", f"{path}: cannot open ({getattr(exc, 'strerror', None) or exc})") from None
    if not stat.S_ISREG(st0.st_mode):
        raise Refused("special", f"{path}: {_what(st0.st_mode)}")
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOCTTY", 0)
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        raise Refused("missing", f"{path}: no such file") from None
    except PermissionError:
        raise Refused("unreadable", f"{path}: permission denied") from None
    except OSError as exc:
        raise Refused("unreadable", f"{path}: cannot open ({exc.strerror or exc})") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise Refused("special", f"{path}: {_what(st.st_mode)}")
    except BaseException:
        os.close(fd)
        raise
    return fd, st


#: the interpreters whose extensionless scripts a directory walk takes for recipes (bash, and
#: POSIX sh scripts, which bash runs alike)
WALKED_SHELLS = frozenset({"bash", "sh"})


def has_no_suffix(name: str) -> bool:
    """Whether a file name has no suffix (``serve``, ``.env``), so that only its first line can
    say it is a script."""
    return "." not in name.lstrip(".")


def shebang_interpreter(head: bytes) -> str | None:
    """The interpreter a script's first line names: ``#!/bin/bash`` and ``#!/usr/bin/env bash``
    give ``bash``, ``#!/usr/bin/env -S bash -e`` too; None without a ``#!`` line."""
    if not head.startswith(b"#!"):
        return None
    words = head[2:].split(b"\n", 1)[0].decode("utf-8", "replace").split()
    if not words:
        return None
    name = words[0].rsplit("/", 1)[-1]
    if name == "env":
        rest = [w for w in words[1:] if not w.startswith("-") and "=" not in w]
        if not rest:
            return None
        name = rest[0].rsplit("/", 1)[-1]
    return name


def shell_script_by_shebang(path: Path | str) -> bool:
    """Whether a file's first line runs bash or sh (read bounded: its first 256 bytes, regular
    files only)."""
    try:
        head = read_head(path)
    except Refused:
        return False
    # (pip's console scripts: `#!/bin/sh`, then `'''exec' python "$0" "$@"`: Python run by sh)
    return shebang_interpreter(head) in WALKED_SHELLS and b"'''exec'" not in head


def _what(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "is a directory"
    if stat.S_ISFIFO(mode):
        return "not a regular file (a FIFO)"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "not a regular file (a device)"
    if stat.S_ISSOCK(mode):
        return "not a regular file (a socket)"
    return "not a regular file"


def read_text(path: Path | str, limit: int, roots=None) -> str:
    """:func:`read_regular` (after :func:`confine` to ``roots`` when given) decoded as UTF-8;
    :class:`Refused` (``kind`` ``not-utf8`` for bytes that do not decode)."""
    if roots is not None:
        confine(path, roots)
    data = read_regular(path, limit)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise Refused("not-utf8", f"{path}: not valid UTF-8 (byte 0x{data[exc.start]:02x} at offset {exc.start})") from None


def write_output(path: Path | str, text: str, append: bool = False) -> None:
    """Write (or append to) a report file — ``--output-file``, ``--sarif-file``,
    ``--summary-file``, ``--write-baseline`` — without following a symbolic link at its path: a
    link committed where the CI writes its report (dangling or not) would make the write land
    wherever it points.  OSError as ``open`` raises it; a link is ``ELOOP``, said by
    :func:`write_error`."""
    flags = os.O_WRONLY | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    flags |= os.O_APPEND if append else os.O_TRUNC
    if os.path.islink(path):  # (also where O_NOFOLLOW is missing)
        raise OSError(errno.ELOOP, "a symbolic link", str(path))
    fd = os.open(path, flags, 0o666)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write(text)


def write_error(e: OSError) -> str:
    """Why a report file was not written, in a few words."""
    if e.errno == errno.ELOOP:
        return "it is a symbolic link: recipelint does not write through it (remove the link or name another path)"
    return f"cannot write ({e.strerror or e})"
