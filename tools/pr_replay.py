"""Replay real pull requests as the Action runs them: for each PR of a sample, check out its head
in a scratch clone and run ``recipelint check . --diff-base <merge base with main>`` there.

    python tools/pr_replay.py sample --repo MIRROR [--seed 45] [--dev 300] [--test 60]
        [--strata 10] [--touching REGEX] [--exclude SAMPLE] --out bench/pr_replay-sample.json
    python tools/pr_replay.py run --repo MIRROR --sample bench/pr_replay-sample.json --set dev
        --out results-dev.jsonl [--cache-dir DIR] [--timeout 600] [--limit N] [--recipelint BIN]
    python tools/pr_replay.py summary results-dev.jsonl [...]

``sample`` draws PRs from the repository's ``refs/pull/*/head``, stratified by the head commit's
date over the whole history (equal-size date strata, the same share drawn from each), and splits
them into a *dev* set (develop on it) and a *test* set (run it only at the end, read its findings
then). The draw depends only on the refs and the seed.

``run`` is resumable: one JSON line per PR goes to ``--out`` (appended; PRs already there are
skipped). Per PR: the head and merge base, the exit status, whether recipelint crashed (a
traceback, an exit status other than 0/1/2, a timeout), wall and CPU time, findings by code, the
recipes (``*.sh``) the PR changed that no sweep point of the head tree runs, and the RL506 /
RL006 / RL008 counts. The cache directory is shared by the PRs of a run (as the Action's cache is
shared by a repository's runs).

A development tool: it runs git (clone, checkout, merge-base) on a repository you name and
recipelint on that checkout only.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import resource
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path


def _git(cwd: Path, *args: str, check: bool = True) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=check, capture_output=True, text=True).stdout


def _touches(repo: Path, main: str, head: str, pattern: re.Pattern) -> bool:
    """Whether the PR's diff against its merge base with main changes a path ``pattern`` matches."""
    base = _git(repo, "merge-base", main, head, check=False).strip()
    if not base:
        return False
    names = _git(repo, "diff", "--name-only", "--no-renames", base, head, check=False).splitlines()
    return any(pattern.search(n) for n in names)


def sample(
    repo: Path,
    seed: int,
    n_dev: int,
    n_test: int,
    strata: int,
    exclude: set[int] | None = None,
    touching: str | None = None,
) -> dict:
    """Stratified draw of PR heads by date; the test set is drawn first, from each stratum alike.
    ``exclude``: PRs of earlier samples (a second held-out sample never overlaps the first).
    ``touching``: only PRs whose change touches a path this regular expression matches (a sample
    for one engine's recipes: ``_trt``)."""
    main = _git(repo, "rev-parse", "refs/heads/main").strip()
    pattern = re.compile(touching) if touching else None
    rows = []
    for line in _git(
        repo, "for-each-ref", "refs/pull/*/head", "--format=%(refname) %(objectname) %(committerdate:unix)"
    ).splitlines():
        ref, sha, when = line.split()
        if not when:
            continue
        pr = int(ref.split("/")[2])
        if exclude and pr in exclude:
            continue
        if pattern is not None and not _touches(repo, main, sha, pattern):
            continue
        rows.append({"pr": pr, "head": sha, "date": int(when)})
    rows.sort(key=lambda r: (r["date"], r["pr"]))
    rng = random.Random(seed)
    bins = [rows[i * len(rows) // strata : (i + 1) * len(rows) // strata] for i in range(strata)]
    test, dev = [], []
    for b in bins:
        pool = list(b)
        rng.shuffle(pool)
        k_test = round(n_test * len(b) / len(rows))
        k_dev = round(n_dev * len(b) / len(rows))
        test += pool[:k_test]
        dev += pool[k_test : k_test + k_dev]
    test.sort(key=lambda r: r["pr"])
    dev.sort(key=lambda r: r["pr"])
    return {
        "repo": str(repo),
        "main": main,
        "seed": seed,
        "strata": strata,
        "pulls": len(rows),
        "touching": touching,
        "dev": dev,
        "test": test,
    }


def _changed_recipes(clone: Path, base: str) -> list[str]:
    out = _git(clone, "diff", "--name-only", "--no-renames", "--diff-filter=AMR", base, "HEAD", "--", "*.sh")
    return [p for p in out.splitlines() if p]


def _unswept(clone: Path, recipes: list[str]) -> list[str]:
    """The recipes among ``recipes`` that no sweep point of the tree at ``clone`` runs (a config's
    entry or a dispatch workflow), under the benchmark folders only."""
    from recipelint.sweep import configs

    wanted = [r for r in recipes if r.startswith("benchmarks/")]
    if not wanted:
        return []
    try:
        cs = configs.load(clone)
    except Exception as e:  # a harness: record, go on
        return [f"(configs failed: {e})"]
    run = {str(Path(p).resolve()) for p in cs.by_script}
    return [r for r in wanted if str((clone / r).resolve()) not in run]


#: git's words for a file of the tree whose content the snapshot does not hold (its largest files
#: may be listed but absent)
_ABSENT = re.compile(r"unable to read sha1 file of (.+?) \([0-9a-f]{40}\)")


def _checkout(clone: Path, head: str) -> list[str]:
    """Check ``head`` out; files whose content the snapshot lacks are left out of the work tree
    (a sparse checkout without them) and returned: the replay records them."""
    absent: list[str] = []
    for _ in range(20):
        p = subprocess.run(["git", "checkout", "-q", "--detach", "-f", head], cwd=clone, capture_output=True, text=True)
        more = [m for m in _ABSENT.findall(p.stderr) if m not in absent]
        if p.returncode == 0 or not more:
            if p.returncode != 0:
                raise subprocess.CalledProcessError(p.returncode, p.args, p.stdout, p.stderr)
            break
        absent += more
        _git(clone, "config", "core.sparseCheckout", "true")
        (clone / ".git" / "info").mkdir(exist_ok=True)
        (clone / ".git" / "info" / "sparse-checkout").write_text("/*\n" + "".join(f"!/{a}\n" for a in absent))
    if not absent and (clone / ".git" / "info" / "sparse-checkout").exists():
        # (an earlier PR's exclusions: this head has every file)
        (clone / ".git" / "info" / "sparse-checkout").unlink()
        _git(clone, "config", "core.sparseCheckout", "false")
        _git(clone, "checkout", "-q", "--detach", "-f", head)
    return absent


def replay(clone: Path, pr: dict, main: str, cache_dir: Path, timeout: float, binary: str) -> dict:
    absent = _checkout(clone, pr["head"])
    _git(clone, "clean", "-q", "-fdx")
    base = _git(clone, "merge-base", main, pr["head"], check=False).strip()
    rec: dict = {"pr": pr["pr"], "head": pr["head"], "date": pr["date"], "base": base}
    if absent:
        rec["absent_from_snapshot"] = absent
    if not base:
        rec["skipped"] = "no merge base with main"
        return rec
    changed = _git(clone, "diff", "--name-only", "--no-renames", base, "HEAD").splitlines()
    rec["changed"] = len(changed)
    rec["changed_recipes"] = _changed_recipes(clone, base)
    cmd = [binary, "check", ".", "--diff-base", base, "--output-format", "json"]
    env = dict(os.environ, RECIPELINT_CACHE_DIR=str(cache_dir), NO_COLOR="1")
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.monotonic()
    try:
        p = subprocess.run(cmd, cwd=clone, env=env, capture_output=True, text=True, timeout=timeout)
        status, out, err = p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired:
        status, out, err = None, "", "timeout"
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    rec["wall"] = round(time.monotonic() - t0, 3)
    rec["cpu"] = round((after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), 3)
    rec["status"] = status
    rec["crash"] = status not in (0, 1, 2) or "Traceback" in err or "internal error" in err
    rec["stderr"] = err[-4000:]
    findings = []
    if out.strip():
        try:
            findings = json.loads(out)
        except ValueError:
            rec["crash"] = True
            rec["stdout_tail"] = out[-2000:]
    rec["findings"] = [
        {
            "code": f.get("code"),
            "severity": f.get("severity"),
            "path": (f.get("location") or {}).get("path"),
            "line": (f.get("location") or {}).get("line"),
            "message": f.get("message"),
            "points": len(f.get("points") or []),
        }
        for f in findings
    ]
    codes = Counter(f["code"] for f in findings)
    rec["codes"] = dict(sorted(codes.items()))
    for code in ("RL506", "RL006", "RL008"):
        rec[code] = codes.get(code, 0)
    rec["unswept_recipes"] = _unswept(clone, rec["changed_recipes"])
    return rec


def run(args) -> int:
    spec = json.loads(Path(args.sample).read_text())
    pulls = spec[args.set]
    out = Path(args.out)
    done = set()
    if out.exists():
        done = {json.loads(line)["pr"] for line in out.read_text().splitlines() if line.strip()}
    clone = Path(args.clone)
    if not (clone / ".git").exists():
        subprocess.run(["git", "clone", "-q", "--shared", "--no-checkout", str(args.repo), str(clone)], check=True)
    _git(clone, "config", "core.hooksPath", "/dev/null")
    main = spec["main"]
    cache_dir = Path(args.cache_dir)
    cache_dir.mkdir(parents=True, exist_ok=True)
    todo = [p for p in pulls if p["pr"] not in done][: args.limit or None]
    for i, pr in enumerate(todo, 1):
        try:
            _git(clone, "cat-file", "-e", pr["head"] + "^{commit}")
        except subprocess.CalledProcessError:
            rec = {"pr": pr["pr"], "head": pr["head"], "date": pr["date"], "skipped": "head commit not in the snapshot"}
        else:
            rec = replay(clone, pr, main, cache_dir, args.timeout, args.recipelint)
        with out.open("a") as fh:
            fh.write(json.dumps(rec) + "\n")
        line = f"[{i}/{len(todo)}] PR {pr['pr']}: "
        line += rec.get("skipped") or f"exit {rec['status']} {rec['wall']:.1f}s {rec['codes']}{' CRASH' if rec['crash'] else ''}"
        print(line, flush=True)
    return 0


#: a later commit whose subject says it fixes something: its removal of a PR's line is a candidate defect
_FIX = re.compile(r"\b(?:fix|bug|correct|wrong|missing|typo|broken|crash|revert)", re.I)


def candidates(repo: Path, spec: dict, which: str, max_lines: int = 40) -> list[dict]:
    """Candidate defects of the PRs of a set: a recipe line a PR added (not a comment, not blank)
    that a later commit on main changed or removed — the fix of a defect, often.  For each PR
    merged into main (its head an ancestor of main, or its added line present on main after its
    date), the first main commit after the PR's head date whose diff removes that line."""
    main = spec["main"]
    out = []
    for pr in spec[which]:
        head = pr["head"]
        base = _git(repo, "merge-base", main, head, check=False).strip()
        if not base:
            continue
        diff = _git(repo, "diff", "--unified=0", "--no-renames", base, head, "--", "benchmarks/*.sh", check=False)
        added: list[tuple[str, str]] = []
        path = None
        for line in diff.splitlines():
            if line.startswith("+++ "):
                path = line[6:] if line.startswith("+++ b/") else None
            elif line.startswith("+") and not line.startswith("+++") and path:
                text = line[1:].strip()
                if text and not text.startswith("#") and len(text) > 8:
                    added.append((path, line[1:]))
        for path, text in added[:max_lines]:
            # the main commits after the PR that removed this exact line from that file
            log = _git(repo, "log", "--format=%H %ct", f"--since={pr['date']}", "-S", text.strip(), main, "--", path, check=False)
            for entry in log.splitlines()[::-1]:  # oldest first
                sha, when = entry.split()
                patch = _git(repo, "show", "--format=", "--unified=0", sha, "--", path, check=False)
                if ("-" + text) in patch.splitlines():
                    subject = _git(repo, "log", "-1", "--format=%s", sha).strip()
                    out.append(
                        {
                            "pr": pr["pr"],
                            "path": path,
                            "line": text.strip(),
                            "fixed_by": sha[:12],
                            "subject": subject,
                            "fix": bool(_FIX.search(subject)),
                            "date": int(when),
                        }
                    )
                    break
    return out


def summary(paths: list[str]) -> str:
    recs = [json.loads(line) for p in paths for line in Path(p).read_text().splitlines() if line.strip()]
    ran = [r for r in recs if "skipped" not in r]
    codes: Counter = Counter()
    for r in ran:
        codes.update(r["codes"])
    walls = sorted(r["wall"] for r in ran)
    cpus = sorted(r["cpu"] for r in ran)

    def q(xs, f):
        return xs[min(len(xs) - 1, int(f * len(xs)))] if xs else 0

    lines = [
        f"PRs: {len(recs)} ({len(ran)} replayed, {len(recs) - len(ran)} skipped: "
        + ", ".join(f"{n} {k}" for k, n in Counter(r["skipped"] for r in recs if "skipped" in r).items())
        + ")",
        f"exit status: {dict(Counter(str(r['status']) for r in ran))}; crashes: {sum(r['crash'] for r in ran)}",
        f"wall per PR: median {q(walls, 0.5):.1f} s, p90 {q(walls, 0.9):.1f} s, max {q(walls, 1):.1f} s, total {sum(walls):.0f} s",
        f"CPU per PR: median {q(cpus, 0.5):.1f} s, p90 {q(cpus, 0.9):.1f} s, max {q(cpus, 1):.1f} s, total {sum(cpus):.0f} s",
        f"PRs changing a recipe: {sum(bool(r['changed_recipes']) for r in ran)}; "
        f"changed recipes no sweep point runs: {sum(len(r['unswept_recipes']) for r in ran)} in {sum(bool(r['unswept_recipes']) for r in ran)} PRs",
        f"PRs with findings: {sum(bool(r['findings']) for r in ran)}; findings: {sum(codes.values())}",
        "findings by code: " + ", ".join(f"{c} {n}" for c, n in sorted(codes.items())),
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("sample")
    s.add_argument("--repo", type=Path, required=True)
    s.add_argument("--seed", type=int, default=45)
    s.add_argument("--dev", type=int, default=300)
    s.add_argument("--test", type=int, default=60)
    s.add_argument("--strata", type=int, default=10)
    s.add_argument("--out", required=True)
    s.add_argument("--exclude", action="append", default=[], help="a sample file whose PRs are not drawn again")
    s.add_argument("--touching", help="only PRs changing a path this regular expression matches")
    r = sub.add_parser("run")
    r.add_argument("--repo", type=Path, required=True)
    r.add_argument("--sample", required=True)
    r.add_argument("--set", choices=("dev", "test"), required=True)
    r.add_argument("--out", required=True)
    r.add_argument("--clone", default="/tmp/pr-replay-clone")
    r.add_argument("--cache-dir", default="/tmp/pr-replay-cache")
    r.add_argument("--timeout", type=float, default=600)
    r.add_argument("--limit", type=int, default=0)
    # (made absolute: the replay runs it from the clone)
    r.add_argument(
        "--recipelint", default=str(Path(sys.executable).with_name("recipelint")), type=lambda p: str(Path(p).absolute())
    )
    m = sub.add_parser("summary")
    m.add_argument("results", nargs="+")
    c = sub.add_parser("candidates")
    c.add_argument("--repo", type=Path, required=True)
    c.add_argument("--sample", required=True)
    c.add_argument("--set", choices=("dev", "test"), required=True)
    c.add_argument("--out", required=True)
    a = ap.parse_args(argv)
    if a.cmd == "candidates":
        found = candidates(a.repo, json.loads(Path(a.sample).read_text()), a.set)
        Path(a.out).write_text("".join(json.dumps(x) + "\n" for x in found))
        fixes = [x for x in found if x["fix"]]
        print(
            f"{len(found)} added lines a later main commit changed, in {len({x['pr'] for x in found})} PRs; "
            f"{len(fixes)} of them by a commit that says it fixes ({len({x['pr'] for x in fixes})} PRs)"
        )
        return 0
    if a.cmd == "sample":
        excluded = {p["pr"] for f in a.exclude for k in ("dev", "test") for p in json.loads(Path(f).read_text())[k]}
        spec = sample(a.repo, a.seed, a.dev, a.test, a.strata, excluded, a.touching)
        spec["excluded"] = sorted(a.exclude)
        Path(a.out).write_text(json.dumps(spec, indent=1) + "\n")
        print(f"{len(spec['dev'])} dev, {len(spec['test'])} test PRs of {spec['pulls']}")
        return 0
    if a.cmd == "run":
        return run(a)
    print(summary(a.results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
