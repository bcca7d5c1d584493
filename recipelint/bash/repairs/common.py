"""What the repairs share: the parser, re-parsing a fragment with every repair, tree-sitter
queries, the nodes of a tree and the error nodes over a span."""

from __future__ import annotations

import tree_sitter
import tree_sitter_bash

from recipelint.bash.convert import _LINKED
from recipelint.bash.tree import Node, Parsed

_PARSER: tree_sitter.Parser | None = None


def _parser() -> tree_sitter.Parser:
    global _PARSER
    if _PARSER is None:
        _PARSER = tree_sitter.Parser(tree_sitter.Language(tree_sitter_bash.language()))
    return _PARSER


def _links(root: Node) -> list[tuple[Node, Node, int]]:
    """``(node, parent, depth)`` for every node of a type in ``_LINKED``, in the order
    ``_convert`` lists them (a node after its ancestors): for a tree passes have changed."""
    out = []
    stack = [(root, 0)]
    while stack:
        n, d = stack.pop()
        for c in n.children:
            if c.type in _LINKED:
                out.append((c, n, d + 1))
            if c.children:
                stack.append((c, d + 1))
    return out


def _nodes_of(root: Node, kind: str):
    """Every node of type ``kind`` under ``root`` (the tree may be changed below a node given)."""
    stack = [root]
    while stack:
        n = stack.pop()
        stack.extend(n.children)
        if n.type == kind:
            yield n


def _not_parsed(src, why: str) -> Parsed:
    return Parsed(Node("program", 0, len(src.data), True, src), [], 0, too_large=f"{why} recipelint analyses")


def _error_over(tree, a: int, b: int) -> bool:
    """Whether tree-sitter's tree has an error in the smallest node over bytes ``a``..``b``."""
    n = tree.root_node.descendant_for_byte_range(a, b)
    return n is not None and (n.has_error or n.type == "ERROR")


def _reparse(data: bytes, at: list[int], byte: bytes):
    """Parse ``data`` again with ``byte`` at the offsets ``at`` (one byte for one: positions
    stay the file's)."""
    buf = bytearray(data)
    for i in at:
        buf[i] = byte[0]
    data = bytes(buf)
    return _parser().parse(data), data


_QUERIES: dict = {}


def _query(name: str, text: str):
    q = _QUERIES.get(name)
    if q is None:
        q = _QUERIES[name] = tree_sitter.Query(_parser().language, text)
    return q


def _hint(data: bytes, opener, later, stops: bytes = b"\n", continued: bool = False) -> bool:
    """Whether an ``opener`` match is followed, before the next byte of ``stops`` (with
    ``continued``, a newline after a backslash does not stop), by a ``later`` match: the cheap
    test before a repair, as ``opener.*?later`` on one line would be — but linear in the text
    (such a regex tries every opener to the line's end: a 100 KB line of them takes minutes).
    An opener inside the span of an earlier one is not tried again (its span is a part of it)."""
    done = 0
    for m in opener.finditer(data):
        if m.start() < done:
            continue
        a = m.end()
        end = _stop(data, a, stops, continued)
        if later.search(data, a, end) is not None:
            return True
        done = end
    return False


def _stop(data: bytes, i: int, stops: bytes, continued: bool) -> int:
    """The first newline or other byte of ``stops`` at or after ``i`` (the end of ``data`` if
    none); only the bytes up to it are looked at."""
    n = len(data)
    while True:
        e = data.find(b"\n", i)
        e = n if e < 0 else e
        for s in stops:
            if s != 10:
                k = data.find(bytes((s,)), i, e)
                e = k if k >= 0 else e
        if not (continued and e < n and data[e] == 10 and e > 0 and data[e - 1] == 92):
            return e
        i = e + 1
