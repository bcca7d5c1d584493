"""Which statements may still launch: after a path has launched, or inside a skipped branch,
the evaluator asks whether the code ahead names a watched command (a serve entry point, a
launcher variable; after the launch also a benchmark client, when the analysis puts the
clients in ``launch_watch``) before it spends steps on it."""

from __future__ import annotations

import os
import re

from recipelint.evaluate.summaries import note_watch
from recipelint.evaluate.support import _PYTHON


class _Unknown:
    """One word whose value is not known from the syntax (a string, a concatenation), with the
    text it is written as (`"$DIR/utils/benchmark_serving.py"`: its literal end tells a script's
    file name).  Any other comparison treats it as unknown (None)."""

    __slots__ = ("text",)

    def __init__(self, written: str):
        self.text = written.strip('"')
        if "$" in self.text.rsplit("/", 1)[-1] or "`" in self.text:
            self.text = ""


#: commands that run their string argument as a script (`bash -c "…"`)
_SHELLS = frozenset({"bash", "sh", "eval"})


def _served_image(word: str, watch) -> bool:
    """Whether ``word`` names an image the watch holds by its repository (one whose entrypoint
    serves: ``vllm/vllm-openai:v0.10.1``, ``docker.io/vllm/vllm-openai``)."""
    if "/" not in word:
        return False
    repo = _image_repository(word)
    return repo is not None and any(repo == k or repo.endswith("/" + k) for k in watch if "/" in k)


def _image_repository(word: str) -> str | None:
    """The repository an image reference names (``docker.io/vllm/vllm-openai:v0.10.1`` →
    ``docker.io/vllm/vllm-openai``), lower case; None for a word that cannot be one."""
    ref = word.split("@", 1)[0]
    head, sep, tag = ref.rpartition(":")
    if sep and "/" not in tag:
        ref = head
    return ref.lower() or None


#: a shell given a script as an argument further along a command (`srun … bash -c "…"`)
_SHELL_C = re.compile(r"\b(?:ba)?sh\s+(?:-[a-z]*c\b|-[a-z]+\s+-c\b)")


class LaunchWatch:
    """Finding the code that may still launch (see the module docstring)."""

    def _rest_may_launch(self, kids, i, st) -> bool:
        # once this path has recorded an event (the server launch), only statements up to the
        # last one that names a watched command (directly or in the functions they call: a
        # launch, or a benchmark client in ``launch_watch``) are still run: monitors and waits
        # after the launch run commands through variables ("${cmd[@]}"), which cannot be told
        # apart from a launch without evaluating them.
        if self._recs:  # (a summary of a run that asks this holds only under this watch)
            note_watch(self._recs)
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
        if self._recs:
            note_watch(self._recs)
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
            # — or when a shell it runs is given a launch as text (`srun … bash -c "vllm serve …"`)
            hit = self._strict_cache.get(id(node))
            if hit is None:
                shell = self._shell_launch(node)
                hit = self._strict_cache[id(node)] = (watched or shell or any(self._names_launch_var(t) for t in var_cmds), node)
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
                        if txt in ("eval", "source", ".", "bash", "sh", "exec", "command", "builtin") or self._watched(
                            txt, n, False
                        ):
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

    def _shell_launch(self, node) -> bool:
        """Whether a command under ``node`` runs a launch it is given as text: a shell's script
        (`srun … bash -c "vllm serve …"`, `eval "…"`) or the words of a command named by an
        expansion (`"${PY}" -m sglang.launch_server`) — each command's own text, not its block's."""
        words = self._entry_words()
        whole = node.text
        if not any(w in whole for w in words):
            return False  # (most blocks: no entry point named anywhere in them)
        stack = [node]
        while stack:
            n = stack.pop()
            if n.type == "command":
                text = n.text
                if any(w in text for w in words):
                    nm = n.field("name")
                    word = nm.children[0] if nm is not None and nm.children else nm
                    name = word.text if word is not None and word.type == "word" else None
                    if name is None or name in _SHELLS or _SHELL_C.search(text) is not None:
                        return True
                continue
            stack.extend(n.children)
        return False

    def _entry_words(self) -> list[str]:
        """The texts of the entry points alone (`vllm serve`, `sglang.launch_server`,
        `trtllm-serve`; not the launchers: `env`, `timeout` are in any text)."""
        if self._launch_words_cache is None:
            self._launch_words_cache = self._launch_words(launchers=False)
        return self._launch_words_cache

    def _launch_words(self, launchers: bool = True) -> list[str]:
        """The texts that start a launch (`vllm serve`, `sglang.launch_server`, `trtllm-serve`),
        and the launchers' names (``launchers``)."""
        words = []
        for name, prefixes in self.launch_watch.items() if isinstance(self.launch_watch, dict) else []:
            if prefixes is None or isinstance(prefixes, frozenset):  # (a launcher)
                if launchers:
                    words.append(name)
            else:
                words.extend(
                    p[-1].removeprefix("*/") if name == "python" and p else f"{name} {' '.join(p)}".rstrip() for p in prefixes
                )
        return words

    def _launch_vars(self) -> frozenset:
        """Variables of the script whose assigned text contains a launch (computed once)."""
        if self._launch_var_cache is None:
            words = self._launch_words()
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
                words.append(_Unknown(c.text))  # one word, not known here
            else:
                words.append(...)  # an expansion that may be any number of words
                break
        return self._words_watched(words, watch, strict)

    def _words_watched(self, words: list, watch, strict: bool = False) -> bool:
        """``words``: literal text, None or an ``_Unknown`` (one unknown word) or ... (any number
        of words)."""
        first = words[0]
        if first is ...:
            return True
        if first is None:
            return True
        base = os.path.basename(first)
        if _PYTHON.match(base):
            base = "python"
        if base not in watch:
            return _served_image(first, watch)  # (a container launcher's operand)
        prefixes = watch[base] if isinstance(watch, dict) else None
        args = words[1:]
        subcommands: frozenset = frozenset()
        if isinstance(prefixes, frozenset):  # (a launcher with subcommands: `uv run CMD`)
            subcommands, prefixes = prefixes, None
        if prefixes is None:
            if strict:
                # a launcher (`timeout 60 CMD`) after the launch: only when what it wraps may be
                # a launch — some later word starts a watched command, or an array may hold one
                for i in range(1, len(words)):
                    w = words[i]
                    if w is ...:
                        return True
                    if w in subcommands:
                        continue  # (`docker run …`, `uv run …`: the command comes after)
                    if isinstance(w, str) and not w.startswith("-") and "=" not in w and not w.replace(".", "").isdigit():
                        # the wrapped command — or, past a subcommand and its options (`docker run
                        # --rm IMAGE …`), an image whose entrypoint serves
                        return self._words_watched(words[i:], watch, strict) or any(
                            isinstance(x, str) and _served_image(x, watch) for x in words[i + 1 :]
                        )
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
                if want[:2] == "*/":  # a script path whose file name is NAME, written literally at its end
                    if os.path.basename(args[i].text if isinstance(args[i], _Unknown) else args[i] or "") != want[2:]:
                        return False
                elif args[i] is not None and not isinstance(args[i], _Unknown) and args[i] != want:
                    return False
            return True

        return any(matches(p) for p in prefixes)
