"""Benchmark client calls after the launch (recipelint.engines.clients), rejected arguments of a
function's option loop (evaluate: Rejected events) and lost continuations (bash.continuations)."""

from __future__ import annotations

from pathlib import Path

from recipelint.bash.continuations import stray_options
from recipelint.bash.parse import parse
from recipelint.bash.source import SourceFile
from recipelint.engines.clients import ClientCall
from recipelint.evaluate.state import Rejected
from recipelint.lint.analysis import Analyzer
from recipelint.lint.check import Options, lint
from recipelint.sweep.points import SweepPoint

LIB = """\
run_benchmark_serving() {
    local model="" port=""
    while [[ $# -gt 0 ]]; do
        case $1 in
            --model) model="$2"; shift 2 ;;
            --port) port="$2"; shift 2 ;;
            *) echo "Unknown parameter: $1"; return 1 ;;
        esac
    done
    local cmd=(python3 "$(pwd)/utils/bench_serving/benchmark_serving.py" --model "$model" --base-url "http://0.0.0.0:$port")
    "${cmd[@]}"
}
"""


def _events(tmp_path: Path, recipe: str, env: dict) -> list:
    (tmp_path / "lib.sh").write_text(LIB)
    p = tmp_path / "r.sh"
    p.write_text(recipe)
    res = Analyzer().analyze(p, "r.sh", [SweepPoint("p", env)])
    return [e for path in res.points[0].paths for e in path.events]


def test_client_call_after_the_launch_is_recorded_with_the_server_options(tmp_path):
    recipe = (
        'source "$(dirname "$0")/lib.sh"\n'
        'vllm serve "$MODEL" --port "$PORT" &\n'
        "sleep 5\n"
        'run_benchmark_serving --model "$MODEL" --port "$PORT"\n'
        "echo after\n"
    )
    evs = _events(tmp_path, recipe, {"MODEL": "org/m", "PORT": "8001"})
    clients = [e for e in evs if isinstance(e, ClientCall)]
    assert [c.client for c in clients] == ["benchmark-serving-py"]
    assert clients[0].value("model") == "org/m"
    assert clients[0].value("base_url") == "http://0.0.0.0:8001"
    assert clients[0].stack and clients[0].stack[0][0] == "run_benchmark_serving"
    assert clients[0].point is not None
    assert not any(isinstance(e, Rejected) for e in evs)


def test_a_rejected_argument_is_an_event_with_where_it_was_written(tmp_path):
    recipe = (
        'source "$(dirname "$0")/lib.sh"\n'
        'vllm serve "$MODEL" --port "$PORT" &\n'
        'run_benchmark_serving --model "$MODEL" --port "$PORT" --request-rate 4\n'
    )
    evs = _events(tmp_path, recipe, {"MODEL": "org/m", "PORT": "8001"})
    rej = [e for e in evs if isinstance(e, Rejected)]
    assert len(rej) == 1
    r = rej[0]
    assert (r.function, r.word.text, r.status, r.exits) == ("run_benchmark_serving", "--request-rate", 1, False)
    assert r.word.loc.real().span.line == 3 and r.accepted == ("--model", "--port")
    assert not any(isinstance(e, ClientCall) for e in evs)  # it returned before running the client


def test_an_unknown_argument_is_not_a_rejection(tmp_path):
    recipe = 'source "$(dirname "$0")/lib.sh"\nrun_benchmark_serving --model "$MODEL" "$(cat extra)"\n'
    evs = _events(tmp_path, recipe, {"MODEL": "org/m"})
    assert not any(isinstance(e, Rejected) for e in evs)


def test_a_statement_after_the_last_client_call_is_not_followed(tmp_path):
    recipe = (
        'source "$(dirname "$0")/lib.sh"\n'
        'vllm serve "$MODEL" &\n'
        'run_benchmark_serving --model "$MODEL" --port 1\n'
        "vllm bench serve --model x --port 2\n"
        "my_function_that_is_not_defined --bogus\n"
    )
    evs = _events(tmp_path, recipe, {"MODEL": "org/m"})
    assert [e.client for e in evs if isinstance(e, ClientCall)] == ["benchmark-serving-py", "vllm-bench-serve"]


def test_stray_options_only_for_commands(tmp_path):
    text = "vllm serve m \\\n  --a 1\n  --b 2 &\nx=(\n  --c\n)\ncat <<EOF\n--d\nEOF\necho \"\n--e\"\ncmd \\\n  # note\n  --f\n"
    parsed = parse(SourceFile(str(tmp_path / "s.sh"), text.encode()))
    got = [(s.word, s.loc.real().span.line, s.line, s.why, s.above, s.background) for s in stray_options(parsed)]
    assert got == [("--b", 3, 2, "backslash", "vllm", True), ("--f", 14, 13, "comment", "cmd", False)]


CONFIG = """\
rej-fp8-b200-vllm:
  image: vllm/vllm-openai:v0.25.1
  model: org/Model-A
  model-prefix: rej
  runner: b200
  precision: fp8
  framework: vllm
  multinode: false
  scenarios:
    fixed-seq-len:
    - isl: 1024
      osl: 1024
      search-space:
      - { tp: 8, conc-list: [4] }
"""


def test_a_rejection_that_stops_the_point_under_set_e_is_rl801_not_rl502(tmp_path):
    (tmp_path / ".git").mkdir()
    (tmp_path / "configs").mkdir()
    (tmp_path / "configs" / "nvidia-master.yaml").write_text(CONFIG)
    (tmp_path / "configs" / "runners.yaml").write_text("labels:\n  b200: [b200_00]\n")
    d = tmp_path / "benchmarks" / "single_node" / "fixed_seq_len"
    d.mkdir(parents=True)
    (tmp_path / "benchmarks" / "benchmark_lib.sh").write_text(
        LIB.replace("run_benchmark_serving", "start_monitor").replace('"${cmd[@]}"', "true")
    )
    (d / "rej_fp8_b200_vllm.sh").write_text(
        'set -e\nsource "$(dirname "$0")/../../benchmark_lib.sh"\n'
        "start_monitor --interval 5\n"
        'vllm serve "$MODEL" --tensor-parallel-size "$TP" &\n'
    )
    res = lint([tmp_path], options=Options(jobs=1))
    codes = sorted((f.code, f.span.line) for f in res.findings if f.code in ("RL502", "RL801"))
    assert codes == [("RL801", 3)]
