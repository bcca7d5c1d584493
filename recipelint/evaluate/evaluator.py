"""An abstract interpreter for bash recipes: it never executes anything.

``Evaluator.run(parsed, env)`` walks the tree under one environment (a sweep point) and
returns every *path* the script can take: the commands it runs (handed to a command hook,
which recognises serve launches), where it exits, and the conditions on unknown values that
chose the path.  Known values are computed exactly; unknown ones (a ``$( )`` we do not model,
a file test) are ⊤: a condition on ⊤ forks both branches (bounded by ``Limits.max_paths``);
past the bound, or for loops over ⊤, the variables the skipped code assigns become ⊤
("havoc") and the path is marked truncated.

The state of a path is a mutable :class:`State`; a fork copies it.  Statements map a state to
a list of states.

The :class:`Evaluator` is composed of one mixin per concern (see the package docstring); this
module holds the entry point (``run``), the statement dispatch and the step bound."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

from recipelint.bash.source import Loc
from recipelint.bash.tree import MAX_DEPTH, Node, Parsed
from recipelint.evaluate.assign import Assignments
from recipelint.evaluate.commands import Commands
from recipelint.evaluate.conditions import Conditions
from recipelint.evaluate.control import ControlFlow
from recipelint.evaluate.effects import Effects
from recipelint.evaluate.fields import _IFS_VAR
from recipelint.evaluate.joins import Joins
from recipelint.evaluate.library import Library
from recipelint.evaluate.params import Parameters
from recipelint.evaluate.state import BACKGROUND_JOB, Exit, Limits, PathResult, State, _Exit
from recipelint.evaluate.statements import Statements
from recipelint.evaluate.substitution import Substitutions
from recipelint.evaluate.support import _note_key
from recipelint.evaluate.values import AMBIENT, ARGV, EMPTY, UNKNOWN_ARGS, Chunk, Opaque, Word, unknown
from recipelint.evaluate.variables import Kind, Var
from recipelint.evaluate.watch import LaunchWatch
from recipelint.evaluate.words import Words

#: Python frames the evaluation may nest: 48 calls (``Limits.max_call_depth``, counted across
#: `bash -c` processes), each through command substitutions and compound statements, take a few
#: thousand (Python 3.11+ nests Python calls without growing the C stack)
_RECURSION_LIMIT = 20_000


if sys.getrecursionlimit() < _RECURSION_LIMIT:  # set once, when the evaluator is first imported
    sys.setrecursionlimit(_RECURSION_LIMIT)


#: statements whose non-zero status does not end a `set -e` script by itself
_NO_ERREXIT = frozenset(
    {
        "negated_command",
        "if_statement",
        "while_statement",
        "for_statement",
        "c_style_for_statement",
        "case_statement",
        "function_definition",
        "list",
        "do_group",
    }
)


def _outcome_key(x) -> tuple:
    """... and, for a guard, whether it fired (what a path reports once)."""
    return (x.loc.start, id(x.loc.source), getattr(x, "fired", None))


def _unique(items, key):
    """Each item once by ``key``, in the order first made (a loop or a replayed call repeats them)."""
    seen: set = set()
    out = []
    for x in items:
        k = key(x)
        if k not in seen:
            seen.add(k)
            out.append(x)
    return type(items)(out)


class Evaluator(
    LaunchWatch, Statements, Joins, ControlFlow, Effects, Commands, Assignments, Words, Parameters, Substitutions, Conditions
):
    """Evaluates one script.  ``on_command(state, Command)`` is called for every simple command
    that is not a builtin or a function (the launch detector hooks in there) and may return an
    event to record on the path."""

    def __init__(
        self,
        script_path: Path,
        on_command=None,
        limits: Limits | None = None,
        library=None,
        watch: frozenset = frozenset(),
        unwrap=None,
        launch_watch=None,
        is_launch=None,
        rebind=None,
        opaque: frozenset = frozenset(),
        file_exists: Callable[[str], bool | None] | None = None,
    ):
        self.script_path = script_path
        #: functions and builtins run as if they were external commands (a function's body, a
        #: script `bash` runs, are not evaluated): the hook sees the call (a benchmark client a
        #: helper library wraps; the recipe a runner launcher runs)
        self.opaque = opaque
        #: file_exists(path text) -> True/False/None: `-f`/`-e` on a file the script did not write,
        #: answered from the checked tree (the sweep's launcher reading; None: not known)
        self.file_exists = file_exists
        #: unwrap(argv) -> index of the command a launcher prefix runs, or None
        self.unwrap = unwrap
        #: command names the hook cares about: a branch that runs one is never skipped.  A dict
        #: maps a name to the argv prefixes (after the name) that make it relevant, or None for
        #: any use (``{"python": [("-m", "sglang.launch_server"), ("-",)]}``); python3.12 &c.
        #: count as python.
        self.watch = watch
        #: the subset that starts a launch: after a path has launched, only statements that name
        #: one of these are still run at the top level
        self.launch_watch = watch if launch_watch is None else launch_watch
        #: which recorded events are launches (the others: engine changes, ...)
        self.is_launch = is_launch or (lambda ev: True)
        self._launched_last = (None, 0, False)
        #: an event of a replayed call (recipelint.evaluate.summaries), made for the sweep point being evaluated
        self.rebind = rebind or (lambda ev: ev)
        self.on_command = on_command
        self.limits = limits or Limits()
        self.library = library if library is not None else Library()
        self.paths = 1
        self.steps = 0
        self.launches = 0
        self._effect_cache: dict[int, tuple[bool, frozenset]] = {}
        self._launch_cache: dict[int, tuple] = {}
        self._launching_cache: dict = {}
        #: expansions of words without expansions in them, by node (nodes outlive the evaluator)
        self._static_words: dict[int, tuple] = {}
        self._tilde_cache: dict[tuple, tuple] = {}
        self._static_scalars: dict[int, tuple] = {}
        self._static_nodes: dict[int, bool] = {}
        self._tail_cache: dict = {}
        self._strict_cache: dict = {}
        self._exit_cache: dict = {}
        self._reject_cache: dict = {}
        self._item_parts: dict = {}
        self._root = None
        self._launch_var_cache = None
        self._launch_words_cache: list[str] | None = None
        self._fp_ver = None
        self._fp = frozenset()
        self._assign_cache: dict[int, tuple] = {}
        #: function-table versions: equal versions, equal tables (across sweep points too)
        self._funcs0 = self.library.funcs0
        #: what else a summary shared through the library depends on: the hooks' code, the
        #: limits, and the recipe's directory (a relative `source` is resolved from there)
        self._share_key = tuple(id(getattr(f, "__code__", f)) for f in (on_command, unwrap, is_launch, rebind)) + (
            id(self.watch),
            id(self.launch_watch),
            id(self.limits),
            str(script_path.parent),
        )
        self._fver_steps: dict = {}
        self._fver_tables: dict = {}
        #: summaries of calls to functions that cannot launch (recipelint.evaluate.summaries), and the calls
        #: being recorded
        self._memo: dict = {}
        #: an evaluator of the same script under another watch whose watch-free summaries this one
        #: replays (``share``)
        self._peer: Evaluator | None = None
        self._recs: list = []
        self._unsummarizable: set = set()
        self._node_steps: dict = {}
        self._brace_cache: dict = {}
        self._backquote_cache: dict = {}
        self._pattern_words: dict = {}
        self._regex_parts: dict = {}
        self._counting_cache: dict = {}
        self.replays = 0  # calls and statements replayed from a summary (all runs)
        #: an ambient environment (values.AMBIENT): set by run() from the sweep point
        self.ambient = False
        self._ambient_values: dict = {}

    def share(self, peer: Evaluator) -> None:
        """Replay what ``peer`` recorded where its runs never asked what may launch
        (``Summary.watch_free``), number function tables as it does, so that both agree on the
        summaries' keys, and summarise the statements its runs found long.  ``peer`` evaluates
        the same script with the same library, limits and hooks, under another watch: the
        analysis's evaluator that follows the benchmark clients, peer of the one that stops at
        the launch (``lint.analysis``)."""
        if peer.library is not self.library or peer.limits is not self.limits or peer.script_path != self.script_path:
            raise ValueError("an evaluator shares summaries only with one of the same script, library and limits")
        self._peer = peer
        self._fver_steps = peer._fver_steps
        self._fver_tables = peer._fver_tables
        self._node_steps = peer._node_steps  # (which statements are worth a summary: the peer's runs say)

    # -----------------------------------------------------------------------------------
    def run(self, parsed: Parsed, env: dict) -> list[PathResult]:
        st = State.__new__(State)
        st.vars = {}
        self.ambient = AMBIENT in env
        self._ambient_values: dict = {}
        for k, v in env.items():
            if v is None or k in (AMBIENT, ARGV):
                continue
            if isinstance(v, Opaque):
                val = unknown(f"${k}", None, nonempty=v.nonempty)
            else:
                val = (Chunk(str(v), None),) if str(v) else EMPTY
            st.vars[k] = Var(Kind.SCALAR, val, exported=True)
        st.vars["IFS"] = _IFS_VAR
        st.frames = []
        st.funcs = {}
        st.funcs_ver = self._funcs0
        st.recs = self._recs
        argv = env.get(ARGV, ())
        st.pos = (UNKNOWN_ARGS,) if argv is None else tuple(Word((Chunk(str(a), None),), None) for a in argv)
        st.files = {}
        st.errexit = False
        st.nounset = False
        st.pipefail = False
        st.events = []
        st.cond = ()
        st.ctl = None
        st.out = None
        st.stdin = None
        st.status = 0
        st.notes = []
        st.truncated = False
        st.source_depth = 0
        st.eval_depth = 0
        st.script = str(self.script_path)
        st.cond_ctx = 0
        st.guards = ()
        st.calls = ()
        st.last_err = ""
        st.inexact = ()
        self.paths = 1
        self.steps = 0
        self.launches = 0
        if parsed.depth > MAX_DEPTH:
            st.notes.append((parsed.root.loc, f"nesting deeper than {MAX_DEPTH} levels: not evaluated"))
            states = [st]
        else:
            self._root = parsed.root
            try:
                states = self._script(parsed.root, st)
            except RecursionError:
                # nesting of calls, command substitutions and statements beyond what Python's
                # stack holds (a launching function that runs itself through `$(...)`): the
                # sweep point ends here, cut, rather than the whole run
                st.truncated = True
                st.notes.append((parsed.root.loc, "evaluation nested too deeply: stopped"))
                states = [st]
        results = []
        for s in states:
            ex = None
            if s.ctl is not None and s.ctl[0] == "exit":
                reason = s.ctl[3] if len(s.ctl) > 3 else ""
                set_u = s.nounset if isinstance(s.nounset, Loc) and reason.endswith(": unbound variable") else None
                ex = Exit(s.ctl[1], s.ctl[2], reason, s.ctl[4] if len(s.ctl) > 4 else (), s.last_err, set_u)
            results.append(
                PathResult(
                    s.events,
                    ex,
                    s.cond,
                    s.truncated,
                    _unique(s.notes, _note_key),
                    _unique(s.guards, _outcome_key),
                    _unique(s.inexact, _outcome_key),
                )
            )
        return results

    def run_node(self, node: Node, st: State) -> list[State]:
        self.steps += 1
        if self.steps > self.limits.max_steps:
            if not st.truncated:
                st.truncated = True
                st.notes.append((node.loc, f"evaluation stopped after {self.limits.max_steps} steps"))
            return [st]
        t = node.type
        fn = _DISPATCH.get(t)
        if fn is None:
            return [st]
        try:
            return fn(self, node, st)
        except _Exit as e:  # an expansion ended the path where no statement handler expected it
            st.ctl = ("exit", e.code, e.loc, e.reason, st.calls)
            return [st]

    def run_seq(self, nodes, st: State, top: bool = False, reader: int = 0, fn_tail: int | None = None) -> list[State]:
        """Run statements in order.  At the script's top level (``top``), a path is finished
        once no later statement names a command of ``launch_watch`` (a serve launch; the analysis
        adds the benchmark clients, so what follows the launch is evaluated up to the last client
        call, and no further).  ``reader``: the statements of a sourced file, an
        ``eval`` or ``bash -c`` string (1) or of the script (2), which bash reads one line (one
        list: ``a; b``) at a time — an expansion error (``$((1/0))``) drops the rest of that
        line's list, the functions it is running included, and the next line runs; an error
        assigning an integer (``declare -i N=1/0``, ``A[1/0]=x``) drops the lines of every
        sourced file and string being run, up to the script's line.  (A script run as
        ``bash FILE`` is read as a string here: such an error ends it.)  ``fn_tail``: the body of
        a function called after the launch (the number of events its path had then): it returns
        once it has made a client call and nothing ahead can launch."""
        kids = [n for n in nodes if n.named and n.type not in ("comment", "heredoc_body")]
        units = _line_units(kids) if reader else None
        bg = _backgrounded(nodes)
        states = [st]
        for i, n in enumerate(kids):
            nxt: list[State] = []
            for s in states:
                if s.ctl is not None and s.ctl[0] == "discard" and reader and s.ctl[1] not in (None, units[i]):
                    s.ctl = None
                if s.ctl is not None:
                    nxt.append(s)
                    continue
                if top and not self._rest_may_launch(kids, i, s):
                    s.ctl = ("stop",)
                    nxt.append(s)
                    continue
                if (
                    fn_tail is not None
                    and len(s.events) > fn_tail
                    and any(type(e).__name__ == "ClientCall" for e in s.events[fn_tail:])
                    and not self._rest_may_launch(kids, i, s)
                ):
                    s.ctl = ("return", s.status if isinstance(s.status, int) else 0)
                    nxt.append(s)
                    continue
                res = self._statement(n, s)
                if id(n) in bg:
                    _job_ended(res)
                for r in res:  # (each result by its own `set -e`: a function may have set it)
                    if r.errexit and id(n) not in bg:
                        self._errexit_check(n, r)
                    if (
                        reader
                        and r.ctl is not None
                        and r.ctl[0] == "discard"
                        and r.ctl[1] is None
                        and (reader == 2 or not r.ctl[2])
                    ):
                        r.ctl = ("discard", units[i], r.ctl[2])
                nxt.extend(res)
            states = self._join(nxt, n) if len(nxt) > 1 else nxt
        if top or reader:
            for s in states:
                if s.ctl == ("stop",) or (reader and s.ctl is not None and s.ctl[0] == "discard" and s.ctl[1] is not None):
                    s.ctl = None
        return states

    def _errexit_check(self, node: Node, st: State) -> None:
        if st.ctl is not None or not st.errexit or st.cond_ctx:
            return
        if node.type == "redirected_statement" and node.field("body") is not None:
            node = node.field("body")  # `{ ...; } > log`: as the statement it redirects
        # bash exits after a failing simple command, subshell or function call; a compound
        # statement that ends non-zero (its last command's failure was ignored: `! cmd`, a
        # condition) does not make it exit
        if node.type in _NO_ERREXIT or (
            node.type == "compound_statement" and node.children and node.children[0].type == "{"
        ):  # (not `(( ))`)
            return
        if node.type == "pipeline" and node.children and node.children[0].type == "negated_command":
            return  # `! a | b` (see _pipeline)
        if isinstance(st.status, int) and st.status != 0:
            st.ctl = ("exit", st.status, node.loc, "a command failed under `set -e`", st.calls)

    def _program(self, node, st):
        top = node is self._root and self.on_command is not None and bool(self.watch)
        return self.run_seq(node.children, st, top=top, reader=(2 if node is self._root else 1) if node.type == "program" else 0)


def _backgrounded(nodes) -> set[int]:
    """The statements among ``nodes`` run in the background (`cmd &`), by id."""
    out: set[int] = set()
    last = None
    for n in nodes:
        if n.named:
            if n.type not in ("comment", "heredoc_body"):
                last = n
        elif n.type == "&" and last is not None:
            out.add(id(last))
            last = None
    return out


def _job_ended(states) -> None:
    """After a statement run in the background: what ended it (`exit`, `set -u` on an unset
    name, `exec`) ended the job, not the script, which goes on with status 0 (the job's
    other effects are kept: the launch it made, the variables the model follows)."""
    for r in states:
        if r.ctl is not None and r.ctl[0] == "exit":
            if len(r.ctl) > 3 and str(r.ctl[3]).endswith(": unbound variable"):
                r.notes.append((r.ctl[2], f"{BACKGROUND_JOB}{r.ctl[3]}"))
            r.ctl = None
        if r.ctl is None:
            r.status = 0


def _line_units(kids) -> list[int]:
    """For each statement of a script, the line (the list bash reads at once) it belongs to:
    statements on one line (`a; b`, `a & b`) share one."""
    units = []
    unit = 0
    for i, n in enumerate(kids):
        if i and b"\n" in n.src.data[kids[i - 1].end : n.start]:
            unit += 1
        units.append(unit)
    return units


_DISPATCH = {
    "program": Evaluator._program,
    # the statements tree-sitter could parse inside an ERROR node are still evaluated
    "ERROR": Evaluator._program,
    "compound_statement": Evaluator._compound,
    "do_group": Evaluator._program,
    "subshell": Evaluator._subshell,
    "command": lambda self, n, st: self.run_command(n, st),
    "redirected_statement": Evaluator._redirected,
    "variable_assignment": Evaluator._variable_assignment,
    "variable_assignments": Evaluator._program,
    "declaration_command": Evaluator._declaration,
    "unset_command": Evaluator._unset,
    "function_definition": Evaluator._function_definition,
    "negated_command": Evaluator._negated,
    "list": Evaluator._list,
    "pipeline": Evaluator._pipeline,
    "if_statement": Evaluator._if,
    "case_statement": Evaluator._case,
    "for_statement": Evaluator._for,
    "select_statement": Evaluator._for,
    "c_style_for_statement": Evaluator._c_for,
    "while_statement": Evaluator._while,
    "test_command": Evaluator._test_command,
}
