"""What the GitHub Action relies on: the ``--sarif-file`` / ``--summary-file`` options of ``check``."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from helpers import FIXTURES
from typer.testing import CliRunner

from recipelint.cli import app
from recipelint.engines import facts

runner = CliRunner()
SEED = FIXTURES / "seed"

#: a recipe with one RL101 under the default matrix (as in test_integrations)
RL101_RECIPE = """#!/usr/bin/env bash
MAX=$((2 * CONC))
vllm serve org/m --data-parallel-size "$TP" --tensor-parallel-size 1 \\
    --max-num-seqs "$MAX"
"""


@pytest.fixture(autouse=True)
def _fresh_facts():
    facts.reset()
    yield
    facts.reset()


def _git(cwd: Path, *args: str) -> str:
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@e",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@e",
        "GIT_CONFIG_NOSYSTEM": "1",
    }
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True, env=env).stdout.strip()


def _repo(tmp_path: Path) -> tuple[Path, str]:
    """A repository whose first commit has an RL101 in x.sh and whose second adds one in y.sh;
    the first commit's SHA."""
    repo = tmp_path / "repo"
    (repo / "benchmarks").mkdir(parents=True)
    (repo / "benchmarks" / "x_fp8_b200_vllm.sh").write_text(RL101_RECIPE)
    _git(repo, "init", "-q")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "one")
    base = _git(repo, "rev-parse", "HEAD")
    (repo / "benchmarks" / "y_fp8_b200_vllm.sh").write_text(RL101_RECIPE.replace("org/m", "org/y"))
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "two")
    return repo, base


def test_sarif_file_is_the_sarif_report_written_beside_the_annotations(tmp_path, monkeypatch):
    repo = tmp_path / "seed"
    shutil.copytree(SEED, repo)
    (repo / ".git").mkdir()
    monkeypatch.chdir(repo)
    sarif, summary = tmp_path / "out.sarif", tmp_path / "summary.md"
    r = runner.invoke(
        app, ["check", "benchmarks", "-o", "github", "--no-cache", "--sarif-file", str(sarif), "--summary-file", str(summary)]
    )
    assert r.exit_code == 1
    assert r.output == (SEED / "expected.github.txt").read_text()  # the report is as without the options
    assert sarif.read_text() == (SEED / "expected.sarif.json").read_text()
    text = summary.read_text()
    assert text.startswith("## recipelint\n\n**5 findings** (2 errors, 3 warnings) in 3 files checked.\n")
    assert text.count("\n| `benchmarks/") == 5 and "The whole tree" not in text


def test_sarif_file_holds_all_findings_and_the_summary_the_reported_ones(tmp_path, monkeypatch):
    from recipelint.bash.source import Span
    from recipelint.lint import check as check_mod
    from recipelint.lint.check import LintResult
    from recipelint.lint.findings import Finding

    old = Finding("RL601", "unknown-flag", "warning", "old", Span("a.sh", 1, 1, 1, 2))
    new = Finding("RL601", "unknown-flag", "warning", "new", Span("b.sh", 2, 1, 2, 2))
    monkeypatch.setattr(check_mod, "lint", lambda paths, options: LintResult([new], [old, new], file_count=2))
    monkeypatch.chdir(tmp_path)
    sarif, summary = tmp_path / "out.sarif", tmp_path / "summary.md"
    r = runner.invoke(app, ["check", "-o", "concise", "--sarif-file", str(sarif), "--summary-file", str(summary)])
    assert r.exit_code == 1 and r.output.splitlines() == ["b.sh:2:1: RL601 [unknown-flag] new"]
    assert [res["message"]["text"] for res in json.loads(sarif.read_text())["runs"][0]["results"]] == ["old", "new"]
    text = summary.read_text()
    assert "**1 finding** (1 warning)" in text and "The whole tree has 2 findings." in text
    assert "| `b.sh:2` | RL601 | warning | new |" in text and "a.sh" not in text


def test_sarif_file_with_diff_base_keeps_the_whole_tree(tmp_path, monkeypatch):
    repo, base = _repo(tmp_path)
    monkeypatch.chdir(repo)
    sarif = tmp_path / "out.sarif"
    args = ["check", "benchmarks", "-o", "concise", "--select", "RL101", "--no-cache"]
    r = runner.invoke(app, [*args, "--diff-base", base, "--sarif-file", str(sarif)])
    assert r.exit_code == 1 and r.output.count("RL101") == 1 and "y_fp8_b200_vllm.sh" in r.output, r.output
    assert len(json.loads(sarif.read_text())["runs"][0]["results"]) == 2


def test_summary_file_is_appended_to(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a.sh").write_text("#!/usr/bin/env bash\nvllm serve org/m --tensor-parallel-size 1\n")
    summary = tmp_path / "summary.md"
    summary.write_text("# an earlier step\n\n")
    for _ in range(2):
        r = runner.invoke(app, ["check", "a.sh", "--select", "RL101", "--no-cache", "--summary-file", str(summary)])
        assert r.exit_code == 0, r.output
    assert (
        summary.read_text()
        == "# an earlier step\n\n" + "## recipelint\n\nAll checks passed: no findings (1 file checked).\n\n" * 2
    )


def test_unwritable_sarif_or_summary_file_is_a_one_line_error(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a.sh").write_text("#!/usr/bin/env bash\nvllm serve org/m --tensor-parallel-size 1\n")
    for opt in ("--sarif-file", "--summary-file"):
        r = runner.invoke(app, ["check", "a.sh", "--select", "RL101", opt, str(tmp_path / "no" / "such" / "file")])
        assert r.exit_code == 2 and r.stderr.startswith(f"recipelint: {tmp_path / 'no' / 'such' / 'file'}: cannot write")
        assert len(r.stderr.splitlines()) == 1 and "Traceback" not in r.output


def test_summary_table_is_capped_and_escaped():
    from recipelint.bash.source import Span
    from recipelint.lint.findings import Finding
    from recipelint.report.summary import render_summary

    def f(i: int, message: str, severity: str = "warning") -> Finding:
        return Finding("RL601", "unknown-flag", severity, message, Span(f"d/r{i}.sh", i, 1, i, 2))

    many = [f(i, f"m{i}") for i in range(1, 106)] + [f(200, "bad", "error")]
    text = render_summary(many, files=7, limit=100)
    rows = [line for line in text.splitlines() if line.startswith("| `")]
    assert len(rows) == 100 and "… and 6 more" in text
    assert "**106 findings** (1 error, 105 warnings) in 7 files checked." in text
    cell = render_summary([f(1, "a | b <script> *x* `c|d` `odd")], files=1).rstrip().splitlines()[-1]
    assert cell == r"| `d/r1.sh:1` | RL601 | warning | a \| b \<script\> \*x\* \`c\|d\` \`odd |"
    cell = render_summary([f(1, "use `--x | y` here \t now")], files=1).rstrip().splitlines()[-1]
    assert cell == r"| `d/r1.sh:1` | RL601 | warning | use `--x \| y` here now |"
    assert len(render_summary([f(1, "x" * 1000)], files=1).rstrip().splitlines()[-1]) < 400
