"""Which engine release a launch runs: from the sweep point's image tag to catalog versions."""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from recipelint.engines import facts
from recipelint.engines.catalog import ENGINE_NAMES, version_key, versions


@dataclass(frozen=True, slots=True)
class EngineVersion:
    engine: str
    versions: tuple[str, ...]  # the catalogs to judge with (one when the release is known; none: not judged)
    image: str | None
    exact: bool
    older: str | None = None  # a release older than every catalogued one: what it runs is not known
    newer: str | None = None  # a release newer than every catalogued one: judged against the newest

    @property
    def label(self) -> str:
        name = ENGINE_NAMES.get(self.engine, self.engine)
        if self.exact:
            return f"{name} {self.versions[0]}"
        if self.newer:
            return f"{name} {self.newer} (newer than every catalogued release: judged against {self.versions[-1]}, the newest)"
        if self.older:
            return f"{name} {self.older} (older than every catalogued release: not judged)"
        if not self.versions:
            return name
        span = self.versions[0] if len(self.versions) == 1 else f"{self.versions[0]}–{self.versions[-1]}"
        why = f"image `{self.image}` is not a catalogued release" if self.image else "no image is known"
        return f"{name} {span} ({why}; judged against every catalogued release in that range)"


@functools.lru_cache(maxsize=512)
def resolve(engine: str, image: str | None) -> EngineVersion:
    known = versions(engine)
    if not known:
        return EngineVersion(engine, (), image, False)
    data = facts.load("images")
    if image:
        tag = image.rsplit("/", 1)[-1]
        m = re.search(data["release"], tag)
        if m:
            v = m.group(1)
            if v in known:
                return EngineVersion(engine, (v,), image, True)
            # a release between two catalogued ones: judged against both (what either accepts);
            # newer than the newest: the newest
            older = [k for k in known if version_key(k) < version_key(v)]
            newer = [k for k in known if version_key(k) > version_key(v)]
            if older and newer:
                return EngineVersion(engine, (older[-1], newer[0]), image, False)
            if older:
                return EngineVersion(engine, (older[-1],), image, False, newer=v)
            # older than every catalogued release: flags it still had may have been removed since,
            # and flags added since it does not have — no catalog tells, so nothing is judged
            return EngineVersion(engine, (), image, False, older=v)
        for short, (lo, hi) in ((data.get(engine) or {}).get("nightlies") or {}).items():
            if str(short) in tag:
                rng = tuple(k for k in known if version_key(str(lo)) <= version_key(k) <= version_key(str(hi)))
                return EngineVersion(engine, rng or tuple(known), image, False)
    return EngineVersion(engine, tuple(known), image, False)


def of_point(engine: str, point) -> EngineVersion:
    image = point.env.get("IMAGE") if point is not None else None
    return resolve(engine, image if isinstance(image, str) and image else None)
