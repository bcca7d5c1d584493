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
         analyzer: Analyzer | None = None, use_suppressions: bool = True, points_for=None) -> LintResult:
    """``points_for(display, text)`` gives a file's sweep points (default: the default matrix)."""
    rules = [r() for r in selected(select, ignore)]
    analyzer = analyzer or Analyzer()
    points_for = points_for or default_points
    result = LintResult()
    for path, display in collect(paths):
        res = analyzer.analyze(path, display, lambda text, d=display: points_for(d, text))
        result.files.append(res)
    project = Project(result.files)
    raw: list[Finding] = []
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
