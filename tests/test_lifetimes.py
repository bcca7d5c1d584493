"""The messages flag / key / parser lifetimes give (issue 34), on the RL601 / RL602 / RL606
fixtures: what each says, not only where it is."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import FIXTURES
from test_rules import fixture_points

from recipelint.lint.check import lint


@pytest.fixture(scope="module")
def messages():
    out: dict[tuple[str, int], tuple[str, str]] = {}
    for code in ("RL601", "RL602", "RL606"):
        for f in lint([FIXTURES / "rules" / code], points_for=fixture_points).findings:
            if f.code == code:
                out[(Path(f.span.path).name, f.span.line)] = (f.severity, f.text)  # (headline; notes)
    return out


@pytest.mark.parametrize(
    "where, severity, text",
    [
        (
            ("removed_flag.sh", 6),
            "error",
            "`--num-scheduler-steps` is not a flag of vLLM 0.25.1: the server stops with `unrecognized arguments`; drop it, or run an image whose release has it; `--num-scheduler-steps` was removed in vLLM 0.10.1 (last in 0.10.0)",
        ),
        (
            ("removed_flag.sh", 7),
            "error",
            "is not a flag of vLLM 0.25.1: the server stops with `unrecognized arguments`; drop it, or run an image whose release has it; `--max-seq-len-to-capture` was removed in vLLM 0.11.0 (last in 0.10.2)",
        ),
        (
            ("added_flag.sh", 5),
            "error",
            "`--attention-config` is not a flag of vLLM 0.10.2: the server stops with `unrecognized arguments`; drop it, or run an image whose release has it; `--attention-config` exists only from vLLM 0.13.0 on",
        ),
        (("newer_release.sh", 5), "error", "vLLM 9.1.0: newer than every catalogued release: judged against 0.34.0, the newest"),
        (
            ("no_image.sh", 6),
            "info",
            "`--max-seq-len-to-capture` was removed in vLLM 0.11.0 (last in 0.10.2): no engine version is known",
        ),
        (("no_image.sh", 7), "warning", "no vLLM release from 0.8.0 to 0.34.0 has a flag `--no-such-flag-anywhere`"),
        (
            ("key_lifetime.sh", 5),
            "error",
            "key `use_fp4_indexer_cache` is not in vLLM 0.33.0: drop it, or run a release that has it; `use_fp4_indexer_cache` was removed in vLLM 0.30.0 (last in 0.29.0)",
        ),
        (
            ("parser_lifetime.sh", 4),
            "error",
            "vLLM 0.19.0 has no tool-call parser `deepseek_v4`: the server stops at startup; run a release that has it; "
            "tool-call parser `deepseek_v4` exists only from vLLM 0.20.0 on",
        ),
    ],
)
def test_lifetime_messages(messages, where, severity, text):
    assert where in messages, sorted(messages)
    got_severity, message = messages[where]
    assert got_severity == severity and text in message, message
    if "was removed" in text or "exists only" in text:
        assert "did you mean" not in message  # the lifetime is the fix, not a guessed rename


def test_flags_alive_at_the_release_are_quiet(messages):
    assert not [w for w in messages if w[0].endswith("_near.sh")]
    assert ("removed_flag.sh", 5) not in messages and ("no_image.sh", 5) not in messages
