"""Engine facts: YAML data files shipped in the ``rules`` package, loaded once.

Settings can extend them for one run (``extend``); ``reset`` drops every extension.
"""

from __future__ import annotations

import copy
import functools
from importlib import resources

_EXTENDED: dict[str, object] = {}


_CACHE_DIR = None  # where parsed facts are kept as JSON (set for runs that use the cache)


def cache_in(path) -> None:
    """Keep parsed facts as JSON under ``path`` (None: parse the YAML every run)."""
    global _CACHE_DIR
    _CACHE_DIR = path


@functools.lru_cache(maxsize=None)
def _load_file(name: str):
    text = (resources.files("recipelint.rules") / "data" / f"{name}.yaml").read_text(encoding="utf-8")
    return _parse(text)


def _parse(text: str):
    """The YAML's data; from the JSON kept for the same text when there is one (a run then does
    not import the YAML library at all)."""
    if _CACHE_DIR is None:
        return _yaml(text)
    from recipelint.cache.store import memo_text

    return memo_text(_CACHE_DIR, "facts", 1, text, _yaml, _json_exact, lambda data: data)


def _yaml(text: str):
    from recipelint.engines.yamlpos import (
        load,  # the libyaml-based loader configs use (values as ruamel's safe loader)
    )

    return load(text)


def _json_exact(data):
    """``data`` when JSON keeps it exactly (no integer or boolean keys), else ValueError."""
    import json

    if json.loads(json.dumps(data)) != data:
        raise ValueError("not exact in JSON")
    return data


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
