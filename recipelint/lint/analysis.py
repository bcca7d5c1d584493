"""The pipeline for one file: read → parse → evaluate under each sweep point → launches."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path

from recipelint.bash.continuations import stray_options
from recipelint.bash.parse import parse
from recipelint.bash.source import InputError, SourceFile, read_source
from recipelint.bash.tree import STATEMENT_TYPES, Parsed, ParseProblem
from recipelint.bash.unrunnable import carriage_returns, heredoc_terminators
from recipelint.engines import changes as commands
from recipelint.engines import clients
from recipelint.engines import launches as launches_mod
from recipelint.engines import sites as sites_mod
from recipelint.engines.launches import Launch
from recipelint.evaluate.evaluator import Evaluator
from recipelint.evaluate.library import Library
from recipelint.evaluate.state import Limits, PathResult
from recipelint.evaluate.values import Opaque
from recipelint.sweep.configs import project_root
from recipelint.sweep.points import SweepPoint


@dataclass(slots=True)
class PointResult:
    point: SweepPoint
    paths: list[PathResult]

    @property
    def launches(self) -> list[Launch]:
        out = []
        seen = set()
        for p in self.paths:
            for ev in p.events:
                # paths forked after a launch share it: count it once
                if isinstance(ev, Launch) and id(ev) not in seen:
                    seen.add(id(ev))
                    out.append(ev)
        return out


@dataclass(slots=True)
class FileResult:
    path: Path
    display: str
    source: SourceFile | None = None
    error: str | None = None
    problems: list[ParseProblem] = field(default_factory=list)
    points: list[PointResult] = field(default_factory=list)
    #: statement extents: first line -> last line of the largest statement starting there
    #: (suppression comments above a compound block cover the whole block)
    blocks: dict = field(default_factory=dict)
    #: the file's work budget was spent: (points evaluated, points in all, steps taken) — RL011
    budget_cut: tuple | None = None
    #: whether a sweep point reached a launch (kept when a worker slims the result down)
    has_launch: bool | None = None
    #: where the file's text launches a server, read without evaluating it (engines.sites)
    sites: list = field(default_factory=list)
    #: commands named by an option word: a continued command's lost continuation
    #: (recipelint.bash.continuations)
    strays: list = field(default_factory=list)
    #: a worker's result, without its paths (``lint.check._run_chunk``), or a recipe's cached
    #: findings (``lint.filecache``): not an analysis rules can use
    slim: bool = False
    #: the files the analysis sourced or ran, and the paths it looked for one at and found none
    #: (``evaluate.library.Library.used``/``looked``: the per-file cache checks them)
    used: set = field(default_factory=set)
    looked: set = field(default_factory=set)
    #: whether a master-config entry runs the recipe, for a cached result without points
    run: bool | None = None

    @property
    def launches(self) -> list[Launch]:
        return [lc for pr in self.points for lc in pr.launches]

    @property
    def launched(self) -> bool:
        return self.has_launch if self.has_launch is not None else bool(self.launches)

    @launched.setter
    def launched(self, value: bool) -> None:
        self.has_launch = value


def _ODD_HINT(argv) -> bool:
    """A cheap test before matching an evaluated command against the serve-like words: a word
    naming a module or a program that may serve."""
    return any(w.text is not None and ("serve" in w.text or "launch" in w.text or w.text == "-m") for w in argv)


#: a cheap test for text that may hold a serve command (most files hold none)
#: the nodes whose text may hold a serve command, and the kind of site each is
_SITE_NODES = {"command": "command", "array": "array", "heredoc_body": "heredoc"}


def _site_texts(root, source) -> list[tuple[int, int, str, str]]:
    """(start, end, text, kind) of the commands, arrays, strings assigned to variables and
    here-documents of a file, in order (for ``engines.sites.scan``)."""
    out = []
    stack = [root]
    data = source.data
    functions: set[str] = set()  # (a call of the file's own function is no site: its body is)
    calls: list[tuple[int, str]] = []
    while stack:
        n = stack.pop()
        if n.type == "function_definition":
            nm = n.field("name")
            if nm is not None:
                functions.add(nm.text)
        elif n.type == "command":
            nm = n.field("name")
            if nm is not None:
                calls.append((n.start, nm.text))
        kind = _SITE_NODES.get(n.type)
        if kind is None and n.type == "variable_assignment":
            value = n.children[-1] if n.children else None
            if value is not None and value.type in ("string", "raw_string"):
                kind, n = "string", value
        if kind is not None:
            first_line = data.find(b"\n", n.start, n.end)
            out.append(
                (n.start, first_line if first_line > n.start else n.end, data[n.start : n.end].decode("utf-8", "replace"), kind)
            )
            if kind != "command":
                continue
        stack.extend(reversed(n.children))
    if functions:
        own = {start for start, name in calls if name in functions}
        out = [t for t in out if not (t[3] == "command" and t[0] in own)]
    return out


#: the environment that makes a benchmark client call what it is: the entry (image, model) and
#: the kind of run, not the topology or the concurrency (and the names and counts derived from it)
_CLIENT_SHAPE = ("MODEL", "IMAGE", "PORT", "EVAL_ONLY", "RUN_EVAL", "SCENARIO_TYPE", "SPEC_DECODING", "KV_OFFLOAD_BACKEND")


def _client_shape(point: SweepPoint) -> tuple:
    """Sweep points alike but for the topology and the concurrency: one of them has its
    clients followed."""
    env = point.env
    return (point.config_key, *(_env_key({k: env.get(k)}) for k in _CLIENT_SHAPE))


def _blocks(root, source) -> dict:
    out: dict[int, int] = {}
    stack = [root]
    while stack:
        n = stack.pop()
        if n.type in STATEMENT_TYPES:
            a = source.point(n.start)[0]
            b = source.point(max(n.start, n.end - 1))[0]
            if b > out.get(a, 0):
                out[a] = b
        stack.extend(n.children)
    return out


def _merge_watch(a: dict, b: dict) -> dict:
    out = dict(a)
    for name, prefixes in b.items():
        if name in out and isinstance(out[name], frozenset):
            continue  # (a launcher with subcommands stays one)
        if prefixes is None or (name in out and out[name] is None):
            out[name] = None
        else:
            out[name] = list(out.get(name) or []) + list(prefixes)
    return out


def _env_key(env: dict) -> tuple:
    return tuple(sorted((k, ("?", v.nonempty) if isinstance(v, Opaque) else ("", v)) for k, v in env.items()))


def _rebound(pr: PointResult, point: SweepPoint) -> PointResult:
    """``pr``'s paths for another point with the same environment (events shared by several
    paths stay shared)."""
    new: dict[int, object] = {}

    def bind(ev):
        if id(ev) not in new:
            new[id(ev)] = replace(ev, point=point) if hasattr(ev, "point") else ev
        return new[id(ev)]

    return PointResult(point, [replace(p, events=[bind(e) for e in p.events]) for p in pr.paths])


class Analyzer:
    def __init__(
        self, limits: Limits | None = None, library: Library | None = None, cache_dir=None, roots: list[Path] | None = None
    ):
        """``cache_dir``: where the trees of sourced libraries are kept between runs (None: not kept).
        ``roots``: the folders the run may read (recipes, sourced files; ``recipelint.files.confine``);
        None: each recipe's project root (``sweep.configs.project_root``)."""
        self.limits = limits or Limits()
        self.run_spent = 0  # (the steps of every file this analyzer evaluated: the run's budget)
        self.library = library or Library(cache_dir=cache_dir, roots=roots)
        self.roots = roots
        if self.library.roots is None and self.library.root_of is None:
            self.library.root_of = project_root
        # after the launch, the statements up to the last benchmark client call are followed too
        # — at one sweep point per client shape (``_client_shape``): the client's arguments
        # do not change with the concurrency, and following them costs as much as the launch
        self.launch_watch = _merge_watch(launches_mod.launch_words(), clients.client_words())
        self.watch = _merge_watch(self.launch_watch, commands.change_words())
        self._lean_launch_watch = launches_mod.launch_words()
        self._lean_watch = _merge_watch(self._lean_launch_watch, commands.change_words())

    def load(self, path: Path, display: str) -> tuple[FileResult, Parsed | None]:
        res = FileResult(path, display)
        try:
            res.source = read_source(path, display, roots=self.roots_for(path))
        except InputError as e:
            res.error = str(e)
            return res, None
        if not res.source.data.strip():
            res.error = f"{display}: empty file"
            return res, None
        parsed = parse(res.source)
        if parsed.too_large:
            res.error = f"{display}: {parsed.too_large}: not analysed"
            return res, None
        res.problems = parsed.problems
        # what bash reads otherwise than it looks (RL009, RL010): of the file itself, not of the
        # tree's `eval` strings (``Parsed.problems`` is what makes them unparsed)
        crlf = carriage_returns(parsed.root, res.source)
        ends = heredoc_terminators(parsed.root, res.source)
        if crlf is not None or ends:
            res.problems = sorted([*parsed.problems, *([crlf] if crlf else []), *ends], key=lambda p: p.loc.start)
        if sites_mod.may_hold_sites(res.source.data):
            res.sites = sites_mod.scan(_site_texts(parsed.root, res.source))
        res.strays = stray_options(parsed)
        res.blocks = _blocks(parsed.root, res.source)  # (suppression comments' reach; fixes' statements)
        return res, parsed

    def roots_for(self, path: Path) -> list[Path]:
        """The folders ``path`` (a recipe) must resolve into to be read."""
        if self.roots is not None:
            return list(self.roots)
        return self.library.roots_for(path)

    def set_roots(self, roots: list[Path]) -> None:
        """Confine this analyzer (and its library) to ``roots`` (a run's, ``lint.check``)."""
        self.roots = list(roots)
        self.library.roots = list(roots)
        self.library._resolved.clear()

    def analyze(self, path: Path, display: str, points) -> FileResult:
        """``points``: a list of sweep points, or a function of the file's text that makes them."""
        self.library.used, self.library.looked = set(), set()
        res, parsed = self.load(path, display)
        if parsed is None:
            return res
        try:
            return self._analyze(res, parsed, path, points)
        finally:
            res.used, res.looked = self.library.used, self.library.looked

    def _analyze(self, res: FileResult, parsed: Parsed, path: Path, points) -> FileResult:
        if callable(points):
            points = points(res.source.data.decode("utf-8", "replace"))
        ev = self.evaluator(path)
        lean: Evaluator | None = None
        followed: set = set()
        done: dict = {}
        spent, points = 0, list(points)
        for n, pt in enumerate(points):
            if spent > self.limits.file_steps:  # (the file's work budget: the rest is said, not judged)
                res.budget_cut = (n, len(points), spent)
                break
            if self.run_spent + spent > self.limits.run_steps:  # (the run's, in this process)
                res.budget_cut = (n, len(points), spent, "run")
                break
            # two sweep points with the same environment (one job on two clusters) evaluate the
            # same: the second takes the first's paths, its events bound to the second point
            key = _env_key(pt.env)
            same = done.get(key)
            if same is not None:
                res.points.append(_rebound(same, pt))
                continue
            shape = _client_shape(pt)
            if shape in followed:  # the clients were followed at a point of this shape
                if lean is None:
                    lean = self.evaluator(path, follow_clients=False)
                    lean.share(ev)  # (what the first evaluator recorded before asking what may launch)
                pr = done[key] = self.evaluate(parsed, path, pt, lean)
                spent += lean.steps
            else:
                followed.add(shape)
                pr = done[key] = self.evaluate(parsed, path, pt, ev)
                spent += ev.steps
            res.points.append(pr)
        self.run_spent += spent
        return res

    def evaluator(self, path: Path, follow_clients: bool = True) -> Evaluator:
        """One evaluator per file: its caches (keyed by tree nodes) serve every sweep point.
        ``follow_clients``: after the launch, also run the statements up to the last benchmark
        client call (else the path ends once nothing ahead can launch)."""
        holder: dict = {}

        def on_command(state, cmd):
            lc = launches_mod.detect(list(cmd.argv), dict(cmd.prefix_env), lambda: launches_mod.exported_env(state), cmd.loc)
            if lc is not None:
                lc.cond = state.cond
                lc.point = holder.get("point")
                lc.files = dict(state.files)
                return lc
            client = clients.detect(list(cmd.argv), cmd.loc, state.calls)
            if client is not None:
                client.point = holder.get("point")
                return client
            change = commands.classify(list(cmd.argv), cmd.loc, cmd.stdin)
            if change is not None:
                change.point = holder.get("point")
                return change
            one = sites_mod.word_launch(cmd.argv) if cmd.argv and (cmd.argv[0].text is None or " " in cmd.argv[0].text) else None
            if one is not None:
                return sites_mod.WordLaunch(one, cmd.loc, holder.get("point"))
            odd = sites_mod.unknown_serve(cmd.argv) if _ODD_HINT(cmd.argv) else None
            if odd is not None:
                return sites_mod.UnknownServe(odd[0], cmd.loc, holder.get("point"), odd[1])
            return None

        def unwrap(argv):
            found = launches_mod.strip_launchers(list(argv))
            return found[0] if found is not None and found[1] else None

        def rebind(event):
            return replace(event, point=holder.get("point"))

        ev = Evaluator(
            path.resolve(),
            on_command,
            self.limits,
            self.library,
            self.watch if follow_clients else self._lean_watch,
            unwrap,
            self.launch_watch if follow_clients else self._lean_launch_watch,
            lambda e: isinstance(e, launches_mod.Launch),
            rebind,
            clients.opaque_functions(),
        )
        ev._point_holder = holder
        return ev

    def evaluate(self, parsed: Parsed, path: Path, point: SweepPoint, ev: Evaluator | None = None) -> PointResult:
        ev = ev or self.evaluator(path)
        ev._point_holder["point"] = point
        paths = ev.run(parsed, point.env)
        for i, p in enumerate(paths):
            for e in p.events:
                if isinstance(e, Launch):
                    e.path_index = i
        return PointResult(point, paths)
