"""``recipelint changes --base REV``: what a change does to the serve commands.

For each recipe, each sweep point is evaluated in the merge base's tree (exported as
``--diff-base`` does) and in the working tree, and the rebuilt launches are compared flag by
flag: flags added, removed, values changed; the engine variables of their environments likewise
(``engine_env`` in ``rules/data/engines.yaml``). Sweep points that a config change added or removed
are listed. Changes are grouped: one line per change, with the sweep points it holds for.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from recipelint.lint.fingerprint import point_id


@dataclass(slots=True)
class RecipeChanges:
    display: str
    #: (subject, a change's text) -> the sweep-point labels (head's) it holds for, in order
    changes: dict[tuple[str, str], list[str]] = field(default_factory=dict)
    points_added: list[str] = field(default_factory=list)
    points_removed: list[str] = field(default_factory=list)
    new_file: bool = False


def _flags(launch, moved: tuple[str, str] | None = None) -> dict[str, str | None]:
    """Flag -> value; ``moved``: (the base export's folder, the work tree's), so that a path the
    recipe builds from its own location compares equal."""
    out: dict[str, str | None] = {}
    for f in launch.flags:
        v = f.text if f.value is not None else None
        if v is not None and moved is not None:
            v = v.replace(moved[0], moved[1])
        out[f.name] = v
    return out


def _engine_env(launch, moved: tuple[str, str] | None = None) -> dict[str, str]:
    """The engine variables of a launch's environment (``engine_env`` in engines.yaml) -> value."""
    from recipelint.engines import facts
    from recipelint.evaluate.values import display

    spec = facts.load("engines").get("engine_env") or {}
    prefixes, names = tuple(spec.get("prefixes") or ()), set(spec.get("names") or ())
    out = {}
    for name, value in launch.env.items():
        if name in names or name.startswith(prefixes):
            v = display(value)
            out[name] = v.replace(moved[0], moved[1]) if moved is not None else v
    return out


def _show(v: str | None) -> str:
    if v is None:
        return "(no value)"
    return v if len(v) <= 60 else v[:57] + "..."


def compare_launches(base: list, head: list, moved: tuple[str, str] | None = None) -> list[tuple[str, str]]:
    """The changes from the base's launches of one sweep point to the head's, as (subject, text):
    launches are paired in order; a change every launch shares is given once."""
    out: list[tuple[str, str]] = []
    for i in range(max(len(base), len(head))):
        if i >= len(base):
            out.append(("launch", f"new {head[i].engine} launch"))
            continue
        if i >= len(head):
            out.append(("launch", f"{base[i].engine} launch removed"))
            continue
        b, h = _flags(base[i], moved), _flags(head[i])
        for name in h:
            if name not in b:
                out.append((name, f"+ {name}" + (f" {_show(h[name])}" if h[name] is not None else "")))
            elif h[name] != b[name]:
                out.append((name, f"{name} {_show(b[name])} → {_show(h[name])}"))
        for name in b:
            if name not in h:
                out.append((name, f"- {name}" + (f" {_show(b[name])}" if b[name] is not None else "")))
        be, he = _engine_env(base[i], moved), _engine_env(head[i])
        for name in he:
            if name not in be:
                out.append((f"${name}", f"+ export {name}={_show(he[name])}"))
            elif he[name] != be[name]:
                out.append((f"${name}", f"${name} {_show(be[name])} → {_show(he[name])}"))
        for name in be:
            if name not in he:
                out.append((f"${name}", f"- export {name}={_show(be[name])}"))
    return list(dict.fromkeys(out))


#: a flag whose value changed in more ways than this is shown as one line with examples
VARIANTS_MAX = 3


def changes(
    paths: list[Path], spec: str, cache: bool = True, analysed: dict | None = None, options=None
) -> tuple[str, list[RecipeChanges]]:
    """(the merge-base commit, the recipes whose launches changed).  Only the recipes a change can
    affect (``lint.scope``, without the siblings that are there only for parity: alike in both
    trees) are compared.  ``analysed``: analyses a run already made (resolved path → ``FileResult``,
    of the work tree and of the base's export), used instead of analysing again; ``options``: the
    run's ``lint.check.Options`` (its settings and configs)."""
    from dataclasses import replace

    from recipelint.cache.store import cache_dir
    from recipelint.gitdiff import base_tree
    from recipelint.lint.analysis import Analyzer
    from recipelint.lint.check import Options, collect, diff_scope, run_roots
    from recipelint.lint.scope import SIBLING, rel_to
    from recipelint.sweep import configs
    from recipelint.sweep.points import unconfigured_points

    opt = replace(options or Options(), cache=cache)
    bt = base_tree(spec, (paths or [Path(".")])[0], cache_dir() if cache else None)
    try:
        sc = diff_scope(paths, opt, bt)
        # the work tree's roots, and the export of the base (laid out like the work tree's top)
        analyzer = Analyzer(cache_dir=cache_dir() if cache else None, roots=[*run_roots(paths), bt.dir])
        sets: dict[str, configs.ConfigSet] = {}
        have = analysed or {}

        def compared(rel: str | None) -> bool:
            if sc.whole:
                return True
            return rel is not None and rel in sc.reason and sc.reason[rel] != SIBLING

        # the recipes compared, in both trees: the configs are read for them only (``sparse``)
        wanted = [p for p, _ in collect(paths) if compared(rel_to(p, bt.top))]
        wanted += [o for p in wanted if (o := bt.map(p)) is not None]
        roots = [*run_roots(paths), bt.dir]

        def points_of(path: Path, display: str):
            root = configs.find_root(path)
            key = str(root)
            if key not in sets:
                sets[key] = (
                    configs.load(root, None, cache_dir() if cache else None, recipes=wanted, roots=roots)
                    if root is not None
                    else configs.ConfigSet(None)
                )
            pts = sets[key].points_for(path)
            return pts if pts else (lambda text: unconfigured_points(display, text, "auto", sets[key].found))

        def analysis(path: Path, display: str):
            done = have.get(str(path.resolve()))
            if done is not None and not done.slim and not done.error:
                return done
            return analyzer.analyze(path, display, points_of(path, display))

        out = []
        for path, display in collect(paths):
            if not compared(rel_to(path, bt.top)):
                continue  # (nothing it reads changed: its launches are the base's)
            head = analysis(path, display)
            other = bt.map(path)
            rc = RecipeChanges(display)
            if other is None or not other.is_file():
                rc.new_file = True
                out.append(rc)
                continue
            base = analysis(other, display)
            bpoints = {point_id(pr.point.label): pr for pr in base.points}
            hpoints = {point_id(pr.point.label): pr for pr in head.points}
            for pid, pr in hpoints.items():
                was = bpoints.get(pid)
                if was is None:
                    rc.points_added.append(pr.point.label)
                    continue
                for change in compare_launches(was.launches, pr.launches, (str(bt.dir), str(bt.top))):
                    rc.changes.setdefault(change, []).append(pr.point.label)
            rc.points_removed = [pr.point.label for pid, pr in bpoints.items() if pid not in hpoints]
            if rc.changes or rc.points_added or rc.points_removed:
                out.append(rc)
        return bt.commit, out
    finally:
        bt.cleanup()
