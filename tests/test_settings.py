"""Settings without traps: a broken pyproject.toml holding recipelint's table, the search stopping at
the project root, unknown codes in suppressions."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import FIXTURES
from typer.testing import CliRunner

from recipelint.cli import app
from recipelint.engines import facts

runner = CliRunner()
SEED = FIXTURES / "seed"
RECIPE = """#!/usr/bin/env bash
PARALLEL=(--tensor-parallel-size 1 --data-parallel-size "$TP")
MAX_NUM_SEQS=$((2 * CONC))
vllm serve org/m "${PARALLEL[@]}" --max-num-seqs "$MAX_NUM_SEQS" --kv-transfer-config '{"kv_connector":"SimpleCPUOffloadConnector","kv_role":"kv_both","kv_connector_extra_config":{"pool":1}}'
"""


@pytest.fixture(autouse=True)
def _fresh_facts():
    facts.reset()
    yield
    facts.reset()


def _bench(root: Path) -> Path:
    (root / "bench").mkdir(parents=True)
    (root / "bench" / "r.sh").write_text(RECIPE)
    return root / "bench"


def _codes(path: Path, *args) -> set[str]:
    r = runner.invoke(app, ["check", str(path), "-o", "json", "--no-cache", *args])
    assert r.exit_code in (0, 1), r.output
    return {d["code"] for d in json.loads(r.output)}


def _one_line_error(r) -> str:
    assert r.exit_code == 2, r.output
    lines = r.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("recipelint: "), r.output
    return lines[0]


# ---- a pyproject.toml that does not parse ------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        '[tool.recipelint]\nignore = ["RL302"\n',  # an unclosed list
        '[project]\nname = "x\n\n[tool.recipelint]\nignore = ["RL302"]\n',  # broken elsewhere in the file
        '[tool.recipelint.severity]\nRL302 = "info"\nRL302 = "error"\n',  # a duplicate key, in a sub-table
        '[ tool . "recipelint" ]\nignore = ["RL302"]\n= 1\n',
    ],
)
def test_broken_pyproject_with_the_table_is_an_error(tmp_path, text):
    bench = _bench(tmp_path)
    (tmp_path / "pyproject.toml").write_text(text)
    line = _one_line_error(runner.invoke(app, ["check", str(bench)]))
    assert str(tmp_path / "pyproject.toml") in line and "invalid TOML" in line and "[tool.recipelint]" in line


def test_broken_pyproject_that_is_not_utf8_with_the_table_is_an_error(tmp_path):
    bench = _bench(tmp_path)
    (tmp_path / "pyproject.toml").write_bytes(b'# caf\xe9\n[tool.recipelint]\nignore = ["RL302"]\n')
    assert "not UTF-8" in _one_line_error(runner.invoke(app, ["check", str(bench)]))


def test_broken_pyproject_without_the_table_is_still_skipped(tmp_path):
    # someone else's broken pyproject.toml is not recipelint's business: the search goes on upward
    bench = _bench(tmp_path / "outer" / "inner")
    (tmp_path / "outer" / "inner" / "pyproject.toml").write_text('[project]\nname = "x\n')
    (tmp_path / "outer" / ".recipelint.yaml").write_text("select: [RL3]\n")
    assert _codes(bench) == {"RL302"}


# ---- the search stops at the project root ------------------------------------------------------


@pytest.mark.parametrize("git", ["dir", "file"])  # a work tree, a linked worktree / submodule
def test_settings_search_stops_at_the_git_root(tmp_path, git):
    outer = tmp_path / "home"
    (outer / "pyproject.toml").parent.mkdir()
    (outer / "pyproject.toml").write_text('[tool.recipelint]\nselect = ["RL3"]\n')
    repo = outer / "repo"
    bench = _bench(repo)
    assert _codes(bench) == {"RL302"}  # no project root yet: the settings above are read
    if git == "dir":
        (repo / ".git").mkdir()
    else:
        (repo / ".git").write_text("gitdir: /elsewhere/.git/worktrees/repo\n")
    assert _codes(bench) == {"RL101", "RL302"}  # the settings above the repository are not
    (repo / ".recipelint.yaml").write_text("select: [RL1]\n")  # at the root itself: read
    assert _codes(bench) == {"RL101"}


# ---- unknown codes in suppressions -------------------------------------------------------------


def test_unknown_code_in_a_suppression_is_reported(tmp_path):
    p = tmp_path / "r.sh"
    p.write_text(
        RECIPE.replace(
            "MAX_NUM_SEQS=$((2 * CONC))", "MAX_NUM_SEQS=$((2 * CONC))  # recipelint: ignore[RL10l] per-rank on purpose"
        )
    )
    r = runner.invoke(app, ["check", str(p), "-o", "json", "--no-cache", "--no-config"])
    found = {(d["code"], d["location"]["line"], d["location"]["col"]): d["message"] for d in json.loads(r.output)}
    assert ("RL004", 3, 50) in found and "did you mean `RL101`?" in found[("RL004", 3, 50)]
    assert ("RL101", 3, 14) in found  # the typo did not suppress it
    assert not any(c == "RL002" for c, _, _ in found)  # reported once, by RL004
    # a suppression of RL004 itself, and --select without RL004
    p.write_text(p.read_text().replace("ignore[RL10l]", "ignore[RL10l, RL004]"))
    assert "RL004" not in _codes(p, "--no-config")
    p.write_text(p.read_text().replace("ignore[RL10l, RL004]", "ignore[RL10l]"))
    assert _codes(p, "--no-config", "--select", "RL1") == {"RL101"}
