"""recipelint lints itself: ruff (lint and format) and mypy, with the settings in pyproject.toml."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SOURCES = ["recipelint", "rules", "tests", "tools", "bench"]


def _tool(name: str) -> str:
    exe = Path(sys.executable).parent / name
    found = str(exe) if exe.exists() else shutil.which(name)
    if found is None:
        pytest.skip(f"{name} is not installed (pip install -e '.[dev]')")
    return found


@pytest.mark.parametrize("args", [["check", "--no-cache"], ["format", "--check", "--no-cache"]], ids=["lint", "format"])
def test_ruff(args):
    run = subprocess.run([_tool("ruff"), *args, *SOURCES], cwd=ROOT, capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr


def test_mypy():
    run = subprocess.run(
        [_tool("mypy"), "--no-incremental", "--cache-dir", "/dev/null"], cwd=ROOT, capture_output=True, text=True
    )
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]
