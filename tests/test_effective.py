"""The effective value of a flag (recipelint.lint.effective, ``Use.effective``): the value passed,
else the engine's default at the image's release — from the engine history, or the few hand
entries it cannot express; and vLLM's run-time ``max_num_seqs`` default per release range."""

from __future__ import annotations

import pytest

from recipelint.engines.catalog import NOT_READ, default, versions
from recipelint.engines.launches import Flag
from recipelint.evaluate.values import Word, lit
from recipelint.lint.effective import NONE, default_of, effective, max_num_seqs_default


class _Launch:
    def __init__(self, flags, engine="vllm", model="org/model"):
        self.flags = flags
        self.engine = engine
        self.model = Word(lit(model, None), None)

    def get(self, key):
        found = [f for f in self.flags if f.key == key]
        return found[-1] if found else None

    def has(self, key):
        return any(f.key == key for f in self.flags)


def _flag(name, value=None, index=0):
    word = None if value is None else Word(lit(value, None), None)
    return Flag(name, name, name, None, Word(lit(name, None), None), word, index)


def test_a_flag_passed_at_its_default_equals_the_flag_left_out():
    pp = "--pipeline-parallel-size"
    absent = effective(_Launch([]), pp, ("0.25.1",))
    spelled = effective(_Launch([_flag(pp, "1")]), pp, ("0.25.1",))
    two = effective(_Launch([_flag(pp, "2")]), pp, ("0.25.1",))
    assert (absent.value, absent.at_default, absent.source) == ("1", True, "default")
    assert (spelled.value, spelled.at_default, spelled.source) == ("1", True, "passed")
    assert (two.value, two.at_default) == ("2", False)
    assert absent.where == "default at vLLM 0.25.1" and spelled.where == "passed"
    # a boolean: the --no- form, the bare flag
    auto = "--enable-auto-tool-choice"
    assert effective(_Launch([_flag(auto)]), auto, ("0.25.1",)).value == "true"
    assert effective(_Launch([_flag(f"--no-{auto[2:]}")]), auto, ("0.25.1",)).at_default
    # a string default
    tm = effective(_Launch([_flag("--tokenizer-mode", "auto")]), "--tokenizer-mode", ("0.33.0",))
    assert tm.at_default and tm.default.label == "vLLM 0.33.0"


def test_a_default_that_changed_between_releases_is_judged_per_release():
    """`--all2all-backend`: null (decided at run time) in 0.11.1–0.13.0, "allgather_reducescatter" from 0.14.0."""
    key = "--all2all-backend"
    assert default("vllm", key, "0.13.0") is None and default("vllm", key, "0.14.0") == "allgather_reducescatter"
    spelled = _Launch([_flag(key, "allgather_reducescatter")])
    assert effective(spelled, key, ("0.14.0",)).at_default
    assert effective(_Launch([]), key, ("0.14.0",)).value == "allgather_reducescatter"
    # the release decides at run time: no claim (unknown), whatever is passed
    assert effective(_Launch([]), key, ("0.13.0",)).source == "unknown"
    assert not effective(spelled, key, ("0.13.0",)).at_default
    # a range across the change: the releases disagree, no default judged
    assert default_of("vllm", key, ("0.13.0", "0.14.0")) is None
    assert effective(_Launch([]), key, ("0.13.0", "0.14.0")).value is None
    # releases without the flag do not count against a default the others agree on
    assert default_of("vllm", key, ("0.11.0", "0.14.0")).versions == ("0.14.0",)


def test_hand_entries_say_what_the_history_cannot():
    # same_as: the tokenizer is the model's
    tok = effective(_Launch([_flag("--tokenizer", "org/model/")]), "--tokenizer", ("0.25.1",))
    assert tok.at_default and effective(_Launch([_flag("--tokenizer", "org/tok")]), "--tokenizer", ("0.25.1",)).value == "org/tok"
    assert default_of("vllm", "--tokenizer", ("0.25.1",)).shown == "the model's"
    # none: null and "" both mean no reasoning parser (null in 0.8.x, "" from 0.9.0)
    every = tuple(versions("vllm"))
    d = default_of("vllm", "--reasoning-parser", every)
    assert d is not None and d.value is NONE and d.shown == "none"
    assert effective(_Launch([_flag("--reasoning-parser", "")]), "--reasoning-parser", ("0.25.1",)).at_default
    assert not effective(_Launch([_flag("--reasoning-parser", "qwen3")]), "--reasoning-parser", ("0.25.1",)).at_default
    # SGLang 0.5.20+: the history reads no default for --tool-call-parser (`_declared_default`), the hand entry holds
    assert default("sglang", "--tool-call-parser", "0.5.23") is NOT_READ
    assert default_of("sglang", "--tool-call-parser", ("0.5.23",)).value is NONE
    # without a release: only the hand entries
    assert effective(_Launch([]), "--pipeline-parallel-size", None).source == "unknown"
    assert effective(_Launch([]), "--tool-call-parser", None).at_default


def test_a_none_entry_yields_to_a_release_that_defaults_to_something():
    """`none` holds only where the history's literal (if any) is among its values."""
    # --enable-auto-tool-choice has a literal (false) everywhere: no hand entry is consulted
    d = default_of("vllm", "--enable-auto-tool-choice", ("0.25.1",))
    assert d is not None and d.value is False and d.read_from == "vllm-history.json"


#: the hand entries engine_defaults.yaml kept before the history fed the rules (removed: the
#: history has each of them, the same, for every release they were read at)
REMOVED = {
    "vllm": {
        "--enable-auto-tool-choice": (False, ["0.20.1", "0.25.1", "0.33.0"]),
        "--tokenizer-mode": ("auto", ["0.20.1", "0.25.1", "0.33.0"]),
        "--generation-config": ("auto", ["0.20.1", "0.25.1", "0.33.0"]),
        "--pipeline-parallel-size": (1, ["0.20.1", "0.25.1", "0.33.0"]),
        "--reasoning-parser": ("", ["0.20.1", "0.25.1", "0.33.0"]),
    },
    "sglang": {
        "--allow-auto-truncate": (False, ["0.5.12", "0.5.16", "0.5.17", "0.5.23"]),
        "--tokenizer-mode": ("auto", ["0.5.12", "0.5.16", "0.5.23"]),
        "--pp-size": (1, ["0.5.12", "0.5.16", "0.5.17", "0.5.23"]),
    },
}


@pytest.mark.parametrize("engine,flag", [(e, f) for e, t in REMOVED.items() for f in t])
def test_the_removed_hand_entries_agree_with_the_history(engine, flag):
    value, read = REMOVED[engine][flag]
    for v in read:
        assert default(engine, flag, v) == value, (engine, flag, v)
    d = default_of(engine, flag, tuple(read))
    if flag == "--reasoning-parser":
        assert d is not None and d.value is NONE  # (kept as a `none` entry: null in 0.8.x)
    else:
        assert d is not None and d.value == value


# ---- vLLM max_num_seqs ------------------------------------------------------------------------


def _seqs(flags, releases, gpu):
    return max_num_seqs_default(_Launch(flags), releases, [gpu])


def test_max_num_seqs_default_per_release_and_gpu():
    assert _seqs([], ("0.25.1",), "b200").value == 1024
    assert _seqs([], ("0.25.1",), "l40s").value == 256
    assert _seqs([], ("0.25.1",), "a100").value == 256
    # 0.8.0–0.8.4: 1024 on every GPU (V1); 0.8.5: >= 70 GiB (an A100 is 40 or 80 GB: unknown)
    assert _seqs([], ("0.8.4",), "l40s").value == 1024
    assert _seqs([], ("0.8.5",), "l40s").value == 256
    assert _seqs([], ("0.8.5",), "a100") is None
    # a range across the change: the releases disagree
    assert _seqs([], ("0.8.4", "0.8.5"), "l40s") is None
    assert _seqs([], ("0.8.4", "0.8.5"), "h100").value == 1024
    # an unknown GPU, no release
    assert _seqs([], ("0.25.1",), "tpu") is None
    assert _seqs([], (), "b200") is None
    d = _seqs([], ("0.25.1",), "h100")
    assert d.why.startswith("vLLM 0.25.1 defaults it to 1024 on this GPU") and "vllm/engine/arg_utils.py" in d.why


def test_max_num_seqs_default_follows_the_flags_that_change_it():
    throughput = [_flag("--performance-mode", "throughput")]
    assert _seqs(throughput, ("0.25.1",), "b200").value == 2048
    assert _seqs(throughput, ("0.16.0",), "b200").value == 1024  # no performance mode before 0.17.0
    assert _seqs([_flag("--performance-mode", "interactivity")], ("0.25.1",), "b200").value == 1024
    capped = [_flag("--max-num-batched-tokens", "512")]
    assert _seqs(capped, ("0.25.1",), "b200").value == 512
    assert _seqs(capped, ("0.11.0",), "b200").value == 1024  # no cap before 0.11.1
    assert "capped at 512" in _seqs(capped, ("0.25.1",), "b200").why
    moe = [
        _flag("--all2all-backend", "deepep_low_latency"),
        _flag("--enable-expert-parallel"),
        _flag("--data-parallel-size", "8"),
    ]
    assert _seqs(moe, ("0.25.1",), "b200").value == 256
    assert _seqs(moe, ("0.19.0",), "b200").value == 1024
    assert _seqs(moe[:2] + [_flag("--data-parallel-size", "1")], ("0.25.1",), "b200").value == 1024
