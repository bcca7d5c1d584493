"""``--diff-base REV``: keep the findings a change introduced.

A finding is kept when its location, or one of its related locations (a sibling's line, a
config's YAML line), lies on a line added or changed since REV (``git diff REV``, the working
tree included), or when one of the sweep points it holds for comes from a changed line of a
master config.  Limit: a finding anchored on an unchanged line and caused only by a deleted
line elsewhere (a flag removed from a sibling) is missed.

This is the one place recipelint runs a program: ``git``, with fixed arguments, never the
recipes.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

from recipelint.lint.findings import Finding

_HUNK = re.compile(r"^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@")


class DiffError(Exception):
    pass


def _git(args: list[str], cwd: Path) -> str:
    try:
        proc = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, timeout=60, check=False)
    except FileNotFoundError:
        raise DiffError("--diff-base needs git, which is not installed") from None
    except subprocess.TimeoutExpired:
        raise DiffError("--diff-base: git did not answer within 60 s") from None
    if proc.returncode != 0:
        msg = (proc.stderr or proc.stdout).strip().splitlines()
        raise DiffError(f"--diff-base: git {' '.join(args[:2])} failed: {msg[0] if msg else proc.returncode}")
    return proc.stdout


def changed_lines(base: str, anchor: Path) -> dict[str, set[int]]:
    """Resolved path -> lines added or changed since ``base``."""
    if base.startswith("-"):
        raise DiffError(f"--diff-base: '{base}' is not a revision")
    cwd = anchor if anchor.is_dir() else (anchor.parent if anchor.parent.exists() else Path("."))
    top = Path(_git(["rev-parse", "--show-toplevel"], cwd).strip())
    _git(["rev-parse", "--verify", "--quiet", f"{base}^{{commit}}"], top)
    out = _git(["diff", "--unified=0", "--no-color", "--no-ext-diff", "--no-renames", base, "--"], top)
    changed: dict[str, set[int]] = {}
    current = None
    for line in out.splitlines():
        if line.startswith("+++ "):
            name = line[4:]
            current = None if name == "/dev/null" else str((top / name[2:]).resolve()) if name.startswith("b/") else None
            continue
        m = _HUNK.match(line)
        if m and current is not None:
            start = int(m.group(1))
            count = int(m.group(2)) if m.group(2) is not None else 1
            changed.setdefault(current, set()).update(range(start, start + count))
    # files git does not track yet are new in full
    for name in _git(["ls-files", "--others", "--exclude-standard"], top).splitlines():
        p = top / name
        try:
            n = sum(1 for _ in p.open("rb"))
        except OSError:
            continue
        changed[str(p.resolve())] = set(range(1, n + 1))
    return changed


def _resolved(path: str) -> str:
    try:
        return str(Path(path).resolve())
    except OSError:
        return path


def keep_changed(findings: list[Finding], changed: dict[str, set[int]], files) -> list[Finding]:
    origins: dict[str, list[tuple[str, int]]] = {}
    for res in files:
        for pr in res.points:
            o = pr.point.origin
            if hasattr(o, "line"):
                lines = [(_resolved(o.path), o.line)]
                item = pr.point.extra.get("item_line")
                if item:
                    lines.append((_resolved(o.path), item))
                # the other lines the point's environment comes from (a dispatch workflow's env
                # entries and input defaults)
                lines.extend((_resolved(o.path), ln) for ln in pr.point.extra.get("lines", ()))
                origins[pr.point.label] = lines
    out = []
    for f in findings:
        spans = [f.span] + [r.span for r in f.related]
        hit = any(s.line in changed.get(_resolved(s.path), ()) for s in spans)
        if not hit:
            hit = any(line in changed.get(path, ()) for p in f.points for path, line in origins.get(p, ()))
        if hit:
            out.append(f)
    return out
