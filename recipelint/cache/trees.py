"""Syntax trees of sourced libraries, kept in the cache directory between runs.

A recipe sources the same helper library on every run (InferenceX's ``benchmark_lib.sh``, 2,300
lines, ~16,000 syntax nodes); parsing it is the largest single cost of a pre-commit run that
checks one edited recipe.  Its tree is kept as JSON (a flat preorder table of integers, never
pickle), keyed by the library's text and by recipelint's code fingerprint (which covers the
parser's binaries), so a changed file or another parser never reads a stale tree.

Only sourced files are kept (``Library.load``): a recipe's own tree is rebuilt on every run (it
is the file that changed, and one tree per recipe would crowd the libraries out of the cache).
"""

from __future__ import annotations

from recipelint.bash.parse import parse
from recipelint.bash.source import Loc
from recipelint.bash.tree import Node, Parsed, ParseProblem

FORMAT = 2
#: trees up to this many nodes are kept (a library beyond it is parsed every run)
MAX_NODES = 200_000
_WIDTH = 7  # a node's record: type, start, end, named, children, extras, field in its parent


def parse_cached(src, text: str, cache_dir) -> Parsed:
    """``parse(src)``; from the tree kept for the same ``text`` (``src``'s, decoded) when there
    is one."""
    from recipelint.cache.store import code_fingerprint, memo_text

    return memo_text(
        cache_dir, "trees", f"{FORMAT} {code_fingerprint()}", text, lambda _: parse(src), encode, lambda data: decode(data, src)
    )


def encode(parsed: Parsed) -> dict:
    """JSON data of a tree (ValueError for a tree that was not built: nothing to keep)."""
    if parsed.too_large:
        raise ValueError("not parsed")
    if parsed.root.src.data.count(b"\n") > MAX_NODES:  # (a cheap bound first: a line holds a node or more)
        raise ValueError("too large to keep")
    data = parsed.root.src.data
    types: dict[str, int] = {}
    fields: dict[str | None, int] = {None: 0}
    recs: list[int] = []
    texts: dict[str, str] = {}
    stack: list[tuple[Node, str | None]] = [(parsed.root, None)]
    while stack:
        n, field = stack.pop()
        if len(n.fields) != len(n.children):
            raise ValueError("a node without a field slot for each child")
        t = n._text  # set apart from the file's bytes only where `parse` joined lines
        if t is not None and t != data[n.start : n.end].decode("utf-8", "replace"):
            texts[str(len(recs) // _WIDTH)] = t
        recs += (
            types.setdefault(n.type, len(types)),
            n.start,
            n.end,
            int(n.named),
            len(n.children),
            len(n.extra),
            fields.setdefault(field, len(fields)),
        )
        stack.extend((x, None) for x in reversed(n.extra))
        stack.extend(zip(reversed(n.children), reversed(n.fields)))
        if len(recs) > MAX_NODES * _WIDTH:
            raise ValueError("too large to keep")
    return {
        "types": list(types),
        "fields": list(fields),
        "nodes": recs,
        "texts": texts,
        "depth": parsed.depth,
        "problems": [[p.loc.start, p.loc.end, p.message, p.kind] for p in parsed.problems],
    }


def decode(d: dict, src) -> Parsed:
    """The tree ``encode`` gave ``d`` for, its nodes in ``src`` (KeyError, IndexError, TypeError
    or ValueError for data that is not such a tree)."""
    types, fields, recs, texts = d["types"], d["fields"], d["nodes"], d["texts"]
    if not recs or len(recs) % _WIDTH:
        raise ValueError("not a tree")
    root = None
    # the open node (its children, their fields, its extras, how many of each it has) and the
    # ones above it
    node, kids, kf, extra, wk, we = None, [], [], [], 0, 0
    stack: list[tuple] = []
    it = iter(recs)
    for i, (ti, start, end, named, nk, ne, fi) in enumerate(zip(it, it, it, it, it, it, it)):
        n = Node(types[ti], start, end, named == 1, src)
        if texts:
            t = texts.get(str(i))
            if t is not None:
                n._text = t
        if node is None:
            if root is not None:
                raise ValueError("two roots")
            root = n
        elif len(kids) < wk:
            kids.append(n)
            kf.append(fields[fi])
        else:
            extra.append(n)
        if nk or ne:
            if node is not None:
                stack.append((node, kids, kf, extra, wk, we))
            node, kids, kf, extra, wk, we = n, [], [], [], nk, ne
            continue
        while node is not None and len(kids) == wk and len(extra) == we:
            node.children, node.fields, node.extra = tuple(kids), tuple(kf), tuple(extra)
            node, kids, kf, extra, wk, we = stack.pop() if stack else (None, None, None, None, 0, 0)
    if node is not None:
        raise ValueError("a tree cut short")
    problems = [
        ParseProblem(Loc(src, int(p[0]), int(p[1])), str(p[2]), str(p[3]) if len(p) > 3 else "syntax") for p in d["problems"]
    ]
    return Parsed(root, problems, int(d["depth"]))
