"""Diff mode's scope: what a change can affect, so that only that is analysed, at base and at head.

``--diff-base``, ``--pre-commit``, ``changes --base`` and ``--summary-file`` report what a change
did.  A finding of a file the change cannot affect is the same in the base and in the work tree
and would be subtracted away, so such a file need not be analysed in either tree.  The change
affects, and the scope holds:

* the recipes that changed (added, edited, deleted);
* the recipes that source (or run) a changed file: every shell file whose text names a changed
  file's base name outside a comment, followed through the files that name those (a library
  sourced by a library);
* the recipes whose sweep points changed — an entry of a master config edited, added or removed,
  ``runners.yaml``, the workflow template, a runner's launch script (it composes the recipe's
  path: ``sweep.layout``), the sweep generator or a dispatch workflow changed, a recipe added or removed that an
  entry's name resolution now finds — compared point by point (label without its line,
  environment);
* the family of each of those (the same recipe name with another hardware token, in its folder):
  their parity findings (RL401, RL101) compare them with the recipe that changed;
* the master-config entries that changed or run a recipe of the scope (RL506, RL703) — a
  multi-node entry also when an engine configuration file it names changed (the TensorRT-LLM
  options of srt-slurm recipes: RL606, RL608, RL610, RL607, RL103, RL609) — and every entry a
  rule says in one finding with one of those (``lint.groups``: RL609's multi-node
  TensorRT-LLM entries, RL506's entries behind one unreadable launcher).

A change to something every recipe depends on — recipelint's settings, the repository's engine
pins or submodules, the policy checklist or its waivers — makes the scope the whole tree.  A runner's launch
script brings in the recipes that use a name it exports in one tree only (RL507).  ``Scope.summary`` says how much was analysed and why.  ``tests/test_scope.py`` and
``tools/diff_scope_equivalence.py`` check that the scoped diff equals the whole-tree diff, the
latter on real histories.
"""

from __future__ import annotations

import fnmatch
import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from recipelint.cache.results import walk_files
from recipelint.engines import facts
from recipelint.files import has_no_suffix, shebang_interpreter
from recipelint.lint.fingerprint import point_id

#: the reason of a recipe in the scope only because a recipe of its family is: alike in both trees
SIBLING = "a sibling changed"
#: the largest file whose text is searched for the names of changed files (a sourced file is
#: at most this large in practice; larger ones are data)
MAX_SEARCHED = 1 << 20
#: more files than this in the tree, or more bytes in all: the scope is the whole tree (the
#: search for what names a changed file is bounded)
MAX_SEARCH_FILES = 20_000
MAX_SEARCH_BYTES = 64 << 20

#: settings files (``lint.settings.find``) and pins (``engines.pins.PATTERNS``): read for every recipe
_SETTINGS = (".recipelint.yaml", ".recipelint.yml")


@dataclass(slots=True)
class Scope:
    """What a diff-mode run analyses.  ``whole``: everything (``why`` says what made it so);
    else ``head``/``base``: the recipes (paths relative to each tree's top, POSIX) analysed in
    the work tree and in the base's export, and ``entries``: the (config path relative to the
    top, entry key) pairs whose findings are reported."""

    whole: bool = False
    why: list[str] = field(default_factory=list)
    head: set[str] = field(default_factory=set)
    base: set[str] = field(default_factory=set)
    entries: set[tuple[str, str]] = field(default_factory=set)
    changed: list[str] = field(default_factory=list)
    #: why each path of the scope is in it ("changed", "names benchmark_lib.sh", ...)
    reason: dict[str, str] = field(default_factory=dict)
    #: whether the sweep points were compared (a config, a workflow or the recipes' names changed)
    configs_compared: bool = False
    #: the master config sets loaded to compare them (``lint.check.Options.preloaded``)
    configs: dict = field(default_factory=dict, repr=False)

    def summary(self, analysed: list[str], total: int | None = None) -> str:
        """One line for people: how much was analysed (``analysed``: the recipes of the scope a
        run checked, relative to the top), and why."""
        if self.whole:
            return f"diff mode: the whole tree analysed at base and head ({'; '.join(self.why)})"
        if not self.changed:
            return "diff mode: no file changed since the base: nothing analysed"
        if not analysed:
            return (
                f"diff mode: {_count(len(self.changed), 'file')} changed, none of them a recipe or read by one: nothing analysed"
            )
        by: dict[str, int] = {}
        for rel in analysed:
            why = self.reason.get(rel, "changed")
            by[why] = by.get(why, 0) + 1
        parts = [f"{n} {why}" for why, n in sorted(by.items(), key=lambda kv: (kv[0] != "changed", -kv[1], kv[0]))]
        of = f" of {total}" if total is not None else ""
        return (
            f"diff mode: {_count(len(analysed), 'recipe')}{of} analysed at base and head "
            f"({', '.join(parts)}; {_count(len(self.changed), 'file')} changed)"
        )


@dataclass(frozen=True, slots=True)
class Only:
    """A run restricted to a scope, in one tree: the recipes analysed (paths relative to ``root``,
    the tree's top), the master-config entries reported ((config path relative to ``root``,
    key)), and whether the master configs changed (then every entry is read, as in a run over the
    whole tree, so that a changed entry's config problems are found in both trees)."""

    root: Path
    recipes: frozenset[str]
    entries: frozenset[tuple[str, str]]
    configs_changed: bool

    def key(self) -> tuple:
        return (sorted(self.recipes), sorted(self.entries), self.configs_changed)


def _count(n: int, what: str) -> str:
    return f"{n} {what}{'s' if n != 1 else ''}"


def renamed_candidates(name: str, groups: list[list[str]], across_groups: bool) -> list[str]:
    """The file names of ``name``'s siblings (another hardware token of the same group in the
    name) or, ``across_groups``, of its family (any other hardware token): candidates, whether
    or not such files exist (``rulebase.Project.siblings``/``family`` look them up)."""
    tokens = re.split(r"([_.-])", name)
    every = [hw for group in groups for hw in group]
    out: list[str] = []
    for i, tok in enumerate(tokens):
        for group in groups:
            if tok.lower() in group:
                for other in every if across_groups else group:
                    if other == tok.lower():
                        continue
                    cand = "".join(tokens[:i] + [other] + tokens[i + 1 :])
                    if cand not in out:
                        out.append(cand)
    return out


def _global(rel: str, config_root: str) -> str | None:
    """Why a change to ``rel`` affects every recipe, or None."""
    name = rel.rsplit("/", 1)[-1]
    if name in _SETTINGS:
        return f"recipelint's settings {rel} changed"
    if rel == ".gitmodules":  # (an engine submodule: how RL601 says a flag upstream lacks)
        return "the repository's submodules (.gitmodules) changed"
    from recipelint.engines.pins import PATTERNS

    if any(fnmatch.fnmatchcase(name, pat) for pat in PATTERNS):
        return f"{rel} changed (engine pins{' and settings' if name == 'pyproject.toml' else ''})"
    pol = facts.load("policy")
    # (the checklist is looked for from each recipe's folder up: it may sit in any folder)
    waivers = "/" + pol["waiver_dir"].strip("/") + "/"
    if ("/" + rel).endswith("/" + pol["enabled_by"]) or (waivers in "/" + rel and rel.endswith(".md")):
        return f"the review policy {rel} changed"
    return None


def _runner(rel: str, config_root: str) -> bool:
    """Whether ``rel`` is a runner's launch script (``runners/*.sh`` beside the master configs),
    whose exports every recipe that runner starts has (RL507)."""
    under = rel[len(config_root) + 1 :] if config_root and rel.startswith(config_root + "/") else rel
    return under.startswith("runners/") and under.endswith(".sh") and under.count("/") == 1


def _generator(rel: str, config_root: str) -> bool:
    """Whether ``rel`` is the sweep generator whose context-length rule the sweep points follow
    (``generator`` in ``rules/data/inferencex.yaml``)."""
    gen = facts.load("inferencex").get("generator")
    under = rel[len(config_root) + 1 :] if config_root and rel.startswith(config_root + "/") else rel
    return bool(gen) and under == gen


def _texts(top: Path) -> dict[str, bytes] | None:
    """Every regular file under ``top`` that may be a shell file (``_shell``), up to
    ``MAX_SEARCHED`` (folders of ``SKIP_DIRS`` not entered, links not followed), by path relative
    to ``top``; None beyond ``MAX_SEARCH_FILES``."""
    from recipelint.files import Refused, read_regular

    out: dict[str, bytes] = {}
    cut = len(os.path.abspath(top)) + 1
    total = 0
    for e in walk_files(top):
        name = e.name
        if not may_be_shell(name):
            continue  # (only a shell file sources or runs another: ``_shell``)
        try:
            if not e.is_file(follow_symlinks=False) or e.stat(follow_symlinks=False).st_size > MAX_SEARCHED:
                continue
        except OSError:
            continue
        if len(out) >= MAX_SEARCH_FILES:
            return None
        try:
            data = out[e.path[cut:].replace(os.sep, "/")] = read_regular(e.path, MAX_SEARCHED)
        except Refused:
            continue
        total += len(data)
        if total > MAX_SEARCH_BYTES:
            return None
    return out


#: the files that can source or run another: shell scripts (a file without a suffix counts when
#: its first line runs a shell)
SHELL_SUFFIXES = (".sh", ".bash", ".env", ".slurm", ".sbatch", ".inc", ".rc")


def may_be_shell(name: str) -> bool:
    """Whether a file of this name may be a shell file (by its name alone: a known suffix, or none)."""
    return name.endswith(SHELL_SUFFIXES) or has_no_suffix(name)


def _shell(rel: str, data: bytes) -> bool:
    name = rel.rsplit("/", 1)[-1]
    if name.endswith(SHELL_SUFFIXES):
        return True
    if not may_be_shell(name):
        return False
    interpreter = shebang_interpreter(data[:256])
    return interpreter is not None and interpreter.endswith("sh")  # (any shell: one may run another)


def _uses(data: bytes, needle: bytes) -> bool:
    """Whether ``needle`` occurs in ``data`` outside a comment line (a recipe that names a file
    in a comment does not source it)."""
    i = data.find(needle)
    while i >= 0:
        start = data.rfind(b"\n", 0, i) + 1
        if not data[start:i].lstrip().startswith(b"#"):
            return True
        i = data.find(needle, i + 1)
    return False


def point_signature(points) -> tuple:
    """What a recipe's sweep points are, without the config lines they were read from."""
    out = []
    for p in points or ():
        env = tuple(sorted((k, v if type(v) is str else repr(v) + repr(getattr(v, "nonempty", ""))) for k, v in p.env.items()))
        out.append((point_id(p.label), p.config_key, env))
    return tuple(out)


def rel_to(path: str | Path, top: Path) -> str | None:
    """``path`` relative to the tree top ``top`` (links resolved), POSIX; None outside it."""
    try:
        return Path(os.path.realpath(path)).relative_to(os.path.realpath(top)).as_posix()
    except ValueError:
        return None


def _config_view(cs, top: Path) -> tuple[dict[str, tuple], dict[tuple[str, str], tuple], set[str]]:
    """(recipe → its points' signature, (config, key) → the entry's signature, the config files)
    of a ``ConfigSet``, paths relative to ``top``.  (An entry's points are its recipes' points:
    compared there.)"""
    real_top = os.path.realpath(top) + os.sep

    def rel_of_real(real: str) -> str | None:  # (the config set's recipe paths are resolved already)
        return real[len(real_top) :].replace(os.sep, "/") if real.startswith(real_top) else None

    scripts: dict[str, tuple] = {}
    for real, pts in cs.by_script.items():
        rel = rel_of_real(real)
        if rel is not None:
            scripts[rel] = point_signature(pts)
    entries: dict[tuple[str, str], tuple] = {}
    files: dict[object, str] = {}
    for e in cs.entries:
        if e.path not in files:
            files[e.path] = rel_to(e.path, top) or str(e.path)
        resolved = tuple(sorted(r for x in e.resolved if (r := rel_of_real(x)) is not None))
        entries[(files[e.path], e.key)] = (
            e.runner,
            e.framework,
            e.multinode,
            e.image,
            tuple(e.scripts),
            resolved,
            tuple(e.missing),
            _engine_files_signature(cs, e, top),
        )
    return scripts, entries, {r for f in cs.files if (r := rel_to(f, top)) is not None}


def _said_together(cs, top: Path) -> dict[tuple[str, str], set]:
    """(config, key) → the groups of entries rules say together (``lint.groups``), for the
    entries in some group."""
    from recipelint.lint.groups import SAID_TOGETHER

    out: dict[tuple[str, str], set] = {}
    for e in getattr(cs, "entries", None) or ():
        gs = {(code, g) for code, group in SAID_TOGETHER.items() if (g := group(e)) is not None}
        if gs:
            out.setdefault((rel_to(e.path, top) or str(e.path), e.key), set()).update(gs)
    return out


def _engine_files_signature(cs, e, top: Path) -> tuple:
    """A multi-node entry's engine configuration files with their content's digest: a change to
    one (an srt-slurm recipe) changes the entry (its findings are the project rules')."""
    import hashlib

    from recipelint.files import Refused, confine, read_regular

    out = []
    for f in getattr(e, "engine_files", ()):
        tree = cs.engine_tree(f)
        try:
            digest = hashlib.sha256(read_regular(confine(top / tree, [top]), MAX_SEARCHED)).hexdigest()
        except (Refused, OSError, ValueError):
            digest = None
        out.append((tree, f.line, f.concs, digest))
    return tuple(out)


def compute(
    top: Path,
    base_dir: Path,
    changed: list[str],
    renamed: dict[str, str],
    configs_of: Callable[[Path], object] | None,
    config_root: Path | None,
) -> Scope:
    """The scope of a change between the base (exported under ``base_dir``, laid out like the work
    tree ``top``) and the work tree.  ``changed``: paths relative to ``top`` whose content differs
    (``gitdiff.changed_paths``); ``renamed``: base path → work-tree path; ``configs_of(tree_top)``:
    the ``ConfigSet`` a run over that tree loads (None: no master configs)."""
    sc = Scope(changed=list(changed))
    if not changed:
        return sc
    croot = rel_to(config_root, top) if config_root is not None else ""
    croot = "" if croot in (None, ".") else croot
    for rel in changed:
        why = _global(rel, croot or "")
        if why is not None:
            sc.whole = True
            sc.why.append(why)
            return sc
    exported: set[str] = set()
    if any(_runner(rel, croot or "") for rel in changed):
        # the names the runners export, in both trees: a recipe that uses one that is exported
        # in one tree only may be judged otherwise (RL507)
        from recipelint.lint.rulebase import runner_exports

        head_root = config_root if config_root is not None else top
        rel_root = rel_to(head_root, top) or ""
        base_root = base_dir / rel_root if rel_root not in ("", ".") else base_dir
        exported = runner_exports(head_root) ^ runner_exports(base_root)
    texts = _texts(top)
    if texts is None:
        sc.whole = True
        sc.why.append(
            f"more than {MAX_SEARCH_FILES} shell files or {MAX_SEARCH_BYTES >> 20} MiB to search for what sources a changed file"
        )
        return sc

    def exists_base(rel: str) -> bool:
        return os.path.lexists(base_dir / rel)

    def exists_head(rel: str) -> bool:
        return os.path.lexists(top / rel)

    affected: dict[str, str] = {}

    def add(rel: str, why: str) -> None:
        if rel not in affected:
            affected[rel] = why

    # the files that changed, and what names them, followed (a library sourced by a library)
    seen_names: set[str] = set()
    work = [rel for rel in changed]
    for rel in changed:
        add(rel, "changed")
    while work:
        rel = work.pop()
        name = rel.rsplit("/", 1)[-1]
        if not name or name in seen_names:
            continue
        seen_names.add(name)
        needle = name.encode("utf-8", "surrogateescape")
        for other, data in texts.items():
            if other not in affected and needle in data and _shell(other, data) and _uses(data, needle):
                add(other, f"names {name}")
                work.append(other)
    for name in sorted(exported):
        needle = name.encode()
        for other, data in texts.items():
            if other not in affected and needle in data and _shell(other, data) and _uses(data, needle):
                add(other, f"uses {name}, which a runner exports in one tree only")
    # sweep points: compared entry by entry when something they come from may have changed
    one_sided = [r for r in changed if exists_head(r) != exists_base(r)]
    entries: set[tuple[str, str]] = set()
    if configs_of is not None and (
        any(r.endswith((".yaml", ".yml")) for r in changed)
        or any(r.endswith(".sh") for r in one_sided)
        or any(_runner(r, croot or "") or _generator(r, croot or "") for r in changed)  # (sweep.layout reads them)
    ):
        sc.configs_compared = True
        head_cs = configs_of(top)
        base_cs = configs_of(base_dir)
        if bool(getattr(head_cs, "found", False)) != bool(getattr(base_cs, "found", False)):
            # (master configs appeared or went: every recipe no entry runs is judged otherwise)
            sc.whole = True
            sc.why.append("master configs were added or removed")
            return sc
        hs, he, hf = _config_view(head_cs, top) if head_cs is not None else ({}, {}, set())
        bs, be, bf = _config_view(base_cs, base_dir) if base_cs is not None else ({}, {}, set())
        back = {v: k for k, v in renamed.items()}
        for rel in set(hs) | {renamed.get(r, r) for r in bs}:
            if hs.get(rel) != bs.get(back.get(rel, rel)):
                add(rel, "sweep points changed")
        for key in set(he) | set(be):
            if he.get(key) != be.get(key):
                entries.add(key)
                for side in (he.get(key), be.get(key)):
                    if side is not None:
                        for s in side[5]:
                            add(s, "sweep points changed")
        # a finding that says several entries together (``lint.groups``) is the whole tree's
        # only when every entry of its group is compared
        together = _said_together(head_cs, top)
        for key, gs in _said_together(base_cs, base_dir).items():  # (an entry's groups in either tree)
            together.setdefault(key, set()).update(gs)
        hit = {g for key, gs in together.items() if key in entries for g in gs}
        entries |= {key for key, gs in together.items() if gs & hit}
    # the family of each: parity rules compare them with it
    groups = facts.load("parity")["hardware_groups"]
    for rel in sorted(affected):
        folder, _, name = rel.rpartition("/")
        for cand in renamed_candidates(name, groups, across_groups=True):
            crel = f"{folder}/{cand}" if folder else cand
            if crel not in affected and (exists_head(crel) or exists_base(back_rel(crel, renamed))):
                affected[crel] = SIBLING
    sc.head = {r for r in affected if exists_head(r)}
    sc.base = {b for r in affected if exists_base(b := back_rel(r, renamed))}
    sc.entries = entries
    sc.reason = affected
    return sc


def back_rel(rel: str, renamed: dict[str, str]) -> str:
    """The base's path of the work tree's ``rel`` (a file renamed since the base)."""
    for b, h in renamed.items():
        if h == rel:
            return b
    return rel
