"""Joining paths: when the states of several paths agree except in a few variables, they are
merged into one (values that differ become unknown), so that paths do not multiply."""

from __future__ import annotations

from recipelint.evaluate import summaries as memo
from recipelint.evaluate.state import Guard
from recipelint.evaluate.support import _note_key
from recipelint.evaluate.values import EMPTY, emptiness, text_of, unknown
from recipelint.evaluate.variables import Kind, Var


def _place_key(x) -> tuple:
    """A guard or an inexact division by place (what a join compares)."""
    return (x.loc.start, id(x.loc.source))


def _merge_added(a, b, key):
    """``a`` and the items ``b`` added after the part both share (by identity), without those
    whose ``key`` ``a`` added too; items from before the paths parted are not compared, so that
    the result does not depend on them (a replayed summary appends what the recorded run added)."""
    k = 0
    while k < len(a) and k < len(b) and a[k] is b[k]:
        k += 1
    have = {key(x) for x in a[k:]}
    return a + type(a)(x for x in b[k:] if key(x) not in have)


#: the kinds of Var whose value is a Str (the others hold a dict of Words)
_STR_KINDS = frozenset((Kind.SCALAR, Kind.UNKNOWN_ARRAY, Kind.UNSET, Kind.REF))


def _var_eq(a, b) -> bool:
    if a is b:
        return True
    if a is None or b is None or a.kind != b.kind or a.exported != b.exported:
        return False
    if a.kind in _STR_KINDS:
        ta, tb = text_of(a.value), text_of(b.value)
        return ta is not None and ta == tb
    if set(a.value) != set(b.value):
        return False
    for k, w in a.value.items():
        ta, tb = w.text, b.value[k].text
        if ta is None or ta != tb:
            return False
    return True


def _join_scope(a: dict, b: dict, loc) -> dict:
    if a is b:
        return a
    out = dict(a)
    for k in set(a) | set(b):
        va, vb = a.get(k), b.get(k)
        if _var_eq(va, vb):
            continue
        ref = va or vb
        shown = []
        for v in (va, vb):
            if v is not None and v.kind == Kind.SCALAR:
                t = text_of(v.value)
                shown.append(repr(t) if t is not None else "?")
            else:
                shown.append("unset" if v is None else "?")
        why = f"${k} (one of {' | '.join(dict.fromkeys(shown))})"
        if ref.kind in (Kind.INDEXED, Kind.ASSOC, Kind.UNKNOWN_ARRAY):
            out[k] = Var(Kind.UNKNOWN_ARRAY, unknown(f"${{{k}[@]}}", loc, multi=True), ref.exported)
        else:
            both_set = va is not None and vb is not None
            nonempty = both_set and emptiness(va.value) is False and emptiness(vb.value) is False
            out[k] = Var(Kind.SCALAR, unknown(why, loc, nonempty=nonempty), ref.exported)
    return out


def _join_files(a: dict, b: dict, loc) -> dict:
    if a is b or a == b:
        return a
    out = dict(a)
    for k in set(a) | set(b):
        va, vb = a.get(k), b.get(k)
        if va is vb or (va is not None and vb is not None and text_of(va) is not None and text_of(va) == text_of(vb)):
            continue
        out[k] = unknown(k, loc)
    return out


def _common_prefix(a: tuple, b: tuple) -> tuple:
    n = 0
    for x, y in zip(a, b):
        if x is not y:
            break
        n += 1
    return a[:n]


def _common_out(a, b, loc):
    n = 0
    for x, y in zip(a, b):
        if x is not y:
            break
        n += 1
    return a[:n] + unknown("output", loc)


def _merge_status(statuses):
    first = statuses[0]
    return first if all(s == first for s in statuses) else None


def _merge_outputs(outs, loc):
    if not outs:
        return EMPTY
    first = outs[0]
    if any(o is None for o in outs):
        return None
    if len(outs) == 1:
        return first
    t0 = text_of(first)
    if t0 is not None and all(text_of(o) == t0 for o in outs[1:]):
        return first
    return None


def _value_key(var) -> tuple:
    if var.kind in _STR_KINDS:
        return tuple(c.text for c in var.value)
    return tuple((k, tuple(c.text for c in w.chunks)) for k, w in var.value.items())


class Joins:
    """Merging the states of paths (see the module docstring)."""

    def _join(self, states, node, force: bool = False):
        """Merge the continuing paths of a fork when none of them recorded a launch: the
        variables they set differently become unknown, the other events (engine changes) each
        recorded are kept, once.  Paths that launched or exited stay separate.  At the script's
        top level a fork is kept as separate paths (each with its condition) until
        ``Limits.soft_paths`` is reached; inside functions and loops (helper libraries, retry
        loops) paths are joined at once."""
        states = self._join_exits(states)
        cont = [s for s in states if s.ctl is None]
        if len(cont) < 2:
            return states
        if not force and not cont[0].frames:
            for r in self._recs:  # the answer depends on the paths so far
                r.budget = True
            if self.paths <= self.limits.soft_paths:
                return states
        first = cont[0]
        events = first.events
        for s in cont[1:]:
            if s.events is not events:
                events = self._merged_events(events, s.events)
                if events is None:
                    return states
            if len(s.frames) != len(first.frames) or s.pos is not first.pos and len(s.pos) != len(first.pos):
                return states
        loc = node.loc
        recs = first.recs
        first.events = events
        for other in cont[1:]:
            if recs:  # the merged values depend on the values the paths had: a recorded read
                for i, (a, b) in enumerate(zip([first.vars] + first.frames, [other.vars] + other.frames)):
                    if a is not b:
                        for k in set(a) | set(b):
                            if a.get(k) is not b.get(k):
                                memo.note_all(recs, i - 1, k)
            first.vars = _join_scope(first.vars, other.vars, loc)
            first.frames = [_join_scope(a, b, loc) for a, b in zip(first.frames, other.frames)]
            for k, v in other.funcs.items():
                if k not in first.funcs:
                    first.funcs[k] = v
                    first.funcs_ver = self._fver(first.funcs)
            first.files = _join_files(first.files, other.files, loc)
            first.cond = _common_prefix(first.cond, other.cond)
            if first.status != other.status:
                first.status = None
            if first.out != other.out and first.out is not None:
                if other.out is None or text_of(first.out) != text_of(other.out):
                    first.out = _common_out(first.out, other.out, loc)
            first.truncated = first.truncated or other.truncated
            # what each path added since they parted, each once
            if other.inexact is not first.inexact:
                first.inexact = _merge_added(first.inexact, other.inexact, _place_key)
            if other.guards is not first.guards:
                first.guards = _merge_added(first.guards, other.guards, _place_key)
            first.notes = _merge_added(first.notes, other.notes, _note_key)
        self.paths -= len(cont) - 1
        out = []
        placed = False
        for s in states:
            if s.ctl is None:
                if not placed:
                    out.append(first)
                    placed = True
                continue
            out.append(s)
        return out

    def _merged_events(self, a: list, b: list):
        """The events of two joined paths: those they share, then what each recorded since they
        parted (engine changes one branch made: `grep -q marker || git apply fix.diff`), each
        once; None when either recorded a launch since (launching paths stay separate)."""
        n = 0
        for x, y in zip(a, b):
            if x is not y:
                break
            n += 1
        if n == len(a) == len(b):
            return a
        rest = a[n:] + [e for e in b[n:] if not any(e is x for x in a[n:])]
        if any(self.is_launch(e) for e in rest):
            return None
        return a[:n] + rest

    def _exits_in(self, bodies) -> bool:
        """Whether one of the statement lists runs ``exit`` directly: as one of its own
        statements (possibly in a ``{ }`` group, a redirection or an ``&&``/``||`` list),
        not nested in another ``if``, loop or function."""
        for body in bodies:
            for n in body or ():
                key = id(n)
                hit = self._exit_cache.get(key)
                if hit is not None and hit[1] is n:  # (kept with its node: `eval`'s nodes do not
                    hit = hit[0]  # outlive the evaluation, and their ids are reused)
                else:
                    hit = False
                    stack = [n]
                    while stack:
                        x = stack.pop()
                        t = x.type
                        if t == "command":
                            nm = x.field("name")
                            if nm is not None and nm.text == "exit":
                                hit = True
                                break
                            continue
                        if t in ("redirected_statement", "list", "compound_statement", "negated_command"):
                            stack.extend(x.children)
                    self._exit_cache[key] = (hit, n)
                if hit:
                    return True
        return False

    def _guard(self, st, cond_nodes, fired: bool, text: str | None = None) -> None:
        if not cond_nodes:
            return
        loc = cond_nodes[0].loc
        if text is None:
            text = " ; ".join(c.text for c in cond_nodes)
        st.guards = st.guards + (Guard(loc, " ".join(text.split()), fired),)

    def _join_exits(self, states):
        """Paths that exit at the same place with the same status and events are one result."""
        seen = {}
        out = []
        for s in states:
            c = s.ctl
            if c is not None and c[0] == "exit":
                key = (id(c[2].source), c[2].start, c[1], tuple(id(e) for e in s.events))
                if key in seen:
                    self.paths -= 1
                    continue
                seen[key] = s
            out.append(s)
        return out

    def _run_final(self, node, st):
        res = self.run_node(node, st)
        for r in res:
            if r.errexit:
                self._errexit_check(node, r)
        return res
