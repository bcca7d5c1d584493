"""Rule discovery: every ``rules/rlNNN_*.py`` module's Rule subclass."""

from __future__ import annotations

import functools
import importlib
import pkgutil
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from recipelint.lint.rulebase import Rule


@functools.lru_cache(maxsize=None)
def all_rules() -> tuple[type[Rule], ...]:
    from recipelint import rules
    from recipelint.lint.rulebase import Rule

    found: dict[str, type[Rule]] = {}
    for mod in pkgutil.iter_modules(rules.__path__):
        if not mod.name.startswith("rl"):
            continue
        module = importlib.import_module(f"recipelint.rules.{mod.name}")
        for obj in vars(module).values():
            if (
                isinstance(obj, type)
                and issubclass(obj, Rule)
                and obj is not Rule
                and obj.code
                and obj.__module__ == module.__name__
            ):
                if obj.code in found:
                    raise RuntimeError(f"rule code {obj.code} defined twice ({found[obj.code].__module__}, {module.__name__})")
                found[obj.code] = obj
    return tuple(found[c] for c in sorted(found))


def known_codes() -> list[str]:
    """Rule codes from the module names (``rl101_...`` -> RL101), without importing the rules."""
    return list(_known_codes())


@functools.lru_cache(maxsize=None)
def _known_codes() -> tuple[str, ...]:
    # (read once a run: RL004 asks for every file with a suppression comment)
    from recipelint import rules

    return tuple(sorted(m.name.split("_", 1)[0].upper() for m in pkgutil.iter_modules(rules.__path__) if m.name.startswith("rl")))


def by_code(code: str) -> type[Rule] | None:
    code = code.upper()
    for r in all_rules():
        if r.code == code or r.name == code.lower():
            return r
    return None


def selected(select: list[str] | None, ignore: list[str] | None) -> list[type[Rule]]:
    """Rules whose code starts with a ``select`` prefix (all when empty) and with no ``ignore`` prefix."""
    sel = [s.upper() for s in (select or []) if s]
    ign = [s.upper() for s in (ignore or []) if s]
    out = []
    for r in all_rules():
        if sel and not any(r.code.startswith(s) or s == "ALL" for s in sel):
            continue
        if any(r.code.startswith(s) for s in ign):
            continue
        out.append(r)
    return out
