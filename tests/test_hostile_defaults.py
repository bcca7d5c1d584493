"""Hostile values in the flags the engine defaults depend on (recipelint.lint.effective): a
recipe's numbers and words reach `int()`/`float()` only bounded, and whatever it passes gives
findings or none — never a traceback."""

from __future__ import annotations

import resource
import subprocess
import sys
from pathlib import Path

from helpers import HANG_S

CONFIG = """\
big-fp8-b200-vllm:
  image: vllm/vllm-openai:v0.25.1
  model: org/M
  model-prefix: big
  runner: b200
  precision: fp8
  framework: vllm
  multinode: false
  scenarios:
    fixed-seq-len:
    - isl: 1024
      osl: 1024
      search-space:
      - { tp: 8, conc-list: [2048] }
"""

HUGE = "9" * 5000  # int() refuses strings of more than 4300 digits (ValueError)


def _repo(tmp_path: Path, flags: str) -> Path:
    (tmp_path / ".git").mkdir()
    (tmp_path / "configs").mkdir()
    (tmp_path / "configs" / "nvidia-master.yaml").write_text(CONFIG)
    d = tmp_path / "benchmarks" / "single_node" / "fixed_seq_len"
    d.mkdir(parents=True)
    (d / "big_fp8_b200_vllm.sh").write_text(f'#!/usr/bin/env bash\nvllm serve org/M --tensor-parallel-size "$TP" {flags} &\n')
    return tmp_path


def _limit():
    resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))


def _run(root: Path) -> subprocess.CompletedProcess:
    exe = Path(sys.executable).with_name("recipelint")
    return subprocess.run(
        [str(exe), "check", "benchmarks", "configs", "-o", "full", "--color", "never", "--no-cache", "--select", "RL504,RL401"],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=HANG_S,  # (a hang guard only: each run takes ~1 s here)
        preexec_fn=_limit,
    )


def test_a_huge_batched_token_cap_is_not_judged(tmp_path):
    r = _run(_repo(tmp_path, f"--max-num-batched-tokens {HUGE} --pipeline-parallel-size {HUGE}"))
    assert "Traceback" not in r.stderr and r.returncode in (0, 1), r.stderr
    assert "RL504" not in r.stdout  # the cap it would set is not known: no claim


def test_huge_and_odd_values_in_the_default_modifiers(tmp_path):
    flags = (
        f"--all2all-backend deepep_low_latency --enable-expert-parallel --data-parallel-size {HUGE} --performance-mode $'\\x01'"
    )
    r = _run(_repo(tmp_path, flags))
    assert "Traceback" not in r.stderr and r.returncode in (0, 1), r.stderr


def test_the_same_repository_without_the_bad_values_is_judged(tmp_path):
    """The control: the launch alone gets the default cap (so the tests above are about the values)."""
    r = _run(_repo(tmp_path, ""))
    assert r.returncode == 1 and "vLLM 0.25.1 defaults it to 1024" in r.stdout, r.stdout + r.stderr
