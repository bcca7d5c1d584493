"""Ground truth by real bash: each render fixture is run by bash with stub engines first on
PATH; the argv (and exported environment) the stub received must equal, word for word, the
launch recipelint computed for the same environment."""

from __future__ import annotations

import os

import pytest

from helpers import FIXTURES, analyze, run_bash

RENDER = FIXTURES / "render"

BASE = {"MODEL": "org/Model-X", "RESULT_DIR": "/tmp"}

CASES = [
    ("inline_sglang.sh", {"TP": "8", "CONC": "64", "DP_ATTENTION": "false"}),
    ("inline_sglang.sh", {"TP": "8", "CONC": "4", "DP_ATTENTION": "false"}),
    ("inline_sglang.sh", {"TP": "4", "CONC": "64", "DP_ATTENTION": "true"}),
    ("inline_sglang.sh", {"TP": "8", "CONC": "64", "DP_ATTENTION": "true", "EVAL_ONLY": "true"}),
    ("launcher_vllm.sh", {"TP": "8", "CONC": "4"}),
    ("launcher_vllm.sh", {"TP": "8", "CONC": "100", "HF_OFFLINE": "1"}),
    ("launcher_vllm.sh", {"TP": "2", "CONC": "4096", "PORT": "9000"}),
    ("array_vllm.sh", {"TP": "8", "CONC": "64", "DP_ATTENTION": "false", "EP_SIZE": "1"}),
    ("array_vllm.sh", {"TP": "8", "CONC": "64", "DP_ATTENTION": "true", "EP_SIZE": "8"}),
    ("array_vllm.sh", {"TP": "8", "CONC": "8", "DP_ATTENTION": "true", "EP_SIZE": "8",
                       "KV_OFFLOADING": "dram", "KV_OFFLOAD_BACKEND": "simple", "TOTAL_CPU_DRAM_GB": "2849"}),
    ("array_vllm.sh", {"TP": "4", "CONC": "3", "DP_ATTENTION": "false", "EP_SIZE": "1",
                       "KV_OFFLOADING": "dram", "KV_OFFLOAD_BACKEND": "native", "TOTAL_CPU_DRAM_GB": "1424"}),
    ("eval_trt.sh", {"TP": "8", "CONC": "64", "EP_SIZE": "8", "DP_ATTENTION": "true"}),
    ("eval_trt.sh", {"TP": "4", "CONC": "4", "EP_SIZE": "1"}),
]


def _ids():
    return [f"{name}:{','.join(f'{k}={v}' for k, v in env.items())}" for name, env in CASES]


@pytest.mark.parametrize("name,env", CASES, ids=_ids())
def test_launch_argv_matches_real_bash(name, env):
    full = dict(BASE, **env)
    script = RENDER / name
    records, rc = run_bash(script=script, env=full)
    serve = [(argv, e) for argv, e in records if argv[0] in ("vllm", "sglang", "python3", "python", "trtllm-serve")]
    assert serve, f"bash ran no serve command (exit {rc})"
    res = analyze(script, full)
    assert not res.error and not res.problems
    launches = res.launches
    assert len(launches) == len(serve), [lc.command_line() for lc in launches]
    for (argv, real_env), lc in zip(serve, launches):
        ours = [w.text for w in lc.argv[lc.start:]]
        assert None not in ours, lc.command_line()
        assert os.path.basename(ours[0]) == argv[0]
        assert ours[1:] == argv[1:]
        # every variable recipelint says the launch exports has that value in the real env
        for k, v in lc.env.items():
            text = "".join(c.text for c in v) if all(c.text is not None for c in v) else None
            if text is not None:
                assert real_env.get(k) == text, k


def test_exit_matches_real_bash():
    """A sweep point the script rejects: bash exits 1 without a launch, and so does the evaluation."""
    env = dict(BASE, TP="8", CONC="8", DP_ATTENTION="false", EP_SIZE="1", KV_OFFLOADING="dram",
               KV_OFFLOAD_BACKEND="mooncake", TOTAL_CPU_DRAM_GB="100")
    records, rc = run_bash(script=RENDER / "array_vllm.sh", env=env)
    assert rc == 1 and not records
    res = analyze(RENDER / "array_vllm.sh", env)
    assert not res.launches
    (path,) = res.points[0].paths
    assert path.exit is not None and path.exit.code == 1
    assert path.exit.loc.span.line == 36


# -- lines of assignments before other statements, checked against bash ----------------------

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as hs  # noqa: E402

from helpers import bash_emits, emits  # noqa: E402

_VALUES = ["1", '"a b"', "$V0", "$((2 + 3))", "''", "x$V1"]
_ENDS = ["", "  # note", " ;"]
_USES = [
    'emit "$V0" "$V1" "$V2"',
    'true && emit "$V1"',
    'emit "$V2" | cat',
    'emit "$V0" > /dev/null',
    'if true; then emit "$V1" "$V0"; fi',
    'V2=z emit "$V2"',
    '{ emit "$V0"; }',
]


@hs.composite
def _assignment_lines(draw):
    lines = []
    for _ in range(draw(hs.integers(1, 4))):
        if draw(hs.booleans()):
            names = draw(hs.lists(hs.sampled_from(["V0", "V1", "V2"]), min_size=1, max_size=3))
            line = " ".join(f"{n}={draw(hs.sampled_from(_VALUES))}" for n in names)
            lines.append(line + draw(hs.sampled_from(_ENDS)))
        lines.append(draw(hs.sampled_from(_USES)))
    body = "\n".join(lines)
    if draw(hs.booleans()):
        body = "if true; then\n" + "\n".join("  " + ln for ln in lines) + "\nfi"
    return body + '\nemit "$V0" "$V1" "$V2"\n'


@settings(max_examples=int(os.environ.get("RECIPELINT_FUZZ_EXAMPLES", "40")), deadline=None, database=None,
          derandomize=not os.environ.get("RECIPELINT_FUZZ_RANDOM"), suppress_health_check=[HealthCheck.too_slow])
@given(_assignment_lines())
def test_assignment_lines_match_real_bash(src):
    # tree-sitter-bash reads `A=1 B=2` and the command on the next line as one command (parse
    # splits them); whatever the shape, the values every `emit` sees must be bash's
    assert emits(src) == bash_emits(src), src
