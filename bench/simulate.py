"""How well a cold whole-tree run's work split would use 1–64 cores: measured tasks, simulated scheduling.

    python bench/simulate.py --repo /path/to/InferenceX [--workers 1,2,4,8,16,32,64] [--json FILE]

One process runs ``recipelint check benchmarks configs --no-cache`` through the driver
(``recipelint.lint.check.lint``) with its worker pool replaced, in this process only, by a
measuring stand-in: the driver's own chunk function (analysis of each file at every sweep point,
then the per-file rules) is called on each task, timed with ``time.process_time``.  The tasks are
the driver's (``_parallel``): siblings (a recipe's B200/B300/... variants) grouped, the groups
gathered into chunks of ``ceil(files / (jobs * 48))`` files (one group per chunk from 6 workers up
on 243 files), the chunks sorted largest first by file size and handed, in that order, to whichever
worker is free.  Measured:

* each sibling group's CPU *warm* (in this process, after the groups before it: the sourced
  libraries parsed and their summaries built) and *fresh* (in a process forked from the parent as
  the driver's workers are, before any analysis: a worker's first chunk pays that warm-up);
* each recipe alone (no sibling grouping: RL401's siblings are then analysed by the recipe's task
  too, as ``analyze_other`` does when a sibling is elsewhere), and each of its evaluations (one per
  distinct sweep-point environment);
* the serial parent: a whole ``recipelint check`` process over an empty folder (interpreter,
  imports), and the driver's work outside the chunks (settings, master configs, project rules,
  grouping, suppressions).

Then list scheduling of those tasks onto N workers (``list_schedule``: each task, in order, to the
worker free first; a worker's first task at its fresh cost), for each N: speedup over one process
(``--jobs 1``: serial + every group warm) and efficiency (speedup / N), for these splits:

* ``groups``: the driver's chunks in its order (file size), a worker's first chunk fresh;
* ``groups LPT``: the same tasks ordered by measured cost (the best this split allows);
* ``per recipe``: no sibling grouping (cost as measured alone, with the sibling re-analysis);
* ``per point``: every evaluation a task; *ideal*: the recipe's other cost (parse, rules,
  siblings) shared out among its points, nothing repeated; *pessim.*: every point parses the recipe
  again and is evaluated as a first point (no evaluator cache shared between points), rules and
  siblings shared out;
* ``hybrid``: groups, except those costing more than half a worker's fair share
  (``sum / N / 2``), which are split per point (ideal or pessimistic costs) — what "split the few
  large recipes by sweep point" would give.

The per-recipe and per-point splits add a worker warm-up (the median fresh − warm of the groups) to
each worker's first task.  The driver also caps its workers at ``files // 8`` (30 for 243 recipes):
the column "driver" says what it would use.  Nothing here changes recipelint; it is a development
tool that runs recipelint, never the recipes.
"""

from __future__ import annotations

import argparse
import gc
import heapq
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

WORKERS = (1, 2, 4, 8, 16, 32, 64)


# ---- the scheduling model (pure) ----------------------------------------------------------------


def list_schedule(costs: list[float], workers: int, first: list[float] | None = None) -> tuple[float, list[float]]:
    """Hand ``costs`` out in order, each to the worker that is free first (a pool's
    ``imap_unordered`` with ``chunksize=1``); ``first[i]``, when given, is task i's cost when it is
    a worker's first (a fresh worker's warm-up).  The makespan and each worker's busy time."""
    if workers < 1:
        raise ValueError("workers must be >= 1")
    loads = [0.0] * workers
    started = [False] * workers
    free = [(0.0, w) for w in range(workers)]
    heapq.heapify(free)
    for i, c in enumerate(costs):
        t, w = heapq.heappop(free)
        cost = first[i] if first is not None and not started[w] else c
        started[w] = True
        loads[w] += cost
        heapq.heappush(free, (t + cost, w))
    return max(loads, default=0.0), loads


def driver_chunks(groups: list[list[int]], sizes: list[int], jobs: int) -> list[list[int]]:
    """The driver's chunks (``lint.check._parallel``) as lists of group indices: groups (in their
    order) gathered until a chunk would pass ``ceil(files / (jobs * 48))`` files, then the chunks
    sorted by their files' total size, largest first.  ``groups``: each group's file indices;
    ``sizes``: each file's size."""
    n_files = sum(len(g) for g in groups)
    size = max(1, -(-n_files // (jobs * 48)))
    chunks: list[list[int]] = [[]]
    count = 0
    for gi, g in enumerate(groups):
        if chunks[-1] and count + len(g) > size:
            chunks.append([])
            count = 0
        chunks[-1].append(gi)
        count += len(g)
    chunks.sort(key=lambda c: -sum(sizes[f] for gi in c for f in groups[gi]))
    return [c for c in chunks if c]


@dataclass
class Outcome:
    workers: int
    makespan: float
    wall: float  # serial + makespan
    speedup: float
    efficiency: float


def outcome(serial: float, one_process: float, makespan: float, workers: int) -> Outcome:
    wall = serial + makespan
    speedup = one_process / wall if wall > 0 else 0.0
    return Outcome(workers, makespan, wall, speedup, speedup / workers)


def point_tasks(cost: float, evals: list[float], load: float, pessimistic: bool) -> list[float]:
    """A recipe's task split per evaluation.  Ideal: the cost outside its evaluations (parse,
    rules, siblings) shared out among the points, nothing repeated.  Pessimistic: every point
    parses the recipe again (``load``) and is evaluated as a first point (a fresh evaluator, none
    of the per-node caches the points of one evaluator share); rules and siblings shared out."""
    if not evals:
        return [cost]
    rest = max(0.0, cost - sum(evals))
    if pessimistic:
        rest = max(0.0, rest - load)
        return [load + max(evals[0], e) + rest / len(evals) for e in evals]
    return [e + rest / len(evals) for e in evals]


def lpt(costs: list[float], first: list[float] | None = None) -> tuple[list[float], list[float] | None]:
    """Costs (and first costs) ordered largest first by cost."""
    order = sorted(range(len(costs)), key=lambda i: -costs[i])
    return [costs[i] for i in order], [first[i] for i in order] if first is not None else None


# ---- the measurement ----------------------------------------------------------------------------


@dataclass
class Measured:
    startup: float = 0.0
    serial: float = 0.0  # the driver outside the chunks (in this process)
    files: list[str] = field(default_factory=list)
    sizes: list[int] = field(default_factory=list)
    groups: list[list[int]] = field(default_factory=list)  # file indices, in the driver's group order
    warm: list[float] = field(default_factory=list)  # per group
    fresh: list[float] = field(default_factory=list)  # per group (empty: not measured)
    alone: list[float] = field(default_factory=list)  # per file, without its group
    evals: list[list[float]] = field(default_factory=list)  # per file: its own evaluations, alone
    loads: list[float] = field(default_factory=list)  # per file: reading and parsing it, alone
    points: list[int] = field(default_factory=list)  # per file: sweep points


def _startup(rl: str) -> float:
    """CPU of a whole ``recipelint check`` process over an empty folder."""
    with tempfile.TemporaryDirectory(prefix="recipelint-simulate-") as empty:
        proc = subprocess.Popen([rl, "check", ".", "--no-cache", "-o", "concise"], cwd=empty, stdout=subprocess.DEVNULL)
        _, _, ru = os.wait4(proc.pid, 0)
        return ru.ru_utime + ru.ru_stime


def measure(repo: Path, fresh: bool = True, alone: bool = True) -> Measured:
    from recipelint import cli
    from recipelint.lint import analysis
    from recipelint.lint import check as drv

    m = Measured()
    recording: list | None = None

    class Timed(analysis.Analyzer):
        def load(self, path, display):
            t = time.process_time()
            try:
                return super().load(path, display)
            finally:
                if recording is not None:
                    recording.append(("load", str(path), time.process_time() - t))

        def evaluate(self, parsed, path, point, ev=None):
            t = time.process_time()
            try:
                return super().evaluate(parsed, path, point, ev)
            finally:
                if recording is not None:
                    recording.append(("eval", str(path), time.process_time() - t))

    inside = 0.0

    def stand_in(work, files, jobs, sibling_key, progress=None, library=None):
        nonlocal recording, inside
        t_in = time.process_time()
        index = {str(p): i for i, (p, _) in enumerate(files)}
        m.files = [d for _, d in files]
        m.sizes = [drv._size(p) for p, _ in files]
        by_key: dict[str, list[int]] = {}
        for i, (p, _) in enumerate(files):
            by_key.setdefault(sibling_key(p), []).append(i)
        m.groups = list(by_key.values())
        if fresh:  # a forked worker's cost for each group as its first chunk (before any analysis here)
            for g in m.groups:
                pid = os.fork()
                if pid == 0:  # (the child leaves without unwinding: its status says whether the work ran)
                    code = 3
                    try:
                        work([files[i] for i in g])
                        code = 0
                    finally:
                        os._exit(code)
                _, status, ru = os.wait4(pid, 0)
                if os.waitstatus_to_exitcode(status) != 0:
                    raise SystemExit(f"a forked task failed ({[files[i][1] for i in g]})")
                m.fresh.append(ru.ru_utime + ru.ru_stime)
        # warm, in the driver's order (largest first by size): the results are the run's
        m.warm = [0.0] * len(m.groups)
        found: list = []
        results: list = []
        for gi in sorted(range(len(m.groups)), key=lambda gi: -sum(m.sizes[i] for i in m.groups[gi])):
            t = time.process_time()
            f, r = work([files[i] for i in m.groups[gi]])
            m.warm[gi] = time.process_time() - t
            found.extend(f)
            results.extend(r)
        if alone:  # each recipe alone, its own evaluations recorded
            for i, (p, _) in enumerate(files):
                recording = []
                t = time.process_time()
                _, r = work([files[i]])
                m.alone.append(time.process_time() - t)
                m.evals.append([c for k, q, c in recording if k == "eval" and q == str(p)])
                m.loads.append(next((c for k, q, c in recording if k == "load" and q == str(p)), 0.0))
                m.points.append(len(r[0].points) if r else 0)
                recording = None
        for res in results:  # what the parent gets back from a worker (``_run_chunk``)
            res.launched = bool(res.launches)
            for pr in res.points:
                pr.paths = []
        results.sort(key=lambda r: index.get(str(r.path), 0))
        inside += time.process_time() - t_in
        return found, results

    saved = drv._parallel, drv._jobs
    drv._parallel, drv._jobs = stand_in, (lambda requested, n: 2)
    gc.set_threshold(*cli.GC_THRESHOLDS)
    cwd = os.getcwd()
    os.chdir(repo)
    try:
        t = time.process_time()
        drv.lint([Path("benchmarks"), Path("configs")], analyzer=Timed(), options=drv.Options(jobs=0, cache=False))
        m.serial = time.process_time() - t - inside
    finally:
        os.chdir(cwd)
        drv._parallel, drv._jobs = saved
    return m


# ---- the report ---------------------------------------------------------------------------------


def simulate(m: Measured, workers: tuple[int, ...] = WORKERS) -> dict:
    """Per split, per worker count: the outcome (pure: from the measured numbers only)."""
    serial = m.startup + m.serial
    one_process = serial + sum(m.warm)
    fresh = m.fresh or m.warm
    warmup = max(0.0, statistics.median(f - w for f, w in zip(fresh, m.warm))) if m.fresh else 0.0
    out: dict[str, dict[int, Outcome]] = {}

    def add(name: str, n: int, costs: list[float], first: list[float] | None) -> None:
        if n == 1:  # (one job: the driver analyses in its own process, no worker to warm up)
            first = None
        out.setdefault(name, {})[n] = outcome(serial, one_process, list_schedule(costs, n, first)[0], n)

    for n in workers:
        chunks = driver_chunks(m.groups, m.sizes, n)
        costs = [sum(m.warm[g] for g in c) for c in chunks]
        # (a worker's first chunk: its groups warm, plus the largest warm-up among them; never less
        # than warm — the first groups measured in this process paid their warm-up too)
        firsts = [costs[k] + max(0.0, *(fresh[g] - m.warm[g] for g in c)) for k, c in enumerate(chunks)]
        add("groups", n, costs, firsts)
        add("groups LPT", n, *lpt(costs, firsts))
        if m.alone:
            add("per recipe", n, *lpt(m.alone, [c + warmup for c in m.alone]))
            for name, pess in (("per point ideal", False), ("per point pessim.", True)):
                pts = [c for i, a in enumerate(m.alone) for c in point_tasks(a, m.evals[i], m.loads[i], pess)]
                add(name, n, *lpt(pts, [c + warmup for c in pts]))
            share = sum(m.warm) / n / 2
            for name, pess in (("hybrid ideal", False), ("hybrid pessim.", True)):
                hyb: list[float] = []
                for gi, g in enumerate(m.groups):
                    if m.warm[gi] > share and n > 1:
                        hyb.extend(c for i in g for c in point_tasks(m.alone[i], m.evals[i], m.loads[i], pess))
                    else:
                        hyb.append(m.warm[gi])
                add(name, n, *lpt(hyb, [c + warmup for c in hyb]))
    return {"serial": serial, "one_process": one_process, "warmup": warmup, "splits": out}


def report(m: Measured, sim: dict, cap: int) -> str:
    lines = []
    total = sum(m.warm)
    n_evals = sum(len(e) for e in m.evals)
    lines.append(
        f"{len(m.files)} recipes in {len(m.groups)} sibling groups; {sum(m.points):,} sweep points, {n_evals:,} evaluations"
        if m.evals
        else f"{len(m.files)} recipes in {len(m.groups)} sibling groups"
    )
    lines.append(
        f"CPU seconds: startup {m.startup:.2f} + driver outside the chunks {m.serial:.2f} = serial {sim['serial']:.2f}; "
        f"groups warm {total:.2f}"
        + (f", fresh {sum(m.fresh):.2f} (worker warm-up: median {sim['warmup']:.3f} per group)" if m.fresh else "")
        + (
            f"; recipes alone {sum(m.alone):.2f} ({sum(m.alone) - total:+.2f}: siblings re-analysed; measured after the groups, with a warmer library)"
            if m.alone
            else ""
        )
    )
    lines.append(f"one process (--jobs 1): {sim['one_process']:.2f}s CPU")
    order = sorted(range(len(m.groups)), key=lambda g: -m.warm[g])
    lines.append("long pole (largest tasks, warm CPU, share of the chunk work):")
    for g in order[:5]:
        names = ", ".join("/".join(m.files[i].split("/")[-2:]) for i in m.groups[g])
        pts = f", {sum(m.points[i] for i in m.groups[g])} points" if m.points else ""
        lines.append(f"  {m.warm[g]:6.2f}s {100 * m.warm[g] / total:5.1f}%  {names}{pts}")
    big = m.warm[order[0]]
    fresh_big = f" ({m.fresh[order[0]]:.2f}s in a fresh worker)" if m.fresh else ""
    lines.append(
        f"  the largest task{fresh_big} bounds the chunk phase at {total / big:.1f}x; with the serial part "
        f"the run at {sim['one_process'] / (sim['serial'] + big):.1f}x whatever the cores"
    )
    if m.alone:
        i = max(range(len(m.alone)), key=lambda i: m.alone[i])
        ev = m.evals[i]
        lines.append(
            f"  largest recipe alone: {m.files[i]} {m.alone[i]:.2f}s, {len(ev)} evaluations "
            f"(first {ev[0] if ev else 0:.3f}s, later median {statistics.median(ev[1:]) if len(ev) > 1 else 0:.3f}s), "
            f"read and parsed in {m.loads[i]:.3f}s"
        )
    splits = sim["splits"]
    names = list(splits)
    lines.append("")
    lines.append("efficiency (speedup) by split; simulated wall = serial + makespan")
    lines.append(f"{'N':>3} {'driver':>6}  " + "  ".join(f"{n:>18}" for n in names))
    for n in next(iter(splits.values())):
        cells = [f"{100 * splits[s][n].efficiency:3.0f}% {splits[s][n].speedup:5.1f}x" for s in names]
        lines.append(f"{n:>3} {min(n, cap):>6}  " + "  ".join(f"{c:>18}" for c in cells))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repo", type=Path, required=True, help="a checkout with benchmarks/ and configs/")
    ap.add_argument("--workers", default=",".join(map(str, WORKERS)))
    ap.add_argument("--no-fresh", action="store_true", help="do not measure the groups in forked processes")
    ap.add_argument("--no-alone", action="store_true", help="do not measure each recipe alone (no per-recipe/point splits)")
    ap.add_argument("--json", type=Path, default=None)
    args = ap.parse_args(argv)
    repo = args.repo.resolve()
    rl = shutil.which("recipelint", path=str(Path(sys.executable).parent)) or "recipelint"
    m = measure(repo, fresh=not args.no_fresh, alone=not args.no_alone)
    m.startup = _startup(rl)
    workers = tuple(int(w) for w in args.workers.split(","))
    sim = simulate(m, workers)
    from recipelint.lint.check import PARALLEL_MIN_FILES

    cap = max(1, len(m.files) // 8) if len(m.files) >= PARALLEL_MIN_FILES else 1
    print(f"tree: {repo.name}; one process, CPU seconds (time.process_time; forked tasks: wait4)")
    print(report(m, sim, cap))
    if args.json:
        data = {
            "repo": str(repo),
            "measured": m.__dict__,
            "serial": sim["serial"],
            "one_process": sim["one_process"],
            "warmup": sim["warmup"],
            "splits": {s: {n: o.__dict__ for n, o in v.items()} for s, v in sim["splits"].items()},
        }
        args.json.write_text(json.dumps(data, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
