"""Statements other than branches and loops: groups, subshells, assignments and declarations,
`unset`, function definitions, negation, `&&`/`||` lists, pipelines, `[[ ]]`/`(( ))` commands and
redirected statements."""

from __future__ import annotations

from recipelint.evaluate.joins import _merge_outputs, _merge_status
from recipelint.evaluate.state import (
    Decision,
    _CmdError,
    _Exit,
    _ExpansionError,
    _ReadonlyError,
)
from recipelint.evaluate.support import _NAME_SUB, _discard, _has_cmdsub, _short
from recipelint.evaluate.values import unknown
from recipelint.evaluate.variables import Kind, Var


class Statements:
    """The evaluation of simple compound statements (see the module docstring)."""

    def _compound(self, node, st):
        kids = node.children
        if kids and kids[0].type == "((":
            return self._arith_command(node, st)
        return self.run_seq(kids, st)

    def _subshell(self, node, st):
        return self._in_subshell(lambda c: self.run_seq(node.children, c), st)[0]

    def _in_subshell(self, fn, st, capture: bool = False):
        """Run ``fn`` on a copy of ``st``; keep its events and status, drop its variables."""
        child = st.copy()
        child.ctl = None
        if capture:
            child.out = ()
        res = fn(child)
        out_states = []
        base = len(st.events)
        for r in res:
            s = st.copy() if len(res) > 1 else st
            s.events = s.events[:base] + r.events[base:] if len(r.events) > base else s.events
            s.notes = r.notes
            s.cond = r.cond
            s.truncated = s.truncated or r.truncated
            s.files = r.files
            if r.ctl is not None and r.ctl[0] == "exit":
                s.status = r.ctl[1]
            else:
                s.status = r.status
            if st.out is not None and not capture:
                s.out = r.out
            out_states.append(s)
        return out_states, res

    def _variable_assignment(self, node, st):
        # `$?` in the value is the status before the assignment (`rc=$?`); after it, the status
        # is that of the value's last command substitution, or 0
        try:
            self.assign(node, st)
        except _Exit as e:
            st.ctl = ("exit", e.code, e.loc, e.reason, st.calls)
        except _CmdError as e:  # (of the value's expansion, or evaluating an integer or subscript)
            _discard(st, e, hard=not isinstance(e, (_ExpansionError, _ReadonlyError)))
        else:
            t = node.text
            if not (("$(" in t or "`" in t) and _has_cmdsub((node,))):
                st.status = 0
        return [st]

    def _declaration(self, node, st):
        try:
            self.declare(node, st)
        except _Exit as e:
            st.ctl = ("exit", e.code, e.loc, e.reason, st.calls)
        except _ReadonlyError as e:
            st.notes.append((e.loc, e.reason))
            st.status = 1
        except _CmdError as e:
            _discard(st, e, hard=not isinstance(e, _ExpansionError))
        return [st]

    def _unset(self, node, st):
        mode = "v"
        status = 0
        for c in node.children:
            if not c.named:
                continue
            try:
                words = self.expand_word(c, st)  # `unset "A[0]"`, `unset $NAME`
            except (_Exit, _CmdError):
                words = []
            for w in words:
                txt = w.text
                if txt in ("-f", "-v", "-n"):
                    mode = txt[1]
                elif txt is not None and not self._unset_one(txt, mode, st, c.loc):
                    status = 1
        st.status = status
        return [st]

    def _unset_one(self, txt, mode, st, loc) -> bool:
        """Unset one variable, array element or (``mode`` "f") function; False when readonly."""
        if mode == "f":
            st.funcs.pop(txt, None)
            st.funcs_ver = self._fver_step(st.funcs_ver, txt, None)
            self._export_function(st, txt, export=False, unexport=True)
            return True
        m = _NAME_SUB.fullmatch(txt)
        if not m:
            return True
        name, idx = m.group(1), m.group(2)
        ref = st.lookup(name, raw=True)
        if ref is not None and ref.kind == Kind.REF:
            if mode == "n":  # `unset -n R`: the reference itself
                if idx is None:
                    st.scope_of(name).pop(name, None)
                return True
            name = st.resolve(name)  # `unset R`: its target
            if name is None:
                return True
        var = st.lookup(name)
        if var is not None and var.readonly:
            return False
        if idx is None:
            if st.frames and name in st.frames[-1]:
                # a local of the running function stays local, unset (the caller's value is
                # not revealed, as it is for a local of a calling function)
                st.frames[-1][name] = None
            else:
                st.put(name, None)
        elif var is not None and var.kind in (Kind.INDEXED, Kind.ASSOC):
            d = dict(var.value)
            key = idx if var.kind == Kind.ASSOC else self._arith_int(idx, st, loc)
            if key is None:  # which element: unknown
                st.put(name, Var(Kind.UNKNOWN_ARRAY, unknown(f"${{{name}[@]}}", loc, multi=True), var.exported))
                return True
            if var.kind == Kind.INDEXED and key < 0:
                key += max(d) + 1 if d else 0
            d.pop(key, None)
            st.put(name, var.copy(value=d))
        elif var is not None and var.kind == Kind.SCALAR and self._arith_int(idx, st, loc) in (0, -1):
            st.put(name, None)  # element 0 of a scalar is the scalar
        return True

    def _function_definition(self, node, st):
        name = node.field("name")
        body = node.field("body")
        if name is not None and body is not None:
            if st.funcs.get(name.text) is not body:
                st.funcs[name.text] = body
                st.funcs_ver = self._fver_step(st.funcs_ver, name.text, body)
        st.status = 0
        return [st]

    def _negated(self, node, st):
        inner = [c for c in node.children if c.named]
        if not inner:
            return [st]
        return self._inverted(lambda: self.run_node(inner[0], st), st)

    @staticmethod
    def _inverted(run, st):
        """`! ...`: ``run`` evaluated as a condition (`set -e` ignores it), its status inverted."""
        st.cond_ctx += 1
        res = run()
        for s in res:
            s.cond_ctx -= 1
            if s.ctl is None:
                s.status = None if s.status is None else int(s.status == 0)
        return res

    def _list(self, node, st):
        kids = node.children
        # list: left op right (left-nested)
        named = [c for c in kids if c.named]
        ops = [c.type for c in kids if not c.named and c.type in ("&&", "||", ";", "&")]
        if len(named) != 2 or not ops:
            return self.run_seq(kids, st)
        left, right = named
        op = ops[0]
        if op in (";", "&"):
            return self.run_seq([left, kids[kids.index(left) + 1], right] if op == "&" else [left, right], st)
        return self._join(self._and_or(left, right, op, st), node)

    def _and_or(self, left, right, op, st):
        st.cond_ctx += 1
        res = self.run_node(left, st)
        for s in res:
            s.cond_ctx -= 1
        out = []
        for s in res:
            if s.ctl is not None:
                out.append(s)
                continue
            stt = s.status
            run_right = (stt == 0) if op == "&&" else (stt is not None and stt != 0)
            if stt is not None and self._exits_in([[right]]):
                self._guard(s, [left], run_right)
            if stt is None:
                text = _short(left.text)
                taken_if_right = op == "&&"
                if self._fork_worthy([right], s):
                    if self._can_fork(s, right):
                        s2 = s.copy()
                        self.paths += 1
                        s.cond = s.cond + (Decision(left.loc, text, taken_if_right),)
                        s2.cond = s2.cond + (Decision(left.loc, text, not taken_if_right),)
                        s2.status = None
                        out.extend(self._run_final(right, s))
                        out.append(s2)
                        continue
                    self._havoc([right], s)
                    s.status = None
                    out.append(s)
                    continue
                out.append(s)
                continue
            if run_right:
                out.extend(self._run_final(right, s))
            else:
                out.append(s)
        return out

    def _pipeline(self, node, st):
        parts = [c for c in node.children if c.named]
        if not parts:
            return [st]
        if parts[0].type == "negated_command":
            # `! a | b` negates the whole pipeline (tree-sitter-bash reads `(! a) | b`)
            inner = [c for c in parts[0].children if c.named]
            return self._inverted(lambda: self._pipe(inner[:1] + parts[1:], node, st), st)
        return self._pipe(parts, node, st)

    def _pipe(self, parts, node, st):
        data = st.stdin
        states = [st]
        n = len(parts)
        failed = 0  # `set -o pipefail`: the status of the last part that failed (None: not known)
        for i, part in enumerate(parts):
            last = i == n - 1
            child = st.copy()
            child.ctl = None
            child.stdin = data
            child.out = () if (not last or st.out is not None) else None
            res = self.run_node(part, child)
            outs = []
            for r in res:
                outs.append(r.out)
            data = _merge_outputs(outs, part.loc)
            base = len(st.events)
            for r in res:
                if len(r.events) > base:
                    st.events = st.events + r.events[base:]
                st.notes = r.notes
                st.truncated = st.truncated or r.truncated
            status = res[0].status if len(res) == 1 else _merge_status([r.status for r in res])
            if status != 0:
                failed = status
            if last:
                st.status = failed if st.pipefail else status
                if st.out is not None:
                    st.out = data if data is not None else st.out + unknown("$(...)", node.loc)
        return states

    def _test_command(self, node, st):
        try:
            r = self.test_node(node, st)
        except _Exit as e:
            st.ctl = ("exit", e.code, e.loc, e.reason, st.calls)
            return [st]
        except _ExpansionError as e:
            _discard(st, e)
            return [st]
        except _CmdError as e:  # `[[ 1/0 -eq 1 ]]` fails; `[ x -eq 1 ]` is a usage error
            st.notes.append((e.loc or node.loc, e.reason))
            st.status = 1 if node.children and node.children[0].type == "[[" else 2
            return [st]
        st.status = None if r is None else (0 if r else 1)
        return [st]

    def _arith_command(self, node, st):
        inner = [c for c in node.children if c.named]
        try:
            v = self.arith_parts(inner, st) if inner else 0
        except _ExpansionError as e:  # (of a `$((...))` in it)
            _discard(st, e)
            return [st]
        except _CmdError as e:
            st.notes.append((e.loc, e.reason))
            st.status = 1
            return [st]
        except _Exit as e:  # `set -u` and an unset name
            st.ctl = ("exit", e.code, e.loc, e.reason, st.calls)
            return [st]
        st.status = None if v is None else (0 if v != 0 else 1)
        return [st]

    def _redirected(self, node, st):
        body = node.field("body")
        # tree-sitter-bash gives a here-string after a compound statement no field name
        redirects = [c for f, c in zip(node.fields, node.children) if f == "redirect" or c.type == "herestring_redirect"]
        if body is None:
            return [st]
        if body.type == "command":
            return self.run_command(body, st, redirects)
        # compound statement with redirections: stdin from heredoc, stdout maybe to file
        saved_out = st.out
        saved_in = st.stdin
        to_file = False
        try:
            stdin, out_target, _ = self._redirect_info(redirects, st)
        except (_Exit, _CmdError):
            stdin, out_target = None, None
        if out_target is not None:
            to_file = True
        if stdin is not None:
            st.stdin = stdin
        if to_file:
            st.out = None
        if body.type != "subshell":
            self._open_named_descriptors(redirects, st)
        res = self.run_node(body, st)
        for r in res:
            r.out = saved_out if to_file else r.out
            r.stdin = saved_in
        return res
