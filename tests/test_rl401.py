"""RL401 (sibling parity): effective values, the odd one out, the data, a setting that adds tuning flags."""

from __future__ import annotations

from pathlib import Path

from recipelint.engines import facts
from recipelint.engines.catalog import versions
from recipelint.engines.launches import Flag
from recipelint.evaluate.values import Word, lit
from recipelint.lint.check import Options, lint
from recipelint.lint.effective import NONE, effective
from recipelint.lint.settings import Settings, apply_facts
from recipelint.rules.rl401_sibling_parity import DEFAULT, _odd_one_out, _Value


class _Launch:
    def __init__(self, flags, model="org/model", engine="vllm"):
        self.flags = flags
        self.engine = engine
        self.model = Word(lit(model, None), None)

    def get(self, key):
        found = [f for f in self.flags if f.key == key]
        return found[-1] if found else None


def _flag(name, value=None, index=0):
    return Flag(
        name, name, name, None, Word(lit(name, None), None), None if value is None else Word(lit(value, None), None), index
    )


class _R:
    def __init__(self, name):
        self.path = Path(name)


def _v(*values):
    return _Value(frozenset(values))


def test_effective_values_equal_the_default_when_spelled_out():
    def eff(flags, key, releases=("0.25.1",)):
        return effective(_Launch(flags), key, releases)

    pp = "--pipeline-parallel-size"
    assert (eff([], pp).value, eff([], pp).at_default) == ("1", True)
    assert (eff([_flag(pp, "1")], pp).value, eff([_flag(pp, "1")], pp).at_default) == ("1", True)
    assert (eff([_flag(pp, "2")], pp).value, eff([_flag(pp, "2")], pp).at_default) == ("2", False)
    assert eff([_flag("--tokenizer", "org/model/")], "--tokenizer").at_default
    assert eff([_flag("--tokenizer", "org/tok")], "--tokenizer").value == "org/tok"
    auto = "--enable-auto-tool-choice"
    assert eff([_flag(auto)], auto).value == "true"
    off = [_flag(auto, index=1), _flag("--no-enable-auto-tool-choice", index=2)]
    assert eff(off, auto).at_default  # the later --no- form wins
    assert eff([], "--reasoning-parser").value == NONE and eff([_flag("--reasoning-parser", "")], "--reasoning-parser").at_default


def test_the_odd_one_out_is_reported_once():
    a, b, c = _R("x_mi300x.sh"), _R("x_mi325x.sh"), _R("x_mi355x.sh")
    # three siblings: only the one that differs from two agreeing siblings
    assert _odd_one_out(c, _v(DEFAULT), [(a, _v("qwen3")), (b, _v("qwen3"))]) is not None
    assert _odd_one_out(a, _v("qwen3"), [(b, _v("qwen3")), (c, _v(DEFAULT))]) is None
    # two siblings: the one left at the default; two values: the name that sorts first
    b200, b300 = _R("x_b200.sh"), _R("x_b300.sh")
    assert _odd_one_out(b200, _v(DEFAULT), [(b300, _v("v4"))]) is not None
    assert _odd_one_out(b300, _v("v4"), [(b200, _v(DEFAULT))]) is None
    assert _odd_one_out(b200, _v("v3"), [(b300, _v("v4"))]) is not None
    assert _odd_one_out(b300, _v("v4"), [(b200, _v("v3"))]) is None
    # values that overlap (some points agree) are not judged
    assert _odd_one_out(b200, _v(DEFAULT, "v4"), [(b300, _v("v4"))]) is None


def test_every_behaviour_flag_has_a_reason_and_is_not_also_tuning():
    data = facts.load("parity")
    from recipelint.lint.effective import default_of

    every = {"vllm": tuple(versions("vllm")), "sglang": tuple(versions("sglang"))}
    for key, spec in data["behaviour_flags"].items():
        assert spec.get("why"), key
        assert key not in data["tuning_flags"], key
        # a default is known (from the history, or a hand entry) for some engine's releases
        assert any(default_of(e, key, r) is not None for e, r in every.items()), f"{key}: no engine default known"
    for key, why in {**data["tuning_flags"], **data["tuning_patterns"]}.items():
        assert isinstance(why, str) and why, key
    for name, spec in data["behaviour_env"].items():
        assert spec.get("why") and name in facts.load("engine_defaults")["parity_env"], name


RECIPE = """#!/usr/bin/env bash
vllm serve org/model --tensor-parallel-size "$TP"{extra} &
"""


def test_hardware_specific_flags_setting_makes_a_flag_tuning(tmp_path):
    (tmp_path / "m_b200_vllm.sh").write_text(RECIPE.format(extra=""))
    (tmp_path / "m_b300_vllm.sh").write_text(RECIPE.format(extra=" --tokenizer org/other"))
    found = lint([tmp_path], options=Options(select=["RL401"], jobs=1)).findings
    assert [Path(f.span.path).name for f in found] == ["m_b200_vllm.sh"]
    assert "`--tokenizer org/other`" in found[0].text and "tokenizer turns every prompt" in found[0].text
    try:
        apply_facts(Settings(hardware_specific_flags=["--tokenizer"]))
        assert lint([tmp_path], options=Options(select=["RL401"], jobs=1)).findings == []
    finally:
        facts.reset()


def test_no_engine_variable_is_both_behaviour_and_tuning():
    import fnmatch

    data = facts.load("parity")
    for name in data["behaviour_env"]:
        assert not any(fnmatch.fnmatch(name, p) for p in data["tuning_env"]), name


def test_a_value_some_points_pass_is_not_called_the_default(tmp_path):
    """`-pp` is 1 (the default) at CONC=16 and 2 at CONC=32: the message must not say `-pp 2` is the default."""
    import sys

    sys.path.insert(0, str(Path(__file__).parent))
    from test_rules import fixture_points

    head = "#!/usr/bin/env bash\n# point: TP=4 CONC=16 IMAGE=vllm/vllm-openai:v0.25.1\n# point: TP=4 CONC=32 IMAGE=vllm/vllm-openai:v0.25.1\n"
    (tmp_path / "m_b200_vllm.sh").write_text(head + 'PP=1\n[ "$CONC" -gt 16 ] && PP=2\nvllm serve org/model -pp "$PP" &\n')
    (tmp_path / "m_b300_vllm.sh").write_text(head + "vllm serve org/model -pp 4 &\n")
    found = lint([tmp_path], options=Options(select=["RL401"], jobs=1, points_for=fixture_points)).findings
    assert [Path(f.span.path).name for f in found] == ["m_b200_vllm.sh"], [f.text for f in found]
    assert "default" in found[0].text and "'s default" not in found[0].text, found[0].text
