"""Property/fuzz suite: recipes mutated at the token level (deleted, duplicated, swapped and
inserted bash tokens, unbalanced quotes and heredocs, deep nesting, huge arrays, recursion,
`source` loops, long values under patterns that backtrack) never make recipelint raise, always give well-formed output, and finish; and
evaluating them with summaries of calls and statements (recipelint.evaluate.summaries) gives exactly what
evaluating without them gives.  Dispatch workflows of any YAML shape and master configs with
hostile values give sweep points or findings, never an exception.

CI runs a short, derandomised sample.  The long run (documented in the README):

    RECIPELINT_FUZZ_EXAMPLES=10000 RECIPELINT_FUZZ_RANDOM=1 pytest tests/test_fuzz.py -q
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import tempfile
from pathlib import Path
from unittest import mock

from helpers import FIXTURES, CountingAnalyzer, dump
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from recipelint.evaluate.state import Limits
from recipelint.lint.analysis import Analyzer
from recipelint.lint.check import Options, lint
from recipelint.report.jsonfmt import render_json
from recipelint.report.sarif import render_sarif

EXAMPLES = int(os.environ.get("RECIPELINT_FUZZ_EXAMPLES", "60"))
RANDOM = bool(os.environ.get("RECIPELINT_FUZZ_RANDOM"))
#: the settings of a fuzz test: EXAMPLES examples, derandomized unless RECIPELINT_FUZZ_RANDOM is set
FUZZED = settings(
    max_examples=EXAMPLES, deadline=None, derandomize=not RANDOM, database=None, suppress_health_check=list(HealthCheck)
)
#: every case must end within the work limits (evaluation steps, paths, launches, sweep points),
#: asserted as counts, never as seconds: how fast is measured by bench/bench.py.  Past
#: ``max_steps`` the evaluator refuses every statement; what may still be counted is the bulk of
#: the one statement that crossed it (its words, its values' KiB), far less than another limit
MAX_STEPS = 2 * Limits().max_steps

SOURCES = sorted(p for p in FIXTURES.rglob("*.sh") if p.stat().st_size < 20_000)
TEXTS = [p.read_text(encoding="utf-8", errors="replace") for p in SOURCES]
TOKEN = re.compile(r"\s+|[;&|<>()]+|[^\s;&|<>()]+")

VOCABULARY = [
    "'",
    '"',
    "`",
    "\\",
    "$(",
    "${",
    "$((",
    "))",
    "((",
    "[[",
    "]]",
    "{",
    "}",
    "(",
    ")",
    ";",
    ";;",
    "&",
    "&&",
    "||",
    "|",
    "\n",
    " ",
    "<<EOF",
    "<<-'PY'",
    "EOF",
    "do",
    "done",
    "if",
    "then",
    "fi",
    "else",
    "case",
    "esac",
    "in",
    "for",
    "while",
    "until",
    "function",
    "local",
    "export",
    "declare -A",
    "set -euo pipefail",
    "shift 9",
    '"$@"',
    "${!x}",
    "${x:?boom}",
    "${#a[@]}",
    "${a[@]:1:2}",
    "$((1/0))",
    "$((2**64))",
    "exit 3",
    "return",
    "break 99",
    "eval \"$X\"",
    "source \"$0\"",
    ". \"${BASH_SOURCE[0]}\"",
    "bash -c \"$CMD\"",
    "export -f",
    "bash \"$0\"",
    "vllm serve",
    "python3 -m sglang.launch_server",
    "--max-num-seqs",
    "--kv-transfer-config '{\"kv_connector\":'",
    "--speculative-config \"{$X}\"",
    "=",
    "+=",
    "[0]=",
    "~",
    "*",
    "?",
    "!",
    "#",
    "%q",
    "\x00",
    "\udcff",
    "[[ $X =~ ^(a+)+$ ]]",
    "${X//*a*a*b/c}",
    "${X%%+(a|aa)}",
    "*a*a*a*b)",
    "printf '%*s' 9",
    "{1..5000}",
    "declare -n R=R",
    "local -n X=$1",
    "unset -n",
    "-a",
    "-o",
    "set -o pipefail",
    "! a | b |",
    "[ ",
    " ]",
    "\\<",
    "\\(",
    "[ ! = x ]",
    " = ",
    "[[ $A = x* && $B = y ]]",
    "${X:$o:$n+1}",
    "${X::}",
    "for x do",
    "--compilation-config '{\"cudagraph_capture_sizes\":[1e999, NaN], \"max_cudagraph_capture_size\": -Infinity}'",
    "'{\"kv_connector\":\"SimpleCPUOffloadConnector\",\"kv_connector_extra_config\":{\"cpu_bytes_to_use\":1e999}}'",
    "2>/dev/null X=1",
    "[[ -v A[$i] ]]",
    'x${n}y)',
    '*" -S "*)',
    "|v${A}.${B}",
    "(",
    "! if",
    "! local",
    "! ((",
    "${X:+($X)}",
    "declare -F",
    '== *" on "*',
    "== x${o}y",
    "=~ ^a$ ||",
    "! $x =~",
    '"$ "',
    "${X%% *}",
    '=~ "a.b"',
    "=~ ^${p}(x)$",
]

SNIPPETS = [
    "f() { f \"$@\"; }\nf\n",
    "g() { h; }\nh() { g; }\ng\n",
    "f() { bash -c 'f; f'; }\nexport -f f\nf\n",
    "bash \"$0\"\nbash \"$0\"\nvllm serve m\n",
    "A=(" + " ".join(str(i) for i in range(5000)) + ")\n",
    "(" * 300 + "true" + ")" * 300 + "\n",
    "if true; then\n" * 200 + "fi\n" * 200,
    "while true; do X=$((X+1)); done\n",
    "for ((;;)); do :; done\n",
    "cat <<EOF\nunterminated heredoc\n",
    "echo \"unbalanced\n",
    "echo 'unbalanced\n",
    "source \"$(dirname \"$0\")/$(basename \"$0\")\"\n",
    "X=${X:-$(printf '%.0s-' {1..5000})}\n",
    "X=$(printf %3000s); X=${X// /a}\n",
]


@st.composite
def mutated(draw):
    text = draw(st.sampled_from(TEXTS))
    toks = TOKEN.findall(text) or [""]
    for _ in range(draw(st.integers(1, 6))):
        op = draw(st.sampled_from(["delete", "dup", "swap", "insert", "snippet"]))
        i = draw(st.integers(0, max(0, len(toks) - 1)))
        if op == "delete" and len(toks) > 1:
            del toks[i]
        elif op == "dup":
            toks.insert(i, toks[i])
        elif op == "swap":
            j = draw(st.integers(0, max(0, len(toks) - 1)))
            toks[i], toks[j] = toks[j], toks[i]
        elif op == "insert":
            toks.insert(i, draw(st.sampled_from(VOCABULARY)))
        else:
            toks.insert(i, "\n" + draw(st.sampled_from(SNIPPETS)))
    return "".join(toks)


def _within_limits(counted: CountingAnalyzer, result) -> None:
    """Every sweep point evaluated ended within the work limits (``Limits``): steps, paths,
    launches (the one over the launch limit is kept)."""
    limits = Limits()
    assert counted.steps or not any(fr.points for fr in result.files)  # (the steps were counted)
    assert max(counted.steps, default=0) <= MAX_STEPS, counted.steps
    for fr in result.files:
        for pr in fr.points:
            assert len(pr.paths) <= limits.max_paths, len(pr.paths)
            assert len(pr.launches) <= limits.max_launches + 1, len(pr.launches)


def _well_formed(result, n_lines: int) -> None:
    for f in result.findings:
        assert re.fullmatch(r"RL\d{3}", f.code)
        assert f.severity in ("info", "warning", "error")
        assert f.message and "\n" not in f.message
        assert 1 <= f.span.line <= max(n_lines, 1) + 1 and f.span.col >= 1
        assert (f.span.end_line, f.span.end_col) >= (f.span.line, f.span.col)
    data = json.loads(render_json(result.findings))
    assert len(data) == len(result.findings)
    sarif = json.loads(render_sarif(result.findings))
    assert sarif["version"] == "2.1.0"


# no `explain` phase: it re-runs a failing case under line tracing, which on a deep evaluation
# grew the test process past 18 GB instead of reporting the case
@settings(
    max_examples=EXAMPLES,
    deadline=None,
    derandomize=not RANDOM,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    phases=[Phase.explicit, Phase.reuse, Phase.generate, Phase.shrink],
)
@given(mutated())
def test_mutated_recipes_never_crash(text):
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "recipe.sh"
        data = text.encode("utf-8", "surrogateescape")
        path.write_bytes(data)
        counted = CountingAnalyzer()
        result = lint([path], analyzer=counted, options=Options(use_configs=False, jobs=1))
        _within_limits(counted, result)
        _well_formed(result, data.count(b"\n") + 1)
        # summaries (recipelint.evaluate.summaries) change nothing: the same paths, events, values and findings
        plain = lint([path], analyzer=Analyzer(Limits(summaries=False)), options=Options(use_configs=False, jobs=1))
        # point by point: a dump of every point at once reached gigabytes on recipes that run
        # themselves hundreds of times
        assert [len(fr.points) for fr in result.files] == [len(fr.points) for fr in plain.files]
        for fa, fb in zip(result.files, plain.files):
            for pa, pb in zip(fa.points, fb.points):
                assert dump(pa) == dump(pb)
        assert [(f.code, f.span, f.message) for f in result.findings] == [(f.code, f.span, f.message) for f in plain.findings]


# -- dispatch workflows (recipelint.sweep.configs._load_workflow): any YAML shape, no exception --------

_SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 3),
    st.sampled_from(
        [
            "",
            "x",
            "${{ inputs.p }}",
            "a/${{ inputs.p }}_x.sh",
            "${{ secrets.T }}",
            "${{ inputs.q }}-${{ inputs.p }}",
            "/abs/${{ inputs.p }}",
            "../${{ inputs.p }}",
            "a/*/${{ inputs.p }}",
            "${{",
            "}}",
            "${{ inputs. }}",
        ]
    ),
)
_YAMLISH = st.recursive(
    _SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.dictionaries(
            st.sampled_from(["on", "workflow_dispatch", "inputs", "p", "q", "default", "env", "BENCH_SCRIPT_OVERRIDE", "IMAGE"]),
            inner,
            max_size=4,
        ),
    ),
    max_leaves=12,
)


@FUZZED
@given(_YAMLISH)
def test_any_dispatch_workflow_document_gives_points_or_problems(doc):
    from recipelint.sweep import configs
    from recipelint.sweep.points import SweepPoint

    with tempfile.TemporaryDirectory() as d:
        root = Path(d)
        (root / "configs").mkdir()
        (root / "configs" / "x-master.yaml").write_text("{}\n")
        (root / "a").mkdir()
        (root / "a" / "p_x.sh").write_text("vllm serve m\n")
        wf = root / ".github" / "workflows" / "speedbench-al.yml"
        wf.parent.mkdir(parents=True)
        wf.write_text(json.dumps(doc))  # JSON is YAML
        cs = configs.load(root)
        for p in cs.problems:
            assert p.span.line >= 1 and p.message
        for pts in cs.by_script.values():
            assert all(isinstance(p, SweepPoint) and isinstance(p.env, dict) for p in pts)


# -- master configs (recipelint.sweep.configs): hostile values in any field, a finding and no exception --

_CONFIG_FIELDS = {
    "image": "vllm/vllm-openai:v0.33.0",
    "model": "org/m",
    "model-prefix": "x",
    "runner": "b200",
    "precision": "fp8",
    "framework": "vllm",
    "multinode": "false",
    "isl": "1024",
    "osl": "1024",
    "dram-utilization": "0.9",
    "tp": "8",
    "ep": "8",
    "pp": "1",
    "dp-attn": "true",
    "conc-list": "[4, 8]",
    "conc-start": "4",
    "conc-end": "16",
    "kv-offloading": "dram",
    "kv-offload-backend": "{ name: vllm-simple }",
    "spec-decoding": "mtp",
    "router": "{ name: r }",
}
_CONFIG_VALUES = [
    ".inf",
    "-.inf",
    ".nan",
    "1e999",
    "abc",
    "[1, 2]",
    "{a: 1}",
    "null",
    "true",
    "-1",
    "0",
    "''",
    "[]",
    "{}",
    "99999999999999999999999",
    "0x10",
    "1.5",
    "[.inf]",
    "[abc]",
    "{ name: 1 }",
    "[[1]]",
    "'8'",
    "*a",
    "&a x",
    "!!binary aGk=",
    "!!python/object:os.system x",
    "\"x: y\"",
    "[4, .nan, -3]",
]


@st.composite
def hostile_master_config(draw):
    vals = dict(_CONFIG_FIELDS)
    for k in draw(st.lists(st.sampled_from(sorted(_CONFIG_FIELDS)), min_size=1, max_size=3, unique=True)):
        vals[k] = draw(st.sampled_from(_CONFIG_VALUES))
    scenario = draw(st.sampled_from(["agentic-coding", "fixed-seq-len"]))
    top = "".join(
        f"  {k}: {vals[k]}\n" for k in ("image", "model", "model-prefix", "runner", "precision", "framework", "multinode")
    )
    conc = draw(st.sampled_from(["conc-list", "conc-start"]))
    item = ", ".join(
        f"{k}: {vals[k]}"
        for k in ("tp", "ep", "pp", "dp-attn", conc, "conc-end", "kv-offloading", "kv-offload-backend", "spec-decoding", "router")
    )
    return (
        f"x-fp8-b200-vllm:\n{top}  scenarios:\n    {scenario}:\n    - isl: {vals['isl']}\n      osl: {vals['osl']}\n"
        f"      dram-utilization: {vals['dram-utilization']}\n      search-space:\n      - {{ {item} }}\n"
    )


@FUZZED
@given(hostile_master_config())
def test_hostile_master_configs_give_findings_not_exceptions(master):
    # found by this kind of input: `tp: .inf`, `ep: 1e999` and `dram-utilization: abc` were
    # internal errors (exit 2) instead of an RL500 for their entry
    with tempfile.TemporaryDirectory() as d:
        root = Path(d)
        (root / "configs").mkdir()
        (root / "configs" / "runners.yaml").write_text(
            "labels:\n  b200: [b200-dgxc_00]\nhardware:\n  b200:\n    available-cpu-dram-mib: 100000\n    gpus-per-node: 8\n"
        )
        (root / "configs" / "t-master.yaml").write_text(master)
        for sub in ("agentic", "fixed_seq_len"):
            rec = root / "benchmarks" / "single_node" / sub
            rec.mkdir(parents=True)
            (rec / "x_fp8_b200_vllm.sh").write_text(
                '#!/usr/bin/env bash\nvllm serve m --tensor-parallel-size "$TP" --max-num-seqs "$CONC"\n'
            )
        result = lint([root / "benchmarks", root / "configs"], options=Options(jobs=1, cache=False))
        _well_formed(result, 40)


# -- master configs and settings mutated as text (lines deleted, duplicated, swapped, re-indented;
# YAML and TOML tokens inserted): a finding or a one-line error (exit 2), never a traceback ------

_MASTER_TEXTS = [
    p.read_text(encoding="utf-8")
    for p in sorted(FIXTURES.rglob("*master*.yaml"))
    if p.stat().st_size < 20_000 and "broken" not in p.name
]
_YAML_TOKENS = [
    "&a ",
    "*a",
    "<<: *a",
    "!!str ",
    "!!python/object/apply:os.system ['id']",
    "? ",
    "- ",
    "{",
    "}",
    "[",
    "]",
    '"',
    "'",
    "|",
    ">-",
    "---",
    "...",
    "%YAML 1.1",
    "\t",
    ": ",
    ",",
    "#",
    "~",
    "null",
    ".inf",
    "1e999",
    "0o17",
    "-",
    "\x1b[8m",
    "\r",
    "\u202e",
    "x" * 300,
    "conc-list: [" + ", ".join(str(i) for i in range(1, 400)) + "]",
    "scenarios:",
    "search-space:",
    "fixed-seq-len:",
    "agentic-coding:",
    "tp: 0",
    "tp: -8",
    "conc-start: 1\n  conc-end: 99999",
]
_SETTINGS_YAML = """\
select: ["RL"]
extend-select: ["RL6"]
ignore: ["RL401"]
per-file-ignores: {"benchmarks/x/*": ["RL4"]}
severity: {RL401: info}
exclude: ["benchmarks/multi_node/**"]
fail-on: warning
output-format: full
configs: ["configs/nvidia-master.yaml"]
sibling-groups: [["b200", "b300"]]
hardware-specific-flags: ["--my-flag"]
connector-keys: {MyConnector: ["key_a"]}
extra-flags: {vllm: ["--omni"]}
extra-entry-points: {vllm: ["python -m dynamo.vllm"]}
profile: auto
environments: [{files: "benchmarks/*.sh", env: {MODEL: org/m}, args: ["8000"], engine-versions: {sglang: "0.5.14"}}]
engine-versions: {vllm: "0.10.1"}
"""
_SETTINGS_TOML = """\
[tool.recipelint]
select = ["RL"]
ignore = ["RL401"]
per-file-ignores = {"benchmarks/x/*" = ["RL4"]}
severity = {RL401 = "info"}
fail-on = "warning"
configs = ["configs/nvidia-master.yaml"]
extra-flags = {vllm = ["--omni"]}
extra-entry-points = {vllm = ["python -m dynamo.vllm"]}
environments = [{files = "benchmarks/*.sh", env = {MODEL = "org/m"}, args = ["8000"], engine-versions = {vllm = "0.10.0"}}]
engine-versions = {vllm = "0.10.1", sglang = "0.5.14"}
"""
_TOML_TOKENS = [
    "[",
    "]",
    "{",
    "}",
    "=",
    '"',
    "'''",
    "[[tool.recipelint]]",
    "[tool.recipelint.x]",
    "\\u0000",
    "inf",
    "nan",
    "1979-05-27",
    "0x10",
    ",",
]


def _mutate_lines(draw, text: str, tokens: list[str]) -> str:
    lines = text.split("\n")
    for _ in range(draw(st.integers(1, 5))):
        op = draw(st.sampled_from(["delete", "dup", "swap", "indent", "dedent", "insert", "inline", "cut"]))
        i = draw(st.integers(0, max(0, len(lines) - 1)))
        if op == "delete" and len(lines) > 1:
            del lines[i]
        elif op == "dup":
            lines.insert(i, lines[i])
        elif op == "swap":
            j = draw(st.integers(0, max(0, len(lines) - 1)))
            lines[i], lines[j] = lines[j], lines[i]
        elif op == "indent":
            lines[i] = "  " + lines[i]
        elif op == "dedent":
            lines[i] = lines[i][2:] if lines[i].startswith("  ") else lines[i].lstrip()
        elif op == "insert":
            lines.insert(i, draw(st.sampled_from(tokens)))
        elif op == "inline":
            at = draw(st.integers(0, len(lines[i])))
            lines[i] = lines[i][:at] + draw(st.sampled_from(tokens)) + lines[i][at:]
        elif lines[i]:
            at = draw(st.integers(0, len(lines[i]) - 1))
            lines[i] = lines[i][:at]
    return "\n".join(lines)


@st.composite
def mutated_master_config(draw):
    return _mutate_lines(draw, draw(st.sampled_from(_MASTER_TEXTS)), _YAML_TOKENS)


@st.composite
def mutated_settings(draw):
    kind = draw(st.sampled_from(["yaml", "toml"]))
    base, tokens = (_SETTINGS_YAML, _YAML_TOKENS) if kind == "yaml" else (_SETTINGS_TOML, _TOML_TOKENS + _YAML_TOKENS[:20])
    return kind, _mutate_lines(draw, base, tokens)


def _seed_tree(root: Path) -> None:
    import shutil

    shutil.copytree(FIXTURES / "seed" / "benchmarks", root / "benchmarks")
    shutil.copytree(FIXTURES / "seed" / "configs", root / "configs")
    (root / ".git").mkdir()


def _run_cli(root: Path, *args: str):
    """`recipelint check` of the seed tree in one process (`--jobs 1`: the steps of every sweep
    point it evaluates are counted here): it must end within the work limits, with findings or a
    one-line error."""
    from typer.testing import CliRunner

    from recipelint.cli import app
    from recipelint.sweep.configs import MAX_POINTS_PER_RUN

    steps: list[int] = []
    evaluate = Analyzer.evaluate

    def counting(self, parsed, path, point, ev=None):
        ev = ev or self.evaluator(path)
        pr = evaluate(self, parsed, path, point, ev)
        steps.append(ev.steps)
        return pr

    cwd = os.getcwd()
    os.chdir(root)
    try:
        with mock.patch.object(Analyzer, "evaluate", counting):
            r = CliRunner().invoke(app, ["check", "benchmarks", "configs", "--no-cache", "--jobs", "1", "-o", "concise", *args])
    finally:
        os.chdir(cwd)
    assert steps or r.exit_code == 2  # (the steps were counted)
    assert max(steps, default=0) <= MAX_STEPS, steps
    assert len(steps) <= MAX_POINTS_PER_RUN, len(steps)
    assert r.exception is None or isinstance(r.exception, SystemExit), repr(r.exception)
    assert r.exit_code in (0, 1, 2), (r.exit_code, r.output[-2000:])
    assert "Traceback" not in r.output and "internal error" not in r.output.lower(), r.output[-2000:]
    if r.exit_code == 2:  # a one-line error
        lines = [ln for ln in r.output.splitlines() if ln.strip()]
        assert len(lines) == 1 and lines[0].startswith("recipelint: "), r.output[-2000:]
    return r


@contextlib.contextmanager
def _seeded(rel: str, text: str):
    """The seed tree in a temporary folder, with the file ``rel`` holding ``text``."""
    with tempfile.TemporaryDirectory() as d:
        root = Path(d)
        _seed_tree(root)
        (root / rel).write_text(text, encoding="utf-8", errors="surrogateescape")
        yield root


@FUZZED
@given(mutated_master_config())
def test_mutated_master_configs_give_findings_or_one_line_errors(text):
    with _seeded("configs/nvidia-master.yaml", text) as root:
        r = _run_cli(root, "--output-format", "json")
        if r.exit_code != 2:
            data = json.loads(r.stdout)
            assert all(re.fullmatch(r"RL\d{3}", f["code"]) for f in data)
            assert "\x1b" not in r.stdout


@FUZZED
@given(mutated_settings())
def test_mutated_settings_give_results_or_one_line_errors(case):
    kind, text = case
    with _seeded(".recipelint.yaml" if kind == "yaml" else "pyproject.toml", text) as root:
        _run_cli(root)


def _baseline_text():
    """What a `--baseline` file may hold: JSON of any shape (a list of entries with fields of any
    type, the fields recipelint reads filled with hostile text), or any text at all."""
    text = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=200)
    entry = st.fixed_dictionaries(
        {},
        optional={
            "code": st.one_of(st.just("RL101"), text, st.integers()),
            "path": st.one_of(st.just("benchmarks/single_node/agentic/dsv4_fp4_b200_vllm.sh"), text, st.none()),
            "key": st.one_of(text, st.lists(text, max_size=3)),
            "message": text,
            "line": st.one_of(st.integers(min_value=-5, max_value=10**12), text),
            "points": st.one_of(st.lists(text, max_size=4), text),
        },
    )
    doc = st.one_of(
        st.lists(entry, max_size=8),
        st.fixed_dictionaries({"findings": st.lists(entry, max_size=8)}, optional={"version": st.one_of(st.integers(), text)}),
        st.recursive(
            st.one_of(st.none(), st.booleans(), st.integers(), text),
            lambda c: st.lists(c) | st.dictionaries(text, c),
            max_leaves=20,
        ),
    )
    return st.one_of(doc.map(json.dumps), text)


@FUZZED
@given(_baseline_text())
def test_any_baseline_file_gives_results_or_one_line_errors(text):
    """Issue 49's fuzzing of baselines: any `--baseline` file ends in findings or a one-line error."""
    with _seeded("baseline.json", text) as root:
        _run_cli(root, "--baseline", "baseline.json")


_NAME = st.text(
    alphabet=st.characters(blacklist_characters="/\x00", blacklist_categories=("Cs",)), min_size=1, max_size=60
).filter(lambda n: n not in (".", "..") and len(n.encode()) < 200)


@FUZZED
@given(_NAME, st.sampled_from([".sh", ".bash", "", ".sbatch"]))
def test_any_file_name_gives_findings_in_one_line_each(name, suffix):
    """Issue 49's fuzzing of file names: a recipe named with newlines, control characters,
    workflow-command text or anything else gives findings whose every line is one line of the
    format (never a name's newline breaking a line), or a one-line error."""
    with tempfile.TemporaryDirectory() as d:
        root = Path(d)
        _seed_tree(root)
        target = root / "benchmarks" / "single_node" / "agentic" / (name + suffix)
        try:
            target.write_text("#!/bin/bash\nvllm serve m --no-such-flag-xyz 1\n")
        except OSError:
            return  # (a name the file system refuses)
        r = _run_cli(root, "--output-format", "github")
        for line in r.stdout.splitlines():
            assert line.startswith("::"), line[:200]


def test_a_loop_stops_when_the_step_limit_is_spent(tmp_path):
    # a `while` whose condition sources the script itself (a mutation the fuzzer found): once the
    # step limit was spent each iteration still ran, only counting steps — 2.1 million, 26 s
    text = (
        "#!/usr/bin/env bash\ninstall_like() {\n  i=0\n  while\nsource \"$(dirname \"$0\")/$(basename \"$0\")\"\n"
        " true; do\n    if [ \"x$1\" = \"x\" ]; then break; fi\n"
        "    if [ \"$(expr substr \"$1\" 1 2)\" = \"--\" ]; then i=$(expr $i + 1); fi\n"
        "    if [ $i -gt 2 ]; then break; fi\n    shift 1\n  done\n}\n"
        "install_like \"--aa\" \"--aa\" \"--uninstall\"\nvllm serve \"$MODEL\" --port \"$PORT\" &\n"
    )
    path = tmp_path / "recipe.sh"
    path.write_text(text)
    counted = CountingAnalyzer()
    result = lint([path], analyzer=counted, options=Options(use_configs=False, jobs=1))
    _within_limits(counted, result)
