"""The evaluator's state and results: a path's :class:`State` (variables, functions, files,
options, events), :class:`Var` and its :class:`Kind`, what a path returns (:class:`PathResult`,
:class:`Exit`, :class:`Decision`, :class:`Guard`, :class:`Inexact`, and :class:`Rejected`, the
one event the evaluator records itself), the :class:`Limits` that bound the work, and the
exceptions that end a command or a path."""

from __future__ import annotations

import re
from dataclasses import dataclass

from recipelint.bash.source import Loc
from recipelint.evaluate import summaries as memo
from recipelint.evaluate.values import Word, text_of, unknown
from recipelint.evaluate.variables import Kind, Var


@dataclass(frozen=True, slots=True)
class Decision:
    """A branch taken on a condition whose value was unknown."""

    loc: Loc
    text: str
    taken: bool

    def describe(self) -> str:
        return f"line {self.loc.real().span.line}: `{self.text}` assumed {'true' if self.taken else 'false'}"


@dataclass(frozen=True, slots=True)
class Exit:
    code: int | None
    loc: Loc
    reason: str = ""
    #: the function calls the exit happened in, outermost first: (name, argv texts, call Loc)
    stack: tuple = ()
    #: the last message the path wrote to stderr before exiting
    message: str = ""
    #: for an unbound-variable exit, the `set -u` / `set -o nounset` that was in force (None
    #: when it is not known: a summary replayed from an older version, an option set elsewhere)
    nounset: Loc | None = None


@dataclass(frozen=True, slots=True)
class Inexact:
    """An integer division that dropped a remainder (`$((2 * CONC / TP))` at CONC=9, TP=8)."""

    loc: Loc
    text: str
    dividend: int
    divisor: int
    value: int | None
    exact: object = None  # the value with exact division (a Fraction)


@dataclass(frozen=True, slots=True)
class Command:
    """A command as run: expanded argv and its environment."""

    argv: tuple[Word, ...]
    prefix_env: tuple[tuple[str, tuple], ...]
    loc: Loc
    stdin: tuple | None = None  # what it reads on stdin (a heredoc), when known


@dataclass(frozen=True, slots=True)
class Rejected:
    """A function's own option parser rejecting one of its arguments: the path took the
    ``*)`` (or ``-*)``) arm of a ``case "$1" in`` inside the function, an arm that returns or
    exits non-zero, for an argument whose text is known (``Unknown parameter: --foo``).  An
    event of the path, recorded where the arm is taken (after the launch too: a benchmark
    client's wrapper)."""

    function: str
    #: the argument rejected, as passed (its ``loc``: where the call wrote it)
    word: Word
    #: the arm taken, the status it ends with and whether by ``exit`` (else ``return``)
    arm: Loc
    status: int
    exits: bool = False
    #: the function calls the arm was reached in, outermost first: (name, argv texts, call Loc)
    stack: tuple = ()
    #: the options the other arms of the same ``case`` accept (their literal patterns)
    accepted: tuple = ()
    point: object = None  # the sweep point (set by the driver's rebind, as for launches)
    #: the path reached the arm on an assumption made inside the function (a condition whose
    #: value was unknown: a loop of `expr` arithmetic skipping words): maybe not the arm bash takes
    assumed: bool = False


@dataclass(frozen=True, slots=True)
class Guard:
    """A condition, decided by known values, that guards an ``exit`` (a divisibility check, a
    ``*) exit 1`` case arm).  ``fired`` says whether this path took the exit branch."""

    loc: Loc
    text: str
    fired: bool


@dataclass(slots=True)
class PathResult:
    events: list
    exit: Exit | None
    cond: tuple[Decision, ...]
    truncated: bool
    notes: list[tuple[Loc, str]]
    guards: tuple = ()
    inexact: tuple = ()


@dataclass(slots=True)
class Limits:
    max_paths: int = 64
    soft_paths: int = 16
    max_loop: int = 4096
    # a while/until loop that cannot launch anything (a wait-for-ready or GPU-memory poll) is run
    # this many times, then the variables it sets become unknown
    quiet_loop: int = 3
    quiet_loop_max: int = 1024  # ... and a quiet loop with known values at most this many times
    max_steps: int = 100_000  # ~10x the most any InferenceX sweep point needs
    #: the steps one file's sweep points may take in all (InferenceX's most: ~70,000 over 72
    #: points): past it the points left are not evaluated, and RL011 says so
    file_steps: int = 2_000_000
    #: ... and all the files one process evaluates in a run (InferenceX's whole tree: ~680,000;
    #: each worker process has its own): past it, the points left in the run are not evaluated
    run_steps: int = 40_000_000
    max_launches: int = 512  # per sweep point (InferenceX's most: 16, a SPEED-Bench loop)
    max_call_depth: int = 48
    max_recursion: int = 8  # calls of one function inside itself (one that may launch)
    max_source_depth: int = 8
    #: the longest text one expansion or virtual file may hold, and the most words (or chunks)
    #: one expansion may make: beyond them the value is unknown (a loop doubling `X="$X$X"`
    #: would otherwise grow without bound within the step limit)
    max_output: int = 1 << 20
    max_words: int = 1 << 16
    #: replay calls and statements from summaries of identical earlier runs (recipelint.evaluate.summaries);
    #: off gives the same results, slower (the tests compare both)
    summaries: bool = True


#: the note of a statement that may set variables whose names recipelint does not know
#: (`declare "$k=$v"`, `export $(cat env)`, `eval` of an unknown string, a sourced file not
#: found): a later read of a name not set is then not known to be unset
UNKNOWN_NAMES = "may set variables whose names are not known"


class _Exit(Exception):
    """Raised inside an expansion to end the path (``set -u`` on an unset variable, ``${X:?}``)."""

    def __init__(self, code, loc, reason):
        self.code = code
        self.loc = loc
        self.reason = reason


#: the start of the note of a background job that `set -u` ended (`cmd "$X" &`): the rest is the
#: exit's reason (``X: unbound variable``); the script goes on
BACKGROUND_JOB = "a background job stops: "


#: names the scheduler, the container or the login environment may set whatever the recipe and
#: the sweep point do: under `set -u` a read of one that is not set is not known to stop the
#: script (its value is unknown, maybe empty); outside `set -u` it reads as empty, as before
ENVIRONMENT_NAMES = re.compile(
    r"(?:SLURM|SLURMD|SBATCH|PMI|PMIX|OMPI|GITHUB|RUNNER|NVIDIA|CUDA|ROCM|ROCR|HIP|HSA|LC|XDG|ENROOT|PYXIS|K8S|KUBERNETES)_\w*"
    r"|LD_LIBRARY_PATH|LD_PRELOAD|PYTHONPATH|TERM|LANG|LANGUAGE|TMPDIR|TZ|MAIL|OLDPWD|DISPLAY|COLUMNS|LINES|HISTFILE"
)


def unset_read(name: str, loc, st):
    """A read of ``name``, not set, under `set -u`: bash stops the script (``_Exit``) — unless the
    environment may set the name (``ENVIRONMENT_NAMES``) or a statement before it on this path may have
    (``UNKNOWN_NAMES``): then an unknown value, maybe empty."""
    if ENVIRONMENT_NAMES.fullmatch(name) or any(msg == UNKNOWN_NAMES for _, msg in st.notes):
        return unknown(f"${name}", loc)
    raise _Exit(1, loc, f"{name}: unbound variable")


class _CmdError(Exception):
    """An error that fails the current command (status 1): arithmetic in `(( ))`, `let`,
    `[[ ]]`; in a word's expansion or an assignment bash drops the rest of the line (_discard)."""

    def __init__(self, loc, reason):
        self.loc = loc
        self.reason = reason


class _ExpansionError(_CmdError):
    """An error expanding a word (`$((1/0))`, `${}`): wherever the word is, bash drops the rest
    of the line (_discard)."""


class _ReadonlyError(_CmdError):
    """Assigning a readonly variable: an assignment statement drops the rest of the line, as
    an expansion error does; `declare`/`local` fail (status 1)."""


class State:
    __slots__ = (
        "vars",
        "frames",
        "funcs",
        "pos",
        "files",
        "errexit",
        "nounset",
        "pipefail",
        "events",
        "cond",
        "ctl",
        "out",
        "stdin",
        "status",
        "notes",
        "truncated",
        "source_depth",
        "eval_depth",
        "script",
        "cond_ctx",
        "guards",
        "calls",
        "last_err",
        "inexact",
        "funcs_ver",
        "recs",
    )

    def copy(self) -> State:
        s = State.__new__(State)
        s.vars = dict(self.vars)
        s.frames = [dict(f) for f in self.frames]
        s.funcs = dict(self.funcs)
        s.funcs_ver = self.funcs_ver
        s.pos = self.pos
        s.files = dict(self.files)
        s.errexit = self.errexit
        s.nounset = self.nounset
        s.pipefail = self.pipefail
        s.events = list(self.events)
        s.cond = self.cond
        s.ctl = self.ctl
        s.out = self.out
        s.stdin = self.stdin
        s.status = self.status
        s.notes = list(self.notes)
        s.truncated = self.truncated
        s.source_depth = self.source_depth
        s.eval_depth = self.eval_depth
        s.script = self.script
        s.cond_ctx = self.cond_ctx
        s.guards = self.guards
        s.calls = self.calls
        s.last_err = self.last_err
        s.inexact = self.inexact
        s.recs = self.recs
        return s

    # variables -----------------------------------------------------------------------
    def lookup(
        self, name: str, attrs_only: bool = False, emptiness_only: bool = False, raw: bool = False, _hops: int = 0
    ) -> Var | None:
        """The variable a name refers to.  ``attrs_only``: for an assignment that replaces a
        scalar, which reads only the variable's attributes (readonly, exported, integer, scalar or
        array), not its value; ``emptiness_only``: for a `-z`/`-n` test, which reads only whether
        it is empty — what a summary being recorded notes (recipelint.evaluate.summaries).  A name reference
        (`declare -n R=A`) is followed to its target unless ``raw``."""
        frames = self.frames
        i = len(frames) - 1
        while i >= 0:
            if name in frames[i]:
                break
            i -= 1
        v = frames[i][name] if i >= 0 else self.vars.get(name)
        if self.recs:
            mode = memo.VALUE
            if v is None or v.kind == Kind.SCALAR:
                mode = memo.ATTRS if attrs_only else memo.EMPTY if emptiness_only else memo.VALUE
            memo.note_all(self.recs, i, name, mode)
        if v is not None and v.kind in _UNLIKE_A_VALUE:
            if v.kind == Kind.UNSET:
                return None if not attrs_only else v
            if raw:
                return v
            target = text_of(v.value)  # a name reference
            if target == "":
                return None
            if target is None or not _NAME.fullmatch(target) or _hops >= _MAX_REFS:
                return Var(Kind.SCALAR, unknown(f"${name} (a reference to a name not known)", None))
            return self.lookup(target, attrs_only, emptiness_only, False, _hops + 1)
        return v

    def resolve(self, name: str) -> str | None:
        """The name a variable stands for through name references (`declare -n R=A`: A), or
        None when a reference's target is not known."""
        for _ in range(_MAX_REFS):
            v = self.lookup(name, raw=True)
            if v is None or v.kind != Kind.REF:
                return name
            target = text_of(v.value)
            if not target or not _NAME.fullmatch(target):
                return name if target == "" else None
            name = target
        return None

    def all_scopes(self) -> list[dict]:
        """Every scope, outermost first, for a use that reads all variables (the exported
        environment): a call doing this is not summarised."""
        for r in self.recs or ():
            r.opaque = True
        return [self.vars] + list(self.frames)

    def scope_of(self, name: str) -> dict:
        for f in reversed(self.frames):
            if name in f:
                return f
        return self.vars

    def put(self, name: str, var: Var | None, local: bool = False) -> None:
        scope = self.frames[-1] if (local and self.frames) else self.scope_of(name)
        cur = scope.get(name)
        if cur is not None and cur.kind == Kind.REF and (var is None or var.kind != Kind.REF):
            # a write through a name reference writes its target (bash)
            if text_of(cur.value) == "":
                if var is not None and var.kind == Kind.SCALAR:
                    scope[name] = Var(Kind.REF, var.value)  # `declare -n R; R=A`: A becomes R's target
                return
            target = self.resolve(name)
            if target is not None and target != name:
                self.put(target, var, False)
            return  # (a target not known: the write is lost, as the value it would be read as)
        if var is None:
            scope.pop(name, None)
            if local and self.frames:
                scope[name] = None  # a local that shadows but is unset
        else:
            scope[name] = var


_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


#: the kinds of Var a lookup does not hand out as they are: declared but unset, a name reference
_UNLIKE_A_VALUE = frozenset((Kind.UNSET, Kind.REF))


#: name references followed at most (bash: a circular reference is an error)
_MAX_REFS = 8
