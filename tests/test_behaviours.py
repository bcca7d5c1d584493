"""Version-scoped engine behaviours (rules/data/behaviours.yaml, recipelint.engines.behaviours):
the loader, the data's ranges against the engines' histories, and the rules that rely on them —
silent on a release outside a behaviour's range, firing inside it, naming the release judged."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from helpers import FIXTURES
from test_rules import fixture_points

from recipelint.engines import behaviours
from recipelint.engines.catalog import histories, version_key
from recipelint.lint.check import Options, lint

RULES = FIXTURES / "rules"
RULE_SRC = Path(__file__).resolve().parent.parent / "rules"


def _findings(path: Path, code: str):
    repo = (path / "configs").is_dir()
    opts = Options(select=[code], points_for=None if repo else fixture_points, jobs=1)
    return lint([path], options=opts).findings


def _by_file(path: Path, code: str) -> dict:
    out: dict = {}
    for f in _findings(path, code):
        out.setdefault(Path(f.span.path).name, []).append(f)
    return out


# ---- the loader -------------------------------------------------------------------------------


def test_holds_is_true_inside_false_outside_none_where_not_read():
    bid = "vllm.simplecpu-eager-store-per-step-dedup"
    assert behaviours.holds(bid, "0.19.0") is True
    assert behaviours.holds(bid, "0.21.0") is True
    assert behaviours.holds(bid, "0.22.0") is False  # the in-flight set arrived in 0.22.0
    assert behaviours.holds(bid, "0.34.0") is False
    assert behaviours.holds(bid, "0.18.1") is None  # no SimpleCPU connector there: not read
    assert behaviours.holds(bid, "0.99.0") is None  # not a release of the history


def test_value_follows_the_release():
    bid = "sglang.speculative-default-max-running-requests"
    assert behaviours.value(bid, "0.4.3.post2") is None
    assert behaviours.value(bid, "0.4.3.post3") == 32
    assert behaviours.value(bid, "0.4.4.post3") == 32
    assert behaviours.value(bid, "0.4.4.post4") == 48
    assert behaviours.value(bid, "0.5.23") == 48
    assert behaviours.value("sglang.deepseek-v4-default-max-running-requests", "0.5.10") is None
    assert behaviours.value("sglang.deepseek-v4-default-max-running-requests", "0.5.12") == 256


def test_judge_splits_the_judged_releases():
    j = behaviours.judge("vllm.simplecpu-eager-store-per-step-dedup", ("0.18.1", "0.20.1", "0.21.0", "0.22.0"))
    assert j.held == ("0.20.1", "0.21.0") and j.not_held == ("0.22.0",) and j.unknown == ("0.18.1",)
    assert j.somewhere and not j.everywhere and j.where == "0.20.1–0.21.0"
    assert behaviours.judge("vllm.kv-role-required", ("0.8.0", "0.34.0")).everywhere
    assert not behaviours.judge("vllm.kv-role-required", ()).everywhere


def test_a_run_outside_the_history_is_refused():
    with pytest.raises(ValueError, match="not a run"):
        behaviours._runs("vllm", "0.19.0..0.99.0", "x")
    with pytest.raises(ValueError, match="not a run"):
        behaviours._runs("vllm", "0.21.0..0.19.0", "x")  # reversed


# ---- the data ---------------------------------------------------------------------------------

_RUN = re.compile(r"^[0-9][0-9a-z.]*(\.\.[0-9][0-9a-z.]*)?$")


@pytest.mark.parametrize("bid", behaviours.ids())
def test_every_entry_is_well_formed_and_inside_the_history(bid):
    b = behaviours.get(bid)
    spec = b.spec
    h = histories()[b.engine]
    texts = [spec["read"]] + ([spec["holds"]] if "holds" in spec else []) + [v["holds"] for v in spec.get("values") or []]
    for text in texts:
        for part in str(text).split(","):
            assert _RUN.match(part), f"{bid}: {part!r} is not the histories' run notation"
    assert ("holds" in spec) != bool(spec.get("values")), f"{bid}: `holds` or `values`, one of them"
    for a, c in (*b.runs, *b.read):
        assert a in h.pos and c in h.pos and h.pos[a] <= h.pos[c]
    # it holds only where it was read
    for a, c in b.runs:
        assert any(version_key(ra) <= version_key(a) and version_key(c) <= version_key(rc) for ra, rc in b.read), bid
    # values do not overlap
    seen: set[int] = set()
    for _, runs in b.values:
        for a, c in runs:
            idx = set(range(h.pos[a], h.pos[c] + 1))
            assert not idx & seen, f"{bid}: two values for one release"
            seen |= idx
    assert len(b.statement) > 20 and "\n" not in b.statement
    rf = spec["read_from"]
    assert rf.get("file") and (rf.get("function") or rf.get("lines")) and rf.get("releases"), bid


def test_what_is_known_from_reports_names_the_report():
    b = behaviours.get("vllm.simplecpu-eager-store-per-step-dedup")
    reports = " ".join(b.spec["reported_by"])
    assert "4208910" in reports and "333a7c3" in reports
    assert b.spec["changed_in"] == "0.22.0" and behaviours.holds(b.engine + "." + b.id, "0.22.0") is False


def _queried() -> dict[str, set[str]]:
    """behaviour id -> the rules whose source names it, or calls the query helper that does
    (``FileContext.tools_claim``: ``rulebase.TOOLS_EFFECTS``)."""
    from recipelint.lint import rulebase

    out: dict[str, set[str]] = {}
    helper = {bid for effects in rulebase.TOOLS_EFFECTS.values() for bid, _ in effects}
    for path in RULE_SRC.glob("rl*.py"):
        code = "RL" + path.name[2:5]
        text = path.read_text()
        for bid in re.findall(r'"((?:vllm|sglang)\.[a-z0-9-]+)"', text):
            out.setdefault(bid, set()).add(code)
        if "tools_claim(" in text:
            for bid in helper:
                out.setdefault(bid, set()).add(code)
    return out


def test_rules_query_only_behaviours_that_exist_and_the_data_says_which():
    queried = _queried()
    for bid, codes in queried.items():
        b = behaviours.get(bid)  # KeyError: a rule names a behaviour the data lacks
        assert set(b.spec.get("rules") or []) == codes, f"{bid}: data says {b.spec.get('rules')}, rules query {codes}"
    for bid in behaviours.ids():
        listed = set(behaviours.get(bid).spec.get("rules") or [])
        assert listed <= queried.get(bid, set()), f"{bid}: listed rules {listed} do not query it"


# ---- the rules: silent outside a behaviour's range, firing inside, naming the release ---------


def test_rl301_fires_on_the_last_affected_release_and_not_on_the_first_fixed():
    got = _by_file(RULES / "RL301", "RL301")
    (last,) = got["eager_last_affected_release.sh"]
    assert "vLLM 0.21.0" in last.text and "vLLM 0.22.0+" in last.text
    assert "(the default is also eager)" in last.text
    assert "eager_fixed_release.sh" not in got  # 0.22.0, 0.25.1, nightly 426e59f


def test_rl305_names_the_release_and_is_silent_without_the_connector():
    got = _by_file(RULES / "RL305", "RL305")
    assert got["double_divided_in_range.sh"] and all(
        "vLLM 0.20.1 divides `cpu_bytes_to_use` by the world size" in f.text for f in got["double_divided_in_range.sh"]
    )
    assert "connector_absent_release.sh" not in got  # vLLM 0.18.1


def test_rl102_is_silent_before_sglang_divided_the_flag():
    got = _by_file(RULES / "RL102", "RL102")
    (f,) = got["divided_in_range.sh"]
    assert "SGLang 0.5.9 already divides it" in f.text
    assert "not_divided_before_0_4_1_post7.sh" not in got


def test_rl201_says_what_the_judged_sglang_release_does():
    got = _by_file(RULES / "RL201" / "agentic", "RL201")
    (old,) = got["sglang_rejects_before_0_5_2.sh"]
    assert "SGLang 0.5.1.post3 fails every request with tools" in old.text and "Unsupported tool_call_parser" in old.text
    assert "sglang_before_tool_parsers.sh" not in got  # 0.4.1: no tool-call parser at all
    (v,) = got["vllm_first_release.sh"]
    assert "vLLM 0.8.0 answers every `tool_choice: auto` request with HTTP 400" in v.text
    assert "vllm_older_than_history.sh" not in got


def test_rl607_names_the_release_and_is_silent_before_the_history():
    got = _by_file(RULES / "RL607", "RL607")
    assert sorted(f.span.line for f in got["startup_in_range.sh"]) == [4, 6]
    assert all("vLLM 0.8.0 stops at startup" in f.text for f in got["startup_in_range.sh"])
    assert "older_than_history.sh" not in got


def test_rl504_sglang_defaults_per_release():
    got = _by_file(RULES / "RL504", "RL504")
    got.pop("trta_fp4_b200_trt.sh", None)  # (TensorRT-LLM: test_rl504_trtllm_per_rank_cap)
    assert set(got) == {"spb_fp8_b200_mtp.sh", "spd_fp8_b200_mtp.sh", "dsvb_fp8_b200_mtp.sh", "dsvc_fp8_b200_mtp.sh"}
    (spb,) = got["spb_fp8_b200_mtp.sh"]
    assert "batch cap of 32" in spb.text and "SGLang 0.4.3.post3" in spb.text
    (dsvb,) = got["dsvb_fp8_b200_mtp.sh"]  # DeepSeek-V4 with EAGLE: the model's 256 wins over 48
    assert "batch cap of 256" in dsvb.text and "DeepSeek-V4" in dsvb.text and "SGLang 0.5.23" in dsvb.text
    (dsvc,) = got["dsvc_fp8_b200_mtp.sh"]  # 0.5.10: no DeepSeek-V4 default yet
    assert "batch cap of 48" in dsvc.text and "SGLang 0.5.10" in dsvc.text


def test_rl504_trtllm_per_rank_cap():
    # max_batch_size is per rank: CONC/TP under attention DP is 0 at CONC=4 (an error), 8 × 8 ranks
    # at CONC=64 (none); without DP a fixed 32 is below CONC=64 (a warning)
    got = sorted(_by_file(RULES / "RL504", "RL504")["trta_fp4_b200_trt.sh"], key=lambda f: f.span.line)
    assert [(f.span.line, f.severity) for f in got] == [(6, "error"), (8, "warning")]
    assert "batch cap is 0 at CONC=4" in got[0].text and "× 8 attention-DP ranks" in got[0].text
    assert "batch cap of 32" in got[1].text


def test_rl607_capture_sizes_are_judged_from_0_11_1():
    got = _by_file(RULES / "RL607", "RL607")
    (f,) = got["capture_sizes_by_release.sh"]
    assert "vLLM 0.11.1 stops at startup" in f.text
    assert "capture_sizes_before_the_check.sh" not in got  # 0.11.0
