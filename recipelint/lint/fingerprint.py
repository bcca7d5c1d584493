"""What makes a finding the same finding in two runs: its rule, its file (relative to the
repository root) and its key, with the sweep points it holds for — never line numbers.

Diff mode (``--diff-base``), baselines (``--baseline``) and SARIF's ``partialFingerprints`` all
match findings through :func:`identity` and :func:`point_id`, so an edit above a finding, a config
entry moved down the file or a catalogue upgrade does not make an old finding look new.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable
from dataclasses import replace
from pathlib import Path

from recipelint.lint.findings import Finding

#: a config sweep point's label holds the line of its config entry (``nvidia-master.yaml:943:tp8-...``)
_POINT_LINE = re.compile(r"^([^:\s]+\.ya?ml):\d+:")


def rel_path(path: str, root: Path | None) -> str:
    """``path`` (as a finding shows it: relative to the working directory, or absolute) relative
    to ``root`` in POSIX form; the absolute path when it lies outside ``root``."""
    full = Path(os.path.abspath(path))
    if root is not None:
        try:
            return full.relative_to(root).as_posix()
        except ValueError:
            pass
    return full.as_posix()


def point_id(label: str) -> str:
    """A sweep point's label without the config line it was read from."""
    return _POINT_LINE.sub(r"\1:", label)


def identity(f: Finding, rel: str) -> str:
    """The rule, the file and what makes the finding itself (its key, or its message)."""
    return f"{f.code}\0{rel}\0{f.key or f.message}"


def occurrences(f: Finding, rel: str) -> list[str]:
    """One entry per sweep point the finding holds for (one entry when it holds for none)."""
    ident = identity(f, rel)
    return [f"{ident}\0{point_id(p)}" for p in f.points] or [ident + "\0"]


def subtract(
    head: list[Finding],
    base: Iterable[Finding],
    head_rel: Callable[[str], str],
    base_rel: Callable[[str], str],
) -> tuple[list[Finding], list[Finding]]:
    """(the head's findings the base does not have, the base's findings the head no longer has).

    Matched per sweep point: a finding the base had at some of its points is kept with the others
    only.  Repeats (the same identity twice in one file) are matched in order."""
    have: dict[str, int] = {}
    base_list = list(base)
    for f in base_list:
        for occ in occurrences(f, base_rel(f.span.path)):
            have[occ] = have.get(occ, 0) + 1
    matched: dict[str, int] = {}
    new: list[Finding] = []
    for f in head:
        rel = head_rel(f.span.path)
        ident = identity(f, rel)
        if not f.points:
            occ = ident + "\0"
            if have.get(occ, 0) > 0:
                have[occ] -= 1
                matched[occ] = matched.get(occ, 0) + 1
            else:
                new.append(f)
            continue
        fresh = []
        for p in f.points:
            occ = f"{ident}\0{point_id(p)}"
            if have.get(occ, 0) > 0:
                have[occ] -= 1
                matched[occ] = matched.get(occ, 0) + 1
            else:
                fresh.append(p)
        if fresh:
            new.append(f if len(fresh) == len(f.points) else replace(f, points=fresh))
    gone = []
    for f in base_list:
        occs = occurrences(f, base_rel(f.span.path))
        left = []
        for occ in occs:
            if matched.get(occ, 0) > 0:
                matched[occ] -= 1
            else:
                left.append(occ)
        if left:
            gone.append(f)
    return new, gone
