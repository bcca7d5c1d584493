"""Per-file findings cache: a recipe whose inputs have not changed is not analysed again.

The result cache (``recipelint.cache.results``) answers a run whose whole tree is byte-identical
to an earlier run's.  This one answers for one recipe at a time: its findings (what the per-file
rules said of it, before grouping and suppressions) are kept under a key made of what they can
depend on, with every path relative to the project root, so that

* an edit to one recipe re-analyses that recipe and its family, not the tree;
* a diff's base tree (exported under the cache, or a temporary folder) shares entries with the
  work tree for every file alike in both, whatever the export's path.

The key (``FileCache.key``) holds recipelint's code fingerprint; the run's rules, settings (the
settings file by its path relative to the root) and engine pins; what every recipe reads — the
runners' launch scripts (RL507), whether master configs exist; and, for the recipe and each
member of its family (the same name with another hardware
token, in its folder: the parity rules compare them), its path, its bytes' digest, its sweep
points (labels with their config lines, environments, declared engine versions: a finding's notes
name those lines), the review checklist and waivers it is judged under (RL7xx), and the digests of every file whose base name its text names, followed through
the shell files among them (what it can source or run).

An entry is written only when the analyses it was made from read nothing else: every file a
recipe or family member sourced (``FileResult.used``) and every path it looked for one at
(``FileResult.looked``) must be among the names its text holds — a file sourced through a name
built at run time makes the recipe uncacheable, never stale.  Entries are sealed JSON
(``store.write_entry``), one per key, in ``<cache>/files/``; the ``KEEP`` most recent are kept.
Every failure is a miss.
"""

from __future__ import annotations

import hashlib
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from recipelint.bash.source import Span
from recipelint.cache.results import SKIP_DIRS, walk_files
from recipelint.cache.store import BAD_ENTRY, FORMAT, code_fingerprint, file_digest, prune, read_entry, write_entry
from recipelint.engines import facts
from recipelint.lint.findings import Finding
from recipelint.lint.scope import may_be_shell, renamed_candidates

#: entries kept (a tree of a few hundred recipes, in a few trees: base, head, branches)
KEEP = 8192
#: a tree with more files than this is not indexed (the cache is not used)
MAX_FILES = 20_000
#: the largest file whose text is searched for names, and the most bytes the keys of a run read
#: (beyond it the run is not cached)
MAX_TEXT = 1 << 20
MAX_READ = 64 << 20
#: a word that may name a file: what lies between quotes, blanks, slashes and shell punctuation
_WORD = re.compile(rb"[A-Za-z0-9_.+@-]+")


@dataclass(slots=True)
class Hit:
    """A cached recipe: its raw findings (paths in this tree), whether it launches, whether an
    entry runs it."""

    findings: list[Finding]
    launched: bool
    run: bool


@dataclass(slots=True)
class FileCache:
    """The per-file cache of one run over the tree ``root``; ``run_key``: the run's rules,
    settings and pins, as text free of the tree's own path."""

    root: Path
    run_key: str
    folder: Path
    groups: list = field(default_factory=list)
    _names: dict[str, list[str]] | None = None  # base name -> paths relative to the root
    _global: str | None = None
    _deps: dict[str, tuple] = field(default_factory=dict)
    _words: dict[str, frozenset[bytes]] = field(default_factory=dict)
    _digests: dict[str, str] = field(default_factory=dict)
    _named: dict[str, tuple[list[str], set[str]]] = field(default_factory=dict)
    _member: dict[str, str] = field(default_factory=dict)
    _keys: frozenset[bytes] | None = None
    _policies: dict[str, str] = field(default_factory=dict)
    #: the master configs' folder (``runners/`` is beside it)
    config_root: Path | None = None
    disabled: bool = False
    written: int = 0
    read_bytes: int = 0

    # ---- what a key is made of ------------------------------------------------------------

    def _index(self) -> dict[str, list[str]]:
        if self._names is None:
            names: dict[str, list[str]] = {}
            cut = len(os.path.abspath(self.root)) + 1
            for n, e in enumerate(walk_files(self.root), 1):
                if n > MAX_FILES:
                    self.disabled = True
                    names = {}
                    break
                names.setdefault(e.name, []).append(e.path[cut:].replace(os.sep, "/"))
            self._names = names
        return self._names

    def _digest(self, rel: str) -> str:
        """The digest of a file of the tree; a link is followed only inside the root (else where it
        leads is what the key holds: recipelint does not read it), as the result cache does."""
        hit = self._digests.get(rel)
        if hit is None:
            from recipelint.files import Refused, confine

            try:
                real = confine(os.path.join(self.root, rel), [self.root])
                size, d = file_digest(str(real))
                hit = f"{size}:{d.hex()}"
            except Refused as r:
                hit = f"refused {r.kind} {r}"
            except OSError as e:
                hit = f"unreadable {e.errno}"
            self._digests[rel] = hit
        return hit

    def _text_words(self, rel: str) -> frozenset[bytes]:
        hit = self._words.get(rel)
        if hit is None:
            from recipelint.files import Refused, confine, read_regular

            try:
                data = read_regular(confine(os.path.join(self.root, rel), [self.root]), MAX_TEXT)
            except Refused:
                data = b""
            self.read_bytes += len(data)
            if self.read_bytes > MAX_READ:
                self.disabled = True  # (keys would read more than a run should: no cache for this run)
            hit = self._words[rel] = frozenset(_WORD.findall(data))
        return hit

    def named(self, rel: str) -> tuple[list[str], set[str]]:
        """(the files ``rel``'s text names, followed through shell files: paths relative to the
        root, sorted; the words its text and theirs hold: every name it can source)."""
        hit = self._named.get(rel)
        if hit is None:
            hit = self._named[rel] = self._find_named(rel)
        return hit

    def _find_named(self, rel: str) -> tuple[list[str], set[str]]:
        names = self._index()
        keys = self._name_keys()
        seen: set[str] = {rel}
        words: set[bytes] = set()
        work = [rel]
        while work:
            cur = work.pop()
            mine = self._text_words(cur)
            words |= mine
            for name in mine & keys:
                for other in names[name.decode("utf-8", "surrogateescape")]:
                    if other not in seen:
                        seen.add(other)
                        if may_be_shell(other.rsplit("/", 1)[-1]):
                            work.append(other)
        seen.discard(rel)
        return sorted(seen), {w.decode("utf-8", "surrogateescape") for w in words}

    def _name_keys(self) -> frozenset[bytes]:
        if self._keys is None:
            self._keys = frozenset(n.encode("utf-8", "surrogateescape") for n in self._index())
        return self._keys

    def _global_key(self) -> str:
        """What every recipe of the tree reads: the runners' exports (RL507: ``runners/*.sh`` beside
        the master configs), its `.gitmodules` (RL601) and the parser files of engine source trees
        in it."""
        if self._global is None:
            parts = []
            runners = (self.config_root or self.root) / "runners"
            if runners.is_dir():
                from recipelint.files import Refused, confine

                for p in sorted(runners.glob("*.sh")):
                    try:  # (as RL507 reads them: inside the configs' root)
                        parts.append(f"{p.name}={file_digest(str(confine(p, [runners.parent])))[1].hex()}")
                    except Refused as r:
                        parts.append(f"{p.name} refused {r.kind}")
                    except OSError as e:
                        parts.append(f"{p.name} unreadable {e.errno}")
            # the repository's git submodules: one that is a checkout of an engine (RL601's
            # `engine_submodule`) changes how a flag upstream lacks is said
            if (self.root / ".gitmodules").is_file():
                parts.append(f".gitmodules={self._digest('.gitmodules')}")
            # engines' own source trees (recipelint.engines.trees): a recipe below one is judged
            # with its parser's flags
            from recipelint.engines.trees import tree_files

            for f in tree_files():
                for rel in sorted(self._index().get(f.rsplit("/", 1)[-1], ())):
                    if rel == f or rel.endswith("/" + f):
                        parts.append(f"{rel}={self._digest(rel)}")
            self._global = "\0".join(parts)
        return self._global

    def _policy(self, rel: str) -> str:
        """The review policy a recipe is judged under (RL7xx: the checklist found from its folder
        up, as ``rulebase.Project.policy_root`` finds it, and its waivers)."""
        folder = rel.rpartition("/")[0]
        hit = self._policies.get(folder)
        if hit is None:
            pol = facts.load("policy")
            hit = "no policy"
            start = Path(os.path.realpath(self.root / folder))
            for d in [start, *start.parents]:
                m = d / pol["enabled_by"]
                if m.is_file():  # (the rules only ask whether it is there)
                    from recipelint.files import Refused, confine

                    parts = [f"policy {self.rel(d)}"]
                    waivers = d / pol["waiver_dir"]
                    for w in sorted(waivers.glob("*.md")) if waivers.is_dir() else []:
                        try:  # (as ``Project.waivers`` reads them: inside the checklist's folder)
                            parts.append(f"waiver {w.name} {file_digest(str(confine(w, [d])))[1].hex()}")
                        except Refused as r:
                            parts.append(f"waiver {w.name} refused {r.kind}")
                        except OSError as e:
                            parts.append(f"waiver {w.name} unreadable {e.errno}")
                    hit = "\0".join(parts)
                    break
            self._policies[folder] = hit
        return hit

    def _points(self, points) -> str:
        out = []
        for p in points or ():
            extra = {k: v for k, v in p.extra.items() if k != "config"}
            origin = p.origin
            where = None
            if isinstance(origin, Span):
                where = (self.rel(origin.path), origin.line, origin.col)
            env = sorted((k, repr(v)) for k, v in p.env.items())
            out.append(repr((p.label, p.config_key, env, where, sorted((k, repr(v)) for k, v in extra.items()))))
        return "\n".join(out)

    def rel(self, path: str | Path) -> str:
        full = os.path.abspath(path)
        base = os.path.abspath(self.root)
        if full == base or full.startswith(base + os.sep):
            return full[len(base) + 1 :].replace(os.sep, "/")
        return full

    def key(self, path: Path, points_of) -> tuple[str, dict[str, tuple[set[str], set[str]]]] | None:
        """The key of recipe ``path`` (``points_of(path)``: its sweep points), and for it and each
        member of its family, (the files the key covers as what it sources, the words its text
        and theirs hold) — or None when the recipe is not cacheable here."""
        rel = self.rel(path)
        if rel.startswith("/") or self.disabled:
            return None
        from recipelint.files import Refused, confine

        try:
            confine(path, [self.root])
        except Refused:
            return None  # (a recipe linked out of the project: not read, not cached)
        self._index()
        if self.disabled:
            return None
        h = hashlib.sha256(code_fingerprint().encode())
        h.update(f"\0{FORMAT}\0{self.run_key}\0{self._global_key()}\0".encode())
        folder, _, name = rel.rpartition("/")
        members = [rel] + [
            (f"{folder}/{c}" if folder else c)
            for c in renamed_candidates(name, self.groups, across_groups=True)
            if os.path.isfile(os.path.join(self.root, folder, c))
        ]
        words: dict[str, tuple[set[str], set[str]]] = {}
        for m in members:
            deps, w = self.named(m)
            words[m] = (set(deps), w)
            h.update(self._member_key(m, points_of).encode())
        if self.disabled:
            return None
        return h.hexdigest(), words

    def _member_key(self, m: str, points_of) -> str:
        """A recipe's part of a key: its bytes, its sweep points and what it can source."""
        hit = self._member.get(m)
        if hit is None:
            deps, _ = self.named(m)
            parts = [f"member {m} {self._digest(m)}", self._policy(m), self._points(points_of(self.root / m))]
            parts += [f"dep {d} {self._digest(d)}" for d in deps]
            hit = self._member[m] = "\0".join(parts) + "\0\0"
        return hit

    # ---- entries ----------------------------------------------------------------------------

    def _entry(self, key: str) -> Path:
        return self.folder / f"{key}.json"

    def load(self, key: str) -> Hit | None:
        try:
            data = read_entry(self._entry(key))
            if data.get("format") != FORMAT:
                return None
            found = [self._finding(d) for d in data["findings"]]
            return Hit(found, bool(data["launched"]), bool(data["run"]))
        except BAD_ENTRY:
            return None

    def store(
        self,
        key: str,
        words: dict[str, tuple[set[str], set[str]]],
        results: list,
        found: list[Finding],
        launched: bool,
        run: bool,
    ) -> None:
        """Write the entry, unless an analysis it was made from read a file its text does not name
        (``results``: the recipe's and its family's analyses that the rules used)."""
        for res in results:
            rel = self.rel(res.path)
            if rel not in words:
                return  # (a file outside the family the key covers: not cacheable)
            deps, allowed = words[rel]
            for p in getattr(res, "used", ()):
                if self.rel(p) not in deps:
                    return  # (sourced through a name its text does not hold, or from a folder not indexed)
            for p in getattr(res, "looked", ()):
                where = self.rel(p)
                if where.startswith("/") or any(part in SKIP_DIRS for part in where.split("/")[:-1]):
                    return
                if os.path.basename(p) not in allowed:
                    return
        payload = {
            "format": FORMAT,
            "launched": launched,
            "run": run,
            "findings": [self._dump(f) for f in found],
        }
        if write_entry(self._entry(key), payload):
            self.written += 1

    def close(self, others_wrote: bool = False) -> None:
        """The end of a run: keep the ``KEEP`` most recent entries (once, not after each write;
        ``others_wrote``: workers may have written some)."""
        if self.written or others_wrote:
            prune(self.folder, KEEP)
            self.written = 0

    def _dump(self, f: Finding) -> dict:
        return f.record(self.rel)

    def _finding(self, d: dict) -> Finding:
        return Finding.from_record(d, lambda p: p if str(p).startswith("/") else str(self.root / p))


def open_cache(root: Path, run_key: str, groups, config_root: Path | None = None) -> FileCache | None:
    from recipelint.cache.store import cache_dir

    d = cache_dir()
    if d is None:
        return None
    return FileCache(Path(os.path.abspath(root)), run_key, d / "files", list(groups), config_root=config_root)
