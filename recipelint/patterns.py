"""Bash glob patterns (``case`` arms, ``[[ x == pat ]]``, ``${X%pat}``) as Python regexes.

A pattern is given as segments ``(text, quoted)``: quoted text matches literally.
"""

from __future__ import annotations

import functools
import re

_CLASSES = {
    "alnum": r"a-zA-Z0-9", "alpha": r"a-zA-Z", "digit": r"0-9", "lower": r"a-z", "upper": r"A-Z",
    "space": r"\s", "blank": r" \t", "punct": r"!-/:-@\[-`{-~", "xdigit": r"0-9a-fA-F",
    "word": r"\w", "print": r" -~", "graph": r"!-~", "cntrl": r"\x00-\x1f",
}


def glob_regex(segments: list[tuple[str, bool]]) -> str:
    return glob_parts(segments)[0]


def glob_parts(segments: list[tuple[str, bool]]) -> tuple[str, str | None]:
    """The pattern's regex, and the one text it matches when it has no wildcard (else None)."""
    out: list[str] = []
    lit: list = []  # the literal characters; None once a wildcard is met
    for text, quoted in segments:
        if quoted:
            out.append(re.escape(text))
            lit.append(text)
        else:
            out.append(_unquoted(text, lit))
    return "".join(out), (None if None in lit else "".join(lit))


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
                alts = "|".join(_unquoted(a) for a in _split_alts(p[i + 2 : j]))
                if c == "?":
                    out.append(f"(?:{alts})?")
                elif c == "*":
                    out.append(f"(?:{alts})*")
                elif c == "+":
                    out.append(f"(?:{alts})+")
                elif c == "@":
                    out.append(f"(?:{alts})")
                else:  # !(...)
                    out.append(f"(?:(?!(?:{alts})$).)*")
                lit.append(None)
                i = j + 1
                continue
        if c == "*":
            out.append(".*")
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


def glob_match(segments: list[tuple[str, bool]], text: str) -> bool:
    return compiled(glob_regex(segments)).fullmatch(text) is not None


#: a pattern with wildcards is matched at every position of the value, each try a regex match:
#: quadratic, so values longer than this are not followed (a literal pattern has no such limit)
MAX_WILDCARD_TEXT = 1024


def strip_pattern(text: str, segments: list[tuple[str, bool]], op: str) -> str | None:
    """``${X#p}`` ``${X##p}`` ``${X%p}`` ``${X%%p}``; None for a value too long to try a
    pattern with wildcards on (``MAX_WILDCARD_TEXT``)."""
    regex, lit = glob_parts(segments)
    if lit is not None:
        if op in ("#", "##"):
            return text[len(lit):] if text.startswith(lit) else text
        return text[: len(text) - len(lit)] if text.endswith(lit) else text
    if len(text) > MAX_WILDCARD_TEXT:
        return None
    rx = compiled(regex)
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
    a value too long to try a pattern with wildcards on (``MAX_WILDCARD_TEXT``)."""
    regex, lit = glob_parts(segments)
    if not regex:  # an empty pattern: anchored, it matches the empty start or end
        return repl + text if op == "/#" else text + repl if op == "/%" else text
    if lit is not None:
        if op == "//":
            return text.replace(lit, repl)
        if op == "/":
            return text.replace(lit, repl, 1)
        if op == "/#":
            return repl + text[len(lit):] if text.startswith(lit) else text
        return text[: len(text) - len(lit)] + repl if text.endswith(lit) else text
    if len(text) > MAX_WILDCARD_TEXT:
        return None
    if op == "/#":
        k = _longest_prefix(regex, text)
        return repl + text[k:] if k is not None else text
    if op == "/%":
        for k in range(0, len(text) + 1):
            if compiled(regex).fullmatch(text, k):
                return text[:k] + repl
        return text
    out = []
    i = 0
    n = len(text)
    done = False
    while i <= n:
        if done:
            out.append(text[i:])
            break
        end = None
        rx = compiled(regex)
        for k in range(n, i - 1, -1):
            if rx.fullmatch(text, i, k):
                end = k
                break
        if end is not None and end > i:
            out.append(repl)
            i = end
            if op == "/":
                done = True
            continue
        if i < n:
            out.append(text[i])
        i += 1
    return "".join(out)


def _longest_prefix(regex: str, text: str) -> int | None:
    rx = compiled(regex)
    for k in range(len(text), -1, -1):
        if rx.fullmatch(text, 0, k):
            return k
    return None
