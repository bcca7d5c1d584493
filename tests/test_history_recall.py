"""tools/history_recall.py on a tiny synthetic repository (not on InferenceX)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import ROOT

sys.path.insert(0, str(ROOT / "tools"))
import history_recall as hr

RECIPELINT = Path(sys.executable).parent / "recipelint"
BROKEN = "#!/bin/bash\nif [ -n \"$TP\" ]; then\n    echo tp\n"  # the `fi` is missing
FIXED = BROKEN + "fi\n"

pytestmark = pytest.mark.skipif(shutil.which("git") is None or not RECIPELINT.exists(), reason="needs git and recipelint")


def _git(repo: Path, *args: str) -> str:
    env = dict(os.environ, GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@t", GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@t")
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True, env=env).stdout.strip()


def _commit(repo: Path, files: dict[str, str | None], msg: str) -> str:
    for rel, text in files.items():
        p = repo / rel
        if text is None:
            p.unlink()
            continue
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", msg)
    return _git(repo, "rev-parse", "HEAD")


@pytest.fixture
def repo(tmp_path):
    r = tmp_path / "repo"
    r.mkdir()
    _git(r, "init", "-q")
    c1 = _commit(
        r,
        {
            "benchmarks/a.sh": BROKEN,
            "benchmarks/b.sh": BROKEN,
            "benchmarks/c.sh": "#!/bin/bash\necho ok\n",
            ".github/configs/x-master.yaml": "{}\n",
            "notes.txt": "not materialised\n",
        },
        "bugs",
    )
    c2 = _commit(r, {"benchmarks/a.sh": FIXED, "benchmarks/b.sh": None}, "fix")
    return r, c1, c2


def _manifest(tmp_path: Path, c1: str, c2: str) -> Path:
    m = tmp_path / "cases.yaml"
    m.write_text(
        "repository: test/tiny\ncases:\n"
        f"  - {{id: fixed, expected: RL001, buggy: {c1}, fix: {c2}, path: benchmarks/a.sh, summary: missing fi}}\n"
        f"  - {{id: deleted, expected: RL001, buggy: {c1}, fix: {c2}, path: benchmarks/b.sh, summary: missing fi}}\n"
        f"  - {{id: missed, expected: RL304, buggy: {c1}, path: benchmarks/c.sh, summary: nothing to find}}\n"
        f"  - {{id: norule, expected: null, buggy: {c1}, path: benchmarks/a.sh, summary: a class no rule covers}}\n"
        f"  - {{id: incidental, expected: null, buggy: {c1}, fix: {c2}, path: benchmarks/a.sh, summary: seen by another rule}}\n"
    )
    return m


def test_cases_are_found_and_judged_at_the_fix_commit(repo, tmp_path):
    r, c1, c2 = repo
    _, cases = hr.load_manifest(_manifest(tmp_path, c1, c2))
    trees = hr.Trees(r, tmp_path / "trees", RECIPELINT)
    res = {c.id: hr.run_case(c, trees) for c in cases}
    assert (res["fixed"]["before"], res["fixed"]["before_lines"], res["fixed"]["at_fix"]) == ("found", [4], "gone")
    assert (res["deleted"]["before"], res["deleted"]["at_fix"]) == ("found", "removed")
    assert (res["missed"]["before"], res["missed"]["at_fix"]) == ("absent", None)
    assert res["norule"]["before"] == "absent" and res["norule"]["before_codes"] == ["RL001"]
    assert res["norule"]["incidental"] == []  # no fix commit given
    assert res["incidental"]["incidental"] == ["RL001"]  # went away with the fix
    tot = hr.totals(res.values())
    assert (tot["found"], tot["with_rule"], tot["recall"]) == (2, 3, 0.667)
    assert (tot["fixed_at_fix_commit"], tot["found_with_fix"], tot["fixed_rate"]) == (2, 2, 1.0)
    assert tot["missed_classes"] == ["norule", "incidental"]
    assert tot["missed_classes_reported_incidentally"] == ["incidental"]
    tree = tmp_path / "trees" / c1[:12]
    assert (tree / ".git").is_dir() and (tree / "benchmarks" / "a.sh").exists() and not (tree / "notes.txt").exists()
    assert not (tree / "configs").exists()  # old-layout configs are left where they are by default


def test_old_layout_configs_can_be_relocated(repo, tmp_path):
    r, c1, _ = repo
    notes = hr.materialise(r, c1, tmp_path / "t", relocate=True)
    assert notes == [".github/configs copied to configs/"] and (tmp_path / "t" / "configs" / "x-master.yaml").exists()


def test_the_command_line_is_deterministic_and_has_json(repo, tmp_path, capsys):
    r, c1, c2 = repo
    m = _manifest(tmp_path, c1, c2)
    args = ["--repo", str(r), "--manifest", str(m), "--recipelint", str(RECIPELINT)]
    assert hr.main(args) == 0
    first = capsys.readouterr().out
    assert hr.main(args) == 0
    assert capsys.readouterr().out == first
    assert "recall: 2/3 = 0.667" in first and "no rule (missed classes): norule, incidental" in first
    assert hr.main([*args, "--json", "--case", "fixed"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [c["id"] for c in data["cases"]] == ["fixed"] and data["totals"]["recall"] == 1.0


def test_the_manifest_rejects_unknown_keys_and_duplicate_ids(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("cases:\n  - {id: a, expected: RL001, buggy: x, path: p, summary: s, bogus: 1}\n")
    with pytest.raises(ValueError, match="unknown keys"):
        hr.load_manifest(bad)
    bad.write_text("cases:\n" + "  - {id: a, expected: RL001, buggy: x, path: p, summary: s}\n" * 2)
    with pytest.raises(ValueError, match="duplicate"):
        hr.load_manifest(bad)


def test_the_committed_manifest_loads():
    _, cases = hr.load_manifest(hr.DEFAULT_MANIFEST)
    assert len(cases) >= 15
    assert all(len(c.buggy) == 40 and (c.fix is None or len(c.fix) == 40) for c in cases)
