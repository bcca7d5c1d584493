"""JSON decoding that keeps the source location of every key and value.

Flag values such as ``--kv-transfer-config "$OFFLOAD_CONFIG"`` are strings made of chunks
(a heredoc's lines, an expanded ``${CPU_BYTES}``).  :func:`decode` parses the text and
maps each key and value back to the line it was written on.  An unknown chunk (a value the
evaluator could not compute) is decoded as an *unknown* JSON value rather than an error.
"""

from __future__ import annotations

import bisect
import json
from dataclasses import dataclass, field

from recipelint.bash.source import Loc
from recipelint.evaluate.values import Chunk, narrow

_UNK = "\ue000"


@dataclass(slots=True)
class JNode:
    kind: str  # object | array | string | number | bool | null | unknown
    value: object  # decoded Python value (None for unknown parts)
    start: int
    end: int
    loc: Loc | None
    raw: str = ""
    items: list[tuple[JNode, JNode]] = field(default_factory=list)  # object: (key, value)
    elements: list[JNode] = field(default_factory=list)  # array

    @property
    def known(self) -> bool:
        if self.kind == "unknown":
            return False
        if self.kind == "object":
            return all(k.known and v.known for k, v in self.items)
        if self.kind == "array":
            return all(e.known for e in self.elements)
        if self.kind == "string":
            return self.value is not None
        return True

    @property
    def integer(self) -> int | None:
        """A number's value as an integer (a float's truncated): None for anything else, for
        infinity and NaN (which ``json.loads`` reads), and past 64 bits (no size an engine
        reads is)."""
        v = self.value
        if self.kind != "number" or isinstance(v, bool) or not isinstance(v, (int, float)):
            return None
        if isinstance(v, float):
            if v != v or v in (float("inf"), float("-inf")):
                return None
            v = int(v)
        return v if -(2**63) <= v < 2**63 else None

    def get(self, key: str) -> JNode | None:
        """The value of ``key`` in an object (the last one, as json.loads keeps)."""
        found = None
        for k, v in self.items:
            if k.value == key:
                found = v
        return found

    def key_node(self, key: str) -> JNode | None:
        found = None
        for k, _ in self.items:
            if k.value == key:
                found = k
        return found

    def to_python(self):
        if self.kind == "object":
            return {k.value: v.to_python() for k, v in self.items}
        if self.kind == "array":
            return [e.to_python() for e in self.elements]
        if self.kind == "unknown":
            return None
        return self.value


@dataclass(slots=True)
class JsonError:
    message: str
    loc: Loc | None
    offset: int


class _Map:
    def __init__(self, chunks):
        self.starts = []
        self.chunks = []
        parts = []
        pos = 0
        for c in chunks:
            t = c.text if c.text is not None else _UNK
            self.starts.append(pos)
            self.chunks.append(c)
            parts.append(t)
            pos += len(t)
        self.text = "".join(parts)

    def loc(self, i: int, j: int) -> Loc | None:
        if not self.chunks:
            return None
        k = max(0, bisect.bisect_right(self.starts, i) - 1)
        c: Chunk = self.chunks[k]
        if c.text is None:
            return c.loc
        a = i - self.starts[k]
        b = min(j - self.starts[k], len(c.text))
        return narrow(c.loc, c.text, a, max(a, b))


def decode(chunks) -> JNode | JsonError:
    m = _Map(chunks)
    p = _Parser(m)
    try:
        p.ws()
        node = p.value()
        p.ws()
        if p.i != len(m.text):
            raise _Err("extra data after the JSON value", p.i)
        return node
    except _Err as e:
        off = min(e.offset, max(0, len(m.text) - 1))
        line_txt = m.text[:off]
        line = line_txt.count("\n") + 1
        col = off - (line_txt.rfind("\n") + 1) + 1
        return JsonError(f"{e.message} (line {line} column {col} of the value)", m.loc(off, off + 1), off)


class _Err(Exception):
    def __init__(self, message, offset):
        self.message = message
        self.offset = offset


class _Parser:
    def __init__(self, m: _Map):
        self.m = m
        self.t = m.text
        self.i = 0

    def ws(self):
        t = self.t
        n = len(t)
        while self.i < n and t[self.i] in " \t\r\n":
            self.i += 1

    def node(self, kind, value, start, raw=""):
        return JNode(kind, value, start, self.i, self.m.loc(start, self.i), raw)

    def value(self) -> JNode:
        t = self.t
        if self.i >= len(t):
            raise _Err("expecting a value", self.i)
        ch = t[self.i]
        start = self.i
        if ch == "{":
            return self.obj()
        if ch == "[":
            return self.arr()
        if ch == '"':
            return self.string()
        if ch == _UNK:
            # an unknown piece, possibly glued to digits: `${N}000`
            self.i += 1
            while self.i < len(t) and (t[self.i] == _UNK or t[self.i].isalnum() or t[self.i] in ".-+"):
                self.i += 1
            return self.node("unknown", None, start, t[start : self.i])
        if t.startswith("true", start):
            self.i += 4
            return self.node("bool", True, start, "true")
        if t.startswith("false", start):
            self.i += 5
            return self.node("bool", False, start, "false")
        if t.startswith("null", start):
            self.i += 4
            return self.node("null", None, start, "null")
        if ch == "-" or ch.isdigit():
            j = self.i
            if t[j] == "-":
                j += 1
            while j < len(t) and (t[j].isdigit() or t[j] in ".eE+-"):
                j += 1
            raw = t[self.i : j]
            if _UNK in t[j : j + 1]:
                self.i = j
                while self.i < len(t) and (t[self.i] == _UNK or t[self.i].isalnum()):
                    self.i += 1
                return self.node("unknown", None, start, t[start : self.i])
            try:
                val = json.loads(raw)
            except ValueError:
                raise _Err(f"invalid number '{raw}'", start) from None
            self.i = j
            return self.node("number", val, start, raw)
        word = t[start : start + 12].split()[0] if t[start:].strip() else ch
        raise _Err(f"expecting a value, found '{word[:12]}'", start)

    def string(self) -> JNode:
        t = self.t
        start = self.i
        self.i += 1
        out = []
        unknown = False
        while True:
            if self.i >= len(t):
                raise _Err("unterminated string", start)
            ch = t[self.i]
            if ch == '"':
                self.i += 1
                break
            if ch == "\\":
                nx = t[self.i + 1 : self.i + 2]
                if nx == "u":
                    hexd = t[self.i + 2 : self.i + 6]
                    try:
                        out.append(chr(int(hexd, 16)))
                    except ValueError:
                        raise _Err("invalid \\u escape", self.i) from None
                    self.i += 6
                    continue
                esc = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}.get(nx)
                if esc is None:
                    raise _Err(f"invalid escape '\\{nx}'", self.i)
                out.append(esc)
                self.i += 2
                continue
            if ch == _UNK:
                unknown = True
            elif ch < " ":
                raise _Err("control character inside a string", self.i)
            out.append(ch)
            self.i += 1
        s = "".join(out)
        return self.node("string", None if unknown else s, start, s)

    def obj(self) -> JNode:
        t = self.t
        start = self.i
        self.i += 1
        items = []
        self.ws()
        if self.i < len(t) and t[self.i] == "}":
            self.i += 1
            n = self.node("object", None, start)
            return n
        while True:
            self.ws()
            if self.i >= len(t):
                raise _Err("unterminated object", start)
            if t[self.i] != '"':
                if t[self.i] == "}":
                    raise _Err("trailing comma before '}'", self.i)
                raise _Err("expecting a property name in double quotes", self.i)
            key = self.string()
            self.ws()
            if self.i >= len(t) or t[self.i] != ":":
                raise _Err("expecting ':' after a property name", self.i)
            self.i += 1
            self.ws()
            val = self.value()
            items.append((key, val))
            self.ws()
            if self.i >= len(t):
                raise _Err("unterminated object", start)
            if t[self.i] == ",":
                self.i += 1
                continue
            if t[self.i] == "}":
                self.i += 1
                break
            raise _Err("expecting ',' or '}'", self.i)
        n = self.node("object", None, start)
        n.items = items
        return n

    def arr(self) -> JNode:
        t = self.t
        start = self.i
        self.i += 1
        elems = []
        self.ws()
        if self.i < len(t) and t[self.i] == "]":
            self.i += 1
            return self.node("array", None, start)
        while True:
            self.ws()
            elems.append(self.value())
            self.ws()
            if self.i >= len(t):
                raise _Err("unterminated array", start)
            if t[self.i] == ",":
                self.i += 1
                self.ws()
                if self.i < len(t) and t[self.i] == "]":
                    raise _Err("trailing comma before ']'", self.i)
                continue
            if t[self.i] == "]":
                self.i += 1
                break
            raise _Err("expecting ',' or ']'", self.i)
        n = self.node("array", None, start)
        n.elements = elems
        return n
