"""tools/pr_replay.py checks out a PR head whose tree names files the snapshot has no content for
(InferenceX's largest data files are listed but absent): the replay leaves them out and says so,
instead of stopping the whole sample (PR 908 of sample 50 did)."""

from __future__ import annotations

import sys
from pathlib import Path

from helpers import git

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tools"))
import pr_replay


def test_a_head_with_a_file_the_snapshot_lacks_is_checked_out_without_it(tmp_path):
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q")
    (repo / "recipe.sh").write_text("vllm serve m\n")
    (repo / "data").mkdir()
    (repo / "data" / "big.jsonl").write_text('{"big": true}\n')
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "head")
    head = git(repo, "rev-parse", "HEAD").strip()
    blob = git(repo, "rev-parse", "HEAD:data/big.jsonl").strip()
    (repo / ".git" / "objects" / blob[:2] / blob[2:]).unlink()  # (the snapshot lacks its content)
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", "--shared", "--no-checkout", str(repo), str(clone))

    assert pr_replay._checkout(clone, head) == ["data/big.jsonl"]
    assert (clone / "recipe.sh").read_text() == "vllm serve m\n" and not (clone / "data" / "big.jsonl").exists()
