"""Engine facts: YAML data files shipped in the ``rules`` package, loaded once."""

from __future__ import annotations

import functools
from importlib import resources


@functools.lru_cache(maxsize=None)
def load(name: str):
    """Load ``rules/data/<name>.yaml`` (cached)."""
    from ruamel.yaml import YAML

    text = (resources.files("rules") / "data" / f"{name}.yaml").read_text(encoding="utf-8")
    return YAML(typ="safe", pure=True).load(text)
