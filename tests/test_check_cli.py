"""`recipelint check` and `recipelint rule`: formats, exit codes, selection, suppressions."""

from __future__ import annotations

import json
import re

from helpers import FIXTURES
from typer.testing import CliRunner

from recipelint.cli import app

runner = CliRunner()
SEED = FIXTURES / "seed" / "benchmarks"


def affected_seed(tmp_path):
    """A copy of the seed whose image runs vLLM 0.21.0, where RL301 reports its eager-offload line."""
    import shutil

    seed = tmp_path / "seed"
    shutil.copytree(FIXTURES / "seed", seed)
    cfg = seed / "configs" / "nvidia-master.yaml"
    cfg.write_text(cfg.read_text().replace("nightly-dev-x86_64-cu13.0.1-515d6e9", "v0.21.0"))
    return seed


RL101 = FIXTURES / "rules" / "RL101"


def test_exit_codes_and_concise(monkeypatch):
    monkeypatch.chdir(FIXTURES / "seed")
    r = runner.invoke(app, ["check", "benchmarks", "-o", "concise"])
    assert r.exit_code == 1
    *lines, last, fixable = r.output.strip().splitlines()
    assert len(lines) == 3 and all(re.match(r"^\S+:\d+:\d+: (error|warning|info)\[RL\d{3}\] [a-z0-9-]+: ", ln) for ln in lines)
    assert last == "Found 3 findings (2 warnings, 1 info) in 3 files."
    assert fixable == "3 fixable with `--fix --unsafe-fixes`."
    clean = runner.invoke(app, ["check", "benchmarks/single_node/agentic/dsv4_fp4_b300_vllm.sh", "-o", "concise"])
    assert clean.exit_code == 0 and clean.output == "All checks passed (1 file).\n"


def test_full_format_has_code_frames(monkeypatch):
    monkeypatch.chdir(FIXTURES / "seed")
    r = runner.invoke(app, ["check", "benchmarks"])
    assert r.exit_code == 1
    assert "60 | MAX_NUM_SEQS=$((2 * CONC))" in r.output
    assert "   |              ^^^^^^^^^^^^^" in r.output
    assert "= sweep points: nvidia-master.yaml:18 tp8-ep8-dpatrue-vllm-simple conc 8..72 (10 points)" in r.output
    assert "= note: configs/nvidia-master.yaml:18:104: sweep point from `dsv4-fp4-b200-vllm-agentic`" in r.output
    assert "Found 3 findings (2 warnings, 1 info) in 3 files." in r.output


def test_json_format(tmp_path):
    # a JSON key inside a here-document: the seed run on a release where RL301's claim holds
    # (its own image, a nightly after 0.22.1, is not reported)
    seed = affected_seed(tmp_path)
    r = runner.invoke(app, ["check", str(seed / "benchmarks"), "-o", "json", "--select", "RL301"])
    data = json.loads(r.output)
    # the B200 recipe's `lazy_offload: false`, and the B300 sibling's connector JSON without the
    # key (eager by default)
    assert [(d["code"], d["location"]["path"].rsplit("/", 1)[-1]) for d in data] == [
        ("RL301", "dsv4_fp4_b200_vllm.sh"),
        ("RL301", "dsv4_fp4_b300_vllm.sh"),
    ]
    assert data[0]["location"]["line"] == 36 and data[0]["location"]["col"] == 21
    assert data[0]["related"][0]["line"] == 41


def test_select_and_ignore():
    r = runner.invoke(app, ["check", str(SEED), "-o", "concise", "--select", "RL4,RL2"])
    codes = set(re.findall(r"\[(RL\d+)\]", r.output))
    assert codes == {"RL401"}  # (RL201 sees the same dropped flags: one finding, RL401's, with RL201 as a note)
    r = runner.invoke(app, ["check", str(SEED), "-o", "concise", "--select", "RL2"])
    assert set(re.findall(r"\[(RL\d+)\]", r.output)) == {"RL201"}  # (alone, it reports the defect itself)
    r = runner.invoke(app, ["check", str(SEED), "-o", "concise", "--ignore", "RL4", "--ignore", "RL2"])
    codes = set(re.findall(r"\[(RL\d+)\]", r.output))
    assert codes == {"RL101"}


def test_usage_errors_exit_2():
    r = runner.invoke(app, ["check", "/no/such/dir"])
    assert r.exit_code == 2 and "no such file or directory" in r.output
    assert runner.invoke(app, ["check", str(SEED), "--select", "XX9"]).exit_code == 2
    assert runner.invoke(app, ["check", str(SEED), "-o", "yaml"]).exit_code == 2


def test_rule_docs():
    r = runner.invoke(app, ["rule", "RL301"])
    assert r.exit_code == 0
    assert "## Why is this bad?" in r.output and "default is also eager" in r.output
    assert runner.invoke(app, ["rule", "simplecpu-eager-offload-dsv4"]).output == r.output
    r = runner.invoke(app, ["rule", "--all"])
    assert r.output.count("## What it does") >= 12
    assert runner.invoke(app, ["rule", "RL999"]).exit_code == 2


def _recipe(tmp_path, body: str):
    d = tmp_path / "bench"
    d.mkdir(exist_ok=True)
    f = d / "r.sh"
    f.write_text("#!/usr/bin/env bash\n" + body)
    return f


DEP = (
    'PARALLEL=(--tensor-parallel-size 1 --data-parallel-size "$TP")\n'
    "{sup_above}"
    "MAX_NUM_SEQS=$((2 * CONC)){sup_line}\n"
    'vllm serve org/m "${{PARALLEL[@]}}" --max-num-seqs "$MAX_NUM_SEQS"\n'
)


def test_suppression_on_the_line(tmp_path):
    f = _recipe(tmp_path, DEP.format(sup_above="", sup_line="  # recipelint: ignore[RL101] sized globally on purpose"))
    assert runner.invoke(app, ["check", str(f), "-o", "concise"]).exit_code == 0


def test_suppression_on_the_line_before(tmp_path):
    f = _recipe(tmp_path, DEP.format(sup_above="# recipelint: ignore[RL1] router pins sessions\n", sup_line=""))
    assert runner.invoke(app, ["check", str(f), "-o", "concise"]).exit_code == 0


def test_suppression_of_another_code_does_not_apply(tmp_path):
    f = _recipe(tmp_path, DEP.format(sup_above="", sup_line="  # recipelint: ignore[RL201]"))
    r = runner.invoke(app, ["check", str(f), "-o", "concise"])
    assert r.exit_code == 1 and "RL101" in r.output


def test_file_level_suppression_and_no_ignores(tmp_path):
    f = _recipe(
        tmp_path, "# recipelint: file-ignore[RL101] whole-point sizing is intended here\n" + DEP.format(sup_above="", sup_line="")
    )
    assert runner.invoke(app, ["check", str(f), "-o", "concise"]).exit_code == 0
    r = runner.invoke(app, ["check", str(f), "-o", "concise", "--no-ignores", "--fail-on", "info"])
    assert r.exit_code == 1 and "RL101" in r.output


def test_nothing_to_check_is_a_usage_error_unless_allowed(tmp_path, monkeypatch):
    """A folder with no recipe (a wrong path) is not "All checks passed (0 files)" (issue 48)."""
    from typer.testing import CliRunner

    from recipelint.cli import app

    (tmp_path / "notes.txt").write_text("vllm serve m\n")
    monkeypatch.chdir(tmp_path)
    r = CliRunner().invoke(app, ["check", "."])
    assert r.exit_code == 2 and r.output.startswith("recipelint: nothing to check in .: directories are walked"), r.output
    r = CliRunner().invoke(app, ["check", ".", "--allow-empty"])
    assert r.exit_code == 0 and "All checks passed (0 files)" in r.output
