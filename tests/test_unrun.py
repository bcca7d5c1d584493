"""Recipes no master-config entry runs, in a repository that has master configs: their
default-matrix points are invented, so only sweep-independent rules check them, they are not
anybody's parity sibling, and the run says how many there are (fixtures/rules/RL5xx has three)."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from recipelint.cli import app
from recipelint.lint.registry import all_rules

runner = CliRunner()
TREE = Path(__file__).resolve().parent.parent / "fixtures" / "rules" / "RL5xx"


def test_the_run_says_which_recipes_no_entry_runs(monkeypatch):
    monkeypatch.chdir(TREE)
    r = runner.invoke(app, ["check", ".", "-o", "concise", "--no-cache"])
    assert "recipelint: 4 recipes with a serve launch get no sweep point from the master configs (3 in " in r.stderr, r.stderr
    assert "1 in benchmarks/single_node/fixed_seq_len/deprecated/" in r.stderr
    # machine formats stay clean: the note is for people (stderr, full and concise only)
    j = runner.invoke(app, ["check", ".", "-o", "json", "--no-cache"])
    assert "no sweep point" not in j.stderr and isinstance(json.loads(j.stdout), list)


def test_only_sweep_independent_rules_check_them(monkeypatch):
    monkeypatch.chdir(TREE)
    r = runner.invoke(app, ["check", "benchmarks/single_node/fixed_seq_len/deprecated", "-o", "json", "--no-cache"])
    codes = [f["code"] for f in json.loads(r.stdout)]
    assert codes == ["RL601", "RL500"], r.stdout  # (RL500: the tree's broken config, reported whatever is checked)


def test_which_rules_are_sweep_independent():
    independent = {r.code for r in all_rules() if r.sweep_independent}
    # syntax, reading, suppressions, JSON, flags and parsers no release has, duplicates, word
    # splitting, engine patches and model overrides, the missing-entry check itself, and a launch
    # no path reaches (RL006, an info there: never silent), flag values no release takes (RL612), the work budget (RL011)
    assert independent == {
        "RL001", "RL002", "RL003", "RL004", "RL005", "RL006", "RL007", "RL008", "RL009", "RL010", "RL011", "RL304", "RL506", "RL601", "RL602", "RL604", "RL605", "RL611", "RL612", "RL701", "RL702", "RL802",
    }  # fmt: skip


def test_a_helper_no_entry_runs_is_said_not_silent(tmp_path, monkeypatch):
    # a multi-node helper a job file starts with its own variables: no master-config entry runs
    # it and no path reaches its launch — an RL006 info naming the stop, not "All checks passed"
    import shutil

    repo = tmp_path / "r"
    shutil.copytree(
        Path(__file__).resolve().parent.parent / "fixtures" / "seed", repo, ignore=shutil.ignore_patterns("expected*")
    )
    helper = repo / "benchmarks" / "multi_node" / "server.sh"
    helper.parent.mkdir(parents=True)
    helper.write_text('#!/usr/bin/env bash\nset -u\n: "${DECODE_HOST:?set by the job file}"\nvllm serve "$MODEL" --port 8000 &\n')
    monkeypatch.chdir(repo)
    r = runner.invoke(app, ["check", "benchmarks/multi_node/server.sh", "-o", "json", "--no-cache"])
    found = [(f["code"], f["severity"]) for f in json.loads(r.stdout)]
    assert found == [("RL006", "info")], r.stdout
    assert "DECODE_HOST" in json.loads(r.stdout)[0]["message"]
