"""``recipelint changes``: the launch changes of :mod:`recipelint.lint.changes` as text, one line
per change with the sweep points it holds for."""

from __future__ import annotations

from recipelint.lint.changes import VARIANTS_MAX, RecipeChanges
from recipelint.report.points import compact_points


def render(commit: str, found: list[RecipeChanges]) -> str:
    lines = [f"Serve commands changed since {commit[:12]}:" if found else f"No serve command changed since {commit[:12]}."]
    for rc in found:
        lines.append("")
        lines.append(rc.display + (" (new recipe)" if rc.new_file else ""))
        by_subject: dict[str, list[tuple[str, list[str]]]] = {}
        for (subject, text), labels in rc.changes.items():
            by_subject.setdefault(subject, []).append((text, labels))
        for subject, variants in by_subject.items():
            if len(variants) > VARIANTS_MAX:
                labels = [lb for _, lbs in variants for lb in lbs]
                eg = "; ".join(f"{t} at {compact_points(lbs)[0]}" for t, lbs in variants[:2])
                lines.append(f"  {subject} changed ({len(variants)} ways, e.g. {eg})   at {'; '.join(compact_points(labels))}")
                continue
            for text, labels in variants:
                lines.append(f"  {text}   at {'; '.join(compact_points(labels))}")
        if rc.points_added:
            lines.append(f"  sweep points added: {'; '.join(compact_points(rc.points_added))}")
        if rc.points_removed:
            lines.append(f"  sweep points removed: {'; '.join(compact_points(rc.points_removed))}")
    return "\n".join(lines) + "\n"
