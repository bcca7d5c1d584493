"""Sourced libraries: the files a recipe sources, found, read within bounds and parsed once (with
recipelint's own model of the well-known helper library when the real file is absent)."""

from __future__ import annotations

import hashlib
import os
from importlib import resources
from pathlib import Path

from recipelint.bash.parse import parse
from recipelint.bash.source import SourceFile
from recipelint.bash.tree import Parsed
from recipelint.evaluate.support import _FUNCS_VERSION


class Library:
    """Finds and parses sourced files (cached); falls back to recipelint's own models of the
    well-known helper library when the real file is absent."""

    #: recipelint's models of well-known helper libraries (package data; read as files, with the
    #: same bounds as a recipe's)
    STUB_DIR = Path(str(resources.files("recipelint.evaluate") / "stubs"))

    def __init__(self, search_roots: list[Path] | None = None, cache_dir: Path | None = None):
        self.cache: dict[str, Parsed | None] = {}
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

    def record(self) -> tuple[dict[str, tuple[int, str] | None], set[str]]:
        """What this library read and did not find (for a worker to hand to its parent)."""
        return dict(self.read_files), set(self.absent)

    def merge(self, record: tuple[dict[str, tuple[int, str] | None], set[str]]) -> None:
        """Add what another process's library read and did not find."""
        self.read_files.update(record[0])
        self.absent |= record[1]

    def load(self, target: str | None, shown: str, script: Path, stub: bool = True) -> Parsed | None:
        path = self._resolve(target, script) if target is not None else None
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
            data = path.read_bytes()
            text = data.decode("utf-8")
        except (OSError, UnicodeDecodeError):
            self.cache[key] = None
            return None
        finally:
            if not stubbed:  # (recipelint's own models are covered by its code fingerprint)
                self.read_files[os.path.abspath(key)] = (
                    (len(data), hashlib.sha256(data).hexdigest()) if data is not None else None
                )
        src = SourceFile(str(path), data)
        if self.cache_dir is not None:
            from recipelint.cache.trees import parse_cached

            parsed = parse_cached(src, text, self.cache_dir)
        else:
            parsed = parse(src)
        if parsed.too_large:  # taken as absent, like a file that cannot be read (`source` notes it)
            parsed = None
        self.cache[key] = parsed
        if parsed is None:
            return None
        self.sources.add(id(src))
        return parsed

    def _resolve(self, target: str, script: Path) -> Path | None:
        key = (target, script)
        if key not in self._resolved:  # `source lib.sh` is resolved once per script (every point sources it)
            self._resolved[key] = self._find(target, script)
        return self._resolved[key]

    def _find(self, target: str, script: Path) -> Path | None:
        p = Path(target)
        candidates = []
        if p.is_absolute():
            candidates.append(p)
        else:
            candidates.append(script.parent / p)
            for anc in script.parents:
                candidates.append(anc / p)
            for root in self.search_roots:
                candidates.append(root / p)
        for c in candidates:
            try:
                if c.is_file():
                    return c.resolve()
            except OSError:
                pass
            self.absent.add(os.path.abspath(c))  # (a file put there later would be the one sourced)
        return None
