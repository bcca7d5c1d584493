"""Field splitting: the words an unquoted expansion becomes under ``IFS`` (and ``$@``/``$*``)."""

from __future__ import annotations

import re

from recipelint.evaluate.values import Chunk, Word, text_of, unknown
from recipelint.evaluate.variables import Kind, Var

#: bash starts with IFS set (not exported) to its default; unset, it splits as by the default
#: but expands to nothing
_IFS_VAR = Var(Kind.SCALAR, (Chunk(" \t\n", None),))


_IFS_ANY = re.compile(r"[ \t\n]")


_IFS_INSIDE = re.compile(r"[^ \t\n][ \t\n]+[^ \t\n]")  # whitespace between two non-blank characters


def _fields(segs, loc, st=None) -> list[Word]:
    """Word splitting over expansion segments, at ``st``'s IFS (else the default), as bash
    splits: IFS whitespace around a field is dropped, every other IFS character ends a field (two
    in a row make an empty one; one at the end makes none); an empty IFS splits nothing; an
    unknown one, anything."""
    for s in segs:
        if s[0] == "t" and s[3]:
            break
    else:  # no unquoted expansion to split (quoted words, "${A[@]}"): what the loop below makes
        return _unsplit_fields(segs, loc)
    ifs, any_ifs, inside = " \t\n", _IFS_ANY, _IFS_INSIDE
    if st is not None:
        var = st.lookup("IFS")
        if var is not None:
            ifs = text_of(var.value) if var.kind == Kind.SCALAR else None
            if ifs == "":
                return _unsplit_fields([s if s[0] != "t" else ("t", s[1], s[2], False, *s[4:]) for s in segs], loc)
            if ifs is not None and ifs != " \t\n":
                e = re.escape(ifs)
                any_ifs, inside = re.compile(f"[{e}]"), re.compile(f"[^{e}][{e}]+[^{e}]")
    fields: list[Word] = []
    cur: list[Chunk] = []
    started = pending = False  # a field has begun; whitespace ended the last (one IFS char may follow)
    wloc = None
    split_loc = None

    def flush():
        nonlocal cur, started, wloc
        w = Word(tuple(c for c in cur if c.text is None or c.text), wloc or loc)
        w.split = split_loc
        fields.append(w)
        cur, started, wloc = [], False, None

    for s in segs:
        kind = s[0]
        if kind == "exists":
            started = True
            continue
        if kind == "sep":
            if started or cur:
                flush()
            pending = False
            continue
        _, chunks, quoted, split = s[:4]
        if len(s) > 4 and s[4] is not None and wloc is None and not cur:
            wloc = s[4]
        if not split or ifs is None:
            if split:  # an unknown IFS: where it splits is unknown
                chunks = unknown("words split at an unknown IFS", loc, multi=True)
            cur.extend(chunks)
            if any(c.text is None or c.text for c in chunks):
                started, pending = True, False
            continue
        # unquoted expansion: split known text at IFS
        xloc = s[5] if len(s) > 5 else None
        for c in chunks:
            t = c.text
            if t is not None and inside.search(t):
                # this expansion is cut into several words: remember where, for the words it makes
                split_loc = xloc or loc
                break
        for c in chunks:
            t = c.text
            if t is None:
                cur.append(c)
                started, pending = True, False
                continue
            if not any_ifs.search(t):  # nothing to split (most values)
                if t:
                    cur.append(Chunk(t, c.loc))
                    started, pending = True, False
                continue
            start = 0
            for i, ch in enumerate(t):
                if ch not in ifs:
                    continue
                if i > start:
                    cur.append(c.part(start, i))
                    started, pending = True, False
                start = i + 1
                if ch in " \t\n":
                    if started:
                        flush()
                        pending = True
                elif started:
                    flush()
                elif pending:
                    pending = False
                else:
                    flush()  # an empty field
            if start < len(t):
                cur.append(c.part(start, len(t)))
                started, pending = True, False
    if started or cur:
        flush()
    return fields


def _unsplit_fields(segs, loc) -> list[Word]:
    """``_fields`` of segments none of which is split: words end only at separators."""
    fields: list[Word] = []
    cur: list[Chunk] = []
    exists = False
    wloc = None
    for s in segs:
        kind = s[0]
        if kind == "t":
            chunks = s[1]
            if wloc is None and not cur and len(s) > 4 and s[4] is not None:
                wloc = s[4]
            if chunks:
                cur.extend(chunks)
                if not exists:
                    for c in chunks:
                        if c.text is None or c.text:
                            exists = True
                            break
        elif kind == "sep":
            if cur or exists:
                fields.append(Word(tuple([c for c in cur if c.text is None or c.text]), wloc or loc))
            cur = []
            exists = False
            wloc = None
        else:  # "exists"
            exists = True
    if cur or exists:
        fields.append(Word(tuple([c for c in cur if c.text is None or c.text]), wloc or loc))
    return fields


def _is_at_expansion(node) -> bool:
    """Whether an expansion is ``${A[@]}`` / ``${@...}``: in double quotes it may make no word at
    all (``"${A[*]}"`` always makes one, even of an unset array)."""
    for c in node.children:
        if c.type == "subscript":
            idx = c.field("index")
            if idx is not None and idx.text == "@":
                return True
        if c.type == "special_variable_name" and c.text == "@":
            return True
    return False
