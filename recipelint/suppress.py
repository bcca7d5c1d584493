"""Suppression comments.

* ``# recipelint: ignore[RL101] reason`` at the end of a line suppresses those codes on that
  line; alone on a line, it suppresses them on the next line (the command or block below).
* ``# recipelint: file-ignore[RL101] reason`` anywhere suppresses them in the whole file.

Codes may be prefixes (``RL1``) and several may be given (``ignore[RL101, RL201]``);
``ignore`` without brackets suppresses every code.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_DIRECTIVE = re.compile(r"#\s*recipelint:\s*(ignore|file-ignore)(?:\[([^\]]*)\])?")


@dataclass(slots=True)
class Suppression:
    line: int  # the line the comment is on
    target: int | None  # the line it applies to (None: the whole file)
    codes: tuple[str, ...]  # empty: every code
    used: bool = False


@dataclass(slots=True)
class FileSuppressions:
    items: list[Suppression] = field(default_factory=list)

    def match(self, code: str, line: int) -> Suppression | None:
        for s in self.items:
            if s.target is not None and s.target != line:
                continue
            if not s.codes or any(code.startswith(c) for c in s.codes):
                return s
        return None


def scan(text: str) -> FileSuppressions:
    out = FileSuppressions()
    lines = text.split("\n")
    for i, raw in enumerate(lines, 1):
        if "recipelint" not in raw:
            continue
        m = _DIRECTIVE.search(raw)
        if not m:
            continue
        kind, codes = m.group(1), m.group(2)
        code_t = tuple(c.strip().upper() for c in (codes or "").split(",") if c.strip())
        if kind == "file-ignore":
            out.items.append(Suppression(i, None, code_t))
            continue
        alone = raw[: m.start()].strip() == ""
        target = i
        if alone:
            j = i + 1
            while j <= len(lines) and (not lines[j - 1].strip() or lines[j - 1].lstrip().startswith("#")):
                j += 1
            target = j
        out.items.append(Suppression(i, target, code_t))
    return out
