"""``recipelint check``: files → analysis → rules → grouped, filtered, suppressed findings."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

from recipelint.cache.results import skipped_dir  # (one test for the walk and the cache key)
from recipelint.files import has_no_suffix, overlay_of, shell_script_by_shebang
from recipelint.lint.findings import Finding, Related, group, merge_defects
from recipelint.lint.scope import SIBLING, Only, back_rel
from recipelint.lint.scope import rel_to as _rel_to
from recipelint.lint.settings import Settings

if TYPE_CHECKING:  # the analysis stack is imported when a run needs it (not on a cache hit)
    from recipelint.lint.analysis import Analyzer, FileResult
    from recipelint.lint.suppress import FileSuppressions
    from recipelint.lint.workspace import Kept


class UsageError(Exception):
    """A problem with the command line or configuration (exit status 2)."""


@dataclass(slots=True)
class LintResult:
    findings: list[Finding] = field(default_factory=list)
    #: every finding of the tree before --diff-base / --baseline kept only the new ones (SARIF for
    #: code scanning, which compares alerts itself, wants these); the same list when neither is given
    all_findings: list[Finding] = field(default_factory=list)
    files: list[FileResult] = field(default_factory=list)
    suppressed: int = 0
    #: findings not reported because a comment documents the choice (``--show-documented``)
    documented: int = 0
    #: recipes (as displayed) that launch a server but no master-config entry runs, in a
    #: repository that has master configs: checked by the sweep-independent rules only
    unrun: list[str] = field(default_factory=list)
    configs: object = None
    file_count: int = 0  # files checked (also for a result from the cache, which has no `files`)
    cached: bool = False
    #: --diff-base: the base's findings the working tree no longer has
    fixed: list[Finding] = field(default_factory=list)
    #: --baseline: the baseline's entries that no longer occur
    stale_baseline: list[Finding] = field(default_factory=list)
    #: --diff-base: the merge-base commit compared with
    base_commit: str | None = None
    #: --diff-base: what the change can affect (``lint.scope.Scope``), and the line that says how
    #: much was analysed and why
    scope: object = None
    scope_note: str = ""
    #: YAML files named on the command line that are neither master configs nor dispatch workflows
    skipped: list[Path] = field(default_factory=list)
    #: the engine pins of the repository that disagree (none of them is used), one line each
    pin_notes: list[str] = field(default_factory=list)
    #: the recipes checked (also for a result from the cache)
    checked: list[Path] = field(default_factory=list)
    #: --diff-base: the base run's analyses (for what the change does to the launches: ``lint.changes``)
    base_files: list[FileResult] = field(default_factory=list)


@dataclass(slots=True)
class Options:
    select: list[str] | None = None
    ignore: list[str] | None = None
    use_suppressions: bool = True
    config_paths: list[Path] | None = None
    use_configs: bool = True
    force_exclude: bool = False
    diff_base: str | None = None
    baseline: Path | None = None  # findings in this baseline file are not reported
    settings: Settings = field(default_factory=Settings)
    points_for: object = None  # (display, text) -> points; overrides configs (tests)
    jobs: int = 0  # worker processes for analysis (0: one per CPU; 1: none)
    cache: bool = False  # reuse the findings of an identical earlier run (recipelint.cache.results)
    #: progress(files done, files in all), called after each file (after each chunk of files with
    #: workers); the caller renders it (recipelint.report.progress); diff mode's two runs add
    #: which tree they count (a third argument)
    progress: Callable[..., None] | None = None
    #: report findings whose choice a comment documents (as info); else they are counted only
    show_documented: bool = False
    #: folders besides the project roots whose files the run may read (``--search-root``)
    search_roots: list[Path] = field(default_factory=list)
    #: diff mode: analyse only what the change can affect (``lint.scope``); False: both whole trees
    scoped: bool = True
    #: analyse only these recipes (paths relative to the tree top ``only[0]``) and report only
    #: these master-config entries ((config path relative to the top, key)): a diff's scope
    only: Only | None = None
    #: a diff's base run: the work tree's analyses of recipes that are alike in both trees (same
    #: text, sourced files and sweep points), by path relative to ``only.root``: not analysed again
    reuse: dict[str, FileResult] | None = None
    #: master config sets a diff's scope loaded (``_configs_key`` → ``ConfigSet``): not loaded again
    preloaded: dict | None = None
    #: the tree the ``reuse`` analyses were made in (they keep its paths; the findings made from
    #: them are matched as this tree's: ``_new_since_base``)
    reuse_top: Path | None = None
    #: what a kept workspace remembers between runs (``lint.workspace.Kept``): the master configs
    #: loaded (``configs(key, load)``) and the analyses of the siblings rules compare with
    #: (``analysis(path, key, analyse)``), each until a file it read changes
    kept: Kept | None = None


def run_roots(paths: list[Path], search_roots: list[Path] | None = None) -> list[Path]:
    """The folders a run over ``paths`` may read files in (``recipelint.files.confine``): the
    project root of each path named (``sweep.configs.project_root``), then the search roots
    given on the command line, resolved."""
    from recipelint.sweep.configs import project_root

    out: list[Path] = []
    for p in list(paths or [Path(".")]):
        r = project_root(p)
        if r not in out:
            out.append(r)
    for r in search_roots or []:
        q = Path(os.path.realpath(r))
        if q not in out:
            out.append(q)
    return out


def confined_configs(configs: list[Path], roots: list[Path], where: str = "") -> None:
    """A ``UsageError`` for a master config the settings name outside the roots (or a system or
    special file): the settings file is part of the checked repository, so what it names is
    confined like a sourced file."""
    from recipelint.files import Refused, confine

    for p in configs:
        try:
            confine(p, roots)
        except Refused as r:
            raise UsageError(f"{where}{r.reason}: not read") from None


#: the files a directory walk takes for recipes (and files with no suffix whose first line runs
#: bash or sh: ``walked_recipe``)
RECIPE_SUFFIXES = (".sh", ".bash", ".slurm", ".sbatch")


def walked_recipe(name: str, path: Path | str) -> bool:
    """Whether a directory walk takes this file for a recipe: a name ending in a recipe suffix,
    or a name with no suffix (``serve``, ``run_server``) whose ``#!`` line runs bash or sh —
    as shfmt finds shell files (a file named `Dockerfile` or `LICENSE` is not one)."""
    if name.endswith(RECIPE_SUFFIXES):
        return True
    # (a link is not sniffed: reading where it leads is for the analysis, confined)
    return has_no_suffix(name) and not os.path.islink(path) and shell_script_by_shebang(path)


def collect(
    paths: list[Path], settings: Settings | None = None, force_exclude: bool = False, resolved: dict[str, str] | None = None
) -> list[tuple[Path, str]]:
    """(path, display) of every recipe: directories are walked for ``*.sh``, ``*.bash``, Slurm job
    files (``*.slurm``, ``*.sbatch``: bash scripts that launch servers as often as recipes do) and
    files with no suffix whose first line runs bash or sh (``walked_recipe``), skipping
    excluded paths; files named on the command line are taken as they are, unless ``force_exclude``.
    ``resolved``, when given, receives each recipe's path with its links resolved (path → real
    path: the cache key reuses them)."""
    settings = settings or Settings()
    out: list[tuple[Path, str]] = []
    seen: set[str] = set()
    for p in paths:
        if not p.exists() and not p.is_symlink() and overlay_of(p) is None:  # (a buffer not saved yet: its text is given)
            raise UsageError(f"{p}: no such file or directory")
        if p.is_dir():
            for root, dirs, files in os.walk(p, followlinks=False):
                rootp = Path(root)
                dirs[:] = sorted(d for d in dirs if not skipped_dir(root, d) and not settings.excluded(rootp / d))
                for name in sorted(files):
                    fp = rootp / name
                    # a dangling or looping link found in a walk is not a recipe: skipped
                    if walked_recipe(name, fp) and (key := _key(fp)) is not None and not settings.excluded(fp):
                        _add(out, seen, fp, key, resolved)
        else:
            _named_file(p)
            key = _key(p)
            if key is None:
                raise UsageError(f"{p}: symbolic link loop")
            if force_exclude and settings.excluded(p):
                continue
            _add(out, seen, p, key, resolved)
    return out


def _named_file(p: Path) -> None:
    """A ``UsageError`` for a file named on the command line that recipelint does not read: a
    system file (``/dev/zero``, a piped ``/dev/stdin``), a FIFO, a device or a socket; checked
    without opening it."""
    import stat

    from recipelint.files import SYSTEM_TREES, Refused, confine

    try:
        confine(p, ["/"])
    except Refused as r:
        if r.kind == "system":
            tree = next((t for t in SYSTEM_TREES if r.reason.endswith(f"under {t} (recipelint does not read system files)")), "")
            raise UsageError(
                f"{p}: a system file{f' (under {tree})' if tree else ''}: recipelint reads only regular files"
            ) from None
    try:
        mode = os.stat(p).st_mode
    except OSError:
        return  # (missing, a dangling link, a loop: said below)
    if not stat.S_ISREG(mode):
        what = (
            "a FIFO"
            if stat.S_ISFIFO(mode)
            else "a device"
            if stat.S_ISCHR(mode) or stat.S_ISBLK(mode)
            else "a socket"
            if stat.S_ISSOCK(mode)
            else "not a regular file"
        )
        raise UsageError(f"{p}: {what}: recipelint reads only regular files")


def _key(p: Path) -> str | None:
    """The resolved path that tells one file from another, or None for a dangling or looping
    symbolic link (one resolution per file: ~10 ms a thousand)."""
    try:
        return str(p.resolve(strict=True))
    except FileNotFoundError:
        if p.is_symlink():
            return None
        try:  # a missing plain file is reported when read
            return str(p.resolve())
        except (OSError, RuntimeError):
            return str(p)
    except (OSError, RuntimeError):
        return None


def _add(out, seen, fp: Path, key: str, resolved: dict[str, str] | None = None) -> None:
    if key in seen:
        return
    seen.add(key)
    if resolved is not None:
        resolved[str(fp)] = key
    out.append((fp, display_path(fp)))


def display_path(fp: Path) -> str:
    try:
        rel = os.path.relpath(fp)
    except ValueError:
        return str(fp)
    return rel if not rel.startswith("..") else str(fp)


def _is_master_config(p: Path) -> bool:
    return p.suffix in (".yaml", ".yml") and p.name.endswith(("-master.yaml", "-master.yml"))


def _is_yaml(p: Path) -> bool:
    return p.suffix in (".yaml", ".yml") and not p.is_dir()


def _is_dispatch_workflow(p: Path) -> bool:
    """Whether ``p`` is a dispatch workflow (``rules/data/inferencex.yaml``) of the benchmark
    repository above it."""
    from recipelint.sweep.configs import find_root, workflow_files

    root = find_root(p)
    return root is not None and any(_same(p, w) for w in workflow_files(root))


def lint(
    paths: list[Path],
    select: list[str] | None = None,
    ignore: list[str] | None = None,
    analyzer: Analyzer | None = None,
    use_suppressions: bool = True,
    points_for=None,
    config_paths: list[Path] | None = None,
    use_configs: bool = True,
    options: Options | None = None,
) -> LintResult:
    """Lint recipes.  Sweep points come from the master configs found above the first path
    (or ``config_paths``); recipes no config reaches use the default matrix.  Master configs
    given as paths are read, and the recipes they run are linted."""
    from recipelint.sweep import configs

    opt = options or Options(select, ignore, use_suppressions, config_paths, use_configs, points_for=points_for)
    if opt.baseline is not None:
        from recipelint.lint import baseline

        entries = baseline.load(opt.baseline)  # (a bad file is reported before any work is done)
        result = lint(paths, analyzer=analyzer, options=replace(opt, baseline=None))
        kept = result.all_findings
        result.findings, stale = baseline.apply(result.findings, opt.baseline, entries)
        result.stale_baseline = [] if opt.diff_base else stale  # (with a diff, most entries are simply not new)
        result.all_findings = kept
        return result
    if opt.diff_base:
        from recipelint.cache.store import cache_dir
        from recipelint.gitdiff import base_tree

        # the base first: a revision that is not there is reported before any work is done
        bt = base_tree(opt.diff_base, (paths or [Path(".")])[0], cache_dir() if opt.cache else None)
        try:
            sc = diff_scope(paths, opt, bt) if opt.scoped else None
            head_opt = replace(
                opt,
                diff_base=None,
                only=_only(sc, bt.top),
                preloaded=sc.configs if sc is not None else None,
                progress=_labelled(opt.progress, "work tree"),
            )
            result = lint(paths, analyzer=analyzer, options=head_opt)
            result.findings, result.fixed = _new_since_base(result.findings, paths, opt, bt, sc, result.files, result.base_files)
            result.base_commit = bt.commit
            if sc is not None:
                result.scope = sc
                analysed = sorted(r for p in result.checked if (r := _rel_to(p, bt.top)) is not None)
                result.scope_note = sc.summary(analysed)
        finally:
            bt.cleanup()
        return result
    st = opt.settings
    sel = list(opt.select if opt.select else st.select) + list(st.extend_select)
    ign = list(opt.ignore or []) + list(st.ignore)
    result = LintResult()

    # YAML named on the command line: master configs and dispatch workflows are read, and the
    # recipes they run are linted; other YAML (a workflow a pre-commit hook passes) is not a recipe
    recipe_paths = [p for p in paths if not _is_yaml(p)]
    master_paths = [p for p in paths if _is_master_config(p)]
    workflow_paths = [p for p in paths if _is_yaml(p) and not _is_master_config(p) and _is_dispatch_workflow(p)]
    result.skipped = [p for p in paths if _is_yaml(p) and not _is_master_config(p) and p not in workflow_paths]
    yaml_paths = master_paths + workflow_paths
    config_list = _named_configs(paths, opt.config_paths, st)
    roots = run_roots(paths, opt.search_roots)
    if config_list and not (opt.config_paths or master_paths):  # (the settings named them)
        confined_configs(config_list, roots, f"{st.path}: `configs`: ")
    for p in config_list:
        if not p.is_file():
            raise UsageError(f"{p}: config file not found")
    resolved: dict[str, str] = {}
    files = collect(recipe_paths, st, opt.force_exclude, resolved) if recipe_paths else []
    if opt.only is not None:
        files = _in_scope(files, opt.only, resolved)
    result.checked = [p for p, _ in files]
    cache_key = None
    from recipelint.engines import facts

    cache_at = None
    if opt.cache:
        from recipelint.cache.store import cache_dir

        cache_at = cache_dir()  # (None: no place for a cache, nothing cached)
    facts.cache_in(cache_at)
    pins = engine_pins(paths, roots)  # (after cache_in: the facts it reads come from their cached parse)
    result.pin_notes = [m for m in pins.messages() if "disagree" in m]
    declared = _Declared(st, pins)
    if opt.cache and opt.points_for is None:
        from recipelint.cache import results as cache

        cache_key = cache.key(
            list(paths),
            [p for p, _ in files] + list(config_list),
            repr(
                (
                    sel,
                    ign,
                    opt.use_suppressions,
                    opt.use_configs,
                    opt.force_exclude,
                    st,
                    pins.key(),
                    opt.only.key() if opt.only is not None else None,
                )
            ),
            resolved,
        )
        hit = cache.load(cache_key) if cache_key else None
        if hit is not None:
            result.findings, result.file_count, result.suppressed, result.cached = hit.findings, hit.n_files, hit.suppressed, True
            result.unrun = list(hit.unrun)
            result.findings, result.documented = _documented(result.findings, opt.show_documented)
            result.all_findings = list(result.findings)
            return result

    from recipelint.lint.analysis import Analyzer
    from recipelint.lint.registry import selected
    from recipelint.lint.rulebase import FileContext, Project
    from recipelint.sweep.points import unconfigured_points

    rules = [r() for r in selected(sel or None, ign)]
    independent = [r for r in rules if r.sweep_independent]
    if analyzer is None:
        analyzer = Analyzer(cache_dir=cache_at, roots=roots)
    elif analyzer.roots is None:
        analyzer.set_roots(roots)
    cs = configs.ConfigSet(None)
    if opt.use_configs and opt.points_for is None:
        root = configs.find_root((recipe_paths or yaml_paths or [Path(".")])[0])
        if config_list or root is not None:
            # only recipe files (a pre-commit hook's changed recipes): entries that cannot run
            # them are not parsed; a directory or a master config given means every entry
            only = [p for p, _ in files] if files and not yaml_paths and all(p.is_file() for p in recipe_paths) else None
            if opt.only is not None and not opt.only.configs_changed:
                only = [
                    p for p, _ in files
                ]  # (a diff's scope in which no config changed: entries of other recipes alike in both trees)
            load_key = _configs_key(root, config_list, roots, cache_at)
            if only is None and opt.preloaded is not None and load_key in opt.preloaded:
                cs = opt.preloaded[load_key]  # (a diff's scope compared the same configs: loaded once)
            elif opt.kept is not None:  # (a kept workspace: loaded again only when what it read changed)
                sparse = tuple(str(p) for p in only) if only is not None else None
                cs = opt.kept.configs(
                    (load_key, sparse), lambda: configs.load(root, config_list or None, cache_at, recipes=only, roots=roots)
                )
            else:
                cs = configs.load(root, config_list or None, cache_at, recipes=only, roots=roots)
        if yaml_paths:
            # a changed master config: lint the recipes it runs
            have = {str(p.resolve()) for p, _ in files}
            for e in cs.entries:
                if any(_same(e.path, y) for y in yaml_paths):
                    for s in e.scripts:
                        sp = cs.root / s
                        if str(sp.resolve()) not in have and not (opt.force_exclude and st.excluded(sp)):
                            if opt.only is not None and _rel_to(sp, opt.only.root) not in opt.only.recipes:
                                continue
                            have.add(str(sp.resolve()))
                            files.append((sp, display_path(sp)))
    result.configs = cs
    result.checked = [p for p, _ in files]

    def points(path: Path, display: str):
        pts = cs.points_for(path) if opt.points_for is None else None
        if pts:
            return declared.apply(pts, path, copy=True)
        if opt.points_for is not None:
            return lambda text: declared.apply(opt.points_for(display, text), path)
        found, defaults = bool(getattr(cs, "found", False)), st.environment_for(path)
        return lambda text: declared.apply(unconfigured_points(display, text, st.profile, found, defaults), path)

    def analyze_file(path: Path, display: str) -> FileResult:
        if opt.reuse:
            same = opt.reuse.get(_rel_to(path, opt.only.root) if opt.only is not None else "")
            if same is not None:  # (its siblings are looked up in this tree: ``home``)
                return same
        return analyzer.analyze(path, display, points(path, display))

    home = None
    if opt.reuse and opt.reuse_top is not None and opt.only is not None:
        # a result taken from the work tree keeps its paths; its siblings are this tree's
        homes = {id(res): opt.only.root / rel for rel, res in opt.reuse.items()}

        def home(res: FileResult) -> Path:
            return homes.get(id(res), res.path)

    def analyze_other(path: Path) -> FileResult:
        if opt.kept is not None:  # (a sibling of the recipe checked: analysed again only when what it read changed)
            return opt.kept.analysis(path, (id(cs), pins.key()), lambda: analyze_file(path, display_path(path)))
        return analyze_file(path, display_path(path))

    fc = _file_cache(opt, st, sel, ign, pins, cs, roots) if cache_at is not None else None

    def key_points(p: Path):
        """A recipe's sweep points, as its analysis gets them (for the per-file cache's key)."""
        pts = points(p, display_path(p))
        if callable(pts):
            from recipelint.files import Refused, confine, read_regular

            try:  # (read as the analysis reads it: inside the run's roots)
                pts = pts(read_regular(confine(p, analyzer.roots_for(p)), 16 << 20).decode("utf-8", "replace"))
            except Refused:
                pts = []
        return pts

    tree: dict = {}  # (read once a run: ``Project.tree``)

    def check_files(chunk, progress=None) -> tuple[list[Finding], list[FileResult]]:
        results = []
        keys: dict[int, tuple] = {}
        hits: dict[int, list[Finding]] = {}
        for path, display in chunk:
            k = fc.key(path, key_points) if fc is not None else None
            hit = fc.load(k[0]) if k is not None and fc is not None else None
            if hit is not None:
                hits[len(results)] = hit.findings
                results.append(_cached_result(analyzer, path, display, hit))
            else:
                if k is not None:
                    keys[len(results)] = k
                results.append(analyze_file(path, display))
            if progress is not None:
                progress(len(results), len(chunk))
        project = Project(results, cs, analyze_other, home=home, roots=roots, tree=tree)
        found = []
        for i, res in enumerate(results):
            if i in hits:
                found.extend(hits[i])
                continue
            # a recipe no master-config entry runs: its points are invented, only checks that
            # hold whatever the point apply
            mine: list[Finding] = []
            run = project.is_run(res)
            for rule in rules if run else independent:
                mine.extend(rule.check(FileContext(res, project, rule)))
            found.extend(mine)
            # (a recipe cut by the run's budget is not kept: alone, or in another run, it is not cut)
            run_cut = res.budget_cut is not None and len(res.budget_cut) > 3
            if i in keys and fc is not None and not res.error and not run_cut:
                key, words = keys[i]
                used = [r for m in words if (r := project.by_path.get((fc.root / m).resolve())) is not None]
                fc.store(key, words, used, mine, bool(res.launches), run)
        return found, results

    raw: list[Finding] = []
    jobs = _jobs(opt.jobs, len(files))
    if jobs > 1:
        found, result.files = _parallel(check_files, files, jobs, Project([], cs).family_key, opt.progress, analyzer.library)
    else:
        found, result.files = check_files(files, opt.progress)
    if fc is not None:
        fc.close(others_wrote=jobs > 1)
    project = Project(result.files, cs, analyze_other, _entry_scope(paths, cs, opt.only), home=home, roots=roots, tree=tree)
    result.unrun = [display_path(res.path) for res in result.files if not project.is_run(res) and res.launched]
    for rule in rules:
        raw.extend(rule.check_project(project))
    raw.extend(found)
    grouped = group([_display(f) for f in raw])
    grouped = _overrides(grouped, st)
    grouped = merge_defects(grouped)  # (one finding per defect; a suppression of any of its rules there suppresses it)
    if opt.use_suppressions:
        grouped, result.suppressed, unused = _suppress(grouped, result.files)
        active = {r.code for r in rules}
        unrun = {display_path(res.path) for res in result.files if not project.is_run(res)}
        only = {r.code for r in independent}
        unused_found = _unused_findings([u for u in unused if u[0] not in unrun], active)
        unused_found += _unused_findings([u for u in unused if u[0] in unrun], only)
        grouped = sorted(grouped + unused_found, key=Finding.sort_key)
    result.file_count = len(result.files)
    if cache_key:
        lib = analyzer.library  # (what the analysis read beyond the key's files: checked when the entry is loaded)
        cache.store(cache_key, grouped, result.file_count, result.suppressed, result.unrun, lib.read_files, lib.absent)
    result.findings, result.documented = _documented(grouped, opt.show_documented)
    result.all_findings = list(result.findings)
    return result


def _file_cache(opt: Options, st: Settings, sel, ign, pins, cs, roots: list[Path]):
    """The per-file cache of a run (``lint.filecache``), or None where it does not apply: a run
    with points given by the caller, with search roots (files its key does not cover), or with a
    diff's reuse of analyses."""
    from recipelint.lint.filecache import open_cache

    if opt.points_for is not None or opt.search_roots or opt.reuse or not roots:
        return None
    root = roots[0]
    rel_settings = None
    if st.path is not None:
        try:
            rel_settings = Path(os.path.relpath(st.path, root))
        except ValueError:
            return None
    from recipelint.engines import facts

    run_key = repr(
        (
            sorted(sel or []),
            sorted(ign or []),
            opt.use_configs,
            opt.force_exclude,
            replace(st, path=rel_settings),
            pins.key(),
            bool(getattr(cs, "found", False)),
            _rel_to(cs.root, root) if getattr(cs, "root", None) is not None else None,
        )
    )
    return open_cache(root, run_key, facts.load("parity")["hardware_groups"], getattr(cs, "root", None))


def _cached_result(analyzer, path: Path, display: str, hit) -> FileResult:
    """A recipe answered from the per-file cache: its text (for suppression comments, and their
    statements' extents when it has some), whether it launches and whether an entry runs it."""
    from recipelint.bash.source import InputError, read_source
    from recipelint.lint.analysis import FileResult

    res = FileResult(path, display, slim=True, run=hit.run, has_launch=hit.launched)
    try:
        res.source = read_source(path, display, roots=analyzer.roots_for(path))
    except InputError as e:
        res.error = str(e)
        return res
    if b"recipelint" in res.source.data:
        loaded, _ = analyzer.load(path, display)
        res.blocks = loaded.blocks
    return res


def engine_pins(paths: list[Path], roots: list[Path]):
    """The engine pins of the repository (``recipelint.engines.pins.scan``) in the folders of
    ``paths`` and their parents up to the project root (never a walk of the tree)."""
    from recipelint.bash.source import safe_resolve
    from recipelint.engines.pins import scan
    from recipelint.sweep.configs import project_root

    first = (paths or [Path(".")])[0]
    try:
        root = project_root(first)
        dirs: list[Path] = []
        for p in paths or [Path(".")]:
            here = safe_resolve(p if p.is_dir() and not p.is_symlink() else p.parent)
            for d in [here, *here.parents]:
                if d != root and root not in d.parents:
                    break  # (outside the project: not looked in)
                if d not in dirs:
                    dirs.append(d)
                if d == root:
                    break
        if root not in dirs:
            dirs.append(root)
    except (OSError, RuntimeError, ValueError):
        from recipelint.engines.pins import Scan

        return Scan()
    return scan(dirs, root, roots)


class _Declared:
    """The engine versions the settings declare and the repository pins, put on the sweep points
    without an image (``SweepPoint.extra``, read by ``recipelint.engines.versions.of_point``):
    the settings win over the pins, an image over both."""

    def __init__(self, st: Settings, pins):
        self.st = st
        from recipelint.engines.catalog import ENGINE_NAMES
        from recipelint.engines.versions import resolve

        self.pinned = pins.chosen()
        for engine, ps in pins.ambiguous().items():  # (said in the findings that judge every release)
            listed = ", ".join(f"{p.where} `{p.text}`" for p in ps[:4]) + (" …" if len(ps) > 4 else "")
            note = f"the repository's {ENGINE_NAMES.get(engine, engine)} pins disagree, so none is used: {listed}"
            self.pinned[engine] = replace(resolve(engine, None), note=note)
        self._by: dict = {}

    def of(self, path: Path) -> dict:
        from recipelint.engines.versions import of_version

        given = self.st.engine_versions_for(path) if (self.st.engine_versions or self.st.environments) else {}
        key = tuple(sorted(given.items()))
        hit = self._by.get(key)
        if hit is None:
            hit = dict(self.pinned)
            for engine, (version, source) in given.items():
                hit[engine] = of_version(engine, version, source)
            self._by[key] = hit
        return hit

    def apply(self, pts, path: Path, copy: bool = False):
        from recipelint.engines.versions import DECLARED

        if not self.pinned and not self.st.engine_versions and not self.st.environments:
            return pts
        versions = self.of(path)
        if not versions:
            return pts
        out = []
        for p in pts:
            image = p.env.get("IMAGE")
            if isinstance(image, str) and image:
                out.append(p)
            elif copy:
                out.append(replace(p, extra={**p.extra, DECLARED: versions}))
            else:
                p.extra[DECLARED] = versions
                out.append(p)
        return out


def _documented(findings: list[Finding], show: bool) -> tuple[list[Finding], int]:
    """(the findings reported, how many are not because a comment documents their choice):
    documented ones are dropped, or with ``show`` reported as info naming the comment."""
    out, n = [], 0
    for f in findings:
        if not f.documented:
            out.append(f)
        elif show:
            note = f.documented.replace("`", "'")
            note = note if len(note) <= 120 else note[:117] + "..."
            out.append(replace(f, severity="info", message=f"{f.message} (documented: `{note}`)"))
        else:
            n += 1
    return out, n


def _in_scope(files: list[tuple[Path, str]], only: Only, resolved: dict[str, str]) -> list[tuple[Path, str]]:
    """The files of a diff's scope: named there by their path (a link by its own path: it is what
    changed) or by where they resolve; and every file that is not a regular file or a link (a
    FIFO, a device: git holds no such file, so the base never has it)."""
    import stat

    top = os.path.realpath(only.root)
    out = []
    for p, d in files:
        own = os.path.abspath(p)  # (its folder resolved, not the file: a link is its own path)
        names = [
            os.path.join(os.path.realpath(os.path.dirname(own)), os.path.basename(own)),
            resolved.get(str(p)) or os.path.realpath(p),
        ]
        rels = []
        for name in names:
            try:
                rels.append(Path(name).relative_to(top).as_posix())
            except ValueError:
                continue
        if any(r in only.recipes for r in rels):
            out.append((p, d))
            continue
        try:
            mode = os.lstat(p).st_mode
        except OSError:
            continue
        if not stat.S_ISREG(mode) and not stat.S_ISLNK(mode) and not stat.S_ISDIR(mode):
            out.append((p, d))
    return out


def _only(sc, top: Path) -> Only | None:
    if sc is None or sc.whole:
        return None
    return Only(top, frozenset(sc.head), frozenset(sc.entries), sc.configs_compared)


def _named_configs(paths: list[Path], config_paths: list[Path] | None, st: Settings) -> list[Path]:
    """The master configs a run reads by name: ``--master-config``, those among the paths, else
    the settings' ``configs`` (none: the ones found above the first path)."""
    named = list(config_paths or []) + [p for p in paths if _is_master_config(p)]
    if not named and st.configs:
        named = [st.base / c for c in st.configs]
    return named


def _tree_configs(paths: list[Path], opt: Options, tree: Path, bt, loaded: dict | None = None):
    """The ``ConfigSet`` a run over ``paths`` loads in ``tree`` (the work tree's top or the base's
    export), as ``lint`` loads it (without restricting it to some recipes)."""
    from recipelint.cache.store import cache_dir
    from recipelint.sweep import configs

    if not opt.use_configs or opt.points_for is not None:
        return None
    st = opt.settings
    at_base = tree != bt.top
    move = (lambda p: bt.map(p)) if at_base else (lambda p: p)
    config_list = [q for p in _named_configs(paths, opt.config_paths, st) if (q := move(p)) is not None and q.is_file()]
    recipe_paths = [q for p in paths if not _is_yaml(p) and (q := move(p)) is not None]
    anchor = (recipe_paths or [tree])[0]
    root = configs.find_root(anchor)
    if not config_list and root is None:
        return None
    roots = run_roots(paths, opt.search_roots) + ([bt.dir] if at_base else [])
    cache_at = cache_dir() if opt.cache else None
    cs = configs.load(root, config_list or None, cache_at, roots=roots)
    if loaded is not None:
        loaded[_configs_key(root, config_list, roots, cache_at)] = cs
    return cs


def _configs_key(root, config_list, roots, cache_at) -> tuple:
    """What a ``configs.load`` of a whole config set depends on (``Options.preloaded``)."""
    return (str(root), tuple(str(c) for c in config_list or ()), tuple(str(r) for r in roots), str(cache_at))


def diff_scope(paths: list[Path], opt: Options, bt):
    """What the change from the base ``bt`` to the work tree can affect (``lint.scope``)."""
    from recipelint.gitdiff import changed_paths
    from recipelint.lint import scope
    from recipelint.sweep import configs

    changed = changed_paths(bt.commit, bt.top)
    loaded: dict = {}
    anchor = next((p for p in paths if not _is_yaml(p)), paths[0] if paths else Path("."))
    sc = scope.compute(
        bt.top,
        bt.dir,
        changed,
        bt.renamed,
        lambda tree: _tree_configs(paths, opt, tree, bt, loaded),
        configs.find_root(anchor),
    )
    sc.configs = loaded
    return sc


def _labelled(progress, what: str):
    """A progress callback that says which tree it counts (diff mode runs two)."""
    if progress is None:
        return None
    return lambda done, total: progress(done, total, what)


def _new_since_base(grouped: list[Finding], paths: list[Path], opt: Options, bt, sc=None, head=None, out=None):
    """``--diff-base``: lint the merge base's tree the same way (same settings, the same paths and
    configs mapped into it) and keep the findings it does not have."""
    from recipelint.lint.fingerprint import rel_path, subtract

    st = opt.settings
    mapped_settings = bt.map(st.path) if st.path is not None else None
    base_paths = [q for p in paths if (q := bt.map(p)) is not None and (q.exists() or q.is_symlink())]
    named = list(opt.config_paths or [])
    base_configs = [q for p in named if (q := bt.map(p)) is not None and q.is_file()]
    if named and not base_configs:
        base_paths = []  # (the configs named are new: everything they run is new)
    base_opt = replace(
        opt,
        diff_base=None,
        only=None if sc is None or sc.whole else Only(bt.dir, frozenset(sc.base), frozenset(sc.entries), sc.configs_compared),
        preloaded=sc.configs if sc is not None else None,
        config_paths=base_configs or None,
        settings=replace(st, path=mapped_settings) if mapped_settings is not None else st,
        # (the export of the base is laid out like the work tree's top: read it as the work tree is read)
        search_roots=[*opt.search_roots, bt.dir],
        progress=_labelled(opt.progress, f"base tree, {bt.commit[:12]}" if getattr(bt, "commit", None) else "base tree"),
    )
    if sc is not None and not sc.whole and head is not None:
        alike = {back_rel(r, bt.renamed) for r, why in sc.reason.items() if why == SIBLING}
        base_opt = replace(
            base_opt,
            reuse_top=bt.top,
            reuse={
                back_rel(rel, bt.renamed): res
                for res in head
                if not res.slim and (rel := _rel_to(res.path, bt.top)) is not None and back_rel(rel, bt.renamed) in alike
            },
        )
    base_result = lint(base_paths, options=base_opt) if base_paths else None
    base = base_result.findings if base_result is not None else []
    if out is not None and base_result is not None:
        out.extend(base_result.files)
    renamed = bt.renamed

    def head_rel(path: str) -> str:
        return rel_path(path, bt.top)

    base_dir, top = str(bt.dir) + os.sep, str(bt.top) + os.sep

    def base_rel(path: str) -> str:
        full = os.path.abspath(path)
        if full.startswith(top) and not full.startswith(base_dir):
            return rel_path(path, bt.top)  # (a finding on the work tree's analysis of a file alike in both: ``reuse``)
        rel = rel_path(path, bt.dir)
        return renamed.get(rel, rel)

    return subtract(grouped, base, head_rel, base_rel)


def _entry_scope(paths: list[Path], cs, only: Only | None = None):
    """Whether a master-config entry belongs to a run over ``paths``: its config file, or a
    recipe it runs (or names), is one of the paths or lies under one of them — and, for a
    diff's scope (``only``), the entry changed or runs (or names) a recipe of the scope."""
    within = _paths_scope(paths, cs)
    if only is None:
        return within

    def scoped(e) -> bool:
        if not within(e):
            return False
        if (_rel_to(e.path, only.root), e.key) in only.entries:
            return True
        named = [*e.resolved, *((cs.root / m) for m in e.missing if cs.root is not None)]
        return any(_rel_to(r, only.root) in only.recipes for r in named)

    return scoped


def _paths_scope(paths: list[Path], cs):
    """Whether an entry's config file, or a recipe it runs or names (or a multi-node engine
    configuration file), is one of ``paths`` or under one."""
    roots = []
    for p in paths:
        try:
            roots.append(os.path.realpath(p))
        except (OSError, ValueError):
            continue
    prefixes = tuple(r.rstrip(os.sep) + os.sep for r in roots)
    files: dict = {}
    # (a recipe or two named: no engine configuration file among them — the launchers that map
    # their names into the tree are not read for a pre-commit run)
    engines = any(not r.endswith((".sh", ".bash")) for r in roots)

    def under(x: str) -> bool:
        return x in roots or x.startswith(prefixes)

    def scope(e) -> bool:
        try:
            hit = files.get(e.path)
            if hit is None:
                hit = files[e.path] = under(os.path.realpath(e.path))
            if hit or any(under(r) for r in e.resolved):
                return True
            if cs.root is None:
                return False
            return any(under(os.path.realpath(cs.root / m)) for m in e.missing) or (
                engines and any(under(os.path.realpath(cs.root / cs.engine_tree(f))) for f in getattr(e, "engine_files", ()))
            )
        except (OSError, ValueError):
            return True

    return scope


#: below this many files a run stays in one process (starting workers costs more than it saves)
PARALLEL_MIN_FILES = 24
_WORK = None  # the chunk function, inherited by forked workers


def _jobs(requested: int, n_files: int) -> int:
    if requested == 1 or n_files < PARALLEL_MIN_FILES:
        return 1
    import multiprocessing

    if "fork" not in multiprocessing.get_all_start_methods():
        return 1
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    return max(1, min(requested or cpus, cpus, n_files // 8))


class _QuietOrphan:
    """A worker's stderr that says nothing once its parent has gone (killed outright: SIGKILL,
    the OOM killer): the worker's next result meets a closed pipe and the worker ends, and the
    ``BrokenPipeError`` traceback multiprocessing prints for it goes nowhere."""

    def __init__(self, stream, parent: int):
        self._stream, self._parent = stream, parent

    def write(self, s: str) -> int:
        if os.getppid() != self._parent:
            return len(s)
        return self._stream.write(s)

    def __getattr__(self, name):
        return getattr(self._stream, name)


def _worker_init() -> None:
    """A worker leaves when its parent does, quietly: Ctrl-C (sent to the whole process group)
    is the parent's to handle, SIGTERM (the parent's ``Pool.terminate``) ends it at once, and
    once the parent has gone nothing it prints reaches the terminal (``_QuietOrphan``)."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    sys.stderr = _QuietOrphan(sys.stderr, os.getppid())


class Terminated(SystemExit):
    """SIGTERM reached a run with workers: they are stopped, and the run ends with status 143
    (128 + SIGTERM), as it would without them."""


def _on_term(signum, frame):
    raise Terminated(143)


def _run_chunk(chunk):
    from recipelint.stack import roomy

    found, results = roomy(_WORK, chunk)  # (a worker's frames start deeper than the parent's: recipelint.stack)
    for res in results:  # what the parent needs: sources (suppressions), points (--diff-base)
        if not res.slim:  # (a cached recipe's result says it itself)
            res.launched = bool(res.launches)
        res.slim = True
        for pr in res.points:
            pr.paths = []
    # and the files the worker's library read (the result cache checks them)
    return found, results, _LIBRARY.record() if _LIBRARY is not None else None


def _run_indexed(item):
    i, chunk = item
    return i, _run_chunk(chunk)


_LIBRARY = None


def _parallel(work, files, jobs, sibling_key, progress=None, library=None):
    """Analyse and check files in ``jobs`` forked workers.  Files are handed out in small chunks
    that keep siblings (B200/B300 variants of one recipe) together, so that a worker does not
    analyse a sibling another worker has; findings and slim file results come back in order."""
    global _WORK, _LIBRARY
    import multiprocessing

    groups: dict[str, list] = {}
    for f in files:
        groups.setdefault(sibling_key(f[0]), []).append(f)
    size = max(1, -(-len(files) // (jobs * 48)))
    chunks: list[list] = [[]]
    for g in groups.values():
        if chunks[-1] and len(chunks[-1]) + len(g) > size:
            chunks.append([])
        chunks[-1].extend(g)
    # the largest chunks first, so that no worker is left with a long one at the end (the size of
    # a recipe is a fair guess of its cost: long recipes launch several servers)
    chunks.sort(key=lambda c: -sum(_size(p) for p, _ in c))
    _WORK, _LIBRARY = work, library
    import gc
    import signal
    import threading

    gc.freeze()  # the parent's objects (configs, caches) are not scanned, so not copied, by the workers' collector
    # SIGTERM ends the run through the pool's exit (its workers terminated, never left writing to
    # a closed pipe), not by killing the parent under them
    main = threading.current_thread() is threading.main_thread()
    term = signal.signal(signal.SIGTERM, _on_term) if main else None
    try:
        parts: list = [None] * len(chunks)
        done = 0
        with multiprocessing.get_context("fork").Pool(jobs, initializer=_worker_init) as pool:
            # as chunks finish (for the progress), put back in their order (for the output)
            for i, part in pool.imap_unordered(_run_indexed, enumerate(chunks), chunksize=1):
                parts[i] = part
                done += len(chunks[i])
                if progress is not None:
                    progress(done, len(files))
    finally:
        _WORK = _LIBRARY = None
        gc.unfreeze()
        if main:
            signal.signal(signal.SIGTERM, term)
    found, results = [], []
    for f, r, read in parts:
        found.extend(f)
        results.extend(r)
        if library is not None and read is not None:
            library.merge(read)
    # back in the order the files were given (chunks regrouped them)
    pos = {str(path): i for i, (path, _) in enumerate(files)}
    results.sort(key=lambda r: pos.get(str(r.path), 0))
    return found, results


def _size(p: Path) -> int:
    try:
        return p.stat().st_size
    except OSError:
        return 0


def _same(a: Path, b: Path) -> bool:
    try:
        return a.resolve() == b.resolve()
    except OSError:
        return False


def _display(f: Finding) -> Finding:
    """Findings carry the path as the user named it (relative when possible)."""
    f.span = replace(f.span, path=display_path(Path(f.span.path)))
    f.related = [Related(replace(r.span, path=display_path(Path(r.span.path))), r.message) for r in f.related]
    if f.fix is not None:
        edits = [
            replace(e, path=display_path(Path(e.path)), span=replace(e.span, path=display_path(Path(e.span.path))))
            for e in f.fix.edits
        ]
        f.fix = replace(f.fix, edits=edits)
    return f


def _overrides(findings: list[Finding], st: Settings) -> list[Finding]:
    out = []
    for f in findings:
        codes = st.ignored_codes(Path(f.span.path)) if st.per_file_ignores else []
        if any(f.code.startswith(c) for c in codes):
            continue
        for code, sev in st.severity.items():
            if f.code.startswith(code):
                f.severity = sev
        out.append(f)
    return out


def _suppress(findings: list[Finding], files: list[FileResult]):
    from recipelint.lint.suppress import scan

    sups: dict[str, FileSuppressions] = {}
    for res in files:
        if res.source is not None:
            sups[display_path(res.path)] = scan(res.source.data.decode("utf-8", "replace"), res.blocks)
    kept = []
    n = 0
    for f in findings:
        s = sups.get(f.span.path)
        hit = None
        if s is not None:  # (a finding that stands for several rules' findings: any of them suppressed)
            for code, line in ((f.code, f.span.line), *f.merged):
                hit = s.match(code, line)
                if hit is not None:
                    break
        if hit is not None:
            hit.used = True
            n += 1
            continue
        kept.append(f)
    unused = [(path, s) for path, fs in sups.items() for s in fs.items if not s.used]
    return kept, n, unused


def _unused_findings(unused, active: set[str]) -> list[Finding]:
    """RL002 for suppressions that suppressed nothing — only when every code they name was
    checked in this run (a suppression of a rule not selected is not unused)."""
    from recipelint.lint.registry import by_code

    rule = by_code("RL002")
    if rule is None or "RL002" not in active:
        return []
    out = []
    for path, s in unused:
        if s.codes and not all(any(a.startswith(c) for a in active if a != "RL002") for c in s.codes):
            continue
        out.append(rule().unused(path, s))
    return out
