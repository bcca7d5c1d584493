"""Function summaries: a call to a shell function that cannot launch anything is evaluated once
and replayed when the same function is called again in the same situation.

A recipe calls the same helpers (``cleanup_server``, ``wait_for_server_ready``, ``fetch_metric``,
``start_gpu_monitor``) on every path of every sweep point.  The evaluator records, while it runs
such a call, which variables of the caller's scopes the call *read* (with their value at the
call) — through lookups, and through joins and loop-progress checks that compare a variable's
values — and, afterwards, what the call *changed*: variables, functions, files, options, output,
conditions, notes, status, exit and positional parameters (`shift` in a loop or a sourced
file).  A later call replays those changes when

* its key is equal: the function body, its arguments and stdin (with the source locations of
  every value), the function table, the shell options, the names on the call stack (an exit
  replayed under other callers reports their frames), which names each
  caller scope holds, the virtual files (and the number of paths so far, when that decided a
  fork or a join); and
* every variable the first call read holds an equal value (text, unknown-ness *and* where the
  value was written, so the replayed values point at the same lines) — or, for a variable only
  tested with `-z`/`-n`, an equally empty one (``EMPTY`` reads), or, for one only assigned, the
  same attributes (``ATTRS`` reads).

A replayed assignment of the very variable object a recording around it started with writes a
copy (that recording tells what changed by identity), and an exit replayed at another call site
reports that site in its stack.

Summaries of the sourced library's own code (``benchmark_lib.sh`` helpers), run while the function
table holds only the library's functions, are kept by the ``Library`` and shared by every recipe
analysed in the process (each evaluator also keeps its own, once a shared key holds as many as are
kept); a run that read `$0` (the script's name) serves only runs started under the same name.

The analysis evaluates a recipe's later sweep points with a second evaluator that stops at the
launch (the first also follows the benchmark clients); it replays the first one's summaries of
runs that never asked what may launch (``Summary.watch_free``: a run that asked — a loop deciding
whether it is a quiet poll, a fork on an unknown condition, the top level's look-ahead — holds
only under the watch it was recorded with), ``Evaluator.share``.

Calls that launch a server, or that list variables wholesale, are never summarised; other
events a call records (engine changes: ``pip install``, ``git apply``) are replayed, re-bound to
the sweep point being evaluated.  A replay is exactly what evaluating the call again would give: the
evaluator is deterministic in what it reads.
"""

from __future__ import annotations

from recipelint.bash.source import Loc
from recipelint.evaluate.values import Chunk, Word
from recipelint.evaluate.variables import Kind

_ABSENT = object()  # a name not present in a scope (distinct from a local that is unset: None)
#: how much of a variable a read depends on (weakest first)
ATTRS, EMPTY, VALUE = 0, 1, 2
_SAME = object()
MAX_ENTRIES = 8  # summaries kept per key (calls that differ only in what they read); a key
#                 with this many is evaluated without recording from then on
MIN_STEPS = 24  # a statement is summarised once it took at least this many evaluation steps


def sig(x):
    """A hashable value that is equal exactly when two values are the same to the evaluator:
    texts, unknown-ness and the locations they came from."""
    t = type(x)
    if x is None or t is str or t is int or t is bool:
        return x
    if t is tuple or t is list:
        return tuple([sig(i) for i in x])
    if t is Chunk:
        loc = x.loc
        return (x.text, None if loc is None else (loc.source, loc.start, loc.end), x.why, x.nonempty, x.multi)
    if t is Word:
        return ("w", sig(x.chunks), sig(x.loc), sig(x.split))
    if t is Loc:
        return (x.source, x.start, x.end)
    if t is dict:
        return ("d", tuple([(k, sig(v)) for k, v in x.items()]))
    if hasattr(x, "kind") and hasattr(x, "integer"):  # a Var
        return ("v", x.kind, x.exported, x.readonly, x.integer, sig(x.value))
    return ("id", x)


class Recorder:
    """What one running call reads from the scopes it was called from (index -1: globals,
    0..depth-1: the callers' local frames), with the values those held at the call.
    ``snap`` is a copy of the state at the call."""

    __slots__ = ("depth", "scopes", "reads", "opaque", "budget", "script", "script_at", "watched")

    def __init__(self, snap):
        self.depth = len(snap.frames)
        self.scopes = [snap.vars] + snap.frames
        self.reads: dict = {}
        self.opaque = False
        self.budget = False  # whether the number of paths so far decided something
        #: the script's name at the start (``script_at``), once the run read `$0` or
        #: `$BASH_SOURCE` (else None)
        self.script = None
        self.script_at = snap.script
        #: whether the run asked what may launch (the evaluator's watch): its summary then holds
        #: only for evaluators watching the same commands (``Summary.watch_free``)
        self.watched = False

    def note(self, idx: int, name: str, mode: int = VALUE) -> None:
        """A read of ``name`` in scope ``idx``: of its value (``VALUE``), only of whether it is
        empty (``EMPTY``: a `-z`/`-n` test), or only of its attributes (``ATTRS``: an assignment
        that replaces a scalar reads whether it is readonly, exported, ...).  The strongest read
        of a name counts."""
        if idx < self.depth:
            key = (idx, name)
            had = self.reads.get(key)
            if had is None:
                self.reads[key] = (self.scopes[idx + 1].get(name, _ABSENT), mode)
            elif mode > had[1]:
                self.reads[key] = (had[0], mode)


def note_all(recs, idx: int, name: str, mode: int = VALUE) -> None:
    for r in recs:
        r.note(idx, name, mode)


_PLAIN = ("s", False, False, False)


def _attrs(v):
    """What an assignment replacing a scalar reads: an unset name is a plain scalar."""
    if v is _ABSENT or v is None:
        return _PLAIN
    return (v.kind, v.exported, v.readonly, v.integer) if v.kind == Kind.SCALAR else _SAME  # arrays: by value


class Summary:
    __slots__ = ("reads", "outcomes", "steps", "paths", "paths_at", "script", "watch_free", "launches")

    def __init__(self, reads, outcomes, steps, paths, paths_at, script=None, watch_free=False, launches=0):
        self.reads = reads
        self.outcomes = outcomes
        self.steps = steps
        self.paths = paths
        #: the number of paths at the start, when it decided a fork or join (else None)
        self.paths_at = paths_at
        #: the script's name the run read (`$0`), else None
        self.script = script
        #: the run never asked what may launch: it is the same under any watch (an evaluator of
        #: the same recipe that stops at the launch replays what one following the clients
        #: recorded, ``Evaluator.share``)
        self.watch_free = watch_free
        #: launches the run counted that its outcomes do not hold (made in a `$(...)`, whose
        #: events are not the caller's): they count toward ``Limits.max_launches`` when replayed
        self.launches = launches


def note_watch(recs) -> None:
    """The evaluator asked what may launch: every run being recorded depends on its watch."""
    for r in recs:
        r.watched = True


def note_script(recs) -> None:
    """A read of the script's name (`$0`): a summary holds only for runs started with the same
    script name (the key leaves it out: a library helper that never reads it serves every recipe)."""
    for r in recs:
        r.script = r.script_at


class Entry:
    """A run being recorded: a copy of the state at its start, what it reads, and the step and
    path counters then."""

    __slots__ = ("snap", "rec", "steps", "paths", "launches")

    def __init__(self, st, steps, paths, launches=0):
        self.snap = st.copy()
        self.rec = Recorder(self.snap)
        self.steps = steps
        self.paths = paths
        self.launches = launches


def key(node, extra: tuple, st):
    """``extra``: what else the node sees (a call's arguments and redirections)."""
    return (
        node,
        extra,
        st.funcs_ver,
        st.errexit,
        st.nounset,
        st.pipefail,
        st.cond_ctx,
        st.out is None,
        st.status,
        st.source_depth,
        st.eval_depth,
        st.truncated,
        tuple([c[0] for c in st.calls]),
        tuple([frozenset(f) for f in st.frames]),
        sig(st.files),
    )


def _diff(before: dict, after: dict) -> tuple:
    out = []
    for k, v in after.items():
        if before.get(k, _ABSENT) is not v:
            out.append((k, v))
    for k in before:
        if k not in after:
            out.append((k, _ABSENT))
    return tuple(out)


def _suffix(before, after):
    """What was appended to a tuple/list, or _ABSENT when ``after`` does not extend ``before``."""
    n = len(before)
    if len(after) < n or any(a is not b for a, b in zip(before, after[:n])):
        return _ABSENT
    return tuple(after[n:])


def summarize(e: Entry, results, steps: int, paths: int, is_launch, launches: int = 0) -> Summary | None:
    """The summary of a finished call, or None when it cannot be replayed."""
    rec, snap = e.rec, e.snap
    if rec.opaque:
        return None
    outcomes = []
    n_notes = len(snap.notes)
    for r in results:
        events = _suffix(snap.events, r.events)
        if events is _ABSENT or any(is_launch(ev) for ev in events) or len(r.frames) != rec.depth:
            return None
        cond = _suffix(snap.cond, r.cond)
        guards = _suffix(snap.guards, r.guards)
        inexact = _suffix(snap.inexact, r.inexact)
        if cond is _ABSENT or guards is _ABSENT or inexact is _ABSENT or len(r.notes) < n_notes:
            return None
        if r.out is None or snap.out is None:
            if (r.out is None) != (snap.out is None):
                return None
            out = None
        else:
            out = _suffix(snap.out, r.out)
            if out is _ABSENT:
                return None
        scopes = [r.vars] + list(r.frames)
        writes = tuple((i - 1, k, v) for i, (b, a) in enumerate(zip(rec.scopes, scopes)) for k, v in _diff(b, a))
        funcs = _diff(snap.funcs, r.funcs)
        files = _diff(snap.files, r.files)
        outcomes.append(
            (
                writes,
                funcs,
                r.funcs_ver,
                files,
                events,
                cond,
                guards,
                inexact,
                out,
                tuple(r.notes[n_notes:]),
                r.errexit,
                r.nounset,
                r.pipefail,
                r.status,
                r.ctl,
                r.last_err if r.last_err is not snap.last_err else _SAME,
                r.truncated,
                r.pos if r.pos is not snap.pos else _SAME,  # `shift` / `set --` in a statement or sourced file
                r.stdin if r.stdin is not snap.stdin else _SAME,  # what `read` took of stdin
            )
        )
    reads = tuple((idx, name, v, _read_sig(v, mode), mode) for (idx, name), (v, mode) in rec.reads.items())
    return Summary(reads, tuple(outcomes), steps, paths, e.paths if rec.budget else None, rec.script, not rec.watched, launches)


def _read_sig(v, mode: int):
    """What a replay requires of a variable read with ``mode`` (compared with ``==``; None and
    ``_SAME``: only the very same object)."""
    if mode == VALUE:
        return None if v is _ABSENT or v is None else sig(v)
    if mode == ATTRS:
        return _attrs(v)
    # EMPTY: whether it is set, whether it is empty — and its attributes (an ATTRS read of the
    # same name is folded into this one)
    if v is _ABSENT or v is None:
        return ("unset",)
    if v.kind == Kind.SCALAR:
        from recipelint.evaluate.values import emptiness

        e = emptiness(v.value)
        if e is not None:
            return ("empty", e, _attrs(v))
    return ("value", sig(v))


def _copy_of(a, b) -> bool:
    """Whether ``a`` is ``b`` written again by a replay (a copy sharing its value)."""
    return (
        a is not None
        and b is not None
        and a is not _ABSENT
        and b is not _ABSENT
        and a.value is b.value
        and a.kind == b.kind
        and a.exported == b.exported
        and a.readonly == b.readonly
        and a.integer == b.integer
    )


def matches(s: Summary, st) -> bool:
    if s.script is not None and s.script != st.script:
        return False
    for idx, name, v, vsig, mode in s.reads:
        scope = st.vars if idx < 0 else st.frames[idx]
        cur = scope.get(name, _ABSENT)
        if cur is v or _copy_of(cur, v):
            continue
        if mode == VALUE:
            if vsig is None or cur is _ABSENT or cur is None or sig(cur) != vsig:
                return False
        elif vsig is _SAME or _read_sig(cur, mode) != vsig:
            return False
    return True


def replay(s: Summary, st, recs, rebind, frame=None) -> list:
    """The states after the call, from the state before it; ``rebind(event)`` is an event for
    the current sweep point.  The function table's version after the call is the recorded one:
    the version before it is part of the key, so the tables before, and after, are equal."""
    for idx, name, _, _, mode in s.reads:  # an enclosing call being recorded read these too
        note_all(recs, idx, name, mode)
    if s.script is not None:
        note_script(recs)
    if s.paths_at is not None:
        for r in recs:
            r.budget = True
    if not s.watch_free:
        note_watch(recs)
    out = []
    n = len(s.outcomes)
    # an event the recorded run made before it forked is one object on every path after it (a
    # join keeps it once); each is rebound once, for all the outcomes that hold it
    bound: dict[int, object] = {}

    def bind(ev):
        got = bound.get(id(ev))
        if got is None:
            got = bound[id(ev)] = rebind(ev)
        return got

    for i, o in enumerate(s.outcomes):
        (
            writes,
            funcs,
            funcs_ver,
            files,
            events,
            cond,
            guards,
            inexact,
            outp,
            notes,
            errexit,
            nounset,
            pipefail,
            status,
            ctl,
            last_err,
            trunc,
            pos,
            stdin,
        ) = o
        r = st.copy() if i < n - 1 else st
        for idx, name, v in writes:
            scope = r.vars if idx < 0 else r.frames[idx]
            if v is _ABSENT:
                scope.pop(name, None)
            else:
                if v is not None and any(idx < rc.depth and rc.scopes[idx + 1].get(name) is v for rc in recs):
                    # a run being recorded around this one tells what changed by identity: the
                    # very object it started with (an earlier replay's) would look like no write
                    v = v.copy()
                scope[name] = v
        if funcs:
            for name, body in funcs:
                if body is _ABSENT:
                    r.funcs.pop(name, None)
                else:
                    r.funcs[name] = body
            r.funcs_ver = funcs_ver
        for path, data in files:
            if data is _ABSENT:
                r.files.pop(path, None)
            else:
                r.files[path] = data
        if events:
            r.events = r.events + [bind(ev) for ev in events]
        r.cond = r.cond + cond
        r.guards = r.guards + guards
        r.inexact = r.inexact + inexact
        if outp is not None:
            r.out = r.out + outp
        r.notes.extend(notes)
        if ctl is not None and ctl[0] == "exit" and len(ctl) > 4 and len(ctl[4]) >= len(st.calls):
            # an exit inside a replayed run: the stack names this run's callers (the key holds
            # only their names) and, for a function call, this call's site
            i = len(st.calls)
            inner = ctl[4][i:]
            if frame is not None and inner:
                inner = (frame,) + inner[1:]
            ctl = ctl[:4] + (st.calls + inner,) + ctl[5:]
        r.errexit, r.nounset, r.pipefail, r.status, r.ctl = errexit, nounset, pipefail, status, ctl
        if last_err is not _SAME:
            r.last_err = last_err
        r.truncated = trunc
        if pos is not _SAME:
            r.pos = pos
        if stdin is not _SAME:
            r.stdin = stdin
        out.append(r)
    return out
