"""The engine releases a repository pins: ``vllm==0.10.1.1`` in ``requirements*.txt``, a
``pyproject.toml`` dependency, ``FROM vllm/vllm-openai:v0.10.1`` in a Dockerfile.

Read only where it is cheap and unambiguous: the files of a few named folders (the caller
passes them: the folders of the paths checked and their parents up to the project root), never
a walk of the tree; each file through :mod:`recipelint.files` (confined, regular, at most
:data:`MAX_BYTES`).  An exact pin (``==``) counts; a range (``>=0.9``, ``~=0.10``), a wildcard or
a ``FROM`` whose tag holds a variable does not (said in :attr:`Scan.notes`).  When the pins of
an engine disagree, none is used (:meth:`Scan.ambiguous`).  Which engines and names count is
data: ``rules/data/pins.yaml``.
"""

from __future__ import annotations

import fnmatch
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from recipelint.engines import facts
from recipelint.engines.catalog import ENGINE_NAMES
from recipelint.engines.versions import EngineVersion, of_version, resolve

#: the largest pin file read
MAX_BYTES = 256 * 1024
#: folders looked in, files read per folder, entries of a folder listed
MAX_DIRS = 16
MAX_FILES_PER_DIR = 16
MAX_ENTRIES = 10_000
#: the file names read (fnmatch, case-sensitive)
PATTERNS = ("requirements*.txt", "pyproject.toml", "Dockerfile", "Dockerfile.*", "*.Dockerfile", "*.dockerfile")

_REQ = re.compile(r"^(?P<name>[A-Za-z0-9][A-Za-z0-9._-]*)\s*(?:\[[^\]]*\])?\s*(?P<spec>[<>=!~][^;#]*?)?\s*(?:;.*)?$")
_EXACT = re.compile(r"^===?\s*v?(?P<v>\d+(?:\.\d+)*(?:(?:a|b|rc)\d+)?(?:\.post\d+)?)(?:\+[A-Za-z0-9.]+)?$")
_FROM = re.compile(r"^\s*FROM\s+(?:--\S+\s+)*(?P<image>\S+)", re.I)


@dataclass(frozen=True, slots=True)
class Pin:
    engine: str
    version: str  # the release the pin names ("0.10.1.1")
    where: str  # "requirements.txt:3", relative to the project root
    text: str  # the pin as written ("vllm==0.10.1.1", "FROM vllm/vllm-openai:v0.10.1")
    image: str | None = None  # a Dockerfile's image

    def engine_version(self) -> EngineVersion:
        source = f"pinned in {self.where}"
        if self.image is not None:
            ev = resolve(self.engine, self.image)
            from dataclasses import replace

            return replace(ev, source=f"{source}, `{self.text}`")
        return of_version(self.engine, self.version, source)


@dataclass(slots=True)
class Scan:
    pins: dict[str, list[Pin]] = field(default_factory=dict)  # engine -> every exact pin found
    notes: list[str] = field(default_factory=list)  # what was not used, and why

    def chosen(self) -> dict[str, EngineVersion]:
        """engine -> the version its pins agree on (engines whose pins disagree: none)."""
        out = {}
        for engine, pins in self.pins.items():
            if len({p.version for p in pins}) == 1:
                out[engine] = pins[0].engine_version()
        return out

    def ambiguous(self) -> dict[str, list[Pin]]:
        return {e: pins for e, pins in self.pins.items() if len({p.version for p in pins}) > 1}

    def messages(self) -> list[str]:
        """One line per engine: the version used, or why none is."""
        out = []
        for engine, pins in sorted(self.pins.items()):
            name = ENGINE_NAMES.get(engine, engine)
            listed = ", ".join(f"{p.where} `{p.text}`" for p in pins)
            if len({p.version for p in pins}) > 1:
                out.append(
                    f"{name}: the repository's pins disagree ({listed}): none is used; declare `engine-versions` in the settings"
                )
            else:
                out.append(f"{name} {pins[0].version}: pinned in {listed}")
        return out + self.notes

    def key(self) -> str:
        """What the findings depend on, for the result cache's key."""
        return repr((sorted((e, [(p.version, p.where, p.text) for p in ps]) for e, ps in self.pins.items()), self.notes))


def _engines() -> tuple[dict[str, str], dict[str, str]]:
    """(normalised package name -> engine, image repository -> engine)."""
    data = facts.load("pins")
    packages, images = {}, {}
    for engine, spec in data.items():
        for p in spec.get("packages") or ():
            packages[_norm(p)] = engine
        for i in spec.get("images") or ():
            images[str(i)] = engine
    return packages, images


def _norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def scan(dirs: list[Path], root: Path, roots: list[Path]) -> Scan:
    """The pins in the files of ``dirs`` (in order; at most :data:`MAX_DIRS`), paths said
    relative to ``root``; files outside ``roots`` are not read."""
    from recipelint.files import Refused, confine, read_text

    out = Scan()
    names_of: dict[str, dict[str, str]] = {}  # (the data is loaded only when a pin file is found)
    seen: set[str] = set()
    for d in dirs[:MAX_DIRS]:
        try:
            real = str(confine(d, roots))
        except Refused:
            continue
        if real in seen:
            continue
        seen.add(real)
        names = _candidates(real, out)
        for name in names:
            path = Path(real) / name
            rel = _rel(path, root)
            try:
                text = read_text(path, MAX_BYTES, roots)
            except Refused as e:
                if e.kind != "missing":
                    out.notes.append(f"{rel}: not read for engine pins ({e.reason.split(': ', 1)[-1]})")
                continue
            if not names_of:
                names_of["packages"], names_of["images"] = _engines()
            packages, images = names_of["packages"], names_of["images"]
            if name == "pyproject.toml":
                found = _pyproject(text, rel, packages, out)
            elif name.startswith("requirements"):
                found = _requirements(text, rel, packages, out)
            else:
                found = _dockerfile(text, rel, images, out)
            for pin in found:
                out.pins.setdefault(pin.engine, []).append(pin)
    if len(dirs) > MAX_DIRS:
        out.notes.append(f"engine pins: only the first {MAX_DIRS} folders were looked in")
    return out


def _candidates(d: str, out: Scan) -> list[str]:
    names = []
    try:
        with os.scandir(d) as it:
            for n, e in enumerate(it):
                if n >= MAX_ENTRIES:
                    out.notes.append(f"{d}: more than {MAX_ENTRIES} entries: not all looked at for engine pins")
                    break
                if any(fnmatch.fnmatchcase(e.name, p) for p in PATTERNS):
                    names.append(e.name)
    except OSError:
        return []
    names.sort()
    if len(names) > MAX_FILES_PER_DIR:
        out.notes.append(f"{d}: {len(names)} pin files: only the first {MAX_FILES_PER_DIR} read")
    return names[:MAX_FILES_PER_DIR]


def _rel(path: Path, root: Path) -> str:
    try:
        # (the folder is resolved, the file is not: a link is named where it is, not where it leads)
        return os.path.relpath(path, os.path.realpath(root)).replace(os.sep, "/")
    except ValueError:
        return path.name


def _requirement(req: str, where: str, packages: dict[str, str], out: Scan) -> Pin | None:
    """One PEP 508 requirement: a pin of an engine, or None (a range is noted)."""
    req = req.strip()
    m = _REQ.match(req)
    if not m:
        return None
    engine = packages.get(_norm(m.group("name")))
    if engine is None:
        return None
    spec = re.sub(r"\s+", "", m.group("spec") or "")
    e = _EXACT.match(spec)
    if e is None:
        why = "no version" if not spec else f"`{spec}` is not one release"
        out.notes.append(f"{where} `{req[:80]}`: {why}, not a pin: not used")
        return None
    return Pin(engine, e.group("v"), where, req[:120])


def _requirements(text: str, rel: str, packages, out: Scan) -> list[Pin]:
    pins = []
    for n, line in enumerate(text.splitlines(), 1):
        line = re.split(r"(?:^|\s)#", line, maxsplit=1)[0]
        line = re.split(r"\s+--?[A-Za-z]", " " + line, maxsplit=1)[0]  # (--hash=..., options)
        line = line.rstrip("\\").strip()
        if not line or line.startswith("-"):
            continue
        pin = _requirement(line, f"{rel}:{n}", packages, out)
        if pin is not None:
            pins.append(pin)
    return pins


def _pyproject(text: str, rel: str, packages, out: Scan) -> list[Pin]:
    import tomllib

    try:
        data = tomllib.loads(text)
    except ValueError:
        out.notes.append(f"{rel}: not valid TOML: not read for engine pins")
        return []
    except RecursionError:  # (tomllib recurses per nesting level: a 5,000-deep array)
        out.notes.append(f"{rel}: TOML nested too deeply: not read for engine pins")
        return []
    project = data.get("project")
    if not isinstance(project, dict):
        return []
    reqs: list[str] = []
    deps = project.get("dependencies")
    if isinstance(deps, list):
        reqs += [d for d in deps if isinstance(d, str)]
    extras = project.get("optional-dependencies")
    if isinstance(extras, dict):
        for v in extras.values():
            if isinstance(v, list):
                reqs += [d for d in v if isinstance(d, str)]
    lines = text.splitlines()
    pins = []
    for req in reqs:
        ln = next((i for i, t in enumerate(lines, 1) if req in t), None)
        where = f"{rel}:{ln}" if ln is not None else rel
        pin = _requirement(req, where, packages, out)
        if pin is not None:
            pins.append(pin)
    return pins


def _dockerfile(text: str, rel: str, images: dict[str, str], out: Scan) -> list[Pin]:
    pins = []
    for n, line in enumerate(text.splitlines(), 1):
        m = _FROM.match(line)
        if not m:
            continue
        image = m.group("image")
        repo, _, tag = image.partition("@")[0].rpartition(":") if ":" in image.rsplit("/", 1)[-1] else (image, "", "")
        engine = images.get(repo)
        if engine is None:
            continue
        where = f"{rel}:{n}"
        text_ = f"FROM {image}"[:120]
        if "$" in image or not tag:
            out.notes.append(
                f"{where} `{text_}`: the tag is {'a variable' if '$' in image else 'missing'}, not a release: not used"
            )
            continue
        ev = resolve(engine, image)
        release = ev.versions[0] if ev.exact else (ev.newer or ev.older)
        if release is None and len(ev.versions) == 2:
            release = tag  # (a release between two catalogued ones: judged against both, as an image is)
        if release is None:
            out.notes.append(f"{where} `{text_}`: the tag names no release (a nightly or dev build?): not used")
            continue
        pins.append(Pin(engine, release, where, text_, image))
    return pins
