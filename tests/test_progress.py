"""The progress line on stderr (``checked 120/243 files``): only on a terminal, only after ~2 s,
erased at the end; and the driver's progress callback, per file and per chunk of files."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from helpers import FIXTURES
from typer.testing import CliRunner

from recipelint.cli import app
from recipelint.report.progress import Progress

runner = CliRunner()
SEED = FIXTURES / "seed"


class _Stream(io.StringIO):
    def __init__(self, tty: bool):
        super().__init__()
        self.tty = tty

    def isatty(self) -> bool:
        return self.tty


class _Clock:
    def __init__(self):
        self.t = 0.0

    def __call__(self) -> float:
        return self.t


def test_progress_on_a_terminal_after_the_delay_and_cleared():
    err, clock = _Stream(True), _Clock()
    p = Progress(err, delay=2.0, interval=0.1, clock=clock)
    p(1, 10)
    assert err.getvalue() == ""  # a quick run never shows it
    clock.t = 2.5
    p(2, 10)
    assert err.getvalue() == "\rchecked 2/10 files"
    clock.t = 2.55
    p(3, 10)  # within the interval: not rewritten
    assert err.getvalue() == "\rchecked 2/10 files"
    clock.t = 2.7
    p(10, 10)
    assert err.getvalue().endswith("\rchecked 10/10 files")
    p.close()
    assert err.getvalue().endswith("\r" + " " * len("checked 10/10 files") + "\r")
    n = len(err.getvalue())
    p.close()
    assert len(err.getvalue()) == n  # once


def test_progress_is_cleared_when_the_run_fails():
    err, clock = _Stream(True), _Clock()
    clock.t = 0.0
    with pytest.raises(KeyboardInterrupt), Progress(err, clock=clock) as p:
        clock.t = 5.0
        p(1, 3)
        raise KeyboardInterrupt
    assert err.getvalue() == "\rchecked 1/3 files\r" + " " * len("checked 1/3 files") + "\r"


def test_no_progress_off_a_terminal():
    err, clock = _Stream(False), _Clock()
    p = Progress(err, clock=clock)
    clock.t = 100.0
    p(5, 10)
    p.close()
    assert err.getvalue() == ""


def _recipes(tmp_path: Path, n: int) -> Path:
    d = tmp_path / "bench"
    d.mkdir()
    for i in range(n):
        (d / f"r{i:02d}_vllm.sh").write_text(f"vllm serve org/m --max-num-seqs {i + 1} --max-num-seqs 2\n")
    return d


def test_lint_reports_progress_per_file(tmp_path):
    from recipelint.lint.check import Options, lint

    calls = []
    res = lint([_recipes(tmp_path, 5)], options=Options(jobs=1, use_configs=False, progress=lambda d, t: calls.append((d, t))))
    assert calls == [(1, 5), (2, 5), (3, 5), (4, 5), (5, 5)]
    assert {f.code for f in res.findings} == {"RL604"}


def test_lint_reports_progress_per_chunk_with_workers(tmp_path, monkeypatch):
    import os

    from recipelint.lint import check

    if not hasattr(os, "fork") or len(os.sched_getaffinity(0)) < 2:
        pytest.skip("no fork or one CPU: no workers")
    monkeypatch.setattr(check, "PARALLEL_MIN_FILES", 1)
    d = _recipes(tmp_path, 24)
    calls = []
    par = check.lint([d], options=check.Options(jobs=2, use_configs=False, progress=lambda a, b: calls.append((a, b))))
    one = check.lint([d], options=check.Options(jobs=1, use_configs=False))
    # called in the parent (a worker's calls would not reach this list), with growing counts
    assert calls and calls[-1] == (24, 24) and all(t == 24 for _, t in calls)
    assert [a for a, _ in calls] == sorted({a for a, _ in calls})
    assert [f.to_dict() for f in par.findings] == [f.to_dict() for f in one.findings]


def test_check_output_has_no_progress_off_a_terminal(monkeypatch):
    # the test runner's stderr is no terminal: the captured output is the golden file, nothing else
    monkeypatch.chdir(SEED)
    r = runner.invoke(app, ["check", "benchmarks", "-o", "concise"])
    assert "checked" not in r.output and r.output == (SEED / "expected.concise.txt").read_text()


def test_diff_modes_progress_says_which_tree_it_counts():
    """Diff mode runs twice (the work tree, the base): each progress line says which (issue 48)."""
    err = _Stream(True)
    p = Progress(err, delay=0, interval=0, clock=_Clock())
    p(3, 10, "base tree, 1a2b3c4d5e6f")
    assert err.getvalue() == "\rchecked 3/10 files (base tree, 1a2b3c4d5e6f)"


def test_diff_mode_passes_each_tree_to_the_progress(tmp_path, monkeypatch):
    """The two runs of `--diff-base` call the progress with their tree's name."""
    import subprocess

    from recipelint.lint.check import Options, lint

    repo = tmp_path / "r"
    (repo / "b").mkdir(parents=True)
    (repo / "b" / "x.sh").write_text("#!/usr/bin/env bash\nvllm serve org/m --tensor-parallel-size 8 &\n")
    env = {
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@t",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@t",
        "PATH": "/usr/bin:/bin",
    }
    for args in (["init", "-q"], ["add", "."], ["commit", "-qm", "a"]):
        subprocess.run(["git", *args], cwd=repo, check=True, env=env)
    (repo / "b" / "x.sh").write_text("#!/usr/bin/env bash\nvllm serve org/m --tensor-parallel-size 4 &\n")
    seen: list = []
    monkeypatch.chdir(repo)
    lint([repo / "b"], options=Options(diff_base="HEAD", cache=False, progress=lambda d, t, w=None: seen.append(w)))
    assert "work tree" in seen and any(w and w.startswith("base tree") for w in seen), seen
