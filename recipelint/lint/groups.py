"""Master-config entries a rule says in one finding ("N files of M entries"): what such entries
share.  A diff's scope (``lint.scope``) that compares one entry of a group compares all of them,
so that the finding is the one the whole tree gives.

A rule that says entries together takes its grouping from here — one definition for the rule
and the scope — and is listed in ``SAID_TOGETHER``.  This module imports nothing: the scope
asks it on every diff whose master configs changed, also when the run's results come from the
cache and no rule is loaded (``tools/diff_scope_equivalence.py`` finds a rule that aggregates
entries and is not listed: its scoped and whole-tree diffs differ)."""

from __future__ import annotations

from collections.abc import Callable, Hashable


def trtllm_engine_files(entry) -> Hashable | None:
    """RL609: every multi-node TensorRT-LLM entry that names engine configuration files."""
    return "trtllm" if entry.multinode and "trt" in entry.framework and entry.engine_files else None


def unlocated(entry) -> Hashable | None:
    """RL506: the entries whose recipes no launcher located because their launchers could not be
    read — one group per set of such launchers."""
    if entry.scripts or not entry.missing or not entry.unread or entry.read_from:
        return None
    return tuple(entry.unread)


#: rule code -> the grouping its project findings use
SAID_TOGETHER: dict[str, Callable[[object], Hashable | None]] = {"RL609": trtllm_engine_files, "RL506": unlocated}
