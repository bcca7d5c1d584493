"""recipelint.stack: deep recursion in one frame-stack chunk (counted in page faults, not timed)."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from recipelint.stack import RESERVE_SLOTS, _call, roomy

# recursion that oscillates a few frames deep, started from 300 different depths: wherever a
# 16 KiB chunk starts inside the oscillation, each call maps a chunk and each return unmaps it
_PROBE = textwrap.dedent(
    """
    import resource, sys
    from recipelint.stack import roomy

    def f(n):
        return 0 if n == 0 else f(n - 1) + 1

    def at(d):
        if d:
            return at(d - 1)
        return sum(f(1 + i % 5) for i in range(500))

    def work():
        return sum(at(d) for d in range(300))

    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    total = roomy(work) if sys.argv[1] == "roomy" else work()
    print(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before, total)
    """
)


def _faults(mode: str) -> tuple[int, int]:
    out = subprocess.run([sys.executable, "-c", _PROBE, mode], capture_output=True, text=True, check=True).stdout
    faults, total = out.split()
    return int(faults), int(total)


def test_roomy_keeps_oscillating_recursion_in_one_chunk():
    plain, total = _faults("plain")
    if plain < 2_000:  # (a Python that does not map its frames in small chunks: nothing to win)
        pytest.skip(f"this Python faulted {plain} pages without the reserve")
    roomy_faults, same_total = _faults("roomy")
    assert same_total == total
    assert roomy_faults * 10 < plain, (roomy_faults, plain)


def test_roomy_is_a_plain_call():
    def fn(a, b=0, *, c):
        if c == "raise":
            raise ValueError(a)
        return a + b

    assert roomy(fn, 1, b=2, c=None) == 3
    with pytest.raises(ValueError):
        roomy(fn, 1, c="raise")
    assert _call.__code__.co_stacksize >= RESERVE_SLOTS
