"""Where a file's text launches a server, read statically (without evaluating it): the places
that say "a launch is here" so that a file whose evaluation reaches none is never silent.

A *site* is a command, an array, a string assigned to a variable or a here-document whose literal
text holds a serve command: a known entry point (``rules/data/engines.yaml``'s ``entries``,
with the settings' ``extra-entry-points``) or a word that looks like one and is not known
(``python -m dynamo.vllm``, ``*-serve``, ``*launch_server``; ``serve_like`` in engines.yaml).
The caller (the analysis) gives the texts; this module only matches them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from recipelint.engines import facts


@dataclass(frozen=True, slots=True)
class Site:
    start: int  # byte offsets in the file of the command (array, string, document) holding it
    end: int
    text: str  # the matched command words, as written (one line)
    engine: str | None  # the engine of a known entry point; None: serve-like, not known
    kind: str = "command"  # command, array, string, heredoc


_COMPILED: dict[int, tuple] = {}


def required_literals(pattern: re.Pattern) -> tuple[str, ...] | None:
    """Texts one of which every match of ``pattern`` contains (read from its parsed form:
    literal runs, groups, alternations whose every branch requires one, repeats of at least
    one), or None when no such set is found — so that a text holding none of them is known not
    to match without searching it (most commands name no server)."""
    if pattern.flags & (re.IGNORECASE | re.VERBOSE):
        return None
    try:
        from re import _parser  # type: ignore[attr-defined]

        found = _required(_parser.parse(pattern.pattern, pattern.flags))
    except Exception:  # (a Python whose parser differs: no shortcut, every text is searched)
        return None
    if not found or any(ch.isspace() or ch == "\\" for t in found for ch in t):
        return None  # (a text is searched folded: a needle with a blank might span a fold)
    return tuple(sorted(found))


def _required(seq) -> frozenset[str] | None:
    from re import _constants as c  # type: ignore[attr-defined]

    candidates: list[frozenset[str]] = []
    run: list[str] = []

    def close() -> None:
        if run:
            candidates.append(frozenset(["".join(run)]))
            run.clear()

    for op, av in seq:
        if op is c.LITERAL:
            run.append(chr(av))
            continue
        close()
        got = None
        if op is c.SUBPATTERN:
            got = _required(av[-1])
        elif op is c.BRANCH:
            branches = [_required(b) for b in av[1]]
            if all(b for b in branches):
                got = frozenset().union(*branches)  # type: ignore[arg-type]
        elif op in (c.MAX_REPEAT, c.MIN_REPEAT, c.POSSESSIVE_REPEAT) and av[0] >= 1:
            got = _required(av[2])
        if got:
            candidates.append(got)
    close()
    if not candidates:
        return None
    # the set whose shortest text is longest (the rarest in shell text)
    return max(candidates, key=lambda s: (min(len(t) for t in s), -len(s)))


def _patterns() -> tuple:
    """(known entry points with their engine as the group name, serve-like words, modules that
    are tools, not servers, commands whose words are messages, subcommands of clients, texts
    one of which either pattern's match holds — None: not known — and a search for them in
    str and in bytes), for the engine facts of this run (settings may extend them)."""
    data = facts.load("engines")
    got = _COMPILED.get(id(data))
    if got is not None and got[0] is data:
        return got[1]
    known: list[str] = []
    for engine, spec in data["engines"].items():
        for entry in spec.get("entries") or []:
            known.append(f"(?P<{engine}_{len(known)}>{_argv_pattern(entry['argv'])})")
    for repo, spec in (data.get("image_entrypoints") or {}).items():
        # `docker run … vllm/vllm-openai:TAG ARGS`: the image's entrypoint serves
        known.append(rf"(?P<{spec['engine']}_{len(known)}>{CONTAINER_RUN}(?:[\w.-]+(?::\d+)?/)?{re.escape(repo)}(?![\w/-]))")
    like = data.get("serve_like") or {}
    words = [str(p) for p in like.get("patterns") or []]
    tools = tuple(str(t) for t in like.get("not_servers") or [])
    quiet = frozenset(str(c) for c in like.get("not_commands") or [])
    subs = frozenset(str(c) for c in like.get("not_server_subcommands") or [])
    known_re = re.compile("|".join(known))
    like_re = re.compile("|".join(words)) if words else None
    need = required_literals(known_re)
    need_like = required_literals(like_re) if like_re is not None else ()
    needles = None if need is None or need_like is None else need + need_like
    # (one search for all of them, str and bytes)
    found = None if needles is None else re.compile("|".join(re.escape(n) for n in needles)).search
    found_b = None if needles is None else re.compile(b"|".join(re.escape(n.encode()) for n in needles)).search
    out = (known_re, like_re, tools, quiet, subs, needles, found, found_b)
    _COMPILED.clear()
    _COMPILED[id(data)] = (data, out)
    return out


def _argv_pattern(argv: list[str]) -> str:
    """A regex for an entry's argv in shell text: ``python`` is any python (a path, a version),
    the interpreter's options may stand before ``-m``."""
    parts = []
    for i, word in enumerate(argv):
        if word == "python" and i == 0:
            # (any python: a path, a version, or a variable holding one: `"$SGLANG_PYTHON" -m ...`)
            parts.append(r"(?:(?:^|(?<=[\s/'\"(}=]))python[0-9.]*|\"?\$\{?[A-Za-z_]\w*\}?\"?)(?:\s+(?:-[XW]\s*\S+|-[A-Za-z]+))*")
        elif i == 0:
            parts.append(r"(?:^|(?<=[\s/'\"(]))" + re.escape(word))
        else:
            parts.append(re.escape(word))
    return r"\s+".join(parts) + r"(?![\w.-])"


#: a container started (`docker run` / `podman container run` and their options), up to its image
#: (not with `--entrypoint`: the image's own entrypoint does not run)
CONTAINER_RUN = r"(?:^|(?<=[\s/'\"(]))(?:docker|podman)\s+(?:container\s+)?run\s(?:(?:(?!--entrypoint)[^|;&])*?\s)?"

#: commands that run the words after them (besides the launchers of engines.yaml)
_RUNNERS = frozenset({"bash", "sh", "eval", "exec", "command", "builtin", "xargs", "parallel", "ssh", "kubectl"})


def _runs_its_words(flat: str, at: int) -> bool:
    """Whether the command text ``flat`` runs the serve command that starts at ``at``: it is
    the command itself, or its first word is a launcher or a shell that runs what follows."""
    if at == 0:
        return True
    first = flat.split(None, 1)[0].strip("\"'").rsplit("/", 1)[-1]
    launchers = facts.load("engines").get("launchers") or {}
    return first in launchers or first in _RUNNERS or bool(re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*=.*", first))


#: where a shell command may start inside a command's text: a new line, a list or pipeline
#: operator, a subshell or substitution, the script of `bash -c "…"`
_SEGMENT = re.compile(r"\n|;|&&|\|\||\||&|\(|\)|`|-c\s+[\"']")


def _drop_quiet(text: str, quiet: frozenset[str]) -> str:
    """``text`` with every command in it that names a serve command without running it blanked:
    `pkill -9 -f 'sglang.launch_server'` in the `bash -c "…"` text srun runs, an `echo` line of a
    here-document (the command itself is checked by the caller)."""
    if not _SEGMENT.search(text):
        return text
    out = []
    pos = 0
    for m in _SEGMENT.finditer(text):
        out.append(_quiet_blank(text[pos : m.start()], quiet, first=pos == 0))
        out.append(m.group(0))
        pos = m.end()
    out.append(_quiet_blank(text[pos:], quiet, first=pos == 0))
    return "".join(out)


def _quiet_blank(seg: str, quiet: frozenset[str], first: bool) -> str:
    if first:
        return seg
    words = seg.split(None, 1)
    head = words[0].strip("\"'{") if words else ""
    return " " * len(seg) if head.rsplit("/", 1)[-1] in quiet else seg


def _one_line(text: str) -> str:
    return " ".join(text.replace("\\\n", " ").split())


def may_hold_sites(data: bytes) -> bool:
    """Whether a file's bytes may hold a site: one of the patterns' required literals is in them
    (a file without any needs no walk of its tree)."""
    found = _patterns()[7]
    return True if found is None else found(data) is not None


def scan(texts: list[tuple[int, int, str, str]]) -> list[Site]:
    """``texts``: (start, end, text, kind) of the file's commands, arrays, assigned strings and
    here-documents (byte offsets); the sites among them, in order, one per text."""
    known, like, tools, quiet, subs, _, needle, _ = _patterns()
    out: list[Site] = []
    for start, end, text, kind in texts:
        if needle is not None and needle(text) is None:
            continue  # (neither pattern can match: `_one_line` only folds blanks)
        flat = _one_line(_drop_quiet(text, quiet))
        if not flat or (kind == "command" and flat.split(None, 1)[0].rsplit("/", 1)[-1] in quiet):
            continue
        m = known.search(flat)
        if m is not None and kind == "command" and not _runs_its_words(flat, m.start()):
            continue  # (`wait_for_server "$PORT" "vllm serve"`: an argument of another command)
        if m is not None:
            engine = (m.lastgroup or "").rsplit("_", 1)[0] or None
            out.append(Site(start, end, m.group(0), engine, kind))
            continue
        u = like.search(flat) if like is not None else None
        if u is not None and not any(t in u.group(0) for t in tools):
            after = flat[u.end() :].split(None, 1)
            if after and after[0] in subs:
                continue  # (`python -m vllm.entrypoints.cli.main bench serve`: a client)
            out.append(Site(start, end, u.group(0), None, kind))
    return out


@dataclass(slots=True)
class WordLaunch:
    """An evaluated command whose name is one word holding a whole serve command (`"$CMD"` with
    CMD="vllm serve m --tp 8"): bash looks for a program of that name and stops; an event of
    the path, for RL006."""

    text: str
    loc: object
    point: object = None


def word_launch(argv: list) -> str | None:
    """The text of a command name that is a serve command in one word (what is known of it, up
    to a part that is not: `vllm serve m --tp $TP`), or None."""
    if not argv:
        return None
    word = argv[0]
    if any(c.multi for c in word.chunks):
        return None  # (a part that may be several words: the shell may split it)
    known = []
    for c in word.chunks:
        if c.text is None:
            break
        known.append(c.text)
    first = "".join(known)
    if not any(ch in first for ch in " \t\n") or not first.strip():
        return None
    found = scan([(0, 0, first.strip(), "command")])
    return (word.text if word.text is not None else word.shown) if found and found[0].engine is not None else None


@dataclass(slots=True)
class UnknownServe:
    """An evaluated command that looks like a server launch through an entry point recipelint
    does not know (``python -m "$WORKER_MODULE"`` with WORKER_MODULE=dynamo.vllm): an event of
    the path, for RL007, where the text alone did not show it.  ``why``: set when the module
    itself is not known (``python -m "$WORKER_MODULE"`` with WORKER_MODULE set by a file
    recipelint could not follow): ``unknown`` or ``empty``."""

    text: str
    loc: object
    point: object = None
    why: str | None = None


#: options that say a ``python -m <unknown module>`` command starts a server
_SERVER_OPTIONS = frozenset({"--model", "--model-path", "--model-name", "--served-model-name", "--port", "--host"})


def _python(word: str) -> bool:
    return re.fullmatch(r"python[0-9.]*", word.rsplit("/", 1)[-1]) is not None


def _written(word) -> str | None:
    """A word as the script wrote it (``"$WORKER_MODULE"``), when it is one place of a file."""
    if word.loc is None:
        return None
    loc = word.loc.real()
    data = getattr(loc.source, "data", None)
    if data is None or not 0 <= loc.start < loc.end <= len(data) or loc.end - loc.start > 200:
        return None
    return data[loc.start : loc.end].decode("utf-8", "replace")


def unknown_serve(argv: list) -> tuple[str, str | None] | None:
    """For a command's words (``text`` None for unknown ones, ``shown`` as displayed): the
    serve-like text of a launch no entry point matches and, when its module is unknown,
    what that module is made of (``hidden:<engine>``: an engine's own launcher runs a command
    that is not known); or None."""
    words = []
    for w in argv:  # (the words known up to the first that is not: the command and its module)
        if w.text is None:
            break
        words.append(w.text)
    if not words:
        return None
    spec = (facts.load("engines").get("launchers") or {}).get(words[0].rsplit("/", 1)[-1])
    if isinstance(spec, dict) and spec.get("serves") and len(words) == 1 and len(argv) > 1:
        # (`trtllm-llmapi-launch ${server_cmd}`: an engine's own launcher, its command not known)
        written = _written(argv[1])
        return f"{words[0]} {written or argv[1].shown}", "hidden:" + str(spec["serves"])
    at = words.index("-m") + 1 if "-m" in words[1:3] and _python(words[0]) else 0
    if at and (at == len(words) or words[at] == ""):
        # (`python3 -m "$WORKER_MODULE" --model-path ...`: the module is not known, or empty —
        # a variable nothing set —, its options say it serves)
        rest = {w.text.split("=", 1)[0] for w in argv[at + 1 :] if w.text is not None}
        if at < len(argv) and rest & _SERVER_OPTIONS:
            module = argv[at]
            written = _written(module)
            return " ".join([*words[:at], written or module.shown]), "unknown" if module.text is None else "empty"
        return None
    found = scan([(0, 0, " ".join(words), "command")])
    if found and found[0].engine is None:
        return found[0].text, None
    return None
