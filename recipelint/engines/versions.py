"""Which engine release a launch runs: from the sweep point's image to catalog versions.

An image tag names a release (``vllm/vllm-openai:v0.25.1``), a series (``…:vllm0.26``), a build
of the engine's main branch (``nightly-<commit>``, ``nightly-dev-20260527-14f81a67``) or nothing
the linter can read (``vllm/vllm-openai:kimi-k3``).  ``rules/data/images.yaml`` holds what the
tags do not say — when each pinned commit was on main, which release a vendor build is — with
the evidence; the release dates there turn a build's dates into the releases it lies between
(docs/engine-histories.md, "Images").  Platform versions in a tag (``cu13.0.1``, ``rocm7.2.2``,
``py3.12``, ``ubuntu24.04``, ``pytorch_release_2.10.0``, a bare CUDA ``13.0.1``) are never read as
the engine's release.
"""

from __future__ import annotations

import datetime
import functools
import re
from dataclasses import dataclass

from recipelint.engines import facts
from recipelint.engines.catalog import ENGINE_NAMES, snapshots, version_key, versions


@dataclass(frozen=True, slots=True)
class EngineVersion:
    engine: str
    versions: tuple[str, ...]  # the catalogs to judge with (one when the release is known; none: not judged)
    image: str | None
    exact: bool
    older: str | None = None  # a release older than every catalogued one: what it runs is not known
    newer: str | None = None  # a release newer than every catalogued one: judged against the newest
    #: why these versions, when the tag is not a release (a nightly's dates, a vendor build's
    #: data entry, a series): said in the label
    basis: str | None = None
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

    @property
    def short(self) -> str:
        """The label without its explanation: ``vLLM 0.23.0–0.27.0`` (for a headline)."""
        return self.label.partition(" (")[0]

    @property
    def provenance(self) -> str:
        """Why these releases (the label's explanation: the image's build, the pin), or ""."""
        head, sep, rest = self.label.partition(" (")
        return rest[:-1] if sep and rest.endswith(")") else ""

    def _label(self) -> str:
        name = ENGINE_NAMES.get(self.engine, self.engine)
        if self.exact:
            return f"{name} {self.versions[0]}"
        if self.newer:
            return f"{name} {self.newer} (newer than every catalogued release: judged against {self.versions[-1]}, the newest)"
        if self.older:
            return f"{name} {self.older} (older than every catalogued release: not judged)"
        if not self.versions:
            return f"{name} ({self.basis})" if self.basis else name
        span = self.versions[0] if len(self.versions) == 1 else f"{self.versions[0]}–{self.versions[-1]}"
        if self.basis:
            return f"{name} {span} ({self.basis})"
        why = f"image `{self.image}` is not a catalogued release" if self.image else "no image is known"
        return f"{name} {span} ({why}; judged against every catalogued release in that range)"


#: a token of a tag (split at ``-`` and ``_``) that is a version, with what is glued before it
_TOKEN = re.compile(r"(?P<pre>[a-z]*?)(?P<v>\d+(?:\.\d+)+(?:(?:rc|a|b)\d+)?(?:\.post\d+)?(?:\.dev\d+)?)", re.I)
_HEX = re.compile(r"[0-9a-f]{7,40}")
_DATE = re.compile(r"20\d\d(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\d|3[01])")
_DATED = re.compile(rf"(?P<pre>[a-z]*?)(?P<d>{_DATE.pattern})(?:[01]\d|2[0-3])?(?:[0-5]\d)?")
_DEV = re.compile(r"(\d+\.\d+\.\d+)(?:rc\d+)?\.dev\d+")


@dataclass(frozen=True, slots=True)
class Tag:
    """An image reference taken apart: ``repository`` (lower case, ``#`` read as ``/``, no
    registry host for Docker Hub), ``tag`` (``latest`` when none) and the ``-``/``_`` tokens."""

    repository: str
    tag: str
    tokens: tuple[str, ...]

    @property
    def ref(self) -> str:
        return f"{self.repository}:{self.tag}"


def parse_image(image: str) -> Tag:
    ref = image.strip().split("@", 1)[0].replace("#", "/")  # a digest pins the same tag
    head, sep, tag = ref.rpartition(":")
    if not sep or "/" in tag:  # `host:5000/repo` without a tag
        head, tag = ref, "latest"
    repo = head.lower()
    for hub in ("docker.io/library/", "docker.io/", "index.docker.io/"):
        if repo.startswith(hub):
            repo = repo[len(hub) :]
    return Tag(repo, tag or "latest", tuple(t for t in re.split(r"[-_]", tag) if t))


def _engine_data(engine: str) -> dict:
    return (facts.load("images").get(engine) or {}) if engine else {}


def _is_engine_repository(engine: str, repo: str) -> bool:
    return any(repo == r or repo.endswith("/" + r) for r in _engine_data(engine).get("repositories") or ())


def release_in_tag(engine: str, tag: Tag) -> tuple[str, str] | None:
    """``(version, how)`` for the engine release a tag names, ``how`` one of ``release`` (``v0.25.1``,
    ``sglang-0.5.9``, a bare ``0.25.1`` in the engine's own repository), ``series`` (``vllm0.26``)
    or ``dev`` (``v0.26.1rc1.dev668``: a build after the 0.26.0 release branch);
    None when it names none.  A version glued to anything else (``cu13.0.1``, ``rocm7.2.2``,
    ``py3.12``, ``atom0.1.3``) is another product's; a ``v``-prefixed one is read in the engine's
    repositories and in any repository named after the engine (``quay.io/x/llm-d-vllm:v0.26.0``),
    a bare one only in the engine's own (or one named just ``vllm``), and only when its major
    number is one the engine's releases have (``13.0.1`` in
    ``minimax-m3-perf-arm64-13.0.1-7a67223`` is the CUDA version)."""
    names = {n.lower() for n in _engine_data(engine).get("names") or (engine,)}
    known = versions(engine)
    majors = {k.split(".")[0] for k in known}
    own = _is_engine_repository(engine, tag.repository)
    last = tag.repository.rsplit("/", 1)[-1]
    prev = ""
    for tok in tag.tokens:
        m = _TOKEN.fullmatch(tok)
        if m:
            pre, v = m.group("pre").lower(), m.group("v")
            if _DEV.fullmatch(v):  # `vllm-0.26.1rc1.dev668`: a build, not a release
                if pre in names or pre == "v" or (not pre and (own or prev.lower() in names)):
                    return v, "dev"
                prev = tok
                continue
            three = v.count(".") >= 2
            if pre in names or (not pre and prev.lower() in names):
                if three:
                    return v, "release"
                if re.fullmatch(r"\d+\.\d+", v):
                    return v, "series"
            if pre == "v" and three and (own or prev.lower() in names or any(n in last for n in names)):
                return v, "release"
            if not pre and three and (own or last in names) and v.split(".")[0] in majors:
                return v, "release"
        prev = tok
    return None


def _day(value) -> datetime.date | None:
    if isinstance(value, datetime.date):
        return value
    try:
        return datetime.date.fromisoformat(str(value))
    except ValueError:
        return None


def _released(engine: str) -> list[tuple[datetime.date, str]]:
    """Each catalogued version's day: a release's publication (``released:``), a snapshot of
    main's commit day (the history's ``sources``)."""
    out = []
    dated = {**(_engine_data(engine).get("released") or {}), **snapshots(engine)}
    for v, d in dated.items():
        day = _day(d)
        if day is not None and str(v) in set(versions(engine)):
            out.append((day, str(v)))
    return sorted(out, key=lambda x: (x[0], version_key(x[1])))


def _series(engine: str, v: str) -> tuple[int, ...]:
    """A release's series (``series:`` leading numbers: vLLM 0.27.1 → (0, 27), SGLang 0.5.18.post1
    → (0, 5, 18)): its releases come from one cut of main."""
    n = int(_engine_data(engine).get("series") or 2)
    return version_key(v)[0][:n]


def _between(engine: str, after, by) -> tuple[str | None, str | None]:
    """The newest release published before ``after``, and the first release of the series after
    that of the first one published after ``by`` (by PyPI upload date, ``released:``).  A release
    published after a build may have been cut from main before it (SGLang 0.5.18, published
    2026-08-21, lacks the `--prefill-decode-interval` of the 2026-08-20 nightly); the next series
    is cut after that release ships.  A release published on either day lies inside."""
    rel = _released(engine)
    lo = hi = None
    if after is not None:
        older = [v for d, v in rel if d < after]
        lo = max(older, key=version_key) if older else None
    if by is not None:
        newer = sorted((v for d, v in rel if d > by), key=version_key)
        if newer and newer[0] in snapshots(engine):
            hi = newer[0]  # main itself on a later day: no release branch between
        elif newer:
            later = [v for v in newer if _series(engine, v) > _series(engine, newer[0])]
            hi = later[0] if later else None
    return lo, hi


def _base_release(engine: str, dev: str) -> str | None:
    """The newest release at or below a dev build's base (``0.26.1rc1.dev668`` → 0.26.0)."""
    m = _DEV.fullmatch(dev)
    if not m:
        return None
    below = [k for k in versions(engine) if version_key(k) <= version_key(m.group(1))]
    return below[-1] if below else None


def _span(engine: str, lo: str | None, hi: str | None) -> tuple[str, ...]:
    known = versions(engine)
    return tuple(
        k
        for k in known
        if (lo is None or version_key(lo) <= version_key(k)) and (hi is None or version_key(k) <= version_key(hi))
    )


def _from_entry(engine: str, image: str, what: str, entry: dict) -> EngineVersion:
    """The releases a data entry (a nightly's commit, a vendor image) puts the image between."""
    known = versions(engine)
    name = ENGINE_NAMES.get(engine, engine)
    if entry.get("release"):
        v = str(entry["release"])
        if v in known:
            return EngineVersion(engine, (v,), image, False, basis=f"image `{image}` is {name} {v}: {entry.get('why', what)}")
    if entry.get("range"):
        first, last = (str(x) for x in entry["range"])
        rng = _span(engine, first, last) or tuple(known)
        return EngineVersion(
            engine, rng, image, False, basis=f"image `{image}` is {what}: judged against every catalogued release in that range"
        )
    after, by = _day(entry.get("after")), _day(entry.get("by"))
    lo, hi = _between(engine, after, by)
    for base in (_base_release(engine, str(entry["dev"])) if entry.get("dev") else None, entry.get("lo")):
        # the dev version's base release, a stated lower release: whichever is newest
        if base and str(base) in known and (lo is None or version_key(str(base)) > version_key(lo)):
            lo = str(base)
    if after and by:
        when = f"of {by}" if after == by else f"of {after}…{by}"
    else:
        when = f"of {by} or earlier" if by else (f"of {after} or later" if after else "")
    desc = f"{what} {when}".strip()
    if entry.get("not_judged"):
        return EngineVersion(engine, (), image, False, basis=f"image `{image}` is {desc}: not judged ({entry['not_judged']})")
    if lo is None:
        desc += f" (no lower bound known: from {known[0]}, the oldest catalogued)"
    if hi is None and (by or after or lo):
        unjudged = _engine_data(engine).get("beyond_newest_unjudged")
        if unjudged:
            # the engine's main has moved too far from its newest release to judge a build of it
            # (ATOM: main's parser takes `--x-y` and `--x_y` alike, no release does)
            return EngineVersion(
                engine,
                (),
                image,
                False,
                basis=f"image `{image}` is {desc}, possibly newer than every catalogued release: not judged ({unjudged})",
            )
        # main moved on past every catalogued release: judged against the newest ones
        rng = _span(engine, lo, None) or (known[-1],)
        tail = "newer than every catalogued release" if len(rng) == 1 else "possibly newer than every catalogued release"
        judged = (
            f"judged against {known[-1]}, the newest"
            if len(rng) == 1
            else f"judged against every catalogued release from {rng[0]} to the newest, {known[-1]}"
        )
        return EngineVersion(engine, rng, image, False, basis=f"image `{image}` is {desc}, {tail}: {judged}")
    rng = _span(engine, lo, hi) or tuple(known)
    main = snapshots(engine)
    kinds = "release" if not any(v in main for v in rng) else "release and snapshot of main (`.devYYYYMMDD`: main on that day)"
    return EngineVersion(
        engine, rng, image, False, basis=f"image `{image}` is {desc}: judged against every catalogued {kinds} in that range"
    )


def _tag_days(engine: str, tag: Tag) -> list[datetime.date]:
    """The build days a tag's tokens carry: ``20260527``, with a time (``202606101403``, ATOM's
    ``nightly_YYYYMMDDHHMM``) or glued to the engine's name (ATOM's ``atom20260511``)."""
    names = {n.lower() for n in _engine_data(engine).get("names") or (engine,)}
    out = []
    for t in tag.tokens:
        m = _DATED.fullmatch(t.lower())
        if m and (not m.group("pre") or m.group("pre") in names):
            d = m.group("d")
            day = _day(f"{d[:4]}-{d[4:6]}-{d[6:]}")
            if day is not None:
                out.append(day)
    return out


def _a(name: str) -> str:
    return ("an " if name[:1].upper() in "AEFHILMNORSX" else "a ") + name


def _nightly(engine: str, tag: Tag) -> tuple[str, dict] | None:
    """The ``nightlies:`` entry whose commit a tag carries (either hash a prefix of the other, at
    least 7 hex digits)."""
    table = _engine_data(engine).get("nightlies") or {}
    for tok in tag.tokens:
        if not _HEX.fullmatch(tok.lower()) or not any(c.isdigit() for c in tok):
            continue
        t = tok.lower()
        for key, entry in table.items():
            k = str(key).lower()
            if len(k) >= 7 and (t.startswith(k) or k.startswith(t)) and isinstance(entry, dict):
                return k, entry
    return None


@functools.lru_cache(maxsize=512)
def resolve(engine: str, image: str | None) -> EngineVersion:
    known = versions(engine)
    if not known:
        return EngineVersion(engine, (), image, False)
    name = ENGINE_NAMES.get(engine, engine)
    if image:
        tag = parse_image(image)
        data = _engine_data(engine)
        entry = (data.get("images") or {}).get(tag.ref)
        if isinstance(entry, dict):
            return _from_entry(engine, image, str(entry.get("what") or f"{_a(name)} build"), entry)
        hit = _nightly(engine, tag)
        if hit:
            return _from_entry(engine, image, str(hit[1].get("what") or f"{_a(name)} build of commit {hit[0][:12]}"), hit[1])
        found = release_in_tag(engine, tag)
        if found and found[1] == "dev":
            return _from_entry(engine, image, f"{_a(name)} {found[0]} build", {"dev": found[0]})
        if found and found[1] == "series":
            series = found[0]
            rng = tuple(k for k in known if k == series or k.startswith(series + "."))
            if rng:
                only = f"whose only release is {rng[0]}" if len(rng) == 1 else "judged against each of its releases"
                return EngineVersion(engine, rng, image, False, basis=f"image `{image}` names the {name} {series} series, {only}")
            found = (series + ".0", "release")
        if found:
            v = found[0]
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
        if _is_engine_repository(engine, tag.repository):
            # a dated build of the engine's own (`nightly-dev-20260527-14f81a67`): of that day
            days = _tag_days(engine, tag)
            if len(days) == 1:
                return _from_entry(engine, image, f"{_a(name)} build", {"after": days[0].isoformat(), "by": days[0].isoformat()})
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
