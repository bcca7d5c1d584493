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

import os
import re
import stat
import subprocess
from pathlib import Path

from recipelint.lint.findings import Finding

_HUNK = re.compile(r"^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@")


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

#: the untracked files that count as changed in full: the kinds recipelint reads, within its size limit
_UNTRACKED_KINDS = (".sh", ".bash", ".yaml", ".yml", ".toml", ".md")
_MAX_UNTRACKED = 16 * 1024 * 1024


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(GIT_CONFIG_NOSYSTEM="1", GIT_TERMINAL_PROMPT="0", GIT_OPTIONAL_LOCKS="0", LC_ALL="C")
    return env


def _git(args: list[str], cwd: Path) -> str:
    try:
        proc = subprocess.run(
            ["git", *_HARDENED, *args],
            cwd=cwd,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
            env=_env(),
            stdin=subprocess.DEVNULL,
            encoding="utf-8",
            errors="surrogateescape",
        )
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
    out = _git(
        [
            "diff",
            "--unified=0",
            "--no-color",
            "--no-ext-diff",
            "--no-textconv",
            "--no-renames",
            "--src-prefix=a/",
            "--dst-prefix=b/",
            base,
            "--",
        ],
        top,
    )
    changed: dict[str, set[int]] = {}
    current = None
    for line in out.split("\n"):
        if line.startswith("+++ "):
            name = _unquote(line[4:].rstrip("\t"))
            current = None if name == "/dev/null" else str((top / name[2:]).resolve()) if name.startswith("b/") else None
            continue
        m = _HUNK.match(line)
        if m and current is not None:
            start = int(m.group(1))
            count = int(m.group(2)) if m.group(2) is not None else 1
            changed.setdefault(current, set()).update(range(start, start + count))
    # files git does not track yet are new in full
    for name in _git(["ls-files", "-z", "--others", "--exclude-standard"], top).split("\0"):
        if not name.endswith(_UNTRACKED_KINDS):
            continue
        p = top / name
        try:
            st = os.lstat(p)
            if not stat.S_ISREG(st.st_mode) or st.st_size > _MAX_UNTRACKED:
                continue  # (a FIFO, a device, a link to /dev/zero, a huge file: never read)
            n = p.read_bytes().count(b"\n") + 1
        except OSError:
            continue
        changed[str(p.resolve())] = set(range(1, n + 1))
    return changed


_ESCAPES = {"a": "\a", "b": "\b", "t": "\t", "n": "\n", "v": "\v", "f": "\f", "r": "\r", '"': '"', "\\": "\\"}


def _unquote(name: str) -> str:
    """A path as git's diff header writes it: C-quoted (``"b/a\\tb"``, octal bytes) when it holds
    a control character, a quote or a backslash."""
    if not (name.startswith('"') and name.endswith('"') and len(name) >= 2):
        return name
    out = bytearray()
    body, i = name[1:-1], 0
    while i < len(body):
        ch = body[i]
        if ch == "\\" and i + 1 < len(body):
            nxt = body[i + 1]
            octal = body[i + 1 : i + 4]
            if len(octal) == 3 and all(c in "01234567" for c in octal):
                out.append(int(octal, 8))
                i += 4
                continue
            out.extend(_ESCAPES.get(nxt, nxt).encode("utf-8", "surrogateescape"))
            i += 2
            continue
        out.extend(ch.encode("utf-8", "surrogateescape"))
        i += 1
    return out.decode("utf-8", "surrogateescape")


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
