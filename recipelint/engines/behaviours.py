"""Version-scoped engine behaviours (``rules/data/behaviours.yaml``): what an engine does that a
rule relies on — a connector's key semantics, a reported crash, a default batch cap, a request it
rejects — with the releases where it holds, where it was read, and, for what is known only from
reports, who reported it.

``holds(id, version)`` is True or False for a release whose source was read (``read``), None for
one that was not (or is not a release of the engine's history).  ``judge(id, versions)`` answers
for the releases a sweep point is judged against (``Use.engine_version()``): rules fire where a
behaviour holds for every judged release, and say which releases when it holds for only some.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

from recipelint.engines import facts
from recipelint.engines.catalog import histories, version_key


@dataclass(frozen=True, slots=True)
class Behaviour:
    id: str
    engine: str
    statement: str
    runs: tuple[tuple[str, str], ...]  # where it holds (inclusive release runs)
    read: tuple[tuple[str, str], ...]  # where the source was read
    values: tuple[tuple[Any, tuple[tuple[str, str], ...]], ...]  # (value, runs) when it has a value
    spec: dict  # the whole entry (read_from, reported_by, rule-specific fields)


@dataclass(frozen=True, slots=True)
class Judgement:
    """A behaviour against the releases judged: ``held`` (it holds), ``not_held`` (read, does not
    hold), ``unknown`` (not read)."""

    behaviour: Behaviour
    held: tuple[str, ...]
    not_held: tuple[str, ...]
    unknown: tuple[str, ...]

    @property
    def everywhere(self) -> bool:
        """It holds for every judged release."""
        return bool(self.held) and not self.not_held and not self.unknown

    @property
    def somewhere(self) -> bool:
        return bool(self.held)

    @property
    def where(self) -> str:
        """The judged releases it holds for, as text ("0.19.0–0.21.0", "0.20.1")."""
        return span(self.held)


def span(vs) -> str:
    vs = tuple(vs)
    if not vs:
        return ""
    return vs[0] if len(vs) == 1 else f"{vs[0]}–{vs[-1]}"


def _runs(engine: str, text: str, bid: str) -> tuple[tuple[str, str], ...]:
    known = histories().get(engine)
    out = []
    for part in str(text).split(","):
        a, _, b = part.strip().partition("..")
        b = b or a
        if known is not None and (a not in known.pos or b not in known.pos or known.pos[a] > known.pos[b]):
            raise ValueError(f"behaviour {engine}.{bid}: {part!r} is not a run of {engine}'s history")
        out.append((a, b))
    return tuple(out)


@functools.lru_cache(maxsize=None)
def _all() -> dict[str, Behaviour]:
    data = facts.load("behaviours")
    out: dict[str, Behaviour] = {}
    for engine, entries in data.items():
        for bid, spec in (entries or {}).items():
            values = tuple((v["value"], _runs(engine, v["holds"], bid)) for v in spec.get("values") or [])
            runs = _runs(engine, spec["holds"], bid) if "holds" in spec else tuple(r for _, rs in values for r in rs)
            read = _runs(engine, spec["read"], bid)
            out[f"{engine}.{bid}"] = Behaviour(bid, engine, " ".join(str(spec["statement"]).split()), runs, read, values, spec)
    return out


def get(bid: str) -> Behaviour:
    """The behaviour ``engine.id`` (KeyError when there is none)."""
    return _all()[bid]


def ids() -> list[str]:
    return sorted(_all())


def _in(runs, version: str) -> bool:
    k = version_key(version)
    return any(version_key(a) <= k <= version_key(b) for a, b in runs)


def _known(b: Behaviour, version: str) -> bool:
    h = histories().get(b.engine)
    return h is not None and version in h.pos and _in(b.read, version)


def holds(bid: str, version: str) -> bool | None:
    """Whether the behaviour holds on ``version``; None when that release's source was not read."""
    b = get(bid)
    if not _known(b, version):
        return None
    return _in(b.runs, version)


def value(bid: str, version: str):
    """The behaviour's value on ``version`` (a default it sets), None where it does not hold or is
    not known."""
    b = get(bid)
    if not _known(b, version):
        return None
    for v, runs in b.values:
        if _in(runs, version):
            return v
    return None


def judge(bid: str, versions) -> Judgement:
    b = get(bid)
    held: list[str] = []
    no: list[str] = []
    unknown: list[str] = []
    for v in versions:
        h = holds(bid, v)
        (unknown if h is None else held if h else no).append(v)
    return Judgement(b, tuple(held), tuple(no), tuple(unknown))


def holds_in(runs: str, engine: str, version: str) -> bool:
    """Whether ``version`` lies in ``runs`` ("a..b,c"), a sub-range an entry gives (an exemption's
    releases)."""
    return _in(_runs(engine, runs, "(sub-range)"), version)
