"""Engine facts: YAML data files shipped in the ``rules`` package, loaded once.

Settings can extend them for one run (``extend``); ``reset`` drops every extension.
"""

from __future__ import annotations

import copy
import functools
import os
import tempfile
from importlib import resources
from pathlib import Path

_EXTENDED: dict[str, object] = {}


_CACHE_DIR = None  # where parsed facts are kept as JSON (set for runs that use the cache)


def cache_in(path) -> None:
    """Keep parsed facts as JSON under ``path`` (None: parse the YAML every run)."""
    global _CACHE_DIR
    _CACHE_DIR = path


@functools.lru_cache(maxsize=None)
def _load_file(name: str):
    text = (resources.files("rules") / "data" / f"{name}.yaml").read_text(encoding="utf-8")
    return _parse(text)


def _parse(text: str):
    """The YAML's data; from the JSON kept for the same text when there is one (a run then does
    not import the YAML library at all)."""
    import hashlib
    import json

    path = None
    if _CACHE_DIR is not None:
        key = hashlib.sha256(b"facts 1\0" + text.encode("utf-8")).hexdigest()
        path = Path(_CACHE_DIR) / "facts" / f"{key}.json"
        try:
            return json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            pass
    from ruamel.yaml import YAML

    data = YAML(typ="safe").load(text)
    if path is not None:
        try:
            enc = json.dumps(data)
            if json.loads(enc) == data:  # only data JSON keeps exactly (no dates, no int keys)
                path.parent.mkdir(parents=True, exist_ok=True)
                fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".json")
                with os.fdopen(fd, "w", encoding="utf-8") as out:
                    out.write(enc)
                os.replace(tmp, path)
        except (TypeError, ValueError, OSError):
            pass
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
