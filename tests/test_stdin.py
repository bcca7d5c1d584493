"""`recipelint check - --stdin-filename PATH`: a text checked as if it were the file at PATH (the
editor's unsaved buffer; the language server shares this input path), and the overlay under it
(`recipelint.files.overlaid`)."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from recipelint.cli import app

runner = CliRunner()
AGENTIC = "benchmarks/single_node/agentic"
B200 = f"{AGENTIC}/dsv4_fp4_b200_vllm.sh"
B300 = f"{AGENTIC}/dsv4_fp4_b300_vllm.sh"


@pytest.fixture
def seed(seed_tree):
    return seed_tree  # (conftest: a copy of fixtures/seed as the working directory)


def _codes(output: str) -> list[tuple[str, str, int]]:
    return [(f["code"], f["location"]["path"], f["location"]["line"]) for f in json.loads(output)]


def test_the_text_of_a_file_checks_as_the_file(seed):
    on_disk = runner.invoke(app, ["check", B200, "-o", "json"])
    text = (seed / B200).read_text()
    given = runner.invoke(app, ["check", "-", "--stdin-filename", B200, "-o", "json"], input=text)
    assert given.exit_code == on_disk.exit_code == 1
    assert given.output == on_disk.output
    # the B200 recipe's parity findings need its sibling, read from disk beside the path named
    assert ("RL401", B200, 83) in _codes(given.output)


def test_the_text_given_is_checked_not_the_file(seed):
    before = (seed / B300).read_text()
    edited = before.replace("    --enable-auto-tool-choice\n", "")
    assert edited != before
    r = runner.invoke(app, ["check", "-", "--stdin-filename", B300, "-o", "json", "--no-cache"], input=edited)
    assert _codes(r.output) == [("RL201", B300, 88)], r.output
    assert (seed / B300).read_text() == before  # (nothing written)
    clean = runner.invoke(app, ["check", B300, "-o", "concise"])
    assert clean.exit_code == 0, clean.output


def test_the_cache_keys_the_text_given(seed):
    # the same path with two texts, cached: each run reports its own text's findings
    text = (seed / B300).read_text()
    edited = text.replace("    --enable-auto-tool-choice\n", "")
    assert edited != text
    args = ["check", "-", "--stdin-filename", B300, "-o", "concise", "--fail-on", "info"]
    assert runner.invoke(app, args, input=text).exit_code == 0
    assert runner.invoke(app, args, input=edited).exit_code == 1
    assert runner.invoke(app, args, input=text).exit_code == 0


def test_code_frames_quote_the_text_given(seed):
    text = (seed / B200).read_text().replace("MAX_NUM_SEQS=$((2 * CONC))", "MAX_NUM_SEQS=$((2 * CONC))  # edited")
    r = runner.invoke(app, ["check", "-", "--stdin-filename", B200, "--select", "RL101", "--no-cache"], input=text)
    assert r.exit_code == 1
    assert "60 | MAX_NUM_SEQS=$((2 * CONC))  # edited" in r.output


def test_a_path_not_on_disk_yet(seed):
    text = (seed / B300).read_text()
    new = f"{AGENTIC}/not_saved_yet.sh"
    r = runner.invoke(app, ["check", "-", "--stdin-filename", new, "-o", "concise", "--no-cache"], input=text)
    assert r.exit_code in (0, 1), r.output
    assert "in 1 file" in r.output.splitlines()[-1] or "(1 file)" in r.output
    assert not (seed / new).exists()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["check", "-"], "check -: --stdin-filename PATH says where"),
        (["check", "-", B200, "--stdin-filename", B200], "--stdin-filename: the one input is standard input"),
        (["check", "-", "--stdin-filename", B200, "--diff-base", "HEAD"], "--stdin-filename: not with --diff-base"),
        (["check", "-", "--stdin-filename", AGENTIC], f"--stdin-filename {AGENTIC}: a recipe's path, not a directory"),
    ],
)
def test_usage_errors_are_one_line(seed, args, message):
    r = runner.invoke(app, args, input="#!/bin/bash\n")
    assert r.exit_code == 2
    lines = r.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"recipelint: {message}"), r.output


def test_standard_input_is_bounded(seed, monkeypatch):
    monkeypatch.setattr("recipelint.bash.source.MAX_RECIPE_BYTES", 64)
    r = runner.invoke(app, ["check", "-", "--stdin-filename", B200], input="#" * 65 + "\n")
    assert r.exit_code == 2
    assert r.output.strip() == "recipelint: standard input: over the 64-byte limit"


def test_overlay_reads_bounded_and_restored(tmp_path):
    from recipelint.cache.store import file_digest
    from recipelint.files import Refused, overlaid, read_head, read_regular

    p = tmp_path / "a.sh"
    p.write_bytes(b"on disk\n")
    with overlaid({p: b"given\n"}):
        assert read_regular(p, 100) == b"given\n"
        assert read_regular(str(tmp_path / "." / "a.sh"), 100) == b"given\n"  # (by its real path)
        assert read_head(p, 3) == b"giv"
        with pytest.raises(Refused) as e:
            read_regular(p, 3)
        assert e.value.kind == "too-large"
        import hashlib

        assert file_digest(str(p)) == (6, hashlib.sha256(b"given\n").digest())
    assert read_regular(p, 100) == b"on disk\n"


def test_a_master_config_given_runs_its_recipes(seed):
    # the buffer of a master config: the recipes it runs are checked at the points its text makes
    cfg = "configs/nvidia-master.yaml"
    text = (seed / cfg).read_text()
    edited = text.replace("conc-list: [8, 12, 16] }", "conc-list: [8, 12, 16, 20] }", 1)
    assert edited != text
    args = ["check", "-", "--stdin-filename", cfg, "-o", "json", "--no-cache"]

    def points(output: str) -> dict:
        return {(f["code"], f["location"]["line"]): len(f["points"]) for f in json.loads(output)}

    before, after = points(runner.invoke(app, args, input=text).output), points(runner.invoke(app, args, input=edited).output)
    assert before[("RL401", 83)] == 13 and after[("RL401", 83)] == 14
    assert points(runner.invoke(app, ["check", cfg, "-o", "json"]).output) == before
