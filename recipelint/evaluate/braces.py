"""Brace expansion: ``{a,b}`` and ``{1..8}`` sequences, as bash does before any other expansion."""

from __future__ import annotations

import re


def _comma_braces(kids) -> bool:
    """Whether the parts of a word hold `{`, an unquoted comma or a sequence, then `}` (`{a,b}`,
    `{08..10..2}`; `{"k":1}` is no brace expansion)."""
    inner = None
    for c in kids:
        t = c.text
        if c.type == "word" and t == "{":
            inner = []
        elif inner is not None and c.type == "word" and t == "}":
            if (
                any(k.type == "word" and "," in k.text.replace("\\,", "") for k in inner)
                or _brace_sequence("".join(k.text for k in inner)) is not None
            ):
                return True
            inner = None
        elif inner is not None:
            inner.append(c)
    return False


def brace_expand(text: str, limit: int) -> list[str] | None:
    """Bash's brace expansion of a literal word: `a{b,c}d` -> abd acd, `{1..3}`, `{a..c}`,
    `{08..10..2}`; None when it makes more than ``limit`` words."""
    depth, start, commas = 0, -1, []
    i = 0
    while i < len(text):
        ch = text[i]
        if ch == "\\":
            i += 2
            continue
        if ch == "{":
            if depth == 0:
                start, commas = i, []
            depth += 1
        elif ch == "}" and depth:
            depth -= 1
            if depth == 0:
                pre, body, post = text[:start], text[start + 1 : i], text[i + 1 :]
                if commas:
                    cuts = [start] + commas + [i]
                    alts = [text[a + 1 : b] for a, b in zip(cuts, cuts[1:])]
                else:
                    alts = _brace_sequence(body)
                    if alts == []:
                        return None
                    if alts is None:  # not a brace expansion: literal up to here, look further on
                        rest = brace_expand(post, limit)
                        return None if rest is None else [text[: i + 1] + r for r in rest]
                rest = brace_expand(post, limit)
                if rest is None or len(alts) * len(rest) > limit:
                    return None
                out: list[str] = []
                for a in alts:
                    heads = brace_expand(pre + a, limit)
                    if heads is None or len(out) + len(heads) * len(rest) > limit:
                        return None
                    out.extend(h + r for h in heads for r in rest)
                return out
        elif ch == "," and depth == 1:
            commas.append(i)
        i += 1
    return [text]


def _brace_sequence(body: str) -> list[str] | None:
    m = re.fullmatch(r"(-?\d+)\.\.(-?\d+)(?:\.\.(-?\d+))?|([A-Za-z])\.\.([A-Za-z])(?:\.\.(-?\d+))?", body)
    if m is None:
        return None
    if m.group(1) is not None:
        a, b = int(m.group(1)), int(m.group(2))
        step = abs(int(m.group(3) or 1)) or 1
        width = max(len(m.group(1)), len(m.group(2))) if re.match(r"-?0\d", m.group(1)) or re.match(r"-?0\d", m.group(2)) else 0
        nums = range(a, b + 1, step) if a <= b else range(a, b - 1, -step)
        if len(nums) > 100_000:  # more words than any limit: a brace expansion of unknown words
            return []
        return [str(n).zfill(width) if width else str(n) for n in nums]
    a, b = ord(m.group(4)), ord(m.group(5))
    step = abs(int(m.group(6) or 1)) or 1
    return [chr(c) for c in (range(a, b + 1, step) if a <= b else range(a, b - 1, -step))]
