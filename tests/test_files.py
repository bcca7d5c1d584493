"""recipelint.files: the one reader of untrusted files (regular files only, bounded, confined)."""

from __future__ import annotations

import os

import pytest

from recipelint.files import Refused, confine, read_regular


def test_reads_a_regular_file_within_the_limit(tmp_path):
    f = tmp_path / "a.sh"
    f.write_bytes(b"echo hi\n")
    assert read_regular(f, 100) == b"echo hi\n"
    with pytest.raises(Refused) as e:
        read_regular(f, 4)
    assert e.value.kind == "too-large" and "over the 4-byte limit" in str(e.value)


def test_a_fifo_is_refused_without_blocking(tmp_path, monkeypatch):
    # a FIFO without a writer blocks a plain open forever: the spy refuses any open of it that
    # could block (without O_NONBLOCK) instead of waiting, so the test fails rather than hangs
    fifo = tmp_path / "f.sh"
    os.mkfifo(fifo)
    real, opened = os.open, []

    def spy(path, flags, *args, **kwargs):
        if os.fspath(path) == os.fspath(fifo):
            opened.append(flags)
            assert flags & os.O_NONBLOCK, "the FIFO was opened in blocking mode"
        return real(path, flags, *args, **kwargs)

    monkeypatch.setattr(os, "open", spy)
    with pytest.raises(Refused) as e:
        read_regular(fifo, 1 << 20)
    assert e.value.kind == "special"
    assert opened == []  # (refused on its type before it is opened at all)


def test_a_link_to_a_device_is_refused(tmp_path):
    link = tmp_path / "zero.yaml"
    link.symlink_to("/dev/zero")
    with pytest.raises(Refused) as e:
        read_regular(link, 1 << 20)
    assert e.value.kind == "special"
    with pytest.raises(Refused) as e:
        confine(link, [tmp_path])
    assert e.value.kind == "system"


def test_missing_and_directory(tmp_path):
    with pytest.raises(Refused) as e:
        read_regular(tmp_path / "nope", 10)
    assert e.value.kind == "missing"
    with pytest.raises(Refused) as e:
        read_regular(tmp_path, 10)
    assert e.value.kind == "special" and "directory" in str(e.value)


def test_confine_resolves_links_and_refuses_what_leaves_the_roots(tmp_path):
    root = tmp_path / "repo"
    (root / "lib").mkdir(parents=True)
    inside = root / "lib" / "a.sh"
    inside.write_text("x=1\n")
    assert confine(root / "lib" / ".." / "lib" / "a.sh", [root]) == inside.resolve()
    outside = tmp_path / "secret.env"
    outside.write_text("TOKEN=1\n")
    (root / "link.sh").symlink_to(outside)
    for p in (root / "link.sh", root / ".." / "secret.env", "/proc/self/environ", "/etc/passwd"):
        with pytest.raises(Refused) as e:
            confine(p, [root])
        assert e.value.kind in ("outside", "system"), p
    with pytest.raises(Refused):
        confine("/proc/self/environ", ["/"])


@pytest.mark.parametrize(
    ("head", "interpreter"),
    [
        (b"#!/bin/bash\nvllm serve m\n", "bash"),
        (b"#!/usr/bin/env bash\n", "bash"),
        (b"#!/usr/bin/env -S bash -euo pipefail\n", "bash"),
        (b"#! /bin/sh -e\n", "sh"),
        (b"#!/usr/bin/env VAR=1 bash\n", "bash"),
        (b"#!/usr/bin/python3\n", "python3"),
        (b"#!/usr/bin/env\n", None),
        (b"#!\n", None),
        (b"vllm serve m\n", None),  # no `#!` line
        (b"", None),
    ],
)
def test_shebang_interpreter(head, interpreter):
    from recipelint.files import shebang_interpreter

    assert shebang_interpreter(head) == interpreter


def test_the_walk_takes_extensionless_scripts_by_their_shebang(tmp_path):
    """A directory walk takes `*.sh`, `*.bash`, Slurm job files and files with no suffix whose
    first line runs bash or sh; not other interpreters' scripts, not a Dockerfile, not a link
    (its target is not read to decide), not a FIFO (never opened)."""
    from recipelint.lint.check import collect

    (tmp_path / "serve").write_bytes(b"#!/usr/bin/env bash\nvllm serve m\n")
    (tmp_path / "run_node").write_bytes(b"#!/bin/sh\nexec vllm serve m\n")
    (tmp_path / "start.bash").write_bytes(b"vllm serve m\n")
    (tmp_path / "job.sbatch").write_bytes(b"#!/bin/bash\n#SBATCH -N 1\n")
    (tmp_path / "tool").write_bytes(b"#!/usr/bin/env python3\nprint('vllm serve')\n")
    (tmp_path / "Dockerfile").write_bytes(b"FROM vllm/vllm-openai\nCMD vllm serve m\n")
    (tmp_path / "notes.txt").write_bytes(b"#!/bin/bash\n")
    (tmp_path / "linked").symlink_to(tmp_path / "serve")
    os.mkfifo(tmp_path / "pipe")
    got = sorted(p.name for p, _ in collect([tmp_path]))
    assert got == ["job.sbatch", "run_node", "serve", "start.bash"]


def test_the_walk_leaves_virtual_environments_and_pip_launchers_out(tmp_path):
    """A committed virtual environment under any name (it holds `pyvenv.cfg`) is not walked; pip's
    console scripts (`#!/bin/sh` then `'''exec' python "$0" "$@"`) are Python, not recipes."""
    from recipelint.lint.check import collect

    launcher = b"#!/bin/sh\n'''exec' \"$(dirname -- \"$(realpath -- \"$0\")\")\"/python3.11 \"$0\" \"$@\"\n' '''\nimport sys\n"
    venv = tmp_path / ".venv311"
    (venv / "bin").mkdir(parents=True)
    (venv / "pyvenv.cfg").write_text("home = /usr/bin\n")
    (venv / "bin" / "activate.sh").write_bytes(b"export VIRTUAL_ENV=x\n")
    (tmp_path / "tools").mkdir()
    (tmp_path / "tools" / "flask").write_bytes(launcher)
    (tmp_path / "tools" / "serve").write_bytes(b"#!/bin/sh\nexec vllm serve m\n")
    got = sorted(p.relative_to(tmp_path).as_posix() for p, _ in collect([tmp_path]))
    assert got == ["tools/serve"]
