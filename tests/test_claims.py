"""The engine-claim rules say what holds for the release they judged, name the component that
reads a value, and offer only corrections that are ones (RL301, RL302, RL306, RL505)."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import FIXTURES
from test_rules import fixture_points

from recipelint.engines import facts
from recipelint.engines.jsonpos import JNode
from recipelint.lint.check import Options, lint
from recipelint.lint.rulebase import FileContext
from recipelint.rules.rl302_unknown_connector_key import suggestion

RULES = FIXTURES / "rules"


def _findings(path: Path, code: str, show_documented: bool = False):
    repo = (path / "configs").is_dir()
    opts = Options(select=[code], show_documented=show_documented, points_for=None if repo else fixture_points, jobs=1)
    return lint([path], options=opts).findings


def _by_file(path: Path, code: str, show_documented: bool = False) -> dict:
    out: dict = {}
    for f in _findings(path, code, show_documented):
        out.setdefault(Path(f.span.path).name, []).append(f)
    return out


# ---- RL301 -------------------------------------------------------------------------------


def test_rl301_names_the_release_it_judged_and_is_quiet_after_the_change():
    got = _by_file(RULES / "RL301", "RL301", show_documented=True)
    (err,) = got["eager_affected_release.sh"]
    assert err.severity == "error" and "vLLM 0.20.1" in err.text and "0.19.0–0.21.0" in err.text
    assert "vLLM 0.22.0+" in err.text
    assert "eager_fixed_release.sh" not in got  # 0.25.1 and nightly 426e59f: no finding at all
    (warn,) = got["eager_unknown_release.sh"]
    assert warn.severity == "warning" and "on vLLM 0.20.0" in warn.text and "not known" in warn.text
    (doc,) = got["eager_documented.sh"]
    assert doc.severity == "info" and "eager mode" in doc.documented


def test_rl301_failure_data_carries_its_evidence():
    from recipelint.engines import behaviours

    b = behaviours.get("vllm.simplecpu-eager-store-per-step-dedup")
    assert b.runs == (("0.19.0", "0.21.0"),)
    assert "_in_flight_store_gpu_blocks" in b.spec["read_from"]["lines"]
    assert any("4208910" in e for e in b.spec["reported_by"]) and any("333a7c3" in e for e in b.spec["reported_by"])
    assert any("904e4ec" in e for e in b.spec["reported_by"])


# ---- RL302 -------------------------------------------------------------------------------


def _node(kind: str, value) -> JNode:
    return JNode(kind, value, 0, 0, None)


def test_rl302_corrections_only_for_slips():
    data = facts.load("connectors")
    moon = data["vllm"]["MooncakeStoreConnector"]["keys"]
    simple = data["vllm"]["SimpleCPUOffloadConnector"]["keys"]
    sugg = data["suggestions"]
    # the HEAD case: string-close to `enable_lookup`, whose false value disables lookups
    assert suggestion("enable_offload", _node("bool", False), moon, sugg) is None
    assert suggestion("enable_lookups", _node("bool", False), moon, sugg) is None  # suggest: false
    assert suggestion("lookup_sync", _node("bool", True), moon, sugg) is None  # sync is async's opposite
    assert suggestion("cpu_byte_to_use", _node("number", 10**9), simple, sugg) == "cpu_bytes_to_use"
    assert suggestion("cpu_byte_to_use", _node("bool", True), simple, sugg) is None  # wrong value type
    assert suggestion("lazy_ofload", _node("bool", True), simple, sugg) == "lazy_offload"
    assert suggestion("lazy_offloading", _node("string", "/tmp"), simple, sugg) is None
    assert suggestion("cpu_bytes", _node("number", 1), simple, sugg) == "cpu_bytes_to_use"  # a listed synonym


def test_rl302_messages():
    got = _by_file(RULES / "RL302", "RL302")
    msgs = {f.span.line: f.text for f in got["suggestions.sh"]}
    assert msgs[5].endswith("did you mean `cpu_bytes_to_use`?")
    assert all("did you mean" not in msgs[ln] for ln in (7, 9, 11))
    assert msgs[13].endswith("did you mean `lazy_offload`?")
    file_msgs = {f.span.line: f for f in got["mooncake_config_file.sh"]}
    assert 17 not in file_msgs  # the same value is in the MOONCAKE_CONFIG_PATH file
    assert "the file's `false` applies" in file_msgs[19].message and file_msgs[19].related[0].span.line == 12
    assert "MOONCAKE_CONFIG_PATH file" in file_msgs[21].message and "set it in that file" in file_msgs[21].message


# ---- RL306 -------------------------------------------------------------------------------


def test_rl306_names_the_parser_and_its_file_for_the_release():
    got = _by_file(RULES / "RL306", "RL306")
    (seg,) = [f for f in got["byte_units.sh"] if "global_segment_size" in f.text]
    assert "vLLM's MooncakeStoreConnector config loader" in seg.text and "_parse_size" in seg.text
    assert "mooncake/store/worker.py" in seg.text  # a point with no image: every release's file
    (sg,) = got["mooncake_sglang.sh"]
    assert "SGLang's HiCache Mooncake config loader" in sg.text and "SGLang 0.5.16" in sg.text
    assert "mooncake_readers.sh" not in got


def test_rl306_judged_release_picks_the_loader_file(tmp_path):
    recipe = tmp_path / "r.sh"
    recipe.write_text(
        "#!/usr/bin/env bash\n"
        "# point: TP=8 TOTAL_CPU_DRAM_GB=2849 GPU_COUNT=8 IMAGE=vllm/vllm-openai:v0.33.0\n"
        "PER_RANK_GB=$((TOTAL_CPU_DRAM_GB / GPU_COUNT))\n"
        "export MOONCAKE_CONFIG_PATH=/tmp/m.json\n"
        "cat > \"$MOONCAKE_CONFIG_PATH\" <<EOF\n"
        '{"mode": "embedded", "global_segment_size": "${PER_RANK_GB}GB"}\n'
        "EOF\n"
        "vllm serve org/model --kv-transfer-config '{\"kv_connector\":\"MooncakeStoreConnector\",\"kv_role\":\"kv_both\"}' &\n"
    )
    (f,) = _findings(recipe, "RL306")
    assert "vllm/distributed/mooncake_store.py; vLLM 0.33.0" in f.text and "worker.py" not in f.text


# ---- RL505 -------------------------------------------------------------------------------


def test_rl505_reads_drafting_turned_off_above_a_concurrency():
    got = _by_file(RULES / "RL505", "RL505", show_documented=True)
    (gate,) = got["gate_fp8_b300_vllm_mtp.sh"]
    assert gate.severity == "warning" and "turns drafting off above CONC=8" in gate.text
    assert "labelled spec-decoding: mtp but measured without speculative decoding" in gate.text
    assert any(r.span.line == 7 for r in gate.related)  # where --speculative-config is passed
    (note,) = got["note_fp8_b300_vllm_mtp.sh"]
    assert note.severity == "info" and "no drafting" in note.documented  # a header below `set` lines
    (mix,) = got["mix_fp8_b300_vllm_mtp.sh"]
    assert mix.severity == "error" and "has no --speculative-config" in mix.text
    hidden = _by_file(RULES / "RL505", "RL505")
    assert "note_fp8_b300_vllm_mtp.sh" not in hidden


def test_the_recipe_header_may_follow_shell_options():
    from recipelint.bash.source import Loc, SourceFile

    text = "#!/usr/bin/env bash\nset -euo pipefail\nset -x\n\n# no drafting above CONC 16\nX=1\n\nvllm serve m\n"
    src = SourceFile("r.sh", text.encode())
    ctx = FileContext.__new__(FileContext)
    start = src._starts[7]
    assert "no drafting" in ctx.documented(Loc(src, start, start + 1), ["no drafting"])


@pytest.mark.parametrize(
    "comment, code",
    [
        ("    MAX_NUM_SEQS=$((2 * CONC))", True),
        ("export VLLM_USE_V1=1", True),
        ("--max-num-seqs 256 \\", True),
        ("  --enable-expert-parallel", True),
        ('vllm serve "$MODEL" --tensor-parallel-size 8 \\', True),
        ('if [ "$DP_ATTENTION" = true ]; then', True),
        (" max-num-seqs is 2*CONC: per rank under DP attention", False),
        ("MAX_NUM_SEQS=$((2 * CONC)) is per rank, on purpose", False),
        ("--max-num-seqs: the global limit, see the router", False),
        ("python3 is needed for the eval", False),
        ("NOTE: MAX_NUM_SEQS stays global", False),
    ],
)
def test_disabled_code_is_not_documentation(comment, code):
    from recipelint.lint.rulebase import disabled_code

    assert disabled_code(comment) is code


def test_rl201_names_the_client_whose_requests_carry_tools():
    """RL201 says which run's requests fail, from the client the path runs: aiperf's trace replay
    sends `tools` only on turns that carry them (a warning saying so), `vllm bench serve` none."""
    found = sorted(_by_file(RULES / "RL201" / "agentic", "RL201")["by_client.sh"], key=lambda f: f.span.line)
    aiperf, bench, unknown = found
    assert aiperf.severity == "warning" and "its client `aiperf`" in aiperf.text
    assert "whose trace turn carries them" in aiperf.text and "HTTP 400" in aiperf.text
    assert bench.severity == "info" and "`vllm-bench-serve` sends no `tools`" in bench.text and "an agent eval" in bench.text
    assert unknown.severity == "warning" and "whether requests carry `tools` is not known" in unknown.text
