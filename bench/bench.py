"""Benchmark recipelint against ShellCheck on one tree, in one invocation, interleaved.

    python bench/bench.py --repo /path/to/InferenceX [--runs 5] [--only ID,...] [--file benchmarks/.../x.sh]
    python bench/bench.py --list          # the scenario ids

Each round runs every selected scenario once, one after the other (interleaved, so that a noisy
machine slows every scenario alike).  The scenarios (``--only`` takes their ids, ``fnmatch``
patterns allowed: ``--only 'pre-commit-*,action-*'``):

Whole tree and one file (``--repo`` itself, and a copy of it without ``.git``):

* ``shellcheck-tree``: ``shellcheck -f gcc`` over every ``*.sh`` under ``benchmarks/`` (one process);
* ``tree-cold``: ``recipelint check benchmarks configs --no-cache`` (every sweep point of every
  recipe evaluated, configs parsed, all rules); ``tree-warm``: the same with a primed cache;
* ``one-file-cold`` / ``-warm`` / ``-edited``: ``recipelint check ONE.sh`` as a whole process,
  ``--no-cache``, primed, and *edited* (in the copy, the recipe gets a new comment line before each
  run: the result cache misses, the parsed master configs and file digests are reused);
  ``shellcheck-one-file``: ``shellcheck -x ONE.sh``, their reference.

The pre-commit hook and the GitHub Action (issue 44), each in its own ``git clone`` of ``--repo``
(set up once, before the rounds; the timed region is the one command):

* ``pre-commit-cold``: ``--recipe`` (default: an agentic dsv4 vLLM recipe) edited as a commit
  would (its first line that is a lone ``--flag`` of an argument list dropped, else a comment
  added) and staged; then the hook's command, ``recipelint check --pre-commit RECIPE``, from the
  clone's top with an empty ``RECIPELINT_CACHE_DIR`` (a new one each round);
* ``pre-commit-warm``: the same, the cache primed by an identical run;
* ``pre-commit-edited``: in another clone with the same staged edit, one more comment line is
  appended and staged before each run; the cache primed by the run before;
* ``action-cold`` / ``action-warm``: a branch with the same one-recipe change committed, and the
  Action's command on a pull request (``action.yml``, ``sarif: auto``): ``recipelint check .
  --diff-base BASE --summary-file S --output-format github --fail-on warning``; empty cache each
  round vs primed; ``action-cold-sarif`` / ``action-warm-sarif``: the same with ``--sarif-file F``
  (``sarif: true``: the whole tree's SARIF, as the Action wrote on every pull request before);
* ``master-config`` / ``master-config-cold``: one value of one entry of ``configs/nvidia-master.yaml``
  changed (a ``conc-list`` of one search-space item, ``--config-edit``) and staged, then
  ``recipelint check --pre-commit configs/nvidia-master.yaml``; cache primed by an identical run vs
  empty; ``master-config-edited``: in another clone, the value changed again and staged before each
  run, the cache primed by the run before (a second commit's hook);
* ``shellcheck-recipe``: ``shellcheck -x RECIPE`` (the staged recipe), their reference.

recipelint's modules are byte-compiled first (``compileall``, as ``pip install`` does), so that a
``PYTHONDONTWRITEBYTECODE`` environment does not make every run compile them from source.

Reported per scenario: wall time median/min/max over the rounds, the median of user+system CPU of
the whole process tree (``wait4``'s rusage, which covers recipelint's worker processes and ``git``),
the peak resident set size of the largest process (``ru_maxrss``), the issue's target and whether
the median meets it, and ratios against ShellCheck in wall *and* CPU (CPU ratios are the steadier
on a shared machine).  ``--json FILE`` writes the raw numbers.

This is a development tool: it runs the programs it measures (recipelint itself never runs
anything it reads).
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

#: the recipe the pre-commit and Action scenarios change (an agentic recipe with MTP, 2 siblings)
RECIPE = "benchmarks/single_node/agentic/dsv4_fp4_b200_vllm_mtp.sh"
#: the master-config change: (file, old text, new text) — one value of one search-space item
CONFIG_EDIT = (
    "configs/nvidia-master.yaml",
    "spec-decoding: mtp, conc-list: [1, 4, 8, 14] }",
    "spec-decoding: mtp, conc-list: [1, 4, 8, 16] }",
)
#: the Action's arguments after the paths and the diff base (action.yml, step "Check recipes")
ACTION_TAIL = ["--output-format", "github", "--fail-on", "warning"]


@dataclass
class Scenario:
    id: str
    name: str
    cmd: list[str]
    cwd: Path
    #: "shared" (the old measurements' one cache), "cold" (a new empty cache each run), or a
    #: directory of the scenario's own (primed during setup)
    cache: str = "shared"
    #: called before each run, untimed, with the round's number
    before: Callable[[int], None] | None = None
    #: (metric, seconds): "wall" or "cpu" median must be at most this (issue 44)
    target: tuple[str, float] | None = None
    #: the ShellCheck scenario this one is compared with, and how: "faster" (ShellCheck's time
    #: over ours) or "slower" (ours over ShellCheck's)
    ref: str | None = None
    ref_sense: str = "slower"
    #: files the command writes, removed after each run (untimed)
    outputs: list[Path] = field(default_factory=list)


def run(cmd: list[str], cwd: Path, env: dict) -> dict:
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, ru = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    err = proc.stderr.read().decode("utf-8", "replace") if proc.stderr else ""
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(cmd[:3])} ... exited {proc.returncode}: {err.strip()[:300]}")
    return {"wall": wall, "cpu": ru.ru_utime + ru.ru_stime, "rss_mb": ru.ru_maxrss / 1024, "status": proc.returncode}


def summarise(samples: list[dict]) -> dict:
    walls = [s["wall"] for s in samples]
    return {
        "median_s": statistics.median(walls),
        "min_s": min(walls),
        "max_s": max(walls),
        "cpu_s": statistics.median(s["cpu"] for s in samples),
        "peak_rss_mb": max(s["rss_mb"] for s in samples),
        "exit": sorted({s.get("status", 0) for s in samples}),
    }


def drop_flag_line(text: str) -> str:
    """A realistic one-recipe edit: the first line that is a lone ``--flag`` of a multi-line
    argument list (an array or a continued command) is dropped; a recipe without one gets a comment."""
    lines = text.splitlines(keepends=True)
    for i, line in enumerate(lines):
        if re.fullmatch(r"\s+--[a-z0-9][a-z0-9-]*\s*(\\)?\s*", line):
            return "".join(lines[:i] + lines[i + 1 :])
    return text + "# bench: edited\n"


def replace_once(text: str, old: str, new: str) -> str:
    if text.count(old) != 1:
        raise SystemExit(f"the edit's text occurs {text.count(old)} times (needs exactly once): {old!r}")
    return text.replace(old, new)


def bump_last_number(text: str, by: int) -> str:
    """``text`` with its last integer increased by ``by`` (the master-config value changed again)."""
    found = list(re.finditer(r"\d+", text))
    if not found:
        raise SystemExit(f"no number to change in {text!r}")
    m = found[-1]
    return text[: m.start()] + str(int(m.group()) + by) + text[m.end() :]


def verdict(r: dict, target: tuple[str, float] | None) -> str:
    if target is None:
        return ""
    metric, limit = target
    got = r["median_s"] if metric == "wall" else r["cpu_s"]
    return f"{metric} <= {limit:g}s: {'met' if got <= limit else 'NOT met'}"


def ratio(r: dict, ref: dict, sense: str) -> str:
    """Wall and CPU ratios of a measurement against its ShellCheck reference."""
    if sense == "faster":
        w, c = ref["median_s"] / r["median_s"], ref["cpu_s"] / max(r["cpu_s"], 1e-9)
    else:
        w, c = r["median_s"] / ref["median_s"], r["cpu_s"] / max(ref["cpu_s"], 1e-9)
    return f"{w:.1f}x {sense} (CPU {c:.1f}x)"


def selected(ids: list[str], only: str | None) -> list[str]:
    """The ids ``--only`` picks (comma-separated ids or fnmatch patterns), in plan order."""
    if not only:
        return list(ids)
    pats = [p.strip() for p in only.split(",") if p.strip()]
    unknown = [p for p in pats if not any(fnmatch.fnmatchcase(i, p) for i in ids)]
    if unknown:
        raise SystemExit(f"--only: no scenario matches {', '.join(unknown)} (see --list)")
    return [i for i in ids if any(fnmatch.fnmatchcase(i, p) for p in pats)]


ALL_IDS = [
    "shellcheck-tree",
    "tree-cold",
    "tree-warm",
    "shellcheck-one-file",
    "one-file-cold",
    "one-file-warm",
    "one-file-edited",
    "shellcheck-recipe",
    "pre-commit-cold",
    "pre-commit-warm",
    "pre-commit-edited",
    "action-cold",
    "action-warm",
    "action-cold-sarif",
    "action-warm-sarif",
    "master-config",
    "master-config-cold",
    "master-config-edited",
]


def _git(args: list[str], cwd: Path) -> str:
    return subprocess.run(
        ["git", "-c", "user.name=recipelint-bench", "-c", "user.email=bench@recipelint", *args],
        cwd=cwd,
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()


def _clone(repo: Path, work: Path, name: str) -> Path:
    dest = work / name
    subprocess.run(["git", "clone", "-q", str(repo), str(dest)], check=True)
    return dest


def _edit(path: Path, change: Callable[[str], str]) -> None:
    before = path.read_text(encoding="utf-8")
    after = change(before)
    if after == before:
        raise SystemExit(f"{path}: the edit changed nothing")
    path.write_text(after, encoding="utf-8")


#: byte-compile the recipelint a venv's Python imports (its package and its rules)
COMPILE_INSTALLED = (
    "import compileall, pathlib, recipelint, recipelint.rules; "
    "[compileall.compile_dir(str(pathlib.Path(m.__file__).parent), quiet=1) for m in (recipelint, recipelint.rules)]"
)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repo", type=Path, help="a git checkout with benchmarks/ and configs/ (InferenceX)")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--only", default=None, help="comma-separated scenario ids or patterns (see --list)")
    ap.add_argument("--list", action="store_true", help="print the scenario ids and exit")
    ap.add_argument("--file", default=None, help="the one-file recipe (default: the first recipe a config runs)")
    ap.add_argument("--recipe", default=RECIPE, help="the recipe the pre-commit and Action scenarios change")
    ap.add_argument(
        "--config-edit",
        nargs=3,
        metavar=("FILE", "OLD", "NEW"),
        default=CONFIG_EDIT,
        help="the master-config change: OLD (occurring once in FILE) becomes NEW",
    )
    ap.add_argument("--recipelint", default=None, help="the recipelint executable (default: beside this Python)")
    ap.add_argument(
        "--before",
        default=None,
        help="another recipelint executable (an older version's venv): every recipelint measurement is also "
        "run with it, interleaved in the same rounds, and the report gives after/before ratios",
    )
    ap.add_argument("--json", type=Path, default=None)
    args = ap.parse_args(argv)
    if args.list:
        print("\n".join(ALL_IDS))
        return 0
    if args.repo is None:
        ap.error("--repo is required")
    ids = selected(ALL_IDS, args.only)
    # a measurement compared with ShellCheck brings its ShellCheck reference along
    refs = {"tree": "shellcheck-tree", "one-file": "shellcheck-one-file"}
    for i in list(ids):
        ref = next((r for p, r in refs.items() if i.startswith(p + "-")), None)
        ref = ref or ("shellcheck-recipe" if i.startswith(("pre-commit", "action")) else None)
        if ref and ref not in ids:
            ids.append(ref)
    ids = [i for i in ALL_IDS if i in ids]

    repo = args.repo.resolve()
    rl = args.recipelint or shutil.which("recipelint", path=str(Path(sys.executable).parent)) or "recipelint"
    sc = shutil.which("shellcheck")
    if sc is None:
        raise SystemExit("shellcheck is not installed (Debian/Ubuntu: apt-get install shellcheck)")
    scripts = sorted(str(p.relative_to(repo)) for p in (repo / "benchmarks").rglob("*.sh"))
    one = args.file or next((s for s in scripts if "/fixed_seq_len/" in s and "deprecated" not in s), scripts[0])
    recipe = args.recipe
    cfg_file, cfg_old, cfg_new = args.config_edit
    if any(i.startswith(("pre-commit", "action", "master-config", "shellcheck-recipe")) for i in ids):
        if not (repo / ".git").exists():
            raise SystemExit(f"{repo}: the pre-commit, Action and master-config scenarios need a git clone (no .git)")
        if not (repo / recipe).is_file():
            raise SystemExit(f"{repo / recipe}: no such recipe (--recipe)")

    work = Path(tempfile.mkdtemp(prefix="recipelint-bench-"))
    cache = work / "cache"
    cache.mkdir()
    base_env = {k: v for k, v in os.environ.items() if not k.startswith(("GIT_", "PRE_COMMIT"))}
    plan: dict[str, Scenario] = {}
    try:
        # byte-compile recipelint as an installation would (the runs then only read the .pyc files)
        import recipelint
        import recipelint.rules

        pkgs = [str(Path(recipelint.__file__).parent), str(Path(recipelint.rules.__file__).parent)]
        subprocess.run([sys.executable, "-m", "compileall", "-q", *pkgs], check=True, stdout=subprocess.DEVNULL)
        # and the recipelint each measured executable imports (--recipelint, --before: another
        # venv's), else the arm without .pyc files pays for compiling every run (a false regression)
        for exe in {rl, *([args.before] if args.before else [])}:
            py = Path(exe).with_name("python")
            if py.exists():
                subprocess.run(
                    [str(py), "-c", COMPILE_INSTALLED], check=False, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
                )

        tree = [rl, "check", "benchmarks", "configs", "-o", "concise"]
        single = [rl, "check", one, "-o", "concise"]
        plan["shellcheck-tree"] = Scenario("shellcheck-tree", "shellcheck tree", [sc, "-f", "gcc", *scripts], repo)
        plan["tree-cold"] = Scenario(
            "tree-cold", "recipelint tree cold", [*tree, "--no-cache"], repo, ref="shellcheck-tree", ref_sense="faster"
        )
        plan["tree-warm"] = Scenario("tree-warm", "recipelint tree warm", tree, repo, ref="shellcheck-tree", ref_sense="faster")
        plan["shellcheck-one-file"] = Scenario("shellcheck-one-file", "shellcheck -x one-file", [sc, "-x", one], repo)
        if any(i.startswith("one-file") for i in ids):
            copy = work / "copy" / repo.name
            shutil.copytree(repo, copy, ignore=shutil.ignore_patterns(".git"), symlinks=True)

            def append_comment(i: int) -> None:
                with (copy / one).open("a", encoding="utf-8") as f:
                    f.write(f"# bench edit {i}\n")

            plan["one-file-cold"] = Scenario(
                "one-file-cold", "recipelint one-file cold", [*single, "--no-cache"], repo, ref="shellcheck-one-file"
            )
            plan["one-file-warm"] = Scenario("one-file-warm", "recipelint one-file warm", single, repo, ref="shellcheck-one-file")
            plan["one-file-edited"] = Scenario(
                "one-file-edited", "recipelint one-file edited", single, copy, before=append_comment, ref="shellcheck-one-file"
            )
        hook = [rl, "check", "--pre-commit"]
        if any(i in ids for i in ("shellcheck-recipe", "pre-commit-cold", "pre-commit-warm")):
            pc = _clone(repo, work, "pre-commit")
            _edit(pc / recipe, drop_flag_line)
            _git(["add", recipe], pc)
            plan["shellcheck-recipe"] = Scenario("shellcheck-recipe", "shellcheck -x recipe", [sc, "-x", recipe], pc)
            plan["pre-commit-cold"] = Scenario(
                "pre-commit-cold",
                "pre-commit one recipe, cold",
                [*hook, recipe],
                pc,
                cache="cold",
                target=("wall", 2.0),
                ref="shellcheck-recipe",
            )
            plan["pre-commit-warm"] = Scenario(
                "pre-commit-warm",
                "pre-commit one recipe, warm",
                [*hook, recipe],
                pc,
                cache=str(work / "cache-pre-commit-warm"),
                target=("wall", 1.0),
                ref="shellcheck-recipe",
            )
        if "pre-commit-edited" in ids:
            pe = _clone(repo, work, "pre-commit-edited")
            _edit(pe / recipe, drop_flag_line)
            _git(["add", recipe], pe)

            def edit_again(i: int, pe: Path = pe) -> None:
                with (pe / recipe).open("a", encoding="utf-8") as f:
                    f.write(f"# bench: edited again {i}\n")
                _git(["add", recipe], pe)

            plan["pre-commit-edited"] = Scenario(
                "pre-commit-edited",
                "pre-commit one recipe, edited again",
                [*hook, recipe],
                pe,
                cache=str(work / "cache-pre-commit-edited"),
                before=edit_again,
                ref="shellcheck-recipe",
            )
        if any(i.startswith("action") for i in ids):
            pa = _clone(repo, work, "action")
            base = _git(["rev-parse", "HEAD"], pa)
            _git(["checkout", "-q", "-b", "bench-pr"], pa)
            _edit(pa / recipe, drop_flag_line)
            _git(["commit", "-q", "-m", "bench: one recipe changed", "--", recipe], pa)
            sarif, summary = work / "action.sarif", work / "action-summary.md"
            # the Action's command on a pull_request event (`sarif: auto` writes no SARIF there)
            action = [rl, "check", ".", "--diff-base", base, "--summary-file", str(summary)]
            for cid, temp, target in (("action-cold", "cold", 15.0), ("action-warm", "warm", 3.0)):
                cache_of = "cold" if temp == "cold" else str(work / f"cache-{cid}")
                plan[cid] = Scenario(
                    cid,
                    f"action one-recipe PR, {temp}",
                    [*action, *ACTION_TAIL],
                    pa,
                    cache=cache_of,
                    target=("cpu", target),
                    ref="shellcheck-recipe",
                    outputs=[summary],
                )
                # (no target: with `sarif: true`, the whole tree's SARIF — every recipe of the work
                # tree analysed, as the Action did on every pull request before `sarif: auto`)
                plan[f"{cid}-sarif"] = Scenario(
                    f"{cid}-sarif",
                    f"action ..., {temp}, with --sarif-file",
                    [*action, "--sarif-file", str(sarif), *ACTION_TAIL],
                    pa,
                    cache=cache_of if temp == "cold" else str(work / f"cache-{cid}-sarif"),
                    ref="shellcheck-recipe",
                    outputs=[sarif, summary],
                )
        if any(i.startswith("master-config") for i in ids):
            pm = _clone(repo, work, "master-config")
            _edit(pm / cfg_file, lambda t: replace_once(t, cfg_old, cfg_new))
            _git(["add", cfg_file], pm)
            plan["master-config"] = Scenario(
                "master-config",
                "master-config one entry, warm",
                [*hook, cfg_file],
                pm,
                cache=str(work / "cache-master-config"),
                target=("wall", 5.0),
            )
            plan["master-config-cold"] = Scenario(
                "master-config-cold",
                "master-config one entry, cold",
                [*hook, cfg_file],
                pm,
                cache="cold",
                target=("wall", 5.0),
            )
        if "master-config-edited" in ids:
            pme = _clone(repo, work, "master-config-edited")
            _edit(pme / cfg_file, lambda t: replace_once(t, cfg_old, cfg_new))
            _git(["add", cfg_file], pme)
            now = [cfg_new]

            def edit_entry_again(i: int, pme: Path = pme) -> None:
                new = bump_last_number(cfg_new, i + 1)
                _edit(pme / cfg_file, lambda t: replace_once(t, now[0], new))
                now[0] = new
                _git(["add", cfg_file], pme)

            plan["master-config-edited"] = Scenario(
                "master-config-edited",
                "master-config one entry, edited again",
                [*hook, cfg_file],
                pme,
                cache=str(work / "cache-master-config-edited"),
                before=edit_entry_again,
                target=("wall", 5.0),
            )

        if args.before:
            # the same measurements with the other executable, each run right after its pair
            paired: list[str] = []
            for i in ids:
                paired.append(i)
                s = plan[i]
                if s.cmd[0] != rl:
                    continue
                cache_b = s.cache if s.cache == "cold" else str(work / f"cache-before-{i}")
                plan[i + "@before"] = Scenario(
                    i + "@before",
                    s.name + " [before]",
                    [args.before, *s.cmd[1:]],
                    s.cwd,
                    cache=cache_b,
                    # (its own edit: the round's edit made again would change nothing)
                    before=(lambda n, f=s.before: f(n + 1000)) if s.before is not None else None,
                    target=s.target,
                    ref=s.ref,
                    ref_sense=s.ref_sense,
                    outputs=s.outputs,
                )
                paired.append(i + "@before")
            ids = paired

        def env_for(s: Scenario) -> tuple[dict, Path | None]:
            """The environment of a run, and the cold cache to remove after it."""
            if s.cache == "cold":
                fresh = Path(tempfile.mkdtemp(prefix="cold-", dir=work))
                return dict(base_env, RECIPELINT_CACHE_DIR=str(fresh)), fresh
            return dict(base_env, RECIPELINT_CACHE_DIR=str(cache if s.cache == "shared" else s.cache)), None

        # prime the caches the warm runs use (an identical run before the rounds)
        primed: set[tuple] = set()
        for i in ids:
            s = plan[i]
            if s.cmd[0] == sc or s.cache == "cold" or "--no-cache" in s.cmd:
                continue
            key = (tuple(s.cmd), str(s.cwd), s.cache)
            if key not in primed:
                primed.add(key)
                if s.cache != "shared":
                    Path(s.cache).mkdir(exist_ok=True)
                print(f"priming: {s.name}", file=sys.stderr)
                run(s.cmd, s.cwd, env_for(s)[0])
                for o in s.outputs:
                    o.unlink(missing_ok=True)

        samples: dict[str, list] = {i: [] for i in ids}
        for n in range(args.runs):
            for i in ids:
                s = plan[i]
                if s.before is not None:
                    s.before(n)
                env, fresh = env_for(s)
                samples[i].append(run(s.cmd, s.cwd, env))
                if fresh is not None:
                    shutil.rmtree(fresh, ignore_errors=True)
                for o in s.outputs:
                    o.unlink(missing_ok=True)
            print(f"round {n + 1}/{args.runs} done", file=sys.stderr)
    finally:
        shutil.rmtree(work, ignore_errors=True)

    res = {i: summarise(v) for i, v in samples.items()}
    print(f"tree: {repo.name} ({len(scripts)} scripts under benchmarks/, configs/), {args.runs} interleaved rounds")
    print(f"one file: {one}")
    if any(i.startswith(("pre-commit", "action", "shellcheck-recipe")) for i in ids):
        print(f"recipe changed (pre-commit, Action): {recipe}")
    if any(i.startswith("master-config") for i in ids):
        print(f"master-config change: {cfg_file}: {cfg_old!r} -> {cfg_new!r}")
    print(
        f"{'measurement':38} {'median':>9} {'min':>8} {'max':>8} {'cpu':>8} {'peak RSS':>9}  "
        f"{'target (issue 44)':24}  vs ShellCheck (wall, CPU)"
    )
    for i, r in res.items():
        s = plan[i]
        cmp = ratio(r, res[s.ref], s.ref_sense) if s.ref in res else ""
        print(
            f"{s.name:38} {r['median_s']:8.3f}s {r['min_s']:7.3f}s {r['max_s']:7.3f}s {r['cpu_s']:7.2f}s "
            f"{r['peak_rss_mb']:7.0f}MB  {verdict(r, s.target):24}  {cmp}"
        )
    if args.before:
        print("\nafter / before (medians of the interleaved rounds):")
        for i, r in res.items():
            b = res.get(i + "@before")
            if b is not None:
                print(
                    f"{plan[i].name:38} wall {r['median_s'] / b['median_s']:.2f}x  CPU {r['cpu_s'] / max(b['cpu_s'], 1e-9):.2f}x  "
                    f"({b['median_s']:.2f}s / {b['cpu_s']:.2f}s CPU before)"
                )
    if args.json:
        out = {
            "repo": str(repo),
            "runs": args.runs,
            "one_file": one,
            "recipe": recipe,
            "config_edit": [cfg_file, cfg_old, cfg_new],
            "results": {
                plan[i].name: dict(r, id=i, target=plan[i].target, ref=plan[i].ref, cmd=plan[i].cmd) for i, r in res.items()
            },
        }
        args.json.write_text(json.dumps(out, indent=2, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
