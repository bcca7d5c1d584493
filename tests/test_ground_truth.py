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

from helpers import bash_emits, emits, evaluate  # noqa: E402
from recipelint.evaluator import Limits  # noqa: E402

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


# -- generated programs of known values, checked against bash --------------------------------
# Assignments and expansions (defaults, patterns, case, length, substrings, command substitution
# of echo/printf, arithmetic), arrays, `if`/`case`/`for`, functions with locals, subshells and
# groups, `printf -v`, `set --`/`shift`, loops with counters, `declare -i`, `export`, `unset`:
# every word every `emit` gets must be bash's (values are known: no forks; a word the evaluator
# leaves unknown would only be imprecise).  A function redefining itself while it runs is left
# out: calls are told apart by name.

_V = ["V0", "V1", "V2"]
_LIT = ["a", "b c", "3", "ab", "", "x y z", "12", "a-c"]


@hs.composite
def _value(draw):
    v = draw(hs.sampled_from(_V))
    lit = draw(hs.sampled_from(_LIT))
    return draw(hs.sampled_from([
        f'"{lit}"', f"'{lit}'", f'"${v}"', f'"${{{v}:-{lit or "d"}}}"', f'"${{{v}#a}}"', f'"${{{v}%c}}"',
        f'"${{{v}/a/Q}}"', f'"${{#{v}}}"', f'"$(echo x${v})"', f'"$(printf "%s-" {v} ${v})"', f'"${{{v}:+set}}"',
        f'"${{{v}^^}}"', f'"${{{v}:1}}"', f'"pre${v}post"', f'"$(({draw(hs.integers(0, 9))} + 2))"',
    ]))


@hs.composite
def _stmt(draw, depth=0):
    v = draw(hs.sampled_from(_V))
    w = draw(hs.sampled_from(_V))
    kinds = ["assign", "assign", "emit", "emitq", "array", "arrayemit", "misc", "misc"]
    if depth < 2:
        kinds += ["if", "case", "for", "func"]
    k = draw(hs.sampled_from(kinds))
    if k == "assign":
        return f"{v}={draw(_value())}"
    if k == "emit":
        return f'emit ${v} "${w}"'
    if k == "emitq":
        return f'emit "${v}" "${{{w}:-none}}"'
    if k == "array":
        return f'A=({draw(_value())} x ${v})' if draw(hs.booleans()) else f'A+=({draw(_value())})'
    if k == "misc":
        n = draw(hs.integers(0, 5))
        return draw(hs.sampled_from([
            f'printf -v {v} "%s_%s" "${w}" {n}',
            f'{v}="${{{w},,}}"',
            f'{v}="${{{w}//b/x}}"',
            f'( {v}=sub; emit "${v}" )',
            f'{{ {v}=grp; }}',
            f'[[ "${v}" < "${w}" ]] && emit lt || emit ge',
            f'set -- "${v}" x "${w}"; shift; emit "$@" "$#"',
            f'i=0; while [ $i -lt {n} ]; do i=$((i + 1)); {v}="${v}$i"; done',
            f'declare -i N={n}; N+=2; emit "$N"',
            f'{v}=${{{w}:-}}',
            f'export {v}; emit "${v}"',
            f'{v}=$(({n} * 3 + ${{#{w}}}))',
            f'unset {v}',
            f'{v}+="-add"',
        ]))
    if k == "arrayemit":
        return draw(hs.sampled_from(['emit "${A[@]}"', 'emit "${#A[@]}"', 'emit ${A[@]}', 'emit "${A[1]}"', 'emit "${A[*]}"']))
    body = "; ".join(draw(hs.lists(_stmt(depth + 1), min_size=1, max_size=3)))
    if k == "if":
        test = draw(hs.sampled_from([f'[[ "${v}" == a* ]]', f'[ -z "${v}" ]', f'[[ -n "${v}" && "${w}" != b ]]', f'[ "${v}" = "${w}" ]']))
        other = "; ".join(draw(hs.lists(_stmt(depth + 1), min_size=1, max_size=2)))
        return f"if {test}; then {body}; else {other}; fi"
    if k == "case":
        return f'case "${v}" in a*) {body};; "") emit empty;; *) emit other;; esac'
    if k == "for":
        return f'for {w} in a "b c" ${v}; do {body}; done'
    if k == "func":
        return f'f{depth}() {{ local {w}=loc; {body}; emit "$1" "${w}"; }}; f{depth} "${v}"'


@hs.composite
def _bash_program(draw):
    init = [f"V{i}={draw(hs.sampled_from(_LIT))!r}" for i in range(3)]
    body = draw(hs.lists(_stmt(), min_size=1, max_size=6))
    return "\n".join(init + body + ['emit "$V0" "$V1" "$V2" "${A[@]}"']) + "\n"



def _agrees(got, want) -> bool:
    def same(g, w):
        if None in g:  # an unknown may stand for several words: the known words before it agree
            k = g.index(None)
            return g[:k] == w[:k]
        return g == w
    return len(got) == len(want) and all(same(g, w) for g, w in zip(got, want))


@settings(max_examples=int(os.environ.get("RECIPELINT_FUZZ_EXAMPLES", "40")), deadline=None, database=None,
          derandomize=not os.environ.get("RECIPELINT_FUZZ_RANDOM"), suppress_health_check=[HealthCheck.too_slow])
@given(_bash_program())
def test_generated_programs_match_real_bash(src):
    got = [argv[1:] for argv, _, _ in evaluate(src, None, limits=Limits(summaries=False))[1] if argv and argv[0] == "emit"]
    assert _agrees(got, bash_emits(src)), (src, got)
