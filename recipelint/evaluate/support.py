"""Small helpers several parts of the evaluator share: keys that deduplicate notes and outcomes,
locations of derived text, error messages."""

from __future__ import annotations

import itertools
import re

from recipelint.evaluate.values import Chunk

#: the function table's entry that marks function NAME exported (`export -f NAME`) is this prefix +
#: NAME: no command name contains a NUL byte
_EXPORTED_FUNCTION = "\0export -f "


EXPANSION_TYPES = frozenset(
    {"simple_expansion", "expansion", "command_substitution", "arithmetic_expansion", "process_substitution"}
)


_PYTHON = re.compile(r"^python[0-9.]*$")


#: a fresh number each time some state's function table changes: equal numbers, equal tables
_FUNCS_VERSION = itertools.count()


def _note_key(note) -> tuple:
    """A note by value (place and text): a location made again for the same place is another
    object, and a freed object's id may be reused."""
    loc, msg = note
    return (msg,) if loc is None else (id(loc.source), loc.start, loc.end, msg)


#: names bash or the login environment always sets, to values recipelint cannot know (a sweep
#: point or the script may set them): unknown and not empty until then
_SYSTEM_NAMES = frozenset({"HOME", "PATH", "PWD", "USER", "LOGNAME", "HOSTNAME", "UID", "EUID", "SHELL", "BASH_VERSION", "SHLVL"})


#: names whose value is made up (unknown, not empty) when they are not set
_MADE_UP = frozenset({"$", "!", "BASHPID", "RANDOM", "SECONDS", "PPID", "LINENO", "EPOCHSECONDS", "SRANDOM"}) | _SYSTEM_NAMES


_NAME_SUB = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)(?:\[(.*)\])?")


def _short(text: str, n: int = 80) -> str:
    text = " ".join(text.split())
    return text if len(text) <= n else text[: n - 1] + "…"


def _has_cmdsub(assigns) -> bool:
    for a in assigns:
        stack = [a]
        while stack:
            n = stack.pop()
            if n.type == "command_substitution":
                return True
            stack.extend(n.children)
    return False


def _discard(st, e, hard: bool = False) -> None:
    """An error expanding a word (``e``: a _CmdError), or assigning an integer (``hard``):
    bash drops the rest of the line it is running (recipelint.evaluate.evaluator.Evaluator.run_seq),
    with status 1; a subshell exits."""
    st.notes.append((e.loc, e.reason))
    st.status = 1
    st.ctl = ("discard", None, hard)


def _relocate(val, node):
    """Chunks from the environment carry no location: give them the expansion's."""
    if all(c.loc is not None for c in val):
        return val
    return tuple(c if c.loc is not None else Chunk(c.text, node.loc, c.why, c.nonempty, c.multi) for c in val)


def _join_segs(segs):
    out = []
    for s in segs:
        if s[0] == "t":
            out.extend(s[1])
        elif s[0] == "sep":
            out.append(Chunk(" ", None))
    return tuple(c for c in out if c.text is None or c.text)
