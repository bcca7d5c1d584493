"""RL006 names the real stops (issue 47): one stop for every path, or each of several with its
count, and an info — not a defect — when the stops hang on arguments no sweep point gives."""

from __future__ import annotations

import json

from helpers import FIXTURES
from typer.testing import CliRunner

from recipelint.cli import app

runner = CliRunner()
RL006 = FIXTURES / "rules" / "RL006"


def _rl006(path) -> list[dict]:
    res = runner.invoke(app, ["check", str(path), "--no-cache", "-o", "json"])
    assert res.exit_code in (0, 1), res.output
    return [f for f in json.loads(res.stdout) if f["code"] == "RL006"]


def test_stops_on_unknown_arguments_are_each_named_as_an_info():
    (f,) = _rl006(RL006 / "argument_stops.sh")
    assert f["severity"] == "info"
    assert "every path stops first, at 5 places: `exit 2` (line 8, 1 path)" in f["message"]
    assert "args = [" in f["message"]  # the fix: the settings' environments


def test_one_stop_for_every_path_is_a_warning_naming_it(tmp_path):
    p = tmp_path / "disabled.sh"
    p.write_text('#!/usr/bin/env bash\necho "this recipe is disabled"\nexit 1\nvllm serve org/m --tensor-parallel-size 8\n')
    (f,) = _rl006(p)
    assert f["severity"] == "warning"
    assert "every path stops first: `exit 1` (line 3)" in f["message"]
    assert "args = [" not in f["message"]  # (no argument is read: nothing to give)
