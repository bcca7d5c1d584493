"""The rule API: a small query layer over launches, so that each rule is a few lines.

A rule is a class with a ``code`` (RL101), a kebab ``name``, a default ``severity`` and its
documentation as its docstring, in fixed sections (What it does / Why is this bad? /
Example / Use instead / Exceptions).  ``check(ctx)`` yields findings made with
``ctx.finding(...)``.  Rules see launches, exits, guards, sweep points and siblings — never
the bash tree.
"""

from __future__ import annotations

import difflib
import functools
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from recipelint.bash.source import Loc
from recipelint.engines import facts
from recipelint.engines.jsonpos import decode
from recipelint.engines.launches import Flag, Launch
from recipelint.evaluate.values import file_key, first_loc, text_of
from recipelint.lint.analysis import FileResult
from recipelint.lint.findings import Edit, Finding, Fix, Related, span_of
from recipelint.sweep.points import SweepPoint

#: the largest waiver or checklist file read
MAX_DOC_BYTES = 1 << 20

DOC_SECTIONS = ("What it does", "Why is this bad?", "Example", "Use instead", "Exceptions")

#: the most distinct words one rule suggests a correction for in one file: difflib compares a
#: word with every candidate (~5 ms against a vLLM flag list), and a mutated recipe with 5,000
#: unknown flags spent 140 s there (found by the fuzz suite)
MAX_SUGGESTIONS = 64


@functools.lru_cache(maxsize=4096)
def closest(word: str, candidates: tuple, cutoff: float) -> str | None:
    """The candidate closest to ``word`` (difflib), or None."""
    close = difflib.get_close_matches(word, candidates, n=1, cutoff=cutoff)
    return close[0] if close else None


class Rule:
    code: str = ""
    name: str = ""
    severity: str = "warning"
    #: "file" rules see one file at a time; "project" rules see every file (siblings)
    scope: str = "file"
    #: whether the rule's findings hold whatever the sweep point (syntax, JSON, flags no release
    #: has, engine patches): only such rules check a recipe that no master-config entry runs, in
    #: a repository that has master configs (its default-matrix points are invented)
    sweep_independent: bool = False

    def check(self, ctx: FileContext) -> Iterable[Finding]:
        """Findings for one file."""
        return ()

    def check_project(self, project: Project) -> Iterable[Finding]:
        """Findings about the run as a whole (master-config entries); called once."""
        return ()

    def project_finding(self, span, message: str, related=(), severity: str | None = None, notes=()) -> Finding:
        return Finding(
            self.code,
            self.name,
            severity or self.severity,
            message,
            span,
            related=[Related(s, m) for s, m in related],
            notes=[n for n in notes if n],
        )

    @classmethod
    def doc(cls) -> str:
        import inspect

        return inspect.cleandoc(cls.__doc__ or "")

    @classmethod
    def summary(cls) -> str:
        """The first sentence of "What it does"."""
        text = cls.doc()
        m = re.search(r"## What it does\s*\n(.+?)(?:\n\n|\n##|$)", text, re.S)
        first = " ".join((m.group(1) if m else text).split())
        return _first_sentence(first).rstrip(".:") + "."


def _first_sentence(text: str) -> str:
    """Up to the first ". " outside `code` and parentheses (`*) ... exit 1` is not a sentence end)."""
    code, depth = False, 0
    for i, ch in enumerate(text):
        if ch == "`":
            code = not code
        elif not code and ch in "([":
            depth += 1
        elif not code and ch in ")]":
            depth = max(0, depth - 1)
        elif ch == "." and not code and depth == 0 and text[i + 1 : i + 2] == " ":
            return text[:i]
    return text


#: a ``#`` that starts a comment: at the start of a line or after a blank (not ``${#x}``, ``$#``),
#: also the inline idiom ``--flag v `# why` \``
_COMMENT = re.compile(r"(?:^|(?<=[ \t])|(?<=[ \t]`))#(?!!)(.*)$")
#: lines between a statement and the comment above its block: openers and case arms
_OPENER = re.compile(r"^\s*(?:if|elif|else|then|for|while|until|do|case|\{|[^#()]*\)\s*(?:#.*)?$)")
#: lines that may stand above a recipe's header comment: `set -euo pipefail`, `set -x`, `shopt -s ...`
_SHELL_OPTIONS = re.compile(r"^(?:set|shopt)\s+[-+]\S*(?:\s+\S+)*\s*(?:#.*)?$")
#: how far documentation is looked for around a statement, and in the header
_DOC_SPAN, _HEADER_SPAN = 60, 40


def _doc_names(names) -> list[str]:
    out = []
    for n in names:
        n = str(n).strip().lower().replace("_", "-")
        if not n:
            continue
        out.append(n)
        if n.startswith("-") and len(n.lstrip("-")) > 3:
            out.append(n.lstrip("-"))  # `max-num-seqs` (and `max_num_seqs`, by the replace above)
    return list(dict.fromkeys(out))


#: a comment line that is disabled shell code, not prose: an assignment (``MAX_NUM_SEQS=$((2 * CONC))``,
#: ``export X=1``), a lone flag with at most one value (``--max-num-seqs 256 \\``), or a launch /
#: builtin command line with a flag, an expansion or a continuation
_ASSIGN = re.compile(r"(?:(?:export|local|readonly|declare(?:\s+-\w+)*)\s+)?[A-Za-z_][A-Za-z0-9_]*(?:\[[^\]]*\])?\+?=")
_FLAG_LINE = re.compile(r"--?[A-Za-z][\w.-]*(?:[= ][^\s#]+)?\s*\\?\s*")
_COMMAND = re.compile(
    r"(?:vllm|python3?|sglang|trtllm-serve|mpirun|srun|docker|torchrun|bash|source|echo|if|elif|for|while|"
    r"[A-Z][A-Z0-9_]*=\S*)\s+\S"
)
_SHELLISH = re.compile(r"\s--?[A-Za-z]|\$[{(A-Za-z_]|\\$|;\s*then$")


def _word_end(text: str, i: int) -> int:
    """The end of the shell word starting at ``i`` (quotes and ``$( )`` / ``${ }`` balanced), or -1
    when it does not close on this line."""
    depth, quote = 0, ""
    while i < len(text):
        ch = text[i]
        if quote:
            if ch == "\\" and quote == '"':
                i += 1
            elif ch == quote:
                quote = ""
        elif ch == "\\":
            i += 1
        elif ch in "'\"":
            quote = ch
        elif ch in "({[":
            depth += 1
        elif ch in ")}]":
            depth -= 1
            if depth < 0:
                return -1
        elif ch in " \t;" and depth == 0:
            return i
        i += 1
    return i if depth == 0 and not quote else -1


def disabled_code(comment: str) -> bool:
    """Whether a comment's text (after ``#``) is shell code put out of use rather than prose: a
    disabled line documents nothing (``#    MAX_NUM_SEQS=$((2 * CONC))`` above the line that
    replaced it is not a reason for it)."""
    text = comment.strip()
    if not text:
        return False
    m = _ASSIGN.match(text)
    if m:
        end = _word_end(text, m.end())
        if end < 0:
            return False
        rest = text[end:].strip()
        return not rest or rest.startswith(("#", ";", "&&", "||", "\\")) or bool(_ASSIGN.match(rest))
    if _FLAG_LINE.fullmatch(text):
        return True
    return bool(_COMMAND.match(text) and _SHELLISH.search(text))


def _comment_of(line: str) -> str | None:
    m = _COMMENT.search(line)
    return m.group(1) if m else None


def _comments_around(src, line: int) -> list[str]:
    """The comments that can document the statement at ``line`` (see ``FileContext.documented``)."""
    out: list[str] = []
    n_lines = len(src.data.split(b"\n")) if hasattr(src, "data") else line
    # the statement's own lines: up while the line above continues into this one, down while it continues
    top = line
    while top > 1 and line - top < _DOC_SPAN and src.line_text(top - 1).rstrip().endswith("\\"):
        top -= 1
    bottom = line
    while bottom < n_lines and bottom - line < _DOC_SPAN and src.line_text(bottom).rstrip().endswith("\\"):
        bottom += 1
    for ln in range(top, bottom + 1):
        c = _comment_of(src.line_text(ln))
        if c is not None:
            out.append(c)
    # above: comment lines, blank lines and block openers, up to the first other statement
    ln = top - 1
    while ln >= 1 and top - ln <= _DOC_SPAN:
        text = src.line_text(ln)
        stripped = text.strip()
        if stripped.startswith("#"):
            out.append(stripped[1:])
        elif stripped and not _OPENER.match(text) and not stripped.endswith(("(", "\\")):
            break
        ln -= 1
    # the header: the first comment block of the file (after a shebang and shell options)
    out.extend(_HEADER + text for _, text in header_lines(src, n_lines, across_blank=True))
    return out


def header_lines(src, n_lines: int, across_blank: bool) -> list[tuple[int, str]]:
    """The comments at the top of a file (after a shebang, blank lines and shell options), as
    (line, text after `#`), up to the first other statement — or, without ``across_blank``, up to
    the first blank line after them."""
    out: list[tuple[int, str]] = []
    for ln in range(1, min(n_lines, _HEADER_SPAN) + 1):
        stripped = src.line_text(ln).strip()
        if not stripped or _SHELL_OPTIONS.match(stripped):
            if out and not stripped and not across_blank:
                break
            continue
        if not stripped.startswith("#"):
            break
        if not stripped.startswith("#!"):
            out.append((ln, stripped[1:]))
    return out


#: marks a comment of the recipe's header in ``_comments_around``'s list
_HEADER = "\0"


@dataclass(slots=True)
class Use:
    """A launch as seen under one sweep point."""

    launch: Launch
    point: SweepPoint

    @property
    def env(self) -> dict:
        return self.point.env

    def engine_version(self, engine: str | None = None):
        """The engine release(s) this point's image runs (``recipelint.engines.versions.EngineVersion``) —
        of the launch's engine, or of ``engine`` —; without an image, the release the settings'
        ``engine-versions`` declare or the repository pins (``EngineVersion.source`` says which;
        put on the point by ``lint.check``); or None when there is no catalog to judge with:
        the engine has none (TRT-LLM), or the image's release is older than every one."""
        from recipelint.engines.catalog import versions
        from recipelint.engines.versions import of_point

        engine = engine or self.launch.engine
        if not versions(engine):
            return None
        if self.launch.image and engine == self.launch.engine:
            from recipelint.engines.versions import resolve

            ev = resolve(engine, self.launch.image)  # (`docker run IMAGE …`: the image the launch names)
        else:
            ev = of_point(engine, self.point)
        return ev if ev.versions else None

    def behaviour(self, bid: str):
        """The engine behaviour ``bid`` (``"vllm.kv-role-required"``: ``rules/data/behaviours.yaml``)
        judged for the releases this point's image may run: ``(Judgement, EngineVersion)`` —
        ``Judgement.everywhere`` when it holds for every judged release, ``.held`` the releases it
        holds for —, or None when no release is judged (``engine_version`` is None)."""
        from recipelint.engines import behaviours

        ev = self.engine_version(bid.partition(".")[0])
        if ev is None:
            return None
        return behaviours.judge(bid, ev.versions), ev

    def releases(self) -> tuple[str, ...]:
        """The releases this point's image runs (``engine_version().versions``); () when none is known."""
        ev = self.engine_version()
        return ev.versions if ev is not None else ()

    def effective(self, key: str):
        """The effective value of flag ``key`` in this launch (``recipelint.lint.effective.Effective``):
        the value passed, else the engine's default at the releases the point's image runs — a flag
        passed at its default equals the flag left out; ``.where`` says which (passed / default at
        vLLM 0.25.1 / unknown)."""
        from recipelint.lint.effective import effective

        return effective(self.launch, key, self.releases() if self.engine_version() is not None else None)

    def passes(self, key: str) -> bool:
        """Whether the launch passes ``key`` at something other than the engine's default: a flag
        passed at its default (`--reasoning-parser ""`, `--pipeline-parallel-size 1`) counts as
        absent; a value that is not known, or a default that is not, counts as passed."""
        if not self.launch.has(key):
            return False
        eff = self.effective(key)
        return not (eff.at_default and eff.source == "passed")

    def max_num_seqs(self, gpu_tokens):
        """vLLM's per-engine batch cap: (value, the Flag when passed, the default or None), or None
        when not known — the flag's value when passed, else the default of the releases the
        point's image runs on the GPU ``gpu_tokens`` name (``effective.max_num_seqs_default``;
        also returned with a passed value, to say when it is passed at the default)."""
        from recipelint.lint.effective import max_num_seqs_default

        f = self.launch.get("--max-num-seqs")
        d = max_num_seqs_default(self.launch, self.releases(), gpu_tokens)
        if f is not None:
            v = flag_int(self.launch, "--max-num-seqs")
            return None if v is None else (v, f, d)
        return None if d is None else (d.value, None, d)


class FileContext:
    """What a rule sees of one file (and, for project rules, the others)."""

    def __init__(self, result: FileResult, project: Project, rule: Rule):
        self.result = result
        self.project = project
        self.rule = rule
        self._suggested: set[str] = set()

    def did_you_mean(self, word: str, candidates, cutoff: float = 0.75) -> str:
        """`; did you mean `x`?` for the candidate closest to ``word`` (difflib), or "" — also
        for words past the first ``MAX_SUGGESTIONS`` of the file."""
        if word not in self._suggested:
            if len(self._suggested) >= MAX_SUGGESTIONS:
                return ""
            self._suggested.add(word)
        close = closest(word, tuple(sorted(candidates)), cutoff)
        return f"; did you mean `{close}`?" if close else ""

    # -- launches ------------------------------------------------------------------------
    @property
    def path(self) -> Path:
        return self.result.path

    @property
    def name(self) -> str:
        return self.result.path.name

    def uses(self, engine: str | None = None, benchmark: bool = True) -> Iterator[Use]:
        """Every launch with the sweep point it ran under.  ``benchmark`` keeps only points
        that run the benchmark (not an eval-only run)."""
        for pr in self.result.points:
            if benchmark and str(pr.point.env.get("EVAL_ONLY", "false")).lower() == "true":
                continue
            for lc in pr.launches:
                if engine is None or lc.engine == engine:
                    yield Use(lc, pr.point)

    def llm_api(self, use: Use):
        """A TensorRT-LLM launch's LLM-API options (``engines.llmapi.Resolved``): its CLI flags
        with the options file over them — the file the script wrote before the launch, or one in
        the tree (recorded as used by the analysis, so the per-file cache follows it)."""
        from recipelint.engines import llmapi

        lc = use.launch
        if lc.llm_api is None:
            opts = llmapi.options_file(lc, self.path, self._top()[1])
            if opts is not None and opts.path is not None:
                self.result.used.add(str(opts.path))
            lc.llm_api = llmapi.resolve(lc, opts)
        return lc.llm_api

    def _top(self) -> tuple[Path, list[Path]]:
        """(the top of the project this file is in: its repository's, else the run's root that
        holds it, else its folder; the run's roots)."""
        from recipelint.files import repository_root

        roots = self.project.roots
        top = repository_root(self.path)
        if top is None:
            real = self.path.resolve()
            top = next((Path(r) for r in roots if Path(r).resolve() in real.parents), self.path.parent)
        return top, roots or [top]

    def engine_submodule(self, engine: str) -> tuple[str, str, int] | None:
        """A git submodule of this file's repository that is a checkout of ``engine`` or of a
        plugin of it (``repo_names`` in rules/data/engines.yaml): (its path, its URL, its line in
        `.gitmodules`); None when there is none.  (`.gitmodules` is in every per-file cache key.)"""
        names = facts.load("engines")["engines"].get(engine, {}).get("repo_names") or ()
        top, roots = self._top()
        for path, url, line in self.project.submodules(top, roots):
            for last in (path.rstrip("/").rsplit("/", 1)[-1], url.rstrip("/").rsplit("/", 1)[-1].removesuffix(".git")):
                parts = {last.lower(), *re.split(r"[-_.]", last.lower())}
                if parts & set(names):
                    return path, url, line
        return None

    def engine_tree(self, engine: str):
        """The engine's own source tree this file lies in (``engines.trees.EngineTree``: the engine's
        repository, a fork with its layout), whose parser files define its flags; or None.  (Its
        files are in every per-file cache key: ``FileCache._global_key``.)"""
        cache = self.__dict__.setdefault("_trees", {})
        if engine not in cache:
            from recipelint.engines import trees

            root, roots = self._top()
            cache[engine] = trees.find(engine, self.path, root, roots)
        return cache[engine]

    def _path_events(self, use: Use) -> tuple[list, int]:
        """(the events of the path of ``use``'s launch, the launch's index among them); ([], -1)."""
        lc = use.launch
        for pr in self.result.points:
            if pr.point is not use.point or lc.path_index >= len(pr.paths):
                continue
            events = pr.paths[lc.path_index].events
            for i, ev in enumerate(events):
                if ev is lc:
                    return events, i
        return [], -1

    def events_before(self, use: Use) -> list:
        """The events (engine changes, clients, earlier launches) the path of ``use``'s launch
        records before it, in order."""
        events, i = self._path_events(use)
        return list(events[:i]) if i >= 0 else []

    def clients_after(self, use: Use) -> list:
        """The benchmark clients (``engines.clients.ClientCall``, not routers) the path of
        ``use``'s launch runs after it, in order."""
        from recipelint.engines.clients import ClientCall

        events, i = self._path_events(use)
        return [e for e in events[i + 1 :] if isinstance(e, ClientCall) and not e.proxy] if i >= 0 else []

    def tools_claim(self, use: Use) -> tuple[str, str | None, str | None]:
        """What a launch without tool calling does to this path's requests: (who: which requests
        carry `tools`, from the clients run after the launch — ``clients.yaml`` ``tools`` —; the
        severity that supports: None for the rule's own, "warning", or "info" when every client is
        known to send none; the engine's effect on the releases judged, or None when no behaviour
        is known to hold).  A path that stops before its client is judged by the clients the
        launch's other paths run."""
        by = self.__dict__.setdefault("_clients_by_launch", None)
        if by is None:
            by = {}
            for u in self.uses():
                by.setdefault(_launch_key(u.launch), []).extend(self.clients_after(u))
            self.__dict__["_clients_by_launch"] = by
        who, severity = _tools_run(self.clients_after(use) or by.get(_launch_key(use.launch), []))
        return who, severity, _tools_effect(use, use.launch.engine)

    def config_points(self):
        """(PointResult) for the sweep points that came from a master config."""
        return [pr for pr in self.result.points if pr.point.config_key]

    def stopped_points(self):
        """Config sweep points that never launch because the script stops: (point result, path),
        for exits every path of the point reaches (no assumption on unknown values)."""
        out = []
        for pr in self.config_points():
            if pr.launches:
                continue
            certain = [p for p in pr.paths if not p.cond]
            exits = [p for p in certain if p.exit is not None and p.exit.code not in (0, None)]
            if exits and len(exits) == len(certain):
                out.append((pr, exits[0]))
        return out

    def sweep_names(self) -> set[str]:
        """The variables some master-config sweep point of this recipe sets (a name not among
        them that `set -u` stops on is the recipe's own bug, RL507; one among them that this
        point lacks is a config omission, RL503)."""
        return {k for pr in self.config_points() for k, v in pr.point.env.items() if v is not None}

    def classify_stop(self, path) -> tuple[str, str]:
        """Why a sweep point stops: ("missing", names) — a required variable is not set;
        ("option", guard text) — a `case` default arm or a backend check rejects a value;
        ("guard", guard text) — any other exit guard."""
        ex = path.exit
        if "unbound variable" in ex.reason:
            return "missing", ex.reason.split(":", 1)[0]
        if ex.reason and ex.reason.split(":", 1)[0].isidentifier() and not ex.reason.startswith("a command"):
            return "missing", ex.reason.split(":", 1)[0]
        for name, args, _ in ex.stack:
            if name == "check_env_vars":
                return "missing", " ".join(a for a in args if a)
        for name, _, _ in ex.stack:
            if "kv_offload" in name:
                return "option", name
        fired = [g for g in path.guards if g.fired]
        if fired:
            g = fired[-1]
            if g.text.startswith("case ") and g.text.rstrip(")").endswith("*"):
                return "option", g.text
            return "guard", g.text
        return "guard", ""

    def exit_anchor(self, ex) -> Loc:
        """Where an exit shows in this script: the exit itself, or the call in the script that
        led into a helper library's exit."""
        script = str(self.result.path.resolve())
        if _same_file(ex.loc.real().source.path, script):
            return ex.loc
        for _name, _args, call_loc in ex.stack:
            if _same_file(call_loc.real().source.path, script):
                return call_loc
        return ex.loc

    def is_here(self, loc: Loc) -> bool:
        """Whether ``loc`` is in the checked file (not in a file it sources or runs)."""
        return _same_file(loc.real().source.path, str(self.result.path.resolve()))

    def line_of(self, loc: Loc) -> str:
        """Where ``loc`` is, as a message says it: "line 12" in this file, "line 12 of
        `lib/env.sh`" in another (named from this file's folder when below it, else from the
        run's root)."""
        real = loc.real()
        line = real.span.line
        path = real.source.path
        if self.is_here(loc):
            return f"line {line}"
        here = self.result.path.resolve().parent
        shown = Path(path).name
        for base in (here, *self.project.roots[:1]):
            try:
                shown = Path(path).resolve().relative_to(Path(base).resolve()).as_posix()
                break
            except (ValueError, OSError):
                continue
        return f"line {line} of `{shown}`"

    def is_agentic(self, use: Use | None = None) -> bool:
        if use is not None and str(use.env.get("SCENARIO_TYPE", "")) == "agentic-coding":
            return True
        return "agentic" in Path(self.result.display).parts or "/agentic/" in f"/{self.result.display}"

    # -- source text (comments) ----------------------------------------------------------
    def line_text(self, loc: Loc, line: int | None = None) -> str:
        src = loc.real().source
        sp = loc.real().span
        return src.line_text(line if line is not None else sp.line) if hasattr(src, "line_text") else ""

    def documented(self, locs, names) -> str | None:
        """The comment that documents a choice, or None: a ``#`` comment — prose, not a line of
        disabled shell code (:func:`disabled_code`) — naming one of ``names``
        (a flag — also without its dashes and with ``_`` for ``-`` —, a variable, a sibling's
        file name; case-insensitive) that stands

        * on the lines of the statement at one of ``locs`` (a continued command's lines, the
          comment lines inside a multi-line array),
        * in the comments just above that statement, or above the ``if`` / ``case`` arm / loop
          it sits in (blank lines and block openers between are passed over),
        * or in the recipe's header (the comments at the top of the file) — there a sibling's
          file name alone documents nothing in particular (a header says whose sibling it is).

        This is the one way rules accept a documented choice: pass the result to
        :meth:`finding` (``documented=``), which reports the finding only with
        ``--show-documented``, as info."""
        wanted = _doc_names(names)
        if not wanted:
            return None
        in_header = [w for w in wanted if not w.endswith((".sh", ".bash"))]
        for loc in locs if isinstance(locs, (list, tuple)) else [locs]:
            if loc is None:
                continue
            real = loc.real()
            src = real.source
            if not hasattr(src, "line_text"):
                continue
            for text in _comments_around(src, real.span.line):
                header = text.startswith(_HEADER)
                if disabled_code(text.lstrip(_HEADER)):
                    continue  # code put out of use is not a reason
                low = text.lower().replace("_", "-")
                if any(w in low for w in (in_header if header else wanted)):
                    return text.lstrip(_HEADER).strip()
        return None

    def header(self) -> list[tuple[int, str]]:
        """The recipe's header: the first comment block of the file (after a shebang and shell
        options), as (line, text without `#`)."""
        src = self.result.source
        if not hasattr(src, "line_text"):
            return []
        return [(ln, text.strip()) for ln, text in header_lines(src, src.line_count, across_blank=False)]

    def header_loc(self, line: int) -> Loc:
        """The location of a line of the recipe's header."""
        src = self.result.source
        start = src.line_start(line)
        return Loc(src, start, start + len(src.line_text(line).encode()))

    def site_loc(self, site) -> Loc:
        """Where a serve site (``FileResult.sites``) is in the file: the first line of the command,
        array, string or here-document that holds it."""
        return Loc(self.result.source, site.start, site.end)

    def source_text(self, loc: Loc) -> str:
        """The source text a location covers (for rules that look at how a value was written)."""
        real = loc.real()
        src = real.source
        return src.data[real.start : real.end].decode("utf-8", "replace") if hasattr(src, "data") else ""

    # -- fixes -----------------------------------------------------------------------------
    def replace(self, loc: Loc, new: str) -> Edit | None:
        """An edit that writes ``new`` over the source text ``loc`` covers (where it was written:
        through variables and sourced files); None when that text is not in a file."""
        real = loc.real()
        src = real.source
        if not hasattr(src, "data") or not hasattr(src, "path"):
            return None
        old = src.data[real.start : real.end].decode("utf-8", "replace")
        return Edit(src.path, real.start, real.end, old, new, src.span(real.start, real.end))

    def insert_lines_after(self, loc: Loc, lines: list[str]) -> Edit | None:
        """An edit that adds ``lines`` after the line ``loc`` ends on, each indented as that line
        is (a flag restored in an array or a continued command keeps its neighbours' form)."""
        real = loc.real()
        src = real.source
        if not hasattr(src, "data") or not hasattr(src, "path"):
            return None
        line, _ = src.point(real.end)
        text = src.line_text(line)
        indent = text[: len(text) - len(text.lstrip(" \t"))]
        cont = " \\" if text.rstrip().endswith("\\") else ""
        at = src.line_start(line) + len(text.encode())
        if src.data[at : at + 2] == b"\r\n":
            at, nl = at + 2, "\r\n"
        elif src.data[at : at + 1] == b"\n":
            at, nl = at + 1, "\n"
        else:  # (the file's last line, without a newline)
            return Edit(src.path, at, at, "", "".join(f"\n{indent}{x}{cont}" for x in lines), src.span(at, at))
        return Edit(src.path, at, at, "", "".join(f"{indent}{x}{cont}{nl}" for x in lines), src.span(at, at))

    # -- findings ------------------------------------------------------------------------
    def finding(
        self,
        loc: Loc,
        message: str,
        point: SweepPoint | list[SweepPoint] | None = None,
        related=(),
        key: str = "",
        code: str | None = None,
        severity: str | None = None,
        variant: str = "",
        fix: Fix | None = None,
        defects: tuple[str, ...] = (),
        notes: list[str] | tuple = (),
        documented: str | None = None,
    ) -> Finding:
        """``documented``: the comment :meth:`documented` found (the finding is then reported
        only with ``--show-documented``)."""
        span = span_of(loc)
        rel = [Related(span_of(rl), msg) for rl, msg in related if rl is not None]
        for p in point if isinstance(point, list) else [point]:
            origin = getattr(p, "origin", None)
            if hasattr(origin, "line") and hasattr(origin, "path") and len(rel) < 8:
                r = Related(origin, f"sweep point from `{p.config_key}`")
                if all((r.span, r.message) != (x.span, x.message) for x in rel):
                    rel.append(r)
        return Finding(
            code=code or self.rule.code,
            name=self.rule.name,
            severity=severity or self.rule.severity,
            message=message,
            span=span,
            points=[p.label for p in (point if isinstance(point, list) else [point]) if p is not None],
            related=rel,
            key=key,
            variant=variant,
            documented=documented or "",
            fix=fix,
            defects=defects,
            notes=[n for n in notes if n],
        )


@dataclass(slots=True)
class EngineConfig:
    """A multi-node engine configuration file a master-config entry names (``CONFIG_FILE=…``)
    whose backend is TensorRT-LLM: its LLM-API mappings per role (``backend.trtllm_config.decode``
    …) decoded with positions, and the entries' items that run it."""

    path: Path
    roles: dict  # role -> JNode (a mapping of LLM-API options)
    release: str | None  # the TensorRT-LLM release its image (or the entry's) names
    uses: list  # (ConfigEntry, sweep.configs.EngineFile)

    def related(self) -> list:
        """The master-config items that run it (at most three), for a finding's notes."""
        from recipelint.bash.source import Span

        out = []
        for e, ref in self.uses[:3]:
            out.append((Span(str(e.path), ref.line, 1, ref.line, 2), f"run by `{e.key}`"))
        return out


class Project:
    """All files of a run, with sibling lookup."""

    def __init__(self, results: list[FileResult], configs=None, analyze=None, scope=None, home=None, roots=None, tree=None):
        self.results = results
        #: what the run reads of the tree beside its files (the runners' launch scripts, policy
        #: roots, waivers): one dict per run, shared by its Projects (a worker's chunks each have
        #: one), so that it is read once per process
        self.tree: dict = tree if tree is not None else {}
        #: the run's roots: the folders its files may be read from (the project's top first)
        self.roots: list[Path] = list(roots or getattr(configs, "roots", None) or [])
        #: home(result) -> where the result's file is in the tree checked (a diff's base run
        #: reuses the work tree's analysis of a file alike in both; None: ``result.path``)
        self._home = home
        self.configs = configs
        #: scope(entry) -> whether the run reports on a master-config entry (None: every entry)
        self._scope = scope
        self.by_path = {r.path.resolve(): r for r in results if not r.slim}  # (analyses rules can use)
        self._groups = facts.load("parity")["hardware_groups"]
        #: analyze(path) -> FileResult for a sibling that is not part of the run (read, not reported)
        self._analyze = analyze

    def submodules(self, top: Path, roots) -> list[tuple[str, str, int]]:
        """The submodules `top/.gitmodules` declares: (path, URL, line of its section), read once
        per run (inside ``roots``, at most 64 KiB; none when it cannot be read)."""
        key = ("submodules", str(top))
        if key not in self.tree:
            self.tree[key] = read_submodules(Path(top) / ".gitmodules", roots)
        return self.tree[key]

    def runner_exports(self) -> set[str]:
        """``runner_exports`` of the master configs' root, read once a run."""
        return self._runners(runner_exports)

    def runner_names(self) -> set[str]:
        """``runner_names`` of the master configs' root, read once a run."""
        return self._runners(runner_names)

    def _runners(self, read) -> set[str]:
        root = getattr(self.configs, "root", None)
        key = (read.__name__, root)
        if key not in self.tree:
            self.tree[key] = read(root)
        return self.tree[key]

    def entries(self) -> list:
        """The master-config entries this run reports on: those whose config file is among the
        paths checked (or under a directory checked), and those that run a recipe checked.  A
        one-recipe check (a pre-commit hook) is not answerable for unrelated entries."""
        kept = self.__dict__.get("_entries")
        if kept is None:
            found = list(getattr(self.configs, "entries", None) or [])
            kept = self._entries = found if self._scope is None else [e for e in found if self._scope(e)]
        return kept

    def engine_configs(self) -> list[EngineConfig]:
        """The TensorRT-LLM engine configurations the reported entries name (read once per file,
        inside the repository, bounded); the ones that cannot be read are in
        ``engine_configs_unread`` (path as named → why)."""
        kept = self.__dict__.get("_engine_configs")
        if kept is not None:
            return kept
        from recipelint.engines import llmapi

        out: dict[str, EngineConfig] = {}
        unread: dict[str, tuple[str, list]] = {}
        root = getattr(self.configs, "root", None)
        refs = [(e, ref) for e in self.entries() for ref in getattr(e, "engine_files", ())]
        if root is not None and refs:
            roots = getattr(self.configs, "roots", None) or [Path(root)]
            read: dict = {}  # (each file read and decoded once, however many items name it)
            for e, ref in refs:
                tree = self.configs.engine_tree(ref)
                if tree not in read:
                    read[tree] = llmapi.engine_config(Path(root), tree, roots)
                got = read[tree]
                if isinstance(got, str):
                    unread.setdefault(ref.file, (got, []))[1].append((e, ref))
                    continue
                if got is None:
                    continue  # (another engine's configuration)
                path, roles, image = got
                cfg = out.get(str(path))
                if cfg is None:
                    release = llmapi.release_of_image(image) or llmapi.release_of_image(e.image)
                    cfg = out[str(path)] = EngineConfig(path, roles, release, [])
                cfg.uses.append((e, ref))
        self.__dict__["_engine_configs_unread"] = unread
        kept = self.__dict__["_engine_configs"] = list(out.values())
        return kept

    @property
    def engine_configs_unread(self) -> dict:
        self.engine_configs()
        return self.__dict__.get("_engine_configs_unread") or {}

    def policy_root(self, path: Path) -> Path | None:
        """The repository root whose review checklist turns the RL7xx policies on."""
        marker = facts.load("policy")["enabled_by"]
        cache = self.tree.setdefault("policy_roots", {})
        start = path.resolve().parent
        if start in cache:
            return cache[start]
        found = None
        for d in [start, *start.parents]:
            if (d / marker).is_file():
                found = d
                break
        cache[start] = found
        return found

    def waivers(self, root: Path) -> list[tuple[Path, str]]:
        """(path, text) of the waiver files under the root's waiver folder."""
        cache = self.tree.setdefault("waivers", {})
        if root not in cache:
            out = []
            d = root / facts.load("policy")["waiver_dir"]
            from recipelint.files import Refused, confine, read_regular

            for p in sorted(d.glob("*.md")) if d.is_dir() else []:
                try:  # (inside the repository, regular, bounded: a waiver linked elsewhere is not read)
                    confine(p, [root])
                    out.append((p, read_regular(p, MAX_DOC_BYTES).decode("utf-8", errors="replace")))
                except Refused:
                    continue
            cache[root] = out
        return cache[root]

    def sibling_key(self, path: Path) -> str:
        """Equal for a file and its siblings: the folder and the name with every hardware token
        replaced by its group (for keeping siblings together when work is split)."""
        tokens = re.split(r"([_.-])", path.name)
        for i, tok in enumerate(tokens):
            for g, group in enumerate(self._groups):
                if tok.lower() in group:
                    tokens[i] = f"<{g}>"
        return f"{path.parent}/{''.join(tokens)}"

    def family_key(self, path: Path) -> str:
        """Equal for a file and its family (any hardware token replaced): work split between
        processes keeps a family together, so that no process analyses a member another has
        (RL101 compares a recipe with its family, RL401 with its siblings)."""
        tokens = re.split(r"([_.-])", path.name)
        every = {hw for group in self._groups for hw in group}
        return f"{path.parent}/{''.join('<hw>' if tok.lower() in every else tok for tok in tokens)}"

    def siblings(self, result: FileResult) -> list[FileResult]:
        """Files named like ``result`` with another hardware token of the same group; a
        sibling on disk that was not passed to the run is analysed too (its findings are not
        reported)."""
        return self._renamed(result, across_groups=False)

    def family(self, result: FileResult) -> list[FileResult]:
        """The recipe's family: files in its folder named like it with any other hardware token
        (``dsv4_fp4_mi355x_vllm_mtp.sh`` → ``dsv4_fp4_b200_vllm_mtp.sh``, ``..._b300_...``) — the
        same model and engine on other hardware, siblings included; analysed like siblings."""
        return self._renamed(result, across_groups=True)

    def _renamed(self, result: FileResult, across_groups: bool) -> list[FileResult]:
        from recipelint.lint.scope import renamed_candidates

        at = self._home(result) if self._home is not None else result.path
        out: list[FileResult] = []
        for name in renamed_candidates(result.path.name, self._groups, across_groups):
            cand = at.parent / name
            key = cand.resolve()
            sib = self.by_path.get(key)
            if sib is None and self._analyze is not None and cand.is_file():
                sib = self._analyze(cand)
                self.by_path[key] = sib
            if sib is not None and sib is not result and sib not in out and not sib.error and self.is_run(sib):
                out.append(sib)
        return out

    def is_run(self, result: FileResult) -> bool:
        """Whether a master-config entry runs the recipe — always true in a repository without
        master configs (its points are the default matrix, or a dispatch workflow's)."""
        if result.run is not None:  # (a cached recipe's findings: no points)
            return result.run
        return not getattr(self.configs, "found", False) or any(pr.point.config_key for pr in result.points)


#: a name a runner's launch script exports (``export NAME``)
_RUNNER_EXPORT = re.compile(rb"(?m)^[ \t]*export[ \t]+([A-Za-z_][A-Za-z0-9_]*)")


_NAME = re.compile(rb"[A-Za-z_][A-Za-z0-9_]*")


def _runner_matches(root: Path | None, pattern: re.Pattern) -> set[str]:
    """The matches of ``pattern`` in the runners' launch scripts (``runners/*.sh`` beside the
    master configs, read inside the repository, regular files, bounded)."""
    from recipelint.files import Refused, confine, read_regular

    names: set[str] = set()
    d = Path(root) / "runners" if root is not None else None
    for p in sorted(d.glob("*.sh")) if d is not None and d.is_dir() else []:
        try:
            confine(p, [root])
            names.update(m.decode() for m in pattern.findall(read_regular(p, 1 << 20)))
        except Refused:
            continue
    return names


def runner_names(root: Path | None) -> set[str]:
    """Every name the runners' launch scripts mention (`-e PORT=$PORT`, `--export=ALL,PORT=8888`,
    `export X`…): a variable a recipe uses without setting may come from there."""
    return _runner_matches(root, _NAME)


def runner_exports(root: Path | None) -> set[str]:
    """Names the runners' launch scripts export: set for every recipe a runner starts (RL507;
    ``lint.scope`` compares them between a diff's trees)."""
    return _runner_matches(root, _RUNNER_EXPORT)


# ---- small queries used by several rules -------------------------------------------------


def unbound_name(ex) -> str | None:
    """The variable `set -u` stopped the script on, for an exit that is one
    (``X: unbound variable``), else None."""
    if ex is None or not ex.reason.endswith(": unbound variable"):
        return None
    return ex.reason[: -len(": unbound variable")]


def int_value(text: str | None) -> int | None:
    if text is None:
        return None
    try:
        return int(text.strip())
    except ValueError:
        return None


def env_int(point: SweepPoint, name: str) -> int | None:
    v = point.env.get(name)
    return int_value(v) if isinstance(v, str) else None


def flag_int(launch: Launch, *keys: str) -> int | None:
    for k in keys:
        f = launch.get(k)
        if f is not None:
            return int_value(f.text)
    return None


def vllm_dp_size(launch: Launch) -> int | None:
    v = flag_int(launch, "--data-parallel-size")
    return 1 if v is None and not launch.has("--data-parallel-size") else v


def behaviour_scope(judged, ev) -> str:
    """Which engine release(s) a behaviour is claimed for, for a message (``Use.behaviour``'s
    pair): the judged release ("vLLM 0.20.1") when it holds for every one judged, else the ones it
    holds for among them ("vLLM (on releases 0.19.0–0.21.0 of vLLM 0.19.0–0.25.1 (...))")."""
    from recipelint.engines.catalog import ENGINE_NAMES

    if judged.everywhere:
        return ev.label
    name = ENGINE_NAMES.get(ev.engine, ev.engine)
    return f"{name} (on releases {judged.where} of {ev.label})"


def behaviour_scope_parts(judged, ev) -> tuple[str, str]:
    """``behaviour_scope`` in two parts: the releases, short, for a headline ("vLLM 0.23.0–0.27.0",
    "vLLM 0.19.0–0.21.0 of 0.19.0–0.25.1"), and the provenance note ("vLLM 0.23.0–0.27.0: image
    `…` is a vLLM build of commit …"), or "" when there is none to give."""
    from recipelint.engines.catalog import ENGINE_NAMES

    name = ENGINE_NAMES.get(ev.engine, ev.engine)
    short = ev.short if judged.everywhere else f"{name} {judged.where} (of {ev.short.removeprefix(name + ' ')})"
    return short, (f"{ev.short}: {ev.provenance}" if ev.provenance else "")


def vllm_world_size(launch: Launch) -> int | None:
    """TP × PP × PCP of one vLLM engine (DP does not count)."""
    total = 1
    for key in ("--tensor-parallel-size", "--pipeline-parallel-size", "--prefill-context-parallel-size"):
        present = launch.has(key)
        v = flag_int(launch, key)
        if present and v is None:
            return None
        total *= v or 1
    return total


def sglang_attention_dp(launch: Launch) -> int | None:
    """The attention-DP size of an SGLang launch (1 without DP attention)."""
    attn = flag_int(launch, "--attn-dp-size")
    if attn is not None:
        return attn
    if not launch.has("--enable-dp-attention"):
        return 1
    f = launch.get("--dp-size")
    return int_value(f.text) if f is not None else 1


def kv_connector(launch: Launch):
    """(connector name, extra-config JNode or None, the flag) of --kv-transfer-config."""
    f = launch.get("--kv-transfer-config")
    if f is None or f.json is None or f.json.kind != "object":
        return None, None, f
    name = f.json.get("kv_connector")
    extra = f.json.get("kv_connector_extra_config")
    return (name.value if name is not None else None), (extra if extra is not None and extra.kind == "object" else None), f


SIMPLE_ENV = "VLLM_USE_SIMPLE_KV_OFFLOAD"


@dataclass(frozen=True, slots=True)
class OffloadConnector:
    """The KV connector a vLLM launch configures, in whichever form it is configured: ``json``
    (``--kv-transfer-config``, its ``kv_connector_extra_config`` in ``extra``) or ``shortcut``
    (``--kv-offloading-size`` with ``--kv-offloading-backend native``, its default, which builds
    SimpleCPUOffloadConnector when ``VLLM_USE_SIMPLE_KV_OFFLOAD`` is set: only ``cpu_bytes_to_use``
    goes into its extra config, from the size in GiB)."""

    name: str | None
    form: str
    flag: Flag  # --kv-transfer-config, or --kv-offloading-size
    extra: object = None  # JNode object (json form)
    backend: Flag | None = None  # --kv-offloading-backend (shortcut form; None: the default)
    env_loc: Loc | None = None  # where VLLM_USE_SIMPLE_KV_OFFLOAD was set (shortcut form)

    def key(self, name: str):
        """The extra-config entry ``name`` (a JNode) in the JSON form; None when absent or in the
        shortcut form (which sets only ``cpu_bytes_to_use``)."""
        return self.extra.get(name) if self.extra is not None else None

    @property
    def loc(self) -> Loc:
        """Where the connector is configured: the JSON's extra config (or the flag's value), the
        shortcut's ``--kv-offloading-backend`` (or ``--kv-offloading-size``)."""
        if self.extra is not None:
            return self.extra.loc
        if self.backend is not None:
            return self.backend.word.loc
        return self.flag.value_loc or self.flag.word.loc

    def related(self) -> list:
        if self.form == "json":
            return [(self.flag.word.loc, "--kv-transfer-config is passed here")]
        out = [(self.flag.word.loc, "--kv-offloading-size turns the offload on here")]
        if self.env_loc is not None:
            out.append((self.env_loc, f"{SIMPLE_ENV} selects SimpleCPUOffloadConnector here"))
        return out


def offload_connector(use: Use, shortcut: str) -> OffloadConnector | None:
    """The KV connector ``use``'s vLLM launch configures (:class:`OffloadConnector`), or None (no
    connector, or the shortcut on releases where its connector is not known).  ``shortcut``: the
    behaviour that maps the shortcut onto a connector (``"vllm.kv-offloading-native-simple-env"``,
    named by the rule that relies on it)."""

    lc = use.launch
    name, extra, f = kv_connector(lc)
    size = lc.get("--kv-offloading-size")
    if size is None or not (size.text or "").strip():
        if f is None or name is None:
            return None
        return OffloadConnector(name, "json", f, extra)
    backend = lc.get("--kv-offloading-backend")
    if backend is not None and backend.text != "native":
        return None if f is None or name is None else OffloadConnector(name, "json", f, extra)
    got = use.behaviour(shortcut)
    if got is None or not got[0].everywhere:
        return None
    raw = lc.env.get(SIMPLE_ENV)
    text = text_of(raw) if isinstance(raw, tuple) else raw
    if text is None and raw is not None:
        return None  # not known whether it is set
    simple = int_value(text.strip()) if isinstance(text, str) and text.strip() else 0
    if simple is None:
        return None  # not an integer: vLLM stops at start-up (`bool(int(...))`), no connector to judge
    connector = "SimpleCPUOffloadConnector" if simple else "OffloadingConnector"
    env_loc = first_loc(raw) if isinstance(raw, tuple) else None
    return OffloadConnector(connector, "shortcut", size, None, backend, env_loc)


def env_file_json(launch: Launch, env: str):
    """The JSON (a ``JNode`` object) of the file the launch's environment variable ``env`` names,
    when the script wrote that file before the launch (``launch.files``); else None."""
    path_s = launch.env.get(env)
    path = text_of(path_s) if path_s is not None else None
    content = launch.files.get(file_key(path)) if path else None
    if content is None:
        return None
    doc = decode(content)
    return doc if getattr(doc, "kind", None) == "object" else None


def model_family(launch: Launch, file_name: str = "", parsers: bool = True) -> str | None:
    """The model family a launch serves, from its model names (and, with ``parsers``, its
    parser flags), else the recipe's file name."""
    fams = facts.load("models")["families"]
    texts = []
    m = launch.model
    if m is not None and m.text:
        texts.append(m.text)
    keys = ["--served-model-name", "--model", "--model-path", "--tokenizer-mode"]
    if parsers:
        keys += ["--reasoning-parser", "--tool-call-parser"]
    for k in keys:
        v = launch.value(k)
        if v:
            texts.append(v)
    texts.append(file_name)
    for text in texts:
        low = text.lower()
        for fam, spec in fams.items():
            if any(pat in low for pat in spec.get("match", [])):
                return fam
    return None


def related_flag(launch: Launch, key: str, msg: str | None = None):
    f = launch.get(key)
    if f is None:
        return None
    return (f.word.loc, msg or f"{f.name} is passed here")


#: `.gitmodules`: a section header and its `path =` / `url =` keys
_SUBMODULE = re.compile(r'^\s*\[submodule\s+"([^"\n]*)"\s*\]\s*$')
_SUBMODULE_KEY = re.compile(r"^\s*(path|url)\s*=\s*(.*?)\s*$")


def read_submodules(path: Path, roots) -> list[tuple[str, str, int]]:
    """(path, URL, line) of each submodule a `.gitmodules` file declares; [] when there is none
    or it cannot be read (outside ``roots``, not a regular file, over 64 KiB, not text)."""
    from recipelint.files import Refused, confine, read_regular

    try:
        text = read_regular(confine(path, roots), 1 << 16).decode("utf-8")
    except (Refused, OSError, UnicodeDecodeError):
        return []
    sections: list[dict] = []
    for i, line in enumerate(text.splitlines(), 1):
        if _SUBMODULE.match(line):
            sections.append({"line": i})
            continue
        m = _SUBMODULE_KEY.match(line)
        if m and sections:
            sections[-1][m.group(1)] = m.group(2)
    return [(s.get("path", ""), s.get("url", ""), s["line"]) for s in sections if s.get("path") or s.get("url")]


def _same_file(a: str, b: str) -> bool:
    try:
        return str(Path(a).resolve()) == b
    except OSError:
        return False


def uniq(items: Iterable) -> list:
    seen = []
    for i in items:
        if i not in seen:
            seen.append(i)
    return seen


__all__ = [
    "DOC_SECTIONS",
    "FileContext",
    "Project",
    "Related",
    "Rule",
    "Use",
    "env_file_json",
    "env_int",
    "flag_int",
    "int_value",
    "kv_connector",
    "model_family",
    "related_flag",
    "sglang_attention_dp",
    "unbound_name",
    "uniq",
    "vllm_dp_size",
    "vllm_world_size",
]


# -- a flag that is missing: where it goes ---------------------------------------------------------
def missing_defect(launch: Launch, key: str) -> str:
    """The defect "``key`` is not passed to this launch" (``Finding.defects``): every rule that
    sees it names the same one, and the driver reports it once."""
    real = launch.loc.real()
    return f"missing|{getattr(real.source, 'path', '')}:{real.start}|{key}"


def same_source(a: Loc | None, b: Loc | None) -> bool:
    try:
        return a.real().source.path == b.real().source.path  # type: ignore[union-attr]
    except AttributeError:
        return False


def main_list(launch: Launch) -> set[int]:
    """The lines of the launch's main flag list: the largest run of nearby lines (an array's
    elements, a continued command's lines) its flags are written on, in the launch's file."""
    lines = sorted(
        {f.word.loc.real().span.line for f in launch.flags if f.word.loc is not None and same_source(f.word.loc, launch.loc)}
    )
    best: list = []
    run: list = []
    for ln in lines:
        if run and ln - run[-1] > 4:
            run = []
        run.append(ln)
        if len(run) > len(best):
            best = list(run)
    return set(range(best[0], best[-1] + 1)) if best else set()


def launch_home(launch: Launch) -> Loc:
    """Where a finding about something the launch lacks points: the engine command's first word
    (`vllm` of `vllm serve`, in the array or the continued command that builds it) when it is
    written in the launch's file, else the command that runs it."""
    if launch.start < len(launch.argv):
        loc = launch.argv[launch.start].loc
        if loc is not None and same_source(loc, launch.loc):
            return loc
    return launch.loc


def flag_source(ctx_source_text, flag) -> str:
    """How a flag is written (``--tool-call-parser deepseek_v4``, ``--max-num-seqs "$N"``) when
    its words stand on one line of one file, else its value quoted for bash."""
    import shlex

    w, v = flag.word.loc, (flag.value.loc if flag.value is not None else None)
    if w is not None and (v is None or (same_source(w, v) and w.real().span.line == v.real().span.line)):
        end = v.real().end if v is not None else w.real().end
        text = ctx_source_text(Loc(w.real().source, w.real().start, end))
        if text and "\n" not in text and not flag.inline:
            return text
    if flag.value is None:
        return flag.name
    t = flag.value.text
    return f"{flag.name} {shlex.quote(t)}" if t is not None else ""


def flag_insertion(ctx, launch: Launch, texts: list[str], after_keys=()) -> tuple[Edit | None, str]:
    """The edit that adds the flags ``texts`` (as written) to the launch's main flag list, after
    the first of ``after_keys`` it passes there (the neighbour a sibling writes them next to), else
    after its last flag; and where, in words ("after `--tokenizer-mode` (line 74)").
    A flag alone on its line gets new lines in the same form (indent, continuation); else the
    flags go on the same line, after it.  (None, "") when the list is not in a file."""
    home = main_list(launch)
    mine = [
        f
        for f in launch.flags
        if f.word.loc is not None and same_source(f.word.loc, launch.loc) and f.word.loc.real().span.line in home
    ]
    if not mine:
        return None, ""
    anchor = next((f for k in after_keys for f in reversed(mine) if f.key == k), None) or mine[-1]
    last = anchor.value.loc if anchor.value is not None and anchor.value.loc is not None else anchor.word.loc
    if last is None or not same_source(last, anchor.word.loc):
        return None, ""
    written = flag_source(ctx.source_text, anchor)
    src = last.real().source
    line = last.real().span.line
    text = src.line_text(line)
    nxt = src.line_text(line + 1).strip() if line < src.line_count else ""
    alone = text.strip().rstrip("\\").strip() == written
    where = f"after `{anchor.name}` (line {line})"
    # a line of its own, in a statement that goes on after it: an array's element, a string's line
    enc = enclosing_statement(ctx.result, line) if getattr(src, "path", None) == ctx.result.source.path else None
    if alone and (text.rstrip().endswith("\\") or nxt.startswith(")") or (enc is not None and enc[1] > line)):
        return ctx.insert_lines_after(last, texts), where
    return ctx.replace(Loc(src, last.real().end, last.real().end), " " + " ".join(texts)), where


def _launch_key(launch: Launch) -> tuple:
    return (launch.loc.source.path, launch.loc.start)


#: what an engine does with requests that carry tools when tool calling is off
#: (rules/data/behaviours.yaml ids): (id, what it does)
TOOLS_EFFECTS = {
    "vllm": (("vllm.auto-tool-choice-rejected", "answers every `tool_choice: auto` request with HTTP 400"),),
    "sglang": (
        ("sglang.tools-unparsed-without-parser", "returns tool calls as plain text"),
        ("sglang.tools-rejected-without-parser", "fails every request with tools (`Unsupported tool_call_parser: None`)"),
    ),
}


def _tools_run(calls) -> tuple[str, str | None]:
    from recipelint.engines.clients import tools_mode

    modes = [(c, tools_mode(c.client)) for c in calls]
    always = [c for c, m in modes if m == "always"]
    if always:
        return f"its client `{always[0].client}` sends `tools` with every request", None
    trace = [c for c, m in modes if m == "trace"]
    if trace:
        return (
            f"its client `{trace[0].client}` sends `tools` only on the requests whose trace turn carries them, "
            "without `tool_choice` (the server's default: `auto`)",
            "warning",
        )
    if modes and all(m == "never" for _, m in modes):
        return (
            f"its client `{modes[0][0].client}` sends no `tools`, so the benchmark's own requests are not affected; "
            "a client that sends them (an agent eval run against this server)",
            "info",
        )
    return "no benchmark client recipelint knows runs after it, so whether requests carry `tools` is not known", "warning"


def _tools_effect(use: Use, engine: str) -> tuple[str, str] | None:
    """(what the engine does, on which releases; the releases' provenance note)."""
    from recipelint.engines.behaviours import span

    parts = []
    for bid, does in TOOLS_EFFECTS.get(engine, ()):
        got = use.behaviour(bid)
        if got is None or not got[0].somewhere:
            continue
        parts.append((got, does))
    if not parts:
        return None
    if len(parts) == 1:
        got, does = parts[0]
        short, note = behaviour_scope_parts(*got)
        return f"{short} {does}", note
    (_, ev) = parts[0][0]
    each = "; ".join(f"{does} on releases {span(j.held)}" for (j, _ev), does in parts)
    return f"{ev.short}: {each}", (f"{ev.short}: {ev.provenance}" if ev.provenance else "")


def enclosing_statement(result, line: int) -> tuple[int, int] | None:
    """The lines (first, last) of the smallest statement of ``result`` (a ``FileResult``) that
    holds ``line`` and spans more than one line (the `if … fi` around an assignment), or None."""
    best = None
    for a, b in (getattr(result, "blocks", None) or {}).items():
        if a <= line <= b and b > a and (best is None or b - a < best[1] - best[0]):
            best = (a, b)
    return best


def statement_text(result, first: int, last: int) -> str:
    """The source lines ``first``–``last`` of ``result`` (a ``FileResult``), newline-terminated."""
    src = result.source
    return "".join(src.line_text(n) + "\n" for n in range(first, last + 1))
