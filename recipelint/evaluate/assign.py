"""Assignments and declarations: scalars, indexed and associative arrays, `declare`/`local`/
`export`/`readonly` with their attributes, name references."""

from __future__ import annotations

import re

from recipelint.bash.tree import Node
from recipelint.evaluate import summaries as memo
from recipelint.evaluate.quoting import _QUOTING
from recipelint.evaluate.state import _NAME, UNKNOWN_NAMES, State, _CmdError, _ReadonlyError
from recipelint.evaluate.support import _EXPORTED_FUNCTION
from recipelint.evaluate.tilde import _TILDE_ASSIGN
from recipelint.evaluate.values import (
    EMPTY,
    Chunk,
    Word,
    is_known,
    slice_str,
    text_of,
    unknown,
)
from recipelint.evaluate.variables import Kind, Var

_KEYED_ELEMENT = re.compile(r"^\[([^\]]*)\]\+?=")  # `[key]=value` in an array literal


def _shadowed_export(st: State, name: str) -> bool:
    """Whether the nearest set variable ``name`` (skipping locals declared without a value) is
    exported; a recorded read of its attributes (recipelint.evaluate.summaries)."""
    frames = st.frames
    for i in range(len(frames) - 1, -2, -1):
        v = (frames[i] if i >= 0 else st.vars).get(name)
        if st.recs:  # every scope looked at: what it held decided the answer
            memo.note_all(st.recs, i, name, memo.ATTRS)
        if v is not None:
            return v.exported
    return False


#: the attributes an unset name keeps once declared with them (`export X`, `declare -i N`)
_KEPT_ATTRS = frozenset("xri")


#: array elements that bash splits into fields when unquoted
_SPLIT_ELEMENTS = frozenset({"command_substitution", "simple_expansion", "expansion"})


def _split_unknown(chunk, spans) -> bool:
    """Whether ``chunk`` is a value not known that an unquoted element (one of ``spans``) gave."""
    if chunk.known or chunk.loc is None:
        return False
    real = chunk.loc.real() if hasattr(chunk.loc, "real") else chunk.loc
    return any(a <= real.start < b for a, b in spans)


class _Keyed:
    """An indexed array literal with indices in it (``(x [5]=y z)``): what it makes depends on
    where its elements start (Evaluator._indexed)."""

    __slots__ = ("node",)

    def __init__(self, node):
        self.node = node


class Assignments:
    """Setting variables (see the module docstring)."""

    def assign(self, node: Node, st: State, local: bool = False, attrs: str = "") -> None:
        name_node = node.field("name")
        value = node.field("value")
        op = "="
        for c in node.children:
            if c.type in ("=", "+="):
                op = c.type
        if name_node is None:
            return
        index = None
        if name_node.type == "subscript":
            idx_node = name_node.field("index")
            name = name_node.field("name").text
            index = idx_node
        else:
            name = name_node.text
        var = st.lookup(name, attrs_only=op == "=" and index is None)
        if var is not None and var.readonly:
            raise _ReadonlyError(node.loc, f"{name}: readonly variable")
        kind_attr = Kind.ASSOC if "A" in attrs else (Kind.INDEXED if "a" in attrs else None)
        if value is not None and value.type == "array":
            elems = self.array_elements(
                value, st, assoc=(kind_attr == Kind.ASSOC or (var is not None and var.kind == Kind.ASSOC))
            )
            if isinstance(elems, _Keyed):  # `(x [5]=y z)`: elements at the indices given
                base = {}
                if op == "+=" and var is not None and var.kind == Kind.SCALAR:
                    base = {0: Word(var.value, node.loc)}
                elif op == "+=" and var is not None and var.kind == Kind.INDEXED:
                    base = dict(var.value)
                d = self._indexed(elems, base, st, node.loc)
                kind = (
                    Kind.INDEXED
                    if d is not None and (var is None or op != "+=" or var.kind in (Kind.INDEXED, Kind.SCALAR))
                    else Kind.UNKNOWN_ARRAY
                )
                val = d if kind == Kind.INDEXED else unknown(f"${{{name}[@]}}", value.loc, multi=True)
                st.put(name, Var(kind, val, var.exported if var else False), local)
                return
            if elems is None:  # an associative array with a key not known
                st.put(
                    name,
                    Var(Kind.UNKNOWN_ARRAY, unknown(f"${{{name}[@]}}", value.loc, multi=True), var.exported if var else False),
                    local,
                )
                return
            if isinstance(elems, dict):
                if op == "+=" and var is not None and var.kind == Kind.ASSOC:
                    d = dict(var.value)
                    d.update(elems)
                    elems = d
                st.put(name, Var(Kind.ASSOC, elems, var.exported if var else False), local)
                return
            if op == "+=" and var is not None:
                if var.kind == Kind.INDEXED:
                    d = dict(var.value)
                    nxt = max(d) + 1 if d else 0
                    for w in elems:
                        d[nxt] = w
                        nxt += 1
                    st.put(name, var.copy(value=d), local)
                    return
                if var.kind == Kind.UNKNOWN_ARRAY:
                    return
                if var.kind == Kind.SCALAR:
                    d = {0: Word(var.value, node.loc)}
                    for i, w in enumerate(elems, 1):
                        d[i] = w
                    st.put(name, var.copy(kind=Kind.INDEXED, value=d), local)
                    return
            spans = [(c.start, c.end) for c in value.children if c.type in _SPLIT_ELEMENTS]
            if any(any(c.multi or (spans and _split_unknown(c, spans)) for c in w.chunks) for w in elems):
                # (an unquoted expansion whose value is not known splits into words not known in
                # number: `a=($(nvidia-smi -L))`, `${#a[@]}` is not known)
                st.put(
                    name,
                    Var(Kind.UNKNOWN_ARRAY, unknown(f"${{{name}[@]}}", value.loc, multi=True), var.exported if var else False),
                    local,
                )
                return
            st.put(name, Var(Kind.INDEXED, dict(enumerate(elems)), var.exported if var else False), local)
            return
        val = self.expand_scalar(value, st, _TILDE_ASSIGN) if value is not None else EMPTY
        if (var is not None and var.integer) or "i" in attrs:
            n = self._arith_int(text_of(val) if is_known(val) else None, st, node.loc)
            if op == "+=" and index is None and var is not None and var.kind == Kind.SCALAR:
                # `N+=2` on an integer adds (`declare -i N=0; N+=2` is 2, not 02)
                old = self._arith_int(text_of(var.value) if is_known(var.value) else None, st, node.loc)
                n = None if n is None or old is None else old + n
                op = "="
            val = unknown(f"${name}", node.loc) if n is None else (Chunk(str(n), value.loc if value else node.loc),)
        if index is not None:
            if var is not None and var.kind == Kind.UNKNOWN_ARRAY:  # elements not known (nor whether it is associative)
                st.put(name, Var(Kind.UNKNOWN_ARRAY, unknown(f"${{{name}[@]}}", node.loc, multi=True), var.exported), local)
                return
            if var is not None and var.kind == Kind.ASSOC:
                key = text_of(self.expand_scalar(index, st))
                d = dict(var.value)
                if key is None:
                    st.put(name, Var(Kind.UNKNOWN_ARRAY, unknown(f"${{{name}[@]}}", node.loc, multi=True), var.exported), local)
                    return
                old = d.get(key)
                d[key] = Word((old.chunks if old and op == "+=" else EMPTY) + val, node.loc)
                st.put(name, var.copy(value=d), local)
                return
            # (expanded, then evaluated: `a[$i+1]`, `a["$k"]`, `a[10#$h]`)
            i = self._arith_int(text_of(self.expand_scalar(index, st)), st, index.loc)
            if var is None or var.kind not in (Kind.INDEXED, Kind.UNKNOWN_ARRAY):
                base = {} if var is None else {0: Word(var.value, node.loc)}
                var = Var(Kind.INDEXED, base, var.exported if var else False)
            if var.kind == Kind.UNKNOWN_ARRAY or i is None:
                st.put(name, Var(Kind.UNKNOWN_ARRAY, unknown(f"${{{name}[@]}}", node.loc, multi=True), var.exported), local)
                return
            d = dict(var.value)
            if i < 0:
                i = (max(d) + 1 if d else 0) + i
            old = d.get(i)
            d[i] = Word((old.chunks if old and op == "+=" else EMPTY) + val, node.loc)
            st.put(name, var.copy(value=d), local)
            return
        if op == "+=" and var is not None:
            if var.kind == Kind.SCALAR:
                val = var.value + val
            elif var.kind == Kind.INDEXED:
                d = dict(var.value)
                old = d.get(0)
                d[0] = Word((old.chunks if old else EMPTY) + val, node.loc)
                st.put(name, var.copy(value=d), local)
                return
        self.set_scalar(st, name, val, node.loc, local=local)

    def set_scalar(self, st: State, name: str, val, loc, local: bool = False, export: bool | None = None) -> None:
        if local and st.frames:
            var = st.frames[-1].get(name)
        else:
            var = st.lookup(name, attrs_only=True) if not local else st.lookup(name)
        if var is not None and var.readonly:  # (`read R`, `printf -v R`: not assigned)
            st.notes.append((loc, f"{name}: readonly variable"))
            return
        if var is not None and var.kind == Kind.INDEXED:
            d = dict(var.value)
            d[0] = Word(val, loc)
            st.put(name, var.copy(value=d, exported=var.exported if export is None else export), local)
            return
        if export is not None:
            exported = export
        elif var is not None:
            exported = var.exported
        else:
            # a new local of an exported name is exported, as in bash: it inherits that one
            # attribute from the variable it shadows (`local X` without a value inherits it when
            # declared; a local unset by `unset X` has no attributes left to give)
            exported = local and bool(st.frames) and _shadowed_export(st, name)
        st.put(name, Var(Kind.SCALAR, val, exported, var.readonly if var else False, var.integer if var else False), local)

    def declare(self, node: Node, st: State) -> None:
        kw = node.children[0].type if node.children else "declare"
        attrs = set()
        unset_attrs = set()
        missing = False  # `declare -p` of a name that is not set
        in_func = bool(st.frames)
        local = kw == "local" or (kw in ("declare", "typeset") and in_func)
        if kw == "export":
            attrs.add("x")
        if kw == "readonly":
            attrs.add("r")
        for c in node.children[1:]:
            if not c.named:
                continue
            if c.type == "word" and c.text.startswith(("-", "+")) and len(c.text) > 1 and "=" not in c.text:
                flags = c.text[1:]
                (attrs if c.text[0] == "-" else unset_attrs).update(flags)
                if kw == "export" and "n" in attrs:  # `export -n NAME`: no longer exported
                    attrs.discard("x")
                    unset_attrs.add("x")
                if "g" in flags:
                    local = False
                continue
            if "f" in attrs or "F" in attrs:
                # `declare -F NAME` prints the name, `-f` the definition; `export -f NAME` marks it
                # exported; all fail for a name that is no function (`if declare -F f >/dev/null`)
                if c.text not in st.funcs:
                    missing = True
                elif kw != "export" and st.out is not None:
                    st.out = st.out + ((Chunk(c.text + "\n", c.loc),) if "F" in attrs else unknown(f"declare -f {c.text}", c.loc))
                if "x" in attrs or "x" in unset_attrs:
                    self._export_function(st, c.text, export="x" in attrs, unexport="x" in unset_attrs)
                continue
            if "p" in attrs:  # `declare -p NAME`: prints; fails for a name that is not set (a set -u guard)
                if c.type in ("variable_name", "word") and _NAME.fullmatch(c.text) and st.lookup(c.text, attrs_only=True) is None:
                    missing = True
                continue
            if "n" in attrs and kw != "export" and c.type in ("variable_assignment", "variable_name", "word"):
                self._declare_reference(c, st, local)
                continue
            if c.type == "variable_assignment":
                nm = c.field("name")
                if nm.type == "subscript" and kw in ("export", "readonly"):
                    missing = True  # bash: "`C[1]': not a valid identifier" (declare and local take it)
                    continue
                self.assign(c, st, local=local and kw != "export", attrs="".join(attrs))
                name = nm.text if nm.type != "subscript" else nm.field("name").text
                self._apply_attrs(st, name, attrs, unset_attrs, local and kw != "export")
                continue
            if c.type not in ("variable_name", "word", "variable_assignment"):
                st.notes.append((c.loc, UNKNOWN_NAMES))  # (`export $(cat env)`, `declare "$k=$v"`)
            if c.type in ("variable_name", "word"):
                name = c.text
                if not _NAME.fullmatch(name):
                    # declare "$X" forms: expand and treat as NAME[=VALUE]
                    try:
                        txt = text_of(self.expand_scalar(c, st))
                    except _CmdError:
                        txt = None
                    if txt is None:
                        st.notes.append((c.loc, UNKNOWN_NAMES))
                        continue
                    if "=" in txt:
                        n, v = txt.split("=", 1)
                        self.set_scalar(st, n, (Chunk(v, c.loc),), c.loc, local=local and kw != "export")
                        self._apply_attrs(st, n, attrs, unset_attrs, local and kw != "export")
                    continue
                var = st.lookup(name)
                if var is None or (local and st.frames and name not in st.frames[-1]):
                    if "a" in attrs:
                        st.put(name, Var(Kind.INDEXED, {}), local)
                    elif "A" in attrs:
                        st.put(name, Var(Kind.ASSOC, {}), local)
                    elif local and kw != "export":
                        # `local X`: declared, unset until assigned (as in bash: `${X-unset}`, and
                        # `set -u` stops on it); with attributes (`local -i N`) it is kept set and
                        # empty, to hold them; outside a function (an error in bash) it is set empty
                        if st.frames:
                            st.frames[-1][name] = Var(Kind.UNSET, EMPTY, True) if _shadowed_export(st, name) else None
                        else:
                            st.vars[name] = Var(Kind.SCALAR, EMPTY)
                self._apply_attrs(st, name, attrs, unset_attrs, local and kw != "export", create=True)
        st.status = 1 if missing else 0

    def _declare_reference(self, c: Node, st: State, local: bool) -> None:
        """`declare -n R=A` / `local -n R=$1`: R is a name reference (reads and writes of R are
        of A); `declare -n R` makes one without a target (the first value assigned is it)."""
        if c.type == "variable_assignment":
            nm, value = c.field("name"), c.field("value")
            if nm is None or nm.type != "variable_name":
                return
            name, target = nm.text, self.expand_scalar(value, st) if value is not None else EMPTY
        else:
            name, target = c.text, EMPTY
            if not _NAME.fullmatch(name):
                return
            old = st.lookup(name, raw=True)
            if old is not None and old.kind == Kind.SCALAR:  # `X=A; declare -n X`: X's value is the target
                target = old.value
        scope = st.frames[-1] if (local and st.frames) else st.scope_of(name)
        scope[name] = Var(Kind.REF, target)

    def _export_function(self, st, name, export: bool, unexport: bool) -> None:
        """Mark a function exported (or not): a new bash process started later gets it
        (``_new_process``).  The mark is an entry of the function table no command can name."""
        mark = _EXPORTED_FUNCTION + name
        if export and name in st.funcs:
            st.funcs[mark] = st.funcs[name]
        elif unexport and mark in st.funcs:
            del st.funcs[mark]
        else:
            return
        st.funcs_ver = self._fver_step(st.funcs_ver, mark, st.funcs.get(mark))

    def _apply_attrs(self, st, name, attrs, unset_attrs, local, create=False):
        var = st.lookup(name, attrs_only=True)
        if var is None:
            if create and attrs & _KEPT_ATTRS:
                # `export X`, `declare -i N`, `readonly R` of an unset name: declared, unset, and
                # an assignment later keeps the attributes
                st.put(name, Var(Kind.UNSET, EMPTY, "x" in attrs, "r" in attrs, "i" in attrs), local)
            return
        v = var.copy()
        if "x" in attrs:
            v.exported = True
        if "x" in unset_attrs:
            v.exported = False
        if "r" in attrs:
            v.readonly = True
        if "i" in attrs:
            v.integer = True
        if "a" in attrs and v.kind == Kind.SCALAR:
            v.kind = Kind.INDEXED
            v.value = {0: Word(var.value, None)} if var.value else {}
        if "A" in attrs and v.kind == Kind.SCALAR and not var.value:
            v.kind = Kind.ASSOC
            v.value = {}
        if "l" in attrs and v.kind == Kind.SCALAR and is_known(v.value):
            v.value = tuple(c.with_text(c.text.lower()) for c in v.value)
        if "u" in attrs and v.kind == Kind.SCALAR and is_known(v.value):
            v.value = tuple(c.with_text(c.text.upper()) for c in v.value)
        st.put(name, v, False)

    def array_elements(self, node: Node, st: State, assoc: bool):
        """The elements of an array literal: a list of words; for an associative array, a dict
        (None when a key is not known); for an indexed one with indices in it, a _Keyed."""
        elems: list[Word] = []
        keyed: dict = {}
        # each element is a step of the evaluation: a script assigning a 5,000-element array in
        # each of hundreds of copies of itself stops at the step limit (found by the fuzz suite)
        self.steps += len(node.children)
        kids = [c for c in node.children if c.named and c.type != "comment"]
        if not assoc and any(c.text.startswith("[") and _KEYED_ELEMENT.match(c.text) for c in kids):
            return _Keyed(node)
        for c in kids:
            raw = c.text
            m = _KEYED_ELEMENT.match(raw) if raw.startswith("[") else None
            if m:
                key, w, append = self._keyed_element(c, m, st)
                if key is None:
                    return None
                old = keyed.get(key) if append else None
                keyed[key] = Word(old.chunks + w.chunks, c.loc) if old is not None else w
                continue
            if assoc:
                continue
            elems.extend(self.expand_word(c, st, assign_like=False))  # (`(x=~/a)`: not expanded)
        return keyed if assoc else elems

    def _keyed_element(self, c, m, st):
        """``[key]=value`` (``m``: its _KEYED_ELEMENT match) in an array literal: (the key,
        expanded; None when not known), the value's word, and whether it is ``[key]+=value``."""
        val = self.expand_scalar(c, st)
        key, cut = m.group(1), len(m.group(0))
        if _QUOTING.search(key):  # `[$k]=v`, `["a b"]=v`: the key as expanded
            t = text_of(val)
            j = t.find("]") if t is not None else -1
            if j < 0:
                return None, None, False
            key, cut = t[1:j], j + (3 if t.startswith("]+=", j) else 2)
        return key, Word(slice_str(val, cut), c.loc), "+=" in m.group(0)

    def _indexed(self, keyed: _Keyed, base: dict, st: State, loc) -> dict | None:
        """The indexed array ``(x [5]=y z)`` makes, added to ``base``: an element without an
        index goes one past the previous one (past the last element of ``base`` at first); None
        when an index or a word list is not known."""
        d = dict(base)
        nxt = max(d) + 1 if d else 0
        for c in keyed.node.children:
            if not c.named or c.type == "comment":
                continue
            raw = c.text
            m = _KEYED_ELEMENT.match(raw) if raw.startswith("[") else None
            if m:
                key, w, append = self._keyed_element(c, m, st)
                i = self._arith_int(key, st, loc) if key is not None else None
                if i is None:
                    return None
                if i < 0:
                    i += nxt
                old = d.get(i) if append else None
                d[i] = Word(old.chunks + w.chunks, c.loc) if old is not None else w
                nxt = i + 1
                continue
            for w in self.expand_word(c, st):
                if any(ch.multi for ch in w.chunks):
                    return None
                d[nxt] = w
                nxt += 1
        return d
