"""Master configs: from ``configs/*-master.yaml`` entries to sweep points and recipes.

The benchmark repository's launcher turns each ``search-space`` item of a master-config entry
into one job per concurrency, sets environment variables from it, and picks the recipe by name
(model prefix, precision, the runner's GPU, framework, ``_mtp``).  recipelint does the same,
with the rules kept as data (``rules/data/inferencex.yaml``), and keeps the YAML line of every
sweep point so findings can point at it.
"""

from __future__ import annotations

import bisect
import itertools
import json
import os
import re
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path

from recipelint.bash.source import Span
from recipelint.engines import facts
from recipelint.evaluate.values import Opaque
from recipelint.sweep.points import SweepPoint

MAX_POINTS_PER_ITEM = 4096
#: the largest master config, runners file or workflow read
MAX_CONFIG_BYTES = 16 * 1024 * 1024

#: sweep points followed per master-config entry and per run (each is an evaluation of its
#: recipes); beyond them the points are not made and an RL500 says what was cut.  InferenceX at
#: 843c6254f: 1,182 points in all, 42 in its largest entry; a 13 KB config whose items alias one
#: 2,000-value `conc-list` made 42,000 (71 s, 1.3 GB) before these bounds
MAX_POINTS_PER_ENTRY = 1024
MAX_POINTS_PER_RUN = 8192


@dataclass(slots=True)
class ConfigProblem:
    span: Span
    message: str


@dataclass(slots=True)
class EngineFile:
    """An engine configuration file a multi-node entry's search-space item names
    (`additional-settings: ["CONFIG_FILE=benchmarks/multi_node/srt-slurm-recipes/…yaml"]`), with
    what the item says about the run: its concurrencies and, per role (prefill, decode), the
    number of workers, TP, EP and attention DP."""

    file: str  # as written: relative to the orchestrator's working directory
    line: int  # the `CONFIG_FILE=` setting that names it
    concs: tuple[int, ...]
    roles: dict  # role -> {"workers": int | None, "tp": int | None, "ep": int | None, "dp_attn": bool | None}


@dataclass(slots=True)
class ConfigEntry:
    key: str
    path: Path
    line: int
    runner: str
    framework: str
    multinode: bool
    image: str = ""
    image_line: int = 0
    image_col: int = 1
    scripts: list[str] = field(default_factory=list)  # repo-relative recipe paths it runs
    resolved: list[str] = field(default_factory=list)  # the same, resolved (absolute, no links)
    missing: list[str] = field(default_factory=list)  # recipe paths it names that do not exist
    points: list[SweepPoint] = field(default_factory=list)
    read_from: list[str] = field(default_factory=list)  # the launchers whose reading gave its recipes
    unread: list[str] = field(default_factory=list)  # its launchers that could not be read (why: layout.unreadable)
    #: (scenario, its folder, the recipe, the launcher) where a launcher runs a recipe outside the
    #: folder the template's SCENARIO_SUBDIR names for the scenario
    outside: list[tuple[str, str, str, str]] = field(default_factory=list)
    #: multi-node entries: the engine configuration files their items name (``EngineFile``)
    engine_files: list[EngineFile] = field(default_factory=list)


@dataclass(slots=True)
class ConfigSet:
    root: Path | None
    files: list[Path] = field(default_factory=list)
    problems: list[ConfigProblem] = field(default_factory=list)
    entries: list[ConfigEntry] = field(default_factory=list)
    by_script: dict[str, list[SweepPoint]] = field(default_factory=dict)  # resolved path -> points
    #: the folders the files read must resolve into (``recipelint.files.confine``); None: anywhere
    roots: list[Path] | None = None
    #: files read wherever they are (named by the caller)
    trusted: set[str] = field(default_factory=set)
    points_made: int = 0  # sweep points of all entries (``MAX_POINTS_PER_RUN``)
    #: master configs that could not be read at all (not found, refused, not YAML, not a mapping:
    #: RL500 says why) — what their entries run is not known
    unread: list[Path] = field(default_factory=list)
    #: how the tree's launchers were read (``sweep.layout.Layout``); None: not read
    layout: object = None
    #: the tree's sweep generator's context-length offset (``sweep.layout.context_offset``)
    context_offset: int | None = None
    #: (destination, source) folders the runner launchers copy into a multi-node orchestrator's
    #: checkout (``sweep.layout.recipe_copies``), read when a multi-node entry names a file
    copies: list | None = None

    def engine_tree(self, ef: EngineFile) -> str:
        """Where a multi-node engine configuration file is in the checked tree: through the
        folders the runner launchers copy into the orchestrator's checkout
        (``sweep.layout.recipe_copies``, read once, when first asked), else as written."""
        from recipelint.sweep.layout import recipe_copies, tree_path

        if self.copies is None:
            self.copies = recipe_copies(Path(self.root), self.roots) if self.root is not None else []
        return tree_path(ef.file, self.copies)

    def points_for(self, path: Path) -> list[SweepPoint] | None:
        try:
            key = str(path.resolve())
        except OSError:
            return None
        return self.by_script.get(key)

    @property
    def found(self) -> bool:
        """Whether the tree has master configs (read, or there but unreadable: its recipes' sweep
        points are then not known, not the default matrix's)."""
        return bool(self.files or self.unread)


def find_root(start: Path) -> Path | None:
    """The benchmark repository root above ``start``: the first directory with master configs."""
    spec = facts.load("inferencex")
    try:
        cur = start.resolve()
    except (OSError, RuntimeError):  # a symbolic-link loop
        return None
    if cur.is_file():
        cur = cur.parent
    for d in [cur, *cur.parents]:
        for pattern in spec["configs"]:
            try:
                if any(d.glob(pattern)):
                    # (`configs/*` seen from inside `.github/`: the older layout's root is above it)
                    return d.parent if d.name == ".github" and not pattern.startswith(".") else d
            except OSError:
                continue
        if os.path.lexists(d / ".git"):  # the repository's root: configs above it belong to something else
            return None
    return None


def project_root(start: Path) -> Path:
    """The root of the project ``start`` (a recipe or a folder named, or a file it reads) is part
    of, resolved: the repository holding it (the nearest folder with ``.git``), else the folder
    with the master configs (``find_root``), else the folder named (a recipe's own folder).  A
    link named is not followed: where it is decides (a recipe linked to a file outside the
    project is outside it).  What a run reads is confined to these roots
    (``recipelint.files.confine``)."""
    from recipelint.files import repository_root

    repo = repository_root(start)
    if repo is not None:
        return repo
    try:
        here = start if start.is_dir() and not start.is_symlink() else start.parent
        found = find_root(here)
        return found.resolve() if found is not None else Path(os.path.realpath(here))
    except (OSError, RuntimeError, ValueError):
        return Path(os.path.abspath(start if start.is_dir() else start.parent))


def load(
    root: Path | None,
    explicit: list[Path] | None = None,
    cache_dir: Path | None = None,
    recipes: list[Path] | None = None,
    roots: list[Path] | None = None,
) -> ConfigSet:
    """Master configs → entries and sweep points.  ``cache_dir``: keep parsed YAML there.
    ``recipes``: the run checks only these recipes — entries that cannot run any of them are
    skipped: before parsing when their model prefix does not start a recipe's name (``sparse``),
    and before their launchers are read when ``<model prefix>_<precision>_`` does not — unless
    the tree shows that the second does not hold (``_names_held``): then only the first.
    ``roots``: the folders the files found (configs, runners, workflows) must resolve into (a
    config linked to a file outside is not read: RL500 says so); default: ``root``.  The
    ``explicit`` configs were named by the caller (and checked by it)."""
    cs, masters = _load(root, explicit, cache_dir, recipes, roots, by_precision=recipes is not None)
    if recipes is not None and not _names_held(cs, masters, recipes):
        cs, _ = _load(root, explicit, cache_dir, recipes, roots, by_precision=False)
    return cs


def _names_held(cs: ConfigSet, masters: list[ConfigEntry], recipes: list[Path]) -> bool:
    """Whether a load that skipped the entries of other precisions can be trusted: every recipe
    of the run in this tree got sweep points, and every single-node entry of the master configs
    (``masters``; not a dispatch workflow's, which runs recipes of several models) runs recipes
    named ``<model prefix>_<precision>_...`` (as in every sampled InferenceX commit:
    ``tools/recipe_names_probe.py``).  A recipe without points (a deprecated one, or a launcher
    that names recipes otherwise) is looked for in the entries of every precision."""
    top = os.path.join(os.path.realpath(cs.root), "") if cs.root is not None else ""
    if any(not cs.points_for(r) for r in recipes if os.path.realpath(r).startswith(top)):
        return False  # (a recipe of another tree — `recipelint changes` reads both with one list — is not this one's)
    for e in masters:
        if e.multinode or not e.points:
            continue
        env = e.points[0].env
        start = f"{env.get('MODEL_PREFIX')}_{env.get('PRECISION')}_"
        if any(not s.rsplit("/", 1)[-1].startswith(start) for s in e.scripts):
            return False
    return True


def _load(root, explicit, cache_dir, recipes, roots, by_precision: bool) -> tuple[ConfigSet, list[ConfigEntry]]:
    """``load``'s reading, and the entries of the master configs (those after them are the
    dispatch workflows')."""
    wanted = None
    if recipes is not None:
        names = [p.name for p in recipes]

        def wanted(prefix: str, precision: str | None = None) -> bool:
            start = f"{prefix}_" if precision is None or not by_precision else f"{prefix}_{precision}_"
            return any(n.startswith(start) for n in names)

    spec = facts.load("inferencex")
    files: list[Path] = []
    if explicit:
        files = list(explicit)
    elif root is not None:
        for pattern in spec["configs"]:  # the first layout that has configs
            files = sorted(root.glob(pattern))
            if files:
                break
    cs = ConfigSet(root)
    if not files:
        return cs, []
    cs.trusted = {str(f) for f in explicit or []}
    if root is None:
        root = files[0].resolve().parent.parent
        if root.name == ".github":  # the older layout, .github/configs/
            root = root.parent
        cs.root = root
    cs.roots = list(roots) if roots is not None else [root]
    # runners.yaml beside the configs; for a config named from elsewhere, the layouts' folders
    near = [files[0].parent] + [root / Path(pat).parent for pat in spec["configs"]]
    where = next((d / spec["runners"] for d in near if (d / spec["runners"]).is_file()), near[0] / spec["runners"])
    runners = _load_yaml(where, cs, required=False, cache_dir=cache_dir) or {}
    labels = runners.get("labels") or {}
    hardware = runners.get("hardware") or {}
    if not labels and "labels" not in runners and hasattr(runners, "items"):
        # before #1970 (2026-07-02) runners.yaml was the labels table itself: label -> nodes
        labels = {k: v for k, v in runners.items() if isinstance(v, list)}
    from recipelint.sweep.layout import Layout, context_offset, template

    layout = cs.layout = Layout(root, spec, cs.roots, cache_dir)
    tenv = template(root, spec, cs.roots)
    cs.context_offset = context_offset(root, spec, cs.roots)
    for f in files:
        data = _load_yaml(f, cs, required=True, cache_dir=cache_dir, wanted=wanted)
        if data is None:
            cs.unread.append(f)
            continue
        cs.files.append(f)
        if not hasattr(data, "items"):
            cs.problems.append(ConfigProblem(Span(str(f), 1, 1, 1, 1), "a master config must be a mapping of entries"))
            cs.unread.append(f)
            continue
        for key, entry in data.items():
            try:
                _expand_entry(cs, f, str(key), entry, data, labels, hardware, root, spec, layout, tenv, wanted)
            except (KeyError, TypeError, ValueError, AttributeError, ArithmeticError) as e:  # (`tp: .inf`, a Decimal of text)
                line = _line(data, key)
                cs.problems.append(ConfigProblem(Span(str(f), line, 1, line, 1), f"entry `{key}`: cannot expand ({_why(e)})"))
    legacy = _legacy_env(tenv, spec)
    if legacy:  # an older template: its recipes read the older names
        for pts in cs.by_script.values():
            for pt in pts:
                for old, new in legacy.items():
                    if new in pt.env and old not in pt.env:
                        pt.env[old] = pt.env[new]
    masters = list(cs.entries)
    for wf in spec.get("dispatch_workflows") or []:
        _load_workflow(cs, root, wf, cache_dir)
    return cs, masters


def workflow_files(root: Path) -> list[Path]:
    """The sweep sources under dot-folders that the cache's tree walk skips: the dispatch
    workflows and the template workflow (``rules/data/inferencex.yaml``), and master configs
    and runners of the ``.github/configs/`` layout, present under ``root``."""
    spec = facts.load("inferencex")
    out = []
    names = [wf["file"] for wf in spec.get("dispatch_workflows") or []]
    if spec.get("template_workflow"):
        names.append(spec["template_workflow"])
    for name in names:
        p = root / name
        if p.is_file():
            out.append(p)
    for pattern in spec["configs"]:
        if pattern.startswith("."):
            found = sorted(root.glob(pattern))
            out.extend(found)
            if found and (found[0].parent / spec["runners"]).is_file():
                out.append(found[0].parent / spec["runners"])
    return out


def _legacy_env(tpl, spec: dict) -> dict[str, str]:
    """Older variable name -> the current one, for the older names the template workflow's
    ``env:`` declares (``tpl``: ``sweep.layout.template``, None without one)."""
    legacy = spec.get("legacy_env") or {}
    return {old: new for old, new in legacy.items() if tpl is not None and old in tpl.env}


_EXPR = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")
_INPUT = re.compile(r"inputs\.([A-Za-z_][A-Za-z0-9_-]*)")


def _load_workflow(cs: ConfigSet, root: Path, wf: dict, cache_dir: Path | None) -> None:
    """A workflow dispatched by hand that runs a recipe itself (``rules/data/inferencex.yaml``,
    ``dispatch_workflows``): each recipe its script pattern matches gets one sweep point, the
    workflow's environment with every ``${{ inputs.NAME }}`` at its default — the input the
    pattern spans bound to the recipe's part of the name, and the inputs that go with that one
    (``follows``: the model of the default model prefix) unknown for another recipe.  Other
    expressions (secrets, variables) are unknown, set and non-empty."""
    path = root / wf["file"]
    if not path.is_file():
        return
    data = _load_yaml(path, cs, required=False, cache_dir=cache_dir)
    if not hasattr(data, "get"):
        return
    cs.files.append(path)
    name = path.name
    trigger = data.get("on") or {}
    dispatch = trigger.get("workflow_dispatch") if hasattr(trigger, "get") else None
    inputs = (dispatch.get("inputs") if hasattr(dispatch, "get") else None) or {}
    env = data.get("env") or {}
    script_key = wf["script"]
    raw = env.get(script_key) if hasattr(env, "get") else None
    line, col = _value_pos(env, script_key, 1) if raw is not None else (1, 1)
    bound = _INPUT.findall(str(raw or ""))
    if raw is None or len(set(bound)) != 1 or not hasattr(inputs, "get"):
        cs.problems.append(
            ConfigProblem(
                Span(str(path), line, col, line, col), f"workflow `{name}`: `{script_key}` must name the recipe with one input"
            )
        )
        return
    bound = bound[0]
    defaults = {str(k): _input_default(v) for k, v in inputs.items()}
    pattern = _EXPR.sub(lambda m: "\0", str(raw))
    parts = pattern.split("/")
    if pattern.startswith("/") or any(p in ("", ".", "..") for p in parts) or any(c in pattern for c in "*?[]\\"):
        cs.problems.append(
            ConfigProblem(
                Span(str(path), line, col, line, col),
                f"workflow `{name}`: `{script_key}` must name a recipe file inside the repository",
            )
        )
        return
    rx = re.compile("^" + "([A-Za-z0-9._-]+)".join(re.escape(p) for p in pattern.split("\0")) + "$")
    try:
        found = sorted(p.relative_to(root).as_posix() for p in root.glob(pattern.replace("\0", "*")) if p.is_file())
    except (OSError, ValueError):
        found = []
    # where the points' environment is written: the env entries and the inputs' defaults
    lines = tuple(
        sorted(
            {_value_pos(env, k, line)[0] for k in env}
            | {_value_pos(v, "default", line)[0] for v in inputs.values() if hasattr(v, "get") and "default" in v}
        )
    )
    ce = ConfigEntry(name, path, line, str(defaults.get("runner") or ""), str(env.get("FRAMEWORK", "")), False)
    cs.entries.append(ce)
    for rel in found:
        m = rx.match(rel)
        if m is None or len(set(m.groups())) != 1:
            continue
        value = m.group(1)
        mine = dict(defaults)
        mine[bound] = value
        if value != defaults.get(bound):
            for k in wf.get("follows") or []:
                mine[str(k)] = Opaque()
        penv = {str(k): _substitute(v, mine) for k, v in env.items()}
        for k in wf.get("runner_env_opaque") or []:
            penv.setdefault(str(k), Opaque())
        if not ce.image and isinstance(penv.get("IMAGE"), str):
            ce.image, ce.image_line, ce.image_col = penv["IMAGE"], *_value_pos(env, "IMAGE", line)
        point = SweepPoint(
            f"{name}:{line}:{bound}={value}",
            penv,
            origin=Span(str(path), line, col, line, col),
            config_key=name,
            extra={"config": str(path), "lines": lines},
        )
        ce.points.append(point)
        ce.scripts.append(rel)
        key = str((root / rel).resolve())
        ce.resolved.append(key)
        cs.by_script.setdefault(key, []).append(point)


def _input_default(spec):
    d = spec.get("default") if hasattr(spec, "get") else None
    if d is None:
        return Opaque(nonempty=False)  # no default: whatever the dispatcher types, maybe nothing
    if isinstance(d, bool):
        return "true" if d else "false"
    return str(d)


def _substitute(value, inputs: dict):
    """A workflow env value with its expressions replaced: str, or Opaque when one is unknown."""
    text = "" if value is None else ("true" if value is True else "false" if value is False else str(value))
    unknown = []

    def sub(m):
        k = _INPUT.fullmatch(m.group(1))
        v = (inputs.get(k.group(1), "") if k else Opaque()) or ""  # an undeclared input is empty
        if isinstance(v, str):
            return v
        unknown.append(v)
        return ""

    out = _EXPR.sub(sub, text)
    if unknown:
        return Opaque(nonempty=bool(out) or any(u.nonempty for u in unknown))
    return out


def _why(e: Exception) -> str:
    if isinstance(e, KeyError):
        return f"missing field {e.args[0]!r}"
    return str(e).split("\n")[0][:120]


_TOP_KEY = re.compile(r"[^\s#'\"{\[&*!|>%@`-][^:#]*:[ \t]*(?:#.*)?")
_MODEL_PREFIX = re.compile(r"[ \t]+model-prefix:[ \t]*(['\"]?)([^'\"#\s]+)\1[ \t]*(?:#.*)?")
#: what the plain shape excludes: anchors and aliases (`&a`, `*a` at a line's start or after a
#: blank or flow punctuation), merge keys, directives and document markers (looked for with
#: plain substring searches first: a regex scan of a 300 KB config costs milliseconds)
_ANCHOR = re.compile(r"(?:^|[\s\[{,:])[&*][^\s]", re.M)


def _not_plain(text: str) -> bool:
    if "<<" in text or text.startswith(("---", "...", "%")) or "\n---" in text or "\n..." in text or "\n%" in text:
        return True
    for ch in "&*":
        at = text.find(ch)
        while at >= 0:
            if _ANCHOR.match(text, at if at == 0 or text[at - 1] == "\n" else at - 1):
                return True
            at = text.find(ch, at + 1)
    return False


def sparse(text: str, wanted) -> str | None:
    """The master config with every entry blanked out whose ``model-prefix`` lines all fail
    ``wanted`` — line and column numbers unchanged, so what is parsed stays exact.  Entries
    without a plain ``model-prefix:`` line are kept.  None (parse it all) unless the document has
    the plain shape this relies on: top-level ``key:`` lines over block mappings, no anchors,
    aliases, merge keys, directives or document markers."""
    if _not_plain(text):
        return None
    lines = text.split("\n")
    starts = []
    for i, ln in enumerate(lines):
        if not ln or ln[0] in " \t#":
            continue
        if not _TOP_KEY.fullmatch(ln.rstrip()):
            return None
        starts.append(i)
    if not starts:
        return None
    # the model prefixes of each entry, from one scan of the text (by the line they are on)
    line_at = list(itertools.accumulate((len(ln) + 1 for ln in lines), initial=0))
    prefixes: dict[int, list[str]] = {}
    at = text.find("model-prefix:")
    while at >= 0:
        line = bisect.bisect_right(line_at, at) - 1
        m = _MODEL_PREFIX.fullmatch(lines[line])
        k = bisect.bisect_right(starts, line) - 1
        if m is not None and k >= 0:  # (not above the first entry, which is blanked)
            prefixes.setdefault(starts[k], []).append(m.group(2))
        at = text.find("model-prefix:", line_at[line + 1])
    out = [""] * starts[0]  # comments above the first entry
    for a, b in zip(starts, starts[1:] + [len(lines)]):
        found = prefixes.get(a)
        if not found or any(wanted(p) for p in found):
            out.extend(lines[a:b])
        else:
            out.extend([""] * (b - a))
    return "\n".join(out)  # blank when no entry is wanted


def _load_yaml(path: Path, cs: ConfigSet, required: bool, cache_dir: Path | None = None, wanted=None):
    from recipelint.engines import yamlpos
    from recipelint.files import Refused, confine, read_text

    try:
        if cs.roots is not None and str(path) not in cs.trusted:
            confine(path, cs.roots)
        text = read_text(path, MAX_CONFIG_BYTES)
    except Refused as r:
        if r.kind == "missing":
            if required:
                cs.problems.append(ConfigProblem(Span(str(path), 1, 1, 1, 1), "config file not found"))
        else:
            why = r.reason[len(str(path)) + 2 :] if r.reason.startswith(f"{path}: ") else r.reason
            cs.problems.append(ConfigProblem(Span(str(path), 1, 1, 1, 1), f"cannot read config: {why}: not read"))
        return None
    if wanted is not None:
        cut = sparse(text, wanted)
        if cut is not None and not cut.strip():
            return {}  # entries, none of them wanted: an empty mapping, not an empty document
        text = cut or text
    try:
        return yamlpos.load_cached(text, cache_dir) if cache_dir is not None else yamlpos.load(text)
    except yamlpos.YAMLPosError as e:
        line = (e.line or 0) + 1
        col = (e.column or 0) + 1
        cs.problems.append(ConfigProblem(Span(str(path), line, col, line, col), f"invalid YAML: {e}"))
    except Exception as e:
        # ruamel's errors, imported only when there is one (a parse from the cache needs no ruamel)
        from ruamel.yaml.error import MarkedYAMLError, YAMLError

        if isinstance(e, MarkedYAMLError):
            mark = e.problem_mark or e.context_mark
            line = mark.line + 1 if mark is not None else 1
            col = mark.column + 1 if mark is not None else 1
            msg = " ".join(str(e.problem or e.context or "invalid YAML").split())
            cs.problems.append(ConfigProblem(Span(str(path), line, col, line, col), f"invalid YAML: {msg}"))
        elif isinstance(e, (YAMLError, RecursionError, ValueError)):
            cs.problems.append(ConfigProblem(Span(str(path), 1, 1, 1, 1), f"invalid YAML: {_why(e)}"))
        else:
            raise
    return None


def _line(mapping, key) -> int:
    try:
        return mapping.lc.key(key)[0] + 1
    except (AttributeError, KeyError, TypeError):
        return 1


def _value_pos(mapping, key, default_line) -> tuple[int, int]:
    """1-based (line, column) of the value of ``key``."""
    try:
        ln, col = mapping.lc.value(key)
        return ln + 1, col + 1
    except (AttributeError, KeyError, TypeError):
        return default_line, 1


def _item_line(seq, i) -> int:
    try:
        return seq.lc.item(i)[0] + 1
    except (AttributeError, KeyError, TypeError, IndexError):
        return 1


def _conc_values(item, step: int, where: str) -> list[int]:
    conc_list = item.get("conc-list")
    if conc_list:
        vals = [int(c) for c in conc_list]
    else:
        start, end = int(item["conc-start"]), int(item["conc-end"])
        vals = []
        conc = start
        while conc <= end and len(vals) < MAX_POINTS_PER_ITEM:
            vals.append(conc)
            if conc == end:
                break
            conc *= step
            if conc > end:
                conc = end
    if len(vals) > MAX_POINTS_PER_ITEM:
        raise ValueError(f"{where}: more than {MAX_POINTS_PER_ITEM} concurrencies")
    return vals


def _engine_files(entry, step: int, where: str) -> list[EngineFile]:
    """The ``CONFIG_FILE=`` settings of a multi-node entry's search-space items (the item's own
    ``additional-settings`` or its ``prefill:`` / ``decode:`` ones)."""
    out: list[EngineFile] = []
    for groups in (entry.get("scenarios") or {}).values():
        for group in groups or []:
            space = group.get("search-space") if hasattr(group, "get") else None
            for i, item in enumerate(space or []):
                if not hasattr(item, "get"):
                    continue
                roles: dict = {}
                settings = _settings(item.get("additional-settings"), _item_line(space, i))
                for role in ("prefill", "decode"):
                    r = item.get(role)
                    if not hasattr(r, "get"):
                        continue
                    settings += _settings(r.get("additional-settings"), _item_line(space, i))
                    roles[role] = {
                        "workers": _int_or_none(r.get("num-worker")),
                        "tp": _int_or_none(r.get("tp")),
                        "ep": _int_or_none(r.get("ep")),
                        "dp_attn": bool(r["dp-attn"]) if "dp-attn" in r else None,
                    }
                files = {text.split("=", 1)[1].strip(): line for text, line in settings if text.startswith("CONFIG_FILE=")}
                if not files:
                    continue
                try:
                    concs = tuple(_conc_values(item, step, where))
                except (KeyError, TypeError, ValueError):
                    concs = ()
                for f, line in files.items():
                    out.append(EngineFile(f, line, concs, roles))
    return out


def _settings(seq, default_line: int) -> list[tuple[str, int]]:
    """An ``additional-settings`` list's strings with the line each is written on."""
    out = []
    for j, x in enumerate(seq or []):
        try:
            line = seq.lc.item(j)[0] + 1
        except (AttributeError, KeyError, TypeError, IndexError):
            line = default_line
        out.append((str(x), line))
    return out


def _int_or_none(v) -> int | None:
    try:
        return int(v) if v is not None and not isinstance(v, bool) else None
    except (TypeError, ValueError):
        return None


def _seq_len_str(isl: int, osl: int) -> str:
    names = {(1024, 1024): "1k1k", (1024, 8192): "1k8k", (8192, 1024): "8k1k"}
    return names.get((isl, osl), f"{isl}_{osl}")


def _dram_gb(hw: dict | None, utilization, gpus: int, cap: int) -> int | None:
    if not hw:
        return None
    avail = hw.get("available-cpu-dram-mib")
    per_node = hw.get("gpus-per-node")
    if avail is None or not per_node:
        return None
    avail = min(int(avail), cap)
    value = Decimal(avail) * 1024 * 1024 * Decimal(str(utilization)) * gpus / int(per_node)
    return int(value / 1_000_000_000)


def _expand_entry(cs, path, key, entry, top, labels, hardware, root, spec, layout=None, tenv=None, wanted=None) -> None:
    if not hasattr(entry, "get"):
        return
    if wanted is not None and not entry.get("multinode", False):
        # a launcher runs `<model prefix>_<precision>_...` (``load``, ``_names_held``): an entry
        # that cannot run a recipe of the run is not expanded (its launchers are not read)
        mp, pr = entry.get("model-prefix"), entry.get("precision")
        if mp is not None and pr is not None and not wanted(str(mp), str(pr)):
            return
    line = _line(top, key)
    runner = str(entry.get("runner", ""))
    framework = str(entry.get("framework", ""))
    ce = ConfigEntry(
        key,
        path,
        line,
        runner,
        framework,
        bool(entry.get("multinode", False)),
        str(entry.get("image", "")),
        *_value_pos(entry, "image", line),
    )
    cs.entries.append(ce)
    if ce.multinode:
        # multi-node jobs run recipes through their own orchestration (not mapped to recipes
        # here); the engine configuration files their items name are kept for the rules
        ce.engine_files = _engine_files(entry, int(spec.get("conc_step", 2)), key)
        return
    model_prefix = str(entry["model-prefix"])
    precision = str(entry["precision"])
    base_env = {
        "IMAGE": str(entry.get("image", "")),
        "MODEL": str(entry.get("model", "")),
        "MODEL_PREFIX": model_prefix,
        "PRECISION": precision,
        "FRAMEWORK": framework,
    }
    for k, v in (spec.get("job_env") or {}).items():
        base_env[k] = str(v)
    for k in spec.get("job_env_opaque") or []:
        base_env[k] = Opaque()
    # (scenario, recipe folder, groups of the search space)
    # the folder: SCENARIO_SUBDIR as the checked tree's template sets it, else the description's
    scenarios = [
        (name, _subdir(tenv, str(name), spec["scenario_dirs"].get(name)), groups)
        for name, groups in (entry.get("scenarios") or {}).items()
    ]
    for old, legacy in (spec.get("legacy_scenarios") or {}).items():
        if entry.get(old) and not entry.get("scenarios"):
            scenarios.append((legacy["scenario"], legacy["dir"], entry.get(old)))
    step = int(spec.get("conc_step", 2))
    # the generator's `MAX_MODEL_LEN = isl + osl + N` of this tree (200 before f34a83b25, 256 after)
    context = cs.context_offset if cs.context_offset is not None else int(spec.get("context_offset", 256))
    cap = int(spec.get("max_available_cpu_dram_mib", 2861022))
    hw = hardware.get(runner)
    launchers = _launchers_for(runner, labels, spec)
    cut = [0, 0]  # points not made: over the entry's bound, over the run's
    for scenario, subdir, groups in scenarios:
        agentic = scenario == "agentic-coding"
        if subdir is None:
            continue
        for group in groups or []:
            space = group.get("search-space") or []
            for i, item in enumerate(space):
                item_line = _item_line(space, i)
                tp = int(item["tp"])
                pp = int(item.get("pp", 1))
                pcp = int(item.get("pcp-size", 1))
                dcp = int(item.get("dcp-size", 1))
                ep = item.get("ep")
                dpa = bool(item.get("dp-attn", False))
                sd = str(item.get("spec-decoding", "none"))
                env = dict(base_env)
                env.update(
                    {
                        "TP": str(tp),
                        "PP_SIZE": str(pp),
                        "DCP_SIZE": str(dcp),
                        "PCP_SIZE": str(pcp),
                        "EP_SIZE": str(int(ep) if ep is not None else 1),
                        "DP_ATTENTION": "true" if dpa else "false",
                        "SPEC_DECODING": sd,
                        "GPU_COUNT": str(tp * pp * pcp),
                        "SCENARIO_TYPE": scenario,
                        "SCENARIO_SUBDIR": subdir,
                        "IS_AGENTIC": "1" if agentic else "0",
                    }
                )
                router = item.get("router", entry.get("router"))
                p2p = item.get("kv-p2p-transfer", entry.get("kv-p2p-transfer"))
                env["ROUTER_METADATA"] = json.dumps(_plain(router)) if router is not None else ""
                env["KV_P2P_TRANSFER"] = str(p2p) if p2p is not None else ""
                budget: dict = {}
                if agentic:
                    # `offloading:` (none/cpu/hicache/lmcache) until #1970 (2026-07-02) renamed it; a
                    # tree whose template has KV_OFFLOADING reads the new key only (as its generator does)
                    old_key = "offloading" if tenv is None or "KV_OFFLOADING" not in tenv.env else "kv-offloading"
                    kv = str(item.get("kv-offloading", item.get(old_key, "none")))
                    # `{name: hicache, ...}` (with metadata the job passes as JSON), or the older
                    # schema's bare name (`kv-offload-backend: native`, before July 2026)
                    backend = item.get("kv-offload-backend")
                    bname = str(backend["name"]) if hasattr(backend, "get") else str(backend) if backend else ""
                    env.update(
                        {
                            "ISL": "0",
                            "OSL": "0",
                            "MAX_MODEL_LEN": "0",
                            "DURATION": str(group.get("duration") or _from_template(tenv, "DURATION", "3600")),
                            "KV_OFFLOADING": kv,
                            "KV_OFFLOAD_BACKEND": bname,
                            "KV_OFFLOAD_BACKEND_METADATA": json.dumps(_plain(backend)) if hasattr(backend, "get") else "",
                        }
                    )
                    if kv == "dram":
                        gb = _dram_gb(hw, group.get("dram-utilization", 1), tp * pp * pcp, cap)
                        env["TOTAL_CPU_DRAM_GB"] = str(gb) if gb is not None else Opaque()
                    else:  # (before #1970 every job got the template's default, 600)
                        env["TOTAL_CPU_DRAM_GB"] = _from_template(tenv, "TOTAL_CPU_DRAM_GB", "0")
                        # a number the template defaults to: in no unit the generator computed
                        budget = {"dram_default": True}
                    suffix = "kvnone" if kv == "none" else f"kv{kv}-{bname}"
                    exp = f"{model_prefix}_tp{{tp}}_conc{{conc}}_{suffix}" + (f"_spec-{sd}" if sd != "none" else "")
                    tag = f"tp{tp}-ep{env['EP_SIZE']}-dpa{env['DP_ATTENTION']}" + (
                        f"-{env['KV_OFFLOAD_BACKEND']}" if env["KV_OFFLOAD_BACKEND"] else ""
                    )
                else:
                    isl, osl = int(group["isl"]), int(group["osl"])
                    env.update(
                        {
                            "ISL": str(isl),
                            "OSL": str(osl),
                            "MAX_MODEL_LEN": str(isl + osl + context),
                            "KV_OFFLOADING": "",
                            "KV_OFFLOAD_BACKEND": "",
                            "TOTAL_CPU_DRAM_GB": "",
                        }
                    )
                    exp = f"{model_prefix}_{_seq_len_str(isl, osl)}"
                    tag = f"{_seq_len_str(isl, osl)}-tp{tp}-ep{env['EP_SIZE']}-dpa{env['DP_ATTENTION']}"
                try:
                    cl, cc = item.lc.key("conc-list" if "conc-list" in item else "conc-start")
                    cl, cc = cl + 1, cc + 1
                except (AttributeError, KeyError, TypeError):
                    cl, cc = item_line, 1
                item_points = []
                concs = _conc_values(item, step, f"{key} search-space item at line {item_line}")
                room_entry = MAX_POINTS_PER_ENTRY - len(ce.points)
                room_run = MAX_POINTS_PER_RUN - cs.points_made
                take = max(0, min(len(concs), room_entry, room_run))
                if take < len(concs):
                    cut[0 if room_entry <= room_run else 1] += len(concs) - take
                    concs = concs[:take]
                cs.points_made += take
                for conc in concs:
                    penv = dict(env)
                    penv["CONC"] = str(conc)
                    penv["EXP_NAME"] = exp.replace("{tp}", str(tp)).replace("{conc}", str(conc))
                    label = f"{path.name}:{item_line}:{tag}-conc{conc}"
                    origin = Span(str(path), cl, cc, cl, cc)
                    item_points.append(
                        SweepPoint(
                            label,
                            penv,
                            origin=origin,
                            config_key=key,
                            extra={"item_line": item_line, "config": str(path), **budget},
                        )
                    )
                ce.points.extend(item_points)
                _resolve_scripts(
                    cs, ce, item_points, launchers, subdir, model_prefix, precision, framework, sd, root, spec, layout
                )
    if cut[0]:
        cs.problems.append(
            ConfigProblem(
                Span(str(path), line, 1, line, 1),
                f"entry `{key}`: {len(ce.points) + cut[0]:,} sweep points, more than the {MAX_POINTS_PER_ENTRY:,} "
                f"recipelint follows per entry: the last {cut[0]:,} are not checked",
            )
        )
    if cut[1]:
        cs.problems.append(
            ConfigProblem(
                Span(str(path), line, 1, line, 1),
                f"entry `{key}`: more than the {MAX_POINTS_PER_RUN:,} sweep points recipelint follows per run: "
                f"{cut[1]:,} of this entry's are not checked",
            )
        )


def _from_template(tenv, name: str, default: str) -> str:
    """A job variable as the tree's template sets it when the caller passes no input for it."""
    got = tenv.value(name) if tenv is not None else None
    return default if got is None else got


def _subdir(tenv, scenario: str, described: str | None) -> str | None:
    """The recipe folder of a scenario: the template's SCENARIO_SUBDIR for it, else the folder
    ``rules/data/inferencex.yaml`` describes (None: a scenario recipelint does not know)."""
    from recipelint.sweep.layout import template_subdir

    if described is None:
        return None
    got = template_subdir(tenv, scenario)
    return described if got is None else got


def _plain(v):
    if hasattr(v, "items"):
        return {str(k): _plain(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_plain(x) for x in v]
    return v


def _launchers_for(runner: str, labels: dict, spec: dict) -> list[tuple[str, str, dict]]:
    """(node prefix, a node, the table's description) for the nodes a runner label schedules on:
    the workflow runs ``launch_${RUNNER_NAME%%_*}.sh`` of the node it lands on."""
    table = spec.get("launchers") or {}
    nodes = [str(n) for n in labels.get(runner) or []]
    if not nodes:
        nodes = [runner.split(":", 1)[-1]]
    out: list[tuple[str, str, dict]] = []
    for node in nodes:
        p = node.split("_", 1)[0]
        if any(p == q for q, _, _ in out):
            continue
        s = table.get(p)
        if s is None:
            # an unknown launcher: the GPU is the name's first token; try the framework-tagged name first
            s = {"gpu": p.split("-", 1)[0], "framework_first": True, "suffix": {"trt": "_trt", "atom": "_atom"}}
        out.append((p, node, s))
    return out


def _resolve_scripts(cs, ce, points, launchers, subdir, model_prefix, precision, framework, sd, root, spec, layout=None) -> None:
    """The recipes the entry's launchers run for ``points`` (one search-space item): read from the
    launcher of each node (``sweep.layout``), else composed as ``rules/data/inferencex.yaml``
    describes."""
    spec_suffix = "_mtp" if sd == "mtp" else ""
    tables = []
    for prefix, node, ls in launchers:
        got = layout.resolve(prefix, node, points[0].env) if layout is not None and points else None
        if got is not None:
            if got.launcher not in ce.read_from:  # (the nodes of a label share their launcher)
                ce.read_from.append(got.launcher)
            found, missing = got.scripts[:1], got.missing[:1]
        else:
            rel = layout.launcher_path(prefix) if layout is not None else None
            if rel is not None and rel in layout.unreadable and rel not in ce.unread:
                ce.unread.append(rel)
            if ls in tables:
                continue
            tables.append(ls)
            base = f"{spec['scripts']}/{subdir}{model_prefix}_{precision}_{ls['gpu']}"
            suffix = (ls.get("suffix") or {}).get(framework, "")
            fallback = f"{base}{suffix}{spec_suffix}.sh"
            candidates = [f"{base}_{framework}{spec_suffix}.sh", fallback] if ls.get("framework_first") else [fallback]
            chosen = next((c for c in candidates if (root / c).is_file()), None)
            found, missing = ([chosen], []) if chosen is not None else ([], [fallback])
        for m in missing:
            if m not in ce.missing:
                ce.missing.append(m)
        for chosen in found:
            key = str((root / chosen).resolve())
            if chosen not in ce.scripts:
                ce.scripts.append(chosen)
                ce.resolved.append(key)
            if got is not None and subdir and f"/{subdir}" not in f"/{chosen}":
                # the launcher ran a recipe outside the folder the template names for the scenario
                run = (points[0].env.get("SCENARIO_TYPE", "") if points else "", subdir, chosen, got.launcher)
                if run not in ce.outside:
                    ce.outside.append(run)
            have = cs.by_script.setdefault(key, [])
            if points and (not have or have[-1] is not points[-1]):  # (two nodes' launchers, one recipe)
                have.extend(points)
