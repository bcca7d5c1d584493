"""Suppression comments.

* ``# recipelint: ignore[RL101] reason`` at the end of a line suppresses those codes on that
  line; alone on a line, it suppresses them in the statement that starts on the next line —
  the whole statement, when it is a compound block (``if``, ``case``, a function, a multi-line
  array or command).
* ``# recipelint: file-ignore[RL101] reason`` anywhere suppresses them in the whole file.

Codes may be prefixes (``RL1``) and several may be given (``ignore[RL101, RL201]``);
``ignore`` without brackets suppresses every code.  A suppression that suppresses nothing is
reported as RL002.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_DIRECTIVE = re.compile(r"#\s*recipelint:\s*(ignore|file-ignore)(?:\[([^\]]*)\])?")


@dataclass(slots=True)
class Suppression:
    line: int  # the line the comment is on
    col: int
    first: int | None  # the lines it covers (None: the whole file)
    last: int | None
    codes: tuple[str, ...]  # empty: every code
    kind: str = "ignore"
    used: bool = False


@dataclass(slots=True)
class FileSuppressions:
    items: list[Suppression] = field(default_factory=list)

    def match(self, code: str, line: int) -> Suppression | None:
        for s in self.items:
            if s.first is not None and not (s.first <= line <= s.last):
                continue
            if not s.codes or any(code.startswith(c) for c in s.codes):
                return s
        return None


def scan(text: str, blocks: dict | None = None) -> FileSuppressions:
    """``blocks``: first line -> last line of the statement starting there."""
    out = FileSuppressions()
    blocks = blocks or {}
    lines = text.split("\n")
    for i, raw in enumerate(lines, 1):
        if "recipelint" not in raw:
            continue
        m = _DIRECTIVE.search(raw)
        if not m:
            continue
        kind, codes = m.group(1), m.group(2)
        code_t = tuple(c.strip().upper() for c in (codes or "").split(",") if c.strip())
        col = m.start() + 1
        if kind == "file-ignore":
            out.items.append(Suppression(i, col, None, None, code_t, kind))
            continue
        alone = raw[: m.start()].strip() == ""
        if not alone:
            out.items.append(Suppression(i, col, i, i, code_t, kind))
            continue
        j = i + 1
        while j <= len(lines) and (not lines[j - 1].strip() or lines[j - 1].lstrip().startswith("#")):
            j += 1
        out.items.append(Suppression(i, col, j, max(j, blocks.get(j, j)), code_t, kind))
    return out
