"""YAML with source positions, fast: the libyaml-based composer of ``ruamel.yaml.clib`` (C)
when it is installed, else ruamel's pure-Python round-trip loader.

Mappings and sequences come back as ``PosMap`` (a dict) and ``PosSeq`` (a list) with an
``lc`` attribute answering ``lc.key(k)``, ``lc.value(k)`` and ``lc.item(i)`` with 0-based
(line, column) pairs — the same questions ruamel's round-trip ``CommentedMap.lc`` answers, so
callers work with either loader.

Hostile input is bounded: aliases are shared, never copied, and a document whose aliases would
expand to more than ``MAX_NODES`` nodes (a "billion laughs" file) is rejected, as is nesting
deeper than ``MAX_DEPTH`` — that one before composing (``_check_depth``, on the parser's event
stream, which libyaml makes without recursion): the composers recurse per level, and libyaml's
crashes the process (SIGSEGV) at about 30,000 levels.
"""

from __future__ import annotations

import warnings

MAX_NODES = 2_000_000
MAX_DEPTH = 200


class YAMLPosError(ValueError):
    """A document recipelint will not load; ``line``/``column`` are 0-based when known."""

    def __init__(self, message: str, line: int | None = None, column: int | None = None):
        super().__init__(message)
        self.line = line
        self.column = column


class _LC:
    __slots__ = ("keys", "values", "items", "line", "col", "dups")

    def __init__(self, line: int, col: int):
        self.line = line
        self.col = col
        self.keys: dict = {}
        self.values: dict = {}
        self.items: list = []
        #: with ``load(..., duplicates=True)``: (key, line, col) of each key written again — the
        #: earlier occurrence, whose value the later one replaced
        self.dups: list = []

    def key(self, k):
        return self.keys[k]

    def value(self, k):
        return self.values[k]

    def item(self, i):
        return self.items[i]


class PosMap(dict):
    __slots__ = ("lc",)


class PosSeq(list):
    __slots__ = ("lc",)


#: parsed documents up to this logical size are kept in the cache (aliases are expanded there)
CACHE_MAX_NODES = 200_000
CACHE_FORMAT = 1


def load_cached(text: str, cache_dir) -> object:
    """``load``, remembering the parse (with positions) as JSON under ``cache_dir``, keyed by the
    document's SHA-256: unchanged master configs are not parsed again."""
    from recipelint.cache.store import memo_text

    return memo_text(cache_dir, "yaml", CACHE_FORMAT, text, load, lambda data: _encode(data, [0]), _decode)


class _TooBig(ValueError):
    """A document too large to keep in the cache (aliases expanded)."""


def _encode(v, count):
    count[0] += 1
    if count[0] > CACHE_MAX_NODES:
        raise _TooBig
    if isinstance(v, dict):
        lc = getattr(v, "lc", None)
        items = []
        for k, x in v.items():
            kl, kc = lc.keys.get(k, (0, 0)) if lc is not None else (0, 0)
            vl, vc = lc.values.get(k, (0, 0)) if lc is not None else (0, 0)
            items.append([_encode(k, count), kl, kc, vl, vc, _encode(x, count)])
        return {"m": items, "at": [lc.line, lc.col] if lc is not None else [0, 0]}
    if isinstance(v, list):
        lc = getattr(v, "lc", None)
        at = lc.items if lc is not None else [(0, 0)] * len(v)
        return {
            "s": [[il, ic, _encode(x, count)] for (il, ic), x in zip(at, v)],
            "at": [lc.line, lc.col] if lc is not None else [0, 0],
        }
    if v is None or isinstance(v, (bool, int, float, str)):
        return v
    raise TypeError(type(v).__name__)


def _decode(v):
    if isinstance(v, dict):
        if "m" in v:
            out = PosMap()
            out.lc = _LC(*v["at"])
            for k, kl, kc, vl, vc, x in v["m"]:
                key = _decode(k)
                out[key] = _decode(x)
                out.lc.keys[key] = (kl, kc)
                out.lc.values[key] = (vl, vc)
            return out
        out = PosSeq()
        out.lc = _LC(*v["at"])
        for il, ic, x in v["s"]:
            out.append(_decode(x))
            out.lc.items.append((il, ic))
        return out
    return v


def load(text: str, duplicates: bool = False):
    """Parse one YAML document; raise ``YAMLPosError`` (or ruamel's ``YAMLError``) when it is
    not acceptable.  ``duplicates``: a key written twice in a mapping is not an error, the later
    value wins (as PyYAML's ``safe_load`` does) and the mapping's ``lc.dups`` records it."""
    _check_depth(text)
    try:
        from ruamel.yaml.cyaml import CSafeLoader
    except ImportError:  # no libyaml: the round-trip loader keeps positions itself
        return _load_rt(text, duplicates)
    with warnings.catch_warnings():  # ruamel warns on stderr about YAML 1.1 forms (`1e3`)
        warnings.simplefilter("ignore")
        loader = _fast_loader(CSafeLoader)(text)
        try:
            node = loader.get_single_node()
            if node is None:
                return None
            _check_size(node)
            return _Builder(loader, duplicates).build(node, 0)
        finally:
            loader.dispose() if hasattr(loader, "dispose") else None


_FAST = None


def _fast_loader(base):
    """``CSafeLoader`` whose resolver answers "string" at once for a scalar that no implicit
    resolver could claim: a quoted scalar, or a plain one whose first character starts none of
    the resolver's patterns (most keys and values of a master config).  Every other scalar is
    resolved exactly as ruamel does.  The tags are shared objects, so the builder recognises a
    plain string by identity instead of constructing it."""
    global _FAST
    if _FAST is not None:
        return _FAST
    from ruamel.yaml.nodes import MappingNode, ScalarNode, SequenceNode
    from ruamel.yaml.tag import Tag

    str_tag, seq_tag, map_tag = (Tag(suffix=f"tag:yaml.org,2002:{t}") for t in ("str", "seq", "map"))
    resolve = base.resolve
    firsts = frozenset(k for k in base.yaml_implicit_resolvers if k)
    anywhere = bool(base.yaml_implicit_resolvers.get(None)) or bool(getattr(base, "yaml_path_resolvers", None))

    shared: dict = {}  # resolved tags, one object per tag
    plain: dict = {}  # plain scalar text -> its tag (resolution depends on the text alone)

    class FastLoader(base):
        STR = str_tag

        def resolve(self, kind, value, implicit):
            if kind is ScalarNode:
                if anywhere:
                    return resolve(self, kind, value, implicit)
                if implicit[0] and (not value or value[0] in firsts):
                    tag = plain.get(value)
                    if tag is None:
                        tag = resolve(self, kind, value, implicit)
                        tag = shared.setdefault(tag.suffix, tag)
                        if len(plain) < 65_536:
                            plain[value] = tag
                    return tag
                return str_tag
            if anywhere:
                return resolve(self, kind, value, implicit)
            return seq_tag if kind is SequenceNode else map_tag if kind is MappingNode else resolve(self, kind, value, implicit)

    FastLoader.SCALAR, FastLoader.SEQUENCE, FastLoader.MAPPING = ScalarNode, SequenceNode, MappingNode
    _FAST = FastLoader
    return _FAST


def _check_depth(text: str) -> None:
    """Reject a document nested deeper than ``MAX_DEPTH`` before it is composed: its events are
    read one by one (libyaml's parser, else ruamel's, keep a stack of states, not the C stack)
    and the reading stops at the first level too deep.  InferenceX's largest master config
    (25,000 events) takes 0.02 s.  A syntax error is left for the loader to report."""
    from ruamel.yaml.error import YAMLError
    from ruamel.yaml.events import CollectionEndEvent, CollectionStartEvent

    depth = 0
    try:
        for e in _events(text):
            if isinstance(e, CollectionStartEvent):
                depth += 1
                if depth > MAX_DEPTH:
                    mark = e.start_mark
                    raise YAMLPosError(f"nesting deeper than {MAX_DEPTH} levels", mark.line, mark.column)
            elif isinstance(e, CollectionEndEvent):
                depth -= 1
    except YAMLError:
        return


def _events(text: str):
    """The document's parser events, one at a time."""
    try:
        from ruamel.yaml.cyaml import CParser
    except ImportError:
        from ruamel.yaml import YAML

        yield from YAML(typ="rt").parse(text)
        return
    parser = CParser(text)
    try:
        while parser.check_event():
            yield parser.get_event()
    finally:
        parser.dispose() if hasattr(parser, "dispose") else None


def _load_rt(text: str, duplicates: bool = False):
    from ruamel.yaml import YAML

    y = YAML(typ="rt")
    y.allow_duplicate_keys = duplicates
    return y.load(text)


def _check_size(root) -> None:
    """Reject documents whose aliases multiply into an enormous logical tree."""
    sizes: dict[int, int] = {}
    on_path: set[int] = set()

    def size(n, depth: int) -> int:
        k = id(n)
        if k in sizes:
            return sizes[k]
        if depth > MAX_DEPTH:
            raise YAMLPosError(f"nesting deeper than {MAX_DEPTH} levels", n.start_mark.line, n.start_mark.column)
        if k in on_path:
            raise YAMLPosError("recursive alias", n.start_mark.line, n.start_mark.column)
        v = n.value
        # a scalar weighs one node per 64 bytes of its text too: aliases of a large string are
        # bounded by the bytes they expand to, not only by their count (a 1 MB string aliased
        # 2,000 times was 2 GB of values downstream)
        total = 1 + (len(v) >> 6 if isinstance(v, str) else 0)
        if isinstance(v, list):
            on_path.add(k)
            for item in v:
                if isinstance(item, tuple):
                    total += size(item[0], depth + 1) + size(item[1], depth + 1)
                else:
                    total += size(item, depth + 1)
                if total > MAX_NODES:
                    raise YAMLPosError(
                        f"aliases expand to more than {MAX_NODES:,} nodes (a node per 64 bytes of text)",
                        n.start_mark.line,
                        n.start_mark.column,
                    )
            on_path.discard(k)
        sizes[k] = total
        return total

    size(root, 0)


class _Builder:
    MERGE = "tag:yaml.org,2002:merge"

    def __init__(self, loader, duplicates: bool = False):
        self.loader = loader
        self.duplicates = duplicates
        self.done: dict[int, object] = {}
        self.str_tag = getattr(loader, "STR", None)
        self.scalars: dict = {}  # (tag, text) -> value, for tags shared by the loader
        self.scalar_node, self.mapping_node, self.sequence_node = loader.SCALAR, loader.MAPPING, loader.SEQUENCE

    def scalar(self, node):
        tag = node.ctag
        if tag is self.str_tag:
            return node.value
        key = (id(tag), node.value)
        hit = self.scalars.get(key, self)
        if hit is not self:
            return hit
        value = self.loader.construct_object(node, deep=True)
        if hasattr(value, "isoformat"):  # dates stay text, as written
            value = node.value
        if type(value) in (int, float, bool, str, type(None)):  # immutable: shared by equal scalars
            self.scalars[key] = value
        return value

    def build(self, node, depth: int):
        hit = self.done.get(id(node))
        if hit is not None:
            return hit
        kind = type(node)
        if kind is self.scalar_node:
            return self.scalar(node)
        if kind is self.mapping_node:
            out = PosMap()
            out.lc = _LC(node.start_mark.line, node.start_mark.column)
            self.done[id(node)] = out
            merged = []
            for knode, vnode in node.value:
                if knode.ctag is not self.str_tag and knode.tag == self.MERGE:
                    merged.append(vnode)
                    continue
                key = self.build(knode, depth + 1)
                try:
                    hash(key)
                except TypeError:
                    raise YAMLPosError(
                        "a mapping key that is not a scalar", knode.start_mark.line, knode.start_mark.column
                    ) from None
                if key in out:
                    if not self.duplicates:
                        raise YAMLPosError(f"duplicate key {key!r}", knode.start_mark.line, knode.start_mark.column)
                    out.lc.dups.append((key, *out.lc.keys[key]))
                    del out[key]  # (the later one is last in order, as it is in the text)
                out[key] = self.build(vnode, depth + 1)
                out.lc.keys[key] = (knode.start_mark.line, knode.start_mark.column)
                out.lc.values[key] = (vnode.start_mark.line, vnode.start_mark.column)
            for m in merged:  # `<<: *base` / `<<: [*a, *b]`: keys not set here come from there
                sources = m.value if type(m) is self.sequence_node else [m]
                for src in sources:
                    base = self.build(src, depth + 1)
                    if not isinstance(base, dict):
                        raise YAMLPosError(
                            "merge (<<) of something that is not a mapping", src.start_mark.line, src.start_mark.column
                        )
                    for k, v in base.items():
                        if k not in out:
                            out[k] = v
                            lc = getattr(base, "lc", None)
                            if lc is not None and k in lc.keys:
                                out.lc.keys[k] = lc.keys[k]
                                out.lc.values[k] = lc.values[k]
            return out
        if kind is self.sequence_node:
            out = PosSeq()
            out.lc = _LC(node.start_mark.line, node.start_mark.column)
            self.done[id(node)] = out
            for item in node.value:
                out.append(self.build(item, depth + 1))
                out.lc.items.append((item.start_mark.line, item.start_mark.column))
            return out
        return self.scalar(node)
