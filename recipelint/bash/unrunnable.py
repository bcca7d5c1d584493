"""Text that bash reads otherwise than it looks: carriage returns in code (RL009) and
here-document terminators bash does not take (RL010).

Both are read off the tree :func:`recipelint.bash.parse.parse` made (which already ends each
here-document where bash ends it: ``repairs.heredocs._heredoc_ends``) and returned as
:class:`ParseProblem`\\ s of their own kinds — ``"crlf"`` and ``"heredoc-end"`` — which the
driver adds to a recipe's problems (they are not in ``Parsed.problems``: an ``eval`` string
holding one still parses)."""

from __future__ import annotations

from recipelint.bash.repairs.heredocs import ends_heredoc, heredoc_delimiter, seems_to_end_heredoc
from recipelint.bash.source import Loc, SourceFile
from recipelint.bash.tree import Node, ParseProblem

#: nodes whose bytes are data to bash: a carriage return there is a character of a string, a
#: document or a comment
_DATA = frozenset({"string", "raw_string", "ansi_c_string", "translated_string", "heredoc_body", "comment"})
#: nodes inside data whose bytes are code again (``"$(cmd)"``, an unquoted document's ``$(cmd)``)
_CODE = frozenset({"command_substitution", "process_substitution", "arithmetic_expansion"})


def carriage_returns(root: Node, src: SourceFile) -> ParseProblem | None:
    """The first carriage return in code (not in a quoted string, a here-document's body or a
    comment; the shebang line counts: the kernel reads it), with how many there are; None when
    there is none.  Linear in the file, whatever its carriage returns (only the spans of code
    that hold one are kept, never an offset per carriage return)."""
    data = src.data
    if b"\r" not in data:
        return None
    code: list[tuple[int, int]] = []  # spans of code holding a carriage return
    stack: list[tuple[Node, bool]] = [(root, False)]
    while stack:
        n, in_data = stack.pop()
        if data.find(b"\r", n.start, n.end) < 0:
            continue
        in_data = (in_data or n.type in _DATA) and n.type not in _CODE
        if n.type == "comment" and n.start == 0 and data.startswith(b"#!"):
            in_data = False  # (`#!/bin/bash` CR: the kernel looks for `/bin/bash` CR, `cannot execute`)
        at, prev = n.start, None
        for c in n.children:
            if not in_data and c.start > at:
                code.append(_gap(data, prev, at, c.start))
            stack.append((c, in_data))
            at, prev = max(at, c.end), c
        if not in_data and n.end > at:
            code.append(_gap(data, prev, at, n.end))
    code = sorted(span for span in code if data.find(b"\r", *span) >= 0)
    if not code:
        return None
    first = data.find(b"\r", *code[0])
    count = sum(data.count(b"\r", a, b) for a, b in code)
    lines, last = 0, -1
    for a, b in code:  # (the lines holding one: one pass, the spans are apart and in order)
        i = data.find(b"\r", a, b)
        while i >= 0:
            if last < 0 or data.find(b"\n", last, i) >= 0:
                lines += 1
            last = i
            nl = data.find(b"\n", i, b)
            i = data.find(b"\r", nl, b) if nl >= 0 else -1
    shown = f"{count} in code" + (f", on {lines} lines" if lines > 1 else "")
    msg = (
        "literal carriage return (CRLF line endings): to bash it is part of the word before it "
        "(`then\\r` is not `then`, `TP=8\\r` sets `8\\r`); "
        f"{shown}; run the script through `tr -d '\\r'` (or `dos2unix`)"
    )
    return ParseProblem(Loc(src, first, first + 1), msg, "crlf")


def _gap(data: bytes, prev: Node | None, a: int, b: int) -> tuple[int, int]:
    """The span ``a``..``b`` of a node's own bytes after its child ``prev``; after a comment
    (but the shebang), without the carriage returns that end its line."""
    if prev is not None and prev.type == "comment" and prev.start > 0:
        while a < b and data[a] == 13:
            a += 1
    return a, b


def heredoc_terminators(root: Node, src: SourceFile) -> list[ParseProblem]:
    """Each here-document whose text holds a line that looks like its terminator but is not one
    to bash (blanks bash does not strip), at the document's start, naming that line and where
    the document ends instead."""
    data = src.data
    if b"<<" not in data:
        return []
    out = []
    stack = [root]
    while stack:
        n = stack.pop()
        stack.extend(n.children)
        if n.type != "heredoc_redirect":
            continue
        start = next((c for c in n.children if c.type == "heredoc_start"), None)
        body = next((c for c in n.children if c.type == "heredoc_body"), None)
        if start is None or body is None:
            continue
        end = n.children[-1] if n.children[-1].type == "heredoc_end" else None
        dash = any(c.type == "<<-" for c in n.children)
        delimiter = heredoc_delimiter(data, start.start, start.end)
        a = data.rfind(b"\n", 0, body.start) + 1
        if end is not None:  # (its line, to bash; else the document reaches the end of the file)
            ea = data.rfind(b"\n", 0, end.start) + 1
            eb = data.find(b"\n", end.start)
            if end.end <= end.start or not ends_heredoc(data[ea : eb if eb >= 0 else len(data)], delimiter, dash):
                end = None
        stop = end.start if end is not None else len(data)
        while a < stop:
            b = data.find(b"\n", a)
            b = len(data) if b < 0 else b
            line = data[a:b]
            if seems_to_end_heredoc(line, delimiter) and not ends_heredoc(line, delimiter, dash):
                out.append(_problem(src, n, start, line, a, delimiter, dash, end))
                break
            a = b + 1
    out.sort(key=lambda p: p.loc.start)
    return out


def _problem(src, redirect, start, line: bytes, at: int, delimiter: bytes, dash: bool, end) -> ParseProblem:
    data = src.data
    line_no = src.point(at)[0]
    lead = line[: len(line) - len(line.lstrip(b" \t"))]
    if lead and dash and b" " in lead:
        why = "`<<-` strips only leading tabs, and it is indented with spaces"
    elif lead and not dash:
        why = "with `<<` the terminator must start its line (`<<-` strips leading tabs, never spaces)"
    elif delimiter.endswith(b"\r") and not line.endswith(b"\r"):
        why = "the delimiter word ends in a carriage return (a CRLF line ending) and this line does not"
    elif line.rstrip(b" \t\r") != line:
        why = "it has blanks or a carriage return after the delimiter"
    else:
        why = "it is not exactly the delimiter"
    if end is not None:
        last = src.point(end.start)[0] - 1
        to = f"reads the document on to line {last + 1}"
    else:
        last = src.point(len(data.rstrip(b"\n")))[0]
        to = "reads the document to the end of the file (`warning: here-document delimited by end-of-file`)"
    if last > line_no + 1:
        swallowed = f": lines {line_no + 1}–{last} are text of the document, never run"
    else:
        swallowed = f": line {last} is text of the document, never run" if last > line_no else ""
    op = next((c for c in redirect.children if c.type in ("<<", "<<-")), start)
    mend = None
    if line.strip(b" \t") == delimiter:  # (only blanks around the delimiter: delete them)
        if lead:
            mend = (at, at + len(lead), "")
        if line.rstrip(b" \t") != line and not lead:
            mend = (at + len(line.rstrip(b" \t")), at + len(line), "")
    msg = (
        f"this here-document does not end at line {line_no} (`{line.decode('utf-8', 'replace').rstrip(chr(13))}`): "
        f"{why}; bash {to}{swallowed}"
    )
    return ParseProblem(Loc(src, op.start, start.end), msg, "heredoc-end", mend)
