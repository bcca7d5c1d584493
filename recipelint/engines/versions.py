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
    #: where a version not from the point's image came from: "declared in .recipelint.yaml",
    #: "pinned in requirements.txt:3" (recipelint.engines.pins); None for an image's
    source: str | None = None
    #: why no version is known beyond "no image": the repository's pins disagree (recipelint.engines.pins)
    note: str | None = None

    @property
    def why_unknown(self) -> str:
        """For :attr:`any_release`: why no version is known ("no image, no pin")."""
        return f"no image; {self.note}" if self.note else "no image, no pin"

    @property
    def any_release(self) -> bool:
        """No version is known (no image, nothing declared or pinned): every catalogued release."""
        return self.image is None and not self.exact and self.source is None

    @property
    def label(self) -> str:
        label = self._label()
        if self.source is None:
            return label
        head, sep, rest = label.partition(" (")
        return f"{head} ({self.source}; {rest}" if sep else f"{label} ({self.source})"

    def _label(self) -> str:
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


def of_version(engine: str, version: str, source: str) -> EngineVersion:
    """The release ``version`` a repository declares or pins (``source`` says where), placed
    among the catalogued ones as an image's release is (:func:`resolve`)."""
    known = versions(engine)
    if version in known:
        return EngineVersion(engine, (version,), None, True, source=source)
    older = [k for k in known if version_key(k) < version_key(version)]
    newer = [k for k in known if version_key(k) > version_key(version)]
    if older and newer:
        return EngineVersion(engine, (older[-1], newer[0]), None, False, source=source)
    if older:
        return EngineVersion(engine, (older[-1],), None, False, newer=version, source=source)
    return EngineVersion(engine, (), None, False, older=version, source=source)


#: ``SweepPoint.extra`` key: engine -> the ``EngineVersion`` declared or pinned for a point without an image
DECLARED = "engine_versions"


def of_point(engine: str, point) -> EngineVersion:
    image = point.env.get("IMAGE") if point is not None else None
    if isinstance(image, str) and image:
        return resolve(engine, image)
    declared = (point.extra.get(DECLARED) or {}).get(engine) if point is not None else None
    return declared if declared is not None else resolve(engine, None)
