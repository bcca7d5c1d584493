"""The terminal formats people read: the severity in each finding's headline, colour (--color,
NO_COLOR, FORCE_COLOR), the summary line and the rule's documentation link."""

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
    assert "\x1b[1;31merror[RL301]\x1b[0m" in r.output and "\x1b[1;33mwarning[RL101]\x1b[0m" in r.output
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
