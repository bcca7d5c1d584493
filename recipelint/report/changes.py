"""``recipelint changes``: the launch changes of :mod:`recipelint.lint.changes` as text, one line
per change with the sweep points it holds for; and as markdown for the Action's step summary."""

from __future__ import annotations

from recipelint.lint.changes import VARIANTS_MAX, RecipeChanges
from recipelint.report.points import compact_points

#: recipes listed in the markdown section (a step summary is at most 1 MiB)
MAX_RECIPES = 50


def _entries(rc: RecipeChanges) -> list[tuple[str, str]]:
    """(what changed, at which sweep points) for one recipe, grouped."""
    out: list[tuple[str, str]] = []
    by_subject: dict[str, list[tuple[str, list[str]]]] = {}
    for (subject, text), labels in rc.changes.items():
        by_subject.setdefault(subject, []).append((text, labels))
    for subject, variants in by_subject.items():
        if len(variants) > VARIANTS_MAX:
            labels = [lb for _, lbs in variants for lb in lbs]
            eg = "; ".join(f"{t} at {compact_points(lbs)[0]}" for t, lbs in variants[:2])
            out.append((f"{subject} changed ({len(variants)} ways, e.g. {eg})", "; ".join(compact_points(labels))))
            continue
        for text, labels in variants:
            out.append((text, "; ".join(compact_points(labels))))
    if rc.points_added:
        out.append(("sweep points added", "; ".join(compact_points(rc.points_added))))
    if rc.points_removed:
        out.append(("sweep points removed", "; ".join(compact_points(rc.points_removed))))
    return out


def render(commit: str, found: list[RecipeChanges]) -> str:
    lines = [f"Serve commands changed since {commit[:12]}:" if found else f"No serve command changed since {commit[:12]}."]
    for rc in found:
        lines.append("")
        lines.append(rc.display + (" (new recipe)" if rc.new_file else ""))
        for what, where in _entries(rc):
            lines.append(f"  {what}: {where}" if what.startswith("sweep points") else f"  {what}   at {where}")
    return "\n".join(lines) + "\n"


def render_markdown(commit: str, found: list[RecipeChanges], limit: int = MAX_RECIPES) -> str:
    """A step-summary section: per recipe, a table of the changes and where they hold."""
    from recipelint.report.summary import _cell, _code

    out = ["### Serve commands changed", ""]
    if not found:
        return "\n".join([*out, f"No serve command changed since `{commit[:12]}`.", "", ""])
    out += [f"How the rebuilt serve commands differ from the merge base `{commit[:12]}`:", ""]
    for rc in found[:limit]:
        out.append(f"**{_cell(rc.display)}**" + (" (new recipe)" if rc.new_file else ""))
        entries = _entries(rc)
        if entries:
            out += ["", "| Change | Sweep points |", "| --- | --- |"]
            out += [f"| {_code(what)} | {_cell(where)} |" for what, where in entries]
        out.append("")
    if len(found) > limit:
        out += [f"… and {len(found) - limit} more recipes (see `recipelint changes --base {commit[:12]}`).", ""]
    return "\n".join(out) + "\n"
