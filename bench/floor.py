"""Where a cold whole-tree run's time goes, and the least it could take if later sweep points cost nothing.

    python bench/floor.py --repo /path/to/InferenceX [--runs 3] [--cpus 2] [--shellcheck]

In one process (no cache, no workers), the work of ``recipelint check benchmarks configs
--no-cache`` is timed by phase (CPU time of this process):

* ``startup``: a whole ``recipelint check`` process over an empty directory (interpreter,
  imports, settings), measured as a process;
* ``configs``: reading the master configs and runners into sweep points;
* ``parse``: reading and parsing every recipe (the sourced libraries are parsed inside ``first``);
* ``first``: each recipe's first sweep point;
* ``later``: every later sweep point (points with an environment equal to an earlier one's are
  taken from it, as a run does, untimed);
* ``rules``: the rules over the results, per file and over the project.

The *floor* is what no sharing of work between sweep points can remove: ``startup + configs``
(serial, in the parent) plus ``parse + first + rules`` spread perfectly over ``--cpus`` workers —
as if every later sweep point were free.  ``--shellcheck`` also times ShellCheck over the same
scripts (one process, as ``bench.py`` does) and prints the budget a ratio target leaves.
Medians over ``--runs`` rounds.  A development tool: it runs recipelint and ShellCheck, never the
recipes.
"""

from __future__ import annotations

import argparse
import gc
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def _cpu() -> float:
    return time.process_time()


def _startup(rl: str) -> float:
    with tempfile.TemporaryDirectory(prefix="recipelint-floor-") as empty:
        t0 = time.perf_counter()
        subprocess.run(
            [rl, "check", ".", "--no-cache", "-o", "concise"],
            cwd=empty,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            check=False,
        )
        return time.perf_counter() - t0


def _phases(repo: Path) -> tuple[dict[str, float], int]:
    """CPU seconds by phase, and the number of sweep points evaluated."""
    from recipelint import cli
    from recipelint.lint import analysis
    from recipelint.lint import check as lint
    from recipelint.lint.registry import selected
    from recipelint.lint.rulebase import FileContext, Project
    from recipelint.sweep import configs
    from recipelint.sweep.points import default_points

    out = dict.fromkeys(("configs", "parse", "first", "later", "rules"), 0.0)

    class Timed(analysis.Analyzer):
        """The analyzer a run uses, its parsing and its evaluations timed (the first of a file
        apart from the later ones)."""

        def load(self, path, display):
            t = _cpu()
            try:
                return super().load(path, display)
            finally:
                out["parse"] += _cpu() - t
                self.evaluated = 0

        def evaluate(self, parsed, path, point, ev=None):
            t = _cpu()
            try:
                return super().evaluate(parsed, path, point, ev)
            finally:
                out["first" if not self.evaluated else "later"] += _cpu() - t
                self.evaluated += 1

    gc.set_threshold(*cli.GC_THRESHOLDS)
    cwd = os.getcwd()
    os.chdir(repo)
    try:
        t = _cpu()
        cs = configs.load(configs.find_root(Path("benchmarks")), None, None)
        out["configs"] = _cpu() - t
        an = Timed()
        results = [
            an.analyze(path, display, cs.points_for(path) or (lambda text, d=display: default_points(d, text)))
            for path, display in lint.collect([Path("benchmarks")])
        ]
        t = _cpu()
        rules = [r() for r in selected(None, [])]
        project = Project(results, cs, lambda p: an.analyze(p, lint.display_path(p), []))
        for res in results:
            for rule in rules:
                list(rule.check(FileContext(res, project, rule)))
        for rule in rules:
            list(rule.check_project(project))
        out["rules"] = _cpu() - t
    finally:
        os.chdir(cwd)
    return out, sum(len(res.points) for res in results)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repo", type=Path, required=True, help="a checkout with benchmarks/ and configs/")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--cpus", type=int, default=len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else 1)
    ap.add_argument("--shellcheck", action="store_true", help="time ShellCheck over the same scripts too")
    ap.add_argument("--ratio", type=float, default=15.0, help="the ShellCheck ratio target (with --shellcheck)")
    args = ap.parse_args(argv)
    repo = args.repo.resolve()
    rl = shutil.which("recipelint", path=str(Path(sys.executable).parent)) or "recipelint"
    rounds = []
    for i in range(args.runs):
        r, points = _phases(repo)
        r["startup"] = _startup(rl)
        rounds.append(r)
        print(f"round {i + 1}/{args.runs} done", file=sys.stderr)
    med = {k: statistics.median(r[k] for r in rounds) for k in rounds[0]}
    total = sum(med.values())
    print(f"tree: {repo.name} ({points:,} sweep points); median of {args.runs} rounds; one process, CPU seconds")
    for k in ("startup", "configs", "parse", "first", "later", "rules"):
        print(f"  {k:8s} {med[k]:7.3f}s  {100 * med[k] / total:5.1f}%")
    print(f"  {'total':8s} {total:7.3f}s")
    floor = med["startup"] + med["configs"] + (med["parse"] + med["first"] + med["rules"]) / args.cpus
    print(f"floor on {args.cpus} CPUs with every later sweep point free: {floor:.3f}s wall")
    if args.shellcheck:
        sc = shutil.which("shellcheck")
        if sc is None:
            raise SystemExit("shellcheck is not installed (Debian/Ubuntu: apt-get install shellcheck)")
        scripts = sorted(str(p.relative_to(repo)) for p in (repo / "benchmarks").rglob("*.sh"))
        walls = []
        for _ in range(args.runs):
            t0 = time.perf_counter()
            subprocess.run([sc, "-f", "gcc", *scripts], cwd=repo, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            walls.append(time.perf_counter() - t0)
        budget = statistics.median(walls) / args.ratio
        print(
            f"shellcheck {budget * args.ratio:.3f}s: a {args.ratio:g}x target leaves {budget:.3f}s, "
            f"{'less' if budget < floor else 'more'} than the floor"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
