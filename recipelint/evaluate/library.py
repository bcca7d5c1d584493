"""Sourced libraries: the files a recipe sources, found, read within bounds and parsed once (with
recipelint's own model of the well-known helper library when the real file is absent).

Only files inside the roots of the run are read (``recipelint.files.confine``: the project root
and the configured search roots; never /proc, /dev, /sys), only regular files, at most
``MAX_BYTES``: a file refused is not followed — ``load`` returns the :class:`Refused` saying why,
which `source` treats as a file of unknown content and rule RL008 reports.  A relative name is
looked for in the folders from the script's up to its root, never above it."""

from __future__ import annotations

import hashlib
import os
from importlib import resources
from pathlib import Path

from recipelint.bash.parse import parse
from recipelint.bash.source import SourceFile
from recipelint.bash.tree import Parsed
from recipelint.evaluate.support import _FUNCS_VERSION
from recipelint.files import Refused, confine, read_regular, repository_root

#: the largest sourced file read (as a recipe's)
MAX_BYTES = 16 * 1024 * 1024
#: files of the machine a script sources to learn its distribution (`. /etc/os-release`): outside
#: every project and never part of a recipe, they set names the distribution defines (ID,
#: VERSION_ID, ...); not read, their content unknown, and not reported (RL008's exceptions)
MACHINE_FILES = frozenset({"/etc/os-release", "/usr/lib/os-release", "/etc/lsb-release", "/etc/environment"})


class Library:
    """Finds and parses sourced files (cached); falls back to recipelint's own models of the
    well-known helper library when the real file is absent."""

    #: recipelint's models of well-known helper libraries (package data; read as files, with the
    #: same bounds as a recipe's)
    STUB_DIR = Path(str(resources.files("recipelint.evaluate") / "stubs"))

    def __init__(self, search_roots: list[Path] | None = None, cache_dir: Path | None = None, roots: list[Path] | None = None):
        """``roots``: the folders whose files may be read (resolved); None: each script's
        repository (the nearest folder with ``.git``), else its own folder.  ``search_roots``:
        further folders, also searched for relative names."""
        self.cache: dict[str, Parsed | Refused | None] = {}
        self.roots = roots
        #: with ``roots`` None, the root of a script's project (set by the analysis: the
        #: repository, the master configs' folder); default: its repository, else its folder
        self.root_of = None
        #: where trees of sourced files are kept between runs (recipelint.cache.trees); None: not kept
        self.cache_dir = cache_dir
        self._resolved: dict = {}
        self.search_roots = search_roots or []
        #: sources of the cached files (alive as long as the library): facts about their syntax
        #: nodes are shared by every evaluator using this library
        self.sources: set[int] = set()
        self.launch_cache: dict = {}
        #: summaries of runs of the library's own code (recipelint.evaluate.summaries), shared by the
        #: evaluators using this library: a helper every recipe calls the same way is evaluated
        #: once per process, not once per recipe
        self.memo: dict = {}
        #: function-table versions of tables holding only the library's functions (and the empty one)
        self.fver_tables: dict = {}
        self.fver_steps: dict = {}
        self.funcs0 = next(_FUNCS_VERSION)
        self.fver_shared: set[int] = {self.funcs0}
        #: for the result cache (recipelint.cache.results), what analyses with this library read:
        #: the files read (path → (size, SHA-256 hex) of the bytes read; None: could not be read)
        #: and the paths a sourced file was looked for at and not found
        self.read_files: dict[str, tuple[int, str] | None] = {}
        self.absent: set[str] = set()
        #: for the per-file cache (recipelint.lint.filecache), what the analysis under way used:
        #: the files it sourced or ran (also from this library's cache) and the paths it looked
        #: for one at and found nothing (``lint.analysis.Analyzer.analyze`` resets them per file)
        self.used: set[str] = set()
        self.looked: set[str] = set()

    def record(self) -> tuple[dict[str, tuple[int, str] | None], set[str]]:
        """What this library read and did not find (for a worker to hand to its parent)."""
        return dict(self.read_files), set(self.absent)

    def merge(self, record: tuple[dict[str, tuple[int, str] | None], set[str]]) -> None:
        """Add what another process's library read and did not find."""
        self.read_files.update(record[0])
        self.absent |= record[1]

    def roots_for(self, script: Path) -> list[Path]:
        """The folders a script's sourced files may be in."""
        if self.roots is not None:
            base = list(self.roots)
        else:
            key = ("roots", script.parent)
            if key not in self._resolved:
                find = self.root_of or (lambda s: repository_root(s) or Path(os.path.realpath(s.parent)))
                self._resolved[key] = find(script)
            base = [self._resolved[key]]
        return base + [r for r in self.search_roots if r not in base]

    def load(self, target: str | None, shown: str, script: Path, stub: bool = True) -> Parsed | Refused | None:
        """The parsed file ``target`` names (sourced or run from ``script``); None when there is
        no such file (nor, with ``stub``, a model of it); the :class:`Refused` when it exists but
        is not read (outside the roots, a system or special file, too large, not text)."""
        path = self._resolve(target, script) if target is not None else None
        if isinstance(path, Refused):
            if target is not None:
                self.used.add(target)
            return path
        if path is not None:
            self.used.add(str(path))
        if path is None and not stub:
            return None
        stubbed = path is None
        if path is None:
            name = os.path.basename(target if target is not None else shown.replace("⟨", "").replace("⟩", ""))
            stub = self.STUB_DIR / name
            if name.endswith(".sh") and stub.is_file():
                path = stub
            elif "benchmark_lib" in shown:
                path = self.STUB_DIR / "benchmark_lib.sh"
            else:
                return None
        key = str(path)
        if key in self.cache:
            return self.cache[key]
        data = None
        try:
            data = read_regular(path, MAX_BYTES)
        except Refused as r:
            self.cache[key] = None if r.kind == "missing" else r
            return self.cache[key]
        finally:
            if not stubbed:  # (recipelint's own models are covered by its code fingerprint)
                self.read_files[os.path.abspath(key)] = (
                    (len(data), hashlib.sha256(data).hexdigest()) if data is not None else None
                )
        if b"\x00" in data[:8192]:
            self.cache[key] = Refused("binary", f"{path}: binary file (contains NUL bytes)")
            return self.cache[key]
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            self.cache[key] = Refused("not-utf8", f"{path}: not valid UTF-8 (offset {exc.start})")
            return self.cache[key]
        src = SourceFile(str(path), data)
        if self.cache_dir is not None:
            from recipelint.cache.trees import parse_cached

            parsed = parse_cached(src, text, self.cache_dir)
        else:
            parsed = parse(src)
        if parsed.too_large:  # not followed, like a file that cannot be read (`source` notes it)
            self.cache[key] = Refused("too-large", f"{path}: {parsed.too_large}")
            return self.cache[key]
        self.cache[key] = parsed
        self.sources.add(id(src))
        return parsed

    def _resolve(self, target: str, script: Path) -> Path | Refused | None:
        key = (target, script)
        if key not in self._resolved:  # `source lib.sh` is resolved once per script (every point sources it)
            before = set(self.absent)
            self._resolved[key] = self._find(target, script)
            self._resolved[("looked", key)] = self.absent - before
        self.looked |= self._resolved.get(("looked", key)) or set()
        return self._resolved[key]

    def _find(self, target: str, script: Path) -> Path | Refused | None:
        """The file ``target`` names, resolved and inside the roots; a :class:`Refused` for one
        that exists but is not (named absolutely or relative to the script's folder: a name
        only found in an ancestor outside the roots is not looked for there); None when none
        exists."""
        p = Path(target)
        roots = self.roots_for(script)
        candidates = [p if p.is_absolute() else script.parent / p]
        if not p.is_absolute():
            top = next((r for r in roots if _within(script.parent, r)), None)
            for anc in script.parents[1:] if len(script.parents) > 1 else ():
                if top is not None and _within(anc, top):
                    candidates.append(anc / p)
            for root in self.search_roots:
                candidates.append(root / p)
        for i, c in enumerate(candidates):
            try:
                if not os.path.exists(c) or os.path.isdir(c):
                    self.absent.add(os.path.abspath(c))  # (a file put there later would be the one sourced)
                    continue
                return confine(c, roots)
            except Refused as r:
                if i == 0:  # the file the name names: not read
                    return r
            except (OSError, ValueError):
                continue
        return None


def _within(path: Path, root: Path) -> bool:
    a, b = os.path.realpath(path), os.path.realpath(root)
    return a == b or a.startswith(b.rstrip("/") + "/")
