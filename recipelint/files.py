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
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

#: trees no recipe has business reading (`source /proc/self/environ` would put the CI job's
#: environment, tokens included, into launch values and finding messages)
SYSTEM_TREES = ("/proc", "/dev", "/sys")


class Refused(Exception):
    """A file recipelint will not read; ``kind``: ``missing``, ``outside`` (not inside a root
    of the run), ``system`` (under /proc, /dev, /sys), ``special`` (not a regular file),
    ``too-large``, ``unreadable``; ``str()`` is the one-line reason."""

    def __init__(self, kind: str, reason: str):
        super().__init__(reason)
        self.kind = kind
        self.reason = reason


def _within(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip("/") + "/")


def confine(path: Path | str, roots) -> Path:
    """``path`` with its links resolved, when that is inside one of ``roots`` (paths, resolved
    here too) and not under a system tree; else :class:`Refused` (``system`` or ``outside``).
    A path that does not exist resolves as far as it does (the read then says ``missing``)."""
    try:
        real = os.path.realpath(path)
    except (OSError, ValueError) as exc:
        raise Refused("unreadable", f"{path}: cannot resolve ({exc})") from None
    for tree in SYSTEM_TREES:
        if _within(real, tree):
            raise Refused("system", f"{path}: under {tree} (recipelint does not read system files)")
    for root in roots:
        try:
            r = os.path.realpath(root)
        except (OSError, ValueError):
            continue
        if _within(real, r):
            return Path(real)
    raise Refused("outside", f"{path}: outside the project root (resolves to {real})")


def read_regular(path: Path | str, limit: int) -> bytes:
    """The bytes of a regular file of at most ``limit`` bytes; else :class:`Refused`.  Never
    blocks on a FIFO and never reads more than ``limit + 1`` bytes."""
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
            what = "a directory" if stat.S_ISDIR(st.st_mode) else "not a regular file"
            raise Refused("special", f"{path}: {what}")
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
