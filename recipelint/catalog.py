"""Engine catalogs (flags and parser names per engine version) from ``rules/data/catalogs``."""

from __future__ import annotations

import functools
from importlib import resources


@functools.lru_cache(maxsize=None)
def catalogs() -> dict[str, dict[str, dict]]:
    """engine -> version -> catalog dict."""
    from ruamel.yaml import YAML

    yaml = YAML(typ="safe", pure=True)
    out: dict[str, dict[str, dict]] = {}
    base = resources.files("rules") / "data" / "catalogs"
    for entry in sorted(base.iterdir(), key=lambda p: p.name):
        if not entry.name.endswith(".yaml"):
            continue
        data = yaml.load(entry.read_text(encoding="utf-8"))
        out.setdefault(data["engine"], {})[str(data["version"])] = data
    return out


def version_key(v: str) -> tuple:
    parts = []
    for p in v.split("."):
        parts.append(int(p) if p.isdigit() else 0)
    return tuple(parts)


def versions(engine: str) -> list[str]:
    return sorted(catalogs().get(engine, {}), key=version_key)


@functools.lru_cache(maxsize=None)
def engine_flags(engine: str, version: str | None = None) -> frozenset[str]:
    """Flags of an engine at a version, or of any known version when ``version`` is None."""
    cats = catalogs().get(engine, {})
    if version is not None:
        cat = cats.get(version)
        return frozenset(cat.get("flags", [])) if cat else frozenset()
    out: set[str] = set()
    for cat in cats.values():
        out.update(cat.get("flags", []))
    return frozenset(out)


def resolves(engine: str, flag: str, version: str | None = None) -> bool:
    """Whether argparse (``allow_abbrev``) would accept ``flag``: an exact option or a unique
    prefix of one."""
    flags = engine_flags(engine, version)
    if flag in flags:
        return True
    matches = [f for f in flags if f.startswith(flag)]
    return len(matches) == 1


def parsers(engine: str, kind: str, version: str | None = None) -> frozenset[str]:
    """``kind``: tool_call_parsers or reasoning_parsers."""
    cats = catalogs().get(engine, {})
    out: set[str] = set()
    for v, cat in cats.items():
        if version is None or v == version:
            out.update(cat.get(kind, []))
    return frozenset(out)
