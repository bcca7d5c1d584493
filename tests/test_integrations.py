"""Where users meet recipelint: output formats (golden files), SARIF against the official schema,
the pre-commit hook run by the real pre-commit, the Action and workflow against GitHub's schemas,
settings files, suppressions and --diff-base."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import FIXTURES, ROOT
from typer.testing import CliRunner

from recipelint.cli import app
from recipelint.engines import facts

runner = CliRunner()
SEED = FIXTURES / "seed"
SCHEMA = ROOT.parent / "shared" / "schemas" / "sarif-schema-2.1.0.json"
VENV_BIN = Path(sys.executable).parent


@pytest.fixture(autouse=True)
def _fresh_facts():
    facts.reset()
    yield
    facts.reset()


def _goldens() -> dict:
    """format -> golden file: the table tools/update_seed_goldens.py writes them from."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("update_seed_goldens", ROOT / "tools" / "update_seed_goldens.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.FORMATS


GOLDEN = _goldens()


@pytest.mark.parametrize("fmt", list(GOLDEN))
def test_output_format_golden(fmt, monkeypatch, tmp_path):
    # the seed as a repository of its own (SARIF locations are relative to the work tree's root)
    repo = tmp_path / "seed"
    shutil.copytree(SEED, repo)
    (repo / ".git").mkdir()
    monkeypatch.chdir(repo)
    r = runner.invoke(app, ["check", "benchmarks", "-o", fmt, "--no-cache"])
    assert r.exit_code == 1
    assert r.output == (SEED / GOLDEN[fmt]).read_text()


def test_full_format_in_colour_is_the_plain_one_with_styles(monkeypatch):
    # plain text is written without rich (not imported for it); the colour form goes through rich
    import re

    from recipelint.bash.source import Span
    from recipelint.lint.findings import Finding
    from recipelint.report.full import render_full

    monkeypatch.chdir(SEED)
    f = Finding(
        "RL101",
        "dp-attention-per-rank-limit",
        "error",
        "tab\there, \x07bell",
        Span("benchmarks/single_node/agentic/dsv4_fp4_b200_vllm_mtp.sh", 3, 2, 3, 9),
        points=["p1", "p2"],
    )
    plain, coloured = render_full([f]), render_full([f], color=True)
    assert "\x1b[" not in plain and "\x1b[" in coloured
    assert re.sub(r"\x1b\[[0-9;]*m", "", coloured) == plain
    head = "benchmarks/single_node/agentic/dsv4_fp4_b200_vllm_mtp.sh:3:2: error[RL101] dp-attention-per-rank-limit: "
    assert plain.split("\n")[0] == (head + "tab\there, \\x07bell").expandtabs(8)  # (a control character escaped: issue 33)


def test_statistics_golden(monkeypatch):
    monkeypatch.chdir(SEED)
    r = runner.invoke(app, ["check", "benchmarks", "--statistics"])
    assert r.output == (SEED / "expected.statistics.txt").read_text()


def test_output_file(tmp_path, monkeypatch):
    monkeypatch.chdir(SEED)
    out = tmp_path / "r.json"
    r = runner.invoke(app, ["check", "benchmarks", "-o", "json", "--output-file", str(out)])
    assert r.exit_code == 1 and r.output == ""
    assert json.loads(out.read_text()) == json.loads((SEED / "expected.json").read_text())


def test_json_lines_are_one_object_each():
    lines = (SEED / "expected.jsonl").read_text().splitlines()
    assert [json.loads(x)["code"] for x in lines] == [d["code"] for d in json.loads((SEED / "expected.json").read_text())]


def test_github_annotations_escape_and_shape():
    for line in (SEED / "expected.github.txt").read_text().splitlines():
        m = re.match(
            r"^::(error|warning|notice) file=([^,]+),line=\d+,col=\d+,endLine=\d+,endColumn=\d+,title=recipelint \(RL\d{3}\)::(.*)$",
            line,
        )
        assert m, line
        assert "\n" not in m.group(3)


@pytest.mark.skipif(not SCHEMA.is_file(), reason="the shared SARIF schema is not beside this checkout")
def test_sarif_validates_against_the_official_schema():
    import jsonschema

    doc = json.loads((SEED / "expected.sarif.json").read_text())
    jsonschema.validate(doc, json.loads(SCHEMA.read_text()))
    run = doc["runs"][0]
    assert {r["id"] for r in run["tool"]["driver"]["rules"]} >= {"RL101", "RL201", "RL401"}
    # the dropped tool-calling flags: one result (RL401, with RL201's view as a related location),
    # on the command's first word in its array, with the fix (the sibling's flags) as a SARIF fix
    (tools,) = [r for r in run["results"] if r["ruleId"] == "RL401" and r["level"] == "note"]
    loc = tools["locations"][0]["physicalLocation"]
    assert loc["artifactLocation"]["uri"] == "benchmarks/single_node/agentic/dsv4_fp4_b200_vllm.sh"
    assert loc["region"]["startLine"] == 68 and loc["region"]["startColumn"] == 5
    assert any(
        r["physicalLocation"]["artifactLocation"]["uri"] == "configs/nvidia-master.yaml" for r in tools["relatedLocations"]
    )
    assert any(r["message"]["text"].startswith("also RL201 ") for r in tools["relatedLocations"])
    (change,) = tools["fixes"][0]["artifactChanges"]
    assert (
        change["replacements"][0]["insertedContent"]["text"]
        == "    --tool-call-parser deepseek_v4\n    --enable-auto-tool-choice\n"
    )
    rule = next(r for r in run["tool"]["driver"]["rules"] if r["id"] == "RL201")
    assert "## Why is this bad?" in rule["help"]["markdown"] and rule["defaultConfiguration"]["level"] == "error"


def _check_jsonschema(schema: str, path: Path):
    exe = shutil.which("check-jsonschema", path=str(VENV_BIN)) or shutil.which("check-jsonschema")
    assert exe, "check-jsonschema is a dev dependency"
    return subprocess.run([exe, "--builtin-schema", schema, str(path)], capture_output=True, text=True, timeout=120)


def test_action_and_workflow_validate_against_githubs_schemas():
    r = _check_jsonschema("vendor.github-actions", ROOT / "action.yml")
    assert r.returncode == 0, r.stdout + r.stderr
    r = _check_jsonschema("vendor.github-workflows", ROOT / "examples" / "recipelint-workflow.yml")
    assert r.returncode == 0, r.stdout + r.stderr


def _readme_block(marker: str) -> str:
    text = (ROOT / "README.md").read_text()
    m = re.search(rf"<!-- {marker} -->\n```\w+\n(.*?)```", text, re.S)
    assert m, f"README lacks the {marker} snippet"
    return m.group(1)


def test_readme_snippets_are_the_tested_files():
    assert _readme_block("example-workflow") == (ROOT / "examples" / "recipelint-workflow.yml").read_text()
    import tomllib

    settings = tomllib.loads(_readme_block("settings-example"))
    from recipelint.lint.settings import _validate

    _validate(settings["tool"]["recipelint"], "README", Path("pyproject.toml"))
    hooks = _readme_block("pre-commit-config")
    assert "id: recipelint" in hooks


# ---- pre-commit, for real --------------------------------------------------------------------


def _git(cwd: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args],
        cwd=cwd,
        check=True,
        capture_output=True,
        text=True,
        env={
            **os.environ,
            "GIT_AUTHOR_NAME": "t",
            "GIT_AUTHOR_EMAIL": "t@e",
            "GIT_COMMITTER_NAME": "t",
            "GIT_COMMITTER_EMAIL": "t@e",
        },
    ).stdout


def _head_is_clean() -> bool:
    try:
        status = _git(ROOT, "status", "--porcelain", "--untracked-files=no")
    except (subprocess.CalledProcessError, FileNotFoundError):
        return False
    return status.strip() == ""


BAD = """#!/usr/bin/env bash
# agentic recipe without tool calling
vllm serve org/model --tensor-parallel-size 8 --reasoning-parser deepseek_v4 &
"""
GOOD = """#!/usr/bin/env bash
vllm serve org/model --tensor-parallel-size 8 --tool-call-parser hermes --enable-auto-tool-choice &
"""


@pytest.mark.skipif(not _head_is_clean(), reason="pre-commit installs the hook from HEAD: commit first")
def test_pre_commit_hook_runs_for_real(tmp_path):
    exe = shutil.which("pre-commit", path=str(VENV_BIN)) or shutil.which("pre-commit")
    assert exe, "pre-commit is a dev dependency"
    rev = _git(ROOT, "rev-parse", "HEAD").strip()
    work = tmp_path / "bench"
    (work / "benchmarks" / "single_node" / "agentic").mkdir(parents=True)
    _git(work, "init", "-q")
    config = (
        _readme_block("pre-commit-config").replace("https://github.com/recipelint/recipelint", str(ROOT)).replace("v0.1.0", rev)
    )
    (work / ".pre-commit-config.yaml").write_text(config)
    good = work / "benchmarks" / "single_node" / "agentic" / "clean_fp8_b200_vllm.sh"
    good.write_text(GOOD)
    # a workflow that runs no recipe reaches the hook (its files pattern) and is skipped, not linted as bash
    (work / ".github" / "workflows").mkdir(parents=True)
    (work / ".github" / "workflows" / "ci.yml").write_text(
        "on: push\njobs:\n  t:\n    steps:\n      - run: echo ${{ github.sha }}\n"
    )
    env = {**os.environ, "PRE_COMMIT_HOME": str(tmp_path / "cache")}
    _git(work, "add", "-A")
    r = subprocess.run([exe, "run", "--all-files"], cwd=work, capture_output=True, text=True, timeout=900, env=env)
    assert r.returncode == 0, r.stdout + r.stderr
    bad = work / "benchmarks" / "single_node" / "agentic" / "bad_fp8_b200_vllm.sh"
    bad.write_text(BAD)
    _git(work, "add", "-A")
    r = subprocess.run([exe, "run", "--all-files"], cwd=work, capture_output=True, text=True, timeout=900, env=env)
    assert r.returncode == 1, r.stdout + r.stderr
    assert "bad_fp8_b200_vllm.sh:3:1: warning[RL201] " in r.stdout  # (no known client follows the launch)
    assert "clean_fp8_b200_vllm.sh" not in r.stdout.split("recipelint....")[-1].replace("Passed", "")


# ---- settings --------------------------------------------------------------------------------

RECIPE = """#!/usr/bin/env bash
PARALLEL=(--tensor-parallel-size 1 --data-parallel-size "$TP")
MAX_NUM_SEQS=$((2 * CONC))
vllm serve org/m "${PARALLEL[@]}" --max-num-seqs "$MAX_NUM_SEQS" --kv-transfer-config '{"kv_connector":"SimpleCPUOffloadConnector","kv_role":"kv_both","kv_connector_extra_config":{"pool":1}}'
"""


def _tree(tmp_path: Path, settings: str | None = None, name: str = "pyproject.toml") -> Path:
    """A repository (``.git``: its settings apply to the folders below; settings are looked up no
    higher than the project root) with ``bench/r.sh`` and ``bench/sub/s.sh``."""
    (tmp_path / ".git").mkdir(exist_ok=True)
    (tmp_path / "bench" / "sub").mkdir(parents=True)
    (tmp_path / "bench" / "r.sh").write_text(RECIPE)
    (tmp_path / "bench" / "sub" / "s.sh").write_text(RECIPE)
    if settings is not None:
        (tmp_path / name).write_text(settings)
    return tmp_path


def _codes(tmp_path, *args) -> list[tuple[str, str, str]]:
    r = runner.invoke(app, ["check", str(tmp_path / "bench"), "-o", "json", *args])
    assert r.exit_code in (0, 1), r.output
    return sorted((Path(d["location"]["path"]).name, d["code"], d["severity"]) for d in json.loads(r.output))


def test_settings_discovery_pyproject_and_yaml(tmp_path):
    _tree(tmp_path, '[tool.recipelint]\nignore = ["RL302"]\n')
    assert {c for _, c, _ in _codes(tmp_path)} == {"RL101"}
    (tmp_path / ".recipelint.yaml").write_text("select: [RL3]\n")
    # the nearest settings file wins: .recipelint.yaml and pyproject.toml are in the same folder,
    # the YAML file is preferred
    assert {c for _, c, _ in _codes(tmp_path)} == {"RL302"}


def test_pyproject_without_table_is_skipped(tmp_path):
    _tree(tmp_path, '[project]\nname = "x"\n')
    assert {c for _, c, _ in _codes(tmp_path)} == {"RL101", "RL302"}


def test_command_line_wins_over_settings(tmp_path):
    _tree(tmp_path, '[tool.recipelint]\nselect = ["RL3"]\nextend-select = ["RL1"]\n')
    assert {c for _, c, _ in _codes(tmp_path)} == {"RL101", "RL302"}
    assert {c for _, c, _ in _codes(tmp_path, "--select", "RL1")} == {"RL101"}


def test_per_file_ignores_severity_and_fail_on(tmp_path):
    _tree(tmp_path, '[tool.recipelint]\nper-file-ignores = { "bench/sub/*" = ["RL1"] }\nseverity = { RL302 = "info" }\n')
    got = _codes(tmp_path)
    # (RL101 is info here: no recipe of the family sizes per DP rank)
    assert not any(f[:2] == ("s.sh", "RL101") for f in got) and ("r.sh", "RL101", "info") in got
    assert ("s.sh", "RL302", "info") in got
    assert runner.invoke(app, ["check", str(tmp_path / "bench"), "--select", "RL3"]).exit_code == 0  # info only
    assert runner.invoke(app, ["check", str(tmp_path / "bench"), "--select", "RL3", "--fail-on", "info"]).exit_code == 1
    assert runner.invoke(app, ["check", str(tmp_path / "bench"), "--exit-zero"]).exit_code == 0


def test_exclude_and_force_exclude(tmp_path):
    _tree(tmp_path, '[tool.recipelint]\nexclude = ["bench/sub"]\n')
    assert {n for n, _, _ in _codes(tmp_path)} == {"r.sh"}
    sub = str(tmp_path / "bench" / "sub" / "s.sh")
    r = runner.invoke(app, ["check", sub, "-o", "concise"])
    assert "s.sh" in r.output  # named explicitly: linted
    r = runner.invoke(app, ["check", sub, "-o", "concise", "--force-exclude"])
    assert r.exit_code == 0 and r.output == "All checks passed (0 files).\n"


@pytest.mark.parametrize(
    "settings,needle",
    [
        ('[tool.recipelint]\nbogus = 1\n', "unknown key `bogus`"),
        ('[tool.recipelint]\nseverity = { RL101 = "fatal" }\n', "must be one of info, warning, error"),
        ('[tool.recipelint]\nselect = ["XYZ"]\n', "is not a rule code"),
        ('[tool.recipelint]\nfail-on = 3\n', "`fail-on` must be one of"),
        ('[tool.recipelint\n', "invalid TOML"),
    ],
)
def test_settings_errors_are_one_line(tmp_path, settings, needle):
    _tree(tmp_path, settings)
    if "invalid TOML" in needle:
        r = runner.invoke(app, ["check", str(tmp_path / "bench"), "--settings", str(tmp_path / "pyproject.toml")])
    else:
        r = runner.invoke(app, ["check", str(tmp_path / "bench")])
    assert r.exit_code == 2
    lines = r.output.strip().splitlines()
    assert len(lines) == 1 and needle in lines[0] and lines[0].startswith("recipelint: ")


def test_settings_extend_engine_facts(tmp_path):
    _tree(tmp_path, '[tool.recipelint]\nselect = ["RL302"]\nconnector-keys = { SimpleCPUOffloadConnector = ["pool"] }\n')
    assert _codes(tmp_path) == []


def test_settings_extra_flags_are_flags_of_every_release(tmp_path, monkeypatch):
    # a plugin (vllm-omni's `--omni`) adds options to the engine's parser: RL601 must not report
    # them once the settings name them; a near miss of one is still reported, with the hint
    repo = tmp_path / "r"
    (repo / "configs").mkdir(parents=True)
    (repo / "configs" / "runners.yaml").write_text("labels:\n  b200: [b200-dgxc_00]\n")
    (repo / "configs" / "t-master.yaml").write_text(
        "x-fp8-b200-vllm:\n  image: vllm/vllm-openai:v0.33.0\n  model: m\n  model-prefix: x\n  runner: b200\n"
        "  precision: fp8\n  framework: vllm\n  multinode: false\n  scenarios:\n    fixed-seq-len:\n"
        "    - isl: 1024\n      osl: 1024\n      search-space:\n      - { tp: 8, conc-list: [16] }\n"
    )
    rec = repo / "benchmarks" / "single_node" / "fixed_seq_len"
    rec.mkdir(parents=True)
    (rec / "x_fp8_b200_vllm.sh").write_text(
        "#!/usr/bin/env bash\nvllm serve org/m --tensor-parallel-size \"$TP\" --omni \\\n    --omni-stage-config s.yaml --omnii\n"
    )
    monkeypatch.chdir(repo)

    def rl601():
        r = runner.invoke(app, ["check", "benchmarks", "-o", "concise", "--select", "RL601,RL202", "--no-cache"])
        assert r.exit_code in (0, 1), r.output
        return r.output.strip().splitlines()[:-1]  # the summary line last

    assert [ln.split("`")[1] for ln in rl601()] == ["--omni", "--omni-stage-config", "--omnii"]
    assert all("[RL601] " in ln for ln in rl601())
    (repo / ".recipelint.yaml").write_text("extra-flags:\n  vllm: [--omni, --omni-stage-config]\n")
    got = rl601()
    assert len(got) == 1 and "x_fp8_b200_vllm.sh:3:" in got[0] and "`--omnii`" in got[0], got
    assert "did you mean `--omni`?" in got[0]
    (repo / ".recipelint.yaml").write_text("extra-flags:\n  sglang: [--omni, --omni-stage-config]\n")
    got = rl601()  # another engine's additions are not this one's: RL202 (a flag of the other engine)
    assert [re.findall(r"\[(RL\d+)\]", ln)[0] for ln in got] == ["RL202", "RL202", "RL601"], got


@pytest.mark.parametrize(
    "value,needle",
    [
        ("extra-flags = [\"--omni\"]", "must be a table of engine = [flags]"),
        ("extra-flags = { trtllm = [\"--x\"] }", "engine must be one of atom, sglang, vllm"),
        ("extra-flags = { vllm = \"--x\" }", "must be a list of strings"),
        ("extra-flags = { vllm = [\"omni\"] }", "'omni' is not a long option"),
    ],
)
def test_settings_extra_flags_errors(tmp_path, value, needle):
    _tree(tmp_path, f"[tool.recipelint]\n{value}\n")
    r = runner.invoke(app, ["check", str(tmp_path / "bench")])
    assert r.exit_code == 2 and needle in r.output and len(r.output.strip().splitlines()) == 1, r.output


# ---- --diff-base -----------------------------------------------------------------------------

PAIR_OLD = """#!/usr/bin/env bash
MAX=$((2 * CONC))
vllm serve org/m --data-parallel-size "$TP" --tensor-parallel-size 1 \\
    --max-num-seqs "$MAX"
"""


def test_diff_base_keeps_only_what_changed(tmp_path, monkeypatch):
    repo = tmp_path / "r"
    (repo / "configs").mkdir(parents=True)
    (repo / "configs" / "runners.yaml").write_text("labels:\n  b200: [b200-dgxc_00]\n")
    entry = (
        "x-fp8-b200-vllm:\n  image: i\n  model: m\n  model-prefix: x\n  runner: b200\n  precision: fp8\n"
        "  framework: vllm\n  multinode: false\n  scenarios:\n    fixed-seq-len:\n    - isl: 1024\n      osl: 1024\n"
        "      search-space:\n      - { tp: 8, ep: 8, dp-attn: true, conc-list: [16] }\n"
    )
    y_entry = entry.replace("x-fp8", "y-fp8").replace("model-prefix: x", "model-prefix: y")
    (repo / "configs" / "t-master.yaml").write_text(entry + y_entry)
    rec = repo / "benchmarks" / "single_node" / "fixed_seq_len"
    rec.mkdir(parents=True)
    (rec / "x_fp8_b200_vllm.sh").write_text(PAIR_OLD)
    (rec / "y_fp8_b200_vllm.sh").write_text(PAIR_OLD.replace("org/m", "org/y"))
    _git(repo, "init", "-q")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "one")
    monkeypatch.chdir(repo)
    full = runner.invoke(app, ["check", "benchmarks", "-o", "concise", "--select", "RL101"])
    assert full.output.count("RL101") == 2  # both recipes already had it
    # second commit: a new bad line in y only (the lines around it are unchanged)
    (rec / "y_fp8_b200_vllm.sh").write_text(
        PAIR_OLD.replace("org/m", "org/y").replace(
            '    --max-num-seqs', '    --max-cudagraph-capture-size "$((4 * CONC))" \\\n    --max-num-seqs'
        )
    )
    _git(repo, "commit", "-qam", "two")
    r = runner.invoke(app, ["check", "benchmarks", "-o", "concise", "--select", "RL101", "--diff-base", "HEAD~1"])
    lines = r.stdout.strip().splitlines()[:-1]  # the summary line last (stderr says what was analysed)
    assert len(lines) == 1 and "y_fp8_b200_vllm.sh:4:" in lines[0] and "--max-cudagraph-capture-size" in lines[0], r.output
    # a config change: a new sweep point (conc 32) of x's entry, where x has the bug — new there,
    # though no line of the recipe changed (y, whose entry did not change, is not affected)
    (repo / "configs" / "t-master.yaml").write_text(entry.replace("conc-list: [16]", "conc-list: [16, 32]") + y_entry)
    r = runner.invoke(app, ["check", "benchmarks", "-o", "json", "--select", "RL101", "--diff-base", "HEAD"])
    got = json.loads(r.output)
    assert {(f["location"]["path"].rsplit("/", 1)[-1], f["location"]["line"]) for f in got} == {("x_fp8_b200_vllm.sh", 2)}
    assert all(p.endswith("-conc32") for f in got for p in f["points"])  # (conc 16 had them all before)


def test_diff_base_counts_a_changed_dispatch_workflow_line(tmp_path, monkeypatch):
    repo = tmp_path / "r"
    (repo / "configs").mkdir(parents=True)
    (repo / "configs" / "t-master.yaml").write_text("{}\n")
    (repo / "al").mkdir()
    (repo / "al" / "x_run.sh").write_text(PAIR_OLD)
    wf = repo / ".github" / "workflows" / "speedbench-al.yml"
    wf.parent.mkdir(parents=True)
    wf.write_text(
        "on:\n  workflow_dispatch:\n    inputs:\n      p: {default: x}\n"
        "env:\n  TP: '1'\n  CONC: '16'\n  DP_ATTENTION: 'true'\n  BENCH_SCRIPT_OVERRIDE: al/${{ inputs.p }}_run.sh\n"
    )
    _git(repo, "init", "-q")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "one")
    monkeypatch.chdir(repo)
    r = runner.invoke(app, ["check", "al", "-o", "concise", "--select", "RL101", "--diff-base", "HEAD"])
    assert "RL101" not in r.output, r.output
    # the workflow goes from one to eight DP engines: the recipe's unchanged line is now a finding, new
    wf.write_text(wf.read_text().replace("TP: '1'", "TP: '8'"))
    full = runner.invoke(app, ["check", "al", "-o", "json", "--select", "RL101", "--no-cache"])
    assert full.output.count('"RL101"') == 1 and "speedbench-al.yml" in full.output
    r = runner.invoke(app, ["check", "al", "-o", "concise", "--select", "RL101", "--diff-base", "HEAD"])
    assert "al/x_run.sh:2:" in r.output, r.output
    # committed, the same finding is old; changing CONC keeps it the same finding of the same point
    _git(repo, "commit", "-qam", "two")
    wf.write_text(wf.read_text().replace("CONC: '16'", "CONC: '32'"))
    r = runner.invoke(app, ["check", "al", "-o", "concise", "--select", "RL101", "--diff-base", "HEAD"])
    assert "RL101" not in r.output, r.output


def test_diff_base_errors(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a.sh").write_text("vllm serve m\n")
    r = runner.invoke(app, ["check", "a.sh", "--diff-base", "HEAD"])
    assert r.exit_code == 2 and r.output.startswith("recipelint: --diff-base")
    _git(tmp_path, "init", "-q")
    r = runner.invoke(app, ["check", "a.sh", "--diff-base", "no-such-rev"])
    assert r.exit_code == 2 and "--diff-base" in r.output


def _sarif_of(findings, root):
    from recipelint.report.sarif import render_sarif

    return json.loads(render_sarif(findings, rules=[], root=root))["runs"][0]["results"]


def test_sarif_fingerprints_are_unique_and_survive_moved_lines():
    from recipelint.bash.source import Span
    from recipelint.lint.findings import Finding

    def f(line, message, code="RL601", key=""):
        return Finding(code, "unknown-flag", "warning", message, Span("a.sh", line, 1, line, 5), key=key)

    long = "x" * 300  # (the old fingerprint was the text cut at 200 characters: these two collided)
    findings = [f(3, long + "a"), f(9, long + "b"), f(12, "same"), f(20, "same"), f(4, "same", code="RL602")]
    prints = [r["partialFingerprints"]["recipelint/v2"] for r in _sarif_of(findings, None)]
    assert len(set(prints)) == len(prints)
    moved = [f(30, long + "a"), f(1, long + "b"), f(2, "same"), f(7, "same"), f(5, "same", code="RL602")]
    assert [r["partialFingerprints"]["recipelint/v2"] for r in _sarif_of(moved, None)] == prints


def test_sarif_locations_are_relative_to_the_work_tree_root(tmp_path, monkeypatch):
    from recipelint.bash.source import Span
    from recipelint.lint.findings import Finding

    (tmp_path / ".git").mkdir()
    (tmp_path / "benchmarks").mkdir()
    monkeypatch.chdir(tmp_path / "benchmarks")  # run from a subfolder: paths are relative to it
    from recipelint.report.sarif import repository_root

    inside = Finding("RL601", "unknown-flag", "warning", "m", Span("x y.sh", 1, 1, 1, 2))
    outside = Finding("RL601", "unknown-flag", "warning", "n", Span("/elsewhere/z.sh", 1, 1, 1, 2))
    a, b = (r["locations"][0]["physicalLocation"]["artifactLocation"] for r in _sarif_of([inside, outside], repository_root()))
    assert a == {"uri": "benchmarks/x%20y.sh", "uriBaseId": "%SRCROOT%"}
    assert b == {"uri": "file:///elsewhere/z.sh"}  # an absolute URI carries no base (SARIF 3.4.4)


def _two_commits(tmp_path, name="x_fp8_b200_vllm.sh"):
    """A repository whose second state adds an RL101 line to a recipe named ``name``."""
    repo = tmp_path / "r"
    rec = repo / "benchmarks"
    rec.mkdir(parents=True)
    (rec / name).write_text("#!/usr/bin/env bash\nvllm serve org/m --tensor-parallel-size 1\n")
    _git(repo, "init", "-q")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "one")
    (rec / name).write_text(PAIR_OLD)
    return repo


def test_diff_base_runs_no_program_the_repository_configures(tmp_path, monkeypatch):
    # a checked repository is untrusted: its .git/config may name an fsmonitor hook, an external
    # diff and hooks; its .gitattributes a textconv filter — none of them may run
    repo = _two_commits(tmp_path)
    marker = tmp_path / "ran"
    hook = tmp_path / "hook.sh"
    hook.write_text(f"#!/bin/sh\ntouch {marker}\ncat \"$@\" 2>/dev/null\n")
    hook.chmod(0o755)
    for key in ("core.fsmonitor", "diff.external", "diff.evil.textconv"):
        _git(repo, "config", key, str(hook))
    _git(repo, "config", "diff.noprefix", "true")
    _git(repo, "config", "diff.mnemonicPrefix", "true")
    (repo / ".gitattributes").write_text("*.sh diff=evil\n")
    monkeypatch.chdir(repo)
    r = runner.invoke(app, ["check", "benchmarks", "-o", "concise", "--select", "RL101", "--diff-base", "HEAD"])
    assert not marker.exists()
    assert r.output.count("RL101") == 1, r.output  # (and the prefixes the config asks for did not hide it)


def test_diff_base_reads_paths_with_blanks_and_non_ascii(tmp_path, monkeypatch):
    for i, name in enumerate(("x y_fp8_b200_vllm.sh", "é_fp8_b200_vllm.sh", 'q"t_fp8_b200_vllm.sh')):
        repo = _two_commits(tmp_path / str(i), name)
        monkeypatch.chdir(repo)
        r = runner.invoke(app, ["check", "benchmarks", "-o", "concise", "--select", "RL101", "--diff-base", "HEAD"])
        assert r.output.count("RL101") == 1, (name, r.output)


def test_diff_base_never_reads_an_untracked_fifo_or_device(tmp_path, monkeypatch):
    import os

    repo = _two_commits(tmp_path)
    os.mkfifo(repo / "benchmarks" / "pipe.sh")  # opening it would block forever
    (repo / "benchmarks" / "zero.sh").symlink_to("/dev/zero")  # reading it, without end
    monkeypatch.chdir(repo)
    r = runner.invoke(app, ["check", "benchmarks", "-o", "concise", "--select", "RL101,RL003", "--diff-base", "HEAD"])
    assert r.output.count("RL101") == 1, r.output
    assert "pipe.sh" in r.output and "zero.sh" in r.output  # reported as unreadable (RL003), never read


def test_github_format_says_how_many_annotations_github_will_not_show():
    """GitHub shows at most 10 annotations of each kind per step and drops the rest silently: a
    first notice says how many are hidden and where every finding is (issue 48)."""
    from recipelint.bash.source import Span
    from recipelint.lint.findings import Finding
    from recipelint.report.github import render_github

    def f(i, sev):
        return Finding("RL601", "unknown-flag", sev, f"m{i}", Span("r.sh", i + 1, 1, i + 1, 2))

    few = [f(i, "warning") for i in range(10)] + [f(i, "error") for i in range(10)]
    assert "not every finding is annotated" not in render_github(few)
    many = [f(i, "warning") for i in range(13)] + [f(i, "error") for i in range(2)] + [f(i, "info") for i in range(10)]
    lines = render_github(many).splitlines()
    assert len(lines) == 26 and lines[0].startswith("::notice title=recipelint%3A not every finding is annotated::")
    # 13 warnings (3 hidden), and 10 notices + this one (1 hidden)
    assert "reported 25 findings (2 errors, 13 warnings, 10 notices)" in lines[0] and "so 4 are not shown" in lines[0]
