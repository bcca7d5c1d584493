"""The literal prefilter of the site scan: a text holding none of a pattern's required
literals never matches it (so skipping the search changes nothing)."""

import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from recipelint.engines import sites
from recipelint.engines.sites import required_literals


@pytest.mark.parametrize(
    ("pattern", "expected"),
    [
        (r"vllm\s+serve", ("serve",)),  # the longest run
        (r"python[0-9.]*\s+-m\s+sglang\.launch_server", ("sglang.launch_server",)),
        # (the parser takes the common "t" out of the branches)
        (r"(?:tritonserver|text-generation-launcher)", ("ext-generation-launcher", "ritonserver")),
        (r"a(?:b|cd)+e", ("a",)),  # (ties: the smaller set)
        (r"(?:^|x)[\w.-]*launch_server", ("launch_server",)),
        (r"foo|\w+", None),  # a branch that requires nothing: no shortcut
        (r"(?:ab)?c*", None),
        (r"(?i)serve", None),  # case-insensitive: not handled, no shortcut
        (r"ab\s+c", ("ab",)),
    ],
)
def test_required_literals(pattern, expected):
    assert required_literals(re.compile(pattern)) == expected


def test_a_needle_with_a_blank_gives_no_shortcut():
    # texts are searched folded (`\\` + newline, runs of blanks): a needle holding a blank
    # could be present in the folded text and absent from the raw one
    assert required_literals(re.compile(r"vllm serve")) is None


def _site_patterns():
    known, like, *_ = sites._patterns()
    return [known, like]


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much], deadline=None)
@given(st.data())
def test_every_match_of_the_site_patterns_holds_a_needle(data):
    for pat in _site_patterns():
        need = required_literals(pat)
        assert need is not None  # the engine facts' patterns all have one (the scan's shortcut)
        text = data.draw(st.from_regex(pat))
        m = pat.search(text)
        if m is not None:
            assert any(n in text for n in need), (pat.pattern[:80], text)


def test_the_scan_finds_the_same_sites_with_and_without_the_shortcut(monkeypatch):
    texts = [
        (0, 10, "vllm serve m --tp 8", "command"),
        (0, 10, "python3 -m sglang.launch_server --model-path m", "command"),
        (0, 10, "python -m vllm.entrypoints.openai.api_server \\\n  --model m", "command"),
        (0, 10, "my-serve --x", "command"),
        (0, 10, "tritonserver --model-repository=/m", "command"),
        (0, 10, "echo hello", "command"),
        (0, 10, '"$PY" -m sglang.launch_server', "command"),
    ]
    with_shortcut = sites.scan(texts)
    data = sites.facts.load("engines")
    monkeypatch.setitem(sites._COMPILED, id(data), (data, sites._patterns()[:5] + (None, None, None)))  # no needles
    assert sites._patterns()[5] is None
    assert sites.scan(texts) == with_shortcut
    assert len(with_shortcut) == 6
