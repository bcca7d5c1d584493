"""Parameter expansion: ``$X``, ``${X:-word}``, ``${#X}``, ``${X%pat}``, ``${X/a/b}``,
``${X:o:l}``, ``${X@Q}``, ``${!X}`` and arrays, and the glob patterns of their operands."""

from __future__ import annotations

import re

from recipelint.bash.parse import parse
from recipelint.bash.patterns import (
    MAX_WILDCARD_TEXT,
    glob_match,
    replace_pattern,
    strip_pattern,
)
from recipelint.bash.source import VirtualSource
from recipelint.bash.tree import Node
from recipelint.evaluate import summaries as memo
from recipelint.evaluate.quoting import (
    _ESCAPED_END,
    _IN_DQ,
    _IN_HEREDOC,
    _QUOTING,
    _TEXT_EXPANSION,
    _ansi_c,
    _text_name,
    _unescape_dq,
    _unescape_unquoted,
)
from recipelint.evaluate.state import State, _CmdError, _Exit, _ExpansionError, unset_read
from recipelint.evaluate.support import _MADE_UP, EXPANSION_TYPES, _join_segs, _relocate
from recipelint.evaluate.tilde import _TILDE_WORD
from recipelint.evaluate.values import (
    EMPTY,
    UNKNOWN_ARGS,
    Chunk,
    Word,
    display,
    emptiness,
    first_loc,
    slice_str,
    text_of,
    unknown,
)
from recipelint.evaluate.variables import Kind


def _assoc_order(d: dict) -> list:
    """The keys of an associative array in the order bash 5.2 lists them: its hash table's
    1,024 buckets in turn (FNV-1 of the key), the key set last first within a bucket."""

    def place(item):
        i, key = item
        h = 2166136261
        for b in key.encode():
            h = ((h * 16777619) & 0xFFFFFFFF) ^ b
        return (h & 1023, -i)

    return [k for _, k in sorted(enumerate(d), key=place)]


_REF = re.compile(r"([A-Za-z_][A-Za-z0-9_]*|[0-9]+)(?:\[(.*)\])?")
from recipelint.evaluate.values import ENV_NAME as _ENV_NAME  # noqa: E402


def _splittable(segs: list, start: int) -> None:
    """Make the text segments from ``start`` on subject to word splitting (unquoted text in the
    word of ``${X:-word}``)."""
    for i in range(start, len(segs)):
        s = segs[i]
        if s[0] == "t":
            segs[i] = ("t", s[1], False, True, *s[4:])


def _substring(val, txt, bounds, node):
    """``${X:off:len}`` of a value whose text is ``txt``, by ``_substring_bounds``' answer: unknown
    where a bound is; None (nothing) for an offset before the start or past the end
    (``${X:...}`` then expands to an empty string; a scalar's ``"${S[@]:...}"`` to no word).  A
    negative length counts from the end and must not end before the offset (an expansion error)."""
    has_len, off, ln = bounds
    if off is None or (has_len and ln is None):
        return unknown(node.text, node.loc)
    if off < 0:
        off += len(txt)
    if off < 0 or off > len(txt):
        return None
    end = None if ln is None else (off + ln if ln >= 0 else len(txt) + ln)
    if end is not None and end < off:
        raise _Exit(1, node.loc, f"{ln}: substring expression < 0")
    return slice_str(val, off, end)


def _retext(val, new):
    loc = first_loc(val)
    return (Chunk(new, loc),) if new else EMPTY


class Parameters:
    """Expanding parameters (see the module docstring)."""

    def ambient_value(self, name: str):
        """The value of an upper-case variable the script never set, in an ambient environment
        (``values.AMBIENT``): set, unknown — one value per name for the run, so that
        ``_param_default`` can tell it from a value the script gave."""
        val = self._ambient_values.get(name)
        if val is None:
            val = self._ambient_values[name] = unknown(f"${name}", None, nonempty=True)
        return val

    def is_ambient(self, name: str, val) -> bool:
        return getattr(self, "ambient", False) and val is not None and val is self._ambient_values.get(name)

    def param_value(self, name: str, index, node, st):
        """Scalar value (Str), list of Words for ``[@]``/``[*]``, or None when unset."""
        if name.isdigit():
            i = int(name)
            if i == 0:
                if st.recs:
                    memo.note_script(st.recs)
                return (Chunk(st.script, None),)
            if st.pos and st.pos[-1] is UNKNOWN_ARGS and i >= len(st.pos):
                return unknown(f"${i}", node.loc if node is not None else None)
            return st.pos[i - 1].chunks if i <= len(st.pos) else None
        if name == "#":
            if st.pos and st.pos[-1] is UNKNOWN_ARGS:
                return unknown("$#", node.loc if node is not None else None, nonempty=True)
            return (Chunk(str(len(st.pos)), node.loc),)
        if name == "?":
            return (Chunk(str(st.status), node.loc),) if isinstance(st.status, int) else unknown("$?", node.loc, nonempty=True)
        if name in _MADE_UP:
            if st.lookup(name) is None:
                return unknown(f"${name}", node.loc, nonempty=True)
        if name == "-":
            return (Chunk("hB" + ("e" if st.errexit else "") + ("u" if st.nounset else ""), node.loc),)
        var = st.lookup(name)
        if var is None:
            if name in ("BASH_SOURCE",):
                if st.recs:
                    memo.note_script(st.recs)
                return (Chunk(st.script, None),)
            if name == "FUNCNAME":
                return unknown("$FUNCNAME", node.loc, nonempty=True)
            if name == "PIPESTATUS":  # the statuses of the last pipeline's commands (not followed)
                val = unknown("$PIPESTATUS", node.loc, nonempty=True)
                return [Word(val, node.loc)] if index in ("@", "*") else val
            if getattr(self, "ambient", False) and _ENV_NAME.fullmatch(name):
                return self.ambient_value(name)
            return None
        if index is None:
            if var.kind == Kind.SCALAR:
                return var.value
            if var.kind == Kind.UNKNOWN_ARRAY:
                return unknown(f"${name}", node.loc)
            d = var.value
            w = d.get(0) if var.kind == Kind.INDEXED else d.get("0")
            return w.chunks if w is not None else None
        if index in ("@", "*"):
            if var.kind == Kind.SCALAR:
                return [Word(var.value, node.loc)]
            if var.kind == Kind.UNKNOWN_ARRAY:
                return [Word(var.value, node.loc)]
            d = var.value
            keys = sorted(d) if var.kind == Kind.INDEXED else _assoc_order(d)
            return [d[k] for k in keys]
        # specific element
        if var.kind == Kind.UNKNOWN_ARRAY:
            return unknown(f"${{{name}[{index}]}}", node.loc)
        if var.kind == Kind.ASSOC:
            w = var.value.get(index)
            return w.chunks if w is not None else None
        i = self._arith_int(index, st, node.loc)
        if i is None:
            return unknown(f"${{{name}[{index}]}}", node.loc)
        if var.kind == Kind.SCALAR:
            return var.value if i == 0 else None
        d = var.value
        if i < 0:
            i = (max(d) + 1 if d else 0) + i
        w = d.get(i)
        return w.chunks if w is not None else None

    def _param_complex(self, node: Node, st: State, segs, quoted, scalar):
        kids = node.children
        inner = [c for c in kids if c.type not in ("${", "}")]
        if not inner:
            raise _ExpansionError(node.loc, f"{node.text}: bad substitution")
        prefix_op = None
        i = 0
        if inner[0].type in ("#", "!") and len(inner) > 1 and node.fields[kids.index(inner[0])] == "operator":
            prefix_op = inner[0].type
            i = 1
        target = inner[i]
        name, index = None, None
        if target.type == "subscript":
            name = target.field("name").text
            idx = target.field("index")
            index = idx.text if idx is not None else None
            if idx is not None and (idx.type not in ("word", "number") or idx.children) and index not in ("@", "*"):
                it = self.expand_scalar(idx, st)
                index = text_of(it)
                if index is None:
                    segs.append(("t", unknown(node.text, node.loc), quoted, False))
                    return
        elif target.type in ("variable_name", "special_variable_name", "word", "number", "#"):
            name = target.text  # (`#`: `${#}`, and `${!#}`, the last argument)
        else:
            segs.append(("t", unknown(node.text, node.loc), quoted, False))
            return
        rest = inner[i + 1 :]
        if prefix_op == "!" and index is None and len(rest) == 1 and rest[0].type in ("@", "*"):
            # `${!SLURM_@}`: the names of set variables with the prefix, the environment's among
            # them (which recipelint does not know in full)
            segs.append(("t", unknown(node.text, node.loc, multi=True), quoted, False))
            return
        if prefix_op == "#" and not rest:
            self._param_length(node, st, segs, quoted, name, index)
            return
        if prefix_op == "!":
            if index in ("@", "*"):
                var = st.lookup(name)
                keys = []
                if var is not None and var.kind in (Kind.INDEXED, Kind.ASSOC):
                    keys = [str(k) for k in (sorted(var.value) if var.kind == Kind.INDEXED else _assoc_order(var.value))]
                elif var is not None and var.kind == Kind.SCALAR:
                    keys = ["0"]
                words = [Word((Chunk(k, node.loc),), node.loc) for k in keys]
                if var is not None and var.kind == Kind.UNKNOWN_ARRAY:  # (paths joined with different elements)
                    words = [Word(unknown(node.text, node.loc, multi=True), node.loc)]
                self._splice(words, segs, quoted, scalar, node, star=index == "*", st=st)
                return
            nameref = st.lookup(name, raw=True) if index is None else None
            if nameref is not None and nameref.kind == Kind.REF:  # `${!R}` of `declare -n R=A`: A
                segs.append(("t", nameref.value, quoted, False))
                return
            ref = self.param_value(name, None, node, st)
            refname = text_of(ref) if ref is not None else None
            if refname is None:
                if ref is None:
                    return
                segs.append(("t", unknown(node.text, node.loc), quoted, False))
                return
            m = _REF.fullmatch(refname)
            if not m:
                raise _ExpansionError(node.loc, f"{refname}: invalid variable name")
            name, index = m.group(1), m.group(2)
        # operator forms
        op = None
        op_idx = None
        for j, c in enumerate(rest):
            if not c.named or c.type in (":", "/", "//", "/#", "/%", "#", "##", "%", "%%", ",", ",,", "^", "^^", "@"):
                op = c.type
                op_idx = j
                break
        val = self.param_value(name, index, node, st) if name not in ("@", "*") else (list(st.pos) if True else None)
        if name in ("@", "*") and index is None:
            index = name
        if op is None:
            if val is None and st.nounset and index not in ("@", "*"):  # (`set -u` lets `${A[@]}` of an unset A be)
                val = unset_read(name, node.loc, st)
            if val is None:
                return
            if isinstance(val, list):
                self._splice(val, segs, quoted, scalar, node, star=(index == "*"), st=st)
            else:
                segs.append(("t", _relocate(val, node), quoted, not quoted and not scalar, None, node.loc))
            return
        operand_nodes = rest[op_idx + 1 :]
        is_list = isinstance(val, list)
        if op in (":-", "-", ":=", "=", ":+", "+", ":?", "?"):
            self._param_default(node, st, segs, quoted, scalar, op, name, index, val, operand_nodes, is_list)
            return
        if val is None and st.nounset and index not in ("@", "*"):
            val = unset_read(name, node.loc, st)
        if val is None:
            return
        if is_list and op == ":" and name not in ("@", "*") and operand_nodes:
            var = st.lookup(name)
            if var is not None and var.kind == Kind.SCALAR:
                # bash: a scalar's `${S[@]:o:l}` is its substring, `${S:o:l}` — one word, empty
                # too, but none for an offset out of range (before the start, past the end)
                sub = self._substring_of(val[0].chunks, operand_nodes, node, st)
                if sub is not None:
                    segs.append(("t", sub, quoted, not quoted and not scalar, None, node.loc))
                    if quoted:
                        segs.append(("exists",))
                return
        if is_list and op == ":":
            self._param_slice(node, st, segs, quoted, scalar, name, index, val, operand_nodes)
            return
        items = val if is_list else [Word(val, node.loc)]
        out_words = []
        for w in items:
            out_words.append(Word(self._transform(op, w.chunks, operand_nodes, node, st), w.loc))
        if is_list:
            self._splice(out_words, segs, quoted, scalar, node, star=(index == "*"), st=st)
        else:
            segs.append(("t", out_words[0].chunks, quoted, not quoted and not scalar, None, node.loc))

    def _param_length(self, node, st, segs, quoted, name, index):
        """``${#X}``, ``${#A[@]}``, ``${#@}``: a length, or a count of elements."""
        if index in ("@", "*"):
            val = self.param_value(name, index, node, st)
            n = len(val) if isinstance(val, list) else 0
            if isinstance(val, list) and any(any(c.multi for c in w.chunks) for w in val):
                segs.append(("t", unknown(node.text, node.loc), quoted, False))
                return
            segs.append(("t", (Chunk(str(n), node.loc),), quoted, False))
            return
        if name in ("@", "*"):
            segs.append(("t", (Chunk(str(len(st.pos)), node.loc),), quoted, False))
            return
        val = self.param_value(name, index, node, st)
        if val is None:
            val = unset_read(name, node.loc, st) if st.nounset else EMPTY
        txt = text_of(val)
        segs.append(("t", (Chunk(str(len(txt)), node.loc),) if txt is not None else unknown(node.text, node.loc), quoted, False))

    def _param_default(self, node, st, segs, quoted, scalar, op, name, index, val, operand_nodes, is_list):
        """``${X:-w}``, ``${X:=w}``, ``${X:+w}``, ``${X:?w}`` and their forms without the colon."""
        if not is_list and op[-1] in "-=+" and operand_nodes and self.is_ambient(name, val):
            # the script's default is what it runs with when its caller sets nothing — but an
            # empty one (`${X:-}`) is `set -u`'s idiom for reading X, not a default
            val = None
        if is_list:
            sval = None if not val else tuple(c for k, w in enumerate(val) for c in ((Chunk(" ", None),) if k else ()) + w.chunks)
        else:
            sval = val
        colon = op.startswith(":")
        if sval is None:
            use_alt = True
        elif colon:
            e = emptiness(sval)
            use_alt = None if e is None else e
        else:
            use_alt = False
        base = op.lstrip(":")
        if base in ("-", "="):
            if use_alt is None:
                segs.append(("t", unknown(node.text, node.loc), quoted, not quoted and not scalar, None, node.loc))
                return
            if use_alt:
                word = self._operand(node, operand_nodes, st, quoted, quoted in (_IN_DQ, _IN_HEREDOC))
                if base == "=":
                    self.set_scalar(st, name, _join_segs(word), node.loc)
                segs.extend(word)
                return
            if is_list:
                self._splice(val, segs, quoted, scalar, node, star=(index == "*"), st=st)
            else:
                segs.append(("t", _relocate(val, node), quoted, not quoted and not scalar, None, node.loc))
            return
        if base == "+":
            if use_alt is None:
                segs.append(("t", unknown(node.text, node.loc), quoted, not quoted and not scalar, None, node.loc))
                return
            if not use_alt:
                segs.extend(self._operand(node, operand_nodes, st, quoted, quoted in (_IN_DQ, _IN_HEREDOC)))
            elif quoted:
                segs.append(("t", EMPTY, True, False))
            return
        if base == "?":
            if use_alt:
                msg = (
                    display(_join_segs(self._operand(node, operand_nodes, st, True, quoted in (_IN_DQ, _IN_HEREDOC))))
                    or "parameter null or not set"
                )
                raise _Exit(1, node.loc, f"{name}: {msg}")
            if use_alt is None:
                segs.append(("t", unknown(node.text, node.loc), quoted, not quoted and not scalar, None, node.loc))
                return
            segs.append(("t", _relocate(sval, node), quoted, not quoted and not scalar, None, node.loc))
            return

    def _param_slice(self, node, st, segs, quoted, scalar, name, index, val, operand_nodes):
        """``${A[@]:o:l}`` and ``${@:o:l}``: a slice of an array's elements (by index, as bash does)."""
        if not operand_nodes:  # `${A[@]:}`
            raise _ExpansionError(node.loc, f"{node.text}: bad substitution")
        has_len, off, ln = self._substring_bounds(operand_nodes, st, node.loc)
        if off is None or (has_len and ln is None) or any(any(c.multi for c in w.chunks) for w in val):
            segs.append(("t", unknown(node.text, node.loc, multi=True), quoted, False))
            return
        # bash slices by index, not position: `${@:1}` starts at $1 ($0 is index 0) and a
        # sparse array's `${A[@]:2}` starts at the first element whose index is >= 2
        if name in ("@", "*"):
            val = [Word(self.param_value("0", None, node, st), node.loc), *val]
            keys = list(range(len(val)))
        else:
            var = st.lookup(name)
            keys = sorted(var.value) if var is not None and var.kind == Kind.INDEXED else list(range(len(val)))
        top = keys[-1] + 1 if keys else 0
        if off < 0:
            off += top
        if off < 0 or off > top:
            sel = []
        elif ln is not None and ln < 0:
            raise _Exit(1, node.loc, f"{ln}: substring expression < 0")
        else:
            sel = [w for k, w in zip(keys, val) if k >= off]
            sel = sel if ln is None else sel[:ln]
        self._splice(sel, segs, quoted, scalar, node, star=(index == "*"), st=st)

    def _operand(self, node, operand_nodes, st, quoted, literal_quotes=False):
        """Segments of the word after an operator in ``${X:-word}`` (gaps are literal).
        ``literal_quotes``: single quotes are text (bash: in ``"${X:-'d'}"`` and a
        here-document's ``${X:-'d'}``, for ``-``, ``=``, ``+`` and ``?``)."""
        segs: list = []
        if not operand_nodes:
            return [("t", EMPTY, True, False), ("exists",)] if quoted else []
        if any(c.type == "array" for c in operand_nodes):  # `${X:+($X)}`: the parentheses are text
            operand_nodes = [k for c in operand_nodes for k in (c.children if c.type == "array" else (c,))]
        pos = operand_nodes[0].start
        for c in operand_nodes:
            if c.start > pos:
                n = len(segs)
                self._gap_literal(node, pos, c.start, segs, dq=False)
                if not quoted:  # unquoted, the word's own text is split too: `${X:-a b}` is two words
                    _splittable(segs, n)
            # (`${X:-~/d}`, `Y=${X:-~/d}`: a tilde-prefix starting the word is expanded, not in quotes)
            plan = (
                self._tilde_plan(c, _TILDE_WORD)
                if c is operand_nodes[0] and quoted is not _IN_DQ and quoted is not _IN_HEREDOC
                else None
            )
            if plan is not None and ("through" in plan or "unknown" in plan):  # (`${X:-~:$Y}`: see _tilde_through)
                segs.append(("t", unknown(c.text, c.loc), True, False))
            elif c.type in EXPANSION_TYPES:
                self._expansion(c, st, segs, quoted, False)
            elif not quoted and c.type in ("word", "concatenation"):
                for k, part in enumerate(c.children if c.type == "concatenation" else (c,)):
                    if plan is not None and k in plan:
                        self._tilde_part(part, plan[k], st, segs)
                        continue
                    n = len(segs)
                    self._operand_part(part, st, segs, quoted)
                    if part.type == "word" and "\\" not in part.text:  # (an escaped blank is text)
                        _splittable(segs, n)
            else:
                for k, part in enumerate(c.children if c.type == "concatenation" else (c,)):
                    if plan is not None and k in plan:
                        self._tilde_part(part, plan[k], st, segs)
                    elif literal_quotes and part.type == "raw_string":
                        segs.append(("t", self._lit_range(part.text, part.src, part.start, part.end), True, False))
                    else:
                        self._operand_part(part, st, segs, quoted)
            pos = c.end
        return segs

    def _operand_part(self, part, st, segs, quoted):
        """Segments of a piece of ``${X:-word}``'s word: tree-sitter-bash leaves ``$#``, ``$$``,
        ``$?``, ``$@`` ... there as text (``${W:-$$}``), bash expands them."""
        text = part.text
        found = [m for m in _TEXT_EXPANSION.finditer(text) if m.group(1)] if part.type == "word" and "$" in text else ()
        dq = quoted is _IN_DQ or quoted is _IN_HEREDOC  # (`"${U:-a\;b}"`: the backslash stays, as in a string)
        if not found:
            if dq and part.type == "word" and "\\" in text:
                segs.append(("t", self._lit(_unescape_dq(text), part), True, False))
                return
            self._segments(part, st, segs, quoted)
            return
        unescape = _unescape_dq if quoted else _unescape_unquoted
        pos = 0
        for m in found:
            a = part.start + len(text[: m.start()].encode("utf-8"))
            if m.start() > pos:
                piece = unescape(text[pos : m.start()])
                if piece:
                    segs.append(
                        ("t", self._lit_range(piece, part.src, part.start + len(text[:pos].encode("utf-8")), a), True, False)
                    )
            exp = Node("simple_expansion", a, a + len(m.group(1).encode("utf-8")), True, part.src)
            self._param(_text_name(m), None, exp, st, segs, quoted, False)
            pos = m.end()
        piece = unescape(text[pos:])
        if piece:
            segs.append(
                ("t", self._lit_range(piece, part.src, part.start + len(text[:pos].encode("utf-8")), part.end), True, False)
            )

    def _transform(self, op, val, operand_nodes, node, st):
        txt = text_of(val)
        if op == "@":  # `${V@Q}`, `${V@U}`, `${V@L}`, `${V@u}`
            kind = "".join(c.text for c in operand_nodes)
            if txt is None or kind not in ("Q", "U", "L", "u") or (kind == "Q" and not txt.isprintable()):
                return unknown(node.text, node.loc)
            new = (
                "'" + txt.replace("'", "'\\''") + "'"
                if kind == "Q"
                else txt.upper()
                if kind == "U"
                else txt.lower()
                if kind == "L"
                else txt[:1].upper() + txt[1:]
            )
            return (Chunk(new, first_loc(val) or node.loc),)
        if op in (",", ",,", "^", "^^"):
            # (`${X,,[AB]}`: only the characters the pattern matches)
            pat = self._pattern_from_nodes(operand_nodes, node, st) if operand_nodes else None
            if txt is None or (operand_nodes and pat is None):
                return unknown(node.text, node.loc)
            conv = str.lower if op[0] == "," else str.upper
            n = len(txt) if len(op) == 2 else 1
            # (one character for one, as bash maps them: `ß` stays, not Python's `SS`)
            new = (
                "".join(c if pat is not None and not glob_match(pat, c) or len(conv(c)) != 1 else conv(c) for c in txt[:n])
                + txt[n:]
            )
            return tuple(Chunk(c.text, c.loc) for c in _retext(val, new))
        if op in ("#", "##", "%", "%%"):
            segs = self._pattern_from_nodes(operand_nodes, node, st)
            if txt is None or segs is None:
                if segs is not None and op in ("%", "%%") and txt is None:
                    pass
                return unknown(node.text, node.loc)
            new = strip_pattern(txt, segs, op)
            if new is None:
                return self._too_long_for_pattern(node, st)
            if op in ("#", "##"):
                return slice_str(val, len(txt) - len(new))
            return slice_str(val, 0, len(new))
        if op in ("/", "//", "/#", "/%"):
            # operand: pattern [ '/' replacement ]
            pat_nodes, rep_nodes = [], []
            cur = pat_nodes
            sep = None
            for c in operand_nodes:
                if not c.named and c.type == "/" and cur is pat_nodes:
                    cur = rep_nodes
                    sep = c
                    continue
                cur.append(c)
            if sep is not None and ((not pat_nodes and op == "//") or (pat_nodes and _ESCAPED_END.search(pat_nodes[-1].text))):
                # tree-sitter-bash ends the pattern at an escaped slash (`${M//\//_}`), and
                # at a slash that starts it after `//` (bash: `${V////_}` replaces each `/`):
                # split the operand's text at its first unescaped slash (not its first character)
                segs, rep_txt = self._escaped_slash_operand(node, pat_nodes, rep_nodes, sep)
            else:
                segs = self._pattern_from_nodes(pat_nodes, node, st)
                rep = _join_segs(self._operand(node, rep_nodes, st, True)) if rep_nodes else EMPTY
                rep_txt = text_of(rep)
            if txt is None or segs is None or rep_txt is None:
                return unknown(node.text, node.loc)
            new = replace_pattern(txt, segs, rep_txt, op)
            if new is None:
                return self._too_long_for_pattern(node, st)
            return (Chunk(new, first_loc(val) or node.loc),) if new else EMPTY
        if op == ":":
            if not operand_nodes:  # `${X:}`
                raise _ExpansionError(node.loc, f"{node.text}: bad substitution")
            sub = self._substring_of(val, operand_nodes, node, st)
            return EMPTY if sub is None else sub
        return unknown(node.text, node.loc)

    def _substring_of(self, val, operand_nodes, node, st):
        """``${X:off:len}`` of the value ``val`` (``_substring``), its bounds evaluated unless the
        value is unknown; unknown where a bound cannot be evaluated."""
        txt = text_of(val)
        if txt is None:
            return unknown(node.text, node.loc)
        try:
            bounds = self._substring_bounds(operand_nodes, st, node.loc)
        except _CmdError:
            return unknown(node.text, node.loc)
        return _substring(val, txt, bounds, node)

    @staticmethod
    def _escaped_slash_operand(node, pat_nodes, rep_nodes, sep):
        """(pattern segments, replacement text) of a `${X/pat/rep}` operand whose pattern holds
        an escaped slash, from its text; (None, None) when it holds more than plain words."""
        if any(c.type not in ("word", "regex") for c in pat_nodes + rep_nodes):
            return None, None
        start = pat_nodes[0].start if pat_nodes else sep.start
        raw = node.src.data[start : (rep_nodes[-1].end if rep_nodes else sep.end)].decode("utf-8", "replace")
        i = 0 if pat_nodes else 1
        while i < len(raw) and raw[i] != "/":
            i += 2 if raw[i] == "\\" else 1
        return [(raw[:i], False)], re.sub(r"\\(.)", r"\1", raw[i + 1 :])

    def _too_long_for_pattern(self, node, st):
        st.notes.append(
            (node.loc, f"value longer than {MAX_WILDCARD_TEXT} characters for a pattern with wildcards: taken as unknown")
        )
        return unknown(node.text, node.loc)

    def _pattern_from_nodes(self, nodes, node, st):
        """Glob segments of the pattern ``nodes`` of the expansion ``node``: blanks between them,
        and after the operator before them, are text (tree-sitter-bash starts ``${X%% *}``'s
        pattern at the ``*``)."""
        segs = []
        kids = node.children
        at = next((i for i, c in enumerate(kids) if c is nodes[0]), 0) if nodes else 0
        pos = kids[at - 1].end if at else None
        for k, c in enumerate(nodes):
            if pos is not None and c.start > pos:
                segs.append((node.src.data[pos : c.start].decode("utf-8", "replace"), False))
            s = self.pattern_segments(c, st) if k == 0 else self._pattern_segs(c, st)
            if s is None:
                return None
            segs.extend(s)
            pos = c.end
        return segs

    def _pattern_word(self, node):
        """tree-sitter-bash reads a pattern holding quotes or expansions (``${X#$P}``,
        ``${X//$'\\n'/,}``, ``${X/'a b'/c}``) as one ``regex`` token: the word it is, parsed
        again (None when it is not one word)."""
        hit = self._pattern_words.get(id(node))
        if hit is not None and hit[1] is node:
            return hit[0]
        text = node.src.data[node.start : node.end]
        src = VirtualSource(b"x " + text + b"\n", [(0, 2, None), (2, 2 + len(text), node.loc)], node.loc)
        parsed = parse(src)
        word = None
        cmd = parsed.root.children[0] if len(parsed.root.children) == 1 else None
        if not parsed.problems and cmd is not None and cmd.type == "command" and not cmd.extra:
            args = [c for c in cmd.children if c.named and c.type != "command_name"]
            if len(args) == 1 and args[0].start == 2 and args[0].end == 2 + len(text):
                word = args[0]
        self._pattern_words[id(node)] = (word, node)
        return word

    def pattern_segments(self, node, st):
        """Glob segments (text, quoted) for a pattern node; None when unknown."""
        plan = self._tilde_plan(node, _TILDE_WORD) if node.type in ("word", "concatenation", "regex") else None
        if plan is None:
            return self._pattern_segs(node, st)
        if "through" in plan or "unknown" in plan:  # (`~:$Y`: see _tilde_through)
            return None
        out = []
        for k, c in enumerate(node.children if node.type == "concatenation" else (node,)):
            spans = plan.get(k)
            if spans is None:
                segs = self._pattern_segs(c, st)
                if segs is None:
                    return None
            else:  # `~/*`: the home directory's name as text (not a pattern), the rest as it is
                text, pos, segs = c.text, 0, []
                for i, j, login in spans:
                    home = text_of(self._tilde_value(login, c, st))
                    if home is None:
                        return None
                    segs += [(text[pos:i], False), (home, True)]
                    pos = j
                segs.append((text[pos:], False))
            for seg in segs:
                if out and not seg[1] and not out[-1][1]:
                    out[-1] = (out[-1][0] + seg[0], False)
                else:
                    out.append(seg)
        return out

    def _pattern_segs(self, node, st):
        t = node.type
        if t == "regex" and _QUOTING.search(node.text):
            word = self._pattern_word(node)
            return None if word is None else self._pattern_segs(word, st)
        if t in ("word", "extglob_pattern", "regex") or (t == "number" and not node.children):
            return [(node.text, False)]
        if t == "raw_string":
            return [(node.text[1:-1], True)]
        if t == "ansi_c_string":
            return [(_ansi_c(node.text[2:-1]), True)]
        if t == "number":  # `10#${x}`
            txt = text_of(self.expand_scalar(node, st))
            return None if txt is None else [(txt, False)]
        if t in ("string", "translated_string"):
            v = self.expand_scalar(node, st)
            txt = text_of(v)
            return None if txt is None else [(txt, True)]
        if t == "concatenation":
            out = []
            for c in node.children:
                s = self._pattern_segs(c, st)
                if s is None:
                    return None
                for seg in s:  # unquoted text read as one (`a\` and `|`: an escaped `|`)
                    if out and not seg[1] and not out[-1][1]:
                        out[-1] = (out[-1][0] + seg[0], False)
                    else:
                        out.append(seg)
            return out
        if t in EXPANSION_TYPES:
            segs: list = []
            self._expansion(node, st, segs, quoted=False, scalar=True)
            txt = text_of(_join_segs(segs))
            return None if txt is None else [(txt, False)]
        return [(node.text, False)]
