"""The terminal formats people read: the severity in each finding's headline, colour (--color,
NO_COLOR, FORCE_COLOR), the summary line, the rule's documentation link and sweep points grouped."""

from __future__ import annotations

import io
import re

import pytest
from helpers import FIXTURES
from typer.testing import CliRunner

from recipelint.bash.source import Span
from recipelint.cli import app
from recipelint.lint.findings import Finding
from recipelint.report import common
from recipelint.report.concise import render_concise
from recipelint.report.full import render_full
from recipelint.report.points import compact_points
from recipelint.report.style import use_color

runner = CliRunner()
SEED = FIXTURES / "seed"
ANSI = re.compile(r"\x1b\[[0-9;]*m")


def _finding(code="RL201", severity="error", points=(), path="r.sh"):
    return Finding(
        code, "agentic-without-tool-calling", severity, "no `--tool-call-parser`", Span(path, 3, 2, 3, 9), list(points)
    )


# -- the headline: one convention in full and concise ------------------------------------------


def test_headline_is_rustc_style_in_concise_and_full():
    f = _finding()
    want = "r.sh:3:2: error[RL201] agentic-without-tool-calling: no `--tool-call-parser`"
    assert common.concise_line(f) == want
    assert render_concise([f]) == want + "\n"
    assert render_full([f]).split("\n")[0] == want
    assert common.concise_line(_finding(severity="info")).startswith("r.sh:3:2: info[RL201] ")


def test_concise_has_the_summary_line():
    fs = [_finding(), _finding("RL101", "warning"), _finding("RL603", "info"), _finding("RL604", "info")]
    out = render_concise(fs, files=2).splitlines()
    assert out[-1] == "Found 4 findings (1 error, 1 warning, 2 info) in 2 files."  # errors first, "info" uncounted
    assert render_concise([], files=1) == "All checks passed (1 file).\n"
    assert render_full([], files=3) == "All checks passed (3 files).\n"
    assert render_concise(fs) == "".join(common.concise_line(f) + "\n" for f in fs)  # no file count: no summary


# -- documentation links ---------------------------------------------------------------------


def test_help_link_only_when_a_base_is_known(monkeypatch):
    monkeypatch.setattr(common, "docs_url", lambda: None)
    assert common.rule_url("RL201") is None
    assert "help:" not in render_full([_finding()])
    monkeypatch.setattr(common, "docs_url", lambda: "https://github.com/o/recipelint/")
    assert common.rule_url("RL201") == "https://github.com/o/recipelint/blob/main/docs/rules/RL201.md"
    lines = render_full([_finding(points=["p1"])]).rstrip("\n").splitlines()
    assert lines[-1] == "  = help: https://github.com/o/recipelint/blob/main/docs/rules/RL201.md"
    assert lines[-2].startswith("  = sweep points: ")  # after points and notes
    monkeypatch.setattr(common, "docs_url", lambda: "https://example.org/x/docs/rules")
    assert common.rule_url("RL101") == "https://example.org/x/docs/rules/RL101.md"
    assert "help:" not in render_concise([_finding()], files=1)  # concise stays one line a finding


# -- sweep points, grouped -------------------------------------------------------------------


def _cfg(line, tag, *concs, name="nvidia-master.yaml"):
    return [f"{name}:{line}:{tag}-conc{c}" for c in concs]


def test_points_single_point():
    assert compact_points(_cfg(943, "tp8-ep1-dpafalse", 4)) == ["nvidia-master.yaml:943 tp8-ep1-dpafalse conc 4"]


def test_points_few_are_listed_many_are_a_span_with_a_count():
    assert compact_points(_cfg(943, "tp8-ep1-dpafalse", 1, 2, 4)) == ["nvidia-master.yaml:943 tp8-ep1-dpafalse conc 1,2,4"]
    many = _cfg(943, "tp8-ep1-dpafalse", 1, 2, 4, 8, 16, 32, 64, 128)
    assert compact_points(many) == ["nvidia-master.yaml:943 tp8-ep1-dpafalse conc 1..128 (8 points)"]


def test_points_non_contiguous_values_are_sorted_and_counted():
    # a finding that holds at some concurrencies of an item only: the values listed, in order
    assert compact_points(_cfg(9, "tp4-ep1-dpafalse", 64, 4, 512)) == ["nvidia-master.yaml:9 tp4-ep1-dpafalse conc 4,64,512"]
    got = compact_points(_cfg(9, "tp4-ep1-dpafalse", 8, 16, 24, 32, 40, 48, 56, 64, 68, 72, 16))
    assert got == ["nvidia-master.yaml:9 tp4-ep1-dpafalse conc 8..72 (10 points)"]  # a repeated label counted once


def test_points_mixed_configs_and_items_keep_their_order():
    labels = [
        *_cfg(18, "tp8-ep8-dpatrue-vllm-simple", 8, 16),
        *_cfg(16, "tp8-ep1-dpafalse-vllm-simple", 8, 12, 16),
        *_cfg(5, "1k1k-tp8-ep1-dpafalse", 64, name="amd-master.yaml"),
        *_cfg(18, "tp8-ep8-dpatrue-vllm-simple", 24),
    ]
    assert compact_points(labels) == [
        "nvidia-master.yaml:18 tp8-ep8-dpatrue-vllm-simple conc 8,16,24",
        "nvidia-master.yaml:16 tp8-ep1-dpafalse-vllm-simple conc 8,12,16",
        "amd-master.yaml:5 1k1k-tp8-ep1-dpafalse conc 64",
    ]


def test_points_of_the_default_matrix_are_labelled_so():
    from recipelint.sweep.points import default_points

    labels = [
        p.label for p in default_points("benchmarks/single_node/agentic/x_vllm.sh", "require_agentic_kv_offload_backend native")
    ]
    assert compact_points(labels) == [
        "default matrix: tp8-ep1-dpafalse conc 32,64",
        "default matrix: tp8-ep8-dpatrue conc 64,512",
        "default matrix: tp4-ep1-dpafalse conc 4",
        "default matrix: tp1-ep1-dpafalse conc 1",
        "default matrix: tp8-ep1-dpafalse-native conc 64",
        "default matrix: tp8-ep8-dpatrue-native conc 64",
    ]


def test_points_of_workflows_and_unknown_shapes():
    assert compact_points(["speedbench:12:p=x", "speedbench:12:p=y"]) == ["speedbench:12 p=x,y"]
    assert compact_points(["TP=4 CONC=8", "default"]) == ["TP=4 CONC=8, default"]
    assert compact_points([f"p{i}" for i in range(9)]) == ["p0, p1, p2, p3, p4, p5, … (9 in all)"]


def test_full_format_aligns_groups_and_counts_the_rest():
    f = _finding(points=[*_cfg(16, "tp8-ep1-dpafalse", 8, 12), *_cfg(18, "tp8-ep8-dpatrue", 8)])
    lines = render_full([f]).splitlines()
    i = next(i for i, ln in enumerate(lines) if "sweep points:" in ln)
    assert lines[i] == "  = sweep points: nvidia-master.yaml:16 tp8-ep1-dpafalse conc 8,12"
    assert lines[i + 1] == "                  nvidia-master.yaml:18 tp8-ep8-dpatrue conc 8"
    f = _finding(points=[lb for n in range(1, 12) for lb in _cfg(n, "tp8-ep1-dpafalse", 8, 16)])
    shown = [ln.strip() for ln in render_full([f]).splitlines() if "nvidia-master.yaml" in ln or "more groups" in ln]
    assert len(shown) == 8 and shown[-1] == "… and 4 more groups (22 points in all)"


def test_labels_are_unchanged_in_json(monkeypatch, tmp_path):
    # compaction is presentation: the JSON output keeps every label as it was
    import json

    monkeypatch.chdir(SEED)
    r = runner.invoke(app, ["check", "benchmarks", "-o", "json", "--select", "RL101"])
    assert json.loads(r.output)[0]["points"][:2] == [
        "nvidia-master.yaml:18:tp8-ep8-dpatrue-vllm-simple-conc8",
        "nvidia-master.yaml:18:tp8-ep8-dpatrue-vllm-simple-conc16",
    ]


# -- colour ----------------------------------------------------------------------------------


class _Stream(io.StringIO):
    def __init__(self, tty: bool):
        super().__init__()
        self.tty = tty

    def isatty(self) -> bool:
        return self.tty


@pytest.mark.parametrize(
    "mode,tty,to_file,env,want",
    [
        ("auto", True, False, {}, True),
        ("auto", False, False, {}, False),
        ("auto", True, True, {}, False),  # --output-file: never in auto
        ("auto", True, False, {"NO_COLOR": "1"}, False),
        ("auto", True, False, {"NO_COLOR": ""}, True),  # empty: not set
        ("auto", False, False, {"FORCE_COLOR": "1"}, True),
        ("auto", False, False, {"FORCE_COLOR": ""}, False),
        ("auto", False, False, {"FORCE_COLOR": "1", "NO_COLOR": "1"}, False),  # NO_COLOR first
        ("auto", True, True, {"FORCE_COLOR": "1"}, False),
        ("always", False, True, {"NO_COLOR": "1"}, True),  # the flag overrides the environment
        ("never", True, False, {"FORCE_COLOR": "1"}, False),
    ],
)
def test_use_color(mode, tty, to_file, env, want):
    assert use_color(mode, _Stream(tty), to_file=to_file, environ=env) is want


def _seed_check(monkeypatch, *args, env=None):
    monkeypatch.chdir(SEED)
    for k, v in (env or {}).items():
        monkeypatch.setenv(k, v)
    return runner.invoke(app, ["check", "benchmarks", *args])


@pytest.mark.parametrize("fmt", ["full", "concise"])
def test_color_always_colours_and_is_the_plain_text_with_styles(monkeypatch, fmt):
    r = _seed_check(monkeypatch, "-o", fmt, "--color", "always", env={"NO_COLOR": "1", "TERM": "dumb"})
    assert r.exit_code == 1
    assert "info[RL401]" in r.output and "\x1b[1;33mwarning[RL101]\x1b[0m" in r.output
    assert ANSI.sub("", r.output) == (SEED / f"expected.{fmt}.txt").read_text()


@pytest.mark.parametrize(
    "args,env,coloured",
    [
        (["--color", "never"], {"FORCE_COLOR": "1"}, False),
        ([], {}, False),  # auto, and the test's stdout is no terminal
        ([], {"FORCE_COLOR": "1"}, True),
        ([], {"FORCE_COLOR": "1", "NO_COLOR": "1"}, False),
        (["--color", "auto"], {"NO_COLOR": "x"}, False),
    ],
)
@pytest.mark.parametrize("fmt", ["full", "concise"])
def test_color_modes_and_environment(monkeypatch, fmt, args, env, coloured):
    r = _seed_check(monkeypatch, "-o", fmt, *args, env=env)
    assert r.exit_code == 1
    assert ("\x1b[" in r.output) is coloured
    assert ANSI.sub("", r.output) == (SEED / f"expected.{fmt}.txt").read_text()


@pytest.mark.parametrize("fmt", ["json", "json-lines", "github", "sarif"])
def test_machine_formats_are_never_coloured(monkeypatch, fmt):
    r = _seed_check(monkeypatch, "-o", fmt, "--color", "always", env={"FORCE_COLOR": "1"})
    assert r.exit_code == 1 and r.output and "\x1b" not in r.output


def test_output_file_is_not_coloured_in_auto(monkeypatch, tmp_path):
    out = tmp_path / "report.txt"
    r = _seed_check(monkeypatch, "--output-file", str(out), env={"FORCE_COLOR": "1"})
    assert r.exit_code == 1 and r.output == ""
    assert out.read_text() == (SEED / "expected.full.txt").read_text()
    r = _seed_check(monkeypatch, "--output-file", str(out), "--color", "always")
    assert "\x1b[" in out.read_text()


def test_bad_color_value_is_a_one_line_error(monkeypatch):
    r = _seed_check(monkeypatch, "--color", "sometimes")
    assert r.exit_code == 2
    assert r.output == "recipelint: --color must be one of auto, always, never, got 'sometimes'\n"
    r = runner.invoke(app, ["render", str(FIXTURES / "render" / "array_vllm.sh"), "--color", "yes"])
    assert r.exit_code == 2 and r.output.count("\n") == 1


def test_render_colours_when_asked():
    script = str(FIXTURES / "render" / "array_vllm.sh")
    env = ["--env", "MODEL=org/M", "--env", "TP=8"]
    plain = runner.invoke(app, ["render", script, *env, "--color", "never"], env={"FORCE_COLOR": "1"})
    coloured = runner.invoke(app, ["render", script, *env, "--color", "always"], env={"NO_COLOR": "1"})
    assert plain.exit_code == coloured.exit_code == 0
    assert "\x1b[" not in plain.output and "\x1b[1m" in coloured.output
    assert ANSI.sub("", coloured.output) == plain.output
