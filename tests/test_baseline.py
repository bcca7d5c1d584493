"""--write-baseline / --baseline: adopting the check on a tree that has findings."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from recipelint.cli import app

runner = CliRunner()

AGENTIC_BUG = """#!/usr/bin/env bash
vllm serve deepseek-ai/DeepSeek-V4-Pro --tensor-parallel-size "$TP" --tool-call-parser deepseek_v4 &
"""


def _tree(tmp_path):
    (tmp_path / ".git").mkdir()
    rec = tmp_path / "benchmarks" / "agentic"
    rec.mkdir(parents=True)
    (rec / "a_fp4_b200_vllm.sh").write_text(AGENTIC_BUG)
    (rec / "b_fp4_b200_vllm.sh").write_text(AGENTIC_BUG)
    return rec


def test_baseline_hides_what_it_lists_and_reports_what_is_new_or_gone(tmp_path, monkeypatch):
    rec = _tree(tmp_path)
    monkeypatch.chdir(tmp_path)
    w = runner.invoke(app, ["check", "benchmarks", "--select", "RL201", "--write-baseline", "rl-baseline.json"])
    assert w.exit_code == 0 and "wrote 2 findings" in w.output, w.output
    doc = json.loads((tmp_path / "rl-baseline.json").read_text())
    assert [e["path"] for e in doc["findings"]] == [
        "benchmarks/agentic/a_fp4_b200_vllm.sh",
        "benchmarks/agentic/b_fp4_b200_vllm.sh",
    ]
    r = runner.invoke(app, ["check", "benchmarks", "--select", "RL201", "--baseline", "rl-baseline.json", "-o", "json"])
    assert r.exit_code == 0 and json.loads(r.stdout) == [], r.output
    # lines moved: still baselined; a new recipe with the bug: reported; a fixed one: listed as gone
    (rec / "a_fp4_b200_vllm.sh").write_text(AGENTIC_BUG.replace("bash\n", "bash\n# moved\n\n"))
    (rec / "b_fp4_b200_vllm.sh").write_text(AGENTIC_BUG.replace(" &", " --enable-auto-tool-choice &"))
    (rec / "c_fp4_b200_vllm.sh").write_text(AGENTIC_BUG)
    r = runner.invoke(app, ["check", "benchmarks", "--select", "RL201", "--baseline", "rl-baseline.json", "-o", "concise"])
    assert r.exit_code == 1
    assert "c_fp4_b200_vllm.sh" in r.stdout and "a_fp4_b200_vllm.sh" not in r.stdout, r.output
    assert "1 baselined finding no longer occur" in r.stderr and "b_fp4_b200_vllm.sh" in r.stderr, r.stderr


def test_a_baseline_from_another_folder_matches_by_its_own_location(tmp_path, monkeypatch):
    _tree(tmp_path)
    monkeypatch.chdir(tmp_path)
    runner.invoke(app, ["check", "benchmarks", "--select", "RL201", "--write-baseline", "rl-baseline.json"])
    monkeypatch.chdir(tmp_path / "benchmarks")
    r = runner.invoke(app, ["check", ".", "--select", "RL201", "--baseline", "../rl-baseline.json", "-o", "json"])
    assert r.exit_code == 0 and json.loads(r.stdout) == [], r.output


def test_bad_baselines_are_one_line_errors(tmp_path, monkeypatch):
    _tree(tmp_path)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "bad.json").write_text("{not json")
    (tmp_path / "other.json").write_text('{"findings": []}')
    for name, needle in (
        ("missing.json", "not found"),
        ("bad.json", "invalid JSON"),
        ("other.json", "not a recipelint baseline"),
    ):
        r = runner.invoke(app, ["check", "benchmarks", "--baseline", name])
        assert r.exit_code == 2 and needle in r.output and len(r.output.strip().splitlines()) == 1, r.output
