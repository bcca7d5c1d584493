"""The benchmark tools measure the work a real run does."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

from helpers import FIXTURES, ROOT

from recipelint.lint.check import Options, lint

sys.path.insert(0, str(ROOT / "bench"))
import floor


def test_the_floor_tool_evaluates_the_sweep_points_a_check_does(tmp_path, monkeypatch):
    root = tmp_path / "repo"
    shutil.copytree(FIXTURES / "rules" / "RL5xx", root)
    times, points = floor._phases(root)
    assert set(times) == {"configs", "parse", "first", "later", "rules"} and min(times.values()) >= 0
    monkeypatch.chdir(root)
    res = lint([Path("benchmarks"), Path("configs")], options=Options(jobs=1))
    assert points == sum(len(f.points) for f in res.files) > len(res.files)
