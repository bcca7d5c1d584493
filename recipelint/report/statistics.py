"""``--statistics``: how many findings each rule has."""

from __future__ import annotations

from recipelint.lint.findings import Finding


def render_statistics(findings: list[Finding]) -> str:
    counts: dict[tuple[str, str], int] = {}
    for f in findings:
        counts[(f.code, f.name)] = counts.get((f.code, f.name), 0) + 1
    width = max((len(str(n)) for n in counts.values()), default=1)
    return "".join(
        f"{n:>{width}}\t{code}\t[{name}]\n" for (code, name), n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    )
