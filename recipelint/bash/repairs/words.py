"""Repairs of words: ``$`` names split from their text, words tree-sitter-bash splits or joins
wrongly (a backquote's blanks, a name continued over a backslash-newline), operands of a
command it took for something else."""

from __future__ import annotations

import bisect
import re

from recipelint.bash.convert import (
    _WORD_HOLDERS,
    _WORDISH,
    _convert,
    _dollar_name,
    _shifted,
)
from recipelint.bash.repairs.common import _nodes_of, _parser, _reparse
from recipelint.bash.tree import Node

#: ``$name`` inside a word, after a literal character and before one (``$D/$N.log``,
#: ``[k]=$a/b``), or ``$1`` after one: where tree-sitter-bash may split the word (the cheap test;
#: group 1: the `$`)
_DOLLAR_SPLIT_HINT = re.compile(
    rb"(?<=[^\s\"'`;&|()<>\\$])(\$)(?:[A-Za-z_][A-Za-z0-9_]*(?=[^\sA-Za-z0-9_\"'`;&|()<>$}\\])|[0-9])"
)


def _split_dollars(tree, data: bytes):
    """tree-sitter-bash splits some unquoted words at a ``$name`` that follows a literal and is
    followed by ``/``, ``.``, ``-`` or more (``$D/$N.log`` as ``$D/$`` and ``N.log`` — in an
    assignment, ``X=$D/$N.log`` runs ``N.log``; ``([k]=$a/b)`` as ``[k]=$`` and ``a/b``): a
    lone ``$`` token.  Each such ``$`` is parsed again as ``_`` (one byte for one: the word is
    whole), and ``_convert`` puts the expansion back into the word.  Returns the tree, the text
    it parsed and the positions of those ``$``."""
    if b"$" not in data:
        return tree, data, []
    done: list[int] = []
    for _ in range(8):  # a repaired `$` may show the next one in the word (`$a/$b/$c/`)
        at = []
        for m in _DOLLAR_SPLIT_HINT.finditer(data):
            i = m.start(1)
            n = tree.root_node.descendant_for_byte_range(i, i + 1)
            if (
                n is not None
                and n.type == "$"
                and n.parent is not None
                and n.parent.type not in ("simple_expansion", "expansion")
            ):
                prev = tree.root_node.descendant_for_byte_range(i - 1, i)
                if prev is None or prev.type != "variable_name":  # (`$X$1`: a `_` would go on with the name X)
                    at.append(i)
        if not at:
            break
        tree, data = _reparse(data, at, b"_")
        done += at
    return tree, data, sorted(done)


def _blanked(text: bytes) -> bytearray:
    """``text`` with every byte but its newlines a blank: a copy to parse pieces of the file in,
    at the file's positions."""
    return bytearray(b if b == 10 else 32 for b in text)


#: what a `$` takes of the word after it (a name, one digit, a special parameter)
_NAME_START_BYTES = re.compile(rb"[A-Za-z_][A-Za-z0-9_]*|[0-9@*#?!-]")


def _word_alone(err: Node, src, problems: list, text: bytes) -> Node | None:
    """The word that the text of the ERROR node ``err`` is, parsed on its own (its syntax error
    dropped); None when it is not one word."""
    found = _first_word(text[err.start : err.end])
    if found is None or found[0].end_byte != 2 + err.end - err.start:
        return None
    problems[:] = [p for p in problems if not err.start <= p.loc.start < err.end]
    return _shifted(*found, err.start, src)


def _first_word(piece: bytes):
    """tree-sitter's tree of the first word of ``piece``, parsed as a command's argument (``: ``
    before it), and the text parsed; None when that word has an error in it."""
    line = b": " + piece + b"\n"
    ts_root = _parser().parse(line).root_node
    cmd = ts_root.child(0) if ts_root.child_count else None
    while cmd is not None and cmd.type in ("list", "pipeline", "redirected_statement") and cmd.child_count:
        cmd = cmd.child(0)  # (`x${o}y && ...`)
    if cmd is None or cmd.type != "command" or cmd.child_count < 2 or cmd.child(0).type != "command_name":
        return None
    arg = cmd.child(1)
    if arg.start_byte != 2 or arg.has_error or arg.type in ("file_redirect", "heredoc_redirect", "herestring_redirect"):
        return None
    return arg, line


def _rejoin_words(root: Node, data: bytes) -> None:
    """tree-sitter-bash splits some unquoted words in two where bash has one (besides
    ``_split_dollars``'s): a word before a backquoted command (```/usr/`cmd`/x```; in an
    assignment, ```X=/d/`cmd` ``` runs the command's output), and ``$"..."`` (a ``$`` word, then
    the string).  Side-by-side words with no blank between them are joined again; a ``$`` before
    a string is dropped, as bash does outside a translation locale."""
    stack = [root]
    while stack:
        node = stack.pop()
        stack.extend(node.children)
        if node.type in _WORD_HOLDERS:
            _rejoin_children(node, data)
        elif node.type == "concatenation":
            kids = node.children
            drop = {i for i in range(len(kids) - 1) if kids[i].type == "$" and kids[i + 1].type == "string"}  # (a set: n of them)
            if drop:  # `a$"b"c`
                node.children = tuple(k for i, k in enumerate(kids) if i not in drop)
                node.fields = tuple(f for i, f in enumerate(node.fields) if i not in drop)
                node._fmap = None


def _rejoin_children(node: Node, data: bytes) -> None:
    kids, fields = list(node.children), list(node.fields)
    i = 0
    changed = False
    while i < len(kids) - 1:
        a, b = kids[i], kids[i + 1]
        inner = b.children[0] if b.type == "command_name" and b.children else b
        if a.end != b.start or inner.type not in _WORDISH:
            i += 1
            continue
        if a.type in _WORDISH:
            joined = _joined(a, inner, data)
        elif a.type == "variable_assignment" and a.children and a.children[-1].type in _WORDISH:
            # `X=$D/$N.log`: the value ran short, the rest is the next word (the command's name)
            value = _joined(a.children[-1], inner, data)
            if value is None:
                i += 1
                continue
            a.children = a.children[:-1] + (value,)
            a.end, a._fmap = value.end, None
            joined = a
        else:
            joined = None
        if joined is None:
            i += 1
            continue
        kids[i : i + 2] = [joined]
        if joined is not a:
            fields[i] = fields[i] or fields[i + 1]  # (`$"x"`: the `$` has no field)
        del fields[i + 1]
        changed = True
    if not changed:
        return
    if node.type == "command" and "name" not in fields:
        # the name was taken into an assignment's value: the first argument is the name
        for j, f in enumerate(fields):
            if f == "argument":
                name = Node("command_name", kids[j].start, kids[j].end, True, kids[j].src)
                name.children, name.fields = (kids[j],), (None,)
                kids[j], fields[j] = name, "name"
                break
    node.children, node.fields, node._fmap = tuple(kids), tuple(fields), None
    if node.type == "command" and "name" not in fields and all(k.type == "variable_assignment" for k in kids):
        # nothing but assignments left: a statement of assignments
        node.type = "variable_assignment" if len(kids) == 1 else "variable_assignments"
        if len(kids) == 1:
            only = kids[0]
            node.children, node.fields = only.children, only.fields


def _joined(a: Node, b: Node, data: bytes) -> Node | None:
    """One word of the words ``a`` and ``b`` (side by side, in the text ``data`` that was parsed), or None."""
    left = list(a.children) if a.type == "concatenation" else [a]
    right = list(b.children) if b.type == "concatenation" else [b]
    if left[-1].type == "$":
        first = right[0]
        m = (
            _NAME_START_BYTES.match(data, first.start, first.end)
            if first.type in ("word", "number") and not first.children
            else None
        )
        if m:  # `text"a"$X/q`, `t$(f)$1`: the grammar ended the word at the `$`, the name begins the next
            dollar = left.pop()
            cut = m.end()
            right[:1] = [_dollar_name(dollar.start, cut, a.src)] + (
                [Node(first.type, cut, first.end, True, a.src)] if cut < first.end else []
            )
        elif first.type != "string":
            return None
        else:
            left.pop()  # `$"..."`: the string
    parts = left + right
    if len(parts) == 1 and parts[0].start == a.start:
        return parts[0]
    word = Node("concatenation", a.start, parts[-1].end, True, a.src)
    word.children, word.fields = tuple(parts), (None,) * len(parts)
    return word


_BACKQUOTED = re.compile(rb"`((?:[^`\\]|\\.)*)`", re.S)


def _operand_backquotes(root: Node, src, problems: list, text: bytes) -> None:
    """tree-sitter-bash takes a backquoted command in the word of ``${X:-word}`` (``${H:-`cmd`}``)
    for text.  Each is parsed (one parse of the file's text with everything else blanked, so
    positions stay the file's) and put in the word as the command substitution it is."""
    found = []  # (expansion, word, [(start, end) of each backquoted command's text])
    for n in _nodes_of(root, "expansion"):
        for c in n.children:
            if c.type == "word":
                spans = [(m.start(1), m.end(1)) for m in _BACKQUOTED.finditer(text, c.start, c.end)]
                if spans:
                    found.append((n, c, spans))
    if not found:
        return
    buf = _blanked(text)
    for _, _, spans in found:
        for a, b in spans:
            buf[a:b] = text[a:b]
            buf[b] = ord(";")  # (the closing backquote: ends the command there)
    buf = bytes(buf)
    tops = [c for c in _parser().parse(buf).root_node.children if c.type != ";"]
    starts = [c.start_byte for c in tops]
    for exp, word, spans in found:
        parts, at = [], word.start
        for a, b in spans:
            if a - 1 > at:
                parts.append(Node("word", at, a - 1, True, src))
            sub = Node("command_substitution", a - 1, b + 1, True, src)
            inner = []
            for c in tops[bisect.bisect_left(starts, a) :]:
                if c.start_byte >= b:
                    break
                inner.append(_convert(c, src, problems, buf, text)[0])
            sub.children = (Node("`", a - 1, a, False, src), *inner, Node("`", b, b + 1, False, src))
            sub.fields = (None,) * len(sub.children)
            parts.append(sub)
            at = b + 1
        if at < word.end:
            parts.append(Node("word", at, word.end, True, src))
        i = exp.children.index(word)
        exp.children = exp.children[:i] + tuple(parts) + exp.children[i + 1 :]
        exp.fields = exp.fields[:i] + (exp.fields[i],) * len(parts) + exp.fields[i + 1 :]
        exp._fmap = None


_NAME_FIRST = re.compile(rb"[A-Za-z_]")


#: backslash-newlines, then characters that go on with a name (group 1)
_NAME_GOES_ON = re.compile(rb"(?:\\\n)+([A-Za-z0-9_]+)")


#: `$name`, backslash-newlines, a name character (the cheap test)
_CONTINUED_NAME = re.compile(rb"\$[A-Za-z_][A-Za-z0-9_]*(?:\\\n)+[A-Za-z0-9_]")


def _continued_names(body: Node, text: bytes) -> None:
    """``$X``, a backslash-newline, ``t`` in a here-document or a double-quoted string is ``$Xt``
    (bash removes the backslash-newline before it reads the name; tree-sitter-bash ends the
    name): the name takes the characters after it, and its text is what bash reads."""
    kids = list(body.children)
    changed = False
    for i in range(len(kids) - 1):
        exp, nxt = kids[i], kids[i + 1]
        if (
            exp.type != "simple_expansion"
            or nxt.type not in ("heredoc_content", "string_content")
            or nxt.start != exp.end
            or len(exp.children) != 2
            or exp.children[1].type != "variable_name"
            or not _NAME_FIRST.match(text, exp.children[1].start)
        ):
            continue  # (`$1`, newline-joined to `0`, is `${1}0`)
        at = nxt.start
        while m := _NAME_GOES_ON.match(text, at, nxt.end):
            at = m.end()
        if at == nxt.start:
            continue
        name = exp.children[1]
        name._text = text[name.start : at].replace(b"\\\n", b"").decode("utf-8", "replace")
        name.end = exp.end = nxt.start = at
        name._loc = exp._loc = exp._text = nxt._loc = nxt._text = None
        changed = True
    if changed:
        keep = [k.end > k.start or k.type not in ("heredoc_content", "string_content") for k in kids]
        body.children = tuple(k for k, y in zip(kids, keep) if y)
        body.fields, body._fmap = tuple(f for f, y in zip(body.fields, keep) if y), None


#: the inline-comment idiom of a continued command: `` --flag v `# why` \`` — a backquoted
#: command that is only a comment (after a blank, before a blank or the end of the line); and an
#: empty backquoted command (``echo``\`\```), which is nothing to bash too
_COMMENT_SUBSTITUTION = re.compile(rb"(?<=[ \t])`[ \t]*#[^`\n]*`(?=[ \t]|\\?\n|$)|(?<![`\\\x22])``(?=[ \t;\n]|$)")


def _comment_substitutions(tree, data: bytes):
    """`` `# why` `` between the words of a command is a command substitution of a comment:
    to bash, nothing (an unquoted empty expansion is no word).  tree-sitter-bash reads the
    ``#`` as a comment to the end of the line, which swallows the closing backquote and the
    line's ``\\``, and folds the rest of the command into the substitution.  Where its tree has
    an error, each such idiom is blanked (one byte for one) and the text parsed again; kept
    when the first error is gone past the idioms (or there is none).  Returns the tree, the text
    it parsed and the blanked spans."""
    if b"`" not in data or not tree.root_node.has_error:
        return tree, data, []
    spans = [m.span() for m in _COMMENT_SUBSTITUTION.finditer(data)]
    if not spans:
        return tree, data, []
    new_tree, new = _reparse(data, [i for a, b in spans for i in range(a, b)], b" ")
    if new_tree.root_node.has_error:
        was, now = _first_error(tree.root_node), _first_error(new_tree.root_node)
        if now <= was or now < spans[-1][1]:
            return tree, data, []
    return new_tree, new, spans


def _first_error(root) -> int:
    """Where the first error (or missing token) of a tree starts."""
    node = root
    while True:
        for c in node.children:
            if c.has_error or c.is_missing or c.type == "ERROR":
                if c.type == "ERROR" or c.is_missing:
                    return c.start_byte
                node = c
                break
        else:
            return node.start_byte
