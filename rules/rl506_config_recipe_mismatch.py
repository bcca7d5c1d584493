import os
from pathlib import Path

from recipelint.bash.source import Span
from recipelint.lint.findings import Finding, Related
from recipelint.lint.groups import unlocated
from recipelint.lint.rulebase import Rule


class ConfigRecipeMismatch(Rule):
    """
    ## What it does
    Reports a master-config entry whose recipe does not exist (error), and a recipe under the
    benchmark tree that no config entry runs (info).

    ## Why is this bad?
    The launcher builds the recipe's name from the entry (model prefix, precision, the runner's
    GPU, framework, `_mtp` for MTP); a renamed or deleted recipe makes every job of the entry fail
    with "No such file".  Which name is read from the checked tree: the workflow template's
    `SCENARIO_SUBDIR` and each node's `runners/launch_<node>.sh`, evaluated under the entry's
    environment (file tests answered from the tree); the message names the launcher.  Where a
    launcher cannot be read (not in the tree, too large, unparsable), one finding names it and the
    entries it leaves unlocated, instead of one per entry.  A recipe no entry reaches is dead code that still has to be maintained,
    or a recipe whose config entry was lost.

    ## Example
    ```yaml
    qwen3.5-fp8-h100-sglang-agentic:     # runs agentic/qwen3.5_fp8_h100.sh, which was deleted
      model-prefix: qwen3.5
      precision: fp8
      runner: cluster:h100-dgxc
    ```

    ## Use instead
    Restore the recipe, point the entry at an existing one, or delete the entry.

    Names one `_part` apart are pointed at, as related locations (`spec-decoding: mtp` makes the
    launcher add `_mtp`): an unreferenced recipe's finding names the entries that run a recipe of
    its folder named one `_part` longer or shorter (`x_mtp.sh` for `x.sh`: an entry meant for it
    may run the other); a missing recipe's finding names the recipes of such a name that exist.

    ## Exceptions
    Multi-node entries (which run through their own orchestration) are not mapped.  Only recipes
    in the folders the launcher reads (`agentic/`, `fixed_seq_len/`) are reported as unreferenced
    (not `deprecated/` or tool-specific folders), and only if they launch a server.
    """

    code = "RL506"
    name = "config-recipe-mismatch"
    severity = "error"
    sweep_independent = True

    def check_project(self, project):
        unread: dict = {}  # launchers that could not be read -> the entries they leave unlocated
        for e in project.entries():
            if e.scripts or not e.missing:
                continue  # (another runner of the entry found its recipe)
            group = unlocated(e)
            if group is not None:
                unread.setdefault(group, []).append(e)
                continue
            by = f" (composed by {_named(e.read_from)})" if e.read_from else ""
            root = getattr(project.configs, "root", None)
            for missing in e.missing:
                # (a recipe of a near name that exists: where the entry may have been meant to go —
                # related locations only, the finding's identity stays its message)
                near = _near_files(Path(root) / missing) if root is not None else []
                yield self._at(
                    e,
                    f"config entry `{e.key}` runs `{missing}`{by}, which does not exist: add the recipe or fix the entry",
                    [(Span(str(p), 1, 1, 1, 1), f"`{p.name}` exists, this name {how}") for p, how in near[:3]],
                )
        # a launcher that ignores the scenario's folder: the entry runs another scenario's recipe
        for e in project.entries():
            by_run: dict = {}  # (one defect: the launchers of the entry's nodes that do it, named together)
            for scenario, subdir, script, launcher in e.outside:
                by_run.setdefault((scenario, subdir, script), []).append(launcher)
            for (scenario, subdir, script), launchers in by_run.items():
                yield self._at(
                    e,
                    f"config entry `{e.key}` ({scenario}) runs `{script}` (composed by {_named(launchers)}), not a recipe "
                    f"under `{subdir}`, the folder the workflow template's SCENARIO_SUBDIR names for {scenario}: the "
                    f"launcher does not use it, so the {scenario} jobs run another scenario's recipe",
                )
        # a launcher recipelint cannot read: one finding for the entries it leaves unlocated
        why = getattr(getattr(project.configs, "layout", None), "unreadable", {}) or {}
        for launchers, entries in unread.items():
            first = entries[0]
            names = ", ".join(f"`{e.key}`" for e in entries[:3]) + (f" and {len(entries) - 3} more" if len(entries) > 3 else "")
            stops = "; ".join(f"`{r}`: {why.get(r, 'not read')}" for r in launchers)
            msg = (
                f"where the recipes of {len(entries)} config {'entry' if len(entries) == 1 else 'entries'} ({names}) live "
                f"is not known: the launcher that locates them could not be read ({stops}); the path recipelint's own "
                f"description of the layout gives, `{first.missing[0]}`, does not exist"
            )
            yield self._at(first, msg)

    def _at(self, e, msg: str, related=()) -> Finding:
        """A finding on a config entry's key."""
        return self.project_finding(Span(str(e.path), e.line, 1, e.line, len(e.key) + 1), msg, related)

    def check(self, ctx):
        cs = ctx.project.configs
        if not getattr(cs, "found", False) or ctx.config_points() or not ctx.result.launches:
            return
        from recipelint.engines import facts

        # only recipes where the launcher looks for them (benchmarks/single_node/<scenario dir>/)
        dirs = {d.strip("/") for d in facts.load("inferencex")["scenario_dirs"].values()}
        if ctx.result.path.resolve().parent.name not in dirs:
            return
        unread = [str(u) for u in getattr(cs, "unread", ())]
        msg = "no master-config entry runs this recipe: add an entry that runs it, or remove it if it is retired"
        if unread:
            # (a config that could not be read may well run it: said, not asserted)
            root = getattr(cs, "root", None)
            rel = [os.path.relpath(u, root) if root is not None else u for u in unread]
            shown = ", ".join(f"`{u}`" for u in rel[:2]) + (" …" if len(rel) > 2 else "")
            msg = (
                f"no readable master-config entry runs this recipe: {shown} could not be read (RL500), so "
                "whether its entries run it is not known; fix the config to check this recipe at its sweep points"
            )
        # (where an entry meant for it may be: named, not asserted; related locations only, so that
        # the finding stays the same finding when such an entry comes or goes: a diff's scope
        # does not bring this recipe in for a change to another recipe's entry)
        related = [
            Related(
                Span(str(e.path), e.line, 1, e.line, len(e.key) + 1),
                f"config entry `{e.key}` runs `{other}`, this recipe's name {how}",
            )
            for e, other, how in _neighbours(cs, ctx.result.path)[:3]
        ]
        yield Finding(self.code, self.name, "info", msg, Span(str(ctx.result.path), 1, 1, 1, 1), related=related)


def _named(paths) -> str:
    return ", ".join(f"`{p}`" for p in dict.fromkeys(paths))


def _differs_by_a_part(stem: str, other: str) -> str | None:
    """How ``other`` differs from ``stem`` when it is ``stem`` with one ``_part`` more or less at
    the end ("with `_mtp`", "without `_mtp`"); else None."""
    if other.startswith(stem + "_") and "_" not in other[len(stem) + 1 :]:
        return f"with `{other[len(stem) :]}`"
    if stem.startswith(other + "_") and "_" not in stem[len(other) + 1 :]:
        return f"without `{stem[len(other) :]}`"
    return None


#: at most this many names of a recipe folder are compared with a missing recipe's
MAX_LISTED = 4096


def _near_files(missing: Path) -> list[tuple[Path, str]]:
    """The recipes of ``missing``'s folder (regular `.sh` files, the folder's first
    ``MAX_LISTED`` names) named one ``_part`` longer or shorter, with how."""
    out = []
    try:
        with os.scandir(missing.parent) as it:
            for i, d in enumerate(it):
                if i >= MAX_LISTED:
                    break
                name = d.name
                if name.endswith(".sh") and d.is_file(follow_symlinks=False):
                    how = _differs_by_a_part(missing.stem, name[:-3])
                    if how is not None:
                        out.append((Path(d.path), how))
    except OSError:
        return []
    return sorted(out)


def _neighbours(cs, recipe) -> list:
    """(entry, the recipe it runs, how that name differs) for the entries that run a recipe of
    this folder whose name is this one's with one ``_part`` more or less at the end (the entry
    that runs ``x_mtp.sh`` for an unreferenced ``x.sh``): where an entry meant for it may be."""
    here = recipe.resolve()
    stem = here.stem
    out: list[tuple] = []
    for e in getattr(cs, "entries", None) or ():
        for run in e.resolved:
            other = Path(run)
            if other.parent != here.parent or other == here:
                continue
            how = _differs_by_a_part(stem, other.stem)
            if how is None:
                continue
            if all(o[0] is not e for o in out):
                out.append((e, other.name, how))
    return out
