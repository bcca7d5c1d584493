"""Benchmark recipelint against ShellCheck on one tree, in one invocation, interleaved.

    python bench/bench.py --repo /path/to/InferenceX [--runs 5] [--file benchmarks/.../x.sh]

Each round runs, one after the other:

* ``shellcheck -f gcc`` over every ``*.sh`` under ``benchmarks/`` (one process, as a user runs it);
* ``recipelint check benchmarks configs`` cold: ``--no-cache`` (every sweep point of every recipe
  evaluated, configs parsed, all rules);
* the same, warm: a cache primed by an earlier run of the same inputs;
* ``recipelint check ONE.sh`` as a whole process, cold (``--no-cache``) and warm, and *edited*: in
  a copy of the repository, the recipe gets a new comment line before each run (the pre-commit
  case: the result cache misses, the parsed master configs and file digests are reused).

recipelint's modules are byte-compiled first (``compileall``, as ``pip install`` does), so that a
``PYTHONDONTWRITEBYTECODE`` environment does not make every run compile them from source.

Reported per measurement: the median wall time over the rounds (and min/max), user+system CPU,
and the peak resident set size of the largest process of the run (``wait4``'s ``ru_maxrss``,
which covers recipelint's worker processes too).  Ratios are ShellCheck's median over
recipelint's.  ``--json FILE`` writes the raw numbers.

This is a development tool: it runs the programs it measures (recipelint itself never runs
anything it reads).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def run(cmd: list[str], cwd: Path, env: dict) -> dict:
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, ru = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    err = proc.stderr.read().decode("utf-8", "replace") if proc.stderr else ""
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(cmd[:3])} ... exited {proc.returncode}: {err.strip()[:300]}")
    return {"wall": wall, "cpu": ru.ru_utime + ru.ru_stime, "rss_mb": ru.ru_maxrss / 1024}


def summarise(samples: list[dict]) -> dict:
    walls = [s["wall"] for s in samples]
    return {
        "median_s": statistics.median(walls),
        "min_s": min(walls),
        "max_s": max(walls),
        "cpu_s": statistics.median(s["cpu"] for s in samples),
        "peak_rss_mb": max(s["rss_mb"] for s in samples),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repo", type=Path, required=True, help="a checkout with benchmarks/ and configs/")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--file", default=None, help="the one-file recipe (default: the first recipe a config runs)")
    ap.add_argument("--recipelint", default=None, help="the recipelint executable (default: beside this Python)")
    ap.add_argument("--json", type=Path, default=None)
    args = ap.parse_args(argv)

    repo = args.repo.resolve()
    rl = args.recipelint or shutil.which("recipelint", path=str(Path(sys.executable).parent)) or "recipelint"
    sc = shutil.which("shellcheck")
    if sc is None:
        raise SystemExit("shellcheck is not installed (Debian/Ubuntu: apt-get install shellcheck)")
    scripts = sorted(str(p.relative_to(repo)) for p in (repo / "benchmarks").rglob("*.sh"))
    one = args.file or next((s for s in scripts if "/fixed_seq_len/" in s and "deprecated" not in s), scripts[0])

    cache = Path(tempfile.mkdtemp(prefix="recipelint-bench-"))
    env = dict(os.environ, RECIPELINT_CACHE_DIR=str(cache))
    tree = [rl, "check", "benchmarks", "configs", "-o", "concise"]
    single = [rl, "check", one, "-o", "concise"]
    plan = {
        "shellcheck tree": [sc, "-f", "gcc", *scripts],
        "recipelint tree cold": [*tree, "--no-cache"],
        "recipelint tree warm": tree,
        "recipelint one-file cold": [*single, "--no-cache"],
        "recipelint one-file warm": single,
        "recipelint one-file edited": single,
    }
    copy = Path(tempfile.mkdtemp(prefix="recipelint-bench-repo-")) / repo.name
    shutil.copytree(repo, copy, ignore=shutil.ignore_patterns(".git"), symlinks=True)
    edited = copy / one
    # byte-compile recipelint as an installation would (the runs then only read the .pyc files)
    import recipelint
    import recipelint.rules

    pkgs = [str(Path(recipelint.__file__).parent), str(Path(recipelint.rules.__file__).parent)]
    subprocess.run([sys.executable, "-m", "compileall", "-q", *pkgs], check=True, stdout=subprocess.DEVNULL)
    # prime the caches the warm runs use
    run(tree, repo, env)
    run(single, repo, env)
    run(single, copy, env)
    samples: dict[str, list] = {k: [] for k in plan}
    try:
        for i in range(args.runs):
            for name, cmd in plan.items():
                where = repo
                if name.endswith("edited"):
                    with edited.open("a", encoding="utf-8") as f:
                        f.write(f"# bench edit {i}\n")
                    where = copy
                samples[name].append(run(cmd, where, env))
            print(f"round {i + 1}/{args.runs} done", file=sys.stderr)
    finally:
        shutil.rmtree(cache, ignore_errors=True)
        shutil.rmtree(copy.parent, ignore_errors=True)

    res = {k: summarise(v) for k, v in samples.items()}
    sc_med = res["shellcheck tree"]["median_s"]
    print(f"tree: {repo.name} ({len(scripts)} scripts under benchmarks/, configs/), {args.runs} interleaved rounds")
    print(f"one file: {one}")
    print(f"{'measurement':28} {'median':>9} {'min':>8} {'max':>8} {'cpu':>8} {'peak RSS':>9}  vs ShellCheck")
    for name, r in res.items():
        ratio = "" if name.startswith("shellcheck") or "one-file" in name else f"{sc_med / r['median_s']:.1f}x faster"
        print(
            f"{name:28} {r['median_s']:8.3f}s {r['min_s']:7.3f}s {r['max_s']:7.3f}s {r['cpu_s']:7.2f}s {r['peak_rss_mb']:7.0f}MB  {ratio}"
        )
    if args.json:
        args.json.write_text(json.dumps({"repo": str(repo), "runs": args.runs, "one_file": one, "results": res}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
