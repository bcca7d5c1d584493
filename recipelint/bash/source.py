"""Source files, byte offsets and the spans reported to users.

Every value the evaluator computes keeps a :class:`Loc` (a source and a byte range); a
:class:`Span` (1-based line and column, columns counted in characters) is only made when a
location is shown to a user.  Code evaluated from a string (``eval "$S"``, ``bash -c``)
lives in a :class:`VirtualSource` whose offsets map back to the file lines where the
string's pieces were written.
"""

from __future__ import annotations

import bisect
import os
from dataclasses import dataclass
from pathlib import Path


class InputError(Exception):
    """A file that cannot be analysed (unreadable, binary, not UTF-8, ...)."""


@dataclass(frozen=True, slots=True, order=True)
class Span:
    path: str
    line: int
    col: int
    end_line: int
    end_col: int

    def to_dict(self) -> dict:
        return {
            "path": self.path,
            "line": self.line,
            "col": self.col,
            "end_line": self.end_line,
            "end_col": self.end_col,
        }

    def __str__(self) -> str:
        return f"{self.path}:{self.line}:{self.col}"


class SourceFile:
    """A bash file held as bytes, with a line table for offset → line/column."""

    __slots__ = ("path", "data", "_starts", "_text_lines")

    def __init__(self, path: str, data: bytes):
        self.path = path
        self.data = data
        starts = [0]
        find = data.find
        i = find(b"\n")
        while i >= 0:
            starts.append(i + 1)
            i = find(b"\n", i + 1)
        self._starts = starts
        self._text_lines: list[str] | None = None

    def point(self, offset: int) -> tuple[int, int]:
        """1-based (line, column); the column counts characters, not bytes."""
        offset = max(0, min(offset, len(self.data)))
        row = bisect.bisect_right(self._starts, offset) - 1
        start = self._starts[row]
        col = len(self.data[start:offset].decode("utf-8", "replace")) + 1
        return row + 1, col

    def span(self, start: int, end: int) -> Span:
        l1, c1 = self.point(start)
        l2, c2 = self.point(end)
        return Span(self.path, l1, c1, l2, c2)

    def line_text(self, line: int) -> str:
        if self._text_lines is None:
            self._text_lines = self.data.decode("utf-8", "replace").split("\n")
        if 1 <= line <= len(self._text_lines):
            return self._text_lines[line - 1].rstrip("\r")
        return ""

    @property
    def line_count(self) -> int:
        return len(self._starts)

    def line_start(self, line: int) -> int:
        """The byte offset where 1-based ``line`` starts."""
        return self._starts[max(0, min(line, len(self._starts)) - 1)]

    def origin(self, start: int, end: int) -> Loc:
        return Loc(self, start, end)


class VirtualSource:
    """Text built by the evaluator (an ``eval`` string) and parsed again.

    ``pieces`` maps byte ranges of ``data`` to the :class:`Loc` the text came from.
    """

    __slots__ = ("path", "data", "_starts", "_locs", "_fallback", "unknowns")

    def __init__(self, data: bytes, pieces: list[tuple[int, int, Loc | None]], fallback: Loc):
        self.path = fallback.source.path if fallback is not None else "<eval>"
        self.data = data
        self._starts = [p[0] for p in pieces]
        self._locs = [(p[1], p[2]) for p in pieces]
        self._fallback = fallback
        #: placeholder token -> the unknown Chunk it stands for (set by the evaluator)
        self.unknowns: dict = {}

    def origin(self, start: int, end: int) -> Loc:
        i = bisect.bisect_right(self._starts, start) - 1
        if 0 <= i < len(self._locs):
            piece_end, loc = self._locs[i]
            if loc is not None and start < max(piece_end, self._starts[i] + 1):
                return loc
        return self._fallback

    def span(self, start: int, end: int) -> Span:
        loc = self.origin(start, end)
        return loc.span if loc is not None else Span(self.path, 1, 1, 1, 1)


class Loc:
    """A byte range in a source; resolved to a :class:`Span` on demand."""

    __slots__ = ("source", "start", "end")

    def __init__(self, source: SourceFile, start: int, end: int) -> None:
        self.source = source
        self.start = start
        self.end = end

    @property
    def span(self) -> Span:
        src = self.source
        if isinstance(src, VirtualSource):
            return src.span(self.start, self.end)
        return src.span(self.start, self.end)

    def real(self) -> Loc:
        """The location in a real file (follows ``eval`` strings back to their origin)."""
        loc = self
        for _ in range(16):
            if isinstance(loc.source, VirtualSource):
                nxt = loc.source.origin(loc.start, loc.end)
                if nxt is None or nxt is loc:
                    break
                loc = nxt
            else:
                break
        return loc

    @property
    def path(self) -> str:
        return self.source.path

    @property
    def line(self) -> int:
        return self.span.line

    def __repr__(self) -> str:
        return f"Loc({self.span})"


#: the largest recipe read (from disk, or from standard input: ``check -``)
MAX_RECIPE_BYTES = 16 * 1024 * 1024


def read_source(
    path: Path, display: str | None = None, max_bytes: int = MAX_RECIPE_BYTES, roots: list[Path] | None = None
) -> SourceFile:
    """Read a recipe; raise :class:`InputError` with a one-line reason when it cannot be analysed.
    ``roots``: the folders it must resolve into (``recipelint.files.confine``: a recipe linked
    to a file outside them, or to a system file, is not read); None: anywhere but /proc, /dev, /sys."""
    from recipelint.files import Refused, confine, read_regular

    name = display or str(path)
    try:
        if roots is not None:
            try:
                confine(path, roots)
            except Refused as r:
                if r.kind == "outside":
                    raise Refused(
                        r.kind, f"{path}: links to a file outside the project root ({os.path.realpath(path)}): not read"
                    ) from None
                raise
        else:
            confine(path, ["/"])
        data = read_regular(path, max_bytes)
    except Refused as r:
        why = r.reason[len(str(path)) + 2 :] if r.reason.startswith(f"{path}: ") else r.reason
        raise InputError(f"{name}: {why}") from None
    if b"\x00" in data[:8192]:
        raise InputError(f"{name}: binary file (contains NUL bytes)")
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise InputError(f"{name}:{line}: not valid UTF-8 (byte 0x{data[exc.start]:02x} at offset {exc.start})") from None
    return SourceFile(name, data)


def safe_resolve(p: Path) -> Path:
    """``p.resolve()``, or ``p`` made absolute when it is a symbolic-link loop."""
    try:
        return p.resolve()
    except (OSError, RuntimeError):
        return p.absolute()
