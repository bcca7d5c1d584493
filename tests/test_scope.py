"""Diff mode's scope (``lint.scope``): only what a change can affect is analysed, and the result is
the whole-tree diff's.

A small benchmark repository (the seed's recipes, their master config, the sourced library, and an
unrelated recipe with its own entry) gets one kind of change per test; each test says what the
scope must hold, and checks that the scoped diff reports exactly what the whole-tree diff reports.
``tools/diff_scope_equivalence.py`` checks the same on real histories.
"""

from __future__ import annotations

import json
import shutil
from dataclasses import replace
from pathlib import Path

import pytest
from helpers import git, record_analyses

from recipelint.lint.check import Options, lint
from recipelint.lint.settings import find, load
from recipelint.report.jsonfmt import render_json

SEED = Path(__file__).resolve().parent.parent / "fixtures" / "seed"
B200 = "benchmarks/single_node/agentic/dsv4_fp4_b200_vllm.sh"
B300 = "benchmarks/single_node/agentic/dsv4_fp4_b300_vllm.sh"
OTHER = "benchmarks/single_node/agentic/glm5_fp8_h200.sh"  # (the h200-cw launcher adds no framework suffix)

OTHER_ENTRY = """
glm5-fp8-h200-vllm-agentic:
  image: vllm/vllm-openai:v0.25.1
  model: zai-org/GLM-5
  model-prefix: glm5
  runner: cluster:h200-cw
  precision: fp8
  framework: vllm
  multinode: false
  scenarios:
    agentic-coding:
    - search-space:
      - { tp: 8, conc-list: [4, 8] }
"""

OTHER_RECIPE = """#!/usr/bin/env bash
source "$(dirname "$0")/../../benchmark_lib.sh"
check_env_vars MODEL TP CONC
vllm serve "$MODEL" --tensor-parallel-size "$TP" --max-num-seqs "$CONC" \\
    --tool-call-parser glm47 --enable-auto-tool-choice --reasoning-parser glm45 &
"""


@pytest.fixture
def repo(tmp_path, monkeypatch) -> Path:
    monkeypatch.setenv("RECIPELINT_CACHE_DIR", str(tmp_path / "cache"))
    r = tmp_path / "r"
    shutil.copytree(SEED, r, ignore=shutil.ignore_patterns("expected*"))
    (r / OTHER).write_text(OTHER_RECIPE)
    with (r / "configs/nvidia-master.yaml").open("a") as fh:
        fh.write(OTHER_ENTRY)
    with (r / "configs/runners.yaml").open("a") as fh:
        fh.write("  cluster:h200-cw: {available-cpu-dram-mib: 2_000_000, gpus-per-node: 8}\n")
    runners = (r / "configs/runners.yaml").read_text()
    (r / "configs/runners.yaml").write_text(runners.replace("labels:\n", "labels:\n  cluster:h200-cw: [h200-cw_00]\n"))
    (r / "README.md").write_text("a benchmark repository\n")
    git(r, "init", "-q", "-b", "main")
    git(r, "add", "-A")
    git(r, "commit", "-qm", "one")
    monkeypatch.chdir(r)
    return r


def _both(paths=(".",)):
    """(the scoped diff's result, the whole-tree diff's result) since ``main``."""
    ps = [Path(p) for p in paths]
    opt = Options(diff_base="main", settings=load(find(ps[0])), cache=True, jobs=1)
    scoped = lint(ps, options=opt)
    whole = lint(ps, options=replace(opt, scoped=False))
    return scoped, whole


def fixed_ids(fixed) -> list[tuple]:
    """The base's findings a change removed, by what they are (a base-tree file's path is in the
    export, or — for a file alike in both trees — in the work tree)."""
    out = []
    for f in fixed:
        path = f.span.path.split("/tree/", 1)[1] if "/tree/" in f.span.path else f.span.path
        out.append((f.code, path, f.key, f.message, tuple(f.points)))
    return sorted(out)


def _same(scoped, whole) -> list:
    found = json.loads(render_json(scoped.findings))
    assert found == json.loads(render_json(whole.findings))
    assert fixed_ids(scoped.fixed) == fixed_ids(whole.fixed)
    return found


def _analysed(result) -> list[str]:
    return sorted(Path(res.path).resolve().relative_to(Path.cwd().resolve()).as_posix() for res in result.files)


def test_nothing_changed_analyses_nothing(repo):
    scoped, whole = _both()
    assert _analysed(scoped) == [] and scoped.scope_note == "diff mode: no file changed since the base: nothing analysed"
    assert _same(scoped, whole) == []


def test_a_file_no_recipe_reads_analyses_nothing(repo):
    (repo / "README.md").write_text("changed\n")
    (repo / "notes.txt").write_text("untracked\n")
    scoped, whole = _both()
    assert _analysed(scoped) == []
    assert "2 files changed, none of them a recipe or read by one" in scoped.scope_note
    assert _same(scoped, whole) == []


def _drop(path: Path, line: str) -> None:
    text = path.read_text()
    assert line in text
    path.write_text(text.replace(line, ""))


def test_an_edited_recipe_is_analysed_with_its_siblings_only(repo):
    _drop(repo / B200, "    --reasoning-parser deepseek_v4\n")
    scoped, whole = _both()
    assert _analysed(scoped) == [B200, B300]  # (not the unrelated recipe, nor the library)
    # (the b300 recipe names the b200 one in a comment only: not a use)
    assert "2 recipes analysed at base and head (1 changed, 1 a sibling changed; 1 file changed)" in scoped.scope_note
    found = _same(scoped, whole)
    assert any(f["code"] == "RL401" and f["location"]["path"].endswith("b200_vllm.sh") for f in found)


def test_a_sibling_finding_caused_by_the_change_is_reported(repo):
    # the b300 recipe guards against a DP/TP mismatch the b200 one lacks (RL401 on b200); drop the
    # guard from b300: the finding on b200 goes away (fixed), reported through the sibling
    b300 = repo / B300
    text = b300.read_text()
    start = text.index('if [ "$DP_ATTENTION" = "true" ] && [ $((2 * CONC % TP))')
    b300.write_text(text[:start] + text[text.index("fi\n", start) + 3 :])
    scoped, whole = _both()
    assert B200 in _analysed(scoped)
    _same(scoped, whole)
    assert any(f.code == "RL401" for f in scoped.fixed)


def test_a_changed_library_reaches_every_recipe_that_sources_it(repo):
    lib = repo / "benchmarks/benchmark_lib.sh"
    lib.write_text(lib.read_text() + "\n# a comment\n")
    scoped, whole = _both()
    assert _analysed(scoped) == ["benchmarks/benchmark_lib.sh", B200, B300, OTHER]
    assert "names benchmark_lib.sh" in scoped.scope_note
    _same(scoped, whole)


def test_a_config_entry_change_reaches_its_recipe_and_not_the_others(repo):
    cfg = repo / "configs/nvidia-master.yaml"
    cfg.write_text(cfg.read_text().replace("{ tp: 8, conc-list: [4, 8] }", "{ tp: 8, conc-list: [4, 8, 16] }"))
    scoped, whole = _both()
    assert _analysed(scoped) == [OTHER]
    assert "sweep points changed" in scoped.scope_note
    _same(scoped, whole)


def test_a_deleted_recipe_its_entry_still_runs_is_reported(repo):
    (repo / OTHER).unlink()
    scoped, whole = _both()
    found = _same(scoped, whole)
    assert any(f["code"] == "RL506" and "does not exist" in f["message"] for f in found)


def test_a_new_recipe_is_analysed(repo):
    new = repo / "benchmarks/single_node/agentic/dsv4_fp4_h200_sglang.sh"
    new.write_text("#!/usr/bin/env bash\npython3 -m sglang.launch_server --model-path x --tp-size 8 --no-such-flag 1 &\n")
    scoped, whole = _both()
    assert "benchmarks/single_node/agentic/dsv4_fp4_h200_sglang.sh" in _analysed(scoped)
    found = _same(scoped, whole)
    assert any(f["code"] == "RL601" for f in found)


def test_settings_widen_the_scope_to_the_whole_tree(repo):
    (repo / ".recipelint.yaml").write_text("ignore: [RL401]\n")
    scoped, whole = _both()
    assert scoped.scope.whole and "recipelint's settings .recipelint.yaml changed" in scoped.scope_note
    _same(scoped, whole)


def test_an_engine_submodule_widens_the_scope_to_the_whole_tree(repo):
    # (RL601 says a flag upstream lacks as info for every recipe when the repository builds the
    # engine from a submodule)
    (repo / ".gitmodules").write_text(
        '[submodule "sglang"]\n\tpath = sglang\n\turl = https://github.com/example-org/sglang.git\n'
    )
    scoped, whole = _both()
    assert scoped.scope.whole and "the repository's submodules (.gitmodules) changed" in scoped.scope_note
    _same(scoped, whole)


def _runner(repo: Path, exports: str) -> None:
    """Commit a runner's launch script that exports ``exports``."""
    (repo / "runners").mkdir()
    (repo / "runners/launch_h200-cw.sh").write_text("#!/usr/bin/env bash\n" + exports)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "a runner")


def test_a_runner_launcher_brings_in_the_recipes_using_what_it_exports(repo):
    # a runner that starts exporting NODE_SCRATCH_DIR: the recipe that reads it under `set -u` is
    # judged otherwise (RL507); a recipe that does not use the name is not analysed
    _runner(repo, "export HF_HOME=/x\n")
    (repo / OTHER).write_text(OTHER_RECIPE.replace("check_env_vars MODEL TP CONC\n", 'set -u\necho "$NODE_SCRATCH_DIR"\n'))
    git(repo, "commit", "-qam", "a recipe reads it")
    (repo / "runners/launch_h200-cw.sh").write_text("#!/usr/bin/env bash\nexport HF_HOME=/x\nexport NODE_SCRATCH_DIR=/s\n")
    scoped, whole = _both()
    assert not scoped.scope.whole
    assert _analysed(scoped) == [OTHER, "runners/launch_h200-cw.sh"], scoped.scope_note
    assert "uses NODE_SCRATCH_DIR, which a runner exports in one tree only" in scoped.scope_note
    _same(scoped, whole)
    assert any(f.code == "RL507" for f in whole.fixed)


def test_a_runner_launcher_change_that_exports_the_same_names_brings_in_nothing_else(repo):
    _runner(repo, "export HF_HOME=/x\n")
    (repo / "runners/launch_h200-cw.sh").write_text("#!/usr/bin/env bash\n# a comment\nexport HF_HOME=/x\n")
    scoped, whole = _both(["benchmarks"])
    assert _analysed(scoped) == []
    _same(scoped, whole)


def test_a_runner_launcher_that_runs_another_recipe_brings_in_both(repo):
    # the launcher decides which recipe an entry runs (sweep.layout): one that starts running the
    # framework-tagged recipe moves the entry's points from the old recipe to it
    _runner(repo, 'bash "benchmarks/single_node/${SCENARIO_SUBDIR}${EXP_NAME%%_*}_${PRECISION}_h200.sh"\n')
    tagged = OTHER.replace("glm5_fp8_h200.sh", "glm5_fp8_h200_vllm.sh")
    (repo / tagged).write_text(OTHER_RECIPE.replace(" --tool-call-parser glm47 --enable-auto-tool-choice", ""))
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "a tagged recipe the launcher does not run yet")
    (repo / "runners/launch_h200-cw.sh").write_text(
        '#!/usr/bin/env bash\nbash "benchmarks/single_node/${SCENARIO_SUBDIR}${EXP_NAME%%_*}_${PRECISION}_h200_${FRAMEWORK}.sh"\n'
    )
    scoped, whole = _both()
    assert not scoped.scope.whole
    assert OTHER in _analysed(scoped) and tagged in _analysed(scoped), scoped.scope_note
    found = _same(scoped, whole)
    assert any(f["code"] == "RL201" and f["location"]["path"].endswith("h200_vllm.sh") for f in found)


def test_paths_named_bound_the_scope(repo):
    _drop(repo / B200, "    --reasoning-parser deepseek_v4\n")
    scoped, whole = _both([B200])
    assert _analysed(scoped) == [B200]
    _same(scoped, whole)


def test_a_sibling_alike_in_both_trees_is_evaluated_once(repo, monkeypatch):
    # the b300 recipe is in the scope for its parity with b200, unchanged: the base run takes the
    # work tree's analysis of it (its findings are matched as the base's all the same)
    seen = record_analyses(monkeypatch)
    _drop(repo / B200, "    --reasoning-parser deepseek_v4\n")
    ps = [Path(".")]
    scoped = lint(ps, options=Options(diff_base="main", settings=load(find(ps[0])), cache=False, jobs=1))
    assert sorted(seen) == ["dsv4_fp4_b200_vllm.sh", "dsv4_fp4_b200_vllm.sh", "dsv4_fp4_b300_vllm.sh"]
    assert [f.code for f in scoped.findings] == ["RL401"]


def test_the_review_checklist_widens_the_scope_wherever_it_is(repo):
    # the RL7xx policies are on for recipes below a folder holding the checklist
    (repo / "benchmarks/docs").mkdir()
    (repo / "benchmarks/docs/PR_REVIEW_CHECKLIST.md").write_text("# checklist\n")
    scoped, whole = _both()
    assert scoped.scope.whole and "review policy benchmarks/docs/PR_REVIEW_CHECKLIST.md" in scoped.scope_note
    _same(scoped, whole)


def test_changes_compares_only_what_the_change_can_affect(repo, monkeypatch):
    from recipelint.lint.changes import changes

    seen = record_analyses(monkeypatch)
    _drop(repo / B200, "    --reasoning-parser deepseek_v4\n")
    _, found = changes([Path(".")], "main", cache=False)
    assert [(rc.display, [c for _, c in rc.changes]) for rc in found] == [(B200, ["- --reasoning-parser deepseek_v4"])]
    # the b200 recipe in both trees; its sibling (alike in both) and the others are not evaluated
    assert seen == ["dsv4_fp4_b200_vllm.sh", "dsv4_fp4_b200_vllm.sh"]


def test_a_tree_too_large_to_search_is_the_whole_tree(repo, monkeypatch):
    # the search for what sources a changed file reads a bounded amount of text; beyond it the
    # scope is the whole tree, and says why
    from recipelint.lint import scope

    monkeypatch.setattr(scope, "MAX_SEARCH_BYTES", 1000)
    _drop(repo / B200, "    --reasoning-parser deepseek_v4\n")
    scoped, whole = _both()
    assert scoped.scope.whole and "MiB to search for what sources a changed file" in scoped.scope_note
    _same(scoped, whole)


MULTI_ENTRY = """
m1-fp4-b200-dynamo-trt:
  image: nvcr.io#nvidia/tensorrt-llm/release:1.3.0rc27
  model: org/M
  model-prefix: m1
  runner: b200
  precision: fp4
  framework: dynamo-trt
  multinode: true
  scenarios:
    fixed-seq-len:
    - isl: 1024
      osl: 1024
      search-space:
      - conc-list: [64]
        prefill:
          num-worker: 1
          tp: 4
          additional-settings:
          - "CONFIG_FILE=benchmarks/multi_node/srt/m1.yaml"
        decode:
          num-worker: 1
          tp: 8
"""

MULTI_CONFIG = """backend:
  type: trtllm
  trtllm_config:
    decode:
      max_batch_size: 64
      kv_cache_config:
        free_gpu_memory_fraction: 0.9
"""


def test_an_engine_configuration_change_reaches_its_multi_node_entry_only(repo):
    # an srt-slurm recipe (CONFIG_FILE=) edited, nothing else: its entry's project findings are
    # compared in both trees, no recipe is analysed, and the scoped diff equals the whole-tree one
    with (repo / "configs/nvidia-master.yaml").open("a") as fh:
        fh.write(MULTI_ENTRY)
    (repo / "benchmarks/multi_node/srt").mkdir(parents=True)
    (repo / "benchmarks/multi_node/srt/m1.yaml").write_text(MULTI_CONFIG)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "multi-node entry")
    cfg = repo / "benchmarks/multi_node/srt/m1.yaml"
    cfg.write_text(cfg.read_text().replace("free_gpu_memory_fraction", "free_gpu_memory_fractoin"))
    scoped, whole = _both()
    assert _analysed(scoped) == []
    found = _same(scoped, whole)
    assert [(f["code"], f["location"]["path"], f["location"]["line"]) for f in found] == [
        ("RL606", "benchmarks/multi_node/srt/m1.yaml", 7)
    ]


def _second_entry_removed(repo: Path, entries: str, second: str) -> None:
    """``entries`` appended to the master config and committed; then the entry ``second`` (the
    last ones, from it on) removed in the work tree."""
    cfg = repo / "configs/nvidia-master.yaml"
    with cfg.open("a") as fh:
        fh.write(entries)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "entries")
    text = cfg.read_text()
    cfg.write_text(text[: text.index(f"\n{second}:")] + "\n")


def test_a_finding_that_says_several_entries_together_is_the_whole_trees(repo):
    # RL609 says the engine configuration files of every multi-node entry that are not in the tree
    # in one finding ("N files of M entries"): one of two such entries removed, the scoped diff
    # compares both entries (in both trees), so it reports what the whole-tree diff reports
    two = MULTI_ENTRY.replace("benchmarks/multi_node/srt/m1.yaml", "recipes/trtllm/m1.yaml")
    two += two.replace("m1-fp4-b200", "m2-fp4-b200").replace("recipes/trtllm/m1.yaml", "recipes/trtllm/m2.yaml")
    _second_entry_removed(repo, two, "m2-fp4-b200-dynamo-trt")
    scoped, whole = _both()
    assert _analysed(scoped) == []
    found = _same(scoped, whole)
    assert [(f["code"], f["message"].split(" not checked")[0]) for f in found] == [
        ("RL609", "1 TensorRT-LLM engine configuration file of 1 multi-node entry")
    ]
    assert [(code, msg.split(" not checked")[0]) for code, _, _, msg, _ in fixed_ids(scoped.fixed)] == [
        ("RL609", "2 TensorRT-LLM engine configuration files of 2 multi-node entries")
    ]


def test_entries_behind_one_unreadable_launcher_are_compared_together(repo):
    # RL506 says the entries whose launcher cannot be read in one finding: one of the two removed,
    # the scoped diff compares the other too and reports what the whole-tree diff reports
    runners = (repo / "configs/runners.yaml").read_text()
    (repo / "configs/runners.yaml").write_text(runners.replace("labels:\n", "labels:\n  cluster:h100-gone: [h100-gone_00]\n"))
    gone = OTHER_ENTRY.replace("cluster:h200-cw", "cluster:h100-gone").replace("glm5-fp8-h200", "glm5-fp8-h100")
    _second_entry_removed(
        repo, gone + gone.replace("glm5-fp8-h100-vllm-agentic", "glm5-fp8-h100-vllm-agentic-b"), "glm5-fp8-h100-vllm-agentic-b"
    )
    scoped, whole = _both()
    found = _same(scoped, whole)
    assert [(f["code"], "1 config entry (`glm5-fp8-h100-vllm-agentic`)" in f["message"]) for f in found] == [("RL506", True)]
    assert [(code, "2 config entries" in msg) for code, _, _, msg, _ in fixed_ids(scoped.fixed)] == [("RL506", True)]
