"""The layout read from the checked tree (recipelint.sweep.layout): the workflow template's
SCENARIO_SUBDIR and input defaults, the runner launchers evaluated under a row's environment,
and the older schemas (flat runners.yaml, `offloading:`), on a tree modelled on InferenceX as it
was in May 2026 (configs under .github/configs/, recipes directly in benchmarks/single_node/)."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest
from typer.testing import CliRunner

from recipelint.cli import app
from recipelint.sweep import configs
from recipelint.sweep.layout import gh_eval

# a flat runners.yaml (label -> nodes), as before 2026-07
RUNNERS = """
mi325x:
- 'mi325x-amds_00'
b200:
- 'b200-nb_0'
h100:
- 'h100-gone_0'
"""

TEMPLATE = """name: Template
on:
  workflow_call:
    inputs:
      scenario-type:
        type: string
        default: 'fixed-seq-len'
      offloading:
        type: string
        default: 'none'
      total-cpu-dram-gb:
        type: string
        default: '600'
      duration:
        type: string
        default: '1800'
env:
  SCENARIO_TYPE: ${{ inputs.scenario-type }}
  SCENARIO_SUBDIR: ${{ inputs.scenario-type == 'agentic-coding' && 'agentic/' || '' }}
  OFFLOADING: ${{ inputs.offloading }}
  TOTAL_CPU_DRAM_GB: ${{ inputs.total-cpu-dram-gb }}
  DURATION: ${{ inputs.duration }}
jobs: {}
"""

# the MI325X launcher of that time: one name, no spec-decoding suffix
MI325X = """#!/usr/bin/bash
export HF_HUB_CACHE=/cache
docker run --rm -e TP -e CONC img \\
  bash benchmarks/single_node/${SCENARIO_SUBDIR}${EXP_NAME%%_*}_${PRECISION}_mi325x.sh
"""

# the B200 launcher: the framework-tagged name first, found by a file test
B200 = """#!/usr/bin/bash
SPEC_SUFFIX=$([[ "$SPEC_DECODING" == "mtp" ]] && printf '_mtp' || printf '')
BENCH_BASE="benchmarks/single_node/${SCENARIO_SUBDIR}${EXP_NAME%%_*}_${PRECISION}_b200"
BENCH_SCRIPT="${BENCH_BASE}_${FRAMEWORK}${SPEC_SUFFIX}.sh"
if [[ ! -f "$BENCH_SCRIPT" ]]; then
    BENCH_SCRIPT="${BENCH_BASE}${SPEC_SUFFIX}.sh"
fi
srun --container-image=$IMAGE bash "$BENCH_SCRIPT"
"""


def _entry(key, runner, fw="sglang", spec="none", scenario="fixed-seq-len", extra=""):
    group = "isl: 1024\n        osl: 1024" if scenario == "fixed-seq-len" else "duration: 900"
    return f"""
{key}:
  image: img
  model: org/m
  model-prefix: m
  runner: {runner}
  precision: fp8
  framework: {fw}
  multinode: false
  scenarios:
    {scenario}:
      - {group}
        search-space:
        - {{ tp: 8, spec-decoding: {spec}, {extra}conc-list: [4] }}
"""


def _tree(tmp_path: Path, entries: str, recipes: list[str], launchers: dict | None = None) -> Path:
    cfg = tmp_path / ".github" / "configs"
    cfg.mkdir(parents=True)
    (cfg / "runners.yaml").write_text(RUNNERS)
    (cfg / "amd-master.yaml").write_text(textwrap.dedent(entries))
    wf = tmp_path / ".github" / "workflows"
    wf.mkdir(parents=True)
    (wf / "benchmark-tmpl.yml").write_text(TEMPLATE)
    runners = tmp_path / "runners"
    runners.mkdir()
    for name, text in (launchers if launchers is not None else {"mi325x-amds": MI325X, "b200-nb": B200}).items():
        (runners / f"launch_{name}.sh").write_text(text)
    for r in recipes:
        p = tmp_path / "benchmarks" / "single_node" / r
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text('#!/usr/bin/env bash\npython3 -m sglang.launch_server --model-path org/m --tp "$TP" &\n')
    return tmp_path


def _entries(root: Path) -> dict:
    cs = configs.load(root, None)
    assert not cs.problems, cs.problems
    return {e.key: e for e in cs.entries}


def test_the_launcher_of_the_tree_says_which_recipe_an_entry_runs(tmp_path):
    # the MTP entry runs the plain recipe: that launcher added no `_mtp` (a real defect, which the
    # constant suffix rule hid); the fixed-seq-len folder is the template's '' of that time
    root = _tree(
        tmp_path,
        _entry("m-mi325x", "mi325x") + _entry("m-mi325x-mtp", "mi325x", spec="mtp"),
        ["m_fp8_mi325x.sh", "m_fp8_mi325x_mtp.sh"],
    )
    es = _entries(root)
    assert es["m-mi325x"].scripts == ["benchmarks/single_node/m_fp8_mi325x.sh"]
    assert es["m-mi325x-mtp"].scripts == ["benchmarks/single_node/m_fp8_mi325x.sh"]
    assert es["m-mi325x-mtp"].read_from == ["runners/launch_mi325x-amds.sh"]


def test_a_run_of_some_recipes_reads_no_launcher_of_an_entry_of_another_precision(tmp_path):
    # `m_fp8_...` is checked: the fp4 entry (same model prefix) cannot run it, so its launcher is
    # not read; the points of the recipe checked are those of a full load
    fp4 = _of_precision(_entry("m-b200-fp4", "b200", fw="vllm"), "fp4")
    root = _tree(tmp_path, _entry("m-mi325x", "mi325x") + fp4, ["m_fp8_mi325x.sh", "m_fp4_b200.sh"])
    recipe = root / "benchmarks" / "single_node" / "m_fp8_mi325x.sh"
    full, one = configs.load(root, None), configs.load(root, None, recipes=[recipe])
    assert {e.key for e in full.entries} == {"m-mi325x", "m-b200-fp4"}
    assert [e.key for e in one.entries] == ["m-mi325x"]
    assert set(one.layout._parsed) == {"runners/launch_mi325x-amds.sh"}
    assert "runners/launch_b200-nb.sh" in full.layout._parsed
    assert [p.label for p in one.points_for(recipe)] == [p.label for p in full.points_for(recipe)]
    # a recipe of the other precision keeps its entry
    other = configs.load(root, None, recipes=[root / "benchmarks" / "single_node" / "m_fp4_b200.sh"])
    assert [e.key for e in other.entries] == ["m-b200-fp4"]


def _of_precision(entry: str, precision: str) -> str:
    return entry.replace("precision: fp8", f"precision: {precision}")


def test_a_recipe_no_entry_of_its_precision_runs_is_looked_for_in_every_entry(tmp_path):
    # this B200 launcher runs one recipe whatever the entry's precision: the fp4 entry runs
    # `m_fp8_b200.sh`, which the entries of precision fp8 do not; a run of that recipe finds no
    # point among them and reads the entries of every precision
    fixed = "#!/usr/bin/bash\nsrun bash benchmarks/single_node/m_fp8_b200.sh\n"
    entries = _entry("m-mi325x", "mi325x") + _of_precision(_entry("m-b200-fp4", "b200"), "fp4")
    root = _tree(tmp_path, entries, ["m_fp8_mi325x.sh", "m_fp8_b200.sh"], {"mi325x-amds": MI325X, "b200-nb": fixed})
    recipe = root / "benchmarks" / "single_node" / "m_fp8_b200.sh"
    full, one = configs.load(root, None), configs.load(root, None, recipes=[recipe])
    assert [p.config_key for p in one.points_for(recipe)] == ["m-b200-fp4"]
    assert [p.label for p in one.points_for(recipe)] == [p.label for p in full.points_for(recipe)]


def test_an_entry_that_runs_a_recipe_of_another_precision_means_every_entry_is_read(tmp_path):
    # the fp8 B200 entry runs `m_fp4_b200.sh`: in this tree a precision does not say which
    # recipes an entry runs, so a run of `m_fp8_mi325x.sh` reads the fp4 entry too
    fixed = "#!/usr/bin/bash\nsrun bash benchmarks/single_node/m_fp4_b200.sh\n"
    entries = _entry("m-mi325x", "mi325x") + _entry("m-b200", "b200") + _of_precision(_entry("m-mi325x-fp4", "mi325x"), "fp4")
    root = _tree(
        tmp_path, entries, ["m_fp8_mi325x.sh", "m_fp4_b200.sh", "m_fp4_mi325x.sh"], {"mi325x-amds": MI325X, "b200-nb": fixed}
    )
    one = configs.load(root, None, recipes=[root / "benchmarks" / "single_node" / "m_fp8_mi325x.sh"])
    assert {e.key for e in one.entries} == {"m-mi325x", "m-b200", "m-mi325x-fp4"}


@pytest.mark.parametrize("tagged", [True, False])
def test_a_file_test_in_the_launcher_is_answered_from_the_tree(tmp_path, tagged):
    recipes = ["m_fp8_b200_vllm.sh", "m_fp8_b200.sh"] if tagged else ["m_fp8_b200.sh"]
    es = _entries(_tree(tmp_path, _entry("m-b200", "b200", fw="vllm"), recipes))
    want = "m_fp8_b200_vllm.sh" if tagged else "m_fp8_b200.sh"
    assert es["m-b200"].scripts == [f"benchmarks/single_node/{want}"]


def test_the_older_offload_key_and_the_templates_defaults_reach_the_recipe(tmp_path):
    root = _tree(
        tmp_path,
        _entry("m-mi325x-agentic", "mi325x", scenario="agentic-coding", extra="offloading: cpu, "),
        ["agentic/m_fp8_mi325x.sh"],
    )
    cs = configs.load(root, None)
    (pt,) = cs.points_for(root / "benchmarks/single_node/agentic/m_fp8_mi325x.sh")
    assert pt.env["KV_OFFLOADING"] == "cpu" and pt.env["OFFLOADING"] == "cpu"  # (the template's name then)
    assert pt.env["DURATION"] == "900"  # the group's
    assert pt.env["TOTAL_CPU_DRAM_GB"] == "600" and pt.extra.get("dram_default")  # the template's default


def test_a_launcher_not_in_the_tree_is_one_finding_not_one_per_entry(tmp_path):
    entries = "".join(_entry(f"m-h100-{i}", "h100") for i in range(5))
    root = _tree(tmp_path, entries, ["m_fp8_h100_other.sh"])
    r = CliRunner().invoke(app, ["check", str(root / ".github/configs/amd-master.yaml"), "-o", "concise", "--no-cache"])
    rl506 = [line for line in r.stdout.splitlines() if "RL506" in line]
    assert len(rl506) == 1, r.output
    assert "5 config entries" in rl506[0] and "runners/launch_h100-gone.sh" in rl506[0] and "not in the tree" in rl506[0]


def test_a_recipe_the_launcher_names_that_is_missing_says_which_launcher(tmp_path):
    root = _tree(tmp_path, _entry("m-mi325x", "mi325x"), ["m_fp8_mi325x_other.sh"])
    r = CliRunner().invoke(app, ["check", str(root / ".github/configs/amd-master.yaml"), "-o", "concise", "--no-cache"])
    (line,) = [ln for ln in r.stdout.splitlines() if "RL506" in ln]
    assert "benchmarks/single_node/m_fp8_mi325x.sh" in line and "composed by `runners/launch_mi325x-amds.sh`" in line


def test_a_missing_recipe_points_at_the_recipe_of_a_near_name(tmp_path):
    # (InferenceX HEAD: `qwen3.5-fp8-h100-sglang-agentic` has no MTP point, so it runs
    # `qwen3.5_fp8_h100.sh`, which does not exist; `qwen3.5_fp8_h100_mtp.sh` does: RL506 names it,
    # as a related location, the headline unchanged)
    root = _tree(tmp_path, _entry("m-mi325x", "mi325x"), ["m_fp8_mi325x_mtp.sh", "m_fp8_mi325x_mtp_old.sh"])
    r = CliRunner().invoke(app, ["check", str(root / ".github/configs/amd-master.yaml"), "-o", "json", "--no-cache"])
    (f,) = [f for f in json.loads(r.stdout) if f["code"] == "RL506" and "does not exist" in f["message"]]
    assert f["message"].endswith("which does not exist: add the recipe or fix the entry")
    (rel,) = f["related"]  # (`_mtp_old` is two parts longer: not named)
    assert rel["path"].endswith("benchmarks/single_node/m_fp8_mi325x_mtp.sh") and rel["line"] == 1
    assert rel["message"] == "`m_fp8_mi325x_mtp.sh` exists, this name with `_mtp`"


def test_a_missing_recipe_with_no_near_name_has_no_related_location(tmp_path):
    root = _tree(tmp_path, _entry("m-mi325x", "mi325x"), ["m_fp8_mi325x_other_mtp.sh"])
    r = CliRunner().invoke(app, ["check", str(root / ".github/configs/amd-master.yaml"), "-o", "json", "--no-cache"])
    (f,) = [f for f in json.loads(r.stdout) if f["code"] == "RL506" and "does not exist" in f["message"]]
    assert f["related"] == []


@pytest.mark.parametrize(
    "expr, inputs, want",
    [
        (
            "inputs.scenario-type == 'agentic-coding' && 'agentic/' || 'fixed_seq_len/'",
            {"scenario-type": "agentic-coding"},
            "agentic/",
        ),
        (
            "inputs.scenario-type == 'agentic-coding' && 'agentic/' || 'fixed_seq_len/'",
            {"scenario-type": "fixed-seq-len"},
            "fixed_seq_len/",
        ),
        ("inputs.scenario-type == 'agentic-coding' && 'agentic/' || ''", {"scenario-type": "fixed-seq-len"}, ""),
        ("inputs.a", {"a": "x"}, "x"),
        ("!(inputs.a == 'X') && 'no' || 'yes'", {"a": "x"}, "yes"),  # (comparison ignores case, as GitHub's)
        ("inputs.a != 'x'", {"a": "y"}, True),
        ("'it''s'", {}, "it's"),
        ("format('{0}', inputs.a)", {"a": "x"}, None),
        ("inputs.a ==", {"a": "x"}, None),
    ],
)
def test_template_expressions(expr, inputs, want):
    assert gh_eval(expr, inputs) == want


@pytest.mark.parametrize("offset", [200, 256])
def test_the_context_length_rule_is_the_trees_generators(tmp_path, offset):
    root = _tree(tmp_path, _entry("m-mi325x", "mi325x"), ["m_fp8_mi325x.sh"])
    gen = root / "utils/matrix_logic/generate_sweep_configs.py"
    gen.parent.mkdir(parents=True)
    gen.write_text(f"row = {{\n    Fields.MAX_MODEL_LEN.value: isl + osl + {offset},\n}}\n")
    (pt,) = configs.load(root, None).points_for(root / "benchmarks/single_node/m_fp8_mi325x.sh")
    assert pt.env["MAX_MODEL_LEN"] == str(1024 + 1024 + offset)


def test_a_launcher_that_ignores_the_scenario_folder_is_one_finding(tmp_path):
    # (InferenceX 2026-05-01..05-16: the B200 launchers did not use SCENARIO_SUBDIR, so agentic
    # entries ran the fixed-seq-len recipe)
    ignoring = MI325X.replace("${SCENARIO_SUBDIR}", "")
    root = _tree(
        tmp_path,
        _entry("m-mi325x-agentic", "mi325x", scenario="agentic-coding"),
        ["m_fp8_mi325x.sh", "agentic/m_fp8_mi325x.sh"],
        {"mi325x-amds": ignoring},
    )
    r = CliRunner().invoke(app, ["check", str(root / ".github/configs/amd-master.yaml"), "-o", "concise", "--no-cache"])
    (line,) = [ln for ln in r.stdout.splitlines() if "RL506" in ln]
    assert "(agentic-coding) runs `benchmarks/single_node/m_fp8_mi325x.sh`" in line and "not a recipe under `agentic/`" in line


def test_a_kept_reading_holds_only_while_its_file_tests_give_the_same_answers(tmp_path):
    root = _tree(tmp_path / "r", _entry("m-b200", "b200", fw="vllm"), ["m_fp8_b200.sh"])
    cache = tmp_path / "cache"
    first = configs.load(root, None, cache)
    assert first.layout.evaluations == 1 and first.entries[0].scripts == ["benchmarks/single_node/m_fp8_b200.sh"]
    again = configs.load(root, None, cache)
    assert again.layout.evaluations == 0 and again.entries[0].scripts == first.entries[0].scripts  # (kept)
    (root / "benchmarks/single_node/m_fp8_b200_vllm.sh").write_text("#!/usr/bin/env bash\nvllm serve m\n")
    third = configs.load(root, None, cache)  # the launcher's `-f` test now answers otherwise: read again
    assert third.layout.evaluations == 1 and third.entries[0].scripts == ["benchmarks/single_node/m_fp8_b200_vllm.sh"]


def test_the_older_offload_key_is_read_only_where_the_template_is_of_its_time(tmp_path):
    # after #1970 the generator reads `kv-offloading:` only: a stale `offloading: cpu` is no offload
    root = _tree(
        tmp_path,
        _entry("m-mi325x-agentic", "mi325x", scenario="agentic-coding", extra="offloading: cpu, "),
        ["agentic/m_fp8_mi325x.sh"],
    )
    tpl = root / ".github/workflows/benchmark-tmpl.yml"
    tpl.write_text(tpl.read_text().replace("  OFFLOADING:", "  KV_OFFLOADING:"))
    (pt,) = configs.load(root, None).points_for(root / "benchmarks/single_node/agentic/m_fp8_mi325x.sh")
    assert pt.env["KV_OFFLOADING"] == "none"


def test_hostile_templates_and_launchers_stay_bounded(tmp_path):
    # parentheses nested past Python's recursion limit: the expression is "not understood"
    assert gh_eval("(" * 5000 + "'a'" + ")" * 5000, {}) is None
    # a launcher that names recipes outside the tree: never looked at; one that loops: bounded
    escaping = MI325X.replace("benchmarks/single_node/", "../../benchmarks/single_node/")
    looping = "#!/usr/bin/bash\nwhile true; do X=$((X+1)); done\nbash benchmarks/single_node/m_fp8_mi325x.sh\n"
    for name, text in (("escape", escaping), ("loop", looping)):
        root = _tree(tmp_path / name, _entry("m-mi325x", "mi325x"), ["m_fp8_mi325x.sh"], {"mi325x-amds": text})
        (e,) = configs.load(root, None).entries
        assert not e.scripts or e.scripts == ["benchmarks/single_node/m_fp8_mi325x.sh"]
