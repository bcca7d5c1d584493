"""Master configs: sweep-point expansion, the recipe-name rules, errors, and `recipelint sweep`."""

from __future__ import annotations

import textwrap
from pathlib import Path

from helpers import FIXTURES
from typer.testing import CliRunner

from recipelint.cli import app
from recipelint.sweep import configs

RUNNERS = """
labels:
  b200: [b200-dgxc_00]
  h100: [h100-cw_00]
  mystery: [newgpu-lab_00]
hardware:
  b200: {available-cpu-dram-mib: 3_095_781, gpus-per-node: 8}
"""


def repo(tmp_path: Path, master: str, scripts: list[str]) -> Path:
    (tmp_path / "configs").mkdir()
    (tmp_path / "configs" / "runners.yaml").write_text(RUNNERS)
    (tmp_path / "configs" / "test-master.yaml").write_text(textwrap.dedent(master))
    for s in scripts:
        p = tmp_path / "benchmarks" / "single_node" / s
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text("#!/usr/bin/env bash\nvllm serve m\n")
    return tmp_path


ENTRY = """
m-fp8-{gpu}-{fw}{tag}:
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
      - {{ tp: 8, {extra}conc-list: [4] }}
"""


def entry(gpu="b200", fw="vllm", runner="b200", scenario="fixed-seq-len", extra="", tag=""):
    group = "isl: 1024\n      osl: 1024" if scenario == "fixed-seq-len" else "dram-utilization: 0.95"
    return ENTRY.format(gpu=gpu, fw=fw, runner=runner, scenario=scenario, extra=extra, tag=tag, group=group)


def scripts_of(tmp_path, master, files):
    cs = configs.load(repo(tmp_path, master, files))
    assert not cs.problems, cs.problems
    (e,) = cs.entries
    return e.scripts, e.missing


def test_framework_tagged_name_first(tmp_path):
    got = scripts_of(tmp_path, entry(), ["fixed_seq_len/m_fp8_b200_vllm.sh", "fixed_seq_len/m_fp8_b200.sh"])
    assert got == (["benchmarks/single_node/fixed_seq_len/m_fp8_b200_vllm.sh"], [])


def test_fallback_name_and_trt_suffix(tmp_path):
    assert scripts_of(tmp_path, entry(), ["fixed_seq_len/m_fp8_b200.sh"])[0] == [
        "benchmarks/single_node/fixed_seq_len/m_fp8_b200.sh"
    ]


def test_trt_fallback(tmp_path):
    got = scripts_of(tmp_path, entry(fw="trt", extra="spec-decoding: mtp, "), ["fixed_seq_len/m_fp8_b200_trt_mtp.sh"])
    assert got[0] == ["benchmarks/single_node/fixed_seq_len/m_fp8_b200_trt_mtp.sh"]


def test_draft_model_gets_no_suffix(tmp_path):
    got = scripts_of(tmp_path, entry(extra="spec-decoding: draft_model, "), ["fixed_seq_len/m_fp8_b200_vllm.sh"])
    assert got[0] == ["benchmarks/single_node/fixed_seq_len/m_fp8_b200_vllm.sh"]


def test_launchers_without_framework_names(tmp_path):
    # h100 launchers never try the framework-tagged name
    got = scripts_of(
        tmp_path, entry(gpu="h100", runner="h100"), ["fixed_seq_len/m_fp8_h100_vllm.sh", "fixed_seq_len/m_fp8_h100.sh"]
    )
    assert got[0] == ["benchmarks/single_node/fixed_seq_len/m_fp8_h100.sh"]


def test_agentic_folder_and_missing_recipe(tmp_path):
    got = scripts_of(tmp_path, entry(scenario="agentic-coding", extra="kv-offloading: none, "), [])
    assert got == ([], ["benchmarks/single_node/agentic/m_fp8_b200.sh"])


def test_unknown_launcher_uses_its_name(tmp_path):
    got = scripts_of(tmp_path, entry(gpu="newgpu", runner="mystery"), ["fixed_seq_len/m_fp8_newgpu_vllm.sh"])
    assert got[0] == ["benchmarks/single_node/fixed_seq_len/m_fp8_newgpu_vllm.sh"]


def test_point_env_and_dram_budget(tmp_path):
    master = entry(
        scenario="agentic-coding", extra="ep: 8, dp-attn: true, kv-offloading: dram, kv-offload-backend: { name: vllm-simple }, "
    )
    cs = configs.load(repo(tmp_path, master, ["agentic/m_fp8_b200_vllm.sh"]))
    (e,) = cs.entries
    (p,) = e.points
    env = p.env
    assert {
        k: env[k]
        for k in (
            "TP",
            "EP_SIZE",
            "DP_ATTENTION",
            "CONC",
            "KV_OFFLOADING",
            "KV_OFFLOAD_BACKEND",
            "TOTAL_CPU_DRAM_GB",
            "GPU_COUNT",
            "SCENARIO_TYPE",
            "SCENARIO_SUBDIR",
            "IS_AGENTIC",
            "SPEC_DECODING",
            "EXP_NAME",
            "MODEL",
            "FRAMEWORK",
            "PRECISION",
        )
    } == {
        "TP": "8",
        "EP_SIZE": "8",
        "DP_ATTENTION": "true",
        "CONC": "4",
        "KV_OFFLOADING": "dram",
        "KV_OFFLOAD_BACKEND": "vllm-simple",
        "TOTAL_CPU_DRAM_GB": "2849",
        "GPU_COUNT": "8",
        "SCENARIO_TYPE": "agentic-coding",
        "SCENARIO_SUBDIR": "agentic/",
        "IS_AGENTIC": "1",
        "SPEC_DECODING": "none",
        "EXP_NAME": "m_tp8_conc4_kvdram-vllm-simple",
        "MODEL": "org/m",
        "FRAMEWORK": "vllm",
        "PRECISION": "fp8",
    }
    assert p.origin.line == 14 and p.config_key == "m-fp8-b200-vllm"


def test_older_schema_names_the_offload_backend_bare(tmp_path):
    # before July 2026 InferenceX wrote `kv-offload-backend: native` (a name, no metadata)
    master = entry(scenario="agentic-coding", extra="kv-offloading: dram, kv-offload-backend: native, ")
    cs = configs.load(repo(tmp_path, master, ["agentic/m_fp8_b200_vllm.sh"]))
    assert not cs.problems, cs.problems
    (p,) = cs.entries[0].points
    assert (p.env["KV_OFFLOAD_BACKEND"], p.env["KV_OFFLOAD_BACKEND_METADATA"], p.env["EXP_NAME"]) == (
        "native",
        "",
        "m_tp8_conc4_kvdram-native",
    )
    assert p.label.endswith("tp8-ep1-dpafalse-native-conc4")


def test_dram_budget_matches_the_generator():
    # InferenceX: min(available MiB, 2,861,022) * 2^20 * utilization * gpus / gpus-per-node / 1e9
    hw = {"available-cpu-dram-mib": 3_095_781, "gpus-per-node": 8}
    assert configs._dram_gb(hw, 0.95, 8, 2_861_022) == 2849
    assert configs._dram_gb(hw, 0.80, 8, 2_861_022) == 2399
    assert configs._dram_gb(hw, 0.95, 4, 2_861_022) == 1424
    assert configs._dram_gb(None, 0.95, 4, 2_861_022) is None


def test_concurrency_ranges_double():
    assert configs._conc_values({"conc-start": 4, "conc-end": 16}, 2, "") == [4, 8, 16]
    assert configs._conc_values({"conc-start": 3, "conc-end": 20}, 2, "") == [3, 6, 12, 20]
    assert configs._conc_values({"conc-list": [1, 9]}, 2, "") == [1, 9]


def test_malformed_yaml_is_a_problem_not_a_crash(tmp_path):
    cs = configs.load(repo(tmp_path, "a:\n  b: [1, 2\n  c: 3\n", []))
    (p,) = cs.problems
    assert p.message.startswith("invalid YAML") and p.span.line == 3


def test_entry_without_tp_is_a_problem(tmp_path):
    cs = configs.load(repo(tmp_path, entry().replace("tp: 8, ", ""), []))
    (p,) = cs.problems
    assert "missing field 'tp'" in p.message and p.span.line == 2


def test_alias_heavy_yaml_stays_bounded(tmp_path):
    bomb = "a: &a [1, 1, 1, 1, 1, 1, 1, 1, 1]\n" + "".join(
        f"{chr(98 + i)}: &{chr(98 + i)} [*{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}]\n"
        for i in range(8)
    )
    cs = configs.load(repo(tmp_path, bomb, []))
    assert cs.entries == [] or all(not e.points for e in cs.entries)


def test_find_root(tmp_path):
    root = repo(tmp_path, entry(), ["fixed_seq_len/m_fp8_b200_vllm.sh"])
    assert configs.find_root(root / "benchmarks" / "single_node") == root
    assert configs.find_root(Path("/")) is None


runner = CliRunner()
SEED = FIXTURES / "seed"


def test_sweep_lists_points_and_renders_one():
    script = str(SEED / "benchmarks/single_node/agentic/dsv4_fp4_b200_vllm.sh")
    r = runner.invoke(app, ["sweep", script])
    assert r.exit_code == 0, r.output
    lines = r.output.strip().splitlines()
    assert len(lines) == 13
    assert "TP=8 EP_SIZE=8 DP_ATTENTION=true CONC=72" in lines[-1] and "-> vllm at line 83" in lines[-1]
    r = runner.invoke(app, ["sweep", script, "--point", "13"])
    assert r.exit_code == 0
    assert "--max-num-seqs 144" in r.output and "--data-parallel-size 8" in r.output
    # --env sets a variable at the chosen points (here the value MAX_NUM_SEQS is computed from)
    r = runner.invoke(app, ["sweep", script, "--point", "13", "--env", "CONC=10"])
    assert r.exit_code == 0 and "--max-num-seqs 20" in r.output, r.output


def test_sweep_errors(tmp_path):
    orphan = SEED / "benchmarks/benchmark_lib.sh"
    r = runner.invoke(app, ["sweep", str(orphan)])
    assert r.exit_code == 2 and "no master-config entry runs this recipe" in r.output
    script = str(SEED / "benchmarks/single_node/agentic/dsv4_fp4_b200_vllm.sh")
    assert runner.invoke(app, ["sweep", script, "--point", "99"]).exit_code == 2
    f = tmp_path / "x.sh"
    f.write_text("vllm serve m\n")
    r = runner.invoke(app, ["sweep", str(f)])
    assert r.exit_code == 2 and "no configs/*-master.yaml" in r.output
    assert runner.invoke(app, ["check", str(f), "--config", str(tmp_path / "none.yaml")]).exit_code == 2


def test_parsed_configs_are_cached_by_content(tmp_path):
    from recipelint.sweep import configs as cfg

    root = FIXTURES / "rules" / "RL5xx"

    def snapshot(cs):
        return [
            (
                e.key,
                e.line,
                e.image_line,
                e.image_col,
                tuple(e.scripts),
                [
                    (
                        p.label,
                        sorted((k, repr(v)) for k, v in p.env.items()),
                        getattr(p.origin, "line", None),
                        sorted(p.extra.items()),
                    )
                    for p in e.points
                ],
            )
            for e in cs.entries
        ], [(str(p.span), p.message) for p in cs.problems]

    plain = snapshot(cfg.load(root))
    first = snapshot(cfg.load(root, None, tmp_path))
    cached = list((tmp_path / "yaml").glob("*.json"))
    assert cached, "nothing was cached"
    second = snapshot(cfg.load(root, None, tmp_path))
    assert plain == first == second
    for p in cached:  # a damaged entry is parsed again, not trusted
        p.write_text('{"m": [[')
    assert snapshot(cfg.load(root, None, tmp_path)) == plain


MASTER_PLAIN = """\
# entries for two models
alpha-fp8-b200-vllm:
  model-prefix: alpha   # the model
  runner: b200
beta-fp8-b200-vllm:
  model-prefix: "beta"
  runner: b200

gamma-entry:
  runner: b200
"""


def test_sparse_blanks_unwanted_entries_and_keeps_every_line():
    out = configs.sparse(MASTER_PLAIN, lambda p: p == "alpha")
    assert out is not None and out.count("\n") == MASTER_PLAIN.count("\n")
    kept = [ln for ln in out.split("\n") if ln]
    assert "alpha-fp8-b200-vllm:" in kept and "beta-fp8-b200-vllm:" not in kept
    assert "gamma-entry:" in kept  # no model-prefix line: kept
    # positions of what is kept are those of the original document
    assert out.split("\n").index("gamma-entry:") == MASTER_PLAIN.split("\n").index("gamma-entry:")


def test_sparse_gives_up_on_shapes_it_cannot_cut_safely():
    for doc in (
        "base: &b {runner: b200}\nx:\n  <<: *b\n  model-prefix: alpha\n",  # anchors, aliases, merges
        "x: {model-prefix: alpha}\n",  # a flow mapping at the top
        "version: 2\nx:\n  model-prefix: alpha\n",  # a top-level scalar
        "---\nx:\n  model-prefix: alpha\n",  # a document marker
        "x:\n  model-prefix: alpha\n...\n",
        "%YAML 1.2\nx:\n  model-prefix: alpha\n",  # an end marker, a directive
        "x:\n  model-prefix: alpha\n  y: [*a]\n",
        "&a\nx:\n  model-prefix: alpha\n",  # aliases and anchors anywhere
        "- x\n",  # a sequence
    ):
        assert configs.sparse(doc, lambda p: False) is None, doc
    # a `*` or `&` that is text is no alias or anchor
    assert configs.sparse("x:\n  model-prefix: alpha\n  n: 2 * 3\n  m: a&b\n", lambda p: False) == "\n\n\n\n"


def test_one_recipe_runs_see_the_same_points_and_findings_as_full_runs(monkeypatch):
    # every recipe of the fixture benchmark repositories, checked alone: reading only the
    # entries that can run it (``sparse``, then by model prefix and precision) changes nothing
    from recipelint.lint.check import Options, lint
    from recipelint.report.concise import render_concise

    real = configs.load

    def every_entry(*args, recipes=None, **kw):  # (neither `sparse` nor the entries' own filter)
        return real(*args, **kw)

    for repo_dir in (FIXTURES / "rules" / "RL5xx", FIXTURES / "rules" / "RL7xx"):
        monkeypatch.chdir(repo_dir)
        for f in sorted(Path("benchmarks").rglob("*.sh")):
            runs = []
            for fn in (real, every_entry):
                monkeypatch.setattr(configs, "load", fn)
                r = lint([f], options=Options(jobs=1))
                runs.append((render_concise(r.findings), [p.point.label for res in r.files for p in res.points]))
            assert runs[0] == runs[1], f


WORKFLOW = """
name: AL collection
on:
  workflow_dispatch:
    inputs:
      model:
        type: string
        default: 'org/Alpha-1'
      model-prefix:
        type: string
        default: 'alpha'
      image:
        type: string
        default: 'vllm/vllm-openai:v0.21.0'
      levels:
        type: string
        default: '1 2'
      note:
        type: string
env:
  HF_TOKEN: ${{ secrets.TOKEN }}
  MODEL: ${{ inputs.model }}
  MODEL_PREFIX: ${{ inputs.model-prefix }}
  IMAGE: ${{ inputs.image }}
  EXP_NAME: ${{ inputs.model-prefix }}_al
  TP: '8'
  LEVELS: ${{ inputs.levels }}
  NOTE: ${{ inputs.note }}
  BENCH_SCRIPT_OVERRIDE: benchmarks/single_node/al/${{ inputs.model-prefix }}_fp4_b300_vllm.sh
jobs: {}
"""


def workflow_repo(tmp_path: Path, text: str = WORKFLOW) -> Path:
    tmp_path.mkdir(parents=True, exist_ok=True)
    root = repo(
        tmp_path,
        entry(),
        [
            "fixed_seq_len/m_fp8_b200_vllm.sh",
            "al/alpha_fp4_b300_vllm.sh",
            "al/beta.2_fp4_b300_vllm.sh",
            "al/beta_fp4_b300_vllm_extra.sh",
        ],
    )
    (root / ".github" / "workflows").mkdir(parents=True)
    (root / ".github" / "workflows" / "speedbench-al.yml").write_text(textwrap.dedent(text))
    return root


def test_dispatch_workflow_runs_each_recipe_its_script_pattern_matches(tmp_path):
    from recipelint.evaluate.values import Opaque

    root = workflow_repo(tmp_path)
    cs = configs.load(root)
    assert not cs.problems, cs.problems
    (wf,) = [e for e in cs.entries if e.key == "speedbench-al.yml"]
    assert wf.scripts == ["benchmarks/single_node/al/alpha_fp4_b300_vllm.sh", "benchmarks/single_node/al/beta.2_fp4_b300_vllm.sh"]
    assert (wf.line, wf.image, wf.image_line) == (29, "vllm/vllm-openai:v0.21.0", 24)
    (alpha,) = cs.points_for(root / wf.scripts[0])
    (beta,) = cs.points_for(root / wf.scripts[1])
    assert alpha.label == "speedbench-al.yml:29:model-prefix=alpha" and alpha.config_key == "speedbench-al.yml"
    assert (alpha.origin.line, alpha.origin.col) == (29, 26)
    # the lines its environment comes from (for --diff-base): the inputs' defaults and the env entries
    assert alpha.extra["lines"] == (8, 11, 14, 17, *range(21, 30))
    # the default recipe: every input at its default
    assert {k: alpha.env[k] for k in ("MODEL", "MODEL_PREFIX", "IMAGE", "EXP_NAME", "TP", "LEVELS")} == {
        "MODEL": "org/Alpha-1",
        "MODEL_PREFIX": "alpha",
        "IMAGE": "vllm/vllm-openai:v0.21.0",
        "EXP_NAME": "alpha_al",
        "TP": "8",
        "LEVELS": "1 2",
    }
    # another recipe: the bound input from its name; the model and image of the default are not its own
    assert (beta.env["MODEL_PREFIX"], beta.env["EXP_NAME"], beta.env["LEVELS"]) == ("beta.2", "beta.2_al", "1 2")
    assert isinstance(beta.env["MODEL"], Opaque) and beta.env["MODEL"].nonempty
    assert isinstance(beta.env["IMAGE"], Opaque)
    # secrets are set and unknown; an input without a default may be empty
    assert isinstance(alpha.env["HF_TOKEN"], Opaque) and alpha.env["HF_TOKEN"].nonempty
    assert isinstance(alpha.env["NOTE"], Opaque) and not alpha.env["NOTE"].nonempty
    # the master config's recipes are untouched
    assert [p.config_key for p in cs.points_for(root / "benchmarks/single_node/fixed_seq_len/m_fp8_b200_vllm.sh")] == [
        "m-fp8-b200-vllm"
    ]


def test_a_dispatch_workflows_recipes_of_other_models_keep_the_precision_filter(tmp_path, monkeypatch):
    # the workflow runs recipes of several model prefixes: that is no sign that this tree's
    # master-config entries name recipes otherwise (``configs._names_held``): read once
    root = workflow_repo(tmp_path)
    real, readings = configs._load, []

    def counted(*args, **kw):
        readings.append(kw["by_precision"])
        return real(*args, **kw)

    monkeypatch.setattr(configs, "_load", counted)
    recipe = root / "benchmarks/single_node/fixed_seq_len/m_fp8_b200_vllm.sh"
    cs = configs.load(root, recipes=[recipe])
    assert readings == [True]
    # nor is a recipe of another tree (`recipelint changes` reads both trees' configs with one list)
    other = tmp_path.parent / f"{tmp_path.name}-base" / "benchmarks/single_node/fixed_seq_len/m_fp8_b200_vllm.sh"
    other.parent.mkdir(parents=True)
    other.write_text(recipe.read_text())
    assert configs.load(root, recipes=[recipe, other]).points_for(recipe) and readings == [True, True]
    assert [p.config_key for p in cs.points_for(recipe)] == ["m-fp8-b200-vllm"]


def test_dispatch_workflow_problems_are_findings_not_crashes(tmp_path):
    root = workflow_repo(tmp_path, WORKFLOW.replace("${{ inputs.model-prefix }}_fp4", "${{ inputs.model }}-${{ inputs.image }}"))
    cs = configs.load(root)
    (p,) = cs.problems
    assert (p.span.line, p.span.col) == (29, 26) and "must name the recipe with one input" in p.message
    root2 = workflow_repo(tmp_path / "b", "env: [unclosed\n")
    assert [x.message.split(":")[0] for x in configs.load(root2).problems] == ["invalid YAML"]
    # a pattern that reaches outside the repository, or globs, is refused (never a traceback)
    for i, bad in enumerate(
        [
            "/abs/${{ inputs.p }}.sh",
            "../${{ inputs.p }}.sh",
            "a/**/${{ inputs.p }}.sh",
            "a/[${{ inputs.p }}.sh",
            "a//${{ inputs.p }}.sh",
        ]
    ):
        text = "on:\n  workflow_dispatch:\n    inputs:\n      p: {default: x}\nenv:\n  BENCH_SCRIPT_OVERRIDE: '%s'\n" % bad
        (p,) = configs.load(workflow_repo(tmp_path / f"bad{i}", text)).problems
        assert (p.span.line, p.span.col) == (6, 26) and "must name a recipe file inside the repository" in p.message
    # no env, no points
    root3 = workflow_repo(tmp_path / "c", "name: x\n")
    assert [x.message for x in configs.load(root3).problems] == [
        "workflow `speedbench-al.yml`: `BENCH_SCRIPT_OVERRIDE` must name the recipe with one input"
    ]


def test_check_evaluates_workflow_recipes_under_their_workflow_point(tmp_path):
    from recipelint.lint.check import Options, lint

    root = workflow_repo(tmp_path)
    res = lint([root / "benchmarks"], options=Options(jobs=1, cache=False))
    labels = {r.display.rsplit("/", 1)[-1]: [pr.point.label for pr in r.points] for r in res.files}
    assert labels["alpha_fp4_b300_vllm.sh"] == ["speedbench-al.yml:29:model-prefix=alpha"]
    assert labels["beta.2_fp4_b300_vllm.sh"] == ["speedbench-al.yml:29:model-prefix=beta.2"]
    assert len(labels["beta_fp4_b300_vllm_extra.sh"]) == 6  # no workflow runs it: the default matrix
    (pr,) = [r for r in res.files if r.display.endswith("alpha_fp4_b300_vllm.sh")][0].points
    assert [w.text for w in pr.launches[0].argv] == ["vllm", "serve", "m"]


def test_a_dispatch_workflow_named_on_the_command_line_lints_the_recipes_it_runs(tmp_path, monkeypatch):
    root = workflow_repo(tmp_path)
    monkeypatch.chdir(root)
    (root / "other.yml").write_text("on: push\n")
    r = runner.invoke(app, ["check", ".github/workflows/speedbench-al.yml", "--no-cache", "--jobs", "1"])
    assert r.exit_code == 0 and "All checks passed (2 files)." in r.output, r.output
    # YAML that is neither a master config nor a dispatch workflow is not read as bash
    r = runner.invoke(app, ["check", "other.yml", "--no-cache"])
    assert "recipelint: other.yml: not a recipe, master config or dispatch workflow: skipped" in r.output
    # (and then nothing was checked: a usage error saying so, not "All checks passed (0 files)")
    assert r.exit_code == 2 and "RL001" not in r.output and "nothing to check in other.yml" in r.output, r.output


OLD_ENTRY = """
m-fp8-b200-vllm:
  image: img
  model: org/m
  model-prefix: m
  runner: b200
  precision: fp8
  framework: vllm
  multinode: false
  seq-len-configs:
  - isl: 1024
    osl: 1024
    search-space:
    - { tp: 8, conc-list: [4, 8] }
"""

OLD_TEMPLATE = """name: Template
on: {workflow_call: {inputs: {offloading: {type: string}}}}
env:
  TP: ${{ inputs.tp }}
  OFFLOADING: ${{ inputs.offloading }}
jobs: {}
"""


def _old_layout(tmp_path: Path, template: str | None) -> Path:
    """A repository as InferenceX was before 2026-05: configs under .github/configs/, entries
    with `seq-len-configs:`, recipes directly in benchmarks/single_node/."""
    (tmp_path / ".github" / "configs").mkdir(parents=True)
    (tmp_path / ".github" / "configs" / "runners.yaml").write_text(RUNNERS)
    (tmp_path / ".github" / "configs" / "nvidia-master.yaml").write_text(textwrap.dedent(OLD_ENTRY))
    if template is not None:
        (tmp_path / ".github" / "workflows").mkdir()
        (tmp_path / ".github" / "workflows" / "benchmark-tmpl.yml").write_text(template)
    rec = tmp_path / "benchmarks" / "single_node" / "m_fp8_b200_vllm.sh"
    rec.parent.mkdir(parents=True)
    rec.write_text('#!/usr/bin/env bash\n: "${OFFLOADING?}"\nvllm serve org/m --tensor-parallel-size "$TP" &\n')
    return rec


def test_the_older_layout_and_schema_give_the_recipes_their_points(tmp_path):
    rec = _old_layout(tmp_path, OLD_TEMPLATE)
    assert configs.find_root(rec) == tmp_path
    assert configs.find_root(tmp_path / ".github" / "configs" / "nvidia-master.yaml") == tmp_path
    cs = configs.load(tmp_path, None)
    pts = cs.points_for(rec)
    assert pts and [p.env["CONC"] for p in pts] == ["4", "8"] and all(p.config_key == "m-fp8-b200-vllm" for p in pts)
    # the template declares the older name: it carries the current one's value
    assert all("OFFLOADING" in p.env and p.env["OFFLOADING"] == p.env["KV_OFFLOADING"] for p in pts)
    r = CliRunner().invoke(app, ["check", str(tmp_path / "benchmarks"), "-o", "json", "--no-cache"])
    assert r.exit_code == 0 and r.stdout.strip() == "[]", r.output  # every point reaches the launch


def test_without_the_older_name_the_recipe_stops_and_says_so(tmp_path):
    _old_layout(tmp_path, OLD_TEMPLATE.replace("OFFLOADING:", "KV_OFFLOADING:"))
    r = CliRunner().invoke(app, ["check", str(tmp_path / "benchmarks"), "-o", "concise", "--no-cache"])
    assert r.exit_code == 1 and "OFFLOADING" in r.stdout, r.output


def test_an_older_name_is_set_only_where_the_template_declares_it(tmp_path):
    rec = _old_layout(tmp_path, OLD_TEMPLATE.replace("OFFLOADING:", "KV_OFFLOADING:"))
    pts = configs.load(tmp_path, None).points_for(rec)
    assert pts and all("OFFLOADING" not in p.env for p in pts)


def test_the_cache_key_covers_the_older_layouts_configs(tmp_path):
    _old_layout(tmp_path, OLD_TEMPLATE)
    got = {p.relative_to(tmp_path).as_posix() for p in configs.workflow_files(tmp_path)}
    assert got == {".github/configs/nvidia-master.yaml", ".github/configs/runners.yaml", ".github/workflows/benchmark-tmpl.yml"}


def test_sweep_takes_positional_arguments(tmp_path):
    root = repo(tmp_path, entry(), ["fixed_seq_len/m_fp8_b200_vllm.sh"])
    rec = root / "benchmarks/single_node/fixed_seq_len/m_fp8_b200_vllm.sh"
    rec.write_text('#!/usr/bin/env bash\nvllm serve m --port "${1:-8000}" --tensor-parallel-size "$TP" &\n')
    r = runner.invoke(app, ["sweep", str(rec), "--point", "1", "--arg", "9001"])
    assert r.exit_code == 0 and "--port 9001" in r.output, r.output
    r = runner.invoke(app, ["sweep", str(rec), "--point", "1"])
    assert "--port 8000" in r.output, r.output


def test_a_recipe_under_a_master_config_that_cannot_be_read_is_not_called_unrun(tmp_path, monkeypatch):
    """A broken master config (RL500): its recipes are checked only sweep-independently, their
    points not being known — no default-matrix RL101/RL301/RL401 or "no image" warnings that read
    as more defects (issue 48) — and RL506 says the config could not be read rather than "no entry
    runs this recipe"."""
    import json
    import shutil

    tree = tmp_path / "t"
    shutil.copytree(SEED, tree)
    (tree / ".git").mkdir(exist_ok=True)
    cfg = next((tree / "configs").glob("*-master.yaml"))
    cfg.write_text(cfg.read_text() + "broken: [unclosed\n")
    monkeypatch.chdir(tree)
    r = runner.invoke(app, ["check", "benchmarks", "configs", "-o", "json", "--no-cache"])
    found = json.loads(r.stdout)
    assert sorted({f["code"] for f in found}) == ["RL500", "RL506"], r.stdout
    rl506 = [f["message"] for f in found if f["code"] == "RL506"]
    assert all(f"`configs/{cfg.name}` could not be read (RL500)" in m for m in rl506), rl506
