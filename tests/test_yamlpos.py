"""recipelint.engines.yamlpos: values exactly as ruamel's safe loader constructs them, with positions."""

from __future__ import annotations

import warnings

import pytest

from recipelint.engines import yamlpos

SCALARS = [
    "8",
    "08",
    "010",
    "0x1F",
    "0o17",
    "1_000",
    "+3",
    "-4",
    "0",
    "3.5",
    "-0.25",
    ".inf",
    "-.Inf",
    ".nan",
    "1e3",
    "6.02e+23",
    "true",
    "True",
    "TRUE",
    "false",
    "yes",
    "no",
    "on",
    "off",
    "y",
    "null",
    "~",
    "Null",
    "NULL",
    "'8'",
    '"true"',
    '"null"',
    "'1e3'",
    "!!str 8",
    "!!int '9'",
    "!!float 2",
    "!!bool true",
    "plain text",
    "-x",
    "--tp",
    "=x",
    "<x",
    ".5",
    "nvidia/DeepSeek-R1",
    "vllm/vllm-openai:v0.9.0",
    "1.2.3",
    "12:30",
    "",
]


def reference(text: str):
    from ruamel.yaml.cyaml import CSafeLoader

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        loader = CSafeLoader(text)
        try:
            return loader.get_single_data()
        finally:
            loader.dispose()


@pytest.mark.parametrize("scalar", SCALARS)
def test_scalar_values_match_the_safe_loader(scalar):
    text = f"a: {scalar}\nb:\n  - {scalar}\n"
    got = yamlpos.load(text)
    want = reference(text)
    assert got == want
    for g, w in ((got["a"], want["a"]), (got["b"][0], want["b"][0])):
        assert type(g) is type(w) or (g != g and w != w)  # nan != nan


def test_the_same_scalar_twice_resolves_the_same_each_time():
    # resolutions are remembered by text: the second document must not see the first's answer wrongly
    assert yamlpos.load("x: 08\ny: '08'\nz: 08\n") == {"x": 8, "y": "08", "z": 8}
    assert yamlpos.load("x: true\n") == {"x": True}
    assert yamlpos.load("x: !!str true\n") == {"x": "true"}


def test_dates_stay_text():
    assert yamlpos.load("released: 2024-01-02\nat: 2024-01-02 10:00:00\n") == {
        "released": "2024-01-02",
        "at": "2024-01-02 10:00:00",
    }


def test_positions_of_keys_values_and_items():
    text = "top:\n  k: 1\n  list:\n    - a\n    -   b\n"
    doc = yamlpos.load(text)
    assert doc.lc.key("top") == (0, 0)
    inner = doc["top"]
    assert inner.lc.key("k") == (1, 2) and inner.lc.value("k") == (1, 5)
    assert inner["list"].lc.item(0) == (3, 6) and inner["list"].lc.item(1) == (4, 8)


def test_merge_keys_and_anchors():
    text = "base: &b {x: 1, y: 2}\nitem:\n  <<: *b\n  y: 3\nquoted:\n  '<<': 4\n"
    doc = yamlpos.load(text)
    assert doc["item"] == {"x": 1, "y": 3}
    assert doc["item"].lc.key("x") == (0, 10)  # where the merged key is written
    assert doc["quoted"] == {"<<": 4}  # a quoted `<<` is an ordinary key


def test_duplicate_key_is_rejected_with_its_position():
    with pytest.raises(yamlpos.YAMLPosError) as e:
        yamlpos.load("a: 1\nb: 2\na: 3\n")
    assert (e.value.line, e.value.column) == (2, 0)


def test_no_warning_reaches_the_user():
    # ruamel warns about YAML 1.1 floats without a dot; a linter's stderr is for its own messages
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        assert yamlpos.load("a: 1e3\n") == {"a": 1000.0}
    assert seen == []
