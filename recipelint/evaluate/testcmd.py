"""The `test` / `[` builtin: its arguments read as bash's test does (POSIX rules by argument
count, then `-a`/`-o`/`!`/parentheses), unary and binary operators."""

from __future__ import annotations

import re

from recipelint.evaluate.state import _CmdError, _ExpansionError
from recipelint.evaluate.support import _NAME_SUB
from recipelint.evaluate.values import emptiness, file_key, text_of
from recipelint.evaluate.variables import Kind


def _unary_test(op, val, st, ev):
    if op == "-n":
        e = emptiness(val)
        return None if e is None else not e
    if op == "-z":
        return emptiness(val)
    if op == "-v":
        t = text_of(val)
        if t is None:
            return None
        m = _NAME_SUB.fullmatch(t)
        if not m:
            return False
        var = st.lookup(m.group(1))
        sub = m.group(2)
        if sub is None or var is None:
            return var is not None
        # an element: `-v A[1]`, `-v M[key]`, `-v A[@]` (any element; of an associative array,
        # the key `@`)
        if var.kind == Kind.UNKNOWN_ARRAY:
            return None
        if var.kind == Kind.ASSOC:
            return sub in var.value
        if sub in ("@", "*"):
            return bool(var.value) if var.kind == Kind.INDEXED else True
        try:
            i = ev.arith_eval_text(sub, st, None)
        except _CmdError:
            return None
        if i is None:
            return None
        if var.kind == Kind.SCALAR:
            return i in (0, -1)
        if i < 0:
            i += max(var.value) + 1 if var.value else 0
        return i in var.value
    if op in ("-f", "-e", "-s", "-r", "-a"):
        t = file_key(text_of(val))
        if t is not None and t in st.files:
            if op == "-s":
                e = emptiness(st.files[t])
                return None if e is None else not e
            return True
        if t is not None and op in ("-f", "-e") and ev.file_exists is not None:
            return ev.file_exists(t)  # (a relative path answered from the checked tree, else None)
        return None
    if op in ("-o",):
        return None
    return None


#: an integer operand of `[`/`test` (bash's legal_number)
_TEST_INT = re.compile(r"[ \t\n]*([-+]?[0-9]+)[ \t\n]*")


def _binary_test(op, lval, rval, st, ev, loc, arith: bool = False):
    lt, rt = text_of(lval), text_of(rval)
    if op in ("=", "=="):
        return None if lt is None or rt is None else lt == rt
    if op == "!=":
        return None if lt is None or rt is None else lt != rt
    if op in ("<", ">"):
        if lt is None or rt is None:
            return None
        return lt < rt if op == "<" else lt > rt
    if op in ("-eq", "-ne", "-lt", "-le", "-gt", "-ge"):
        if lt is None or rt is None:
            return None
        if arith:  # `[[ ]]`: each side an arithmetic expression; an error in one makes the comparison false
            try:
                a = ev.arith_eval_text(lt or "0", st, loc)
                b = ev.arith_eval_text(rt or "0", st, loc)
            except _ExpansionError:
                raise
            except _CmdError as e:  # (`[[ ! "a b" -eq 1 ]]` is true; `... || 1 -eq 1` goes on)
                st.notes.append((e.loc or loc, e.reason))
                return False
            if a is None or b is None:
                return None
        else:  # `[` and `test`: decimal integers (`[ 010 -eq 10 ]`), blanks around allowed
            a, b = _TEST_INT.fullmatch(lt), _TEST_INT.fullmatch(rt)
            if a is None or b is None:
                raise _CmdError(loc, f"{rt if a else lt}: integer expression expected")
            a, b = int(a.group(1)), int(b.group(1))
        return {"-eq": a == b, "-ne": a != b, "-lt": a < b, "-le": a <= b, "-gt": a > b, "-ge": a >= b}[op]
    return None


_TEST_BINARY = frozenset({"=", "==", "!=", "<", ">", "-eq", "-ne", "-lt", "-le", "-gt", "-ge", "-nt", "-ot", "-ef"})


_TEST_UNARY = frozenset(
    {
        "-a",
        "-b",
        "-c",
        "-d",
        "-e",
        "-f",
        "-g",
        "-h",
        "-k",
        "-p",
        "-r",
        "-s",
        "-t",
        "-u",
        "-w",
        "-x",
        "-G",
        "-L",
        "-N",
        "-O",
        "-S",
        "-n",
        "-z",
        "-o",
        "-v",
        "-R",
    }
)


class _TestShape(Exception):
    """A `test` whose structure depends on an argument not known (or that bash rejects)."""


def _test_argv(args, st, ev):
    """``test`` / ``[`` over expanded arguments (Strs), as bash decides: by the number of
    arguments up to four (POSIX), by its expression grammar beyond (``-o`` below ``-a`` below
    ``!``).  True, False or None (not known)."""
    n = len(args)
    texts = [text_of(a) for a in args]
    try:
        if n <= 4:
            return _test_posix(args, texts, st, ev)
        v, i = _test_or(args, texts, 0, st, ev)
        if i != n:
            raise _TestShape
        return v
    except _TestShape:
        if None not in texts:  # every word known: bash rejects the expression (status 2)
            raise _CmdError(None, "test: syntax error") from None
        return None


def _test_one(arg):
    e = emptiness(arg)
    return None if e is None else not e


def _test_posix(args, texts, st, ev):
    n = len(args)
    if n == 0:
        return False
    if n == 1:
        return _test_one(args[0])
    if n == 2:
        if texts[0] == "!":
            return _not(_test_one(args[1]))
        if texts[0] in _TEST_UNARY:
            return _unary_test(texts[0], args[1], st, ev)
        if texts[0] is not None:
            raise _CmdError(None, f"{texts[0]}: unary operator expected")
        raise _TestShape
    if n == 3:
        if texts[1] in _TEST_BINARY:
            return _binary_test(texts[1], args[0], args[2], st, ev, None)
        if texts[1] in ("-a", "-o"):
            return _and_or(texts[1], _test_one(args[0]), _test_one(args[2]))
        if texts[0] == "!":
            return _not(_test_posix(args[1:], texts[1:], st, ev))
        if texts[0] == "(" and texts[2] == ")":
            return _test_one(args[1])
        if texts[0] is not None and texts[1] is not None:
            raise _CmdError(None, f"{texts[1]}: binary operator expected")
        raise _TestShape
    if texts[0] == "!":
        return _not(_test_posix(args[1:], texts[1:], st, ev))
    if texts[0] == "(" and texts[3] == ")":
        return _test_posix(args[1:3], texts[1:3], st, ev)
    v, i = _test_or(args, texts, 0, st, ev)
    if i != n:
        raise _TestShape
    return v


def _test_or(args, texts, i, st, ev, op="-o"):
    """Tests joined by ``op`` from argument ``i``: `-o` joins chains of `-a`, `-a` joins terms.
    Returns the value and the index after the last argument used."""

    def part(j):
        return _test_or(args, texts, j, st, ev, "-a") if op == "-o" else _test_term(args, texts, j, st, ev)

    v, i = part(i)
    while i < len(args) and texts[i] == op:
        w, i = part(i + 1)
        v = _and_or(op, v, w)
    return v, i


def _test_term(args, texts, i, st, ev):
    n = len(args)
    if i >= n:
        raise _TestShape
    t = texts[i]
    if t is None:
        if i + 1 < n and texts[i + 1] is None:
            raise _TestShape
    elif t == "!":
        v, i = _test_term(args, texts, i + 1, st, ev)
        return _not(v), i
    elif t == "(":
        v, i = _test_or(args, texts, i + 1, st, ev)
        if i >= n or texts[i] != ")":
            raise _TestShape
        return v, i + 1
    if i + 2 < n and texts[i + 1] in _TEST_BINARY:
        return _binary_test(texts[i + 1], args[i], args[i + 2], st, ev, None), i + 3
    if i + 1 < n and texts[i + 1] is None:
        raise _TestShape  # (an operator, or the next test's first word)
    if t is not None and t in _TEST_UNARY and i + 1 < n:
        return _unary_test(t, args[i + 1], st, ev), i + 2
    if t is None:
        raise _TestShape
    return _test_one(args[i]), i + 1


def _not(v):
    return None if v is None else not v


def _and_or(op, a, b):
    if op == "-a":
        if a is False or b is False:
            return False
        return None if a is None or b is None else True
    if a is True or b is True:
        return True
    return None if a is None or b is None else False


_TEST_TREES = frozenset({"unary_expression", "binary_expression", "parenthesized_expression"})


def _test_leaves(kids) -> list:
    """The words of a `[ ]` expression tree, in order (operators included)."""
    out = []
    stack = list(reversed(kids))
    while stack:
        n = stack.pop()
        if n.type in _TEST_TREES:
            stack.extend(reversed(n.children))
        else:
            out.append(n)
    return out


def _posix_ere(rx: str) -> str:
    for k, v in {
        "[:digit:]": "0-9",
        "[:alpha:]": "a-zA-Z",
        "[:alnum:]": "a-zA-Z0-9",
        "[:space:]": r"\s",
        "[:upper:]": "A-Z",
        "[:lower:]": "a-z",
        "[:xdigit:]": "0-9a-fA-F",
    }.items():
        rx = rx.replace(k, v)
    return rx
