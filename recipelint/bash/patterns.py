"""Bash glob patterns (``case`` arms, ``[[ x == pat ]]``, ``${X%pat}``) as Python regexes, and
how long a value a regex may be tried on.

A pattern is given as segments ``(text, quoted)``: quoted text matches literally.

A plain glob (``*``, ``?``, ``[...]``, literals) is matched in time linear in the value: its
stars become atomic lazy groups (``a*b*c`` is ``a(?>.*?b).*c``), which commit each block
between two stars to its earliest place — where a plain glob always has a match if it has one.
An extended glob (``*(a|aa)``) or a ``=~`` regex would backtrack exponentially in Python's
``re`` (``(a+)+$``, ``^a?a?…aa…a$``): they are matched with RE2 (``linear``), in time linear in
the value whatever the pattern.  What RE2 does not take (a backreference, a lookaround — the
``!(p)`` of an extended glob is one) gives no answer for ``=~`` (the condition is unknown); an
extended glob with ``!(p)`` is matched by ``re`` on values short enough for its backtracking
(``try_limit``, which counts every repetition, optional and alternative), else unknown.
"""

from __future__ import annotations

import functools
import math
import re

import re2

_CLASSES = {
    "alnum": r"a-zA-Z0-9",
    "alpha": r"a-zA-Z",
    "digit": r"0-9",
    "lower": r"a-z",
    "upper": r"A-Z",
    "space": r"\s",
    "blank": r" \t",
    "punct": r"!-/:-@\[-`{-~",
    "xdigit": r"0-9a-fA-F",
    "word": r"\w",
    "print": r" -~",
    "graph": r"!-~",
    "cntrl": r"\x00-\x1f",
}


_STAR = "\x00*"  # a top-level `*` in the pieces `_unquoted` makes (a regex never holds a NUL)
_EXT = "\x00("  # ... a mark that the pattern has an extended glob
_NEG = "\x00!"  # ... the end of a `!(...)`


def glob_parts(segments) -> tuple[str | None, str | None, bool]:
    """The pattern's regex (None for one not followed: `!(p)` with more pattern after it), the
    one text it matches when it has no wildcard (else None), and whether it is a plain glob
    (matched in linear time; an extended one is tried on values ``try_limit`` allows)."""
    return _glob_parts(tuple(segments))


@functools.lru_cache(maxsize=4096)
def _glob_parts(segments: tuple) -> tuple[str | None, str | None, bool]:
    out: list[str] = []
    lit: list = []  # the literal characters; None once a wildcard is met
    for text, quoted in segments:
        if quoted:
            out.append(re.escape(text))
            lit.append(text)
        else:
            out.append(_unquoted(text, lit))
    pieces = "".join(out)
    if _EXT in pieces:  # extended: stars as they are, tried on short values only
        regex = pieces.replace(_EXT, "").replace(_STAR, ".*")
        # `!(p)` is "anything up to the end that is not p": with more after it, not followed
        # (nor in `${V%p}` and `${V/p/r}`, see `_tried`)
        if regex.count(_NEG) > 1 or (_NEG in regex and not regex.endswith(_NEG)):
            return None, None, False
        return regex.replace(_NEG, ""), None, False
    blocks = pieces.split(_STAR)
    if len(blocks) > 1:
        pieces = blocks[0] + "".join(f"(?>.*?{b})" for b in blocks[1:-1]) + ".*" + blocks[-1]
    return pieces, (None if None in lit else "".join(lit)), True


#: the most (roughly) a regex may try when matched once: 10**6 steps of the regex engine
_BUDGET = 6
_TOKEN = re.compile(r"\\.|\[\^?\]?(?:\[:\w+:\]|\\.|[^\]])*\]|\((?:\?[:>=!]|\?<[=!])?|[*+?]\??|\{\d*,?\d*\}\??|[)|]")
_COUNT = re.compile(r"\{(\d*)(,?)(\d*)\}\??")


@functools.lru_cache(maxsize=4096)
def try_limit(regex: str, extra: int = 0) -> int | None:
    """The longest value ``regex`` may be tried on by a backtracking engine (None: any; -1:
    none).  Every form of backtracking counts: with k unbounded repetitions a match may take
    about n**k steps; each optional (``?``, ``{0,m}``) or alternative doubles them whatever n
    (``^a?a?…a?aa…a$``: 2**28 for 28 of each), a fixed count ``{m}`` repeats its group's
    choices m times; a repetition of a group that repeats or alternates (``(a+)+``,
    ``(a|aa)*``) or a backreference takes about 2**n.  ``extra``: the regex is tried at about
    n**extra places (1 for a search)."""
    # per open group: [choice bits, unbounded repetitions, whether it repeats or alternates]
    stack: list[list] = [[0.0, 0, False]]
    nested = False
    last: list | None = None  # what a quantifier after this token repeats (a group's totals, or an atom)
    for m in _TOKEN.finditer(regex):
        t = m.group(0)
        c = t[0]
        if c == "(":
            stack.append([0.0, 0, False])
            last = None
            continue
        if c == ")":
            if len(stack) > 1:
                inner = stack.pop()
                top = stack[-1]
                top[0] += inner[0]
                top[1] += inner[1]
                top[2] = top[2] or inner[2]
                last = inner
            continue
        top = stack[-1]
        if c == "|":
            top[0] += 1
            top[2] = True
            last = None
            continue
        if c == "\\" and t[1:].isdigit():
            nested = True  # a backreference
        q = _COUNT.fullmatch(t)
        if c in "*+?" or q is not None:
            g = last or [0.0, 0, False]
            if q is not None:
                lo = int(q.group(1) or 0)
                hi = lo if not q.group(2) else (int(q.group(3)) if q.group(3) else None)
            else:
                lo, hi = (0 if c in "*?" else 1), (1 if c == "?" else None)
            if hi is None:  # unbounded
                top[1] += 1
                top[2] = True
                nested = nested or g[2]
            else:  # the group's choices and repetitions again for each copy, and the choice of how many
                copies = max(hi, 1) - 1
                top[0] += copies * g[0] + math.log2(hi - lo + 1)
                top[1] += copies * g[1]
                if hi > lo:
                    top[2] = True
            last = None
            continue
        last = None
    bits, k, _ = stack[0]
    k += extra
    room = _BUDGET * math.log2(10) - bits  # log2 of the steps left for what grows with n
    if nested:
        return max(-1, min(16, int(room)))
    if room < 0:
        return -1
    return None if k <= 1 and bits == 0 else int(2 ** (room / max(k, 1)))


def too_long(regex: str, text: str, extra: int = 0) -> bool:
    """Whether ``text`` is too long to try ``regex`` on by backtracking (``try_limit``)."""
    lim = try_limit(regex, extra)
    return lim is not None and len(text) > lim


@functools.lru_cache(maxsize=4096)
def linear(regex: str, longest: bool = False):
    """``regex`` compiled by RE2 (``.`` matches a newline; ``longest``: the leftmost-longest
    match, as POSIX's), matched in time linear in the value; None when RE2 does not take it (a
    backreference, a lookaround, an atomic group, a count above 1000, a syntax error)."""
    opts = re2.Options()
    opts.dot_nl = True
    opts.log_errors = False
    opts.longest_match = longest
    try:
        return re2.compile(regex, opts)
    except re2.error:
        return None


#: a match with RE2 is linear in the value, tried at n**places places: values up to this long
def _linear_limit(places: int) -> int:
    return int(10 ** (_BUDGET / (places + 1)))


def _unquoted(p: str, lit: list | None = None) -> str:
    """The regex of unquoted glob text; its literal characters are appended to ``lit`` (None for
    a wildcard)."""
    out = []
    i = 0
    n = len(p)
    if lit is None:
        lit = []
    while i < n:
        c = p[i]
        if c == "\\" and i + 1 < n:
            out.append(re.escape(p[i + 1]))
            lit.append(p[i + 1])
            i += 2
            continue
        if c in "?*+@!" and i + 1 < n and p[i + 1] == "(":
            depth = 0
            j = i + 1
            while j < n:
                if p[j] == "(":
                    depth += 1
                elif p[j] == ")":
                    depth -= 1
                    if depth == 0:
                        break
                j += 1
            if j < n:
                out.append(_EXT)
                alts = "|".join(_unquoted(a) for a in _split_alts(p[i + 2 : j])).replace(_STAR, ".*")
                if c == "?":
                    out.append(f"(?:{alts})?")
                elif c == "*":
                    out.append(f"(?:{alts})*")
                elif c == "+":
                    out.append(f"(?:{alts})+")
                elif c == "@":
                    out.append(f"(?:{alts})")
                else:  # !(...): right only at the end of the pattern (`_NEG`)
                    out.append(f"(?:(?!(?:{alts})$).)*{_NEG}")
                lit.append(None)
                i = j + 1
                continue
        if c == "*":
            out.append(_STAR)
            lit.append(None)
        elif c == "?":
            out.append(".")
            lit.append(None)
        elif c == "[":
            j = i + 1
            if j < n and p[j] in "!^":
                j += 1
            if j < n and p[j] == "]":
                j += 1
            while j < n and p[j] != "]":
                if p[j] == "[" and j + 1 < n and p[j + 1] == ":":
                    k = p.find(":]", j + 2)
                    j = k + 2 if k >= 0 else j + 1
                    continue
                j += 1
            if j >= n:
                out.append(re.escape(c))
                lit.append(c)
            else:
                lit.append(None)
                body = p[i + 1 : j]
                neg = body[:1] in ("!", "^")
                if neg:
                    body = body[1:]
                cls = []
                k = 0
                while k < len(body):
                    if body.startswith("[:", k):
                        e = body.find(":]", k)
                        if e > 0:
                            cls.append(_CLASSES.get(body[k + 2 : e], ""))
                            k = e + 2
                            continue
                    ch = body[k]
                    cls.append("\\" + ch if ch in "\\]^[" else ch)
                    k += 1
                out.append("[" + ("^" if neg else "") + "".join(cls) + "]")
                i = j + 1
                continue
        else:
            out.append(re.escape(c))
            lit.append(c)
        i += 1
    return "".join(out)


def _split_alts(s: str) -> list[str]:
    alts = []
    depth = 0
    cur = []
    for ch in s:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        if ch == "|" and depth == 0:
            alts.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    alts.append("".join(cur))
    return alts


@functools.lru_cache(maxsize=4096)
def compiled(regex: str) -> re.Pattern:
    return re.compile(regex, re.S)


def glob_match(segments: list[tuple[str, bool]], text: str) -> bool | None:
    """Whether the glob matches all of ``text``; None when it is too long to try on."""
    regex, _, plain = glob_parts(segments)
    if regex is None:
        return None
    if plain:
        return compiled(regex).fullmatch(text) is not None
    rx = linear(regex)
    if rx is None:  # (`!(p)`: a lookahead)
        if too_long(regex, text):
            return None
        rx = compiled(regex)
    return rx.fullmatch(text) is not None


#: a pattern with wildcards is matched at every position of the value, each try a regex match:
#: quadratic, so values longer than this are not followed (a literal pattern has no such limit)
MAX_WILDCARD_TEXT = 1024


def _tried(segments, text: str, places: int):
    """(compiled regex, literal, regex, plain) of a pattern tried at ``places`` (1 or 2: n or
    n**2) places of ``text``: the compiled regex is None when the text is too long to try it
    on, or the pattern holds a `!(p)` (bash's own rules inside a value: not followed)."""
    regex, lit, plain = glob_parts(segments)
    if lit is not None:
        return None, lit, regex, plain
    if regex is None or len(text) > MAX_WILDCARD_TEXT:
        return None, None, regex, plain
    if plain:
        return compiled(regex), None, regex, plain
    rx = linear(regex)
    if rx is None or len(text) > _linear_limit(places):
        return None, None, regex, plain
    return rx, None, regex, plain


def strip_pattern(text: str, segments: list[tuple[str, bool]], op: str) -> str | None:
    """``${X#p}`` ``${X##p}`` ``${X%p}`` ``${X%%p}``; None for a value too long to try a
    pattern with wildcards on (``MAX_WILDCARD_TEXT``, ``try_limit``)."""
    rx, lit, _, _ = _tried(segments, text, 1)
    if lit is not None:
        if op in ("#", "##"):
            return text[len(lit) :] if text.startswith(lit) else text
        return text[: len(text) - len(lit)] if text.endswith(lit) else text
    if rx is None:
        return None
    n = len(text)
    if op in ("#", "##"):
        rng = range(0, n + 1) if op == "#" else range(n, -1, -1)
        for k in rng:
            if rx.fullmatch(text, 0, k):
                return text[k:]
        return text
    rng = range(n, -1, -1) if op == "%" else range(0, n + 1)
    for k in rng:
        if rx.fullmatch(text, k, n):
            return text[:k]
    return text


def replace_pattern(text: str, segments: list[tuple[str, bool]], repl: str, op: str) -> str | None:
    """``${X/p/r}`` ``${X//p/r}`` ``${X/#p/r}`` ``${X/%p/r}`` (longest match, as bash); None for
    a value too long to try a pattern with wildcards on (``MAX_WILDCARD_TEXT``, ``try_limit``)."""
    rx, lit, regex, plain = _tried(segments, text, 2 if op in ("/", "//") else 1)
    if regex == "":  # an empty pattern: anchored, it matches the empty start or end
        return repl + text if op == "/#" else text + repl if op == "/%" else text
    if lit is not None:
        if op == "//":
            return text.replace(lit, repl)
        if op == "/":
            return text.replace(lit, repl, 1)
        if op == "/#":
            return repl + text[len(lit) :] if text.startswith(lit) else text
        return text[: len(text) - len(lit)] + repl if text.endswith(lit) else text
    if rx is None:
        return None
    n = len(text)
    if op == "/%":
        for k in range(0, n + 1):
            if rx.fullmatch(text, k):
                return text[:k] + repl
        return text
    if n == 0:  # bash: only a pattern that starts with a star matches an empty value here
        first = segments[0] if segments else ("", True)
        return repl if not first[1] and first[0].startswith("*") and rx.fullmatch(text) else text
    out = []
    i = 0
    while i < n:
        end = _longest(rx, plain, text, i)
        if end is not None:
            out.append(repl)
            if end == i:  # an empty match: the character after it is kept
                out.append(text[i])
                end += 1
            if op != "//":
                out.append(text[end:])
                break
            i = end
            continue
        if op == "/#":
            out.append(text)
            break
        out.append(text[i])
        i += 1
    return "".join(out)


def _longest(rx, plain: bool, text: str, i: int) -> int | None:
    """Where the longest match of the pattern at ``i`` ends (None: no match).  A plain glob's
    regex gives it in one match: its blocks between stars take their earliest places and the
    last star as much as it can."""
    if plain:
        m = rx.match(text, i)
        return m.end() if m else None
    for k in range(len(text), i - 1, -1):
        if rx.fullmatch(text, i, k):
            return k
    return None
