"""Repairs of glob patterns: ``case`` arm patterns (``a|b``, ``@(x)``) and the escapes in them,
which tree-sitter-bash splits or reports as errors."""

from __future__ import annotations

from recipelint.bash.convert import (
    _PATTERN_SEPARATORS,
    _bars,
    _pattern_errors,
    _split_pattern,
    escaped,
)
from recipelint.bash.repairs.words import _word_alone
from recipelint.bash.tree import Node

#: what the pieces of a case pattern are (before an item's `)`)
_PATTERN_PIECES = (
    frozenset(
        {
            "extglob_pattern",
            "word",
            "expansion",
            "simple_expansion",
            "string",
            "raw_string",
            "ansi_c_string",
            "concatenation",
            "command_substitution",
            "number",
        }
    )
    | _PATTERN_SEPARATORS
)


def _case_patterns(root: Node, src, problems: list, text: bytes) -> None:
    """tree-sitter-bash cuts a case pattern that starts with a literal before a quoted part or
    a ``${...}`` into several patterns (``*" -S "*)`` as ``*``, ``" -S "`` and ``*``, which match
    any word; ``-${opts}s)`` as ``-`` and ``${opts}``), and makes an ERROR of a literal after the
    ``${...}`` (``x${n}y)``).  The pieces between two ``|`` are one pattern: they become one
    concatenation, each ERROR piece the word it is, parsed alone (left as it is, with its
    syntax error, when it is not one word)."""
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type == "case_statement":
            kids, fields = list(node.children), list(node.fields)
            for i in reversed(_pattern_errors(kids)):
                err, item = kids[i], kids[i + 1]
                if all(c.type in _PATTERN_PIECES for c in err.children):
                    # the ERROR holds the item's first pieces
                    item.children, item.fields = err.children + item.children, ("value",) * len(err.children) + item.fields
                    item.start, item._loc, item._fmap = err.start, None, None
                    problems[:] = [p for p in problems if not err.start <= p.loc.start < err.end]
                    del kids[i], fields[i]
            node.children, node.fields, node._fmap = tuple(kids), tuple(fields), None
        stack.extend(node.children)
        if node.type != "case_item" or not _split_pattern(node.children, text):
            continue
        kids, fields = [], []
        for c, f in zip(node.children, node.fields):
            cut = _bars(text[c.start : c.end]) if c.type == "extglob_pattern" and not kids.count(")") else []
            at = c.start
            for b in cut:  # `-[n|d|s]`: three patterns (a `|` ends one but inside parentheses)
                kids += [Node("extglob_pattern", at, c.start + b, True, src), Node("|", c.start + b, c.start + b + 1, False, src)]
                fields += ["value", None]
                at = c.start + b + 1
            kids.append(c if not cut else Node("extglob_pattern", at, c.end, True, src))
            fields.append(f)
        at = next(i for i, c in enumerate(kids) if c.type == ")")
        out, out_fields, group = [], [], []

        def close():
            if len(group) == 1 and group[0].type != "ERROR":
                out.append(group[0])
                out_fields.append("value")
            elif group:
                pieces = [_word_alone(c, src, problems, text) if c.type == "ERROR" else c for c in group]
                if any(p is None for p in pieces):
                    out.extend(group)
                    out_fields.extend(["value"] * len(group))
                else:
                    word = Node("concatenation", group[0].start, group[-1].end, True, src)
                    word.children, word.fields = tuple(pieces), (None,) * len(pieces)
                    out.append(word)
                    out_fields.append("value")
            group.clear()

        for c, f in zip(kids[:at], fields[:at]):
            if c.type == "|" and group and group[-1].end == c.start and escaped(text, c.start):
                group.append(Node("word", c.start, c.end, True, src))  # `a\|b`: one pattern
                continue
            if c.type in _PATTERN_SEPARATORS or group and group[-1].end != c.start:
                close()
            if c.type in _PATTERN_SEPARATORS:
                out.append(c)
                out_fields.append(f)
            else:
                group.append(c)
        close()
        node.children, node.fields, node._fmap = tuple(out) + tuple(kids[at:]), tuple(out_fields) + tuple(fields[at:]), None
