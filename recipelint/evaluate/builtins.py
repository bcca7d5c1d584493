"""Shell builtins: `exit`/`return`/`break`, `set`, `shift`, `source`, `eval`, `bash -c`,
`read`/`mapfile`, `let`, `test`, `command`, `exec`, `local` — and the table of every builtin the
evaluator models (with :mod:`recipelint.evaluate.textutils`)."""

from __future__ import annotations

import os
import re

from recipelint.bash import arith
from recipelint.bash.parse import parse
from recipelint.bash.source import Loc, VirtualSource
from recipelint.evaluate.fields import _IFS_VAR
from recipelint.evaluate.library import MACHINE_FILES
from recipelint.evaluate.state import _NAME, UNKNOWN_NAMES, _CmdError
from recipelint.evaluate.support import _EXPORTED_FUNCTION, _short
from recipelint.evaluate.testcmd import _test_argv
from recipelint.evaluate.textutils import (
    _b_basename,
    _b_canonical,
    _b_cat,
    _b_dirname,
    _b_echo,
    _b_false,
    _b_headtail,
    _b_paste,
    _b_printf,
    _b_seq,
    _b_sort,
    _b_tee,
    _b_tr,
    _b_true,
    _stdin_lines,
    _unknown_out,
)
from recipelint.evaluate.values import (
    UNKNOWN_ARGS,
    Chunk,
    Word,
    file_key,
    slice_str,
    text_of,
    unknown,
)
from recipelint.evaluate.variables import Kind, Var
from recipelint.files import Refused

_INT = re.compile(r"-?\d+")


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


def _set_value(opt: str, on: bool, node):
    """An option's new value: True/False, but `nounset` keeps where it was turned on (a true
    `Loc`), for a finding to name the `set -u` line (``Exit.nounset``)."""
    return node.loc if on and opt == "nounset" else on


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
                    setattr(st, _SET_LETTERS[ch], _set_value(_SET_LETTERS[ch], on, node))
                elif ch == "o" and i + 1 < len(args):
                    opt = _SET_OPTIONS.get(args[i + 1].text or "")
                    if opt is not None:
                        setattr(st, opt, _set_value(opt, on, node))
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
    if st.pos and st.pos[-1] is UNKNOWN_ARGS:  # (parameters not known: still not known after)
        st.pos = st.pos[min(n, len(st.pos) - 1) :]
        st.status = 0
        return [st]
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
        st.notes.append((node.loc, f"{NOT_FOUND}{argv[1].shown}"))
        st.notes.append((node.loc, UNKNOWN_NAMES))
        st.status = None
        return [st]
    if isinstance(lib, Refused):  # (outside the roots, a system or special file, too large): unknown content
        if not (lib.kind == "outside" and argv[1].text in MACHINE_FILES):
            st.notes.append((node.loc, f"{NOT_FOLLOWED}{argv[1].shown}: {lib.reason}"))
        st.notes.append((node.loc, UNKNOWN_NAMES))
        st.status = None
        return [st]
    if st.source_depth >= ev.limits.max_source_depth:
        st.notes.append((node.loc, f"{NOT_FOLLOWED}{argv[1].shown}: {_nested(ev, 'sourced files')}"))
        st.notes.append((node.loc, UNKNOWN_NAMES))
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


def _nested(ev, what: str) -> str:
    """Why a `source`, `eval` or `bash` past the nesting cap is not followed (RL008 reports it)."""
    n = ev.limits.max_source_depth
    return f"{what} nest more than {n} deep here (recipelint follows {n} levels)"


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


#: the note a file `source` or `bash FILE` names but recipelint does not read starts with (rule
#: RL008 reports it): ``NOT_FOLLOWED + "<the word>: <why>"``
NOT_FOLLOWED = "file not followed: "

#: the note a `source` of a file that does not exist starts with: ``NOT_FOUND + "<the word>"``
NOT_FOUND = "sourced file not found: "


def _script_file(ev, word, node, st, stub=True):
    """The parsed script a word names, for `source` and `bash FILE`: a file this run wrote
    (`cat > env.sh <<EOF ... source env.sh`) as written, else the file on disk (or, with
    ``stub``, recipelint's model of a helper library); None when there is neither; the
    :class:`~recipelint.files.Refused` when the file exists but is not read."""
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
        st.notes.append((node.loc, UNKNOWN_NAMES))
        st.status = None
        return [st]
    if src.unknowns:  # (`eval "$(cmd)"`: what is not known may assign anything)
        st.notes.append((node.loc, UNKNOWN_NAMES))
    if st.eval_depth >= ev.limits.max_source_depth:
        # (an eval that runs itself again, its value growing each time: 118 bytes took 67 s, 240 MB)
        st.notes.append((node.loc, f"{NOT_FOLLOWED}eval {_short(' '.join(w.shown for w in words), 30)}: {_nested(ev, 'evals')}"))
        st.notes.append((node.loc, UNKNOWN_NAMES))
        st.status = None
        return [st]
    ev.steps += len(src.data) >> 10  # (the text evaluated counts, as values made do: `Words._too_long`)
    parsed = parse(src)
    if parsed.too_large:
        st.notes.append((node.loc, f"eval string not evaluated: {parsed.too_large}"))
    if parsed.problems:
        p = parsed.problems[0]
        st.notes.append((node.loc, f"eval string does not parse: {p.message}"))
    depth = st.eval_depth
    st.eval_depth += 1
    if subshell:
        start = (lambda c: c) if process is None else (lambda c: _new_process(ev, c, process))
        states, _ = ev._in_subshell(lambda c: ev.run_node(parsed.root, start(c)), st)
    else:
        states = ev.run_node(parsed.root, st)
    for r in states + [st]:
        r.eval_depth = depth
    return states


def exported_vars(st) -> dict:
    """The variables a child process of ``st`` gets in its environment: name → Var, the
    innermost exported scalar of each name.  As in bash, a local that is unset or not exported
    does not hide an exported outer variable, and arrays are never exported.  Reads every scope: a
    call doing this is not summarised."""
    out = {}
    for scope in st.all_scopes():
        for k, v in scope.items():
            if v is not None and v.exported and v.kind == Kind.SCALAR:
                out[k] = v
    return out


def _new_process(ev, st, prefix=()):
    """Turn ``st`` (a copy) into the start of a new bash process (`bash other.sh`, `bash -c`):
    it has the exported variables only (as plain exported scalars: bash passes no other
    attribute) and the command's own ``NAME=VALUE`` prefix, the functions exported with
    `export -f` only, no local scope and default options."""
    env = {k: Var(Kind.SCALAR, v.value, exported=True) for k, v in exported_vars(st).items()}
    for name, val in prefix:
        env[name] = Var(Kind.SCALAR, val, exported=True)
    env["IFS"] = _IFS_VAR  # bash sets its own, whatever the environment holds
    st.vars = env
    st.frames = []
    funcs = {}
    for mark in st.funcs:
        if mark.startswith(_EXPORTED_FUNCTION):
            name = mark[len(_EXPORTED_FUNCTION) :]
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

    def cut():  # (past the nesting limit: what the process would run is not followed, and said)
        st.notes.append(
            (node.loc, f"{NOT_FOLLOWED}{_short(' '.join(w.shown for w in argv), 40)}: {_nested(ev, 'bash processes')}")
        )
        return ev._external(argv, prefix, node, st, None)

    deep = st.source_depth >= ev.limits.max_source_depth
    args = argv[1:]
    i = 0
    while i < len(args):
        t = args[i].text
        if t == "-c" and i + 1 < len(args):
            if deep:
                return cut()
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
        if isinstance(parsed, Refused):  # not read: run as a program recipelint does not know
            st.notes.append((node.loc, f"{NOT_FOLLOWED}{args[i].shown}: {parsed.reason}"))
            parsed = None
        if parsed is not None and deep:
            return cut()
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
                    value = t[j + 1 :]
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
                st.put(n, Var(Kind.UNKNOWN_ARRAY, unknown(f"${{{n}[@]}}", node.loc, multi=True)))
            else:
                ev.set_scalar(st, n, unknown(f"${n}", node.loc), node.loc)
        st.status = None
        return [st]
    values, st.stdin, st.status = got
    if array:
        if names and names[0] is not None:
            st.put(names[0], Var(Kind.INDEXED, {k: Word(v, node.loc) for k, v in enumerate(values)}))
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
        ifs_val = (Chunk(" \t\n", None),) if var is None else var.value if var.kind == Kind.SCALAR else None
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
        st.put(name, Var(Kind.INDEXED, {k: Word((Chunk(v, node.loc),), node.loc) for k, v in enumerate(lines)}))
    else:
        st.put(name, Var(Kind.UNKNOWN_ARRAY, unknown(f"${{{name}[@]}}", node.loc, multi=True)))
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


def _known_dir(st, name: str) -> str | None:
    """The text of ``$PWD``/``$OLDPWD`` when the script's own `cd`s made it known."""
    var = st.lookup(name)
    if var is None or var.kind != Kind.SCALAR:
        return None
    return text_of(var.value)


def _b_cd(ev, argv, node, st):
    """`cd DIR`: ``$PWD`` becomes the directory, resolved as bash's logical `cd` does (`.`, `..`
    and repeated `/` removed from the text; the file system is not read, as for `realpath`), and
    ``$OLDPWD`` the one before; `pwd` prints it (`$(cd "$(dirname "$0")" && pwd)`).  Unknown:
    a directory whose text is not known, a relative one while ``$PWD`` is not known or
    ``CDPATH`` is set, `cd` alone (``$HOME``), `-P` (symbolic links resolved).  The status stays 0:
    whether the directory exists where the recipe runs is not known."""
    args = list(argv[1:])
    physical = False
    while args and args[0].text is not None and args[0].text.startswith("-") and args[0].text != "-":
        flag = args.pop(0).text
        if flag == "--":
            break
        physical = physical or "P" in flag
    target = None
    dash = False
    if args and not physical:
        w = args[0]
        if w.text == "-":
            dash = True
            old = _known_dir(st, "OLDPWD")
            target = old if old is not None and old.startswith("/") else None
        elif w.text is not None and w.text.startswith("/"):
            target = w.text
        elif w.text is not None and w.text and st.lookup("CDPATH") is None:
            here = _known_dir(st, "PWD")
            target = None if here is None or not here.startswith("/") else f"{here}/{w.text}"
    if target is not None:
        d = os.path.normpath(target)
        target = "/" + d.lstrip("/")  # (normpath keeps a leading `//`)
    loc = args[0].value_loc if args else node.loc
    before = st.lookup("PWD")
    ev.set_scalar(st, "OLDPWD", before.value if before is not None and before.kind == Kind.SCALAR else unknown("$PWD", loc), loc)
    ev.set_scalar(
        st,
        "PWD",
        (Chunk(target, loc),) if target is not None else unknown("$PWD after `cd`", loc, nonempty=True),
        loc,
        export=True,
    )
    if dash and st.out is not None:  # (`cd -` prints where it went)
        st.out = st.out + ((Chunk(target, loc),) if target is not None else unknown("$(cd -)", loc)) + (Chunk("\n", None),)
    st.status = 0
    return [st]


def _b_pwd(ev, argv, node, st):
    """`pwd`: ``$PWD`` when a `cd` of the script made it known (`-P` too: symbolic links are
    not resolved, as for `realpath`), else unknown."""
    if any(w.text not in ("-L", "-P") for w in argv[1:]):
        return _unknown_out(argv, node, st)
    var = st.lookup("PWD")
    here = text_of(var.value) if var is not None and var.kind == Kind.SCALAR else None
    if here is None or not here.startswith("/"):
        return _unknown_out(argv, node, st)
    if st.out is not None:  # (its chunks: where the directory was named)
        st.out = st.out + tuple(var.value) + (Chunk("\n", None),)
    st.status = 0
    return [st]


def _b_moved(ev, argv, node, st):
    """`pushd`/`popd`: the directory changes to one not followed here: ``$PWD`` unknown."""
    ev.set_scalar(st, "PWD", unknown(f"$PWD after `{argv[0].text}`", node.loc, nonempty=True), node.loc, export=True)
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
                ev.set_scalar(
                    st, n, slice_str(w.chunks, len(n) + 1), node.loc, local=local, export=True if kw == "export" else None
                )
        elif kw == "export" and _NAME.fullmatch(t):
            var = st.lookup(t)
            if var is not None:
                st.put(t, var.copy(exported=True))
    st.status = 0
    return [st]


_BUILTINS = {
    ":": _b_true,
    "true": _b_true,
    "false": _b_false,
    "echo": _b_echo,
    "printf": _b_printf,
    "cat": _b_cat,
    "tee": _b_tee,
    "dirname": _b_dirname,
    "basename": _b_basename,
    "readlink": _b_canonical,
    "realpath": _b_canonical,
    "sort": _b_sort,
    "paste": _b_paste,
    "seq": _b_seq,
    "tr": _b_tr,
    "head": _b_headtail,
    "tail": _b_headtail,
    "exit": _b_exit,
    "return": _b_return,
    "break": _b_break,
    "continue": _b_break,
    "set": _b_set,
    "shift": _b_shift,
    "source": _b_source,
    ".": _b_source,
    "eval": _b_eval,
    "bash": _b_bash,
    "sh": _b_bash,
    "read": _b_read,
    "mapfile": _b_mapfile,
    "readarray": _b_mapfile,
    "let": _b_let,
    "test": _b_test,
    "[": _b_test,
    "command": _b_command,
    "builtin": _b_command,
    "exec": _b_exec,
    "cd": _b_cd,
    "pwd": _b_pwd,
    "pushd": _b_moved,
    "popd": _b_moved,
    "trap": _b_ok,
    "shopt": _b_ok,
    "ulimit": _b_ok,
    "umask": _b_ok,
    "wait": _b_noop_status_unknown,
    "kill": _b_noop_status_unknown,
    "type": _b_noop_status_unknown,
    "hash": _b_noop_status_unknown,
    "sleep": _b_ok,
    "mkdir": _b_ok,
    "rm": _b_ok,
    "touch": _b_ok,
    "export": _b_local_cmd,
    "local": _b_local_cmd,
    "declare": _b_local_cmd,
    "typeset": _b_local_cmd,
    "readonly": _b_local_cmd,
}


#: bash's builtins (their redirections are made in the shell: `exec {fd}>f` sets `fd` there)
_SHELL_BUILTINS = frozenset(
    {
        ":",
        "true",
        "false",
        "echo",
        "printf",
        "exit",
        "return",
        "break",
        "continue",
        "set",
        "shift",
        "source",
        ".",
        "eval",
        "read",
        "mapfile",
        "readarray",
        "let",
        "test",
        "[",
        "command",
        "builtin",
        "exec",
        "cd",
        "pushd",
        "popd",
        "trap",
        "shopt",
        "ulimit",
        "umask",
        "wait",
        "kill",
        "type",
        "hash",
        "export",
        "local",
        "declare",
        "typeset",
        "readonly",
        "unset",
        "getopts",
        "alias",
        "unalias",
        "dirs",
        "pwd",
        "enable",
        "help",
        "history",
        "jobs",
        "disown",
        "suspend",
        "times",
        "caller",
        "compgen",
        "complete",
        "fc",
        "fg",
        "bg",
        "logout",
        "bind",
    }
)


#: builtins that see the command's NAME=VALUE prefix (`IFS=, read ...`, `A=1 bash -c ...`)
_TAKES_PREFIX = (_b_bash, _b_read)


#: builtins that may read the stdin they inherit (`read` takes its line exactly)
_STDIN_FILTERS = frozenset({_b_cat, _b_tee, _b_sort, _b_paste, _b_tr, _b_headtail, _b_mapfile})
