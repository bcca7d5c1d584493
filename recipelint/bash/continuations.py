"""Commands that are the rest of another one: a statement whose command name is an option word
(``--max-num-seqs 4``) stands where a continued command lost its continuation — the line above
lacks its trailing ``\\``, or a comment line or a blank line ends the command before it.

Bash runs such a line as a command of its own ("--max-num-seqs: command not found") and the
command above it ends one line early, without the options that follow.  This is a query on the
syntax tree (stage 1); the analysis records its answers on the file's result for the rules."""

from __future__ import annotations

import re
from dataclasses import dataclass

from recipelint.bash.source import Loc, SourceFile
from recipelint.bash.tree import Node, Parsed

#: an option word: `--max-num-seqs`, `--port=8000`, `-tp` (never the name of a command)
_OPTION = re.compile(r"--?[A-Za-z][A-Za-z0-9_.-]*(=.*)?")


@dataclass(frozen=True, slots=True)
class StrayOption:
    """A command named by an option word."""

    #: the option word that bash takes for a command name
    loc: Loc
    word: str
    #: the line that should have continued into it (the last line of the command above, or the
    #: comment / blank line that ended it), and why it did not: "backslash" (the line lacks its
    #: trailing `\`), "comment" (a comment line inside the continued command), "blank"
    line: int
    line_loc: Loc  # the last character of that line (where the `\` goes)
    why: str
    #: the command above it (its first word and first line), when there is one
    above: str
    above_line: int
    #: whether the stray command is put in the background (`... &`): the `&` meant for the
    #: command above (a server launch) now applies to the stray line
    background: bool


def stray_options(parsed: Parsed) -> list[StrayOption]:
    """Every command of the file whose name is a literal option word, in source order."""
    out: dict[int, StrayOption] = {}
    src = parsed.root.src
    if not isinstance(src, SourceFile):
        return []
    stack = [parsed.root]
    while stack:
        node = stack.pop()
        kids = node.children
        prev: Node | None = None
        for i, c in enumerate(kids):
            cmd = c
            if c.type == "redirected_statement" and c.children and c.children[0].type == "command":
                cmd = c.children[0]  # `--flag v > log 2>&1 &`
            if cmd.type == "command" and cmd.start not in out:
                found = _stray(cmd, prev, kids[i + 1] if i + 1 < len(kids) else None, src)
                if found is not None:
                    out[cmd.start] = found
            if c.named and c.type not in ("comment", "heredoc_body"):
                prev = c
            stack.append(c)
    return [out[k] for k in sorted(out)]


def _stray(cmd: Node, prev: Node | None, nxt: Node | None, src) -> StrayOption | None:
    name = cmd.field("name")
    word = name.children[0] if name is not None and name.children else name
    if word is None or word.type != "word" or not _OPTION.fullmatch(word.text):
        return None
    line = src.point(word.start)[0]
    # the line above that ended the command: pass over nothing but look at what stands there
    above_ln = line - 1
    why = "backslash"
    text = src.line_text(above_ln) if above_ln >= 1 else ""
    if not text.strip():
        why = "blank"
    elif text.lstrip().startswith("#"):
        why = "comment"
    elif text.endswith("\\"):
        return None  # continued into this line (a grammar misreading, not a missing `\`)
    elif text.rstrip().endswith("\\"):
        why = "space"  # `\ ` at the end: the backslash escapes a blank, not the newline
    above, above_line = "", 0
    if prev is not None:
        head = prev
        while head.type in ("redirected_statement", "list", "pipeline") and head.children:
            head = head.children[0]
        if head.type == "command":
            nm = head.field("name")
            above = nm.text if nm is not None else ""
        else:
            above = head.text.split(None, 1)[0] if head.text.strip() else ""
        above_line = src.point(prev.start)[0]
    background = nxt is not None and nxt.type == "&"
    data = src.data
    nl = data.rfind(b"\n", 0, word.start)
    start = data.rfind(b"\n", 0, max(nl, 0)) + 1
    end = len(data[start:nl].rstrip()) + start if nl > 0 else 0
    line_loc = Loc(src, max(start, end - 1), max(start, end - 1) + (1 if end > start else 0))
    return StrayOption(word.loc, word.text, above_ln, line_loc, why, above, above_line, background)
