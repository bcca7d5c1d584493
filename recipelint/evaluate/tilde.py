"""Tilde expansion: where a ``~`` starts a tilde-prefix (a word's start, after ``=`` or ``:`` in
an assignment's value or an argument of an assignment's form), and what it becomes."""

from __future__ import annotations

import re

#: tilde expansion: at a word's start (``_TILDE_WORD``); also after the `=` of an argument that
#: has an assignment's form (``_TILDE_ASSIGN_LIKE``: `echo x=~/a`, not in an array's elements);
#: at an assignment's value's start and after each unquoted `:` (``_TILDE_ASSIGN``: `P=~/a:~/b`)
_TILDE_WORD, _TILDE_ASSIGN_LIKE, _TILDE_ASSIGN = 1, 2, 3


_TILDE_NAMES = {"": "HOME", "+": "PWD", "-": "OLDPWD"}


_LOGIN_NAME = re.compile(r"[A-Za-z0-9._][A-Za-z0-9._-]*\$?")


_ASSIGNMENT_FORM = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\[[^\]]*\])?\+?=")


_TILDE_BRACED = re.compile(r"~([^/:]*)(?=[/:]|$)")


def _tilde_spans(node, mode: int) -> dict | None:
    """The tilde-prefixes bash expands in a word (``mode``: see ``_TILDE_WORD``), as
    {index of a literal part: ((start, end, login), ...)} with offsets in that part's text (a
    login of None: the part's rest is unknown); None for none.

    As bash finds them: in an assignment's value a prefix ends at a `/` or `:`; at the start of
    any other word its login name ends there too, but it is not expanded when an escape or a
    quote comes before the word's first `/` (`~:"a b"`, `~:\\a`); a prefix that runs on into an
    expansion (`~$U`) names no user.  (`~:$U` is bash's home directory followed by the text
    `:$U`: unknown here.)"""
    parts = node.children if node.type == "concatenation" else (node,)
    if node.type not in ("word", "concatenation", "regex") or not parts:
        return None
    plan = {}
    last = len(parts) - 1
    value_at = None  # where the value of an argument of an assignment's form starts
    value_part = 0  # (in which part: `A[$i]=~/z` is parts `A`, `[`, `$i`, `]=~/z`)
    if mode == _TILDE_ASSIGN_LIKE and parts[0].text[:1] != "~":
        m = _ASSIGNMENT_FORM.match(node.text) if parts[0].type == "word" else None
        if m is None:
            return None
        at = 0  # (in texts: a word's text leaves out the backslash-newlines inside it)
        for k, c in enumerate(parts):
            if at <= m.end() < at + len(c.text):
                # (a value starting with an expansion, `x=$X:~`, has no `~` at its start; a `:~`
                # after it still counts)
                value_part, value_at = k, (m.end() - at if c.type == "word" else None)
                break
            at += len(c.text)
        mode = _TILDE_ASSIGN
        # bash expands `=~` inside such an argument's prefix too, keeping the rest as written
        # (`x=~a=~` is `x=~a=` and the home directory): unknown here
        rest = node.text[m.end() :]
        if rest[:1] == "~" and "=~" in re.split(r"[/:]", rest, maxsplit=1)[0]:
            return {"unknown": True}
    for k, c in enumerate(parts):
        if c.type not in ("word", "regex") or "~" not in c.text:  # (a pattern: `${X#~/}`)
            continue
        text = c.text
        starts = []  # (offset, whether the word-start rule applies)
        if k == 0 and text[0] == "~":
            starts.append((0, mode != _TILDE_ASSIGN))
        elif k == value_part and value_at is not None:
            starts.append((value_at, False))
        if mode == _TILDE_ASSIGN:  # (in a subscript too: `A[x:~/y]=a`)
            i = 0
            while i < len(text) - 1:  # `~` after an unquoted `:`
                ch = text[i]
                if ch == "\\":
                    i += 2
                    continue
                if ch == ":" and text[i + 1] == "~":
                    starts.append((i + 1, False))
                i += 1
        elif k > 0:
            break
        spans = []
        for i, word_start in sorted(set(starts)):
            if i >= len(text) or text[i] != "~":
                continue
            j = i + 1
            while j < len(text) and text[j] not in "/:":
                j += 1
            login = text[i + 1 : j]
            if word_start:
                slash = text.find("/", i)
                if any(q in text[i : slash if slash >= 0 else len(text)] for q in "\\'\""):
                    continue  # an escape (a quote: a pattern's text) before the first `/`
                if slash < 0 and k < last:  # on into the next parts, up to the word's first `/`
                    through = _tilde_through(node, text, login, j)
                    if through is None:
                        continue
                    plan["through"] = through
                    spans.append((i, len(text), login))
                    continue
            elif "\\" in login or (j == len(text) and k < last):
                continue  # quoted, or running on into the next part
            if login not in _TILDE_NAMES and not _LOGIN_NAME.fullmatch(login):
                continue  # no user's name (`~a=b`): as it is written
            spans.append((i, j, login))
        if spans:
            plan[k] = tuple(spans)
    return plan or None


def _tilde_through(node, text: str, login: str, j: int):
    """A tilde-prefix at a word's start whose first part (``text``) holds no `/`: bash takes the
    word's text up to its first `/` (quotes and escapes there: no expansion), expands the `~login`
    before its first `:` and keeps the rest of that text as it is written — `~:$U/x` is the
    home directory, `:$U` and `/x`.  Returns (the written text kept, the byte offset where the
    word goes on), or None for no expansion (a login name running on into the next part names
    no user)."""
    if j == len(text):
        return None
    raw = node.text
    slash = raw.find("/")
    word = raw[:slash] if slash >= 0 else raw
    if "\\" in word or "'" in word or '"' in word:
        return None
    return word[j:], _file_offset(node, len(word.encode()))


def _file_offset(node, n: int) -> int:
    """Where, in the file, the first ``n`` bytes of ``node.text`` end: a word's text leaves out
    the backslash-newlines bash removes inside it (``_word_joins``), its file span does not."""
    data, at = node.src.data, node.start
    if len(node.text.encode()) == node.end - node.start:
        return at + n
    while n > 0 and at < node.end:
        if data[at : at + 2] == b"\\\n":
            at += 2
            continue
        at += 1
        n -= 1
    return at
