"""Check on a real history that diff mode's scope changes nothing: for commits picked at random,
``check --diff-base PARENT`` with the scope (``lint.scope``) must report exactly what the
whole-tree diff reports (both trees analysed in full).

    python tools/diff_scope_equivalence.py --repo /path/to/InferenceX --commits 200 [--seed 1]
        [--out results.jsonl] [--paths .] [--jobs 2] [--pulls]

Each commit is checked out (detached) in a scratch clone of ``--repo``; the run compares it with
its first parent, as the pre-commit hook compares a commit with HEAD and the Action a pull
request with its base.  One JSON line per commit goes to ``--out`` (appended: an interrupted run
resumes where it stopped, skipping commits already there): the commit, how many files changed, the
scope (whole tree or how many recipes), the findings of both ways, whether they agree, and the CPU
each way took.  When the scope is the whole tree the two ways are one computation and the
whole-tree run is not repeated (``"by": "construction"``), unless ``--recheck-whole``.

A development tool: it runs git (clone, checkout) on a repository you name, never recipelint on
anything but that checkout.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path


def _git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True).stdout


def _fixed(fixed) -> list[str]:
    """The base's findings a change removed, by what they are (a base-tree file's path is in the
    export, or, for a file alike in both trees, in the work tree)."""
    out = []
    for f in fixed:
        path = f.span.path.split("/tree/", 1)[1] if "/tree/" in f.span.path else f.span.path
        out.append(json.dumps([f.code, path, f.key, f.message, list(f.points)]))
    return sorted(out)


def _findings(found) -> list[str]:
    from recipelint.report.jsonfmt import render_json

    return [json.dumps(f, sort_keys=True) for f in json.loads(render_json(found))]


def check_commit(clone: Path, commit: str, paths: list[str], jobs: int, recheck_whole: bool, base: str | None = None) -> dict:
    """Compare the scoped and the whole-tree diff of ``commit`` against ``base`` (its first
    parent when None)."""
    from recipelint.lint.check import Options, lint
    from recipelint.lint.settings import find, load

    _git(clone, "checkout", "-q", "--detach", "-f", commit)
    _git(clone, "clean", "-qfdx")
    parent = base or _git(clone, "rev-parse", f"{commit}^").strip()
    changed = [n for n in _git(clone, "diff", "--name-only", parent, commit).splitlines() if n]
    os.chdir(clone)
    ps = [Path(p) for p in paths]
    st = load(find(ps[0]))
    opt = Options(diff_base=parent, settings=st, jobs=jobs, cache=True)
    if not recheck_whole:  # (a whole-tree scope is the whole-tree run itself: nothing to compare)
        from recipelint.cache.store import cache_dir
        from recipelint.gitdiff import base_tree
        from recipelint.lint.check import diff_scope

        bt = base_tree(parent, ps[0], cache_dir())
        sc = diff_scope(ps, opt, bt)
        if sc.whole:
            return {"commit": commit, "parent": parent, "changed": len(changed), "whole": True, "why": "; ".join(sc.why),
                    "by": "construction", "agree": True}  # fmt: skip
    t0 = time.process_time()
    scoped = lint(ps, options=opt)
    t_scoped = time.process_time() - t0
    sc = scoped.scope
    row = {
        "commit": commit,
        "parent": parent,
        "changed": len(changed),
        "whole": bool(sc is not None and sc.whole),
        "scope": sorted(sc.head | sc.base) if sc is not None and not sc.whole else None,
        "why": scoped.scope_note,
        "scoped_findings": _findings(scoped.findings),
        "scoped_fixed": _fixed(scoped.fixed),
        "cpu_scoped": round(t_scoped, 3),
    }
    t0 = time.process_time()
    # the reference shares nothing with the scoped run: no cache of any kind (a per-file entry the
    # scoped run wrote would otherwise answer for it)
    whole = lint(ps, options=replace(opt, scoped=False, cache=False))
    row["cpu_whole"] = round(time.process_time() - t0, 3)
    row["whole_findings"] = _findings(whole.findings)
    row["whole_fixed"] = _fixed(whole.fixed)
    row["by"] = "comparison"
    row["agree"] = row["whole_findings"] == row["scoped_findings"] and row["whole_fixed"] == row["scoped_fixed"]
    return row


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repo", type=Path, required=True)
    ap.add_argument("--commits", type=int, default=200)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", type=Path, default=Path("diff-scope-equivalence.jsonl"))
    ap.add_argument("--paths", nargs="*", default=["."])
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--recheck-whole", action="store_true")
    ap.add_argument("--rev", default="HEAD", help="the history to pick from (first-parent commits of this revision)")
    ap.add_argument(
        "--touching",
        nargs="*",
        default=[],
        help="pick only commits that change one of these paths (e.g. runners/ .github/workflows/benchmark-tmpl.yml)",
    )
    ap.add_argument(
        "--pulls",
        action="store_true",
        help="pick pull-request heads (refs/pull/*/head) instead, each compared with its merge base with --rev, "
        "as the Action compares a pull request",
    )
    args = ap.parse_args(argv)

    repo = args.repo.resolve()
    out = args.out.resolve()
    bases: dict[str, str] = {}
    pull_refs: dict[str, str] = {}
    if args.pulls:
        refs = dict(
            line.split(" ", 1)[::-1]
            for line in _git(repo, "for-each-ref", "--format=%(objectname) %(refname)", "refs/pull/*/head").splitlines()
        )  # ref -> commit
        heads = sorted(refs.items())
        picked = []
        for ref, head in random.Random(args.seed).sample(heads, len(heads)):
            if len(picked) >= args.commits:
                break
            try:
                mb = _git(repo, "merge-base", args.rev, head).strip()
            except subprocess.CalledProcessError:
                continue
            if mb and mb != head and head not in bases:
                bases[head] = mb
                picked.append(head)
                pull_refs[head] = ref
    else:
        history = _git(repo, "rev-list", "--first-parent", "--min-parents=1", args.rev, "--", *args.touching).split()
        picked = random.Random(args.seed).sample(history, min(args.commits, len(history)))
    done = set()
    if out.exists():
        for line in out.read_text().splitlines():
            try:
                done.add(json.loads(line)["commit"])
            except (ValueError, KeyError):
                continue
    work = Path(tempfile.mkdtemp(prefix="rl-equiv-"))
    os.environ.setdefault("RECIPELINT_CACHE_DIR", str(work / "cache"))
    clone = work / "repo"
    subprocess.run(["git", "clone", "-q", "--no-checkout", str(repo), str(clone)], check=True)
    if args.pulls:  # (a clone does not copy refs/pull/*: each picked one is fetched; a snapshot may lack some objects)
        for head, ref in list(pull_refs.items()):
            got = subprocess.run(["git", "fetch", "-q", str(repo), f"+{ref}:{ref}"], cwd=clone, capture_output=True)
            if got.returncode != 0:
                picked.remove(head)
                print(f"skipped {ref}: not complete in {repo}", file=sys.stderr)
    import gc

    from recipelint.cli import GC_THRESHOLDS

    gc.set_threshold(*GC_THRESHOLDS)
    n_ok = n_bad = 0
    for i, commit in enumerate(picked, 1):
        if commit in done:
            continue
        try:
            row = check_commit(clone, commit, args.paths, args.jobs, args.recheck_whole, bases.get(commit))
        except Exception as e:  # (a commit recipelint cannot check: said, and the run goes on)
            row = {"commit": commit, "error": f"{type(e).__name__}: {e}"}
        with out.open("a") as fh:
            fh.write(json.dumps(row) + "\n")
        ok = row.get("agree")
        n_ok += ok is True
        n_bad += ok is False
        scope = "whole" if row.get("whole") else f"{len(row.get('scope') or [])} recipes"
        print(f"{i}/{len(picked)} {commit[:9]} changed {row.get('changed')} scope {scope} "
              f"{'agree' if ok else 'DIFFER' if ok is False else row.get('error')} "
              f"cpu {row.get('cpu_scoped')} vs {row.get('cpu_whole', '-')}", file=sys.stderr, flush=True)  # fmt: skip
    print(f"agree {n_ok}, differ {n_bad}", file=sys.stderr)
    return 1 if n_bad else 0


if __name__ == "__main__":
    sys.exit(main())
