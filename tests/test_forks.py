"""Forks, plugins and engine checkouts (issue 47, item 3): a script inside the engine's own
source tree is judged with that tree's parser; the settings' `engine-trees` name one; signs of a
fork or a plugin (an engine installed from a checkout or a git URL, `VLLM_PLUGINS`) lower the
verdict on a flag upstream lacks to info, saying why; the per-file cache follows the tree."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from recipelint.cli import app
from recipelint.engines import facts
from recipelint.engines.trees import find, flags_of

runner = CliRunner()

PARSER = """import argparse
class ServerArgs:
    def add_cli_args(parser):
        parser.add_argument("--model-path", type=str)
        parser.add_argument("--enable-split-prefill", action="store_true")
"""
SCRIPT = """#!/usr/bin/env bash
python3 -m sglang.launch_server --model-path org/m --enable-split-prefill --enable-split-prefil &
"""


@pytest.fixture(autouse=True)
def _fresh_facts():
    facts.reset()
    yield
    facts.reset()


def _repo(root: Path, tree: str | None = "python", script: str = "evaluation/serve.sh") -> Path:
    (root / ".git").mkdir(parents=True)
    if tree is not None:
        p = root / tree / "sglang/srt/server_args.py"
        p.parent.mkdir(parents=True)
        p.write_text(PARSER)
    s = root / script
    s.parent.mkdir(parents=True, exist_ok=True)
    s.write_text(SCRIPT)
    return s


def _findings(args: list[str]) -> list[dict]:
    res = runner.invoke(app, ["check", *args, "--no-cache", "-o", "json"])
    assert res.exit_code in (0, 1), res.output
    return [f for f in json.loads(res.stdout) if f["code"] == "RL601"]


def test_flags_of_reads_literals_and_args_dataclass_fields():
    text = 'p.add_argument("--max-num-seqs", type=int)\nclass FrontendArgs:\n    host: str = None\n    enable_log_requests: bool = False\n    _private: int = 0\nclass Other:\n    port: int = 1\n'
    assert flags_of(text, underscores=True) == {"--max-num-seqs", "--host", "--enable-log-requests"}


def test_a_script_in_a_fork_tree_is_judged_with_its_parser(tmp_path, monkeypatch):
    s = _repo(tmp_path)
    monkeypatch.chdir(tmp_path)
    got = _findings([str(s.relative_to(tmp_path))])
    # the fork's own option is accepted; its misspelling is reported, naming the tree read, with
    # a suggestion from the fork's parser
    assert [(f["location"]["line"], f["severity"]) for f in got] == [(2, "warning")]
    assert "--enable-split-prefil`" in got[0]["message"]
    assert "did you mean `--enable-split-prefill`" in got[0]["message"]
    assert any("engine's own tree at `python`" in n for n in got[0]["notes"])


def test_without_the_tree_both_flags_are_reported(tmp_path, monkeypatch):
    s = _repo(tmp_path, tree=None)
    monkeypatch.chdir(tmp_path)
    assert len(_findings([str(s.relative_to(tmp_path))])) == 2


def test_the_nearest_tree_above_the_script_counts_and_not_one_beside_it(tmp_path):
    s = _repo(tmp_path, tree="other/python", script="evaluation/serve.sh")
    assert find("sglang", s, tmp_path, [tmp_path]) is None  # (a sibling folder's tree: not this script's)
    t = find("sglang", tmp_path / "other/evaluation/x.sh", tmp_path, [tmp_path])
    assert t is not None and t.where == "other/python" and "--enable-split-prefill" in t.flags


def test_the_settings_name_a_tree_elsewhere(tmp_path, monkeypatch):
    s = _repo(tmp_path, tree="3rdparty/sglang/python", script="scripts/serve.sh")
    (tmp_path / "pyproject.toml").write_text('[tool.recipelint]\nengine-trees = {sglang = "3rdparty/sglang/python"}\n')
    monkeypatch.chdir(tmp_path)
    got = _findings([str(s.relative_to(tmp_path))])
    assert len(got) == 1 and any("`3rdparty/sglang/python`" in n for n in got[0]["notes"])


@pytest.mark.parametrize(
    ("toml", "error"),
    [
        ('engine-trees = {trtllm = "x"}', "engine must be one of sglang, vllm"),
        ('engine-trees = {sglang = "/abs"}', "relative to the settings file"),
        ('engine-trees = ["x"]', "must be a table"),
    ],
)
def test_engine_trees_setting_errors(tmp_path, monkeypatch, toml, error):
    s = _repo(tmp_path, tree=None)
    (tmp_path / "pyproject.toml").write_text(f"[tool.recipelint]\n{toml}\n")
    monkeypatch.chdir(tmp_path)
    res = runner.invoke(app, ["check", str(s.relative_to(tmp_path)), "--no-cache"])
    assert res.exit_code == 2 and error in res.output


def test_a_tree_outside_the_project_is_not_read(tmp_path, monkeypatch):
    outside = tmp_path / "outside"
    (outside / "sglang/srt").mkdir(parents=True)
    (outside / "sglang/srt/server_args.py").write_text(PARSER)
    root = tmp_path / "proj"
    s = _repo(root, tree=None)
    (root / "python").symlink_to(outside)  # python/sglang/srt/server_args.py leads out of the project
    monkeypatch.chdir(root)
    assert len(_findings([str(s.relative_to(root))])) == 2


def test_the_per_file_cache_follows_the_tree(tmp_path, monkeypatch):
    s = _repo(tmp_path)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("RECIPELINT_CACHE_DIR", str(tmp_path / "cache"))
    rel = str(s.relative_to(tmp_path))

    def run():
        res = runner.invoke(app, ["check", rel, "-o", "json"])
        return [f["location"]["line"] for f in json.loads(res.stdout) if f["code"] == "RL601"]

    assert run() == [2] and run() == [2]  # (the second from the cache)
    p = tmp_path / "python/sglang/srt/server_args.py"
    p.write_text(PARSER.replace("--enable-split-prefill", "--enable-split-prefil"))
    got = run()
    assert got == [2]
    res = runner.invoke(app, ["check", rel, "-o", "json"])
    msgs = [f["message"] for f in json.loads(res.stdout) if f["code"] == "RL601"]
    assert "`--enable-split-prefill`" in msgs[0]  # now the other flag is the unknown one


SUBMODULES = (
    '[submodule "mase"]\n\tpath = mase\n\turl = https://github.com/DeepWok/mase.git\n'
    '[submodule "vllm"]\n\tpath = third_party/vllm\n\turl = https://github.com/example-org/vllm.git\n'
)
FORK_SCRIPT = "#!/usr/bin/env bash\nvllm serve org/m --num-parallel-layers 4 &\n"


def _submodule_repo(root: Path, gitmodules: str) -> None:
    (root / ".git").mkdir()
    (root / ".gitmodules").write_text(gitmodules)
    (root / "experiments").mkdir()
    (root / "experiments" / "serve.sh").write_text(FORK_SCRIPT)


def test_an_engine_submodule_makes_a_flag_upstream_lacks_an_info_without_drop_it(tmp_path, monkeypatch):
    # (the held-out corpus-50: pgimenes/adaserve builds vLLM from its `vllm` submodule, a fork
    # with `--num-parallel-layers`; RL601 said "drop it", as a warning)
    _submodule_repo(tmp_path, SUBMODULES)
    monkeypatch.chdir(tmp_path)
    (f,) = _findings(["experiments/serve.sh"])
    assert f["severity"] == "info"
    assert f["message"].endswith("has a flag `--num-parallel-layers`: keep it only if the fork or plugin defines it"), f[
        "message"
    ]
    assert "drop it" not in f["message"]
    assert any(
        "git submodule `third_party/vllm` (https://github.com/example-org/vllm.git, `.gitmodules` line 4)" in n
        for n in f["notes"]
    ), f["notes"]


def test_a_submodule_of_another_project_is_no_sign(tmp_path, monkeypatch):
    _submodule_repo(tmp_path, '[submodule "mase"]\n\tpath = mase\n\turl = https://github.com/DeepWok/mase.git\n')
    monkeypatch.chdir(tmp_path)
    (f,) = _findings(["experiments/serve.sh"])
    assert f["severity"] == "warning" and "drop it" in f["message"]


def test_the_per_file_cache_follows_the_submodules(tmp_path, monkeypatch):
    _submodule_repo(tmp_path, "")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("RECIPELINT_CACHE_DIR", str(tmp_path / "cache"))

    def severity() -> str:
        res = runner.invoke(app, ["check", "experiments/serve.sh", "-o", "json"])
        (f,) = [f for f in json.loads(res.stdout) if f["code"] == "RL601"]
        return f["severity"]

    assert severity() == "warning"
    (tmp_path / ".gitmodules").write_text(SUBMODULES)
    assert severity() == "info"
