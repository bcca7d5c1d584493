"""Bash arithmetic (``$(( ))``, ``(( ))``, ``let``, ``for (( ))``) over 64-bit integers.

As bash does, expansions inside the expression are done first and the resulting text is
parsed here.  Unknown parts become the identifier :data:`UNKNOWN_NAME`, whose value is
unknown (``None``); unknown propagates through every operator except the short-circuit ones
when the left side decides the result.
"""

from __future__ import annotations

import re
from collections.abc import Callable

_INT = re.compile(r"-?(?:0|[1-9][0-9]*)")  # a decimal integer (a value `010` is octal, as a constant)

UNKNOWN_NAME = "__rl_unknown__"

_MASK = (1 << 64) - 1


def _wrap(v: int) -> int:
    v &= _MASK
    return v - (1 << 64) if v >> 63 else v


class ArithError(Exception):
    pass


_TOKEN = re.compile(
    r"\s*(?:"
    r"(?P<num>0[xX][0-9a-fA-F]+|[0-9]+#[0-9a-zA-Z@_]+|[0-9]+)"
    r"|(?P<name>[A-Za-z_][A-Za-z0-9_]*)"
    r"|(?P<op><<=|>>=|\*\*|<<|>>|<=|>=|==|!=|&&|\|\||\+\+|--|[-+*/%&^|]=|[-+*/%<>=!~&^|?:,()\[\]])"
    r")"
)

# binary operators: precedence (higher binds tighter), right-assoc?
_BINARY = {
    ",": (1, False),
    "=": (2, True),
    "+=": (2, True),
    "-=": (2, True),
    "*=": (2, True),
    "/=": (2, True),
    "%=": (2, True),
    "<<=": (2, True),
    ">>=": (2, True),
    "&=": (2, True),
    "^=": (2, True),
    "|=": (2, True),
    "?": (3, True),
    "||": (4, False),
    "&&": (5, False),
    "|": (6, False),
    "^": (7, False),
    "&": (8, False),
    "==": (9, False),
    "!=": (9, False),
    "<": (10, False),
    ">": (10, False),
    "<=": (10, False),
    ">=": (10, False),
    "<<": (11, False),
    ">>": (11, False),
    "+": (12, False),
    "-": (12, False),
    "*": (13, False),
    "/": (13, False),
    "%": (13, False),
    "**": (15, True),
}
_ASSIGN = {"=", "+=", "-=", "*=", "/=", "%=", "<<=", ">>=", "&=", "^=", "|="}  # (bash has no `**=`)


def _tokenize(text: str) -> list[tuple[str, str]]:
    toks = []
    pos = 0
    n = len(text)
    while pos < n:
        if text[pos:].strip() == "":
            break
        m = _TOKEN.match(text, pos)
        if not m or m.end() == pos:
            raise ArithError(f"syntax error in expression (error token is \"{text[pos:].strip()[:20]}\")")
        pos = m.end()
        for kind in ("num", "name", "op"):
            v = m.group(kind)
            if v is not None:
                if (
                    (v == "++" or v == "--")
                    and not (toks and (toks[-1][0] == "name" or toks[-1] == ("op", "]")))
                    and not _NAME_AHEAD.match(text, pos)
                ):
                    # bash: `++`/`--` neither after a variable nor before one are two unary
                    # operators (`++64`, `1+++2`; `$A+$B+1` with A and B empty)
                    v = v[0]
                    pos -= 1
                toks.append((kind, v))
                break
    return toks


_NAME_AHEAD = re.compile(r"\s*[A-Za-z_]")


def _parse_number(tok: str) -> int:
    if tok.lower().startswith("0x"):
        return int(tok, 16)
    if "#" in tok:
        base_s, digits = tok.split("#", 1)
        base = int(base_s)
        if not 2 <= base <= 64:
            raise ArithError(f"invalid arithmetic base: {base}")
        val = 0
        for ch in digits:
            if ch.isdigit():
                d = int(ch)
            elif base <= 36:
                d = int(ch, 36)
            elif ch.islower():
                d = ord(ch) - ord("a") + 10
            elif ch.isupper():
                d = ord(ch) - ord("A") + 36
            elif ch == "@":
                d = 62
            else:
                d = 63
            if d >= base:
                raise ArithError(f"value too great for base (error token is \"{tok}\")")
            val = val * base + d
        return val
    if len(tok) > 1 and tok.startswith("0"):
        try:
            return int(tok, 8)
        except ValueError:
            raise ArithError(f"value too great for base (error token is \"{tok}\")") from None
    return int(tok)


def _as_int(v):
    return v


class _Ref:
    """An lvalue: a variable name, optionally with a subscript."""

    __slots__ = ("name", "index")

    def __init__(self, name: str, index: int | None):
        self.name = name
        self.index = index


class ArithEnv:
    """Callbacks into the evaluator: read a variable's text, assign an integer."""

    def __init__(self, get: Callable[[str, int | None], str | None], set_: Callable[[str, int | None, int | None], None] | None):
        self.get = get
        self.set = set_
        self.depth = 0
        #: divisions that dropped a remainder: (dividend, divisor)
        self.inexact: list[tuple[int, int]] = []


def evaluate(text: str, env: ArithEnv, rational: bool = False):
    """The expression's value (None if unknown).  With ``rational``, ``/`` is exact division
    (a Fraction) and nothing is assigned: used to tell whether bash's truncation changed the
    result."""
    toks = _tokenize(text)
    if not toks:
        return 0
    p = _Parser(toks, env)
    p.rational = rational
    if rational:
        p.skip += 1
    val = p.expr(0)
    if p.i != len(toks):
        raise ArithError(f"syntax error in expression (error token is \"{toks[p.i][1]}\")")
    return p.value(val)


class _Parser:
    def __init__(self, toks, env: ArithEnv):
        self.toks = toks
        self.i = 0
        self.env = env
        self.skip = 0  # >0 while evaluating a branch that short-circuit skips (no side effects)
        self.rational = False

    def peek(self):
        return self.toks[self.i] if self.i < len(self.toks) else (None, None)

    def take(self):
        t = self.peek()
        self.i += 1
        return t

    def value(self, v) -> int | None:
        if isinstance(v, _Ref):
            return self.read(v)
        return v

    def read(self, ref: _Ref) -> int | None:
        if ref.name == UNKNOWN_NAME:
            return None
        text = self.env.get(ref.name, ref.index)
        if text is None:
            return None
        text = text.strip()
        if not text:
            return 0
        if _INT.fullmatch(text):
            return _wrap(int(text))
        if self.env.depth > 32:
            raise ArithError("expression recursion level exceeded")
        self.env.depth += 1
        try:
            return evaluate(text, self.env)
        finally:
            self.env.depth -= 1

    def assign(self, ref, val: int | None) -> int | None:
        if not isinstance(ref, _Ref) or ref.name == UNKNOWN_NAME:
            if isinstance(ref, _Ref):
                return None
            raise ArithError("attempted assignment to non-variable")
        if not self.skip and self.env.set is not None:
            self.env.set(ref.name, ref.index, val)
        return val

    def primary(self):
        kind, tok = self.take()
        if kind is None:
            raise ArithError("syntax error: operand expected")
        if kind == "num":
            return _wrap(_parse_number(tok))
        if kind == "name":
            index = None
            if self.peek() == ("op", "["):
                self.take()
                idx = self.value(self.expr(0))
                if self.take() != ("op", "]"):
                    raise ArithError("syntax error: ']' expected")
                index = idx if idx is not None else None
            ref = _Ref(tok, index)
            nxt = self.peek()
            if nxt in (("op", "++"), ("op", "--")):
                self.take()
                old = self.read(ref)
                new = None if old is None else _wrap(old + (1 if nxt[1] == "++" else -1))
                self.assign(ref, new)
                return old
            return ref
        if tok == "(":
            v = self.value(self.expr(0))
            if self.take() != ("op", ")"):
                raise ArithError("syntax error: ')' expected")
            return v
        if tok in ("+", "-", "!", "~"):
            v = self.value(self.primary())
            if v is None:
                return None
            if tok == "-":
                return _wrap(-v)
            if tok == "!":
                return int(not v)
            if tok == "~":
                return _wrap(~v)
            return v
        if tok in ("++", "--"):
            ref = self.primary()
            old = self.value(ref)
            new = None if old is None else _wrap(old + (1 if tok == "++" else -1))
            self.assign(ref, new)
            return new
        raise ArithError(f"syntax error: operand expected (error token is \"{tok}\")")

    def expr(self, min_prec: int):
        lhs = self.primary()
        while True:
            kind, tok = self.peek()
            if kind != "op" or tok not in _BINARY:
                return lhs
            prec, right = _BINARY[tok]
            if prec < min_prec:
                return lhs
            self.take()
            if tok in _ASSIGN:
                cur = self.value(lhs) if tok != "=" else None  # (bash reads `a` of `a += ...` first)
                rhs = self.value(self.expr(prec))
                if tok != "=":
                    rhs = self._binop(tok[:-1], cur, rhs)
                lhs = self.assign(lhs, rhs)
                continue
            if tok == "?":
                cond = self.value(lhs)
                if cond is None:
                    self.skip += 1
                    a = self.value(self.expr(0))
                    if self.take() != ("op", ":"):
                        raise ArithError("syntax error: ':' expected for conditional expression")
                    b = self.value(self.expr(prec))
                    self.skip -= 1
                    lhs = a if a == b else None
                    continue
                if not cond:
                    self.skip += 1
                a = self.value(self.expr(0))
                if not cond:
                    self.skip -= 1
                if self.take() != ("op", ":"):
                    raise ArithError("syntax error: ':' expected for conditional expression")
                if cond:
                    self.skip += 1
                b = self.value(self.expr(prec))
                if cond:
                    self.skip -= 1
                lhs = a if cond else b
                continue
            if tok in ("&&", "||"):
                left = self.value(lhs)
                short = (left == 0) if tok == "&&" else (left is not None and left != 0)
                if short:
                    self.skip += 1
                right_v = self.value(self.expr(prec + 1))
                if short:
                    self.skip -= 1
                    lhs = 0 if tok == "&&" else 1
                    continue
                if left is None or right_v is None:
                    if tok == "&&" and right_v == 0:
                        lhs = 0
                    elif tok == "||" and right_v not in (None, 0):
                        lhs = 1
                    else:
                        lhs = None
                    continue
                lhs = int(bool(right_v)) if tok == "&&" else int(bool(left) or bool(right_v))
                continue
            left = self.value(lhs)
            rhs = self.value(self.expr(prec if right else prec + 1))
            if tok == ",":
                lhs = rhs
                continue
            lhs = self._binop(tok, left, rhs)

    def _binop(self, op: str, a: int | None, b: int | None) -> int | None:
        if a is None or b is None:
            if op == "*" and (a == 0 or b == 0):
                return 0
            return None
        if self.rational:
            return self._rational(op, a, b)
        if op == "+":
            return _wrap(a + b)
        if op == "-":
            return _wrap(a - b)
        if op == "*":
            return _wrap(a * b)
        if op in ("/", "%"):
            if b == 0:
                if self.skip:
                    return None
                raise ArithError("division by 0")
            q = abs(a) // abs(b)
            if (a < 0) != (b < 0):
                q = -q
            if op == "/" and a % b and not self.skip:
                self.env.inexact.append((a, b))
            return _wrap(q) if op == "/" else _wrap(a - q * b)
        if op == "**":
            if b < 0:
                raise ArithError("exponent less than 0")
            if abs(a) > 1 and b > 64:
                return _wrap(pow(a, b, 1 << 64))
            return _wrap(a**b)
        if op == "<<":
            return _wrap(a << (b & 63))
        if op == ">>":
            return a >> (b & 63)
        if op == "&":
            return a & b
        if op == "|":
            return a | b
        if op == "^":
            return a ^ b
        if op == "==":
            return int(a == b)
        if op == "!=":
            return int(a != b)
        if op == "<":
            return int(a < b)
        if op == ">":
            return int(a > b)
        if op == "<=":
            return int(a <= b)
        if op == ">=":
            return int(a >= b)
        raise ArithError(f"unknown operator {op}")

    def _rational(self, op, a, b):
        from fractions import Fraction

        if op == "/":
            if b == 0:
                raise ArithError("division by 0")
            return Fraction(a) / b
        if op in ("+", "-", "*"):
            r = a + b if op == "+" else a - b if op == "-" else a * b
            if not -(2**63) <= r < 2**63:
                raise ArithError("not exact")  # (bash's 64 bits wrap: no truncation to tell)
            return r
        if op in ("==", "!=", "<", ">", "<=", ">="):
            return int({"==": a == b, "!=": a != b, "<": a < b, ">": a > b, "<=": a <= b, ">=": a >= b}[op])
        if op == "%" and isinstance(a, int) and isinstance(b, int) and b:
            q = abs(a) // abs(b)  # (truncated toward zero, in integers: `a / b` overflows a float)
            return a - (q if (a < 0) == (b < 0) else -q) * b
        raise ArithError("not exact")
