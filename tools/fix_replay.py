"""Replay ``check --fix --unsafe-fixes`` on real pull requests: for each PR of a sample (``tools/
pr_replay.py sample``), check out its head in a scratch clone, lint the recipes the PR changed,
apply every fix, and record what happened — the findings with a fix (safe / unsafe), the fixes
applied and those refused (with recipelint's reason), whether bash still parses every changed
file, what the re-lint left, and the diff (written to ``--diffs DIR`` for reading).

    python tools/fix_replay.py --repo MIRROR --sample bench/pr_replay-sample-48.json --set dev \\
        --out fixes-dev.jsonl --diffs /tmp/fix-diffs [--recipelint BIN] [--limit N]

A development tool: it runs git and recipelint on a checkout of a repository you name.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path


def _git(cwd: Path, *args: str, check: bool = True) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=check, capture_output=True, text=True).stdout


def replay(clone: Path, pr: dict, main: str, binary: str, diffs: Path) -> dict:
    _git(clone, "checkout", "-q", "--detach", "-f", pr["head"])
    _git(clone, "clean", "-q", "-fdx")
    base = _git(clone, "merge-base", main, pr["head"], check=False).strip()
    rec: dict = {"pr": pr["pr"], "head": pr["head"]}
    if not base:
        rec["skipped"] = "no merge base"
        return rec
    changed = [
        p
        for p in _git(clone, "diff", "--name-only", "--no-renames", "--diff-filter=AM", base, "HEAD").splitlines()
        if p.endswith(".sh") and (clone / p).is_file() and not (clone / p).is_symlink()
    ]
    rec["recipes"] = len(changed)
    if not changed:
        return rec
    env = dict(os.environ, NO_COLOR="1")
    env.pop("RECIPELINT_CACHE_DIR", None)
    before = subprocess.run(
        [binary, "check", *changed, "-o", "json", "--no-cache"], cwd=clone, env=env, capture_output=True, text=True, timeout=600
    )
    found = json.loads(before.stdout or "[]")
    rec["findings"] = len(found)
    rec["with_fix"] = {
        "safe": sum(1 for f in found if (f.get("fix") or {}).get("applicability") == "safe"),
        "unsafe": sum(1 for f in found if (f.get("fix") or {}).get("applicability") == "unsafe"),
    }
    rec["fixes"] = [
        {"code": f["code"], "line": f["location"]["line"], "title": f["fix"]["title"], "applicability": f["fix"]["applicability"]}
        for f in found
        if f.get("fix")
    ]
    if not rec["fixes"]:
        return rec
    run = subprocess.run(
        [binary, "check", *changed, "--fix", "--unsafe-fixes", "--no-cache", "-o", "json"],
        cwd=clone,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    rec["status"] = run.returncode
    rec["crash"] = run.returncode not in (0, 1, 2) or "Traceback" in run.stderr
    rec["fix_notes"] = [ln for ln in run.stderr.splitlines() if "fixed" in ln or "not fixed" in ln]
    after = json.loads(run.stdout or "[]")
    rec["after"] = len(after)
    diff = _git(clone, "diff", "--no-color")
    rec["changed_files"] = len({ln[6:] for ln in diff.splitlines() if ln.startswith("+++ b/")})
    rec["bash_n"] = all(
        subprocess.run(["bash", "-n", p], cwd=clone, capture_output=True).returncode == 0
        for p in {ln[6:] for ln in diff.splitlines() if ln.startswith("+++ b/")}
    )
    if diff:
        diffs.mkdir(parents=True, exist_ok=True)
        (diffs / f"pr{pr['pr']}.diff").write_text(diff)
    _git(clone, "checkout", "-q", "-f", ".")
    return rec


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repo", type=Path, required=True)
    ap.add_argument("--sample", required=True)
    ap.add_argument("--set", choices=("dev", "test"), required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--diffs", type=Path, required=True)
    ap.add_argument("--clone", default="/tmp/fix-replay-clone")
    ap.add_argument("--limit", type=int, default=0)
    ap.add_argument("--recipelint", default=str(Path(sys.executable).with_name("recipelint")))
    args = ap.parse_args()
    spec = json.loads(Path(args.sample).read_text())
    clone = Path(args.clone)
    if not (clone / ".git").exists():
        subprocess.run(["git", "clone", "-q", "--shared", "--no-checkout", str(args.repo), str(clone)], check=True)
    _git(clone, "config", "core.hooksPath", "/dev/null")
    pulls = spec[args.set][: args.limit or None]
    with open(args.out, "a") as out:
        for i, pr in enumerate(pulls, 1):
            rec = replay(clone, pr, spec["main"], args.recipelint, args.diffs)
            out.write(json.dumps(rec) + "\n")
            out.flush()
            print(f"[{i}/{len(pulls)}] PR {pr['pr']}: {rec.get('with_fix')} {rec.get('fix_notes', '')}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
