"""Abstract values: strings made of chunks that remember where their text was written.

A string value (``Str``) is a tuple of :class:`Chunk`.  A chunk's ``text`` is ``None`` when it
is unknown (the output of a command we do not model, a file test, ...); ``why`` then says
what it stands for (``$(nvidia-smi ...)``, ``$MODEL``).  An unknown chunk can still be known
to be non-empty (a variable the launcher always sets).

An argv word is a :class:`Word`: its chunks plus ``loc``, where the word itself was written
(an array element line, say), while each chunk's ``loc`` is where that piece of text came
from (the assignment that computed ``MAX_NUM_SEQS``, a heredoc line).
"""

from __future__ import annotations

import posixpath
import re
import shlex

from recipelint.bash.source import Loc


class Chunk:
    __slots__ = ("text", "loc", "why", "nonempty", "multi")

    def __init__(self, text: str | None, loc: Loc | None, why: str = "", nonempty: bool = False, multi: bool = False):
        self.text = text
        self.loc = loc
        self.why = why
        self.nonempty = nonempty
        #: an unknown that may stand for any number of words (an unknown array splice)
        self.multi = multi

    @property
    def known(self) -> bool:
        return self.text is not None

    def with_text(self, text: str) -> Chunk:
        return Chunk(text, self.loc)

    def part(self, i: int, j: int) -> Chunk:
        """Characters [i:j) of a known chunk; the location narrows when the text is verbatim source."""
        t = self.text[i:j]
        return Chunk(t, narrow(self.loc, self.text, i, j))

    def __repr__(self) -> str:
        return repr(self.text) if self.text is not None else f"<?{self.why}>"


Str = tuple  # tuple[Chunk, ...]

EMPTY: Str = ()


def narrow(loc: Loc | None, text: str, i: int, j: int) -> Loc | None:
    """The sub-location of text[i:j] when ``text`` is exactly the source bytes at ``loc``."""
    if loc is None or (i == 0 and j >= len(text)):
        return loc
    src = loc.source
    raw = src.data[loc.start : loc.end]
    enc = text.encode("utf-8")
    if raw != enc:
        return loc
    a = loc.start + len(text[:i].encode("utf-8"))
    b = a + len(text[i:j].encode("utf-8"))
    return Loc(src, a, b)


def lit(text: str, loc: Loc | None) -> Str:
    return (Chunk(text, loc),) if text else ()


def unknown(why: str, loc: Loc | None, nonempty: bool = False, multi: bool = False) -> Str:
    return (Chunk(None, loc, why, nonempty, multi),)


def text_of(s: Str) -> str | None:
    """The string's text, or None when any chunk is unknown."""
    if len(s) == 1:
        return s[0].text
    parts = []
    for c in s:
        if c.text is None:
            return None
        parts.append(c.text)
    return "".join(parts)


def is_known(s: Str) -> bool:
    return all(c.text is not None for c in s)


def emptiness(s: Str) -> bool | None:
    """True if certainly empty, False if certainly non-empty, None if unknown."""
    maybe = False
    for c in s:
        if c.text is None:
            if c.nonempty:
                return False
            maybe = True
        elif c.text:
            return False
    return None if maybe else True


def display(s: Str) -> str:
    """Text with unknown parts shown as ``⟨why⟩``."""
    return "".join(c.text if c.text is not None else f"⟨{c.why or '?'}⟩" for c in s)


def merge_chunks(s: Str) -> Str:
    """Drop empty chunks (keeps provenance of non-empty ones)."""
    return tuple(c for c in s if c.text is None or c.text)


def first_loc(s: Str) -> Loc | None:
    for c in s:
        if c.loc is not None and (c.text is None or c.text):
            return c.loc
    for c in s:
        if c.loc is not None:
            return c.loc
    return None


def slice_str(s: Str, start: int, end: int | None = None) -> Str:
    """Characters [start:end) of a string, keeping each chunk's location.  Positions count the
    known text; an unknown chunk takes no room and is kept when it lies in the range (the
    `$MODEL` of `--model-path=$MODEL` after the `=`)."""
    out = []
    pos = 0
    for c in s:
        if c.text is None:
            if start <= pos and (end is None or pos < end):
                out.append(c)
            continue
        a, b = pos, pos + len(c.text)
        pos = b
        lo = max(a, start)
        hi = b if end is None else min(b, end)
        if lo < hi:
            out.append(c.part(lo - a, hi - a))
    return tuple(out)


def split_known(s: Str, seps: str = " \t\n") -> list[Str]:
    """Split a string on IFS whitespace; unknown chunks stay inside their field."""
    fields: list[list[Chunk]] = []
    cur: list[Chunk] = []
    have = False
    for c in s:
        if c.text is None:
            cur.append(c)
            have = True
            continue
        t = c.text
        start = 0
        for i, ch in enumerate(t):
            if ch in seps:
                if i > start:
                    cur.append(c.part(start, i))
                    have = True
                if have:
                    fields.append(cur)
                    cur = []
                    have = False
                start = i + 1
        if start < len(t):
            cur.append(c.part(start, len(t)))
            have = True
    if have:
        fields.append(cur)
    return [tuple(f) for f in fields]


class Word:
    """One argv word after expansion."""

    __slots__ = ("chunks", "loc", "split")

    def __init__(self, chunks: Str, loc: Loc | None, split: Loc | None = None):
        self.chunks = chunks
        self.loc = loc
        #: where an unquoted expansion was cut into several words, when this word is one of them
        self.split = split

    @property
    def text(self) -> str | None:
        return text_of(self.chunks)

    @property
    def known(self) -> bool:
        return is_known(self.chunks)

    @property
    def shown(self) -> str:
        return display(self.chunks)

    @property
    def value_loc(self) -> Loc | None:
        """Where the word's text came from (first non-empty chunk), else where it was written."""
        return first_loc(self.chunks) or self.loc

    def quoted(self) -> str:
        t = self.text
        if t is not None:
            return shlex.quote(t)
        parts = []
        for c in self.chunks:
            if c.text is None:
                parts.append(f'"{c.why}"' if c.why.startswith("$") else f"⟨{c.why or '?'}⟩")
            else:
                parts.append(shlex.quote(c.text) if c.text else "")
        return "".join(parts)

    def __repr__(self) -> str:
        return f"Word({self.shown!r})"


#: the positional parameters past the known ones, not known (in ``State.pos``, last): ``$#`` and
#: each ``$N`` from there on are unknown, ``"$@"`` an unknown splice
UNKNOWN_ARGS = Word(unknown("$@", None, multi=True), None)


def words_text(words) -> list[str | None]:
    return [w.text for w in words]


class Opaque:
    """An environment value that is set but not known (``MODEL``): non-empty unless told otherwise."""

    __slots__ = ("nonempty",)

    def __init__(self, nonempty: bool = True):
        self.nonempty = nonempty

    def __repr__(self) -> str:
        return "Opaque()"


def file_key(path: str | None) -> str | None:
    """The name a file written by a script is kept under: ``./a.yaml``, ``a.yaml`` and
    ``dir//a.yaml/`` are one file."""
    if not path:
        return path
    key = posixpath.normpath(path)
    return "/" + key.lstrip("/") if key.startswith("//") else key


#: a sweep point's env holding this key (any value) evaluates in an *ambient* environment: a
#: script outside a benchmark repository that has master configs runs with whatever its caller
#: exports, so an upper-case variable it never sets reads as set to an unknown value — except
#: where the script gives a default (``${X:-d}``, ``${X-d}``, ``${X:=d}``, ``${X:+alt}``), which
#: then applies (the script's own default is what it runs with when nothing is exported)
AMBIENT = "\0ambient"
#: the names an ambient environment may hold (environment variables are upper case by
#: convention; an unset lower-case name stays unset: `--port=$port` is a typo worth finding)
ENV_NAME = re.compile(r"[A-Z_][A-Z0-9_]*")

#: a sweep point's env holding this key gives the script its positional parameters: a tuple of
#: texts (``render --arg``), or None for parameters not known (their number neither)
ARGV = "\0argv"
