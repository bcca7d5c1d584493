"""The workspace of a run: what ``recipelint check`` (its pre-commit, diff and CI modes),
``recipelint changes`` and the language server resolve once from the paths and options given,
before any recipe is analysed.

A :class:`Workspace` holds the paths, the project roots and the roots the run may read
(``run_roots``: the project root of each path, the search roots), the settings (found upward from
the first path or named, checked, their facts applied with :meth:`Workspace.activate`), the master
configs named on the command line or in the settings (each checked to be one), the rules selected,
the output format and failing severity the settings or options ask for, whether the cache is used,
and, for a diff, the base revision.  Every problem it finds is a :class:`WorkspaceError` whose
message is one line (the command line prints it and exits 2).

From it come the ``lint.check.Options`` of a run (:meth:`Workspace.options`), the run itself
(:meth:`Workspace.lint`, with the text of some files given instead of read from disk: an editor's
unsaved buffer, ``check -``), the repository's engine pins, and what a change does to the serve
commands (:meth:`Workspace.changes`).  A workspace kept between runs (the language server's, one
per root) keeps its analyzer — sourced libraries parsed once, their summaries — as long as the
files it read are unchanged on disk (:meth:`Workspace.analyzer`)."""

from __future__ import annotations

import os
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

from recipelint.lint.check import LintResult, Options, UsageError
from recipelint.lint.settings import SEVERITIES, Settings

if TYPE_CHECKING:
    from recipelint.lint.analysis import Analyzer, FileResult


class WorkspaceError(Exception):
    """A problem with the paths, options, settings or master configs of a run: one line, exit 2."""


def codes(values: list[str]) -> list[str]:
    """Rule codes or prefixes from option values (comma-separated or repeated)."""
    out: list[str] = []
    for v in values:
        out.extend(x.strip() for x in v.split(",") if x.strip())
    return out


def plan(paths: list[Path] | None, diff_base: str | None, pre_commit: bool, cwd: Path) -> tuple[list[Path] | None, str | None]:
    """(the paths, the base revision) of a run: ``--pre-commit`` reads what pre-commit asked for
    (``gitdiff.pre_commit_plan``); an empty ``--diff-base`` is an error (a CI job's unset variable
    would silently check the whole tree).  The paths stay None when none were given."""
    if diff_base is not None and not diff_base.strip():
        raise WorkspaceError("--diff-base: empty revision (leave the option out to check the whole tree)")
    if pre_commit:
        from recipelint.gitdiff import DiffError, pre_commit_plan

        try:
            hook = pre_commit_plan(list(paths or []), cwd)
        except DiffError as e:
            raise WorkspaceError(str(e).replace("--diff-base", "--pre-commit")) from None
        return hook.paths, diff_base or hook.diff_base
    return paths, diff_base


def _short(p: Path, limit: int = 200) -> str:
    """A path for a one-line message: at most ``limit`` characters (its end kept)."""
    s = str(p)
    return s if len(s) <= limit else "…" + s[-(limit - 1) :]


def check_master_configs(paths: list[Path], where: str = "", cache: bool = True) -> None:
    """A :class:`WorkspaceError` unless every path is a master config: an existing
    ``*-master.yaml`` whose YAML, when it parses, is a mapping with entries (a syntax error in one,
    or one malformed entry, is RL500, with its line).  The trap: ``--config pyproject.toml`` for
    recipelint's own settings."""
    from recipelint.engines import yamlpos
    from recipelint.files import Refused, read_text
    from recipelint.sweep.configs import MAX_CONFIG_BYTES

    for p in paths:
        try:
            found = p.is_file()
        except OSError as e:  # (a name too long, a loop of links: said, as a missing file is)
            raise WorkspaceError(f"{where}{_short(p)}: cannot be read ({e.strerror or e})") from None
        if not found:
            raise WorkspaceError(f"{where}{p}: config file not found")
        if not p.name.endswith(("-master.yaml", "-master.yml")):
            raise WorkspaceError(
                f"{where}{p}: not a master config (configs/*-master.yaml); recipelint's own settings go to --settings"
            )
        try:
            text = read_text(p, MAX_CONFIG_BYTES)
        except Refused as r:
            if r.kind in ("not-utf8",):
                continue  # (RL500 says where)
            raise WorkspaceError(f"{where}{r.reason}") from None
        try:
            if cache:
                from recipelint.cache.store import cache_dir

                data = yamlpos.load_cached(text, cache_dir())
            else:
                data = yamlpos.load(text)
        except Exception:  # not YAML (or not UTF-8): RL500 says where
            continue
        entries = list(data.values()) if hasattr(data, "values") else None
        if data is not None and (entries is None or (entries and not any(hasattr(e, "items") for e in entries))):
            raise WorkspaceError(f"{where}{p}: not a master config: its YAML is not a mapping of entries")


class Kept:
    """What a kept workspace remembers between runs (``lint.check.Options.kept``): the master
    configs loaded and the analyses of the siblings the rules compare the checked recipe with —
    each reused while every file it read (and the folders holding them: a config added) has the
    same stat, and the paths an analysis found no sourced file at still hold none.  Nothing
    computed from a text given for the run (``files.overlaid``) is kept."""

    #: configs sets kept (one per project root and set of recipes checked)
    MAX_CONFIGS = 8

    def __init__(self) -> None:
        self._configs: dict[tuple, tuple[object, dict[str, tuple | None]]] = {}
        self._analyses: dict[str, tuple[tuple, object, dict[str, tuple | None], set[str]]] = {}

    def configs(self, key: tuple, load):
        from recipelint.files import recording

        hit = self._configs.get(key)
        if hit is not None and _unchanged(hit[1]):
            return hit[0]
        with recording() as read:
            cs = load()
        # (the analyses kept are keyed by the identity of the set their points came from: a set
        # loaded again, or a new one that may take an old one's identity, drops them)
        self._analyses.clear()
        if not _given(read):
            if len(self._configs) >= self.MAX_CONFIGS:
                self._configs.pop(next(iter(self._configs)))
            self._configs[key] = (cs, _stats(read | {os.path.dirname(p) for p in read}))
        return cs

    def analysis(self, path: Path, key: tuple, analyse):
        from recipelint.files import recording

        real = os.path.realpath(path)
        hit = self._analyses.get(real)
        if hit is not None and hit[0] == key and _unchanged(hit[2]) and not any(os.path.lexists(p) for p in hit[3]):
            return hit[1]
        with recording() as read:
            res = analyse()
        used = {os.path.realpath(p) for p in getattr(res, "used", ())}
        if not getattr(res, "error", None) and not _given(read | used | {real}):
            self._analyses[real] = (key, res, _stats(read | used | {real}), set(getattr(res, "looked", ())))
        return res


def _given(paths: set[str]) -> bool:
    from recipelint.files import overlay_of

    return any(overlay_of(p) is not None for p in paths)


def _stats(paths: set[str]) -> dict[str, tuple | None]:
    return {p: _stat(p) for p in paths}


def _unchanged(stats: dict[str, tuple | None]) -> bool:
    return all(_stat(p) == sig for p, sig in stats.items())


#: the workspace whose settings' facts are applied in this process (``Workspace.activate``)
_ACTIVE: list[Workspace] = []


@dataclass(eq=False)
class Workspace:
    paths: list[Path]
    settings: Settings
    settings_file: Path | None = None
    #: the master configs named on the command line (``--master-config``)
    master_configs: list[Path] = field(default_factory=list)
    use_configs: bool = True
    search_roots: list[Path] = field(default_factory=list)
    #: the folders the run may read (``lint.check.run_roots``)
    roots: list[Path] = field(default_factory=list)
    select: list[str] = field(default_factory=list)
    ignore: list[str] = field(default_factory=list)
    #: the output format and the lowest failing severity: the options', else the settings'
    output_format: str = "full"
    fail_on: str = "warning"
    cache: bool = True
    diff_base: str | None = None
    #: what a kept workspace reuses between runs (``analyzer``)
    _analyzer: Analyzer | None = None
    _read: dict = field(default_factory=dict)
    _kept: Kept | None = None

    @classmethod
    def open(
        cls,
        paths: list[Path] | None,
        *,
        settings_file: Path | None = None,
        master_configs: list[Path] | None = None,
        use_configs: bool = True,
        search_roots: list[Path] | None = None,
        select: list[str] | None = None,
        ignore: list[str] | None = None,
        output_format: str | None = None,
        formats: tuple[str, ...] | None = None,
        fail_on: str | None = None,
        cache: bool = True,
        diff_base: str | None = None,
    ) -> Workspace:
        """Resolve a run's workspace (paths default to the current directory), checking as it
        goes — in this order, which is the order of the command line's errors: the settings, the
        output format (against ``formats``, the report's, when given), the failing severity, the
        rule codes, the search roots, the master configs named, those the settings name (inside
        the roots, and master configs)."""
        from recipelint.lint.check import confined_configs, run_roots
        from recipelint.lint.registry import known_codes
        from recipelint.lint.settings import SettingsError, find, load

        paths = list(paths or [Path(".")])
        if cache:  # (finding the settings reads facts already: from their cached parse, as the run does)
            from recipelint.cache.store import cache_dir
            from recipelint.engines import facts

            facts.cache_in(cache_dir())
        try:
            st = load(settings_file if settings_file is not None else find(paths[0]))
        except SettingsError as e:
            raise WorkspaceError(str(e)) from None
        if settings_file is not None and not settings_file.is_file():
            raise WorkspaceError(f"{settings_file}: settings file not found")
        fmt = output_format or st.output_format
        if formats is not None and fmt not in formats:
            raise WorkspaceError(f"--output-format must be one of {', '.join(formats)}, got '{fmt}'")
        level = fail_on or st.fail_on
        if level not in SEVERITIES:
            raise WorkspaceError(f"--fail-on must be one of {', '.join(SEVERITIES)}, got '{level}'")
        sel, ign = codes(list(select or [])), codes(list(ignore or []))
        known = known_codes()
        for c in sel + ign:
            if c.upper() != "ALL" and not any(k.startswith(c.upper()) for k in known):
                raise WorkspaceError(f"unknown rule code or prefix '{c}' (see `recipelint rule --all`)")
        search = list(search_roots or [])
        for r in search:
            if not r.is_dir():
                raise WorkspaceError(f"--search-root {r}: not a directory")
        named = list(master_configs or [])
        check_master_configs(named, cache=cache)
        roots = run_roots(paths, search)
        try:  # (the settings file is part of the checked repository: what it names is confined)
            confined_configs([st.base / c for c in st.configs], roots, f"{st.path}: `configs`: ")
        except UsageError as e:
            raise WorkspaceError(str(e)) from None
        check_master_configs([st.base / c for c in st.configs], f"{st.path}: `configs`: ", cache=cache)
        return cls(
            paths=paths,
            settings=st,
            settings_file=settings_file,
            master_configs=named,
            use_configs=use_configs,
            search_roots=search,
            roots=roots,
            select=sel,
            ignore=ign,
            output_format=fmt,
            fail_on=level,
            cache=cache,
            diff_base=diff_base,
        )

    @classmethod
    def bare(cls, paths: list[Path], cache: bool = True) -> Workspace:
        """A workspace of ``paths`` without settings (default ones: none read) nor checks
        (``recipelint changes``, which compares launches as the master configs make them)."""
        return cls(paths=list(paths), settings=Settings(), cache=cache)

    def activate(self) -> None:
        """Apply the settings' additions to the engine facts for the runs that follow (after
        dropping another workspace's, when one was applied in this process)."""
        from recipelint.lint.settings import apply_facts

        if _ACTIVE and _ACTIVE[0] is self:
            return
        if _ACTIVE:
            from recipelint.engines import facts

            facts.reset()
        _ACTIVE[:] = [self]
        apply_facts(self.settings)

    def options(self, **changes) -> Options:
        """The ``lint.check.Options`` of a run in this workspace (``changes``: fields set otherwise)."""
        opts = Options(
            select=self.select or None,
            ignore=self.ignore,
            config_paths=list(self.master_configs) or None,
            use_configs=self.use_configs,
            diff_base=self.diff_base,
            settings=self.settings,
            cache=self.cache,
            search_roots=list(self.search_roots),
            kept=self._kept,
        )
        return replace(opts, **changes) if changes else opts

    def engine_pins(self):
        """The repository's engine pins (``lint.check.engine_pins``)."""
        from recipelint.lint.check import engine_pins

        return engine_pins(self.paths, self.roots)

    def lint(self, options: Options | None = None, paths: list[Path] | None = None, texts: dict[Path, bytes] | None = None):
        """Lint ``paths`` (default: the workspace's) with ``options`` (default: :meth:`options`).
        ``texts``: files whose text is given (an editor's buffer, standard input) instead of read
        from disk — read through ``recipelint.files`` as if they were there (confined and bounded
        as files are), so that the master configs, sourced files and siblings around them are
        the repository's.  A ``lint.check.UsageError``, ``gitdiff.DiffError`` or baseline error is
        a :class:`WorkspaceError`."""
        from recipelint.files import overlaid
        from recipelint.gitdiff import DiffError
        from recipelint.lint import baseline as baseline_mod
        from recipelint.lint.check import lint

        self.activate()
        opts = options if options is not None else self.options()
        try:
            with overlaid(texts or {}):
                if self._analyzer is None:
                    return lint(list(paths if paths is not None else self.paths), options=opts)
                analyzer = self.analyzer()
                return lint(list(paths if paths is not None else self.paths), analyzer=analyzer, options=opts)
        except (UsageError, DiffError, baseline_mod.BaselineError) as e:
            raise WorkspaceError(str(e)) from None
        finally:
            if self._analyzer is not None:
                self._remember_reads(list(texts or {}))

    def whole_tree(self, options: Options) -> LintResult:
        """The whole work tree's run (``options`` without the diff): SARIF of a diff run."""
        return self.lint(replace(options, diff_base=None, progress=None))

    def changes(self, base: str, analysed: dict | None = None, options: Options | None = None, option: str | None = None):
        """(the merge-base commit, what the change since ``base`` does to the serve commands of the
        workspace's recipes: ``lint.changes.changes``); ``analysed``: analyses a run made already;
        ``option``: the option that named ``base``, for the error messages (they say ``--diff-base``)."""
        from recipelint.gitdiff import DiffError
        from recipelint.lint.changes import changes

        try:
            return changes(self.paths, base, cache=self.cache, analysed=analysed, options=options)
        except (DiffError, UsageError) as e:
            raise WorkspaceError(str(e).replace("--diff-base", option) if option else str(e)) from None

    # --- kept between runs (the language server) ---------------------------------------------

    def keep(self) -> Workspace:
        """Keep an analyzer (its sourced libraries parsed once), the master configs loaded and the
        siblings' analyses between this workspace's runs (``Kept``): for a process that checks
        again and again (the language server)."""
        from recipelint.lint.analysis import Analyzer

        self._analyzer = Analyzer(roots=list(self.roots))
        self._kept = Kept()
        return self

    def analyse(self, script: Path, points) -> FileResult:
        """One recipe evaluated at ``points`` (a list, or a function of its text) with this
        workspace's settings (their engine facts applied) and roots: ``render`` and ``sweep``."""
        from recipelint.lint.analysis import Analyzer

        self.activate()
        res = Analyzer(roots=list(self.roots)).analyze(script, str(script), points)
        if res.error:
            raise WorkspaceError(res.error)
        return res

    def sweep_points(self, script: Path) -> tuple[list, list]:
        """The master-config sweep points that run ``script`` (the configs named, else those above
        it) and the configs' problems: ``sweep``."""
        from recipelint.sweep import configs as configs_mod

        root = configs_mod.find_root(script)
        if root is None and not self.master_configs:
            raise WorkspaceError(f"{script}: no configs/*-master.yaml found above it (use --master-config)")
        cs = configs_mod.load(root, list(self.master_configs) or None)
        return cs.points_for(script) or [], list(cs.problems)

    def analyzer(self) -> Analyzer:
        """The kept analyzer, or a new one when a file it read changed on disk since (its stat) or
        a path where it found no sourced file holds one now."""
        from recipelint.lint.analysis import Analyzer

        if self._analyzer is None:
            self.keep()
        assert self._analyzer is not None
        lib = self._analyzer.library
        stale = any(_stat(p) != sig for p, sig in self._read.items())
        stale = stale or any(os.path.isfile(p) for p in lib.absent)
        if stale:
            self._analyzer = Analyzer(roots=list(self.roots))
            self._read = {}
        return self._analyzer

    def _remember_reads(self, given: list[Path]) -> None:
        """Note the stat of each file the kept analyzer read; forget what it read of the files
        whose text was given (a buffer sourced by the recipe checked: next time, another text)."""
        if self._analyzer is None:
            return
        lib = self._analyzer.library
        given_real = {os.path.realpath(p) for p in given}
        for p in list(lib.cache):
            if os.path.realpath(p) in given_real:
                del lib.cache[p]
            elif p not in self._read:
                self._read[p] = _stat(p)


def _stat(path: str) -> tuple | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_size, st.st_mtime_ns, st.st_ino)
