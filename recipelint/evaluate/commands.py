"""Simple commands: redirections, the dispatch to builtins, functions and external commands
(which the command hook sees: the launch detector), function calls and their summaries."""

from __future__ import annotations

import os

from recipelint.bash.tree import Node
from recipelint.evaluate import summaries as memo
from recipelint.evaluate.builtins import (
    _BUILTINS,
    _SHELL_BUILTINS,
    _STDIN_FILTERS,
    _TAKES_PREFIX,
    NOT_FOLLOWED,
    _b_bash,
)
from recipelint.evaluate.state import Command, State, _CmdError, _Exit
from recipelint.evaluate.support import _FUNCS_VERSION, _discard, _has_cmdsub, _short
from recipelint.evaluate.tilde import _TILDE_ASSIGN, _TILDE_WORD
from recipelint.evaluate.values import (
    EMPTY,
    Chunk,
    Word,
    display,
    file_key,
    lit,
    text_of,
    unknown,
)
from recipelint.evaluate.variables import Kind, Var


def _flat_redirects(redirects):
    """The redirections in order: tree-sitter-bash puts those written on a here-document's
    first line (`cat <<EOF > out.yaml`) inside the here-document's node."""
    for r in redirects:
        yield r
        if r.type == "heredoc_redirect":
            for c in r.children:
                if c.type in ("file_redirect", "herestring_redirect"):
                    yield c


#: compound statements worth summarising (recipelint.evaluate.summaries) when they took many steps
_SUMMARIZED = frozenset(
    {
        "if_statement",
        "case_statement",
        "for_statement",
        "c_style_for_statement",
        "while_statement",
        "compound_statement",
        "subshell",
        "list",
        "pipeline",
        "redirected_statement",
        "negated_command",
    }
)


class _Message(str):
    """Text written to stderr: a new object at every write (plain strings may be shared), so
    that a summary can tell a run that wrote the last error message from one that did not."""

    __slots__ = ()


class Commands:
    """Running simple commands and function calls (see the module docstring)."""

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
                prefix.append(
                    (nm.text if nm is not None else "", self.expand_scalar(val, st, _TILDE_ASSIGN) if val is not None else EMPTY)
                )
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
                elif (
                    op == "<"
                    and fd in (None, "0")
                    and dest is not None
                    and dest.type == "process_substitution"
                    and dest.text.startswith("<(")
                ):
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
                self.set_scalar(
                    st, desc.text[1:-1], unknown(f"{desc.text} (a file descriptor bash picks)", r.loc, nonempty=True), r.loc
                )

    def dispatch(self, argv, prefix, node, st, stdin, out_target, out_append):
        name = argv[0].text
        loc = node.loc
        if name is None:
            return self._external(argv, prefix, node, st, out_target, stdin)
        if name == "time" and name not in st.funcs and len(argv) > 1:
            # the `time` keyword times the command after it (`time start_server`, a function):
            # bash runs that command itself (`-p` is its only option)
            rest = argv[2:] if argv[1].text == "-p" else argv[1:]
            if rest and rest[0].text is not None:
                return self.dispatch(rest, prefix, node, st, stdin, out_target, out_append)
        handler = _BUILTINS.get(name) if name not in self.opaque else None
        if name in st.funcs:
            if name not in self.opaque:
                return self.call_function(name, argv[1:], prefix, node, st, stdin, out_target)
            # a function run as the command it wraps (a benchmark client): its body is not run,
            # what it assigns becomes unknown (`build_replay_cmd` sets REPLAY_CMD)
            truncated, notes = st.truncated, len(st.notes)
            self._havoc([st.funcs[name]], st)
            st.truncated = truncated
            del st.notes[notes:]
            return self._external(argv, prefix, node, st, out_target, stdin)
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
                        r.files[path] = (
                            self._bounded(old + data, loc, r) if data is not None and old is not None else unknown(path, loc)
                        )
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
            if (
                i
                and argv[i].text is not None
                and os.path.basename(argv[i].text) in ("bash", "sh")
                and len(argv) > i + 1
                and argv[i + 1].text == "-c"
            ):
                return _b_bash(self, list(argv[i:]), node, st, prefix)
            shell = _entrypoint_shell(argv, i) if i and argv[i].text == "-c" and len(argv) > i + 1 else None
            if shell is not None:  # `docker run --entrypoint /bin/bash IMAGE -c "..."`
                return _b_bash(self, [shell, *argv[i:]], node, st, prefix)
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
        """Run a function, or replay the summary of an earlier identical call (recipelint.evaluate.summaries)."""
        body = st.funcs[name]
        if (
            body in self._unsummarizable
            or not self.limits.summaries
            or len(st.calls) >= self.limits.max_call_depth
            or any(c[0] == name for c in st.calls)
        ):
            return self._call_function(name, body, args, prefix, node, st, stdin, out_target)
        # without a redirection the function reads the caller's stdin (a pipe into it)
        extra = (memo.sig(args), memo.sig(prefix), memo.sig(stdin if stdin is not None else st.stdin), out_target is None)
        # the call's own frame (its site differs between call sites sharing a summary): an exit
        # inside the call reports the stack with this frame
        frame = (name, tuple(a.text for a in args), node.loc)
        return self._summarized(
            body, extra, st, lambda: self._call_function(name, body, args, prefix, node, st, stdin, out_target), frame
        )

    def _statement(self, node, st) -> list[State]:
        """A statement of a sequence: evaluated, or, when it is a compound statement that took
        many steps before, replayed from the summary of an earlier identical run."""
        if (
            node.type not in _SUMMARIZED
            or node in self._unsummarizable
            or not self.limits.summaries
            or self._node_steps.get(node, 0) < memo.MIN_STEPS
        ):
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

    def _candidates(self, stores, key):
        """The summaries a run may be replayed from, in order, each with whether it was recorded
        under another watch (a peer's, ``Evaluator.share``: then only a watch-free one serves)."""
        for store, k in stores:
            for summ in store.get(k, ()):
                yield summ, False
        peer = self._peer
        if peer is not None:
            if len(stores) > 1:  # (the library's code: what the peer's watch recorded there)
                yield from ((summ, True) for summ in self.library.memo.get((key, peer._share_key), ()))
            yield from ((summ, True) for summ in peer._memo.get(key, ()))

    def _summarized(self, node, extra, st, run, frame=None) -> list[State]:
        # whether the path launched already decides top-level pruning (a script sourcing itself)
        key = memo.key(node, (extra, self._launched(st.events)), st)
        stores = [(self._memo, key)]
        if st.funcs_ver in self.library.fver_shared and id(node.src) in self.library.sources:
            # the library's code under the library's functions: what other recipes recorded
            # first (this evaluator's own summaries once the shared ones are as many as kept)
            stores.insert(0, (self.library.memo, (key, self._share_key)))
        for summ, foreign in self._candidates(stores, key):
            if (
                (not foreign or summ.watch_free)
                and (summ.paths_at is None or summ.paths_at == self.paths)
                and self.steps + summ.steps <= self.limits.max_steps
                and self.launches + summ.launches <= self.limits.max_launches
                and memo.matches(summ, st)
            ):
                self.steps += summ.steps
                self.paths += summ.paths
                self.launches += summ.launches
                self.replays += 1
                return memo.replay(summ, st, self._recs, self.rebind, frame)
        for store, key in stores:  # recorded where there is room
            found = store.get(key)
            if found is None or len(found) < memo.MAX_ENTRIES:
                break
        else:
            # it reads something different nearly every time: recording costs more than it saves
            return run()
        entry = memo.Entry(st, self.steps, self.paths, self.launches)
        rec = entry.rec
        self._recs.append(rec)
        try:
            res = run()
        finally:
            self._recs.pop()
        if self.steps >= self.limits.max_steps:  # cut short by the step limit: not a summary
            return res
        summ = memo.summarize(
            entry, res, self.steps - entry.steps, self.paths - entry.paths, self.is_launch, self.launches - entry.launches
        )
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
            n = self.limits.max_call_depth
            why = f"{NOT_FOLLOWED}{name}: function calls nest more than {n} deep here (recipelint follows {n} levels)"
        elif sum(1 for c in st.calls if c[0] == name) >= self.limits.max_recursion:
            # a function that may launch, running itself (directly, through `$(...)` or `bash -c`)
            n = self.limits.max_recursion
            why = f"{NOT_FOLLOWED}{name}: the function runs itself more than {n} deep here (recipelint follows {n} levels)"
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
            frame[pname] = Var(Kind.SCALAR, val, exported=True)
        st.frames.append(frame)
        saved_calls = st.calls
        st.calls = st.calls + ((name, tuple(a.text for a in args), node.loc),)
        st.pos = tuple(args)
        if stdin is not None:
            st.stdin = stdin
        if out_target is not None:
            st.out = None
        if body.type == "compound_statement" and body.children and body.children[0].type == "{" and self._launched(st.events):
            # after the launch, a function that has called the benchmark client returns once
            # nothing ahead in its body can launch (the client's monitor loop and its result
            # handling are not followed; the summary key holds whether the path launched)
            res = self.run_seq(body.children, st, fn_tail=len(st.events))
        else:
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


def _entrypoint_shell(argv, i: int):
    """The word naming a shell as a container's entry point (``--entrypoint /bin/bash`` or
    ``--entrypoint=bash``) among the launcher words before ``i``, or None."""
    for j in range(i):
        t = argv[j].text
        if t == "--entrypoint" and j + 1 < i:
            w = argv[j + 1]
        elif t is not None and t.startswith("--entrypoint="):
            w = argv[j]
            value = t.split("=", 1)[1]
            if os.path.basename(value) in ("bash", "sh"):
                return Word(lit(value, w.loc), w.loc)
            return None
        else:
            continue
        return w if w.text is not None and os.path.basename(w.text) in ("bash", "sh") else None
    return None
