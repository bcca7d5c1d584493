"""Rewrite the seed replica's golden outputs (``fixtures/seed/expected.*``) from the current code,
as the tests produce them: the seed copied into a repository of its own, ``check benchmarks`` in
every format, no cache, no colour.

    python tools/update_seed_goldens.py        # then review `git diff fixtures/seed`

A development tool: a change of a message or a rule's documentation changes the goldens; the diff
is the review.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SEED = ROOT / "fixtures" / "seed"
FORMATS = {
    "concise": "expected.concise.txt",
    "json": "expected.json",
    "json-lines": "expected.jsonl",
    "github": "expected.github.txt",
    "sarif": "expected.sarif.json",
    "full": "expected.full.txt",
}


def main() -> int:
    exe = [sys.executable, "-m", "recipelint"]
    env = dict(os.environ, NO_COLOR="1")
    env.pop("FORCE_COLOR", None)
    with tempfile.TemporaryDirectory() as tmp:
        repo = Path(tmp) / "seed"
        shutil.copytree(SEED, repo, ignore=shutil.ignore_patterns("expected.*"))
        (repo / ".git").mkdir()
        runs = [(["-o", fmt], name) for fmt, name in FORMATS.items()] + [(["--statistics"], "expected.statistics.txt")]
        for args, name in runs:
            r = subprocess.run(
                [*exe, "check", "benchmarks", *args, "--no-cache"], cwd=repo, env=env, capture_output=True, text=True
            )
            if r.returncode not in (0, 1):
                print(f"{name}: exit {r.returncode}\n{r.stderr}", file=sys.stderr)
                return 1
            (SEED / name).write_text(r.stdout)
            print(f"wrote fixtures/seed/{name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
