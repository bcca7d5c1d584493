"""Models of the text utilities recipes use in values: `echo`, `printf`, `cat`, `tee`,
`dirname`, `basename`, `sort`, `paste`, `seq`, `tr`, `head`/`tail`, `true`/`false`."""

from __future__ import annotations

import os
import re

from recipelint.evaluate.quoting import _ansi_c
from recipelint.evaluate.state import UNKNOWN_NAMES
from recipelint.evaluate.support import _short
from recipelint.evaluate.values import (
    EMPTY,
    Chunk,
    Word,
    file_key,
    is_known,
    text_of,
    unknown,
)

_ECHO_OPTS = re.compile(r"-[neE]+")


_SHELL_SAFE = re.compile(r"[A-Za-z0-9_./:=@%+,-]+")


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
        if target is None:
            st.notes.append((node.loc, UNKNOWN_NAMES))
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
            if (wg and width is None) or (pg is not None and prec is None) or max(abs(width or 0), prec or 0) >= _PRINTF_HUGE:
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


#: the options of `readlink`/`realpath` that make the path canonical (and need no value)
_CANONICAL = {"readlink": ("fm", "fmqsvnz"), "realpath": ("ems", "emsqzEPL")}


def _b_canonical(ev, argv, node, st):
    """`readlink -f PATH` / `realpath PATH` (`SCRIPT_DIR=$(dirname "$(readlink -f "$0")")`):
    the absolute path with `.`, `..` and repeated `/` resolved lexically, which is what they
    print when no component is a symbolic link (the file system is not read).  Unknown: a
    relative path (the working directory is not tracked), `readlink` without `-f`/`-m`, `-e`
    (whether the file exists), long options."""
    name = os.path.basename(argv[0].text or "")
    canonical, allowed = _CANONICAL[name]
    flags, args = set(), []
    for i, w in enumerate(argv[1:], 1):
        t = w.text
        if t == "--":
            args.extend(argv[i + 1 :])
            break
        if t is not None and t.startswith("-") and t != "-" and not args:
            if t.startswith("--") or any(ch not in allowed for ch in t[1:]):
                return _unknown_out(argv, node, st)
            flags.update(t[1:])
            continue
        args.append(w)
    if "z" in flags or "e" in flags or not args or (name == "readlink" and not flags & set(canonical)):
        return _unknown_out(argv, node, st)
    if name == "readlink" and len(args) > 1 and "n" in flags:
        return _unknown_out(argv, node, st)
    outs = []
    for w in args:
        t = w.text
        if t is None or not t.startswith("/"):
            outs.append(unknown(f"$({name} {w.shown})", node.loc))
            continue
        d = os.path.normpath(t)
        outs.append((Chunk("/" + d.lstrip("/"), w.value_loc),))  # (normpath keeps a leading `//`)
    return _emit_lines(outs, st)


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
    flags = "".join(
        (w.text or "")[1:] for w in argv[1:] if (w.text or "").startswith("-") and not (w.text or "").startswith("--")
    )
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
    named = {
        "[:upper:]": "ABCDEFGHIJKLMNOPQRSTUVWXYZ",
        "[:lower:]": "abcdefghijklmnopqrstuvwxyz",
        "[:digit:]": "0123456789",
        "[:space:]": " \t\n\r\f\v",
    }
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
