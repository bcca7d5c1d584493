"""Arithmetic and tests as the evaluator runs them: ``$(( ))``/``(( ))``/``let`` through
:mod:`recipelint.bash.arith`, and ``[[ ]]`` expressions (pattern and regex matches, comparisons)."""

from __future__ import annotations

import re

from recipelint.bash import arith
from recipelint.bash.patterns import glob_match, linear
from recipelint.bash.tree import Node
from recipelint.evaluate.quoting import _QUOTING
from recipelint.evaluate.state import (
    _NAME,
    Inexact,
    State,
    _CmdError,
    _ExpansionError,
    unset_read,
)
from recipelint.evaluate.support import (
    _MADE_UP,
    _SYSTEM_NAMES,
    EXPANSION_TYPES,
    _join_segs,
)
from recipelint.evaluate.testcmd import (
    _binary_test,
    _posix_ere,
    _test_argv,
    _test_leaves,
    _unary_test,
)
from recipelint.evaluate.tilde import _TILDE_WORD
from recipelint.evaluate.values import (
    EMPTY,
    Chunk,
    Word,
    emptiness,
    slice_str,
    text_of,
    unknown,
)
from recipelint.evaluate.values import ENV_NAME as _ENV_NAME
from recipelint.evaluate.variables import Kind, Var

_EMPTINESS_OPERAND = re.compile(r'"\$(?:([A-Za-z_][A-Za-z0-9_]*)|\{(!?)([A-Za-z_][A-Za-z0-9_]*)(:?-)?\})"')


#: names whose value the evaluator makes up when they are not set
_DYNAMIC_NAMES = frozenset(
    {"BASHPID", "RANDOM", "SECONDS", "PPID", "LINENO", "EPOCHSECONDS", "SRANDOM", "BASH_SOURCE", "FUNCNAME", "PIPESTATUS"}
)


class _FakeNode:
    __slots__ = ("loc",)

    def __init__(self, loc):
        self.loc = loc


#: `$name`, `${...}` (no nested braces) or a special parameter, in a regex token
_REGEX_EXPANSION = re.compile(r"(?<!\\)\$(?:[A-Za-z_][A-Za-z0-9_]*|\{[^{}]*\}|[0-9@#?*!$-])")


_ERE_SPECIAL = re.compile(r"([.\[\]()*+?{}|^$\\])")


def _ere_escape(text: str) -> str:
    """``text`` as a POSIX extended regular expression matching it."""
    return _ERE_SPECIAL.sub(r"\\\1", text)


class Conditions:
    """Arithmetic and `[[ ]]` tests (see the module docstring)."""

    def arith_text(self, node: Node, st: State, parts: list | None = None) -> str:
        """Source text of an arithmetic context with inner expansions done.  ``parts``: the nodes
        of one expression given apart (``arith_parts``): the text from the first to the last."""
        roots = parts or [node]
        end = roots[-1].end
        pieces = []
        pos = node.start
        data = node.src.data
        stack = list(roots)
        found = []
        while stack:
            n = stack.pop()
            if (n is not node or len(roots) > 1) and n.type in EXPANSION_TYPES:
                found.append(n)
                continue
            stack.extend(n.children)
        found.sort(key=lambda n: n.start)
        for n in found:
            if n.start < pos:
                continue
            pieces.append(data[pos : n.start].decode("utf-8", "replace").replace("\\\n", ""))
            segs: list = []
            self._expansion(n, st, segs, quoted=True, scalar=True)
            v = _join_segs(segs)
            txt = text_of(v)
            pieces.append(f" {arith.UNKNOWN_NAME} " if txt is None else txt)
            pos = n.end
        # (a backslash-newline in the expression's text is removed, as bash does before reading it)
        pieces.append(data[pos:end].decode("utf-8", "replace").replace("\\\n", ""))
        return "".join(pieces)

    def _substring_bounds(self, operand_nodes, st: State, loc):
        """Whether ``${X:offset:length}`` has a length, its offset and its length (None:
        unknown).  bash expands what they hold first (``$o``, ``$((...))``, ``${#X}``); an empty
        offset or length is 0 (``${X::2}``, ``${X:1:}``)."""
        parts: list[list] = [[]]
        for c in operand_nodes:
            if not c.named and c.type == ":" and len(parts) == 1:
                parts.append([])
            elif c.named:
                parts[-1].append(c)
        bounds = []
        for nodes in parts:
            if not nodes:
                bounds.append(0)
                continue
            n = nodes[0]
            text = text_of(self.expand_scalar(n, st)) if n.type in EXPANSION_TYPES else self.arith_text(n, st)
            bounds.append(self._arith_int(text, st, loc))
        return len(parts) > 1, bounds[0], bounds[1] if len(parts) > 1 else None

    def _arith_env(self, st: State, loc) -> arith.ArithEnv:
        def get(name, index):
            if name in _MADE_UP and st.lookup(name) is None:
                return None
            if name.isdigit():
                v = self.param_value(name, None, None, st)
            else:
                var = st.lookup(name)
                if var is None:
                    if getattr(self, "ambient", False) and _ENV_NAME.fullmatch(name):
                        return None  # (the caller's environment may set it: not known, as a `$NAME` is)
                    if st.nounset:
                        unset_read(name, loc, st)
                        return None  # (a name the environment may set: not known)
                    return ""
                if index is None:
                    v = self.param_value(name, None, _FakeNode(loc), st)
                else:
                    v = self.param_value(name, str(index), _FakeNode(loc), st)
            if v is None:
                return ""
            if isinstance(v, list):
                return None
            return text_of(v)

        def set_(name, index, value):
            val = unknown(f"${name}", loc) if value is None else (Chunk(str(value), loc),)
            if index is not None:
                var = st.lookup(name)
                d = dict(var.value) if var is not None and var.kind == Kind.INDEXED else {}
                d[index] = Word(val, loc)
                st.put(name, Var(Kind.INDEXED, d, var.exported if var else False))
            else:
                self.set_scalar(st, name, val, loc)

        return arith.ArithEnv(get, set_)

    def arith_eval_text(self, text: str, st: State, loc) -> int | None:
        try:
            return arith.evaluate(text, self._arith_env(st, loc))
        except arith.ArithError as e:
            raise _CmdError(loc, f"{text.strip()}: {e}") from None
        except RecursionError:
            raise _CmdError(loc, "expression recursion level exceeded") from None

    def _arith_int(self, text, st, loc):
        if text is None:
            return None
        return self.arith_eval_text(text, st, loc)

    def arith_expansion(self, node: Node, st: State):
        text = self.arith_text(node, st).strip()
        inner = text[3:-2] if text.startswith("$((") and text.endswith("))") else (text[2:-1] if text.startswith("$[") else text)
        env = self._arith_env(st, node.loc)
        try:
            value = arith.evaluate(inner, env)
        except arith.ArithError as e:
            raise _ExpansionError(node.loc, f"{inner.strip()}: {e}") from None
        except RecursionError:
            raise _ExpansionError(node.loc, "expression recursion level exceeded") from None
        if env.inexact and value is not None:
            # did the truncation change the result?  (`CONC * 3 / 2 > 8 ? ... : 8` at CONC=1 does not)
            try:
                exact = arith.evaluate(inner, self._arith_env(st, node.loc), rational=True)
            except (arith.ArithError, TypeError, ZeroDivisionError, RecursionError):
                exact = None
            if exact is not None and exact != value:
                a, b = env.inexact[0]
                st.inexact = st.inexact + (Inexact(node.loc, node.text.strip(), a, b, value, exact),)
        return value

    def _emptiness_of(self, operand: Node, st: State) -> bool | None:
        """`-z`/`-n` on one quoted variable (`"$X"`, `"${X:-}"`, `"${!ref:-}"`): whether it is
        empty, noting for a summary being recorded only that — so `check_env_vars CONC ...`
        replays for every concurrency.  None: another shape, or the answer needs more (an unknown
        that may be empty, an array, an unset variable under `set -u`); the caller then expands
        the operand as usual.  Used only while recording: with summaries off every test takes the
        general path, so the tests comparing both check this one."""
        if operand.type != "string":
            return None
        m = _EMPTINESS_OPERAND.fullmatch(operand.text)
        if m is None:
            return None
        plain, bang, name, default = m.groups()
        if plain is not None:
            name, bang, default = plain, "", None
        if bang:
            ref = st.lookup(name)
            if ref is None or ref.kind != Kind.SCALAR:
                return None
            name = text_of(ref.value)
            if name is None or not _NAME.fullmatch(name):
                return None
        if name in _DYNAMIC_NAMES:
            return None
        var = st.lookup(name, emptiness_only=True)
        if var is None:
            if self.ambient and _ENV_NAME.fullmatch(name):
                return None  # (the caller's environment may set it: the general path says how)
            if name in _SYSTEM_NAMES:
                return False
            return None if st.nounset and default is None else True
        return emptiness(var.value) if var.kind == Kind.SCALAR else None

    def arith_parts(self, nodes: list, st: State):
        """The value of an expression tree-sitter-bash gives as several nodes (``(( c--, a = $c ))``:
        the parts between commas), evaluated as one: bash expands every ``$`` in it first (``a``
        is ``c`` before the decrement)."""
        if len(nodes) == 1:
            return self.arith_node(nodes[0], st)
        return self.arith_eval_text(self.arith_text(nodes[0], st, nodes), st, nodes[0].loc)

    def arith_node(self, node: Node, st: State):
        if node.type in EXPANSION_TYPES:  # `(( $x ))`, `(( $((a)) ))`: the expansion's value
            segs: list = []
            self._expansion(node, st, segs, quoted=True, scalar=True)
            text = text_of(_join_segs(segs))
            return self.arith_eval_text(arith.UNKNOWN_NAME if text is None else text, st, node.loc)
        return self.arith_eval_text(self.arith_text(node, st), st, node.loc)

    def test_node(self, node: Node, st: State):
        """Evaluate ``[ ]`` / ``[[ ]]`` trees: True, False or None (unknown)."""
        kids = [c for c in node.children if c.named]
        double = node.children and node.children[0].type == "[["
        if not kids:
            return False
        if len(kids) == 1 and double:
            return self._test_expr(kids[0], st)
        # `[ ]` is `test`: its arguments as `test` sees them, by POSIX's rules (tree-sitter-bash's
        # trees of it are `[[ ]]`'s: `[ -z "" -a -n x ]` as `-z ("" -a -n x)`, `[ a =~ b ]` a
        # regex match, `[ -q a == b ]` a unary test — and `[ a b c ]` no tree)
        leaves = [k for k in _test_leaves(kids) if k.start != k.end]  # (`[ x =~ ]`: the grammar's empty regex)
        if st.recs and len(leaves) == 2 and leaves[0].text in ("-z", "-n"):
            e = self._emptiness_of(leaves[1], st)  # (`[ -z "$X" ]` while a summary records)
            if e is not None:
                return e if leaves[0].text == "-z" else not e
        args = []
        for k in leaves:
            if k.type == "test_operator" or not k.named:
                args.append((Chunk(k.text, k.loc),))
            else:
                args.extend(w.chunks for w in self.expand_word(k, st))
        return _test_argv(args, st, self)

    def _compare(self, left, op, right, node, st):
        """A comparison `[[ LEFT OP RIGHT ]]` (patterns, regexes, strings, numbers)."""
        lval = self.expand_scalar(left, st, _TILDE_WORD) if left is not None else EMPTY
        if op in ("==", "=", "!=") and right is not None:
            segs = self.pattern_segments(right, st)
            lt = text_of(lval)
            if segs is None or lt is None:
                return None
            m = glob_match(segs, lt)
            return m if op != "!=" else not m
        if op == "=~":
            rt = self._regex_text(right, st) if right is not None else ""
            lt = text_of(lval)
            m = None
            if rt is not None and lt is not None:
                # RE2: linear in the value, leftmost-longest as POSIX; what it does not take (a
                # backreference) leaves the test unknown, as a syntax error does
                rx = linear(_posix_ere(rt), longest=True)
                if rx is None:
                    rt = None
                else:
                    m = rx.search(lt)
            if rt is None or lt is None:  # BASH_REMATCH as unknown as the test
                st.put("BASH_REMATCH", Var(Kind.UNKNOWN_ARRAY, unknown("${BASH_REMATCH[@]}", node.loc, multi=True)))
                return None
            # bash sets BASH_REMATCH to the match and its groups (unmatched: empty), or to ()
            groups = [(m.start(g), m.end(g)) for g in range(len(m.groups()) + 1)] if m else []
            st.put(
                "BASH_REMATCH",
                Var(Kind.INDEXED, {k: Word(slice_str(lval, max(a, 0), max(b, 0)), node.loc) for k, (a, b) in enumerate(groups)}),
            )
            return m is not None
        rval = self.expand_scalar(right, st, _TILDE_WORD) if right is not None else EMPTY
        return _binary_test(op, lval, rval, st, self, node.loc, True)

    def _regex_text(self, node: Node, st: State) -> str | None:
        """The regular expression right of ``=~``: its quoted parts match as text (``"a.b"`` is
        no regex), its expansions and the rest are the regex (``^${p}$``); None when unknown."""
        plan = self._tilde_plan(node, _TILDE_WORD) if node.text[:1] == "~" else None
        if plan is not None:
            return self._regex_tilde(node, plan, st)
        if node.type == "regex":
            if not _QUOTING.search(node.text):
                return node.text
            word = self._pattern_word(node)
            if word is None:  # (`^v([0-9]+)\.x`, `^${p}([0-9]+)$`: no word to the grammar)
                return self._regex_pieces(node, st)
            node = word
        out = []
        for c in node.children if node.type == "concatenation" else (node,):
            if c.type in ("string", "raw_string", "ansi_c_string", "translated_string") or c.type in EXPANSION_TYPES:
                v = text_of(self.expand_scalar(c, st))
                if v is None:
                    return None
                out.append(_ere_escape(v) if c.type not in EXPANSION_TYPES else v)
            else:
                out.append(c.text)
        return "".join(out)

    def _regex_tilde(self, node: Node, plan: dict, st: State) -> str | None:
        """A regex starting with a tilde-prefix bash expands (``[[ $d =~ ~/x ]]``): the directory
        (as text) then the rest as written; None when the rest holds quotes, escapes or
        expansions (a `$` ending it, or before `)` or `|`, is an anchor)."""
        spans = plan.get(0) if "through" not in plan and "unknown" not in plan else None
        if not spans or spans[0][0] != 0 or node.type == "concatenation" and len(node.children) > 1:
            return None
        _, end, login = spans[0]
        rest = (node.children[0] if node.type == "concatenation" else node).text[end:]
        home = text_of(self._tilde_value(login, node, st))
        if home is None or re.search(r"['\"`\\]|\$[^)|]", rest):
            return None
        return _ere_escape(home) + rest  # (bash quotes the directory: `.` in it is a dot)

    def _regex_pieces(self, node: Node, st: State) -> str | None:
        """A regex token that is no word to the grammar (its parentheses): its ``$name`` and
        ``${...}`` expanded, the rest as it is; None when it holds quotes or other expansions."""
        hit = self._regex_parts.get(id(node))
        if hit is None or hit[1] is not node:
            parts: list | None = []
            text = node.text
            if re.search(r"['\"`]|\$[({]{2}|\$\(", text):
                parts = None
            else:
                pos = 0
                for m in _REGEX_EXPANSION.finditer(text):
                    parts.append(text[pos : m.start()])
                    a = node.start + len(text[: m.start()].encode("utf-8"))
                    parts.append(self._pattern_word(Node("word", a, a + len(m.group(0).encode("utf-8")), True, node.src)))
                    if parts[-1] is None:
                        parts = None
                        break
                    pos = m.end()
                if parts is not None:
                    parts.append(text[pos:])
            hit = self._regex_parts[id(node)] = (parts, node)
        if hit[0] is None:
            return None
        out = []
        for p in hit[0]:
            v = p if isinstance(p, str) else text_of(self.expand_scalar(p, st))
            if v is None:
                return None
            out.append(v)
        return "".join(out)

    def _test_expr(self, node: Node, st: State):
        """A `[[ ]]` expression: True, False or None (unknown)."""
        t = node.type
        if t == "parenthesized_expression":
            inner = [c for c in node.children if c.named]
            return self._test_expr(inner[0], st) if inner else False
        if t == "unary_expression":
            op_node = node.field("operator") or node.children[0]
            operand = [c for c in node.children if c.named and c is not op_node]
            op = op_node.text
            if op == "!":
                v = self._test_expr(operand[0], st) if operand else False
                return None if v is None else not v
            if not operand:
                return True
            if (op == "-z" or op == "-n") and st.recs:
                e = self._emptiness_of(operand[0], st)
                if e is not None:
                    return e if op == "-z" else not e
            val = self.expand_scalar(operand[0], st, _TILDE_WORD)
            return _unary_test(op, val, st, self)
        if t == "binary_expression":
            left = node.field("left")
            right = node.field("right")
            op_node = node.field("operator")
            op = op_node.text if op_node is not None else ""
            if op in ("&&", "-a", "||", "-o"):
                lv = self._test_expr(left, st)
                if op in ("&&", "-a"):
                    if lv is False:
                        return False
                    rv = self._test_expr(right, st)
                    if rv is False:
                        return False
                    return None if lv is None or rv is None else True
                if lv is True:
                    return True
                rv = self._test_expr(right, st)
                if rv is True:
                    return True
                return None if lv is None or rv is None else False
            neg = False
            while (
                left is not None and left.type == "unary_expression" and (left.field("operator") or left.children[0]).text == "!"
            ):
                # tree-sitter-bash reads `[[ ! A == B ]]` as `(! A) == B`; bash negates the comparison
                neg = not neg
                inner = [c for c in left.children if c.named and c.text != "!"]
                left = inner[0] if inner else None
            v = self._compare(left, op, right, node, st)
            return v if v is None or not neg else not v
        # a lone word: non-empty test
        val = self.expand_scalar(node, st)
        e = emptiness(val)
        return None if e is None else not e
