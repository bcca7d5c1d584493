"""Branches and loops: `if`, `case`, `for`, `for (( ))`, `while`/`until`, and `break`/`continue`.
A condition on an unknown value forks the path; a loop over unknown values is cut (havoc)."""

from __future__ import annotations

import re

from recipelint.bash.patterns import glob_match
from recipelint.bash.tree import Node
from recipelint.evaluate import summaries as memo
from recipelint.evaluate.joins import _value_key
from recipelint.evaluate.state import Decision, Rejected, _CmdError, _Exit
from recipelint.evaluate.support import _discard, _short
from recipelint.evaluate.tilde import _TILDE_WORD
from recipelint.evaluate.values import EMPTY, Word, display, text_of


class _VarSnapshot:
    """A state's variables at the start of a loop iteration, to tell whether the iteration
    changed any (by object identity first: a variable not assigned is the same object) — or the
    positional parameters (`shift 2` in an option loop), what is left of stdin (`read`), or a
    file it wrote."""

    __slots__ = ("scopes", "status", "pos", "stdin", "files")

    def __init__(self, st):
        self.scopes = [dict(st.vars)] + [dict(f) for f in st.frames]
        self.status = st.status
        self.pos, self.stdin, self.files = st.pos, st.stdin, dict(st.files)

    def same_as(self, st) -> bool:
        now = [st.vars] + list(st.frames)
        if len(now) != len(self.scopes) or st.status != self.status:
            return False
        if (
            st.pos is not self.pos
            or st.stdin is not self.stdin
            or st.files.keys() != self.files.keys()
            or any(self.files[k] is not v for k, v in st.files.items())
        ):
            return False
        recs = st.recs
        for i, (old, new) in enumerate(zip(self.scopes, now)):
            if old.keys() != new.keys():
                return False
            for name, var in new.items():
                was = old[name]
                if was is var:
                    continue
                if recs:  # compared by value: the value before the loop is read
                    memo.note_all(recs, i - 1, name)
                if was is None or var is None or was.kind != var.kind or _value_key(was) != _value_key(var):
                    return False
        return True


#: a ``case`` word that is the first positional parameter: an option loop's
_POSITIONAL_1 = re.compile(r'"?\$(?:1|\{1\})"?')
#: patterns of an option parser's catch-all arms
_CATCH_ALL = frozenset({"*", "-*", "--*", "-?*"})


def _reject_status(patterns, body) -> tuple[int, bool] | None:
    """The non-zero status a catch-all ``case`` arm ends with (``*) echo ...; return 1 ;;``) and
    whether by ``exit``: one of its own statements (not one nested in an ``if``) is ``return N`` /
    ``exit N`` with a literal N > 0; else None."""
    if not patterns or any(p.text not in _CATCH_ALL for p in patterns):
        return None
    stack = list(body)
    while stack:
        x = stack.pop()
        if x.type in ("redirected_statement", "compound_statement") or (
            x.type == "list" and all(c.type == "&&" for c in x.children if not c.named)
        ):  # (not `cond || return 1`: a return on a condition)
            stack.extend(c for c in x.children if c.named)
            continue
        if x.type != "command":
            continue
        nm = x.field("name")
        args = x.fields_all("argument")
        if nm is not None and nm.text in ("return", "exit") and len(args) == 1 and args[0].text.isdigit():
            code = int(args[0].text)
            if code > 0:
                return code, nm.text == "exit"
    return None


class ControlFlow:
    """Branches and loops (see the module docstring)."""

    def _if(self, node, st):
        clauses = []  # (cond nodes | None for else, body nodes)
        cond, body, mode = [], [], None
        for c in node.children:
            t = c.type
            if t == "if":
                mode = "cond"
            elif t == "then":
                mode = "body"
            elif t == "elif_clause":
                clauses.append(self._split_clause(c))
            elif t == "else_clause":
                clauses.append((None, [x for x in c.children if x.named]))
            elif c.named and t != "fi":
                (cond if mode == "cond" else body).append(c)
        clauses.insert(0, (cond, body))
        return self._join(self._run_clauses(clauses, st, node), node)

    def _split_clause(self, c):
        cond, body, mode = [], [], None
        for x in c.children:
            if x.type == "elif":
                mode = "cond"
            elif x.type == "then":
                mode = "body"
            elif x.named:
                (cond if mode == "cond" else body).append(x)
        return cond, body

    def _run_clauses(self, clauses, st, node):
        if not clauses:
            st.status = 0
            return [st]
        cond, body = clauses[0]
        if cond is None:
            return self.run_seq(body, st)
        st.cond_ctx += 1
        res = self.run_seq(cond, st)
        for s in res:
            s.cond_ctx -= 1
        out = []
        guard = self._exits_in([body] + [cl[1] for cl in clauses[1:]])
        for s in res:
            if s.ctl is not None:
                out.append(s)
                continue
            if s.status == 0:
                if guard:
                    self._guard(s, cond, self._exits_in([body]))
                out.extend(self._body_status(body, s))
            elif s.status is not None:
                if guard:
                    self._guard(s, cond, False)
                out.extend(self._run_clauses(clauses[1:], s, node))
            else:
                text = _short(" ; ".join(c.text for c in cond))
                rest_nodes = [n for cl in clauses[1:] for part in cl if part for n in part]
                if not self._fork_worthy(body + rest_nodes, s):
                    s.status = 0
                    out.append(s)
                    continue
                if not self._can_fork(s, node):
                    self._havoc(body + rest_nodes, s)
                    out.append(s)
                    continue
                s2 = s.copy()
                self.paths += 1
                s.cond = s.cond + (Decision(cond[0].loc, text, True),)
                s2.cond = s2.cond + (Decision(cond[0].loc, text, False),)
                out.extend(self._body_status(body, s))
                out.extend(self._run_clauses(clauses[1:], s2, node))
        return out

    def _body_status(self, body, s):
        if not body:
            s.status = 0
            return [s]
        return self.run_seq(body, s)

    def _case(self, node, st):
        value_node = node.field("value")
        try:
            value = self.expand_scalar(value_node, st, _TILDE_WORD) if value_node is not None else EMPTY
        except _Exit as e:
            st.ctl = ("exit", e.code, e.loc, e.reason, st.calls)
            return [st]
        except _CmdError as e:
            _discard(st, e)
            return [st]
        items = [c for c in node.children if c.type == "case_item"]
        vtext = text_of(value)
        out = []
        pending = [st]
        ran = set()  # ids of pending states that ran a body ending in `;;&` (they keep its status)
        for idx, item in enumerate(items):
            patterns, body, term = self._case_item_parts(item)
            nxt_pending = []
            # `;;&`: after the body, the next patterns are tested too
            done = nxt_pending if term == ";;&" else out
            for s in pending:
                if s.ctl is not None:
                    out.append(s)
                    continue
                try:
                    m = self._case_match(patterns, vtext, s)
                except _Exit as e:  # (expanding a pattern: `set -u`, `${X:?}`)
                    s.ctl = ("exit", e.code, e.loc, e.reason, s.calls)
                    out.append(s)
                    continue
                except _CmdError as e:  # (`$((1/0))`)
                    _discard(s, e)
                    out.append(s)
                    continue
                if m is True and self._exits_in([body]):
                    self._guard(
                        s,
                        [item],
                        True,
                        text=f"case {value_node.text if value_node is not None else ''} in {' | '.join(p.text for p in patterns)})",
                    )
                if m is True:
                    if (
                        s.calls
                        and s.pos
                        and vtext is not None
                        and value_node is not None
                        and _POSITIONAL_1.fullmatch(value_node.text)
                    ):
                        self._note_rejection(items, item, patterns, body, s)
                    res = self._run_case_body(items, idx, s)
                    done.extend(res)
                    if done is nxt_pending:
                        ran.update(id(r) for r in res)
                elif m is False:
                    nxt_pending.append(s)
                else:
                    text = f"case {display(value)} in {' | '.join(p.text for p in patterns)})"
                    if self._can_fork(s, item):
                        s2 = s.copy()
                        self.paths += 1
                        s.cond = s.cond + (Decision(item.loc, _short(text), True),)
                        s2.cond = s2.cond + (Decision(item.loc, _short(text), False),)
                        res = self._run_case_body(items, idx, s)
                        done.extend(res)
                        if done is nxt_pending:
                            ran.update(id(r) for r in res)
                        nxt_pending.append(s2)
                    else:
                        self._havoc(body, s)
                        nxt_pending.append(s)
            pending = nxt_pending
        for s in pending:
            if s.ctl is None and id(s) not in ran:
                s.status = 0
            out.append(s)
        return self._join(out, node)

    def _note_rejection(self, items, item, patterns, body, s) -> None:
        """An option parser's reject arm taken for a known argument (``case "$1" in ... *) echo
        "Unknown parameter: $1"; return 1 ;;``): a :class:`Rejected` event on the path."""
        hit = self._reject_cache.get(id(item))
        if hit is None or hit[2] is not item:
            status = _reject_status(patterns, body)
            accepted: list[str] = []
            if status is not None:
                for other in items:
                    if other is not item:
                        for p in self._case_item_parts(other)[0]:
                            accepted.extend(t for t in p.text.split("|") if t.startswith("-") and "*" not in t)
            hit = self._reject_cache[id(item)] = (status, tuple(accepted), item)
        if hit[0] is not None:
            name = s.calls[-1][0]
            body = s.funcs.get(name)
            assumed = body is not None and any(
                d.loc.source is body.loc.source and body.loc.start <= d.loc.start < body.loc.end for d in s.cond
            )
            ev = Rejected(name, s.pos[0], item.loc, hit[0][0], hit[0][1], s.calls, hit[1], assumed=assumed)
            s.events = s.events + [self.rebind(ev)]  # (the hook binds it to the sweep point)

    def _run_case_body(self, items, idx, s):
        patterns, body, term = self._case_item_parts(items[idx])
        res = self._body_status(body, s)
        if term == ";&" and idx + 1 < len(items):
            nxt = []
            for r in res:
                if r.ctl is None:
                    nxt.extend(self._run_case_body(items, idx + 1, r))
                else:
                    nxt.append(r)
            return nxt
        return res

    def _case_item_parts(self, item):
        """(patterns, body, terminator) of a case item (kept per node: an option loop asks for
        every arm at every argument)."""
        hit = self._item_parts.get(id(item))
        if hit is not None and hit[3] is item:
            return hit[:3]
        parts = self._item_parts_of(item)
        self._item_parts[id(item)] = (*parts, item)
        return parts

    @staticmethod
    def _item_parts_of(item):
        patterns, body, term = [], [], ";;"
        seen_paren = False
        for c in item.children:
            if c.type == ")" and not seen_paren:
                seen_paren = True
                continue
            if not seen_paren:
                if c.named:
                    patterns.append(c)
                continue
            if c.type in (";;", ";&", ";;&"):
                term = c.type
                continue
            if c.named:
                body.append(c)
        return tuple(patterns), tuple(body), term

    def _case_match(self, patterns, vtext, st):
        result = False
        for p in patterns:
            segs = self.pattern_segments(p, st)
            if segs is None or vtext is None:
                if segs is not None and vtext is None and all(not q and t == "*" for t, q in segs):
                    return True
                result = None
                continue
            if glob_match(segs, vtext):
                return True
        return result

    def _for(self, node, st):
        var = node.field("variable")
        values = node.fields_all("value")
        body = node.field("body")
        name = var.text if var is not None else "_"
        try:
            if values:
                items: list[Word] = []
                for v in values:
                    items.extend(self.expand_word(v, st))
            elif any(c.type == "in" for c in node.children):
                items = []
            else:
                items = list(st.pos)
        except _Exit as e:
            st.ctl = ("exit", e.code, e.loc, e.reason, st.calls)
            return [st]
        except _CmdError as e:
            _discard(st, e)
            return [st]
        body_nodes = [body] if body is not None else []
        if any(any(c.multi for c in w.chunks) for w in items) or len(items) > self.limits.max_loop:
            self._havoc(body_nodes, st, extra={name})
            st.status = 0
            return [st]
        active = [st]
        done = []
        for w in items:
            nxt = []
            for s in active:
                self.set_scalar(s, name, w.chunks, node.loc)
                res = self.run_seq(body_nodes, s)
                for r in res:
                    c = self._loop_ctl(r)
                    (done if c == "stop" else nxt).append(r)
            active = self._join(nxt, node, force=True) if len(nxt) > 1 else nxt
            done = self._join(done, node, force=True) if len(done) > 1 else done
            if not active:
                break
        if not items:  # (else the status of the body's last command, as in bash)
            for s in active:
                s.status = 0
        return done + active

    def _loop_ctl(self, r):
        ctl = r.ctl
        if ctl is None:
            return "next"
        if ctl[0] == "break":
            r.ctl = ("break", ctl[1] - 1) if ctl[1] > 1 else None
            r.status = 0
            return "stop"
        if ctl[0] == "continue":
            if ctl[1] > 1:
                r.ctl = ("continue", ctl[1] - 1)
                return "stop"
            r.ctl = None
            return "next"
        return "stop"

    def _c_for(self, node, st):
        parts: list[list[Node]] = [[], [], []]
        k = 0
        body = None
        started = False
        for c in node.children:
            if c.type == "((":
                started = True
                continue
            if c.type == "))":
                started = False
                continue
            if c.type == ";" and started:
                k = min(k + 1, 2)
                continue
            if c.type in ("do_group", "compound_statement"):
                body = c
                continue
            if started and c.named:
                parts[k].append(c)
        init, cond, update = parts
        body_nodes = [body] if body is not None else []
        try:
            if init:
                self.arith_parts(init, st)
        except _CmdError as e:
            st.notes.append((e.loc, e.reason))
            st.status = 1
            return [st]
        active = [st]
        done = []
        for it in range(self.limits.max_loop + 1):
            if self.steps > self.limits.max_steps:  # (the step limit is spent: see `_while`)
                for s in active:
                    s.truncated = True
                done += active
                break
            nxt = []
            for s in active:
                try:
                    c = self.arith_parts(cond, s) if cond else 1
                except _CmdError as e:
                    s.notes.append((e.loc, e.reason))
                    s.status = 1
                    done.append(s)
                    continue
                if c is None and not it and any(self._may_launch(n, s) for n in body_nodes) and self._can_fork(s, node):
                    # (a bound not known — `i<=N`, N from `$1` — with a launch in the body: one
                    # iteration is followed on an assumption, besides none; see `_while`)
                    for r in self.run_seq(body_nodes, self._once(s, cond, node)):
                        if self._loop_ctl(r) != "stop":
                            self._havoc(body_nodes + update, r)
                        done.append(r)
                if c is None:
                    self._havoc(body_nodes + update, s)
                    s.status = 0
                    done.append(s)
                    continue
                if c == 0:
                    if not it:  # (else the status of the body's last command, as in bash)
                        s.status = 0
                    done.append(s)
                    continue
                res = self.run_seq(body_nodes, s)
                for r in res:
                    if self._loop_ctl(r) == "stop":
                        done.append(r)
                        continue
                    try:
                        if update:
                            self.arith_parts(update, r)
                    except _CmdError:
                        done.append(r)
                        continue
                    nxt.append(r)
            active = self._join(nxt, node, force=True) if len(nxt) > 1 else nxt
            done = self._join(done, node, force=True) if len(done) > 1 else done
            if not active:
                break
        else:
            for s in active:
                self._havoc(body_nodes, s)
                s.notes.append((node.loc, f"loop stopped after {self.limits.max_loop} iterations"))
                done.append(s)
        return done

    def _while(self, node, st):
        until = node.children and node.children[0].type == "until"
        conds = [c for f, c in zip(node.fields, node.children) if f == "condition" and c.named]
        body = node.field("body")
        body_nodes = [body] if body is not None else []
        active = [st]
        done = []
        quiet = not any(self._may_launch(n, st) for n in body_nodes + conds)
        polls = 0  # iterations of a quiet loop that depended on unknown values
        # a loop whose condition reads what its body assigns (`while [ $i -lt 4 ]; do i=...`)
        # counts: an unknown status at the end of its body is not a poll
        counting = quiet and self._counting(node, conds, body_nodes)
        for i in range(self.limits.max_loop):
            if quiet and (polls >= self.limits.quiet_loop or i >= self.limits.quiet_loop_max):
                break
            if self.steps > self.limits.max_steps:
                # (the step limit is spent: each further iteration would only count steps — a
                # condition that sources the script itself ran 2 million of them)
                for s in active:
                    s.truncated = True
                done += active
                active = []
                break
            forks_before = self.paths
            before = _VarSnapshot(active[0]) if len(active) == 1 else None
            nxt = []
            for s in active:
                last = s.status if i else 0  # the loop's status: its body's last command's, or 0
                s.cond_ctx += 1
                res = self.run_seq(conds, s)
                for r in res:
                    r.cond_ctx -= 1
                    if r.ctl is not None:
                        done.append(r)
                        continue
                    status = r.status
                    go = None if status is None else ((status == 0) != bool(until))
                    if go is None and i == 0 and not quiet and self._can_fork(r, node):
                        # a loop over values not known whose body may launch (`for ((i=1; i<=N; i++))`
                        # with N from `$1`, `... | while read -r t`): besides no iteration, one
                        # iteration is followed, on an assumption (bash runs it when there is data)
                        for b in self.run_seq(body_nodes, self._once(r, conds, node)):
                            (done if self._loop_ctl(b) == "stop" else nxt).append(b)
                    if go is None:
                        self._havoc(body_nodes + conds, r)
                        r.status = 0
                        done.append(r)
                    elif not go:
                        r.status = last
                        done.append(r)
                    else:
                        for b in self.run_seq(body_nodes, r):
                            (done if self._loop_ctl(b) == "stop" else nxt).append(b)
            if self.paths > forks_before or len(nxt) > 1 or (not counting and any(s.status is None for s in nxt)):
                polls += 1
            elif len(nxt) == 1 and before is not None and before.same_as(nxt[0]):
                # one known path whose variables did not change: bash would loop forever here
                r = nxt[0]
                r.truncated = True
                r.notes.append((node.loc, "loop never ends: an iteration changes no variable"))
                done.append(r)
                nxt = []
            active = self._join(nxt, node, force=True) if len(nxt) > 1 else nxt
            done = self._join(done, node, force=True) if len(done) > 1 else done
            if not active:
                break
        if active:
            for s in active:
                self._havoc(body_nodes, s)
                if not quiet or polls < self.limits.quiet_loop:
                    s.truncated = True
                    n = self.limits.quiet_loop_max if quiet else self.limits.max_loop
                    s.notes.append((node.loc, f"loop stopped after {n} iterations"))
                done.append(s)
            if quiet and len(done) > 1:
                done = self._join(done, node, force=True)
        return done

    def _once(self, st, conds, node):
        """A copy of ``st`` that enters a loop whose condition is not known, on the assumption
        that it holds (``st`` itself: that it does not)."""
        once = st.copy()
        self.paths += 1
        text = _short(" ; ".join(c.text for c in conds)) or "the loop"
        at = conds[0].loc if conds else node.loc
        once.cond = once.cond + (Decision(at, text, True),)
        st.cond = st.cond + (Decision(at, text, False),)
        return once

    def _counting(self, node, conds, body_nodes) -> bool:
        """Whether a loop's condition reads a name the loop assigns (`while read -r line`
        progresses through its stdin); kept per node, with the node."""
        hit = self._counting_cache.get(id(node))
        if hit is not None and hit[1] is node:
            return hit[0]
        names = {n.rstrip("[]") for b in body_nodes + conds for n in self._assigned(b)}
        words = set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", " ".join(c.text for c in conds))) if names else set()
        found = not names.isdisjoint(words)
        self._counting_cache[id(node)] = (found, node)
        return found
