"""``recipelint check``: files → analysis → rules → grouped, suppressed findings."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from .analysis import Analyzer, FileResult
from .findings import Finding, group
from .points import default_points
from .registry import selected
from .rulebase import FileContext, Project
from .suppress import FileSuppressions, scan

SKIP_DIRS = {".git", ".hg", ".svn", ".venv", "venv", "node_modules", "__pycache__", ".recipelint_cache", ".tox"}


class UsageError(Exception):
    """A problem with the command line or configuration (exit status 2)."""


@dataclass(slots=True)
class LintResult:
    findings: list[Finding] = field(default_factory=list)
    files: list[FileResult] = field(default_factory=list)
    suppressed: int = 0
    configs: object = None


def collect(paths: list[Path]) -> list[tuple[Path, str]]:
    """(path, display) of every recipe: directories are walked for ``*.sh``; files named on the
    command line are taken as they are."""
    out: list[tuple[Path, str]] = []
    seen: set[str] = set()
    for p in paths:
        if not p.exists() and not p.is_symlink():
            raise UsageError(f"{p}: no such file or directory")
        if p.is_dir():
            for root, dirs, files in os.walk(p, followlinks=False):
                dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS and not d.startswith("."))
                for name in sorted(files):
                    if name.endswith(".sh"):
                        fp = Path(root) / name
                        _add(out, seen, fp)
        else:
            _add(out, seen, p)
    return out


def _add(out, seen, fp: Path) -> None:
    try:
        key = str(fp.resolve())
    except (OSError, RuntimeError):
        key = str(fp)
    if key in seen:
        return
    seen.add(key)
    out.append((fp, _display(fp)))


def _display(fp: Path) -> str:
    try:
        rel = os.path.relpath(fp)
    except ValueError:
        return str(fp)
    return rel if not rel.startswith("..") else str(fp)


def lint(paths: list[Path], select: list[str] | None = None, ignore: list[str] | None = None,
         analyzer: Analyzer | None = None, use_suppressions: bool = True, points_for=None,
         config_paths: list[Path] | None = None, use_configs: bool = True) -> LintResult:
    """Lint recipes.  Sweep points come from the master configs found above the first path
    (or ``config_paths``); recipes no config reaches use the default matrix.  ``points_for(display,
    text)`` overrides both (tests)."""
    from . import configs

    rules = [r() for r in selected(select, ignore)]
    analyzer = analyzer or Analyzer()
    result = LintResult()
    files = collect(paths)
    cs = configs.ConfigSet(None)
    if use_configs and points_for is None:
        for p in config_paths or []:
            if not p.is_file():
                raise UsageError(f"{p}: config file not found")
        root = configs.find_root(paths[0] if paths else Path("."))
        if config_paths or root is not None:
            cs = configs.load(root, config_paths)
    result.configs = cs
    for path, display in files:
        pts = cs.points_for(path) if points_for is None else None
        if pts:
            res = analyzer.analyze(path, display, pts)
        elif points_for is not None:
            res = analyzer.analyze(path, display, lambda text, d=display: points_for(d, text))
        else:
            res = analyzer.analyze(path, display, lambda text, d=display: default_points(d, text))
        result.files.append(res)
    project = Project(result.files, cs)
    raw: list[Finding] = []
    for rule in rules:
        raw.extend(rule.check_project(project))
    for res in result.files:
        for rule in rules:
            ctx = FileContext(res, project, rule)
            raw.extend(rule.check(ctx))
    grouped = group(raw)
    grouped = [_display_path(f, result.files) for f in grouped]
    if use_suppressions:
        grouped, result.suppressed = _suppress(grouped, result.files)
    result.findings = grouped
    return result


def _display_path(f: Finding, files: list[FileResult]) -> Finding:
    """Findings carry the path as the user named it (relative when possible)."""
    from dataclasses import replace

    from .findings import Related

    f.span = replace(f.span, path=_display(Path(f.span.path)))
    f.related = [Related(replace(r.span, path=_display(Path(r.span.path))), r.message) for r in f.related]
    return f


def _suppress(findings: list[Finding], files: list[FileResult]) -> tuple[list[Finding], int]:
    sups: dict[str, FileSuppressions] = {}
    for res in files:
        if res.source is not None:
            sups[_display(res.path)] = scan(res.source.data.decode("utf-8", "replace"))
    kept = []
    n = 0
    for f in findings:
        s = sups.get(f.span.path)
        hit = s.match(f.code, f.span.line) if s is not None else None
        if hit is not None:
            hit.used = True
            n += 1
            continue
        kept.append(f)
    return kept, n
