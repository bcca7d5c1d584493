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
"""

from __future__ import annotations

import itertools
import os
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

from . import arith, memo
from .parse import MAX_DEPTH, Node, Parsed, escaped, parse
from .patterns import MAX_WILDCARD_TEXT, compiled, glob_match, replace_pattern, strip_pattern, try_limit
from .source import Loc, SourceFile, VirtualSource
from .values import (
    EMPTY,
    Opaque,
    Chunk,
    Word,
    display,
    emptiness,
    file_key,
    first_loc,
    is_known,
    slice_str,
    text_of,
    unknown,
)

# ---------------------------------------------------------------------------------------------
# results


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
    max_launches: int = 512  # per sweep point (InferenceX's most: 16, a SPEED-Bench loop)
    max_call_depth: int = 48
    max_recursion: int = 8  # calls of one function inside itself (one that may launch)
    max_source_depth: int = 8
    #: the longest text one expansion or virtual file may hold, and the most words (or chunks)
    #: one expansion may make: beyond them the value is unknown (a loop doubling `X="$X$X"`
    #: would otherwise grow without bound within the step limit)
    max_output: int = 1 << 20
    max_words: int = 1 << 16
    #: replay calls and statements from summaries of identical earlier runs (recipelint.memo);
    #: off gives the same results, slower (the tests compare both)
    summaries: bool = True


# ---------------------------------------------------------------------------------------------
# state


class Var:
    """kind: 's' scalar (value: Str), 'a' indexed array (dict[int, Word]), 'A' associative
    (dict[str, Word]), 'u' an array of unknown content (value: Str describing it), '-' declared
    with attributes but unset (`export X`, `declare -i N`: value EMPTY; lookups other than for an
    assignment's attributes see no variable)."""

    __slots__ = ("kind", "value", "exported", "readonly", "integer")

    def __init__(self, kind, value, exported=False, readonly=False, integer=False):
        self.kind = kind
        self.value = value
        self.exported = exported
        self.readonly = readonly
        self.integer = integer

    def copy(self, **kw) -> Var:
        v = Var(self.kind, self.value, self.exported, self.readonly, self.integer)
        for k, val in kw.items():
            setattr(v, k, val)
        return v


class _Exit(Exception):
    """Raised inside an expansion to end the path (``set -u`` on an unset variable, ``${X:?}``)."""

    def __init__(self, code, loc, reason):
        self.code = code
        self.loc = loc
        self.reason = reason


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
        "vars", "frames", "funcs", "pos", "files", "errexit", "nounset", "pipefail", "events", "cond", "ctl",
        "out", "stdin", "status", "notes", "truncated", "source_depth", "script", "cond_ctx", "guards",
        "calls", "last_err", "inexact", "funcs_ver", "recs",
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
        s.script = self.script
        s.cond_ctx = self.cond_ctx
        s.guards = self.guards
        s.calls = self.calls
        s.last_err = self.last_err
        s.inexact = self.inexact
        s.recs = self.recs
        return s

    # variables -----------------------------------------------------------------------
    def lookup(self, name: str, attrs_only: bool = False, emptiness_only: bool = False,
               raw: bool = False, _hops: int = 0) -> Var | None:
        """The variable a name refers to.  ``attrs_only``: for an assignment that replaces a
        scalar, which reads only the variable's attributes (readonly, exported, integer, scalar or
        array), not its value; ``emptiness_only``: for a `-z`/`-n` test, which reads only whether
        it is empty — what a summary being recorded notes (recipelint.memo).  A name reference
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
            if v is None or v.kind == "s":
                mode = memo.ATTRS if attrs_only else memo.EMPTY if emptiness_only else memo.VALUE
            memo.note_all(self.recs, i, name, mode)
        if v is not None and v.kind in _UNLIKE_A_VALUE:
            if v.kind == "-":
                return None if not attrs_only else v
            if raw:
                return v
            target = text_of(v.value)  # a name reference
            if target == "":
                return None
            if target is None or not _NAME.fullmatch(target) or _hops >= _MAX_REFS:
                return Var("s", unknown(f"${name} (a reference to a name not known)", None))
            return self.lookup(target, attrs_only, emptiness_only, False, _hops + 1)
        return v

    def resolve(self, name: str) -> str | None:
        """The name a variable stands for through name references (`declare -n R=A`: A), or
        None when a reference's target is not known."""
        for _ in range(_MAX_REFS):
            v = self.lookup(name, raw=True)
            if v is None or v.kind != "n":
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
        if cur is not None and cur.kind == "n" and (var is None or var.kind != "n"):
            # a write through a name reference writes its target (bash)
            if text_of(cur.value) == "":
                if var is not None and var.kind == "s":
                    scope[name] = Var("n", var.value)  # `declare -n R; R=A`: A becomes R's target
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


#: Python frames the evaluation may nest: 48 calls (``Limits.max_call_depth``, counted across
#: `bash -c` processes), each through command substitutions and compound statements, take a few
#: thousand (Python 3.11+ nests Python calls without growing the C stack)
_RECURSION_LIMIT = 20_000
if sys.getrecursionlimit() < _RECURSION_LIMIT:  # set once, when the evaluator is first imported
    sys.setrecursionlimit(_RECURSION_LIMIT)

#: quoting and expansions: a pattern token holding any is a word to expand
_QUOTING = re.compile(r"[$'\"\\`]")
#: a special parameter in here-document text (`$1`, `$@`, `$#`, `$?`), or an escaped character
#: expansions tree-sitter-bash leaves as text: in a here-document `$1`, `$@`, `$#`, `$?` ..., and
#: any `$name` or `${name}` after a backslash-newline; `$#`, `$$`, `$?` ... in the word of
#: `${X:-word}` (group 1: the expansion, none for an escaped character; 2 or 3: the name, see
#: ``_text_name``)
_TEXT_EXPANSION = re.compile(r"\\.|(\$(?:([A-Za-z_](?:[A-Za-z0-9_]|\\\n(?=[A-Za-z0-9_]))*)|\{([A-Za-z_][A-Za-z0-9_]*)\}"
                             r"|[0-9@#?$*!_-]))", re.S)


def _text_name(m) -> str:
    """The name of a ``_TEXT_EXPANSION`` match (a backslash-newline inside a name is none of it:
    bash removes it before it reads the name)."""
    return (m.group(2) or "").replace("\\\n", "") or m.group(3) or m.group(1)[1]

#: ``quoted`` of what is inside double quotes, and of a here-document's body: true, and telling
#: ``${X:-'d'}`` to keep its single quotes (both) and a backquoted command that ``\"`` is ``"`` (double
#: quotes only)
_IN_DQ = 2
_IN_HEREDOC = 3
#: what a backslash escapes in a backquoted command (bash removes that backslash before it parses
#: the command): always, and inside double quotes
_BACKQUOTE_ESCAPE = re.compile(rb"\\([$`\\])")
_BACKQUOTE_ESCAPE_DQ = re.compile(rb'\\([$`\\"])')
#: what a backslash escapes in a here-document's text (left to right: `\\` then a newline is a
#: backslash and a newline; `\` then a newline joins the lines)
_HEREDOC_ESCAPE = re.compile(r"\\([$`\\\n])")
_KEYED_ELEMENT = re.compile(r"^\[([^\]]*)\]\+?=")  # `[key]=value` in an array literal

#: the function table's entry that marks function NAME exported (`export -f NAME`) is this prefix +
#: NAME: no command name contains a NUL byte
_EXPORTED_FUNCTION = "\0export -f "


def _shadowed_export(st: State, name: str) -> bool:
    """Whether the nearest set variable ``name`` (skipping locals declared without a value) is
    exported; a recorded read of its attributes (recipelint.memo)."""
    frames = st.frames
    for i in range(len(frames) - 1, -2, -1):
        v = (frames[i] if i >= 0 else st.vars).get(name)
        if st.recs:  # every scope looked at: what it held decided the answer
            memo.note_all(st.recs, i, name, memo.ATTRS)
        if v is not None:
            return v.exported
    return False


#: statements whose non-zero status does not end a `set -e` script by itself
_NO_ERREXIT = frozenset({
    "negated_command", "if_statement", "while_statement", "for_statement", "c_style_for_statement",
    "case_statement", "function_definition", "list", "do_group",
})

#: the attributes an unset name keeps once declared with them (`export X`, `declare -i N`)
_KEPT_ATTRS = frozenset("xri")


def _unset_marker(v):
    return v is None


# ---------------------------------------------------------------------------------------------
# environment values


def _comma_braces(kids) -> bool:
    """Whether the parts of a word hold `{`, an unquoted comma or a sequence, then `}` (`{a,b}`,
    `{08..10..2}`; `{"k":1}` is no brace expansion)."""
    inner = None
    for c in kids:
        t = c.text
        if c.type == "word" and t == "{":
            inner = []
        elif inner is not None and c.type == "word" and t == "}":
            if any(k.type == "word" and "," in k.text.replace("\\,", "") for k in inner) \
                    or _brace_sequence("".join(k.text for k in inner)) is not None:
                return True
            inner = None
        elif inner is not None:
            inner.append(c)
    return False


def brace_expand(text: str, limit: int) -> list[str] | None:
    """Bash's brace expansion of a literal word: `a{b,c}d` -> abd acd, `{1..3}`, `{a..c}`,
    `{08..10..2}`; None when it makes more than ``limit`` words."""
    depth, start, commas = 0, -1, []
    i = 0
    while i < len(text):
        ch = text[i]
        if ch == "\\":
            i += 2
            continue
        if ch == "{":
            if depth == 0:
                start, commas = i, []
            depth += 1
        elif ch == "}" and depth:
            depth -= 1
            if depth == 0:
                pre, body, post = text[:start], text[start + 1:i], text[i + 1:]
                if commas:
                    cuts = [start] + commas + [i]
                    alts = [text[a + 1:b] for a, b in zip(cuts, cuts[1:])]
                else:
                    alts = _brace_sequence(body)
                    if alts == []:
                        return None
                    if alts is None:  # not a brace expansion: literal up to here, look further on
                        rest = brace_expand(post, limit)
                        return None if rest is None else [text[:i + 1] + r for r in rest]
                rest = brace_expand(post, limit)
                if rest is None or len(alts) * len(rest) > limit:
                    return None
                out: list[str] = []
                for a in alts:
                    heads = brace_expand(pre + a, limit)
                    if heads is None or len(out) + len(heads) * len(rest) > limit:
                        return None
                    out.extend(h + r for h in heads for r in rest)
                return out
        elif ch == "," and depth == 1:
            commas.append(i)
        i += 1
    return [text]


def _brace_sequence(body: str) -> list[str] | None:
    m = re.fullmatch(r"(-?\d+)\.\.(-?\d+)(?:\.\.(-?\d+))?|([A-Za-z])\.\.([A-Za-z])(?:\.\.(-?\d+))?", body)
    if m is None:
        return None
    if m.group(1) is not None:
        a, b = int(m.group(1)), int(m.group(2))
        step = abs(int(m.group(3) or 1)) or 1
        width = max(len(m.group(1)), len(m.group(2))) if re.match(r"-?0\d", m.group(1)) or re.match(r"-?0\d", m.group(2)) else 0
        nums = range(a, b + 1, step) if a <= b else range(a, b - 1, -step)
        if len(nums) > 100_000:  # more words than any limit: a brace expansion of unknown words
            return []
        return [str(n).zfill(width) if width else str(n) for n in nums]
    a, b = ord(m.group(4)), ord(m.group(5))
    step = abs(int(m.group(6) or 1)) or 1
    return [chr(c) for c in (range(a, b + 1, step) if a <= b else range(a, b - 1, -step))]


_ESCAPED_END = re.compile(r"(?<!\\)(?:\\\\)*\\$")  # text ending in an escaping backslash


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


def _flat_redirects(redirects):
    """The redirections in order: tree-sitter-bash puts those written on a here-document's
    first line (`cat <<EOF > out.yaml`) inside the here-document's node."""
    for r in redirects:
        yield r
        if r.type == "heredoc_redirect":
            for c in r.children:
                if c.type in ("file_redirect", "herestring_redirect"):
                    yield c


_BACKTICK = re.compile(r"(?<!\\)(?:\\\\)*`")  # an unescaped backquote
EXPANSION_TYPES = frozenset(
    {"simple_expansion", "expansion", "command_substitution", "arithmetic_expansion", "process_substitution"}
)

_SPECIAL_BUILTINS_EFFECT = frozenset(
    {
        "exit", "return", "break", "continue", "source", ".", "eval", "export", "set", "shift",
        "local", "declare", "readonly", "typeset", "unset", "read", "mapfile", "readarray", "let",
        "exec", "bash", "sh", "printf", "cat", "tee", "getopts", "builtin", "command", "trap", "false",
    }
)

_PYTHON = re.compile(r"^python[0-9.]*$")
#: compound statements worth summarising (recipelint.memo) when they took many steps
_SUMMARIZED = frozenset({
    "if_statement", "case_statement", "for_statement", "c_style_for_statement", "while_statement",
    "compound_statement", "subshell", "list", "pipeline", "redirected_statement", "negated_command",
})
#: a fresh number each time some state's function table changes: equal numbers, equal tables
_FUNCS_VERSION = itertools.count()
def _note_key(note) -> tuple:
    """A note by value (place and text): a location made again for the same place is another
    object, and a freed object's id may be reused."""
    loc, msg = note
    return (msg,) if loc is None else (id(loc.source), loc.start, loc.end, msg)


def _place_key(x) -> tuple:
    """A guard or an inexact division by place (what a join compares)."""
    return (x.loc.start, id(x.loc.source))


def _outcome_key(x) -> tuple:
    """... and, for a guard, whether it fired (what a path reports once)."""
    return (x.loc.start, id(x.loc.source), getattr(x, "fired", None))


def _merge_added(a, b, key):
    """``a`` and the items ``b`` added after the part both share (by identity), without those
    whose ``key`` ``a`` added too; items from before the paths parted are not compared, so that
    the result does not depend on them (a replayed summary appends what the recorded run added)."""
    k = 0
    while k < len(a) and k < len(b) and a[k] is b[k]:
        k += 1
    have = {key(x) for x in a[k:]}
    return a + type(a)(x for x in b[k:] if key(x) not in have)


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


class _Message(str):
    """Text written to stderr: a new object at every write (plain strings may be shared), so
    that a summary can tell a run that wrote the last error message from one that did not."""

    __slots__ = ()


_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_EMPTINESS_OPERAND = re.compile(r'"\$(?:([A-Za-z_][A-Za-z0-9_]*)|\{(!?)([A-Za-z_][A-Za-z0-9_]*)(:?-)?\})"')
#: the kinds of Var a lookup does not hand out as they are: declared but unset, a name reference
_UNLIKE_A_VALUE = frozenset("-n")
#: the kinds of Var whose value is a Str (the others hold a dict of Words)
_STR_KINDS = frozenset("su-n")
#: name references followed at most (bash: a circular reference is an error)
_MAX_REFS = 8
#: names whose value the evaluator makes up when they are not set
_DYNAMIC_NAMES = frozenset({"BASHPID", "RANDOM", "SECONDS", "PPID", "LINENO", "EPOCHSECONDS", "SRANDOM",
                            "BASH_SOURCE", "FUNCNAME", "PIPESTATUS"})
#: names bash or the login environment always sets, to values recipelint cannot know (a sweep
#: point or the script may set them): unknown and not empty until then
_SYSTEM_NAMES = frozenset({"HOME", "PATH", "PWD", "USER", "LOGNAME", "HOSTNAME", "UID", "EUID", "SHELL",
                           "BASH_VERSION", "SHLVL"})
#: names whose value is made up (unknown, not empty) when they are not set
_MADE_UP = frozenset({"$", "!", "BASHPID", "RANDOM", "SECONDS", "PPID", "LINENO", "EPOCHSECONDS", "SRANDOM"}) | _SYSTEM_NAMES
_NAME_SUB = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)(?:\[(.*)\])?")
_REF = re.compile(r"([A-Za-z_][A-Za-z0-9_]*|[0-9]+)(?:\[(.*)\])?")
_INT = re.compile(r"-?\d+")
_ECHO_OPTS = re.compile(r"-[neE]+")
_SHELL_SAFE = re.compile(r"[A-Za-z0-9_./:=@%+,-]+")
_STRIP_PREFIX = re.compile(r"^(\d*)(>>|>\||>|&>>|&>|>&)$")


# ---------------------------------------------------------------------------------------------


class Evaluator:
    """Evaluates one script.  ``on_command(state, Command)`` is called for every simple command
    that is not a builtin or a function (the launch detector hooks in there) and may return an
    event to record on the path."""

    def __init__(self, script_path: Path, on_command=None, limits: Limits | None = None, library=None,
                 watch: frozenset = frozenset(), unwrap=None, launch_watch=None, is_launch=None, rebind=None):
        self.script_path = script_path
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
        #: an event of a replayed call (recipelint.memo), made for the sweep point being evaluated
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
        self._root = None
        self._launch_var_cache = None
        self._fp_ver = None
        self._fp = frozenset()
        self._assign_cache: dict[int, tuple] = {}
        #: function-table versions: equal versions, equal tables (across sweep points too)
        self._funcs0 = self.library.funcs0
        #: what else a summary shared through the library depends on: the hooks' code, the
        #: limits, and the recipe's directory (a relative `source` is resolved from there)
        self._share_key = tuple(id(getattr(f, "__code__", f)) for f in (on_command, unwrap, is_launch, rebind)) \
            + (id(self.watch), id(self.launch_watch), id(self.limits), str(script_path.parent))
        self._fver_steps: dict = {}
        self._fver_tables: dict = {}
        #: summaries of calls to functions that cannot launch (recipelint.memo), and the calls
        #: being recorded
        self._memo: dict = {}
        self._recs: list = []
        self._unsummarizable: set = set()
        self._node_steps: dict = {}
        self._brace_cache: dict = {}
        self._backquote_cache: dict = {}
        self._pattern_words: dict = {}
        self._regex_parts: dict = {}
        self._counting_cache: dict = {}
        self.replays = 0  # calls and statements replayed from a summary (all runs)

    # -----------------------------------------------------------------------------------
    def run(self, parsed: Parsed, env: dict) -> list[PathResult]:
        st = State.__new__(State)
        st.vars = {}
        for k, v in env.items():
            if v is None:
                continue
            if isinstance(v, Opaque):
                val = unknown(f"${k}", None, nonempty=v.nonempty)
            else:
                val = (Chunk(str(v), None),) if str(v) else EMPTY
            st.vars[k] = Var("s", val, exported=True)
        st.vars["IFS"] = _IFS_VAR
        st.frames = []
        st.funcs = {}
        st.funcs_ver = self._funcs0
        st.recs = self._recs
        st.pos = ()
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
                ex = Exit(s.ctl[1], s.ctl[2], s.ctl[3] if len(s.ctl) > 3 else "",
                          s.ctl[4] if len(s.ctl) > 4 else (), s.last_err)
            results.append(PathResult(s.events, ex, s.cond, s.truncated, _unique(s.notes, _note_key),
                                      _unique(s.guards, _outcome_key), _unique(s.inexact, _outcome_key)))
        return results

    # -----------------------------------------------------------------------------------
    # statements

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

    def run_seq(self, nodes, st: State, top: bool = False, reader: int = 0) -> list[State]:
        """Run statements in order.  At the script's top level (``top``), a path is finished
        once no later statement can launch anything (what follows the launch, such as the
        benchmark client, is not evaluated).  ``reader``: the statements of a sourced file, an
        ``eval`` or ``bash -c`` string (1) or of the script (2), which bash reads one line (one
        list: ``a; b``) at a time — an expansion error (``$((1/0))``) drops the rest of that
        line's list, the functions it is running included, and the next line runs; an error
        assigning an integer (``declare -i N=1/0``, ``A[1/0]=x``) drops the lines of every
        sourced file and string being run, up to the script's line.  (A script run as
        ``bash FILE`` is read as a string here: such an error ends it.)"""
        kids = [n for n in nodes if n.named and n.type not in ("comment", "heredoc_body")]
        units = _line_units(kids) if reader else None
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
                res = self._statement(n, s)
                for r in res:  # (each result by its own `set -e`: a function may have set it)
                    if r.errexit:
                        self._errexit_check(n, r)
                    if reader and r.ctl is not None and r.ctl[0] == "discard" and r.ctl[1] is None \
                            and (reader == 2 or not r.ctl[2]):
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
        if node.type in _NO_ERREXIT or (node.type == "compound_statement" and node.children
                                        and node.children[0].type == "{"):  # (not `(( ))`)
            return
        if node.type == "pipeline" and node.children and node.children[0].type == "negated_command":
            return  # `! a | b` (see _pipeline)
        if isinstance(st.status, int) and st.status != 0:
            st.ctl = ("exit", st.status, node.loc, "a command failed under `set -e`", st.calls)

    def _program(self, node, st):
        top = node is self._root and self.on_command is not None and bool(self.watch)
        return self.run_seq(node.children, st, top=top, reader=(2 if node is self._root else 1) if node.type == "program" else 0)

    def _rest_may_launch(self, kids, i, st) -> bool:
        # once this path has recorded an event (the server launch), only statements that name a
        # watched command (directly or in the functions they call) are still run: the benchmark
        # client, monitors and waits after the launch run commands through variables
        # ("${cmd[@]}"), which cannot be told apart from a launch without evaluating them.
        strict = self._launched(st.events)
        if self._fp_ver != st.funcs_ver:  # the function table's content, recomputed when it changed
            self._fp_ver = st.funcs_ver
            self._fp = frozenset((k, id(v)) for k, v in st.funcs.items())
        key = (id(kids[0]) if kids else 0, len(kids), self._fp, strict)
        tail = self._tail_cache.get(key)
        if tail is None:  # tail[j]: whether a statement from j on may launch (None: not known yet)
            tail = self._tail_cache[key] = [None] * len(kids) + [False]
        v = tail[i]
        if v is None:  # look ahead only as far as the next statement that may launch
            j = i
            while tail[j] is None and not self._may_launch(kids[j], st, strict=strict):
                j += 1
            v = True if tail[j] is None else tail[j]
            for k in range(i, j + 1):
                tail[k] = v
        return v

    def _may_launch(self, node, st, strict: bool = False) -> bool:
        """Whether running ``node`` could reach a watched command: a launch word, a command
        whose name is an expansion, eval/source/bash -c, or a function (of the state's
        function table) that may launch.  ``strict``: only watched names count (not
        expansions, eval, source, bash)."""
        direct, names = self._launch_syntax(node, strict)
        return direct or not names.isdisjoint(self._launching(st, strict))

    def _launching(self, st, strict: bool) -> frozenset:
        """Names of the functions in the state's table that may launch (directly or through
        the functions they call), computed once per table."""
        key = (st.funcs_ver, strict)
        hit = self._launching_cache.get(key)
        if hit is None:
            funcs = st.funcs
            callers: dict[str, list[str]] = {}
            work = []
            for name, body in funcs.items():
                direct, names = self._launch_syntax(body, strict)
                if direct:
                    work.append(name)
                for n in names:
                    if n in funcs:
                        callers.setdefault(n, []).append(name)
            found = set(work)
            while work:
                for c in callers.get(work.pop(), ()):
                    if c not in found:
                        found.add(c)
                        work.append(c)
            hit = self._launching_cache[key] = frozenset(found)
        return hit

    def _launch_syntax(self, node, strict: bool) -> tuple[bool, frozenset]:
        """(whether the node itself runs a watched command, the command names it runs)."""
        loose, watched, var_cmds, names = self._command_syntax(node)
        if strict:
            # after a launch, a command run from a variable counts only when that variable is
            # assigned a launch somewhere (`DECODE_CMD=(vllm serve ...)`): known for this script
            # (the node is kept with the answer, so that its id stays its own)
            hit = self._strict_cache.get(id(node))
            if hit is None:
                hit = self._strict_cache[id(node)] = (
                    watched or any(self._names_launch_var(t) for t in var_cmds), node)
            return hit[0], names
        return loose, names

    def _command_syntax(self, node) -> tuple:
        """What the commands under a node are, from its syntax alone: (whether one may be a
        watched command: a watched word, a name that is an expansion, eval/source/bash ...;
        whether one may be a launch by its words; the texts of names that are expansions;
        the command names that are words).  Shared by every evaluator for sourced files."""
        if id(node.src) in self.library.sources:
            cache, key = self.library.launch_cache, (id(node), id(self.watch), id(self.launch_watch))
        else:
            cache, key = self._launch_cache, id(node)
        hit = cache.get(key)
        if hit is None:
            loose = watched = False
            var_cmds = []
            names = set()
            stack = [node]
            while stack:
                n = stack.pop()
                if n.type == "command":
                    nm = n.field("name")
                    word = nm.children[0] if nm is not None and nm.children else nm
                    if word is None or word.type != "word":
                        loose = True
                        if nm is not None:
                            var_cmds.append(nm.text)
                    else:
                        txt = word.text
                        if txt in ("eval", "source", ".", "bash", "sh", "exec", "command", "builtin") \
                                or self._watched(txt, n, False):
                            loose = True
                        if not watched and self._watched(txt, n, True):
                            watched = True
                        names.add(txt)
                stack.extend(n.children)
            hit = cache[key] = (loose, watched, tuple(var_cmds), frozenset(names), node)
        return hit[:4]

    def _names_launch_var(self, text: str) -> bool:
        names = set(re.findall(r"\$\{?#?!?([A-Za-z_][A-Za-z0-9_]*)", text))
        return bool(names & self._launch_vars())

    def _launch_vars(self) -> frozenset:
        """Variables of the script whose assigned text contains a launch (computed once)."""
        if self._launch_var_cache is None:
            words = []
            for name, prefixes in (self.launch_watch.items() if isinstance(self.launch_watch, dict) else []):
                if prefixes is None:
                    words.append(name)
                else:
                    words.extend(p[-1] if name == "python" else f"{name} {' '.join(p)}" for p in prefixes)
            found = set()
            stack = [self._root] if self._root is not None else []
            while stack:
                n = stack.pop()
                if n.type == "variable_assignment":
                    nm = n.field("name")
                    if nm is not None and any(w in n.text for w in words):
                        found.add(nm.text.split("[", 1)[0])
                stack.extend(n.children)
            self._launch_var_cache = frozenset(found)
        return self._launch_var_cache

    def _watched(self, name: str, cmd, strict: bool = False) -> bool:
        """Whether a command (syntax node) with this name may be one the hook cares about
        (``strict``: may be a launch)."""
        watch = self.launch_watch if strict else self.watch
        name_node = cmd.field("name")
        words: list = [name]
        for c in cmd.children:
            if c is name_node or c.type == "variable_assignment" or not c.named:
                continue
            if c.type in ("word", "number"):
                words.append(c.text)
            elif c.type == "raw_string":
                words.append(c.text[1:-1])
            elif c.type in ("file_redirect", "heredoc_redirect", "herestring_redirect", "comment"):
                continue
            elif c.type in ("string", "concatenation") and "[@]" not in c.text and "[*]" not in c.text:
                words.append(None)  # one word, not known here
            else:
                words.append(...)  # an expansion that may be any number of words
                break
        return self._words_watched(words, watch, strict)

    def _words_watched(self, words: list, watch, strict: bool = False) -> bool:
        """``words``: literal text, None (one unknown word) or ... (any number of words)."""
        first = words[0]
        if first is ...:
            return True
        if first is None:
            return True
        base = os.path.basename(first)
        if _PYTHON.match(base):
            base = "python"
        if base not in watch:
            return False
        prefixes = watch[base] if isinstance(watch, dict) else None
        args = words[1:]
        if prefixes is None:
            if strict:
                # a launcher (`timeout 60 CMD`) after the launch: only when what it wraps may be
                # a launch — some later word starts a watched command, or an array may hold one
                for i in range(1, len(words)):
                    w = words[i]
                    if w is ...:
                        return True
                    if isinstance(w, str) and not w.startswith("-") and "=" not in w and not w.replace(".", "").isdigit():
                        return self._words_watched(words[i:], watch, strict)  # the wrapped command
                return False
            return True
        if base == "python":  # interpreter options before the script / -m / -c / -
            while args and isinstance(args[0], str) and args[0].startswith("-") and args[0] not in ("-", "-m", "-c"):
                if args[0] in ("-X", "-W"):
                    args = args[1:]
                args = args[1:]

        def matches(p) -> bool:
            for i, want in enumerate(p):
                if i >= len(args):
                    return False
                if args[i] is ...:
                    return True
                if args[i] is not None and args[i] != want:
                    return False
            return True

        return any(matches(p) for p in prefixes)

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
        if ref is not None and ref.kind == "n":
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
        elif var is not None and var.kind in ("a", "A"):
            d = dict(var.value)
            key = idx if var.kind == "A" else self._arith_int(idx, st, loc)
            if key is None:  # which element: unknown
                st.put(name, Var("u", unknown(f"${{{name}[@]}}", loc, multi=True), var.exported))
                return True
            if var.kind == "a" and key < 0:
                key += max(d) + 1 if d else 0
            d.pop(key, None)
            st.put(name, var.copy(value=d))
        elif var is not None and var.kind == "s" and self._arith_int(idx, st, loc) in (0, -1):
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
            return self.run_seq([left, right], st)
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
                    hit = hit[0]                   # outlive the evaluation, and their ids are reused)
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
                    self._guard(s, [item], True, text=f"case {value_node.text if value_node is not None else ''} in {' | '.join(p.text for p in patterns)})")
                if m is True:
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
        return patterns, body, term

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
            nxt = []
            for s in active:
                try:
                    c = self.arith_parts(cond, s) if cond else 1
                except _CmdError as e:
                    s.notes.append((e.loc, e.reason))
                    s.status = 1
                    done.append(s)
                    continue
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

    # -----------------------------------------------------------------------------------
    # forking helpers

    def _can_fork(self, st, node) -> bool:
        for r in self._recs:  # the answer depends on the paths so far
            r.budget = True
        if self.paths < self.limits.max_paths:
            return True
        if not st.truncated:
            st.truncated = True
            st.notes.append((node.loc, f"more than {self.limits.max_paths} paths: later branches on unknown values are not followed"))
        return False

    def _fork_worthy(self, nodes, st) -> bool:
        """Whether the nodes can change anything we track (else an unknown branch is skipped)."""
        if st.out is not None:
            return True
        for n in nodes:
            eff, names = self._effects(n)
            if eff:
                return True
            for nm in names:
                base = os.path.basename(nm)
                if nm in st.funcs or base in self.watch or (_PYTHON.match(base) and "python" in self.watch):
                    return True
        return False

    def _effects(self, node) -> tuple[bool, frozenset]:
        key = id(node)
        hit = self._effect_cache.get(key)
        if hit is not None and hit[2] is node:
            return hit[0], hit[1]
        names = set()
        eff = False
        stack = [node]
        while stack and not eff:
            n = stack.pop()
            t = n.type
            if t in ("variable_assignment", "declaration_command", "unset_command", "function_definition"):
                eff = True
                break
            if t == "command":
                nm = n.field("name")
                if nm is None:
                    eff = True
                    break
                word = nm.children[0] if nm.children else nm
                if word.type != "word":
                    eff = True
                    break
                txt = word.text
                if txt in _SPECIAL_BUILTINS_EFFECT:
                    eff = True
                    break
                names.add(txt)
            if t in ("arithmetic_expansion", "compound_statement") and ("=" in n.text or "++" in n.text or "--" in n.text):
                if t == "arithmetic_expansion" or (n.children and n.children[0].type == "(("):
                    txt = n.text
                    if re.search(r"(?<![=!<>])=(?!=)|\+\+|--", txt):
                        eff = True
                        break
            if t == "file_redirect":
                eff = True
                break
            stack.extend(n.children)
        res = (eff, frozenset(names), node)
        self._effect_cache[key] = res
        return eff, res[1]

    def _havoc(self, nodes, st, extra=()) -> None:
        """Make every variable the nodes may assign unknown."""
        names = set(extra)
        arrays = set()
        for n in nodes:
            for name in self._assigned(n):
                if name.endswith("[]"):
                    arrays.add(name[:-2])
                else:
                    names.add(name)
        for name in names | arrays:
            var = st.lookup(name)
            if name in arrays or (var is not None and var.kind in ("a", "A", "u")):
                st.put(name, Var("u", unknown(f"${{{name}[@]}}", nodes[0].loc if nodes else None, multi=True),
                                 var.exported if var is not None else False))
            else:
                self.set_scalar(st, name, unknown(f"${name}", nodes[0].loc if nodes else None), nodes[0].loc if nodes else None)
        # function calls inside can do anything: note it
        st.truncated = st.truncated or any(self._calls_functions(n, st) for n in nodes)

    def _calls_functions(self, node, st) -> bool:
        eff, names = self._effects(node)
        return any(nm in st.funcs for nm in names)

    def _assigned(self, node) -> frozenset:
        key = id(node)
        hit = self._assign_cache.get(key)
        if hit is not None and hit[1] is node:  # (kept with its node, as in _exits_in)
            return hit[0]
        names = set()
        stack = [node]
        while stack:
            n = stack.pop()
            if n.type == "variable_assignment":
                nm = n.field("name")
                val = n.field("value")
                if nm is not None:
                    if nm.type == "subscript":
                        nm = nm.field("name") or nm
                        names.add(nm.text + "[]")
                    elif val is not None and val.type == "array":
                        names.add(nm.text + "[]")
                    else:
                        names.add(nm.text)
            elif n.type == "for_statement":
                v = n.field("variable")
                if v is not None:
                    names.add(v.text)
            elif n.type == "command":
                nm = n.field("name")
                if nm is not None and nm.text in ("read", "mapfile", "readarray", "printf", "getopts", "let"):
                    for a in n.fields_all("argument"):
                        if _NAME.fullmatch(a.text):
                            names.add(a.text)
            elif n.type in ("arithmetic_expansion", "compound_statement", "binary_expression", "postfix_expression", "unary_expression"):
                for m in re.finditer(r"([A-Za-z_][A-Za-z0-9_]*)\s*(?:[-+*/%&|^]|<<|>>|\*\*)?=(?!=)|([A-Za-z_][A-Za-z0-9_]*)\s*(?:\+\+|--)|(?:\+\+|--)\s*([A-Za-z_][A-Za-z0-9_]*)", n.text):
                    names.add(m.group(1) or m.group(2) or m.group(3))
            stack.extend(n.children)
        fs = frozenset(names)
        self._assign_cache[key] = (fs, node)
        return fs

    # -----------------------------------------------------------------------------------
    # simple commands

    def run_command(self, node: Node, st: State, redirects=()) -> list[State]:
        assigns = []
        words = []
        for f, c in zip(node.fields, node.children):
            if f == "name" or f == "argument":
                words.append(c)
            elif c.type == "variable_assignment":
                assigns.append(c)
            elif f == "redirect" or c.type in ("file_redirect", "heredoc_redirect", "herestring_redirect"):
                redirects = tuple(redirects) + (c,)
        if node.extra:
            words = sorted(list(words) + list(node.extra), key=lambda n: n.start)
        try:
            if not words:
                for a in assigns:
                    self.assign(a, st)
                st.status = st.status if assigns and _has_cmdsub(assigns) else 0
                return [st]
            argv: list[Word] = []
            if len(words) > 64:  # a command with thousands of arguments: each is a step
                self.steps += len(words)
            for w in words:
                argv.extend(self.expand_word(w, st))
            prefix = []
            for a in assigns:
                nm = a.field("name")
                val = a.field("value")
                prefix.append((nm.text if nm is not None else "", self.expand_scalar(val, st, _TILDE_ASSIGN) if val is not None else EMPTY))
            stdin, out_target, out_append = self._redirect_info(redirects, st)
        except _Exit as e:
            st.ctl = ("exit", e.code, e.loc, e.reason, st.calls)
            return [st]
        except _CmdError as e:  # expanding its words, assignments or redirections
            _discard(st, e)
            return [st]
        if not argv:
            for name, val in prefix:
                self.set_scalar(st, name, val, node.loc)
            st.status = 0
            return [st]
        if redirects and (argv[0].text in _SHELL_BUILTINS or argv[0].text in st.funcs):
            self._open_named_descriptors(redirects, st)
        return self.dispatch(argv, prefix, node, st, stdin, out_target, out_append)

    def _redirect_info(self, redirects, st):
        stdin = None
        out_target = None
        out_append = False
        for r in _flat_redirects(redirects):
            if r.type == "heredoc_redirect":
                stdin = self.heredoc_value(r, st)
            elif r.type == "herestring_redirect":
                inner = [c for c in r.children if c.named]
                if inner:
                    stdin = self.expand_scalar(inner[-1], st) + (Chunk("\n", None),)
            elif r.type == "file_redirect":
                desc = r.field("descriptor")
                op = None
                for c in r.children:
                    if not c.named:
                        op = c.type
                dest = r.field("destination")
                fd = desc.text if desc is not None else None
                if fd is not None and fd[:1] == "{":
                    pass  # (`{name}>file`: a new descriptor, see _open_named_descriptors)
                elif op in (">", ">>", ">|", "&>", "&>>") and fd in (None, "1"):
                    target = self.expand_scalar(dest, st, _TILDE_WORD) if dest is not None else EMPTY
                    out_target = target
                    out_append = op in (">>", "&>>")
                elif op == ">&" and fd in (None, "1") and dest is not None and dest.text == "2":
                    out_target = (Chunk("/dev/stderr", None),)
                elif op == ">&" and fd in (None, "1") and dest is not None and dest.text not in ("2", "1"):
                    out_target = self.expand_scalar(dest, st, _TILDE_WORD)
                elif op == "<" and fd in (None, "0") and dest is not None and dest.type == "process_substitution" \
                        and dest.text.startswith("<("):
                    # `done < <(cmd)`: what the command writes
                    status = st.status
                    stdin = self._output([c for c in dest.children if c.named], dest, st)
                    st.status = status
                    if stdin is None:
                        stdin = unknown(f"<{dest.text}", r.loc)
                elif op == "<" and fd in (None, "0") and dest is not None:
                    path = file_key(text_of(self.expand_scalar(dest, st, _TILDE_WORD)))
                    stdin = st.files.get(path) if path is not None else None
                    if path == "/dev/null":
                        stdin = EMPTY
                    elif stdin is None:
                        stdin = unknown(f"<{dest.text}", r.loc)
        return stdin, out_target, out_append

    def _open_named_descriptors(self, redirects, st) -> None:
        """``{name}>file`` opens a new descriptor (10 or above) and sets ``name`` to its number —
        in the shell when the redirections are the shell's own (a builtin's, a function's, a
        group's; an external command's are made in its process), unless it closes one (``>&-``)."""
        for r in _flat_redirects(redirects):
            desc = r.field("descriptor") if r.type == "file_redirect" else None
            if desc is not None and desc.text[:1] == "{" and not any(c.type in (">&-", "<&-") for c in r.children):
                self.set_scalar(st, desc.text[1:-1], unknown(f"{desc.text} (a file descriptor bash picks)", r.loc, nonempty=True),
                                r.loc)

    def dispatch(self, argv, prefix, node, st, stdin, out_target, out_append):
        name = argv[0].text
        loc = node.loc
        if name is None:
            return self._external(argv, prefix, node, st, out_target, stdin)
        handler = _BUILTINS.get(name)
        if name in st.funcs:
            return self.call_function(name, argv[1:], prefix, node, st, stdin, out_target)
        if handler is not None:
            saved_in = st.stdin
            if stdin is not None:
                st.stdin = stdin
            out_saved = st.out
            redirected = out_target is not None
            if redirected:
                st.out = ()
            try:
                # a new bash process gets the command's NAME=VALUE prefix in its environment
                res = handler(self, argv, node, st, prefix) if handler in _TAKES_PREFIX else handler(self, argv, node, st)
            except _Exit as e:
                st.ctl = ("exit", e.code, e.loc, e.reason, st.calls)
                res = [st]
            except _CmdError as e:
                st.notes.append((e.loc, e.reason))
                st.status = 1
                res = [st]
            for r in res:
                if stdin is not None:  # its own redirection (else what it read of stdin is gone)
                    r.stdin = saved_in
                elif handler in _STDIN_FILTERS and r.stdin is not None:
                    r.stdin = None  # how much of stdin a filter took is not modelled: the rest is unknown
                if redirected:
                    data = r.out
                    r.out = out_saved
                    path = file_key(text_of(out_target))
                    if path is not None and path not in ("/dev/null", "/dev/stderr", "/dev/stdout"):
                        old = r.files.get(path, EMPTY) if out_append else EMPTY
                        r.files[path] = self._bounded(old + data, loc, r) if data is not None and old is not None \
                            else unknown(path, loc)
                    elif path == "/dev/stdout" and out_saved is not None:
                        r.out = out_saved + data
                    elif path == "/dev/stderr" and data:
                        # keep the last error message: it explains an exit that follows
                        r.last_err = _Message(display(data).strip()[:300])
            return res
        return self._external(argv, prefix, node, st, out_target, stdin)

    def _external(self, argv, prefix, node, st, out_target, stdin=None):
        if self.unwrap is not None:
            # `setsid bash -c "$CMD"`, `nohup sh -c ...`: evaluate the string the launcher runs
            i = self.unwrap(argv)
            if i and argv[i].text is not None and os.path.basename(argv[i].text) in ("bash", "sh") \
                    and len(argv) > i + 1 and argv[i + 1].text == "-c":
                return _b_bash(self, list(argv[i:]), node, st, prefix)
        st.status = None
        if self.on_command is not None:
            ev = self.on_command(st, Command(tuple(argv), tuple(prefix), node.loc, stdin if stdin is not None else st.stdin))
            if ev is not None:
                st.events = st.events + [ev]
                if self.is_launch(ev):
                    self.launches += 1
                    if self.launches > self.limits.max_launches:
                        # a script that sources itself, over and over: thousands of launches
                        st.truncated = True
                        st.notes.append((node.loc, f"evaluation stopped after {self.limits.max_launches} launches"))
                        self.steps = self.limits.max_steps  # everything after is cut as by the step limit
                st.status = 0
        if st.out is not None and out_target is None:
            st.out = st.out + unknown(f"$({_short(' '.join(w.shown for w in argv), 40)})", node.loc)
        return [st]

    def _fver_step(self, ver, name, body):
        lib = self.library
        shared = ver in lib.fver_shared and (body is None or id(body.src) in lib.sources)
        steps = lib.fver_steps if shared else self._fver_steps
        k = (ver, name, body)
        v = steps.get(k)
        if v is None:
            v = steps[k] = next(_FUNCS_VERSION)
            if shared:
                lib.fver_shared.add(v)
        return v

    def _fver(self, funcs):
        """The version of a function table: tables of the library's functions only (helpers
        sourced by every recipe) are numbered by the library, so that every evaluator using it
        agrees; a table holding a recipe's own function is numbered by this evaluator."""
        lib = self.library
        shared = all(id(b.src) in lib.sources for b in funcs.values())
        tables = lib.fver_tables if shared else self._fver_tables
        k = frozenset(funcs.items())
        v = tables.get(k)
        if v is None:
            v = tables[k] = next(_FUNCS_VERSION)
            if shared:
                lib.fver_shared.add(v)
        return v

    def call_function(self, name, args, prefix, node, st, stdin, out_target):
        """Run a function, or replay the summary of an earlier identical call (recipelint.memo)."""
        body = st.funcs[name]
        if body in self._unsummarizable or not self.limits.summaries or len(st.calls) >= self.limits.max_call_depth \
                or any(c[0] == name for c in st.calls):
            return self._call_function(name, body, args, prefix, node, st, stdin, out_target)
        # without a redirection the function reads the caller's stdin (a pipe into it)
        extra = (memo.sig(args), memo.sig(prefix), memo.sig(stdin if stdin is not None else st.stdin), out_target is None)
        # the call's own frame (its site differs between call sites sharing a summary): an exit
        # inside the call reports the stack with this frame
        frame = (name, tuple(a.text for a in args), node.loc)
        return self._summarized(body, extra, st, lambda: self._call_function(name, body, args, prefix, node, st,
                                                                              stdin, out_target), frame)

    def _statement(self, node, st) -> list[State]:
        """A statement of a sequence: evaluated, or, when it is a compound statement that took
        many steps before, replayed from the summary of an earlier identical run."""
        if node.type not in _SUMMARIZED or node in self._unsummarizable or not self.limits.summaries \
                or self._node_steps.get(node, 0) < memo.MIN_STEPS:
            s0 = self.steps
            res = self.run_node(node, st)
            self._node_steps[node] = self.steps - s0
            return res
        extra = (memo.sig(st.pos), memo.sig(st.stdin))
        return self._summarized(node, extra, st, lambda: self.run_node(node, st))

    def _script(self, root, st) -> list[State]:
        """A whole script (a sweep point, or ``bash other.sh``): replayed from a summary when an
        earlier run read the same values and launched nothing."""
        if root in self._unsummarizable or not self.limits.summaries:
            return self.run_node(root, st)
        return self._summarized(root, (memo.sig(st.pos), memo.sig(st.stdin)), st, lambda: self.run_node(root, st))

    def _launched(self, events) -> bool:
        """Whether a path's events include a launch (event lists are never changed in place:
        the answer is kept for the last list asked about)."""
        if not events:
            return False
        last = self._launched_last
        if last[0] is events and last[1] == len(events):
            return last[2]
        found = any(self.is_launch(e) for e in events)
        self._launched_last = (events, len(events), found)
        return found

    def _summarized(self, node, extra, st, run, frame=None) -> list[State]:
        # whether the path launched already decides top-level pruning (a script sourcing itself)
        key = memo.key(node, (extra, self._launched(st.events)), st)
        stores = [(self._memo, key)]
        if st.funcs_ver in self.library.fver_shared and id(node.src) in self.library.sources:
            # the library's code under the library's functions: what other recipes recorded
            # first (this evaluator's own summaries once the shared ones are as many as kept)
            stores.insert(0, (self.library.memo, (key, self._share_key)))
        for store, k in stores:
            for summ in store.get(k, ()):
                if (summ.paths_at is None or summ.paths_at == self.paths) \
                        and self.steps + summ.steps <= self.limits.max_steps and memo.matches(summ, st):
                    self.steps += summ.steps
                    self.paths += summ.paths
                    self.replays += 1
                    return memo.replay(summ, st, self._recs, self.rebind, frame)
        for store, key in stores:  # recorded where there is room
            found = store.get(key)
            if found is None or len(found) < memo.MAX_ENTRIES:
                break
        else:
            # it reads something different nearly every time: recording costs more than it saves
            return run()
        entry = memo.Entry(st, self.steps, self.paths)
        rec = entry.rec
        self._recs.append(rec)
        try:
            res = run()
        finally:
            self._recs.pop()
        if self.steps >= self.limits.max_steps:  # cut short by the step limit: not a summary
            return res
        summ = memo.summarize(entry, res, self.steps - entry.steps, self.paths - entry.paths, self.is_launch)
        if summ is None:  # it launched (or listed every variable): not tried again
            self._unsummarizable.add(node)
        else:
            if found is None:
                found = store[key] = []
            found.append(summ)
        return res

    def _call_function(self, name, body, args, prefix, node, st, stdin, out_target):
        # the call stack, not the local frames: it goes on through `bash -c` (a new process starts
        # without frames), so a function running itself that way is bounded too
        why = None
        if len(st.calls) >= self.limits.max_call_depth:
            why = f"call depth above {self.limits.max_call_depth}: `{name}` not followed"
        elif sum(1 for c in st.calls if c[0] == name) >= self.limits.max_recursion:
            # a function that may launch, running itself (directly, through `$(...)` or `bash -c`)
            why = f"`{name}` running itself more than {self.limits.max_recursion} deep: not followed"
        if why is not None:
            st.notes.append((node.loc, why))
            st.truncated = True
            st.status = None
            return [st]
        if any(c[0] == name for c in st.calls) and not self._may_launch(body, st):
            # recursion of a function that cannot launch (a process-tree walk on unknown pids):
            # its effects are unknown rather than followed to the depth limit
            was = st.truncated
            self._havoc([body], st)
            st.truncated = was
            st.status = None
            if st.out is not None and out_target is None:
                st.out = st.out + unknown(f"$({name} ...)", node.loc)
            return [st]
        saved_pos = st.pos
        saved_in = st.stdin
        saved_out = st.out
        frame = {}
        for pname, val in prefix:
            frame[pname] = Var("s", val, exported=True)
        st.frames.append(frame)
        saved_calls = st.calls
        st.calls = st.calls + ((name, tuple(a.text for a in args), node.loc),)
        st.pos = tuple(args)
        if stdin is not None:
            st.stdin = stdin
        if out_target is not None:
            st.out = None
        res = self.run_node(body, st)
        for r in res:
            if r.frames:
                r.frames.pop()
            r.calls = saved_calls
            r.pos = saved_pos
            if stdin is not None:  # its own redirection (else what it read of stdin is gone)
                r.stdin = saved_in
            if out_target is not None:
                r.out = saved_out
            if r.ctl is not None and r.ctl[0] == "return":
                r.status = r.ctl[1]
                r.ctl = None
        return self._join(res, node, force=True) if len(res) > 1 else res

    # -----------------------------------------------------------------------------------
    # assignments and declarations

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
        kind_attr = "A" if "A" in attrs else ("a" if "a" in attrs else None)
        if value is not None and value.type == "array":
            elems = self.array_elements(value, st, assoc=(kind_attr == "A" or (var is not None and var.kind == "A")))
            if isinstance(elems, _Keyed):  # `(x [5]=y z)`: elements at the indices given
                base = {}
                if op == "+=" and var is not None and var.kind == "s":
                    base = {0: Word(var.value, node.loc)}
                elif op == "+=" and var is not None and var.kind == "a":
                    base = dict(var.value)
                d = self._indexed(elems, base, st, node.loc)
                kind = "a" if d is not None and (var is None or op != "+=" or var.kind in ("a", "s")) else "u"
                val = d if kind == "a" else unknown(f"${{{name}[@]}}", value.loc, multi=True)
                st.put(name, Var(kind, val, var.exported if var else False), local)
                return
            if elems is None:  # an associative array with a key not known
                st.put(name, Var("u", unknown(f"${{{name}[@]}}", value.loc, multi=True), var.exported if var else False), local)
                return
            if isinstance(elems, dict):
                if op == "+=" and var is not None and var.kind == "A":
                    d = dict(var.value)
                    d.update(elems)
                    elems = d
                st.put(name, Var("A", elems, var.exported if var else False), local)
                return
            if op == "+=" and var is not None:
                if var.kind == "a":
                    d = dict(var.value)
                    nxt = max(d) + 1 if d else 0
                    for w in elems:
                        d[nxt] = w
                        nxt += 1
                    st.put(name, var.copy(value=d), local)
                    return
                if var.kind == "u":
                    return
                if var.kind == "s":
                    d = {0: Word(var.value, node.loc)}
                    for i, w in enumerate(elems, 1):
                        d[i] = w
                    st.put(name, var.copy(kind="a", value=d), local)
                    return
            if any(any(c.multi for c in w.chunks) for w in elems):
                st.put(name, Var("u", unknown(f"${{{name}[@]}}", value.loc, multi=True), var.exported if var else False), local)
                return
            st.put(name, Var("a", dict(enumerate(elems)), var.exported if var else False), local)
            return
        val = self.expand_scalar(value, st, _TILDE_ASSIGN) if value is not None else EMPTY
        if (var is not None and var.integer) or "i" in attrs:
            n = self._arith_int(text_of(val) if is_known(val) else None, st, node.loc)
            if op == "+=" and index is None and var is not None and var.kind == "s":
                # `N+=2` on an integer adds (`declare -i N=0; N+=2` is 2, not 02)
                old = self._arith_int(text_of(var.value) if is_known(var.value) else None, st, node.loc)
                n = None if n is None or old is None else old + n
                op = "="
            val = unknown(f"${name}", node.loc) if n is None else (Chunk(str(n), value.loc if value else node.loc),)
        if index is not None:
            if var is not None and var.kind == "u":  # elements not known (nor whether it is associative)
                st.put(name, Var("u", unknown(f"${{{name}[@]}}", node.loc, multi=True), var.exported), local)
                return
            if var is not None and var.kind == "A":
                key = text_of(self.expand_scalar(index, st))
                d = dict(var.value)
                if key is None:
                    st.put(name, Var("u", unknown(f"${{{name}[@]}}", node.loc, multi=True), var.exported), local)
                    return
                old = d.get(key)
                d[key] = Word((old.chunks if old and op == "+=" else EMPTY) + val, node.loc)
                st.put(name, var.copy(value=d), local)
                return
            # (expanded, then evaluated: `a[$i+1]`, `a["$k"]`, `a[10#$h]`)
            i = self._arith_int(text_of(self.expand_scalar(index, st)), st, index.loc)
            if var is None or var.kind not in ("a", "u"):
                base = {} if var is None else {0: Word(var.value, node.loc)}
                var = Var("a", base, var.exported if var else False)
            if var.kind == "u" or i is None:
                st.put(name, Var("u", unknown(f"${{{name}[@]}}", node.loc, multi=True), var.exported), local)
                return
            d = dict(var.value)
            if i < 0:
                i = (max(d) + 1 if d else 0) + i
            old = d.get(i)
            d[i] = Word((old.chunks if old and op == "+=" else EMPTY) + val, node.loc)
            st.put(name, var.copy(value=d), local)
            return
        if op == "+=" and var is not None:
            if var.kind == "s":
                val = var.value + val
            elif var.kind == "a":
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
        if var is not None and var.kind == "a":
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
        st.put(name, Var("s", val, exported, var.readonly if var else False, var.integer if var else False), local)

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
                if c.type in ("variable_name", "word") and _NAME.fullmatch(c.text) \
                        and st.lookup(c.text, attrs_only=True) is None:
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
            if c.type in ("variable_name", "word"):
                name = c.text
                if not _NAME.fullmatch(name):
                    # declare "$X" forms: expand and treat as NAME[=VALUE]
                    try:
                        txt = text_of(self.expand_scalar(c, st))
                    except _CmdError:
                        txt = None
                    if txt is None:
                        continue
                    if "=" in txt:
                        n, v = txt.split("=", 1)
                        self.set_scalar(st, n, (Chunk(v, c.loc),), c.loc, local=local and kw != "export")
                        self._apply_attrs(st, n, attrs, unset_attrs, local and kw != "export")
                    continue
                var = st.lookup(name)
                if var is None or (local and st.frames and name not in st.frames[-1]):
                    if "a" in attrs:
                        st.put(name, Var("a", {}), local)
                    elif "A" in attrs:
                        st.put(name, Var("A", {}), local)
                    elif local and kw != "export":
                        # `local X`: declared, unset until assigned (as in bash: `${X-unset}`, and
                        # `set -u` stops on it); with attributes (`local -i N`) it is kept set and
                        # empty, to hold them; outside a function (an error in bash) it is set empty
                        if st.frames:
                            st.frames[-1][name] = Var("-", EMPTY, True) if _shadowed_export(st, name) else None
                        else:
                            st.vars[name] = Var("s", EMPTY)
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
            if old is not None and old.kind == "s":  # `X=A; declare -n X`: X's value is the target
                target = old.value
        scope = st.frames[-1] if (local and st.frames) else st.scope_of(name)
        scope[name] = Var("n", target)

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
                st.put(name, Var("-", EMPTY, "x" in attrs, "r" in attrs, "i" in attrs), local)
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
        if "a" in attrs and v.kind == "s":
            v.kind = "a"
            v.value = {0: Word(var.value, None)} if var.value else {}
        if "A" in attrs and v.kind == "s" and not var.value:
            v.kind = "A"
            v.value = {}
        if "l" in attrs and v.kind == "s" and is_known(v.value):
            v.value = tuple(c.with_text(c.text.lower()) for c in v.value)
        if "u" in attrs and v.kind == "s" and is_known(v.value):
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

    def _indexed(self, keyed: "_Keyed", base: dict, st: State, loc) -> dict | None:
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

    # -----------------------------------------------------------------------------------
    # word expansion

    def expand_word(self, node: Node, st: State, assign_like: bool = True) -> list[Word]:
        """Expand one word node into argv fields (with word splitting).  The words of a big
        expansion (`"${A[@]}"` of a big array, `{1..5000}`, `$(seq 5000)`) count as steps, each
        time it is expanded, so that the step limit bounds the work they make (as do the
        elements of an array assignment and the words of a long command)."""
        res = self._expand_word(node, st, assign_like)
        if len(res) > 64:
            self.steps += len(res)
        return res

    def _expand_word(self, node: Node, st: State, assign_like: bool = True) -> list[Word]:
        hit = self._static_words.get(id(node))
        if hit is not None:
            return list(hit)
        tilde = self._tilde_plan(node, _TILDE_ASSIGN_LIKE if assign_like else _TILDE_WORD)
        if node.type == "word" and tilde is None and not isinstance(node.src, VirtualSource):
            # a plain literal (`--port`, `serve`): one field, as the general path would make it
            text = _unescape_unquoted(node.text)
            if text:
                hit = self._static_words[id(node)] = (Word((Chunk(text, node.loc),), node.loc),)
                return list(hit)
        if node.type == "concatenation" or node.type == "brace_expression":
            braced = self._braces(node)
            if braced is not None:
                return list(braced) if tilde is None else [self._tilde_braced(w, node, st) for w in braced]
        segs: list = []
        if tilde is None:
            self._segments(node, st, segs, quoted=False)
        else:
            self._tilde_segments(node, tilde, st, segs, quoted=False, scalar=False)
        res = _fields(segs, node.loc, st)
        if len(res) > self.limits.max_words:
            st.notes.append((node.loc, f"expansion makes more than {self.limits.max_words} words: taken as unknown"))
            return [Word(unknown("an expansion too long to follow", node.loc, multi=True), node.loc)]
        cut = False
        for i, w in enumerate(res):
            if self._too_long(w.chunks):
                res[i] = Word(self._cut(node.loc, st), w.loc)
                cut = True
        # the same words every time (words are never changed once made); a cut one is not kept,
        # so that every evaluation notes the cut (nor one whose `~` is `$HOME`)
        if not cut and tilde is None and self._static(node):
            self._static_words[id(node)] = tuple(res)
        return res

    def _too_long(self, s) -> bool:
        """Whether a value is beyond ``Limits.max_output`` characters or ``max_words`` chunks."""
        n = len(s)
        if n == 1:
            t = s[0].text
            return t is not None and len(t) > self.limits.max_output
        if n > self.limits.max_words:
            return True
        total = 0
        for c in s:
            t = c.text
            if t is not None:
                total += len(t)
        return total > self.limits.max_output

    def _bounded(self, s, loc, st):
        """``s``, or an unknown value (with a note) when it is too long to follow."""
        return self._cut(loc, st) if self._too_long(s) else s

    def _cut(self, loc, st):
        """The unknown value that stands for one too long to follow (with a note)."""
        st.notes.append((loc, f"value longer than {self.limits.max_output} characters: taken as unknown"))
        return unknown("a value too long to follow", loc, nonempty=True)

    def expand_scalar(self, node: Node, st: State, tilde_mode: int = 0):
        """Expand without word splitting (assignment right-hand sides, ``case`` words, ...).
        ``tilde_mode``: whether a tilde-prefix is expanded — at the start (``_TILDE_WORD``: a
        ``case`` word, a redirection's target, a ``[[ ]]`` operand) or also after each ``:``
        (``_TILDE_ASSIGN``: an assignment's value)."""
        if node is None:
            return EMPTY
        hit = self._static_scalars.get(id(node))
        if hit is not None:
            return hit
        tilde = self._tilde_plan(node, tilde_mode) if tilde_mode else None
        segs: list = []
        if tilde is None:
            self._segments(node, st, segs, quoted=True, scalar=True)
        else:
            self._tilde_segments(node, tilde, st, segs, quoted=True, scalar=True)
        out = []
        for s in segs:
            if s[0] == "sep":
                out.append(Chunk(" ", None))
            elif s[0] == "t":
                out.extend(s[1])
        res = tuple(c for c in out if c.text is None or c.text)
        if self._too_long(res):  # (not kept below: every evaluation notes the cut)
            return self._cut(node.loc, st)
        if tilde is None and self._static(node):
            self._static_scalars[id(node)] = res
        return res

    def _tilde_plan(self, node, mode: int):
        """Where a word (an assignment's value) has tilde-prefixes bash expands (see
        ``_tilde_spans``); None for none — the common case, answered without a cache by a
        look at the first part's text."""
        if "~" not in node.text:
            return None
        key = (id(node), mode)
        hit = self._tilde_cache.get(key)
        if hit is None or hit[1] is not node:
            hit = self._tilde_cache[key] = (_tilde_spans(node, mode), node)
        return hit[0]

    def _tilde_value(self, login: str, node, st):
        """What `~login` expands to: `$HOME` (`~`), `$PWD` (`~+`), `$OLDPWD` (`~-`) — unknown
        when unset (bash then asks the password database) —, a user's home directory otherwise
        (unknown)."""
        name = _TILDE_NAMES.get(login) if login is not None else None
        val = self.param_value(name, None, node, st) if name is not None else None
        if val is None or isinstance(val, list):
            return unknown(f"~{login or ''}", node.loc, nonempty=True)
        return _relocate(val, node)

    def _tilde_segments(self, node, plan, st, segs, quoted, scalar) -> None:
        """The segments of a word with tilde-prefixes: each `~login` its value (neither split
        nor matched as a pattern), the rest as ``_segments`` makes it."""
        if "unknown" in plan:
            segs.append(("t", unknown(node.text, node.loc), True, False))
            return
        parts = node.children if node.type == "concatenation" else (node,)
        through = plan.get("through")
        for k, c in enumerate(parts):
            spans = plan.get(k)
            if through is not None and k:  # (see _tilde_through)
                if c.end <= through[1]:
                    continue
                if c.start < through[1]:
                    if c.type != "word":  # the word's first `/` inside an expansion
                        segs.append(("t", unknown(node.text, node.loc), True, False))
                        continue
                    text = c.text
                    self._tilde_literal(c, text, len(c.src.data[c.start : through[1]].decode("utf-8", "replace")), len(text), segs)
                    continue
            if spans is None:
                self._segments(c, st, segs, quoted, scalar)
            else:
                self._tilde_part(c, spans, st, segs)
                if through is not None and k == 0 and through[0]:
                    segs.append(("t", (Chunk(through[0], c.loc),), True, False))

    def _tilde_part(self, c, spans, st, segs) -> None:
        """The segments of a literal part ``c`` with the tilde-prefixes ``spans``."""
        text = c.text
        pos = 0
        for i, j, login in spans:
            if i > pos:
                self._tilde_literal(c, text, pos, i, segs)
            segs.append(("t", self._tilde_value(login, c, st), True, False))
            segs.append(("exists",))
            pos = j
        if pos < len(text):
            self._tilde_literal(c, text, pos, len(text), segs)

    def _tilde_literal(self, c, text, i, j, segs) -> None:
        piece = _unescape_unquoted(text[i:j])
        if piece:
            a = c.start + len(text[:i].encode())
            segs.append(("t", self._lit_range(piece, c.src, a, a + len(text[i:j].encode())), True, False))

    def _tilde_braced(self, w: Word, node, st) -> Word:
        """A word of a brace expansion (`~/{a,b}`): bash expands its tilde-prefix after the
        braces (not in `x=~/{a,b}`'s words)."""
        text = text_of(w.chunks)
        m = _TILDE_BRACED.match(text) if text is not None else None
        if m is None or (m.group(1) not in _TILDE_NAMES and not _LOGIN_NAME.fullmatch(m.group(1))):
            return w
        tail = (Chunk(text[m.end():], node.loc),) if m.end() < len(text) else ()
        return Word(self._tilde_value(m.group(1), node, st) + tail, w.loc)

    def _braces(self, node):
        """The words of a word with a brace expansion (`{a,b}.yaml`, `gpu{0..3}`): made from its
        text when it is all literal, one unknown word list otherwise; None without braces."""
        hit = self._brace_cache.get(id(node))
        if hit is not None and hit[1] is node:
            return hit[0]
        kids = node.children if node.type == "concatenation" else (node,)
        words = None
        if any(c.type == "brace_expression" for c in kids) or _comma_braces(kids):
            texts = None
            if all(c.type in ("word", "number", "brace_expression") for c in kids):
                texts = brace_expand(node.text, self.limits.max_words)
            if texts is None:
                words = (Word(unknown(node.text, node.loc, multi=True), node.loc),)
            else:
                words = tuple(Word((Chunk(t, node.loc),), node.loc) for t in map(_unescape_unquoted, texts) if t)
        self._brace_cache[id(node)] = (words, node)
        return words

    def _static(self, node) -> bool:
        """Whether a word's expansion cannot depend on the state: no parameter, command,
        arithmetic or process expansion in it (and not text built by ``eval``, whose nodes do
        not outlive the evaluation)."""
        if isinstance(node.src, VirtualSource):
            return False
        hit = self._static_nodes.get(id(node))
        if hit is None:
            hit = True
            stack = [node]
            while stack:
                n = stack.pop()
                if n.type in EXPANSION_TYPES:
                    hit = False
                    break
                stack.extend(n.children)
            self._static_nodes[id(node)] = hit
        return hit

    def _segments(self, node: Node, st: State, segs: list, quoted: bool, scalar: bool = False) -> None:
        t = node.type
        if t == "number" and node.children:  # `10#${x}`: the base, then the expansion
            pos = node.start
            for c in node.children:
                if c.start > pos:
                    self._gap_literal(node, pos, c.start, segs, dq=False)
                self._segments(c, st, segs, quoted, scalar)
                pos = max(pos, c.end)
            return
        if t == "word" or t == "number" or t == "variable_name" or t == "extglob_pattern" or t == "regex":
            text = node.text
            if t == "word" or t == "extglob_pattern":
                text = _unescape_unquoted(text)
            segs.append(("t", self._lit(text, node), True, False))
            if not text:
                segs.append(("exists",))
            return
        if t == "raw_string":
            segs.append(("t", self._lit(node.text[1:-1], node, 1, -1), True, False))
            segs.append(("exists",))
            return
        if t == "ansi_c_string":
            segs.append(("t", (Chunk(_ansi_c(node.text[2:-1]), node.loc),), True, False))
            segs.append(("exists",))
            return
        if t in ("string", "translated_string"):
            has_at = False
            start = node.start + (2 if t == "translated_string" else 1)
            end = node.end - 1
            pos = start
            for c in node.children:
                if c.type == '"' or c.type == '$"':
                    continue
                if c.start > pos:
                    self._gap_literal(node, pos, c.start, segs, dq=True)
                if c.type == "string_content":
                    txt = _unescape_dq(c.text)
                    segs.append(("t", self._lit(txt, c), True, False))
                elif c.type in EXPANSION_TYPES:
                    if c.type == "expansion" and _is_at_expansion(c):
                        has_at = True
                    if c.type == "simple_expansion" and c.text == "$@":
                        has_at = True
                    self._expansion(c, st, segs, quoted=_IN_DQ, scalar=scalar)
                else:
                    self._segments(c, st, segs, quoted=_IN_DQ, scalar=scalar)
                pos = max(pos, c.end)
            if end > pos:
                self._gap_literal(node, pos, end, segs, dq=True)
            if not has_at:
                segs.append(("exists",))
            return
        if t == "concatenation" or t == "command_name":
            for c in node.children:
                self._segments(c, st, segs, quoted, scalar)
            return
        if t == "$" and node.text == "$$":  # (`/tmp/f.$$`, `${t}$$`: a `$` token to tree-sitter-bash)
            self._param("$", None, node, st, segs, quoted, scalar)
            return
        if t in EXPANSION_TYPES:
            self._expansion(node, st, segs, quoted, scalar)
            return
        if t == "string_content":
            segs.append(("t", self._lit(_unescape_dq(node.text), node), True, False))
            return
        if t == "brace_expression":
            segs.append(("t", self._lit(node.text, node), True, False))
            return
        if t == "array":
            segs.append(("t", self._lit(node.text, node), True, False))
            return
        # anything else: its text, literally
        segs.append(("t", self._lit(node.text, node), True, False))

    def _lit(self, text: str, node: Node, a: int = 0, b: int = 0):
        if not text:
            return EMPTY
        src = node.src
        if isinstance(src, VirtualSource) and "__RLUNK" in text:
            return _unmark(text, node)
        if a or b:
            return (Chunk(text, Loc(src, node.start + a, node.end + b)),)
        return (Chunk(text, node.loc),)

    def _gap_literal(self, node, a, b, segs, dq: bool):
        raw = node.src.data[a:b].decode("utf-8", "replace")
        txt = _unescape_dq(raw) if dq else raw
        if txt:
            segs.append(("t", self._lit_range(txt, node.src, a, b), True, False))

    def _lit_range(self, text, src, a, b):
        if isinstance(src, VirtualSource) and "__RLUNK" in text:
            return _unmark(text, Node("word", a, b, True, src))
        return (Chunk(text, Loc(src, a, b)),)

    def _expansion(self, node: Node, st: State, segs: list, quoted: bool, scalar: bool) -> None:
        t = node.type
        if t == "simple_expansion":
            name_node = [c for c in node.children if c.named]
            name = name_node[0].text if name_node else node.text[1:]
            self._param(name, None, node, st, segs, quoted, scalar)
            return
        if t == "expansion":
            self._param_complex(node, st, segs, quoted, scalar)
            return
        if t == "command_substitution":
            val = self.command_substitution(node, st, dq=quoted == _IN_DQ)
            segs.append(("t", val, quoted, not quoted and not scalar, None, node.loc))
            return
        if t == "arithmetic_expansion":
            # tree-sitter-bash sometimes starts the node at whitespace before `$((`
            lead = len(node.text) - len(node.text.lstrip())
            if lead:
                segs.append(("t", (Chunk(node.text[:lead], node.loc),), True, False))
            v = self.arith_expansion(node, st)
            val = (Chunk(str(v), node.loc),) if v is not None else unknown(node.text, node.loc)
            segs.append(("t", val, quoted, not quoted and not scalar, None, node.loc))
            return
        if t == "process_substitution":
            segs.append(("t", unknown(node.text[:30], node.loc, nonempty=True), True, False))
            return

    def _param(self, name, index, node, st, segs, quoted, scalar):
        """``$name`` / ``${name}`` / ``${name[index]}``: append segments."""
        if name in ("@", "*"):
            self._positional_all(name, node, st, segs, quoted, scalar)
            return
        val = self.param_value(name, index, node, st)
        if val is None:
            if st.nounset:
                raise _Exit(1, node.loc, f"{name}: unbound variable")
            return
        if isinstance(val, list):  # ${A[@]}
            self._splice(val, segs, quoted, scalar, node, star=(index == "*"), st=st)
            return
        segs.append(("t", _relocate(val, node), quoted, not quoted and not scalar, None, node.loc))

    def _splice(self, words, segs, quoted, scalar, node, star=False, st=None):
        if star and (quoted or scalar):
            joined = []
            sep = " "
            if st is not None:
                ifs = st.lookup("IFS")
                if ifs is not None and ifs.kind == "s":
                    t = text_of(ifs.value)
                    sep = t[:1] if t is not None else " "
            for i, w in enumerate(words):
                if i and sep:
                    joined.append(Chunk(sep, None))
                joined.extend(w.chunks)
            segs.append(("t", tuple(joined), True, False))
            segs.append(("exists",))
            return
        for i, w in enumerate(words):
            if i:
                segs.append(("sep",))
            segs.append(("t", w.chunks, quoted, not quoted and not scalar, w.loc, node.loc))
            if quoted:
                segs.append(("exists",))

    def _positional_all(self, name, node, st, segs, quoted, scalar):
        words = list(st.pos)
        if name == "*":
            self._splice(words, segs, quoted, scalar, node, star=True, st=st)
        else:
            self._splice(words, segs, quoted, scalar, node, st=st)

    def param_value(self, name: str, index, node, st):
        """Scalar value (Str), list of Words for ``[@]``/``[*]``, or None when unset."""
        if name.isdigit():
            i = int(name)
            if i == 0:
                if st.recs:
                    memo.note_script(st.recs)
                return (Chunk(st.script, None),)
            return st.pos[i - 1].chunks if i <= len(st.pos) else None
        if name == "#":
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
            return None
        if index is None:
            if var.kind == "s":
                return var.value
            if var.kind == "u":
                return unknown(f"${name}", node.loc)
            d = var.value
            w = d.get(0) if var.kind == "a" else d.get("0")
            return w.chunks if w is not None else None
        if index in ("@", "*"):
            if var.kind == "s":
                return [Word(var.value, node.loc)]
            if var.kind == "u":
                return [Word(var.value, node.loc)]
            d = var.value
            keys = sorted(d) if var.kind == "a" else _assoc_order(d)
            return [d[k] for k in keys]
        # specific element
        if var.kind == "u":
            return unknown(f"${{{name}[{index}]}}", node.loc)
        if var.kind == "A":
            w = var.value.get(index)
            return w.chunks if w is not None else None
        i = self._arith_int(index, st, node.loc)
        if i is None:
            return unknown(f"${{{name}[{index}]}}", node.loc)
        if var.kind == "s":
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
                if st.nounset:
                    raise _Exit(1, node.loc, f"{name}: unbound variable")
                val = EMPTY
            txt = text_of(val)
            segs.append(("t", (Chunk(str(len(txt)), node.loc),) if txt is not None else unknown(node.text, node.loc), quoted, False))
            return
        if prefix_op == "!":
            if index in ("@", "*"):
                var = st.lookup(name)
                keys = []
                if var is not None and var.kind in ("a", "A"):
                    keys = [str(k) for k in (sorted(var.value) if var.kind == "a" else _assoc_order(var.value))]
                elif var is not None and var.kind == "s":
                    keys = ["0"]
                words = [Word((Chunk(k, node.loc),), node.loc) for k in keys]
                if var is not None and var.kind == "u":  # (paths joined with different elements)
                    words = [Word(unknown(node.text, node.loc, multi=True), node.loc)]
                self._splice(words, segs, quoted, scalar, node, star=index == "*", st=st)
                return
            nameref = st.lookup(name, raw=True) if index is None else None
            if nameref is not None and nameref.kind == "n":  # `${!R}` of `declare -n R=A`: A
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
            if val is None:
                if st.nounset:
                    raise _Exit(1, node.loc, f"{name}: unbound variable")
                return
            if isinstance(val, list):
                self._splice(val, segs, quoted, scalar, node, star=(index == "*"), st=st)
            else:
                segs.append(("t", _relocate(val, node), quoted, not quoted and not scalar, None, node.loc))
            return
        operand_nodes = rest[op_idx + 1 :]
        is_list = isinstance(val, list)
        if op in (":-", "-", ":=", "=", ":+", "+", ":?", "?"):
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
                    msg = display(_join_segs(self._operand(node, operand_nodes, st, True, quoted in (_IN_DQ, _IN_HEREDOC)))) or "parameter null or not set"
                    raise _Exit(1, node.loc, f"{name}: {msg}")
                if use_alt is None:
                    segs.append(("t", unknown(node.text, node.loc), quoted, not quoted and not scalar, None, node.loc))
                    return
                segs.append(("t", _relocate(sval, node), quoted, not quoted and not scalar, None, node.loc))
                return
        if val is None:
            if st.nounset:
                raise _Exit(1, node.loc, f"{name}: unbound variable")
            return
        if is_list and op == ":" and name not in ("@", "*") and operand_nodes:
            var = st.lookup(name)
            if var is not None and var.kind == "s":
                # bash: a scalar's `${S[@]:o:l}` is its substring, `${S:o:l}` — one word, empty
                # too, but none for an offset out of range (before the start, past the end)
                sub = self._substring_of(val[0].chunks, operand_nodes, node, st)
                if sub is not None:
                    segs.append(("t", sub, quoted, not quoted and not scalar, None, node.loc))
                    if quoted:
                        segs.append(("exists",))
                return
        if is_list and op == ":":
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
                keys = sorted(var.value) if var is not None and var.kind == "a" else list(range(len(val)))
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
            return
        items = val if is_list else [Word(val, node.loc)]
        out_words = []
        for w in items:
            out_words.append(Word(self._transform(op, w.chunks, operand_nodes, node, st), w.loc))
        if is_list:
            self._splice(out_words, segs, quoted, scalar, node, star=(index == "*"), st=st)
        else:
            segs.append(("t", out_words[0].chunks, quoted, not quoted and not scalar, None, node.loc))

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
            plan = self._tilde_plan(c, _TILDE_WORD) \
                if c is operand_nodes[0] and quoted is not _IN_DQ and quoted is not _IN_HEREDOC else None
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
                    segs.append(("t", self._lit_range(piece, part.src, part.start + len(text[:pos].encode("utf-8")), a), True, False))
            exp = Node("simple_expansion", a, a + len(m.group(1).encode("utf-8")), True, part.src)
            self._param(_text_name(m), None, exp, st, segs, quoted, False)
            pos = m.end()
        piece = unescape(text[pos:])
        if piece:
            segs.append(("t", self._lit_range(piece, part.src, part.start + len(text[:pos].encode("utf-8")), part.end), True, False))

    def _transform(self, op, val, operand_nodes, node, st):
        txt = text_of(val)
        if op == "@":  # `${V@Q}`, `${V@U}`, `${V@L}`, `${V@u}`
            kind = "".join(c.text for c in operand_nodes)
            if txt is None or kind not in ("Q", "U", "L", "u") or (kind == "Q" and not txt.isprintable()):
                return unknown(node.text, node.loc)
            new = ("'" + txt.replace("'", "'\\''") + "'" if kind == "Q" else txt.upper() if kind == "U"
                   else txt.lower() if kind == "L" else txt[:1].upper() + txt[1:])
            return (Chunk(new, first_loc(val) or node.loc),)
        if op in (",", ",,", "^", "^^"):
            # (`${X,,[AB]}`: only the characters the pattern matches)
            pat = self._pattern_from_nodes(operand_nodes, node, st) if operand_nodes else None
            if txt is None or (operand_nodes and pat is None):
                return unknown(node.text, node.loc)
            conv = str.lower if op[0] == "," else str.upper
            n = len(txt) if len(op) == 2 else 1
            # (one character for one, as bash maps them: `ß` stays, not Python's `SS`)
            new = "".join(c if pat is not None and not glob_match(pat, c) or len(conv(c)) != 1 else conv(c)
                          for c in txt[:n]) + txt[n:]
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
        raw = node.src.data[start:(rep_nodes[-1].end if rep_nodes else sep.end)].decode("utf-8", "replace")
        i = 0 if pat_nodes else 1
        while i < len(raw) and raw[i] != "/":
            i += 2 if raw[i] == "\\" else 1
        return [(raw[:i], False)], re.sub(r"\\(.)", r"\1", raw[i + 1:])

    def _too_long_for_pattern(self, node, st):
        st.notes.append((node.loc, f"value longer than {MAX_WILDCARD_TEXT} characters for a pattern with "
                                   "wildcards: taken as unknown"))
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

    # -----------------------------------------------------------------------------------
    # command substitution, heredocs

    def command_substitution(self, node: Node, st: State, dq: bool = False):
        body = [c for c in node.children if c.named]
        if node.src.data[node.start : node.start + 1] == b"`":
            parsed = self._backquoted(node, dq)
            if parsed is not None:
                body = [c for c in parsed.root.children if c.named]
        if len(body) == 1 and body[0].type in ("file_redirect", "redirected_statement") and body[0].field("body") is None:
            # `$(< file)`: the file's content, when this run wrote it
            r = body[0] if body[0].type == "file_redirect" else next((c for c in body[0].children if c.type == "file_redirect"), None)
            dest = r.field("destination") if r is not None else None
            path = file_key(text_of(self.expand_scalar(dest, st))) if dest is not None else None
            content = st.files.get(path) if path is not None else None
            return _without_final_newlines(content) if content is not None else unknown(node.text, node.loc)
        if not body:
            return EMPTY
        data = self._output(body, node, st)
        if data is None:
            return unknown(_short(node.text, 48), node.loc)
        return _without_final_newlines(data)

    def _backquoted(self, node: Node, dq: bool):
        """A backquoted command whose text holds a backslash bash removes before it parses the
        command (``\\$``, ``\\```, ``\\\\``; ``\\"`` inside double quotes: `` `echo \\$X` `` expands
        ``$X``): parsed again without those backslashes (kept per node).  None: nothing to
        remove, or the command does not parse so (its tree is used as it is)."""
        key = (id(node), dq)
        hit = self._backquote_cache.get(key)
        if hit is not None and hit[0] is node:
            return hit[1]
        data = node.src.data
        a, b = node.start + 1, node.end - 1
        parsed = None
        if b > a and data[b : b + 1] == b"`" and b"\\" in data[a:b]:
            chunks, pos = [], a
            for m in (_BACKQUOTE_ESCAPE_DQ if dq else _BACKQUOTE_ESCAPE).finditer(data, a, b):
                if m.start() > pos:
                    chunks.append(Chunk(data[pos : m.start()].decode("utf-8", "replace"), Loc(node.src, pos, m.start())))
                pos = m.start(1)
            if pos > a:
                chunks.append(Chunk(data[pos:b].decode("utf-8", "replace"), Loc(node.src, pos, b)))
                src = _virtual_source([tuple(chunks)], node.loc)
                if not isinstance(src, Chunk):
                    p = parse(src)
                    parsed = p if not p.problems and not p.too_large else None
        self._backquote_cache[key] = (node, parsed)
        return parsed

    def _output(self, body, node, st):
        """What the statements ``body`` write to stdout, run in a subshell (``$(...)``,
        ``<(...)``); None when not known.  Their events and notes are kept in ``st``."""
        def run(child):
            child.errexit = False  # bash runs `$(...)` without `set -e` (`inherit_errexit` is off)
            return self.run_seq(body, child)

        states, raw = self._in_subshell(run, st, capture=True)
        # keep side effects in st from the first resulting state (events/notes)
        first = states[0]
        st.events = first.events
        st.notes = first.notes
        st.truncated = first.truncated
        st.status = first.status
        return _merge_outputs([r.out for r in raw], node.loc)

    def heredoc_value(self, redirect: Node, st: State):
        start = None
        body = None
        dash = False
        for c in redirect.children:
            if c.type == "heredoc_start":
                start = c
            elif c.type == "heredoc_body":
                body = c
            elif c.type == "<<-":
                dash = True
        if body is None:
            return EMPTY
        quoted = start is not None and any(q in start.text for q in ("'", '"', "\\"))
        segs: list = []
        if quoted:
            text = body.text
            if dash:
                text = _strip_tabs(text, at_start=True)
            segs.append(("t", (Chunk(text, body.loc),), True, False))
        else:
            pos = body.start
            first = True
            for c in body.children:
                if c.start > pos:
                    self._heredoc_literal(body, pos, c.start, segs, dash, first, st)
                    first = False
                if c.type in EXPANSION_TYPES:  # (`$((...))` too: parse.py makes it arithmetic)
                    self._expansion(c, st, segs, quoted=_IN_HEREDOC, scalar=True)
                elif c.type == "heredoc_content" or c.type == "string_content":
                    self._heredoc_literal(body, c.start, c.end, segs, dash, first, st)
                pos = max(pos, c.end)
                first = False
            if body.end > pos:
                self._heredoc_literal(body, pos, body.end, segs, dash, first, st)
        return _join_segs(segs)

    def _heredoc_literal(self, body, a, b, segs, dash, at_start, st=None):
        raw = body.src.data[a:b].decode("utf-8", "replace")
        if st is not None and "$" in raw:
            # tree-sitter-bash leaves `$1`, `$@`, `$#`, `$?` ... in a here-document as text (and
            # every expansion after a backslash-newline)
            pos = 0
            for m in _TEXT_EXPANSION.finditer(raw):
                if m.group(1) is None:
                    continue  # (an escaped character)
                start = a + len(raw[: m.start(1)].encode("utf-8"))
                self._heredoc_literal(body, a + len(raw[:pos].encode("utf-8")), start, segs, dash, at_start and pos == 0)
                node = Node("simple_expansion", start, start + len(m.group(1).encode("utf-8")), True, body.src)
                self._param(_text_name(m), None, node, st, segs, quoted=True, scalar=True)
                pos = m.end(1)
            if pos:
                self._heredoc_literal(body, a + len(raw[:pos].encode("utf-8")), b, segs, dash, False)
                return
        if _BACKTICK.search(raw):
            # tree-sitter-bash leaves `cmd` in a here-document as text: its output is unknown
            segs.append(("t", unknown(raw.strip()[:40], body.loc), True, False))
            return
        txt = _HEREDOC_ESCAPE.sub(lambda m: "" if m.group(1) == "\n" else m.group(1), raw)
        if dash:
            # (a piece the grammar cut after a newline starts a line: not after a backslash-newline)
            txt = _strip_tabs(txt, at_start or (a > 0 and body.src.data[a - 1] == 10 and not escaped(body.src.data, a - 1)))
        if txt:
            segs.append(("t", self._lit_range(txt, body.src, a, b), True, False))

    # -----------------------------------------------------------------------------------
    # arithmetic and tests

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
                    if st.nounset:
                        raise _Exit(1, loc, f"{name}: unbound variable")
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
                d = dict(var.value) if var is not None and var.kind == "a" else {}
                d[index] = Word(val, loc)
                st.put(name, Var("a", d, var.exported if var else False))
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
            if ref is None or ref.kind != "s":
                return None
            name = text_of(ref.value)
            if name is None or not _NAME.fullmatch(name):
                return None
        if name in _DYNAMIC_NAMES:
            return None
        var = st.lookup(name, emptiness_only=True)
        if var is None:
            if name in _SYSTEM_NAMES:
                return False
            return None if st.nounset and default is None else True
        return emptiness(var.value) if var.kind == "s" else None

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
                rx = _posix_ere(rt)
                try:
                    if len(lt) > (try_limit(rx, 1) or len(lt)):  # too long to try this regex on
                        rt = None
                    else:
                        m = compiled(rx).search(lt)
                except re.error:
                    rt = None
            if rt is None or lt is None:  # BASH_REMATCH as unknown as the test
                st.put("BASH_REMATCH", Var("u", unknown("${BASH_REMATCH[@]}", node.loc, multi=True)))
                return None
            # bash sets BASH_REMATCH to the match and its groups (unmatched: empty), or to ()
            groups = [(m.start(g), m.end(g)) for g in range(len(m.groups()) + 1)] if m else []
            st.put("BASH_REMATCH", Var("a", {k: Word(slice_str(lval, max(a, 0), max(b, 0)), node.loc)
                                             for k, (a, b) in enumerate(groups)}))
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
            while left is not None and left.type == "unary_expression" \
                    and (left.field("operator") or left.children[0]).text == "!":
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


# ---------------------------------------------------------------------------------------------
# builtins


def _b_true(ev, argv, node, st):
    st.status = 0
    return [st]


def _b_false(ev, argv, node, st):
    st.status = 1
    return [st]


def _b_echo(ev, argv, node, st):
    args = list(argv[1:])
    newline = True
    escapes = False
    while args and args[0].text and _ECHO_OPTS.fullmatch(args[0].text):
        flags = args.pop(0).text
        if "n" in flags:
            newline = False
        if "e" in flags:
            escapes = True
    if st.out is not None:
        out = []
        for i, w in enumerate(args):
            if i:
                out.append(Chunk(" ", None))
            if escapes:
                out.extend(Chunk(_ansi_c(c.text), c.loc) if c.text is not None else c for c in w.chunks)
            else:
                out.extend(w.chunks)
        if newline:
            out.append(Chunk("\n", None))
        st.out = st.out + tuple(out)
    st.status = 0
    return [st]


def _b_printf(ev, argv, node, st):
    args = list(argv[1:])
    target = None
    if len(args) >= 2 and args[0].text == "-v":
        target = args[1].text
        args = args[2:]
    if args and args[0].text == "--":
        args = args[1:]
    elif args and (args[0].text or "").startswith("-") and args[0].text != "-":  # an invalid option
        args = []
    if not args:
        st.status = 2
        return [st]
    fmt = args[0].text
    rest = args[1:]
    if fmt is None:
        out = unknown("$(printf ...)", node.loc)
    else:
        out = _printf(fmt, rest, node.loc)
    if any(c.text and "\0" in c.text for c in out):
        # no shell value holds a NUL: `printf -v` keeps what is before it, command
        # substitution drops it
        if target is not None:
            k = next(i for i, c in enumerate(out) if c.text and "\0" in c.text)
            out = out[:k] + ((Chunk(out[k].text.split("\0")[0], out[k].loc),) if out[k].text[0] != "\0" else ())
        else:
            out = tuple(Chunk(c.text.replace("\0", ""), c.loc) if c.text and "\0" in c.text else c for c in out)
            out = tuple(c for c in out if c.text is None or c.text)
    if target is not None:
        ev.set_scalar(st, target, out, node.loc)
    elif st.out is not None:
        st.out = st.out + out
    st.status = 0
    return [st]


_PRINTF_SPEC = re.compile(r"%([-+ #0]*)(\*|\d+)?(?:\.(\*|\d*))?([sbqcdiouxXfFeEgGaA%])")
_PRINTF_HUGE = 1_000_000  # a field width or precision this big is not made


def _printf_int(t: str | None) -> int | None:
    """An integer argument as bash's printf reads it (`0x1f`, `010`, `'c`), None if not one."""
    if t is None:
        return None
    t = t.strip(" \t\n")
    if t[:1] in ("'", '"'):
        return ord(t[1]) if len(t) > 1 else 0
    m = re.fullmatch(r"([-+]?)(0[xX][0-9a-fA-F]+|0[0-7]*|[1-9][0-9]*)", t)
    if not m:
        return None
    d = m.group(2)
    v = int(d, 16) if d[:2] in ("0x", "0X") else int(d, 8) if d.startswith("0") else int(d)
    v = -v if m.group(1) == "-" else v
    return v if -(1 << 63) <= v < (1 << 64) else None


def _printf(fmt: str, args: list[Word], loc):
    """bash's ``printf FORMAT ARGS...``: the format is reused while arguments are left (if it
    uses any); a missing argument is an empty string or 0; `*` takes a width or precision from
    the arguments; widths and precisions apply to every conversion."""
    out: list[Chunk] = []
    idx = 0

    def take():
        nonlocal idx
        w = args[idx] if idx < len(args) else None
        idx += 1
        return w

    def number(g):  # a width or precision: written, or taken by `*`; None when not known
        if g != "*":
            return int(g) if g else 0
        w = take()
        return _printf_int(w.text) if w is not None else 0

    while True:
        pos = 0
        consumed = False
        for m in _PRINTF_SPEC.finditer(fmt):
            lit_txt = _ansi_c(fmt[pos : m.start()])
            if lit_txt:
                out.append(Chunk(lit_txt, loc))
            pos = m.end()
            flags, wg, pg, conv = m.groups()
            if conv == "%":
                out.append(Chunk("%", loc))
                continue
            consumed = True
            width = number(wg) if wg else None
            prec = number(pg) if pg is not None else None
            w = take()
            where = w.value_loc if w is not None else loc
            if (wg and width is None) or (pg is not None and prec is None) \
                    or max(abs(width or 0), prec or 0) >= _PRINTF_HUGE:
                out.append(Chunk(None, where, f"printf {m.group(0)[:20]}..."))
                continue
            if width is not None and width < 0:  # `*` given a negative width: left-aligned
                flags, width = flags + "-", -width
            if prec is not None and prec < 0:  # ... a negative precision: none
                prec = None
            spec = "%" + flags + (str(width) if width else "") + ("" if prec is None else f".{prec}")
            t = w.text if w is not None else ("0" if conv not in "sbqc" else "")
            if conv in "sbqc":
                if w is not None and not width and prec is None and conv == "s":
                    out.extend(w.chunks)  # the value as it is: each part where it came from
                    continue
                if t is None:
                    out.append(Chunk(None, where, w.shown))
                    continue
                if conv == "q":
                    t = _shell_quote(t)
                elif conv == "b":
                    t = _ansi_c(t)
                elif conv == "c":  # (an empty argument gives a NUL)
                    t, spec = t[:1] or "\0", spec.split(".")[0]
                text = (spec + "s") % t
            else:
                try:
                    if conv in "diouxX":
                        num = _printf_int(t)
                        if num is not None and conv in "ouxX" and num < 0:
                            num += 1 << 64
                        elif num is not None and conv in "di" and num >= 1 << 63:
                            num = None
                    else:
                        num = float(t) if t is not None else None
                    if num is not None and "#" in flags and conv in "oxX" and (num == 0 or conv == "o"):
                        # C's `#`: no 0x before a zero; an octal number starts with one 0
                        digits = "%o" % num
                        spec = spec.replace("#", "")
                        if conv == "o" and digits[0] != "0" and (prec or 0) <= len(digits):
                            spec = spec.split(".")[0] + f".{len(digits) + 1}"
                    text = None if num is None else (spec + ("d" if conv in "iu" else conv)) % num
                except (ValueError, TypeError, OverflowError):
                    text = None
                if text is None:
                    out.append(Chunk(None, where, w.shown if w is not None else "0"))
                    continue
            if text:
                out.append(Chunk(text, where))
        tail = _ansi_c(fmt[pos:])
        if tail:
            out.append(Chunk(tail, loc))
        if not consumed or idx >= len(args):
            break
    return tuple(c for c in out if c.text is None or c.text)


def _shell_quote(t: str) -> str:
    if t and _SHELL_SAFE.fullmatch(t):
        return t
    if t == "":
        return "''"
    return re.sub(r"([^A-Za-z0-9_./:=@%+,-])", r"\\\1", t)


def _b_cat(ev, argv, node, st):
    args = [w for w in argv[1:] if not (w.text or "").startswith("-") or w.text == "-"]
    if st.out is None:
        st.status = 0
        return [st]
    if not args or all(w.text == "-" for w in args):
        data = st.stdin if st.stdin is not None else unknown("stdin", node.loc)
        st.out = st.out + data
        st.status = 0
        return [st]
    for w in args:
        p = file_key(w.text)
        content = st.files.get(p) if p is not None else None
        if content is None:
            st.out = st.out + unknown(f"$(cat {w.shown})", node.loc)
            st.status = None
        else:
            st.out = st.out + content
            st.status = 0
    return [st]


def _b_tee(ev, argv, node, st):
    data = st.stdin if st.stdin is not None else unknown("stdin", node.loc)
    append = any(w.text in ("-a", "--append") for w in argv[1:])
    for w in argv[1:]:
        p = file_key(w.text)
        if p is None or p.startswith("-"):
            continue
        old = st.files.get(p, EMPTY) if append else EMPTY
        st.files[p] = ev._bounded((old or EMPTY) + data, node.loc, st)
    if st.out is not None:
        st.out = st.out + data
    st.status = 0
    return [st]


def _operands(argv, flags: str = "", with_value: str = ""):
    """The operands of a simple filter after `--`; None when it is given an option (not
    modelled: `basename -a`, `-s .sh`); "invalid" when an option is none of its short ``flags``
    nor a long option (GNU: an error message, no output, status 1: `basename -n`)."""
    args = list(argv[1:])
    if args and args[0].text == "--":
        return args[1:]
    for w in args:
        t = w.text
        if t is None or not t.startswith("-") or t == "-":
            continue
        if t.startswith("--"):
            return None
        for ch in t[1:]:
            if ch not in flags:
                return "invalid"
            if ch in with_value:  # (the rest of the word, or the next one, is its value)
                break
        return None
    return args


def _b_dirname(ev, argv, node, st):
    outs = []
    args = _operands(argv, "z")
    if args is None:
        return _unknown_out(argv, node, st)
    if args == "invalid":
        st.status = 1
        return [st]
    for w in args:
        t = w.text
        if t is None:
            outs.append(unknown(f"$(dirname {w.shown})", node.loc))
            continue
        d = os.path.dirname(t.rstrip("/")) or ("/" if t.startswith("/") else ".")
        outs.append((Chunk(d, w.value_loc),))
    return _emit_lines(outs, st)


def _b_basename(ev, argv, node, st):
    args = _operands(argv, "asz", "s")
    if args is None:
        return _unknown_out(argv, node, st)
    if args == "invalid" or not args:
        st.status = 1
        return [st]
    t = args[0].text
    if t is None:
        return _emit_lines([unknown(f"$(basename {args[0].shown})", node.loc)], st)
    b = os.path.basename(t.rstrip("/")) or t
    if len(args) > 1 and args[1].text and b.endswith(args[1].text) and b != args[1].text:
        b = b[: -len(args[1].text)]
    return _emit_lines([(Chunk(b, args[0].value_loc),)], st)


def _emit_lines(outs, st):
    if st.out is not None:
        data = []
        for o in outs:
            data.extend(o)
            data.append(Chunk("\n", None))
        st.out = st.out + tuple(data)
    st.status = 0
    return [st]


def _stdin_lines(st, node):
    data = st.stdin
    if data is None or not is_known(data):
        return None
    text = text_of(data)
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return lines


def _b_sort(ev, argv, node, st):
    lines = _stdin_lines(st, node)
    flags = "".join((w.text or "")[1:] for w in argv[1:] if (w.text or "").startswith("-") and not (w.text or "").startswith("--"))
    if lines is None or any(not (w.text or "").startswith("-") for w in argv[1:]):
        return _unknown_out(argv, node, st)
    if "n" in flags:
        def key(s):
            m = re.match(r"\s*(-?\d+(?:\.\d+)?)", s)
            return (float(m.group(1)) if m else 0.0, s)
        lines = sorted(lines, key=key)
    else:
        lines = sorted(lines)
    if "r" in flags:
        lines.reverse()
    if "u" in flags:
        seen = set()
        uniq = []
        for ln in lines:
            k = ln if "n" not in flags else key(ln)[0]
            if k in seen:
                continue
            seen.add(k)
            uniq.append(ln)
        lines = uniq
    return _emit_lines([(Chunk(ln, node.loc),) for ln in lines], st)


def _b_paste(ev, argv, node, st):
    args = [w.text for w in argv[1:]]
    if None in args:
        return _unknown_out(argv, node, st)
    serial = False
    delim = "\t"
    files = []
    i = 0
    while i < len(args):
        a = args[i]
        if a.startswith("-") and a != "-":
            body = a[1:]
            while body:
                ch = body[0]
                body = body[1:]
                if ch == "s":
                    serial = True
                elif ch == "d":
                    if body:
                        delim = body
                    else:
                        i += 1
                        delim = args[i] if i < len(args) else "\t"
                    body = ""
        else:
            files.append(a)
        i += 1
    lines = _stdin_lines(st, node)
    if not serial or lines is None or any(f != "-" for f in files):
        return _unknown_out(argv, node, st)
    delim = _ansi_c(delim) or "\t"
    out = []
    for k, ln in enumerate(lines):
        if k:
            out.append(delim[(k - 1) % len(delim)])
        out.append(ln)
    return _emit_lines([(Chunk("".join(out), node.loc),)], st)


def _b_seq(ev, argv, node, st):
    nums = [w.text for w in argv[1:]]
    try:
        vals = [int(x) for x in nums]
    except (TypeError, ValueError):
        return _unknown_out(argv, node, st)
    if len(vals) == 1:
        a, inc, b = 1, 1, vals[0]
    elif len(vals) == 2:
        a, inc, b = vals[0], 1, vals[1]
    elif len(vals) == 3:
        a, inc, b = vals
    else:
        return _unknown_out(argv, node, st)
    if inc == 0 or abs((b - a) // inc) > ev.limits.max_loop:
        return _unknown_out(argv, node, st)
    rng = range(a, b + (1 if inc > 0 else -1), inc)
    return _emit_lines([(Chunk(str(x), node.loc),) for x in rng], st)


def _b_tr(ev, argv, node, st):
    args = [w.text for w in argv[1:]]
    data = st.stdin
    if None in args or data is None or not is_known(data):
        return _unknown_out(argv, node, st)
    text = text_of(data)
    if args and args[0] == "-d" and len(args) == 2:
        chars = _tr_set(args[1])
        new = "".join(ch for ch in text if ch not in chars)
    elif len(args) == 2 and not args[0].startswith("-"):
        a, b = _tr_set(args[0]), _tr_set(args[1])
        if not b:
            return _unknown_out(argv, node, st)
        table = {ord(x): b[min(i, len(b) - 1)] for i, x in enumerate(a)}
        new = text.translate(table)
    else:
        return _unknown_out(argv, node, st)
    if st.out is not None:
        st.out = st.out + ((Chunk(new, node.loc),) if new else EMPTY)
    st.status = 0
    return [st]


def _tr_set(s: str) -> str:
    s = _ansi_c(s)
    named = {"[:upper:]": "ABCDEFGHIJKLMNOPQRSTUVWXYZ", "[:lower:]": "abcdefghijklmnopqrstuvwxyz",
             "[:digit:]": "0123456789", "[:space:]": " \t\n\r\f\v"}
    for k, v in named.items():
        s = s.replace(k, v)
    out = []
    i = 0
    while i < len(s):
        if i + 2 < len(s) and s[i + 1] == "-":
            out.extend(chr(c) for c in range(ord(s[i]), ord(s[i + 2]) + 1))
            i += 3
        else:
            out.append(s[i])
            i += 1
    return "".join(out)


def _b_headtail(ev, argv, node, st):
    args = [w.text for w in argv[1:]]
    lines = _stdin_lines(st, node)
    n = 10
    files = []
    i = 0
    while i < len(args):
        a = args[i]
        if a is None:
            return _unknown_out(argv, node, st)
        if a == "-n" and i + 1 < len(args) and args[i + 1] is not None and args[i + 1].lstrip("+-").isdigit():
            n = int(args[i + 1].lstrip("+-"))
            i += 2
            continue
        m = re.fullmatch(r"-n?(\d+)", a)
        if m:
            n = int(m.group(1))
        elif not a.startswith("-"):
            files.append(a)
        i += 1
    if lines is None or files:
        return _unknown_out(argv, node, st)
    sel = lines[:n] if argv[0].text == "head" else lines[-n:] if n else []
    return _emit_lines([(Chunk(ln, node.loc),) for ln in sel], st)


def _unknown_out(argv, node, st):
    st.status = None
    if st.out is not None:
        st.out = st.out + unknown(f"$({_short(' '.join(w.shown for w in argv), 40)})", node.loc)
    return [st]


def _b_exit(ev, argv, node, st):
    code = 0 if not isinstance(st.status, int) else st.status
    if len(argv) > 1:
        t = argv[1].text
        code = int(t) & 255 if t is not None and _INT.fullmatch(t) else (None if t is None else 2)
    elif st.status is None:
        code = None
    st.ctl = ("exit", code, node.loc, "", st.calls)
    return [st]


def _b_return(ev, argv, node, st):
    code = st.status if isinstance(st.status, int) else None
    if len(argv) > 1:
        t = argv[1].text
        code = int(t) & 255 if t is not None and _INT.fullmatch(t) else None
    if not st.frames and st.source_depth == 0:
        st.notes.append((node.loc, "return: can only `return' from a function or sourced script"))
        st.status = 1
        return [st]
    st.ctl = ("return", code)
    return [st]


def _b_break(ev, argv, node, st):
    n = int(argv[1].text) if len(argv) > 1 and (argv[1].text or "").isdigit() else 1
    st.ctl = ("break" if argv[0].text == "break" else "continue", max(1, n))
    return [st]


#: `set -o NAME` options the evaluator follows (the others are accepted and ignored)
_SET_OPTIONS = {"errexit": "errexit", "nounset": "nounset", "pipefail": "pipefail"}
_SET_LETTERS = {"e": "errexit", "u": "nounset"}


def _b_set(ev, argv, node, st):
    args = argv[1:]
    i = 0
    while i < len(args):
        t = args[i].text
        if t is None:
            i += 1
            continue
        if t == "--":
            st.pos = tuple(args[i + 1 :])
            break
        if t[:1] in ("-", "+") and len(t) > 1:
            on = t[0] == "-"
            for ch in t[1:]:
                if ch in _SET_LETTERS:
                    setattr(st, _SET_LETTERS[ch], on)
                elif ch == "o" and i + 1 < len(args):
                    opt = _SET_OPTIONS.get(args[i + 1].text or "")
                    if opt is not None:
                        setattr(st, opt, on)
                    i += 1
            i += 1
            continue
        st.pos = tuple(args[i:])
        break
    st.status = 0
    return [st]


def _b_shift(ev, argv, node, st):
    n = 1
    if len(argv) > 1:
        t = argv[1].text
        n = int(t) if t is not None and t.isdigit() else 1
    if n > len(st.pos):
        st.status = 1
        return [st]
    st.pos = st.pos[n:]
    st.status = 0
    return [st]


def _b_source(ev, argv, node, st):
    if len(argv) < 2:
        st.status = 2
        return [st]
    lib = _script_file(ev, argv[1], node, st)
    if lib is None:
        st.notes.append((node.loc, f"sourced file not found: {argv[1].shown}"))
        st.status = None
        return [st]
    if st.source_depth >= ev.limits.max_source_depth:
        st.notes.append((node.loc, f"source nesting above {ev.limits.max_source_depth}: {argv[1].shown} not followed"))
        st.status = None
        return [st]
    parsed = lib
    saved_pos = st.pos
    if len(argv) > 2:
        st.pos = tuple(argv[2:])
    st.source_depth += 1
    res = ev._script(parsed.root, st)
    for r in res:
        r.source_depth -= 1
        if len(argv) > 2:
            r.pos = saved_pos
        if r.ctl is not None and r.ctl[0] == "return":
            r.status = r.ctl[1]
            r.ctl = None
    return res


def _without_final_newlines(data):
    """What ``$(...)`` makes of an output: without its trailing newlines."""
    data = list(data)
    while data:
        c = data[-1]
        if c.text is None:
            break
        stripped = c.text.rstrip("\n")
        if stripped:
            data[-1] = c.part(0, len(stripped))
            break
        data.pop()
    return tuple(c for c in data if c.text is None or c.text)


def _virtual_source(texts, loc):
    """Text made of values (``eval``'s words joined with spaces; a file this run wrote), to be
    parsed: each piece keeps where it came from, and an unknown is a placeholder token the
    evaluator reads as that unknown.  An unknown list of words (which no token can stand for)
    is returned instead."""
    pieces: list[tuple[int, int, Loc | None]] = []
    buf = bytearray()
    marks: dict = {}
    for i, chunks in enumerate(texts):
        if i:
            buf += b" "
        for c in chunks:
            if c.text is None:
                if c.multi:
                    return c
                token = f"__RLUNK{len(marks)}__"
                marks[token] = c
                enc = token.encode()
            else:
                enc = c.text.encode("utf-8")
            a = len(buf)
            buf += enc
            pieces.append((a, len(buf), c.loc))
    src = VirtualSource(bytes(buf), pieces, loc)
    src.unknowns = marks
    return src


def _script_file(ev, word, node, st, stub=True):
    """The parsed script a word names, for `source` and `bash FILE`: a file this run wrote
    (`cat > env.sh <<EOF ... source env.sh`) as written, else the file on disk (or, with
    ``stub``, recipelint's model of a helper library); None when there is neither."""
    written = st.files.get(file_key(word.text)) if word.text is not None else None
    if written is not None:
        src = _virtual_source([written], node.loc)
        return None if isinstance(src, Chunk) else parse(src)
    return ev.library.load(word.text, word.shown, ev.script_path, stub=stub)


def _b_eval(ev, argv, node, st, subshell=False, process=None):
    """`eval WORDS`; with ``subshell``, in a subshell; with ``process`` (the command's
    ``NAME=VALUE`` prefix), as a new bash process (`bash -c`)."""
    words = argv[1:]
    if not words:
        st.status = 0
        return [st]
    src = _virtual_source([w.chunks for w in words], node.loc)  # joined with spaces
    if isinstance(src, Chunk):
        st.notes.append((node.loc, f"eval of an unknown argument list ({src.why}): not followed"))
        st.status = None
        return [st]
    parsed = parse(src)
    if parsed.too_large:
        st.notes.append((node.loc, f"eval string not evaluated: {parsed.too_large}"))
    if parsed.problems:
        p = parsed.problems[0]
        st.notes.append((node.loc, f"eval string does not parse: {p.message}"))
    if subshell:
        start = (lambda c: c) if process is None else (lambda c: _new_process(ev, c, process))
        states, _ = ev._in_subshell(lambda c: ev.run_node(parsed.root, start(c)), st)
        return states
    return ev.run_node(parsed.root, st)


def exported_vars(st) -> dict:
    """The variables a child process of ``st`` gets in its environment: name → Var, the
    innermost exported scalar of each name.  As in bash, a local that is unset or not exported
    does not hide an exported outer variable, and arrays are never exported.  Reads every scope: a
    call doing this is not summarised."""
    out = {}
    for scope in st.all_scopes():
        for k, v in scope.items():
            if v is not None and v.exported and v.kind == "s":
                out[k] = v
    return out


def _new_process(ev, st, prefix=()):
    """Turn ``st`` (a copy) into the start of a new bash process (`bash other.sh`, `bash -c`):
    it has the exported variables only (as plain exported scalars: bash passes no other
    attribute) and the command's own ``NAME=VALUE`` prefix, the functions exported with
    `export -f` only, no local scope and default options."""
    env = {k: Var("s", v.value, exported=True) for k, v in exported_vars(st).items()}
    for name, val in prefix:
        env[name] = Var("s", val, exported=True)
    env["IFS"] = _IFS_VAR  # bash sets its own, whatever the environment holds
    st.vars = env
    st.frames = []
    funcs = {}
    for mark in st.funcs:
        if mark.startswith(_EXPORTED_FUNCTION):
            name = mark[len(_EXPORTED_FUNCTION):]
            if name in st.funcs:  # (as redefined since it was exported)
                funcs[name] = funcs[mark] = st.funcs[name]
    st.funcs = funcs
    st.funcs_ver = ev._fver(funcs) if funcs else ev._funcs0
    st.errexit = False
    st.nounset = False
    st.pipefail = False
    st.source_depth += 1
    return st


def _b_bash(ev, argv, node, st, prefix=()):
    """`bash -c STRING [NAME ARGS]` and `bash other.sh ARGS`: the string or the script (when
    it exists) is run as a new bash process (``_new_process``), nested at most as deep as
    `source` (a function that runs itself through `bash -c`)."""
    if st.source_depth >= ev.limits.max_source_depth:
        st.notes.append((node.loc, f"bash processes nested above {ev.limits.max_source_depth}: "
                                   f"{_short(' '.join(w.shown for w in argv), 40)} not followed"))
        return ev._external(argv, prefix, node, st, None)
    args = argv[1:]
    i = 0
    while i < len(args):
        t = args[i].text
        if t == "-c" and i + 1 < len(args):
            inner = [args[i + 1]]
            fake = [argv[0]] + inner
            saved, saved_script = st.pos, st.script
            st.pos = tuple(args[i + 3 :]) if len(args) > i + 2 else ()
            if len(args) > i + 2 and args[i + 2].text is not None:
                st.script = args[i + 2].text
            res = _b_eval(ev, fake, node, st, subshell=True, process=prefix)
            for r in res:
                r.pos = saved
                r.script = saved_script
            st.pos, st.script = saved, saved_script
            return res
        if t is not None and t.startswith("-") and t != "-":
            i += 1
            continue
        break
    if i < len(args) and args[i].text is not None and args[i].text != "-":
        # `bash other.sh args`: follow a script that exists (or that the run wrote), in a subshell
        parsed = _script_file(ev, args[i], node, st, stub=False)
        if parsed is not None:
            script = args[i].text if isinstance(parsed.root.src, VirtualSource) else str(parsed.root.src.path)

            def run(child):
                _new_process(ev, child, prefix)
                child.pos = tuple(args[i + 1 :])
                child.script = script
                return ev._script(parsed.root, child)

            states, _ = ev._in_subshell(run, st)
            return states
    return ev._external(argv, (), node, st, None)


#: `read` options that take a value (as the rest of their word, or the next word)
_READ_VALUE_OPTS = frozenset("adinNptu")


def _b_read(ev, argv, node, st, prefix=()):
    names = []
    args = argv[1:]
    i = 0
    array = False
    raw = False
    delim: str | None = "\n"  # None: an option recipelint does not model (`-n 3`, `-u 4`)
    while i < len(args):
        t = args[i].text
        i += 1
        if t == "--":
            names.extend(a.text for a in args[i:])
            break
        if t is None or not t.startswith("-") or len(t) < 2:
            names.append(t)
            continue
        for j in range(1, len(t)):  # bundled options: `-ra NAME`, `-rn1`
            if t[j] == "r":
                raw = True
            if t[j] in _READ_VALUE_OPTS:
                if j + 1 < len(t):
                    value = t[j + 1:]
                else:
                    value = args[i].text if i < len(args) else None
                    i += 1
                if t[j] == "a":
                    array = True
                    names.append(value)
                elif t[j] == "d":
                    delim = None if value is None else (value[:1] or "\0")
                elif t[j] in "nNu":
                    delim = None
                break
    got = _read_line(st, prefix, delim, raw, array, names)
    if got is None:  # what it reads is unknown
        for n in names or ["REPLY"]:
            if n is None:
                continue
            if array:
                st.put(n, Var("u", unknown(f"${{{n}[@]}}", node.loc, multi=True)))
            else:
                ev.set_scalar(st, n, unknown(f"${n}", node.loc), node.loc)
        st.status = None
        return [st]
    values, st.stdin, st.status = got
    if array:
        if names and names[0] is not None:
            st.put(names[0], Var("a", {k: Word(v, node.loc) for k, v in enumerate(values)}))
        return [st]
    for n, v in zip(names or ["REPLY"], values):
        if n is not None:
            ev.set_scalar(st, n, v, node.loc)
    return [st]


def _read_line(st, prefix, delim, raw, array, names):
    """What `read` takes from a known stdin, as bash does: (values for the names or the array,
    the rest of stdin, status) — or None when stdin, IFS or an option leaves it unknown."""
    data = st.stdin
    text = text_of(data) if data is not None and delim is not None else None
    if text is None:
        return None
    ifs_val = dict(prefix).get("IFS")  # `IFS=, read ...`
    if ifs_val is None:
        var = st.lookup("IFS")
        ifs_val = (Chunk(" \t\n", None),) if var is None else var.value if var.kind == "s" else None
    ifs = text_of(ifs_val) if ifs_val is not None else None
    if ifs is None:
        return None
    end = text.find(delim)
    line_end, rest_start, status = (end, end + 1, 0) if end >= 0 else (len(text), len(text), 1)
    if not raw and "\\" in text[:line_end]:
        return None  # backslash escapes and continuations: not modelled
    rest = slice_str(data, rest_start)
    line = slice_str(data, 0, line_end)
    if not names and not array:
        return [line], rest, status  # REPLY: the line as it is
    ws = "".join(c for c in ifs if c in " \t\n")
    pos, n = 0, line_end
    while pos < n and text[pos] in ws:
        pos += 1

    def word(p):  # a field from p, and where the next starts (its delimiter consumed)
        q = p
        while q < n and text[q] not in ifs:
            q += 1
        r = q
        while r < n and text[r] in ws:
            r += 1
        if r < n and text[r] in ifs and text[r] not in ws:
            r += 1
            while r < n and text[r] in ws:
                r += 1
        return q, r

    values = []
    if array:
        while pos < n:
            q, pos_next = word(pos)
            values.append(slice_str(line, pos, q))
            pos = pos_next
            end_ws = n
            while end_ws > pos and text[end_ws - 1] in ws:
                end_ws -= 1
            if pos >= end_ws:
                break
        return values, rest, status
    for k in range(len(names)):
        if k < len(names) - 1:
            q, pos_next = word(pos)
            values.append(slice_str(line, pos, q))
            pos = pos_next
            continue
        last = n  # the last name takes the rest, less trailing IFS whitespace
        while last > pos and text[last - 1] in ws:
            last -= 1
        q, after = word(pos)
        values.append(slice_str(line, pos, q if after >= last else last))
    return values, rest, status


def _b_mapfile(ev, argv, node, st):
    args = [w.text for w in argv[1:]]
    name = "MAPFILE"
    i = 0
    while i < len(args):
        a = args[i]
        if a in ("-d", "-n", "-O", "-s", "-u", "-C", "-c"):
            i += 2
            continue
        if a is not None and not a.startswith("-"):
            name = a
        i += 1
    lines = _stdin_lines(st, node)
    if lines is not None and "-t" in args:
        st.put(name, Var("a", {k: Word((Chunk(v, node.loc),), node.loc) for k, v in enumerate(lines)}))
    else:
        st.put(name, Var("u", unknown(f"${{{name}[@]}}", node.loc, multi=True)))
    st.status = 0
    return [st]


def _b_let(ev, argv, node, st):
    v = 0
    for w in argv[1:]:
        t = w.text
        v = ev.arith_eval_text(t if t is not None else arith.UNKNOWN_NAME, st, node.loc)
    st.status = None if v is None else (0 if v else 1)
    return [st]


def _b_test(ev, argv, node, st):
    args = [w.chunks for w in argv[1:]]
    if argv[0].text == "[":
        if not args or text_of(args[-1]) != "]":
            st.status = 2
            return [st]
        args = args[:-1]
    try:
        r = _test_argv(args, st, ev)
    except _CmdError as e:
        st.notes.append((node.loc, e.reason))
        st.status = 2
        return [st]
    st.status = None if r is None else (0 if r else 1)
    return [st]


def _b_command(ev, argv, node, st):
    args = argv[1:]
    while args and (args[0].text or "").startswith("-"):
        if args[0].text in ("-v", "-V"):
            # `command -v python3`: the path of a program; its name is what launch detection needs
            st.status = None
            if st.out is not None:
                name = args[1] if len(args) > 1 else None
                st.out = st.out + (name.chunks if name is not None and name.known else unknown("$(command -v ...)", node.loc))
            return [st]
        args = args[1:]
    if not args:
        st.status = 0
        return [st]
    return ev.dispatch(list(args), (), node, st, None, None, False)


def _b_exec(ev, argv, node, st):
    args = argv[1:]
    while args and (args[0].text or "").startswith("-"):
        args = args[1:]
    if not args:
        st.status = 0
        return [st]
    res = ev.dispatch(list(args), (), node, st, None, None, False)
    for r in res:
        if r.ctl is None:
            r.ctl = ("exit", None, node.loc, "exec replaced the shell", r.calls)
    return res


def _b_noop_status_unknown(ev, argv, node, st):
    st.status = None
    return _unknown_out(argv, node, st) if st.out is not None else [st]


def _b_ok(ev, argv, node, st):
    st.status = 0
    return [st]


def _b_local_cmd(ev, argv, node, st):
    # declaration builtins reached through eval/command words (`export "$X=1"`)
    kw = argv[0].text
    local = kw == "local" or (kw in ("declare", "typeset") and bool(st.frames))
    for w in argv[1:]:
        t = w.text
        if t is None or t.startswith("-"):
            continue
        if "=" in t:
            n, _, v = t.partition("=")
            if _NAME.fullmatch(n):
                ev.set_scalar(st, n, slice_str(w.chunks, len(n) + 1), node.loc, local=local,
                              export=True if kw == "export" else None)
        elif kw == "export" and _NAME.fullmatch(t):
            var = st.lookup(t)
            if var is not None:
                st.put(t, var.copy(exported=True))
    st.status = 0
    return [st]


_BUILTINS = {
    ":": _b_true, "true": _b_true, "false": _b_false, "echo": _b_echo, "printf": _b_printf,
    "cat": _b_cat, "tee": _b_tee, "dirname": _b_dirname, "basename": _b_basename,
    "sort": _b_sort, "paste": _b_paste, "seq": _b_seq, "tr": _b_tr, "head": _b_headtail, "tail": _b_headtail,
    "exit": _b_exit, "return": _b_return, "break": _b_break, "continue": _b_break,
    "set": _b_set, "shift": _b_shift, "source": _b_source, ".": _b_source, "eval": _b_eval,
    "bash": _b_bash, "sh": _b_bash, "read": _b_read, "mapfile": _b_mapfile, "readarray": _b_mapfile,
    "let": _b_let, "test": _b_test, "[": _b_test, "command": _b_command, "builtin": _b_command, "exec": _b_exec,
    "cd": _b_ok, "pushd": _b_ok, "popd": _b_ok, "trap": _b_ok, "shopt": _b_ok, "ulimit": _b_ok, "umask": _b_ok,
    "wait": _b_noop_status_unknown, "kill": _b_noop_status_unknown, "type": _b_noop_status_unknown,
    "hash": _b_noop_status_unknown, "sleep": _b_ok, "mkdir": _b_ok, "rm": _b_ok, "touch": _b_ok,
    "export": _b_local_cmd, "local": _b_local_cmd, "declare": _b_local_cmd, "typeset": _b_local_cmd,
    "readonly": _b_local_cmd,
}
#: bash's builtins (their redirections are made in the shell: `exec {fd}>f` sets `fd` there)
_SHELL_BUILTINS = frozenset({
    ":", "true", "false", "echo", "printf", "exit", "return", "break", "continue", "set", "shift", "source", ".", "eval",
    "read", "mapfile", "readarray", "let", "test", "[", "command", "builtin", "exec", "cd", "pushd", "popd", "trap",
    "shopt", "ulimit", "umask", "wait", "kill", "type", "hash", "export", "local", "declare", "typeset", "readonly",
    "unset", "getopts", "alias", "unalias", "dirs", "enable", "help", "history", "jobs", "disown", "suspend", "times",
    "caller", "compgen", "complete", "fc", "fg", "bg", "logout", "bind",
})
#: builtins that see the command's NAME=VALUE prefix (`IFS=, read ...`, `A=1 bash -c ...`)
_TAKES_PREFIX = (_b_bash, _b_read)
#: builtins that may read the stdin they inherit (`read` takes its line exactly)
_STDIN_FILTERS = frozenset({_b_cat, _b_tee, _b_sort, _b_paste, _b_tr, _b_headtail, _b_mapfile})


# ---------------------------------------------------------------------------------------------
# test helpers


def _unary_test(op, val, st, ev):
    if op == "-n":
        e = emptiness(val)
        return None if e is None else not e
    if op == "-z":
        return emptiness(val)
    if op == "-v":
        t = text_of(val)
        if t is None:
            return None
        m = _NAME_SUB.fullmatch(t)
        if not m:
            return False
        var = st.lookup(m.group(1))
        sub = m.group(2)
        if sub is None or var is None:
            return var is not None
        # an element: `-v A[1]`, `-v M[key]`, `-v A[@]` (any element; of an associative array,
        # the key `@`)
        if var.kind == "u":
            return None
        if var.kind == "A":
            return sub in var.value
        if sub in ("@", "*"):
            return bool(var.value) if var.kind == "a" else True
        try:
            i = ev.arith_eval_text(sub, st, None)
        except _CmdError:
            return None
        if i is None:
            return None
        if var.kind == "s":
            return i in (0, -1)
        if i < 0:
            i += max(var.value) + 1 if var.value else 0
        return i in var.value
    if op in ("-f", "-e", "-s", "-r", "-a"):
        t = file_key(text_of(val))
        if t is not None and t in st.files:
            if op == "-s":
                e = emptiness(st.files[t])
                return None if e is None else not e
            return True
        return None
    if op in ("-o",):
        return None
    return None


#: an integer operand of `[`/`test` (bash's legal_number)
_TEST_INT = re.compile(r"[ \t\n]*([-+]?[0-9]+)[ \t\n]*")


def _binary_test(op, lval, rval, st, ev, loc, arith: bool = False):
    lt, rt = text_of(lval), text_of(rval)
    if op in ("=", "=="):
        return None if lt is None or rt is None else lt == rt
    if op == "!=":
        return None if lt is None or rt is None else lt != rt
    if op in ("<", ">"):
        if lt is None or rt is None:
            return None
        return lt < rt if op == "<" else lt > rt
    if op in ("-eq", "-ne", "-lt", "-le", "-gt", "-ge"):
        if lt is None or rt is None:
            return None
        if arith:  # `[[ ]]`: each side an arithmetic expression; an error in one makes the comparison false
            try:
                a = ev.arith_eval_text(lt or "0", st, loc)
                b = ev.arith_eval_text(rt or "0", st, loc)
            except _ExpansionError:
                raise
            except _CmdError as e:  # (`[[ ! "a b" -eq 1 ]]` is true; `... || 1 -eq 1` goes on)
                st.notes.append((e.loc or loc, e.reason))
                return False
            if a is None or b is None:
                return None
        else:  # `[` and `test`: decimal integers (`[ 010 -eq 10 ]`), blanks around allowed
            a, b = _TEST_INT.fullmatch(lt), _TEST_INT.fullmatch(rt)
            if a is None or b is None:
                raise _CmdError(loc, f"{rt if a else lt}: integer expression expected")
            a, b = int(a.group(1)), int(b.group(1))
        return {"-eq": a == b, "-ne": a != b, "-lt": a < b, "-le": a <= b, "-gt": a > b, "-ge": a >= b}[op]
    return None


_TEST_BINARY = frozenset({"=", "==", "!=", "<", ">", "-eq", "-ne", "-lt", "-le", "-gt", "-ge", "-nt", "-ot", "-ef"})
_TEST_UNARY = frozenset({"-a", "-b", "-c", "-d", "-e", "-f", "-g", "-h", "-k", "-p", "-r", "-s", "-t", "-u", "-w",
                         "-x", "-G", "-L", "-N", "-O", "-S", "-n", "-z", "-o", "-v", "-R"})


class _TestShape(Exception):
    """A `test` whose structure depends on an argument not known (or that bash rejects)."""


def _test_argv(args, st, ev):
    """``test`` / ``[`` over expanded arguments (Strs), as bash decides: by the number of
    arguments up to four (POSIX), by its expression grammar beyond (``-o`` below ``-a`` below
    ``!``).  True, False or None (not known)."""
    n = len(args)
    texts = [text_of(a) for a in args]
    try:
        if n <= 4:
            return _test_posix(args, texts, st, ev)
        v, i = _test_or(args, texts, 0, st, ev)
        if i != n:
            raise _TestShape
        return v
    except _TestShape:
        if None not in texts:  # every word known: bash rejects the expression (status 2)
            raise _CmdError(None, "test: syntax error") from None
        return None


def _test_one(arg):
    e = emptiness(arg)
    return None if e is None else not e


def _test_posix(args, texts, st, ev):
    n = len(args)
    if n == 0:
        return False
    if n == 1:
        return _test_one(args[0])
    if n == 2:
        if texts[0] == "!":
            return _not(_test_one(args[1]))
        if texts[0] in _TEST_UNARY:
            return _unary_test(texts[0], args[1], st, ev)
        if texts[0] is not None:
            raise _CmdError(None, f"{texts[0]}: unary operator expected")
        raise _TestShape
    if n == 3:
        if texts[1] in _TEST_BINARY:
            return _binary_test(texts[1], args[0], args[2], st, ev, None)
        if texts[1] in ("-a", "-o"):
            return _and_or(texts[1], _test_one(args[0]), _test_one(args[2]))
        if texts[0] == "!":
            return _not(_test_posix(args[1:], texts[1:], st, ev))
        if texts[0] == "(" and texts[2] == ")":
            return _test_one(args[1])
        if texts[0] is not None and texts[1] is not None:
            raise _CmdError(None, f"{texts[1]}: binary operator expected")
        raise _TestShape
    if texts[0] == "!":
        return _not(_test_posix(args[1:], texts[1:], st, ev))
    if texts[0] == "(" and texts[3] == ")":
        return _test_posix(args[1:3], texts[1:3], st, ev)
    v, i = _test_or(args, texts, 0, st, ev)
    if i != n:
        raise _TestShape
    return v


def _test_or(args, texts, i, st, ev, op="-o"):
    """Tests joined by ``op`` from argument ``i``: `-o` joins chains of `-a`, `-a` joins terms.
    Returns the value and the index after the last argument used."""
    def part(j):
        return _test_or(args, texts, j, st, ev, "-a") if op == "-o" else _test_term(args, texts, j, st, ev)

    v, i = part(i)
    while i < len(args) and texts[i] == op:
        w, i = part(i + 1)
        v = _and_or(op, v, w)
    return v, i


def _test_term(args, texts, i, st, ev):
    n = len(args)
    if i >= n:
        raise _TestShape
    t = texts[i]
    if t is None:
        if i + 1 < n and texts[i + 1] is None:
            raise _TestShape
    elif t == "!":
        v, i = _test_term(args, texts, i + 1, st, ev)
        return _not(v), i
    elif t == "(":
        v, i = _test_or(args, texts, i + 1, st, ev)
        if i >= n or texts[i] != ")":
            raise _TestShape
        return v, i + 1
    if i + 2 < n and texts[i + 1] in _TEST_BINARY:
        return _binary_test(texts[i + 1], args[i], args[i + 2], st, ev, None), i + 3
    if i + 1 < n and texts[i + 1] is None:
        raise _TestShape  # (an operator, or the next test's first word)
    if t is not None and t in _TEST_UNARY and i + 1 < n:
        return _unary_test(t, args[i + 1], st, ev), i + 2
    if t is None:
        raise _TestShape
    return _test_one(args[i]), i + 1


def _not(v):
    return None if v is None else not v


def _and_or(op, a, b):
    if op == "-a":
        if a is False or b is False:
            return False
        return None if a is None or b is None else True
    if a is True or b is True:
        return True
    return None if a is None or b is None else False


_TEST_TREES = frozenset({"unary_expression", "binary_expression", "parenthesized_expression"})


def _test_leaves(kids) -> list:
    """The words of a `[ ]` expression tree, in order (operators included)."""
    out = []
    stack = list(reversed(kids))
    while stack:
        n = stack.pop()
        if n.type in _TEST_TREES:
            stack.extend(reversed(n.children))
        else:
            out.append(n)
    return out


def _posix_ere(rx: str) -> str:
    for k, v in {"[:digit:]": "0-9", "[:alpha:]": "a-zA-Z", "[:alnum:]": "a-zA-Z0-9", "[:space:]": r"\s",
                 "[:upper:]": "A-Z", "[:lower:]": "a-z", "[:xdigit:]": "0-9a-fA-F"}.items():
        rx = rx.replace(k, v)
    return rx


# ---------------------------------------------------------------------------------------------
# small helpers


class _Keyed:
    """An indexed array literal with indices in it (``(x [5]=y z)``): what it makes depends on
    where its elements start (Evaluator._indexed)."""

    __slots__ = ("node",)

    def __init__(self, node):
        self.node = node


class _FakeNode:
    __slots__ = ("loc",)

    def __init__(self, loc):
        self.loc = loc


def _short(text: str, n: int = 80) -> str:
    text = " ".join(text.split())
    return text if len(text) <= n else text[: n - 1] + "…"


def _has_cmdsub(assigns) -> bool:
    for a in assigns:
        stack = [a]
        while stack:
            n = stack.pop()
            if n.type == "command_substitution":
                return True
            stack.extend(n.children)
    return False


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


def _splittable(segs: list, start: int) -> None:
    """Make the text segments from ``start`` on subject to word splitting (unquoted text in the
    word of ``${X:-word}``)."""
    for i in range(start, len(segs)):
        s = segs[i]
        if s[0] == "t":
            segs[i] = ("t", s[1], False, True, *s[4:])


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


def _discard(st, e, hard: bool = False) -> None:
    """An error expanding a word (``e``: a _CmdError), or assigning an integer (``hard``):
    bash drops the rest of the line it is running (recipelint.evaluator.Evaluator.run_seq),
    with status 1; a subshell exits."""
    st.notes.append((e.loc, e.reason))
    st.status = 1
    st.ctl = ("discard", None, hard)


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
            if v is not None and v.kind == "s":
                t = text_of(v.value)
                shown.append(repr(t) if t is not None else "?")
            else:
                shown.append("unset" if v is None else "?")
        why = f"${k} (one of {' | '.join(dict.fromkeys(shown))})"
        if ref.kind in ("a", "A", "u"):
            out[k] = Var("u", unknown(f"${{{k}[@]}}", loc, multi=True), ref.exported)
        else:
            both_set = va is not None and vb is not None
            nonempty = both_set and emptiness(va.value) is False and emptiness(vb.value) is False
            out[k] = Var("s", unknown(why, loc, nonempty=nonempty), ref.exported)
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


def _relocate(val, node):
    """Chunks from the environment carry no location: give them the expansion's."""
    if all(c.loc is not None for c in val):
        return val
    return tuple(c if c.loc is not None else Chunk(c.text, node.loc, c.why, c.nonempty, c.multi) for c in val)


#: `$name`, `${...}` (no nested braces) or a special parameter, in a regex token
_REGEX_EXPANSION = re.compile(r"(?<!\\)\$(?:[A-Za-z_][A-Za-z0-9_]*|\{[^{}]*\}|[0-9@#?*!$-])")
_ERE_SPECIAL = re.compile(r"([.\[\]()*+?{}|^$\\])")


def _ere_escape(text: str) -> str:
    """``text`` as a POSIX extended regular expression matching it."""
    return _ERE_SPECIAL.sub(r"\\\1", text)


def _retext(val, new):
    loc = first_loc(val)
    return (Chunk(new, loc),) if new else EMPTY


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
        if st.pos is not self.pos or st.stdin is not self.stdin or st.files.keys() != self.files.keys() \
                or any(self.files[k] is not v for k, v in st.files.items()):
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


def _value_key(var) -> tuple:
    if var.kind in _STR_KINDS:
        return tuple(c.text for c in var.value)
    return tuple((k, tuple(c.text for c in w.chunks)) for k, w in var.value.items())


def _join_segs(segs):
    out = []
    for s in segs:
        if s[0] == "t":
            out.extend(s[1])
        elif s[0] == "sep":
            out.append(Chunk(" ", None))
    return tuple(c for c in out if c.text is None or c.text)


#: bash starts with IFS set (not exported) to its default; unset, it splits as by the default
#: but expands to nothing
_IFS_VAR = Var("s", (Chunk(" \t\n", None),))
_IFS_ANY = re.compile(r"[ \t\n]")
_IFS_INSIDE = re.compile(r"[^ \t\n][ \t\n]+[^ \t\n]")  # whitespace between two non-blank characters


def _fields(segs, loc, st=None) -> list[Word]:
    """Word splitting over expansion segments, at ``st``'s IFS (else the default), as bash
    splits: IFS whitespace around a field is dropped, every other IFS character ends a field (two
    in a row make an empty one; one at the end makes none); an empty IFS splits nothing; an
    unknown one, anything."""
    for s in segs:
        if s[0] == "t" and s[3]:
            break
    else:  # no unquoted expansion to split (quoted words, "${A[@]}"): what the loop below makes
        return _unsplit_fields(segs, loc)
    ifs, any_ifs, inside = " \t\n", _IFS_ANY, _IFS_INSIDE
    if st is not None:
        var = st.lookup("IFS")
        if var is not None:
            ifs = text_of(var.value) if var.kind == "s" else None
            if ifs == "":
                return _unsplit_fields([s if s[0] != "t" else ("t", s[1], s[2], False, *s[4:]) for s in segs], loc)
            if ifs is not None and ifs != " \t\n":
                e = re.escape(ifs)
                any_ifs, inside = re.compile(f"[{e}]"), re.compile(f"[^{e}][{e}]+[^{e}]")
    fields: list[Word] = []
    cur: list[Chunk] = []
    started = pending = False  # a field has begun; whitespace ended the last (one IFS char may follow)
    wloc = None
    split_loc = None

    def flush():
        nonlocal cur, started, wloc
        w = Word(tuple(c for c in cur if c.text is None or c.text), wloc or loc)
        w.split = split_loc
        fields.append(w)
        cur, started, wloc = [], False, None

    for s in segs:
        kind = s[0]
        if kind == "exists":
            started = True
            continue
        if kind == "sep":
            if started or cur:
                flush()
            pending = False
            continue
        _, chunks, quoted, split = s[:4]
        if len(s) > 4 and s[4] is not None and wloc is None and not cur:
            wloc = s[4]
        if not split or ifs is None:
            if split:  # an unknown IFS: where it splits is unknown
                chunks = unknown("words split at an unknown IFS", loc, multi=True)
            cur.extend(chunks)
            if any(c.text is None or c.text for c in chunks):
                started, pending = True, False
            continue
        # unquoted expansion: split known text at IFS
        xloc = s[5] if len(s) > 5 else None
        for c in chunks:
            t = c.text
            if t is not None and inside.search(t):
                # this expansion is cut into several words: remember where, for the words it makes
                split_loc = xloc or loc
                break
        for c in chunks:
            t = c.text
            if t is None:
                cur.append(c)
                started, pending = True, False
                continue
            if not any_ifs.search(t):  # nothing to split (most values)
                if t:
                    cur.append(Chunk(t, c.loc))
                    started, pending = True, False
                continue
            start = 0
            for i, ch in enumerate(t):
                if ch not in ifs:
                    continue
                if i > start:
                    cur.append(c.part(start, i))
                    started, pending = True, False
                start = i + 1
                if ch in " \t\n":
                    if started:
                        flush()
                        pending = True
                elif started:
                    flush()
                elif pending:
                    pending = False
                else:
                    flush()  # an empty field
            if start < len(t):
                cur.append(c.part(start, len(t)))
                started, pending = True, False
    if started or cur:
        flush()
    return fields


def _unsplit_fields(segs, loc) -> list[Word]:
    """``_fields`` of segments none of which is split: words end only at separators."""
    fields: list[Word] = []
    cur: list[Chunk] = []
    exists = False
    wloc = None
    for s in segs:
        kind = s[0]
        if kind == "t":
            chunks = s[1]
            if wloc is None and not cur and len(s) > 4 and s[4] is not None:
                wloc = s[4]
            if chunks:
                cur.extend(chunks)
                if not exists:
                    for c in chunks:
                        if c.text is None or c.text:
                            exists = True
                            break
        elif kind == "sep":
            if cur or exists:
                fields.append(Word(tuple([c for c in cur if c.text is None or c.text]), wloc or loc))
            cur = []
            exists = False
            wloc = None
        else:  # "exists"
            exists = True
    if cur or exists:
        fields.append(Word(tuple([c for c in cur if c.text is None or c.text]), wloc or loc))
    return fields


def _is_at_expansion(node) -> bool:
    """Whether an expansion is ``${A[@]}`` / ``${@...}``: in double quotes it may make no word at
    all (``"${A[*]}"`` always makes one, even of an unset array)."""
    for c in node.children:
        if c.type == "subscript":
            idx = c.field("index")
            if idx is not None and idx.text == "@":
                return True
        if c.type == "special_variable_name" and c.text == "@":
            return True
    return False


_DQ_ESC = re.compile(r"\\([$`\"\\\n])")


def _unescape_dq(text: str) -> str:
    if "\\" not in text:
        return text
    return _DQ_ESC.sub(lambda m: "" if m.group(1) == "\n" else m.group(1), text)


#: tilde expansion: at a word's start (``_TILDE_WORD``); also after the `=` of an argument that
#: has an assignment's form (``_TILDE_ASSIGN_LIKE``: `echo x=~/a`, not in an array's elements);
#: at an assignment's value's start and after each unquoted `:` (``_TILDE_ASSIGN``: `P=~/a:~/b`)
_TILDE_WORD, _TILDE_ASSIGN_LIKE, _TILDE_ASSIGN = 1, 2, 3
_TILDE_NAMES = {"": "HOME", "+": "PWD", "-": "OLDPWD"}
_LOGIN_NAME = re.compile(r"[A-Za-z0-9._][A-Za-z0-9._-]*\$?")
_ASSIGNMENT_FORM = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\[[^\]]*\])?\+?=")
_TILDE_BRACED = re.compile(r"~([^/:]*)(?=[/:]|$)")


def _tilde_spans(node, mode: int) -> dict | None:
    """The tilde-prefixes bash expands in a word (``mode``: see ``_TILDE_WORD``), as
    {index of a literal part: ((start, end, login), ...)} with offsets in that part's text (a
    login of None: the part's rest is unknown); None for none.

    As bash finds them: in an assignment's value a prefix ends at a `/` or `:`; at the start of
    any other word its login name ends there too, but it is not expanded when an escape or a
    quote comes before the word's first `/` (`~:"a b"`, `~:\\a`); a prefix that runs on into an
    expansion (`~$U`) names no user.  (`~:$U` is bash's home directory followed by the text
    `:$U`: unknown here.)"""
    parts = node.children if node.type == "concatenation" else (node,)
    if node.type not in ("word", "concatenation", "regex") or not parts:
        return None
    plan = {}
    last = len(parts) - 1
    value_at = None  # where the value of an argument of an assignment's form starts
    value_part = 0  # (in which part: `A[$i]=~/z` is parts `A`, `[`, `$i`, `]=~/z`)
    if mode == _TILDE_ASSIGN_LIKE and parts[0].text[:1] != "~":
        m = _ASSIGNMENT_FORM.match(node.text) if parts[0].type == "word" else None
        if m is None:
            return None
        at = 0  # (in texts: a word's text leaves out the backslash-newlines inside it)
        for k, c in enumerate(parts):
            if at <= m.end() < at + len(c.text):
                # (a value starting with an expansion, `x=$X:~`, has no `~` at its start; a `:~`
                # after it still counts)
                value_part, value_at = k, (m.end() - at if c.type == "word" else None)
                break
            at += len(c.text)
        mode = _TILDE_ASSIGN
        # bash expands `=~` inside such an argument's prefix too, keeping the rest as written
        # (`x=~a=~` is `x=~a=` and the home directory): unknown here
        rest = node.text[m.end() :]
        if rest[:1] == "~" and "=~" in re.split(r"[/:]", rest, maxsplit=1)[0]:
            return {"unknown": True}
    for k, c in enumerate(parts):
        if c.type not in ("word", "regex") or "~" not in c.text:  # (a pattern: `${X#~/}`)
            continue
        text = c.text
        starts = []  # (offset, whether the word-start rule applies)
        if k == 0 and text[0] == "~":
            starts.append((0, mode != _TILDE_ASSIGN))
        elif k == value_part and value_at is not None:
            starts.append((value_at, False))
        if mode == _TILDE_ASSIGN:  # (in a subscript too: `A[x:~/y]=a`)
            i = 0
            while i < len(text) - 1:  # `~` after an unquoted `:`
                ch = text[i]
                if ch == "\\":
                    i += 2
                    continue
                if ch == ":" and text[i + 1] == "~":
                    starts.append((i + 1, False))
                i += 1
        elif k > 0:
            break
        spans = []
        for i, word_start in sorted(set(starts)):
            if i >= len(text) or text[i] != "~":
                continue
            j = i + 1
            while j < len(text) and text[j] not in "/:":
                j += 1
            login = text[i + 1 : j]
            if word_start:
                slash = text.find("/", i)
                if any(q in text[i : slash if slash >= 0 else len(text)] for q in "\\'\""):
                    continue  # an escape (a quote: a pattern's text) before the first `/`
                if slash < 0 and k < last:  # on into the next parts, up to the word's first `/`
                    through = _tilde_through(node, text, login, j)
                    if through is None:
                        continue
                    plan["through"] = through
                    spans.append((i, len(text), login))
                    continue
            elif "\\" in login or (j == len(text) and k < last):
                continue  # quoted, or running on into the next part
            if login not in _TILDE_NAMES and not _LOGIN_NAME.fullmatch(login):
                continue  # no user's name (`~a=b`): as it is written
            spans.append((i, j, login))
        if spans:
            plan[k] = tuple(spans)
    return plan or None


def _tilde_through(node, text: str, login: str, j: int):
    """A tilde-prefix at a word's start whose first part (``text``) holds no `/`: bash takes the
    word's text up to its first `/` (quotes and escapes there: no expansion), expands the `~login`
    before its first `:` and keeps the rest of that text as it is written — `~:$U/x` is the
    home directory, `:$U` and `/x`.  Returns (the written text kept, the byte offset where the
    word goes on), or None for no expansion (a login name running on into the next part names
    no user)."""
    if j == len(text):
        return None
    raw = node.text
    slash = raw.find("/")
    word = raw[:slash] if slash >= 0 else raw
    if "\\" in word or "'" in word or '"' in word:
        return None
    return word[j:], _file_offset(node, len(word.encode()))


def _file_offset(node, n: int) -> int:
    """Where, in the file, the first ``n`` bytes of ``node.text`` end: a word's text leaves out
    the backslash-newlines bash removes inside it (``_word_joins``), its file span does not."""
    data, at = node.src.data, node.start
    if len(node.text.encode()) == node.end - node.start:
        return at + n
    while n > 0 and at < node.end:
        if data[at : at + 2] == b"\\\n":
            at += 2
            continue
        at += 1
        n -= 1
    return at




def _unescape_unquoted(text: str) -> str:
    if "\\" not in text and "'" not in text and '"' not in text:
        return text
    out = []
    i = 0
    n = len(text)
    while i < n:
        ch = text[i]
        if ch == "\\" and i + 1 < n:
            if text[i + 1] != "\n":
                out.append(text[i + 1])
            i += 2
            continue
        out.append(ch)
        i += 1
    return "".join(out)


_ANSI = {"n": "\n", "t": "\t", "r": "\r", "a": "\a", "b": "\b", "e": "\x1b", "E": "\x1b", "f": "\f", "v": "\v",
         "\\": "\\", "'": "'", '"': '"', "?": "?"}


def _ansi_c(text: str | None) -> str | None:
    if text is None or "\\" not in text:
        return text
    out = []
    i = 0
    n = len(text)
    while i < n:
        ch = text[i]
        if ch == "\\" and i + 1 < n:
            nx = text[i + 1]
            if nx in _ANSI:
                out.append(_ANSI[nx])
                i += 2
                continue
            if nx == "x":
                m = re.match(r"[0-9a-fA-F]{1,2}", text[i + 2 :])
                if m:
                    out.append(chr(int(m.group(0), 16)))
                    i += 2 + len(m.group(0))
                    continue
            if nx in "01234567":
                m = re.match(r"[0-7]{1,3}", text[i + 1 :])
                out.append(chr(int(m.group(0), 8)))
                i += 1 + len(m.group(0))
                continue
            out.append(ch)
            i += 1
            continue
        out.append(ch)
        i += 1
    return "".join(out)


def _strip_tabs(text: str, at_start: bool) -> str:
    lines = text.split("\n")
    return "\n".join((ln.lstrip("\t") if (k > 0 or at_start) else ln) for k, ln in enumerate(lines))


def _unmark(text: str, node):
    """Literal text from an eval string with unknown placeholders put back as unknown chunks."""
    out = []
    pos = 0
    for m in re.finditer(r"__RLUNK\d+__", text):
        if m.start() > pos:
            out.append(Chunk(text[pos : m.start()], node.loc))
        c = (getattr(node.src, "unknowns", None) or {}).get(m.group(0))
        out.append(c if c is not None else Chunk(None, node.loc, "eval"))
        pos = m.end()
    if pos < len(text):
        out.append(Chunk(text[pos:], node.loc))
    return tuple(out)


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


# ---------------------------------------------------------------------------------------------
# sourced libraries


class Library:
    """Finds and parses sourced files (cached); falls back to recipelint's own models of the
    well-known helper library when the real file is absent."""

    STUB_DIR = Path(__file__).parent / "stubs"

    def __init__(self, search_roots: list[Path] | None = None, cache_dir: Path | None = None):
        self.cache: dict[str, Parsed | None] = {}
        #: where trees of sourced files are kept between runs (recipelint.treecache); None: not kept
        self.cache_dir = cache_dir
        self._resolved: dict = {}
        self.search_roots = search_roots or []
        #: sources of the cached files (alive as long as the library): facts about their syntax
        #: nodes are shared by every evaluator using this library
        self.sources: set[int] = set()
        self.launch_cache: dict = {}
        #: summaries of runs of the library's own code (recipelint.memo), shared by the
        #: evaluators using this library: a helper every recipe calls the same way is evaluated
        #: once per process, not once per recipe
        self.memo: dict = {}
        #: function-table versions of tables holding only the library's functions (and the empty one)
        self.fver_tables: dict = {}
        self.fver_steps: dict = {}
        self.funcs0 = next(_FUNCS_VERSION)
        self.fver_shared: set[int] = {self.funcs0}

    def load(self, target: str | None, shown: str, script: Path, stub: bool = True) -> Parsed | None:
        path = self._resolve(target, script) if target is not None else None
        if path is None and not stub:
            return None
        if path is None:
            name = os.path.basename(target if target is not None else shown.replace("⟨", "").replace("⟩", ""))
            stub = self.STUB_DIR / name
            if name.endswith(".sh") and stub.is_file():
                path = stub
            elif "benchmark_lib" in shown:
                path = self.STUB_DIR / "benchmark_lib.sh"
            else:
                return None
        key = str(path)
        if key in self.cache:
            return self.cache[key]
        try:
            data = path.read_bytes()
            text = data.decode("utf-8")
        except (OSError, UnicodeDecodeError):
            self.cache[key] = None
            return None
        src = SourceFile(str(path), data)
        if self.cache_dir is not None:
            from .treecache import parse_cached

            parsed = parse_cached(src, text, self.cache_dir)
        else:
            parsed = parse(src)
        if parsed.too_large:  # taken as absent, like a file that cannot be read (`source` notes it)
            parsed = None
        self.cache[key] = parsed
        if parsed is None:
            return None
        self.sources.add(id(src))
        return parsed

    def _resolve(self, target: str, script: Path) -> Path | None:
        key = (target, script)
        if key not in self._resolved:  # `source lib.sh` is resolved once per script (every point sources it)
            self._resolved[key] = self._find(target, script)
        return self._resolved[key]

    def _find(self, target: str, script: Path) -> Path | None:
        p = Path(target)
        candidates = []
        if p.is_absolute():
            candidates.append(p)
        else:
            candidates.append(script.parent / p)
            for anc in script.parents:
                candidates.append(anc / p)
            for root in self.search_roots:
                candidates.append(root / p)
        for c in candidates:
            try:
                if c.is_file():
                    return c.resolve()
            except OSError:
                continue
        return None
