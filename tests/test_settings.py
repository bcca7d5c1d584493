"""Settings without traps: a broken pyproject.toml holding recipelint's table, the search stopping at
the project root, unknown codes in suppressions, --master-config given something else,
--show-settings and --version."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from helpers import FIXTURES
from typer.testing import CliRunner

from recipelint import __version__
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


def _bench(root: Path, git: bool = True) -> Path:
    """``root/bench/r.sh``; ``git``: ``root`` is a repository (``.git``): settings there apply
    (without a repository, master configs or settings, the folder named is the project root)."""
    (root / "bench").mkdir(parents=True)
    if git:
        (root / ".git").mkdir()
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
    bench = _bench(tmp_path / "outer" / "inner", git=False)
    (tmp_path / "outer" / ".git").mkdir()
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
    bench = _bench(repo, git=False)
    # no repository: the project root is the folder named, the settings above it are not read
    # (a settings file in a shared parent, the system temp dir, must not silence a project)
    assert _codes(bench) == {"RL101", "RL302"}
    if git == "dir":
        (repo / ".git").mkdir()
    else:
        (repo / ".git").write_text("gitdir: /elsewhere/.git/worktrees/repo\n")
    assert _codes(bench) == {"RL101", "RL302"}  # the settings above the repository are not
    r = runner.invoke(app, ["check", str(bench), "--show-settings"])
    assert "# settings file: none" in r.output
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


# ---- --master-config ---------------------------------------------------------------------------


def _seed(tmp_path) -> Path:
    repo = tmp_path / "seed"
    shutil.copytree(SEED, repo)
    return repo


def test_master_config_and_its_alias(tmp_path):
    repo = _seed(tmp_path)
    master = repo / "configs" / "nvidia-master.yaml"
    recipe = repo / "benchmarks" / "single_node" / "agentic" / "dsv4_fp4_b200_vllm.sh"
    for opt in ("--master-config", "--config"):
        assert "RL101" in _codes(recipe, opt, str(master))  # (a finding of the master config's DP points)
        r = runner.invoke(app, ["sweep", str(recipe), opt, str(master)])
        assert r.exit_code == 0 and "dsv4-fp4-b200-vllm-agentic" in r.output


@pytest.mark.parametrize(
    "name,text,needle",
    [
        ("pyproject.toml", '[tool.recipelint]\nselect = ["RL1"]\n', "not a master config (configs/*-master.yaml)"),
        (".recipelint.yaml", "select: [RL1]\n", "recipelint's own settings go to --settings"),
        ("runners.yaml", "labels: {}\n", "not a master config"),
        ("list-master.yaml", "- a\n- b\n", "its YAML is not a mapping of entries"),
        ("scalars-master.yaml", "a: 1\nb: two\n", "its YAML is not a mapping of entries"),
        ("missing-master.yaml", None, "config file not found"),
    ],
)
@pytest.mark.parametrize("command", ["check", "sweep"])
def test_master_config_that_is_not_one_is_an_error(tmp_path, name, text, needle, command):
    repo = _seed(tmp_path)
    cfg = tmp_path / name
    if text is not None:
        cfg.write_text(text)
    recipe = repo / "benchmarks" / "single_node" / "agentic" / "dsv4_fp4_b200_vllm.sh"
    line = _one_line_error(runner.invoke(app, [command, str(recipe), "--master-config", str(cfg)]))
    assert needle in line and str(cfg) in line


def test_master_config_with_a_yaml_error_is_a_finding_not_a_usage_error(tmp_path):
    repo = _seed(tmp_path)
    broken = repo / "configs" / "broken-master.yaml"
    broken.write_text("entry:\n  image: [unclosed\n")
    assert "RL500" in _codes(repo / "benchmarks", "--master-config", str(broken))


def test_settings_configs_that_are_not_master_configs_are_an_error(tmp_path):
    repo = _seed(tmp_path)
    (repo / "pyproject.toml").write_text('[tool.recipelint]\nconfigs = ["configs/runners.yaml"]\n')
    line = _one_line_error(runner.invoke(app, ["check", str(repo / "benchmarks")]))
    assert "`configs`" in line and "runners.yaml: not a master config" in line


# ---- --show-settings ---------------------------------------------------------------------------


def _shown(output: str) -> dict[str, tuple[str, str]]:
    """key -> (value, source) from --show-settings' lines."""
    out = {}
    for line in output.splitlines()[1:]:
        setting, _, source = line.partition("  # ")
        key, _, value = setting.partition(" = ")
        out[key] = (value.strip(), source)
    return out


def test_show_settings_says_where_each_value_came_from(tmp_path):
    repo = _seed(tmp_path)
    (repo / ".git").mkdir()
    settings = repo / "pyproject.toml"
    settings.write_text(
        '[tool.recipelint]\nignore = ["RL4"]\nseverity = { RL302 = "info" }\nfail-on = "error"\n'
        'per-file-ignores = { "benchmarks/old/*" = ["RL1"] }\n'
    )
    r = runner.invoke(app, ["check", str(repo / "benchmarks"), "--show-settings", "--ignore", "RL2", "-o", "concise"])
    assert r.exit_code == 0, r.output
    assert r.output.splitlines()[0] == f"# settings file: {settings} (found upward from {repo / 'benchmarks'})"
    shown = _shown(r.output)
    assert shown["ignore"] == ('["RL2", "RL4"]', f"command line (--ignore) + {settings}")
    assert shown["severity"] == ('{ RL302 = "info" }', str(settings))
    assert shown["per-file-ignores"] == ('{ "benchmarks/old/*" = ["RL1"] }', str(settings))
    assert shown["fail-on"] == ('"error"', str(settings))
    assert shown["output-format"] == ('"concise"', "command line (--output-format)")
    assert shown["select"] == ("[]", "default: every rule")
    assert shown["exclude"] == ("[]", "default")
    assert shown["configs"][1].startswith("default: configs/*-master.yaml above") and "nvidia-master.yaml" in shown["configs"][1]
    assert "RL301" not in r.output  # nothing was linted
    # the values are TOML: the block can be pasted into [tool.recipelint]
    import tomllib

    tomllib.loads("\n".join(line.split("  # ")[0] for line in r.output.splitlines()[1:]))


def test_show_settings_with_an_explicit_file_and_options(tmp_path):
    repo = _seed(tmp_path)
    yaml = tmp_path / "elsewhere.yaml"
    yaml.write_text("select: [RL3]\nextend-select: [RL1]\n")
    master = repo / "configs" / "nvidia-master.yaml"
    args = ["check", str(repo / "benchmarks"), "--settings", str(yaml), "--show-settings"]
    r = runner.invoke(app, [*args, "--select", "RL2", "--fail-on", "info", "--master-config", str(master)])
    assert r.exit_code == 0, r.output
    assert r.output.splitlines()[0] == f"# settings file: {yaml} (--settings)"
    shown = _shown(r.output)
    assert shown["select"] == ('["RL2"]', "command line (--select)")
    assert shown["extend-select"] == ('["RL1"]', str(yaml))
    assert shown["fail-on"] == ('"info"', "command line (--fail-on)")
    assert shown["configs"] == (json.dumps([str(master)]), "command line (--master-config)")


def test_show_settings_still_rejects_bad_settings(tmp_path):
    bench = _bench(tmp_path)
    (tmp_path / "pyproject.toml").write_text("[tool.recipelint]\nbogus = 1\n")
    assert "unknown key `bogus`" in _one_line_error(runner.invoke(app, ["check", str(bench), "--show-settings"]))


# ---- --version ---------------------------------------------------------------------------------


def test_version():
    from importlib.metadata import version

    r = runner.invoke(app, ["--version"])
    assert r.exit_code == 0 and r.output == f"recipelint {__version__}\n"
    assert __version__ == version("recipelint")  # the package and its metadata agree


def test_extra_entry_points_make_a_launch_known(tmp_path, monkeypatch):
    from typer.testing import CliRunner

    from recipelint.cli import app

    (tmp_path / ".git").mkdir()
    (tmp_path / "serve.sh").write_text('#!/usr/bin/env bash\npython3 -m my_site.vllm_server --model org/m --max-num-seqz 8 &\n')
    monkeypatch.chdir(tmp_path)
    runner = CliRunner()
    r = runner.invoke(app, ["check", "serve.sh", "-o", "concise", "--no-cache"])
    assert "RL007" in r.stdout and "extra-entry-points" in r.stdout, r.output
    (tmp_path / "pyproject.toml").write_text(
        '[tool.recipelint]\nextra-entry-points = {vllm = ["python -m my_site.vllm_server"]}\n'
    )
    r = runner.invoke(app, ["check", "serve.sh", "-o", "concise", "--no-cache"])
    # now a vLLM launch: its flags are checked (the misspelt one is found), and it is no longer unknown
    assert "RL007" not in r.stdout and "RL601" in r.stdout and "--max-num-seqz" in r.stdout, r.output
    (tmp_path / "pyproject.toml").write_text('[tool.recipelint]\nextra-entry-points = {vllm = ["--serve"]}\n')
    r = runner.invoke(app, ["check", "serve.sh"])
    assert r.exit_code == 2 and "is not a command" in r.stderr
    (tmp_path / "pyproject.toml").write_text('[tool.recipelint]\nextra-entry-points = {tgi = ["text-generation-launcher"]}\n')
    r = runner.invoke(app, ["check", "serve.sh"])
    assert r.exit_code == 2 and "engine must be one of" in r.stderr


# ---- .recipelint.yml: read, not silently ignored (issue 48, item 6) ---------------------------


def test_a_recipelint_yml_is_read_like_a_yaml(tmp_path):
    bench = _bench(tmp_path)
    assert "RL302" in _codes(bench)
    (tmp_path / ".recipelint.yml").write_text("ignore: [RL302]\n")
    assert "RL302" not in _codes(bench)


def test_both_spellings_in_one_folder_are_an_error(tmp_path):
    bench = _bench(tmp_path)
    (tmp_path / ".recipelint.yml").write_text("ignore: [RL302]\n")
    (tmp_path / ".recipelint.yaml").write_text("ignore: [RL401]\n")
    line = _one_line_error(runner.invoke(app, ["check", str(bench)]))
    assert ".recipelint.yaml and .recipelint.yml" in line
