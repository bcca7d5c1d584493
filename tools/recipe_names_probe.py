"""Check on a real history what a run over some recipes relies on (``sweep.configs.load`` with
``recipes``): every single-node master-config entry runs recipes named
``<model prefix>_<precision>_...``, and each recipe's sweep points from a load for it alone are
the full load's.

    python tools/recipe_names_probe.py --repo /path/to/InferenceX-mirror [--commits 25] [--seed 49]
        [--rev HEAD] [--points]

For commits picked at random among those that changed the master configs or the runners, the
tree is exported (``git archive``) into a scratch folder and read.  One line per commit (how many
entry → recipe pairs, how many break the naming), then the totals; ``--points`` also loads the
configs once per recipe and compares its points with the full load's (slower).  Exit status 1 when
anything breaks.  A development tool: it runs git on the repository you name and reads the
exports; it never runs what it reads.
"""

from __future__ import annotations

import argparse
import random
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path


def _signature(points) -> list:
    return [(p.label, sorted((k, str(v)) for k, v in p.env.items()), p.config_key) for p in points or []]


def probe(tree: Path, points: bool) -> tuple[int, list[str], int, list[str]]:
    """(entry → recipe pairs, those not named after their entry, recipes compared, those whose
    one-recipe points differ)."""
    from recipelint.sweep import configs

    full, masters = configs._load(tree, None, None, None, None, by_precision=False)
    pairs, broken = 0, []
    for e in masters:
        if e.multinode or not e.points:
            continue
        env = e.points[0].env
        start = f"{env.get('MODEL_PREFIX')}_{env.get('PRECISION')}_"
        for s in e.scripts:
            pairs += 1
            if not s.rsplit("/", 1)[-1].startswith(start):
                broken.append(f"{e.key}: {s}")
    compared, differ = 0, []
    if points:
        for s in sorted({s for e in masters for s in e.scripts}):
            p = tree / s
            if p.is_file():
                compared += 1
                if _signature(full.points_for(p)) != _signature(configs.load(tree, recipes=[p]).points_for(p)):
                    differ.append(s)
    return pairs, broken, compared, differ


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repo", type=Path, required=True)
    ap.add_argument("--commits", type=int, default=25)
    ap.add_argument("--seed", type=int, default=49)
    ap.add_argument("--rev", default="HEAD")
    ap.add_argument("--points", action="store_true")
    args = ap.parse_args(argv)
    paths = ["configs", ".github/configs", "runners"]
    revs = subprocess.run(
        ["git", "-C", str(args.repo), "rev-list", "--first-parent", args.rev, "--", *paths],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    random.seed(args.seed)
    sample = random.sample(revs, min(args.commits, len(revs)))
    totals = [0, 0, 0, 0]
    for rev in sample:
        d = Path(tempfile.mkdtemp(prefix="names-probe-"))
        try:
            archive = subprocess.run(["git", "-C", str(args.repo), "archive", rev], capture_output=True, check=True).stdout
            subprocess.run(["tar", "-x", "-C", str(d)], input=archive, check=True)
            pairs, broken, compared, differ = probe(d, args.points)
        finally:
            shutil.rmtree(d, ignore_errors=True)
        totals[0] += pairs
        totals[1] += len(broken)
        totals[2] += compared
        totals[3] += len(differ)
        print(
            f"{rev[:12]} pairs {pairs} not named after their entry {len(broken)} recipes {compared} points differ {len(differ)}"
        )
        for b in broken + [f"points differ: {s}" for s in differ]:
            print(f"    {b}")
    print(
        f"{len(sample)} commits: {totals[0]} pairs, {totals[1]} not named after their entry; {totals[2]} recipes, {totals[3]} differ"
    )
    return 1 if totals[1] or totals[3] else 0


if __name__ == "__main__":
    sys.exit(main())
