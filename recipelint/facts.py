"""Engine facts: YAML data files shipped in the ``rules`` package, loaded once.

Settings can extend them for one run (``extend``); ``reset`` drops every extension.
"""

from __future__ import annotations

import copy
import functools
from importlib import resources

_EXTENDED: dict[str, object] = {}


@functools.lru_cache(maxsize=None)
def _load_file(name: str):
    from ruamel.yaml import YAML

    text = (resources.files("rules") / "data" / f"{name}.yaml").read_text(encoding="utf-8")
    return YAML(typ="safe").load(text)


def load(name: str):
    """``rules/data/<name>.yaml`` (with this run's extensions)."""
    if name in _EXTENDED:
        return _EXTENDED[name]
    return _load_file(name)


def extend(name: str, change) -> None:
    """Apply ``change(data)`` to a copy of the facts ``name`` for the rest of the run."""
    data = _EXTENDED.get(name)
    if data is None:
        data = copy.deepcopy(_load_file(name))
        _EXTENDED[name] = data
    change(data)


def reset() -> None:
    _EXTENDED.clear()
