"""RL101's consequence and suggestion (the family's headroom), and RL203's messages, beyond the
fixture annotations (which check codes and lines only)."""

from __future__ import annotations

from helpers import FIXTURES
from test_rules import fixture_points

from recipelint.lint.check import Options, lint


def _findings(folder, code, show_documented=False):
    result = lint([FIXTURES / "rules" / folder], options=Options(points_for=fixture_points, show_documented=show_documented))
    return {(f.span.path.rsplit("/", 1)[-1], f.span.line): f for f in result.findings if f.code == code}


def test_rl101_family_sizes_per_rank_warning_with_family_headroom():
    got = _findings("RL101", "RL101", show_documented=True)
    b200 = got[("dsx_fp4_b200_vllm.sh", 10)]
    assert b200.severity == "warning"
    assert "dsx_fp4_b300_vllm.sh: `$((2 * CONC / TP))`" in b200.text
    assert "use 2·CONC/DP (= 16 here)" in b200.text
    # 1·CONC on the AMD member: the family's 2x headroom is suggested, not CONC/DP
    mi355x = got[("dsx_fp4_mi355x_vllm.sh", 9)]
    assert mi355x.severity == "warning" and "(= 16 here)" in mi355x.text and "1·CONC/DP" not in mi355x.text
    assert any("sizes it per DP rank here" in r.message for r in mi355x.related)


def test_rl101_without_family_is_info():
    got = _findings("RL101", "RL101")
    f = got[("dep_vllm.sh", 9)]
    assert f.severity == "info" and "no recipe of its family" in f.text


def test_rl101_documented_choice_is_held_back():
    assert ("dsy_fp4_b200_vllm.sh", 8) not in _findings("RL101", "RL101")
    shown = _findings("RL101", "RL101", show_documented=True)[("dsy_fp4_b200_vllm.sh", 8)]
    assert shown.documented.startswith("MAX_NUM_SEQS stays at CONC")


def test_rl203_names_the_registered_parser_and_the_release():
    got = _findings("RL203", "RL203", show_documented=True)
    qwen = got[("qwen35_sglang.sh", 7)]  # (a missing flag: on the command's first word)
    assert qwen.severity == "warning"
    assert "SGLang 0.5.16" in qwen.text and "`--reasoning-parser qwen3`" in qwen.text
    assert "tool-call parser scans it" in qwen.text
    m3 = got[("minimax_m3.sh", 8)]
    assert "thinking_mode: enabled" in m3.text and "`--reasoning-parser minimax_m3`" in m3.text
    assert m3.points == ["TP=4 CONC=16 IMAGE=vllm/vllm-openai:v0.27.1 THINK=on"]
    dsv4 = got[("dsv4_versions.sh", 9)]
    assert "vLLM 0.33.0" in dsv4.text and len(dsv4.points) == 1
    assert got[("documented.sh", 4)].documented.startswith("No --reasoning-parser")
    assert ("documented.sh", 4) not in _findings("RL203", "RL203")
