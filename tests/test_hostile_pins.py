"""Engine pins read from an untrusted repository (issue 34 item 4): only a few named files of a
few folders, each through recipelint.files (confined, regular, bounded); what is not read is
said (``--show-settings``), and every run ends — a pin file that is a FIFO, a device link, a link
out of the project, huge, binary, or one of thousands never hangs, crashes or leaks.

Runs go through a subprocess (a timeout, a memory cap)."""

from __future__ import annotations

import os
import resource
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import HANG_S

BIN = Path(sys.executable).parent / "recipelint"
SERVE = "#!/usr/bin/env bash\nvllm serve org/m --max-seq-len-to-capture 8192\n"


def _limits():
    resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))


def run(*args, cwd: Path) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("RECIPELINT_", "FORCE_COLOR"))}
    env.update({"NO_COLOR": "1", "RECIPELINT_CACHE_DIR": str(cwd.parent / "cache")})
    r = subprocess.run(
        [str(BIN), *map(str, args)], cwd=cwd, env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True,
        timeout=HANG_S, preexec_fn=_limits,  # (a hang guard only)
    )  # fmt: skip
    assert "Traceback" not in r.stderr, r.stderr
    return r


@pytest.fixture
def repo(tmp_path) -> Path:
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    (root / "serve.sh").write_text(SERVE)
    return root


def _ends_unpinned(root: Path) -> subprocess.CompletedProcess:
    """The check ends, judging against every release (the pin was not used)."""
    r = run("check", ".", "-o", "concise", cwd=root)
    assert r.returncode in (0, 1), r.stderr
    assert "info[RL601]" in r.stdout and "no image, no pin" in r.stdout, r.stdout
    return r


def _settings(root: Path) -> str:
    r = run("check", ".", "--show-settings", cwd=root)
    assert r.returncode == 0, r.stderr
    return r.stdout


def test_fifo_requirements_is_not_opened(repo):
    os.mkfifo(repo / "requirements.txt")  # (opening it for reading would block forever)
    _ends_unpinned(repo)
    assert "requirements.txt: not read for engine pins (not a regular file" in _settings(repo)


def test_link_to_a_device_is_not_read(repo):
    (repo / "requirements.txt").symlink_to("/dev/zero")
    _ends_unpinned(repo)
    assert "not read for engine pins (under /dev" in _settings(repo)


def test_link_out_of_the_project_is_not_read(repo, tmp_path):
    outside = tmp_path / "elsewhere.txt"
    outside.write_text("vllm==0.11.0\n")
    (repo / "requirements.txt").symlink_to(outside)
    _ends_unpinned(repo)
    out = _settings(repo)
    assert "requirements.txt: not read for engine pins" in out and "vLLM 0.11.0" not in out


def test_a_huge_pin_file_is_refused_unread(repo):
    with open(repo / "requirements.txt", "wb") as f:
        f.write(b"vllm==0.11.0\n")
        f.truncate(1 << 30)  # (sparse: 1 GiB of zeros after the pin)
    _ends_unpinned(repo)
    assert "requirements.txt: not read for engine pins" in _settings(repo)


def test_binary_and_broken_files_are_notes(repo):
    (repo / "requirements.txt").write_bytes(b"vllm==0.11.0\n\xff\xfe\x00garbage\n")
    (repo / "pyproject.toml").write_text('[project\ndependencies = ["vllm==0.11.0"]\n')
    (repo / "Dockerfile").write_text("FROM " + "a" * 100_000 + "\nFROM vllm/vllm-openai:\n")
    _ends_unpinned(repo)
    out = _settings(repo)
    assert "requirements.txt: not read for engine pins (not valid UTF-8" in out
    assert "pyproject.toml: not valid TOML: not read for engine pins" in out


def test_a_directory_named_like_a_pin_file(repo):
    (repo / "requirements.txt").mkdir()
    (repo / "Dockerfile").mkdir()
    _ends_unpinned(repo)


def test_thousands_of_pin_files_are_bounded(repo):
    for i in range(3000):
        (repo / f"requirements-{i:04d}.txt").write_text("vllm==0.11.0\n" if i % 2 else "vllm==0.10.0\n")
    r = run("check", ".", "-o", "concise", cwd=repo)
    assert r.returncode in (0, 1)
    out = _settings(repo)
    assert "pin files: only the first 16 read" in out
    assert out.count("`vllm==") <= 16 + 2
