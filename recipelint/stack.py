"""Room on Python's frame stack, so that deep recursion does not map and unmap memory per call.

CPython (3.11 to 3.13 at least) keeps the frames of Python calls in chunks of 16 KiB it maps
from the system; a chunk is unmapped as soon as the frame at its start returns.  The evaluator
recurses a few hundred frames deep and back, thousands of times per recipe: wherever that
oscillation crosses a chunk's start, every call there maps a chunk and every return unmaps it.
Where the boundary falls depends on how deep the run starts — in a forked worker it fell worse
than in the main process.  Measured on InferenceX 843c6254f (`check . --no-cache`, 2 cores):
39,000 mmap/munmap pairs with one process, 189,000 with two workers; 0.3 s and 0.9 s of CPU.

``roomy(fn, ...)`` calls ``fn`` from a frame that declares a value stack of 128 Ki slots: CPython
maps a 2 MiB chunk for it, of which ~1 MiB is left for the frames called from it — room for
several thousand frames, so the run's recursion stays in that one chunk.  The reserve is
address space: only the pages the frames use are touched.  Deeper recursion than the reserve
holds goes on in 16 KiB chunks as before; a Python whose frames are kept otherwise loses
nothing but the reserve.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")

#: value-stack slots the calling frame declares (8 bytes each): 1 MiB, in a 2 MiB chunk
RESERVE_SLOTS = 1 << 17


def _call(fn, args, kwargs):
    return fn(*args, **kwargs)


try:
    _call.__code__ = _call.__code__.replace(co_stacksize=_call.__code__.co_stacksize + RESERVE_SLOTS)
except (AttributeError, TypeError, ValueError):  # (another Python: a plain call)
    pass


def roomy(fn: Callable[..., T], *args, **kwargs) -> T:
    """``fn(*args, **kwargs)``, its recursion inside one large frame-stack chunk."""
    return _call(fn, args, kwargs)
