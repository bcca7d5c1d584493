"""Generate recipelint's engine catalogs (rules/data/catalogs/) from the engines' release archives.

One history per engine (what recipelint ships):

    python tools/gen_catalogs.py --history vllm sglang \\
        --sources /work/sdists /work/wheels /work/wheels/more --out rules/data/catalogs

reads every final release of the engine found in the ``--sources`` folders (sdists
``vllm-0.8.0.tar.gz``, wheels ``sglang-0.5.14-*.whl``; an sdist is preferred to a wheel of the
same release; rc/dev builds are left out) and writes ``<engine>-history.json``: the ordered
``releases``, each release's archive and SHA-256 (``sources``), and for every flag, parser
name and JSON config key the releases that have it, as runs (``"0.8.0..0.10.2,0.12.0"``);
``catalogued`` says for which releases a parser table / config class was read (outside them a
name of that kind is not judged); ``defaults`` gives each flag's default where the source
writes a literal (``default=``, the dataclass field behind ``get_kwargs``, ``field(default=)``,
pydantic ``Field(default=)``, ``Cls.field`` references followed; ``null``: the engine decides at
run time; a computed default is not recorded) as ``{JSON value: releases}``.  ``recipelint.engines.catalog`` derives each release's view.
The same archives give a byte-identical history (names sorted, nothing from the clock or the
file system's order).  Used for the committed histories: vLLM sdists 0.8.0–0.34.0 (0.15.0 and
0.15.1 have no sdist: their wheels), SGLang sdists 0.4.0–0.5.10.post1 and wheels 0.5.11–0.5.23.

ROCm ATOM is not on PyPI: its history is read from the ``vX.Y.Z`` tags of its git repository
(``-rc`` tags left out), each tag's tree read with ``git ls-tree`` / ``git show TAG:path``::

    python tools/gen_catalogs.py --atom-repo /work/.mirror/ROCm+ATOM/repo --out rules/data/catalogs

(the bare git directory the ``fetch`` of ``github:ROCm/ATOM`` gives).  ``sources`` then give each
release's tag, commit SHA and the commit's day (UTC), and ``repository`` the repository.  Main
after the newest tag is read too, once a week (:func:`atom_main_snapshots`: the last
first-parent commit of each ISO week of ``refs/heads/main``, named ``0.1.6.devYYYYMMDD``,
``sources`` ``["main", commit, day]``), because InferenceX runs ATOM's nightlies; a later fetch
adds weeks and moves the newest one.  A tree whose server builds a ``FlexibleArgumentParser``
(:func:`atom_flexible`) lists both spellings of every flag.  Flags:
the ``--`` literals of the ``add_argument(`` calls in ``atom/model_engine/arg_utils.py``
(``EngineArgs.add_cli_args``) and the server's ``main`` (``atom/entrypoints/openai_server.py`` up
to 0.1.2, ``atom/entrypoints/openai/api_server.py`` from 0.1.3), ``--no-`` forms of
``BooleanOptionalAction`` calls, literal defaults.  No release has a parser flag
(``--tool-call-parser``), so no parser table.  The atomesh entry point (0.1.5,
``USE_ATOMESH_ENTRYPOINTS=1``) is not read: it passes unknown flags on (``parse_known_args``).

NVIDIA Dynamo's workers (``python -m dynamo.vllm`` / ``dynamo.sglang`` and, 1.1.0-1.3.1, their
``unified_main``) add their own flags to the engine's parser; those are read from the ``ai-dynamo``
wheels (PyPI; final releases, dev builds left out)::

    python tools/download_sources.py ai-dynamo --dest DIR
    python tools/gen_catalogs.py --dynamo DIR --out rules/data/catalogs

which writes ``wrappers/<module>-history.json`` per entry module: the ai-dynamo ``releases`` where
``python -m <module>`` exists, ``sources`` (wheel, SHA-256), ``flags`` (see :func:`dynamo_flags`:
the modules the entry point imports, followed transitively) and ``engine_pins`` (the engine
release ``ai-dynamo[vllm]`` / ``[sglang]`` requires, from the wheel's METADATA).

The older per-version mode (one ``<engine>-<version>.json`` each) is kept for TensorRT-LLM
wheels put in ``--wheels``:

    python tools/gen_catalogs.py --vllm 0.25.1 --sglang 0.5.16 --trtllm 1.2.1 --out DIR [--wheels DIR]

Each archive is opened as a zip or tar file and its Python sources are *parsed* with ``ast`` —
never imported, never built, no ``setup.py`` run.  What is read:

vLLM
  * serve flags: every ``--`` string literal of every ``.add_argument(`` call in
    ``vllm/engine/arg_utils.py``, ``vllm/entrypoints/{openai,launchers,common}/cli_args.py``
    (0.8–0.28, 0.29–0.32, 0.33 on) and ``vllm/entrypoints/cli/serve.py`` (0.8–0.10: literal
    ``add_argument("--x", ...)`` calls; 0.9 on: ``add_argument("--x", **get_kwargs(Cfg)["x"])``); ``--<field>`` for each field of the ``*FrontendArgs``
    dataclasses; ``--no-<flag>`` for boolean fields (``get_kwargs`` gives them
    ``BooleanOptionalAction``: annotation contains ``bool``, not ``Literal``, not a union with
    ``str``) and explicit ``BooleanOptionalAction``s; with ``EnableDisableAction`` (0.33.0 on),
    the ``--enable-x``/``--disable-x`` inverse too (without a ``--no-`` form of its own).
  * tool-call and reasoning parsers: the keys of ``_TOOL_PARSERS_TO_REGISTER``
    (``vllm/tool_parsers/__init__.py``, ``vllm/entrypoints/openai/tool_parsers/__init__.py``)
    and ``_REASONING_PARSERS_TO_REGISTER`` (``vllm/reasoning/__init__.py``); before those
    tables, the names of ``@ToolParserManager.register_module(...)`` /
    ``@ReasoningParserManager.register_module(...)`` decorators.
  * JSON config flags: the field names of ``AttentionConfig``, ``CompilationConfig``,
    ``SpeculativeConfig`` and ``KVTransferConfig`` in ``vllm/config/`` or ``vllm/config.py``,
    when the class is a dataclass (its JSON is strict: unknown keys fail); vLLM 0.8's pydantic
    ``BaseModel`` configs ignore unknown keys and are not catalogued.
SGLang
  * server flags: ``--`` literals of ``add_argument(`` calls in ``sglang/srt/server_args.py`` and
    ``sglang/srt/arg_groups/**``, plus the fields of the ``ServerArgs`` dataclass when the CLI is
    built from it (0.5.14 on), with its ``cli_aliases``/``alias`` metadata.  sdists keep the
    repository's ``python/`` source root: it is dropped.
  * parsers: ``FunctionCallParser.ToolCallParserEnum`` keys (``sglang/srt/function_call/`` or,
    0.4.x, ``sglang/srt/function_call_parser.py``) and ``ReasoningParser.DetectorMap`` keys
    (``auto`` is accepted by the argparse choices too).  From 0.5.16 the CLI is built from
    ``A[T, "help"]`` / ``A[T, Arg(cli_name=, aliases=, action=, no_cli=)]`` dataclass fields, and
    from 0.5.23 those fields live in the ``_NS_PATH`` namespace classes of ``arg_groups/fields/``.

TensorRT-LLM
  * ``trtllm-serve serve`` flags: the option strings of the ``click.option(...)`` decorators of
    the function decorated ``@click.command("serve")`` in ``tensorrt_llm/commands/serve.py``
    (``"--flag/--no-flag"`` pairs give both).  click does not accept abbreviations, so the
    catalog says ``abbreviations: false``.  The wheels are on pypi.nvidia.com only (PyPI holds
    a stub sdist): put ``tensorrt_llm-<version>-*.whl`` in ``--wheels``.

Every catalog records the archive it was read from (file name and SHA-256) and the generator.
The output is deterministic: the same archives give byte-identical catalogs.
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import json
import re
import subprocess
import sys
import tarfile
import warnings
import zipfile
from pathlib import Path

VLLM_FLAG_FILES = (
    "vllm/engine/arg_utils.py",
    "vllm/entrypoints/openai/cli_args.py",
    "vllm/entrypoints/launchers/cli_args.py",
    "vllm/entrypoints/common/cli_args.py",
    "vllm/entrypoints/cli/serve.py",
)
VLLM_JSON_CONFIGS = {
    "--attention-config": "AttentionConfig",
    "--compilation-config": "CompilationConfig",
    "--speculative-config": "SpeculativeConfig",
    "--kv-transfer-config": "KVTransferConfig",
}


# ---------------------------------------------------------------------------------------------
# wheels


def wheel_path(name: str, version: str, cache: Path) -> Path:
    cache.mkdir(parents=True, exist_ok=True)
    pattern = f"{name.replace('-', '_')}-{version}-*.whl"
    found = sorted(cache.glob(pattern))
    if not found:
        subprocess.run(
            [
                sys.executable,
                "-m",
                "pip",
                "download",
                "--quiet",
                "--no-deps",
                f"{name}=={version}",
                "--only-binary",
                ":all:",
                "-d",
                str(cache),
            ],
            check=True,
        )
        found = sorted(cache.glob(pattern))
    if not found:
        raise SystemExit(f"no wheel for {name}=={version} in {cache}")
    return found[0]


class Archive:
    """The Python sources of one release: a wheel (zip) or an sdist (tar.gz), read as an archive.

    Names are package-relative (``vllm/engine/arg_utils.py``): an sdist's top folder
    (``vllm-0.8.0/``) and a ``python/`` source root (SGLang's repository layout) are dropped.
    Only ``.py`` files are kept; nothing is imported or run."""

    def __init__(self, path: Path, package: str | None = None):
        self.path = path
        self.package = package
        self._trees: dict[str, ast.Module | None] = {}
        self._src: dict[str, bytes] = {}
        self.zip: zipfile.ZipFile | None = None
        if path.name.endswith((".tar.gz", ".tgz")):
            with tarfile.open(path, "r:gz") as tf:
                for m in tf:
                    if not m.isfile() or not m.name.endswith(".py"):
                        continue
                    parts = m.name.split("/", 1)
                    if len(parts) < 2:
                        continue
                    name = parts[1]
                    if name.startswith("python/"):
                        name = name[len("python/") :]
                    if package and not name.startswith(package + "/"):
                        continue
                    f = tf.extractfile(m)
                    if f is not None:
                        self._src.setdefault(name, f.read())
            self.names = set(self._src)
        else:
            self.zip = zipfile.ZipFile(path)
            self.names = {n for n in self.zip.namelist() if n.endswith(".py")}

    def sha256(self) -> str:
        h = hashlib.sha256()
        with self.path.open("rb") as f:
            for block in iter(lambda: f.read(1 << 20), b""):
                h.update(block)
        return h.hexdigest()

    def source(self, name: str) -> str | None:
        if name not in self.names:
            return None
        raw = self._src[name] if self.zip is None else self.zip.read(name)
        return raw.decode("utf-8-sig", errors="replace")

    def tree(self, name: str) -> ast.Module | None:
        if name not in self._trees:
            src = self.source(name)
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")  # engines' own invalid escape sequences
                    self._trees[name] = ast.parse(src) if src is not None else None
            except SyntaxError:
                self._trees[name] = None
        return self._trees[name]

    def py_files(self, prefix: str) -> list[str]:
        return sorted(n for n in self.names if n.startswith(prefix) and n.endswith(".py"))


Wheel = Archive  # the name the per-version mode and its tests use


def git_out(repo: Path, *args: str) -> str:
    """``git --git-dir REPO ARGS``' output, with dates in UTC and no user or system config read."""
    env = {"TZ": "UTC", "GIT_CONFIG_NOSYSTEM": "1", "HOME": "/nonexistent", "PATH": "/usr/bin:/bin"}
    return subprocess.run(["git", "--git-dir", str(repo), *args], check=True, capture_output=True, text=True, env=env).stdout


class GitTree(Archive):
    """The Python sources of one tag of a git repository (ATOM, not on PyPI), read with
    ``git ls-tree`` / ``git show TAG:path`` — no work tree is checked out, nothing is run.
    ``commit`` is the tagged commit's SHA; ``date`` its committer date (ISO, UTC day)."""

    def __init__(self, repo: Path, tag: str, package: str):
        self.path = repo
        self.package = package
        self.tag = tag
        self._trees = {}
        self._src = {}
        self.zip = None
        self.commit = self._git("rev-parse", f"{tag}^{{commit}}").strip()
        self.date = self._git("log", "-1", "--format=%cd", "--date=format-local:%Y-%m-%d", self.commit).strip()
        listed = self._git("ls-tree", "-r", "--name-only", self.commit, "--", package + "/")
        self.names = {n for n in listed.splitlines() if n.endswith(".py")}

    def _git(self, *args: str) -> str:
        return git_out(self.path, *args)

    def source(self, name: str) -> str | None:
        if name not in self.names:
            return None
        if name not in self._src:
            raw = subprocess.run(
                ["git", "--git-dir", str(self.path), "show", f"{self.commit}:{name}"], check=True, capture_output=True
            ).stdout
            self._src[name] = raw
        return self._src[name].decode("utf-8-sig", errors="replace")

    def sha256(self) -> str:  # a tag is recorded by its commit, not by an archive digest
        return self.commit


# ---------------------------------------------------------------------------------------------
# helpers


def str_const(node) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def call_name(node: ast.Call) -> str | None:
    f = node.func
    if isinstance(f, ast.Attribute):
        return f.attr
    if isinstance(f, ast.Name):
        return f.id
    return None


def dataclass_fields(cls: ast.ClassDef) -> dict[str, str]:
    """field name -> annotation source, in order (ClassVar and private names skipped)."""
    out = {}
    for stmt in cls.body:
        if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
            ann = ast.unparse(stmt.annotation)
            name = stmt.target.id
            if name.startswith("_") or "ClassVar" in ann or "InitVar" in ann:
                continue
            out[name] = ann
    return out


def annotated_fields(cls: ast.ClassDef) -> dict[str, ast.AST]:
    """field name -> annotation node."""
    return {
        stmt.target.id: stmt.annotation
        for stmt in cls.body
        if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name)
    }


class ClassIndex:
    """Class definitions of an archive, by name (fields resolved through base classes).  A
    class is looked up when asked for: the first file (in ``prefixes`` order) whose text
    defines it is parsed — the whole package is never parsed."""

    def __init__(self, wheel: Archive, prefixes: tuple[str, ...]):
        self.wheel = wheel
        self.files: list[str] = []
        for prefix in prefixes:
            for name in wheel.py_files(prefix):
                if name not in self.files:
                    self.files.append(name)
        self._found: dict[str, ast.ClassDef | None] = {}

    def cls(self, name: str) -> ast.ClassDef | None:
        if name not in self._found:
            self._found[name] = None
            pat = re.compile(rf"^\s*class {re.escape(name)}\b", re.M)
            for fname in self.files:
                src = self.wheel.source(fname) or ""
                if f"class {name}" not in src or not pat.search(src):
                    continue
                tree = self.wheel.tree(fname)
                if tree is None:
                    continue
                hit = next((n for n in ast.walk(tree) if isinstance(n, ast.ClassDef) and n.name == name), None)
                if hit is not None:
                    self._found[name] = hit
                    break
        return self._found[name]

    def _bases(self, cls: ast.ClassDef) -> list[str]:
        out = []
        for base in cls.bases:
            bname = base.id if isinstance(base, ast.Name) else base.attr if isinstance(base, ast.Attribute) else None
            if bname:
                out.append(bname)
        return out

    def annotations(self, name: str, depth: int = 0) -> dict[str, ast.AST]:
        cls = self.cls(name)
        if cls is None or depth > 8:
            return {}
        out: dict[str, ast.AST] = {}
        for bname in self._bases(cls):
            out.update(self.annotations(bname, depth + 1))
        out.update(annotated_fields(cls))
        return out

    def fields(self, name: str, depth: int = 0) -> dict[str, str]:
        cls = self.cls(name)
        if cls is None or depth > 8:
            return {}
        out: dict[str, str] = {}
        for bname in self._bases(cls):
            out.update(self.fields(bname, depth + 1))
        out.update(dataclass_fields(cls))
        return out


def is_bool_field(ann: str) -> bool:
    return "bool" in ann and "Literal" not in ann and "str" not in ann


def class_field_value(idx: ClassIndex, cname: str, field: str, depth: int = 0) -> ast.AST | None:
    """The default expression of ``cname.field`` (through base classes; ``field(default=x)``
    gives ``x``; a ``default_factory`` gives none)."""
    cls = idx.cls(cname)
    if cls is None or depth > 8:
        return None
    for stmt in cls.body:
        if isinstance(stmt, (ast.AnnAssign, ast.Assign)):
            targets = [stmt.target] if isinstance(stmt, ast.AnnAssign) else stmt.targets
            if any(isinstance(t, ast.Name) and t.id == field for t in targets):
                return _unwrap_field(stmt.value)
    for bname in idx._bases(cls):
        found = class_field_value(idx, bname, field, depth + 1)
        if found is not None:
            return found
    return None


def _unwrap_field(v: ast.AST | None) -> ast.AST | None:
    """``field(default=x)`` / pydantic ``Field(x)`` / ``Field(default=x)`` -> ``x`` (a
    ``default_factory`` -> None); anything else as it is."""
    if isinstance(v, ast.Call) and call_name(v) in ("field", "Field"):
        kw = next((k.value for k in v.keywords if k.arg == "default"), None)
        if kw is None and call_name(v) == "Field" and v.args:
            kw = v.args[0]
        return kw
    return v


def literal_default(node: ast.AST | None, idx: ClassIndex, depth: int = 0) -> str | None:
    """A default as JSON text when it is a literal — a constant, a negative number, a list or
    tuple of constants, or ``Cls.field`` naming another class's literal default — else None
    (computed at run time: not readable here)."""
    if node is None or depth > 4:
        return None
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
        return literal_default(class_field_value(idx, node.value.id, node.attr), idx, depth + 1)
    try:
        value = ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return None
    if isinstance(value, (set, frozenset, bytes, complex)) or (isinstance(value, dict) and value):
        return None
    if isinstance(value, float) and value != value:
        return None
    return json.dumps(list(value) if isinstance(value, tuple) else value, sort_keys=True)


def _call_default(node: ast.Call, idx: ClassIndex, kwargs_class: dict[str, str]) -> str | None:
    """The default an ``add_argument(...)`` call gives: ``default=``, a ``"default"`` key of a
    ``**{...}`` dict, or the field default behind ``**cfg_kwargs["field"]`` (get_kwargs); a
    store_true action without one defaults to false."""
    explicit = next((k.value for k in node.keywords if k.arg == "default"), None)
    if explicit is not None:
        return literal_default(explicit, idx)
    for kw in node.keywords:
        if kw.arg is not None:
            continue
        if isinstance(kw.value, ast.Dict):
            for k, v in zip(kw.value.keys, kw.value.values):
                if k is not None and str_const(k) == "default":
                    return literal_default(v, idx)
    for cname, field in kwargs_fields(node, kwargs_class):
        return literal_default(class_field_value(idx, cname, field), idx)
    action = next((k.value for k in node.keywords if k.arg == "action"), None)
    if action is not None and str_const(action) == "store_true":
        return "false"
    return None


# ---------------------------------------------------------------------------------------------
# vLLM


def kwargs_fields(node: ast.Call, kwargs_class: dict[str, str]):
    """The ``(config class, field)`` pairs an ``add_argument`` call takes its kwargs from
    (``**cache_kwargs["cache_dtype"]``, with ``cache_kwargs = get_kwargs(CacheConfig)``)."""
    for kw in node.keywords:
        if kw.arg is not None:
            continue
        for sub in ast.walk(kw.value):
            if isinstance(sub, ast.Subscript) and isinstance(sub.value, ast.Name):
                cname = kwargs_class.get(sub.value.id)
                field = str_const(sub.slice)
                if cname and field:
                    yield cname, field


def vllm_add_arguments(w: Archive):
    """``(tree, kwargs_class, call, its "--" literals)`` for every ``add_argument`` call of the
    serve-flag files of a vLLM release."""
    for name in VLLM_FLAG_FILES:
        tree = w.tree(name)
        if tree is None:
            continue
        kwargs_class = get_kwargs_classes(tree)
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and call_name(node) == "add_argument":
                yield tree, kwargs_class, node, [s for s in (str_const(a) for a in node.args) if s and s.startswith("--")]


#: where vLLM's config and argument classes are looked up (in this order)
VLLM_CLASS_PREFIXES = ("vllm/config/", "vllm/config.py", "vllm/entrypoints/", "vllm/engine/", "vllm/")


def get_kwargs_classes(tree: ast.Module) -> dict[str, str]:
    """``model_kwargs = get_kwargs(ModelConfig)`` in a module: variable -> the config class."""
    out: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call) and call_name(node.value) == "get_kwargs":
            arg = node.value.args[0] if node.value.args else None
            cname = arg.id if isinstance(arg, ast.Name) else arg.attr if isinstance(arg, ast.Attribute) else None
            for t in node.targets:
                if isinstance(t, ast.Name) and cname:
                    out[t.id] = cname
    return out


def vllm_flags(w: Wheel, defaults: dict[str, str] | None = None) -> list[str]:
    """Flags of ``vllm serve``; ``defaults`` (when given) gets each flag's literal default."""
    defaults = {} if defaults is None else defaults
    idx = ClassIndex(w, VLLM_CLASS_PREFIXES)
    enable_disable = "class EnableDisableAction" in (w.source("vllm/utils/argparse_utils.py") or "")
    flags: set[str] = set()
    bool_flags: set[str] = set()
    for name in VLLM_FLAG_FILES:
        tree = w.tree(name)
        if tree is None:
            continue
        kwargs_class = get_kwargs_classes(tree)
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Call) and call_name(node) == "add_argument"):
                continue
            lits = [s for s in (str_const(a) for a in node.args) if s and s.startswith("--")]
            flags.update(lits)
            if lits:
                d = _call_default(node, idx, kwargs_class)
                if d is not None:
                    for lit in lits:
                        defaults.setdefault(lit, d)
            is_bool = False
            for kw in node.keywords:
                if kw.arg == "action" and "BooleanOptionalAction" in ast.unparse(kw.value):
                    is_bool = True
            for cname, field in kwargs_fields(node, kwargs_class):
                if is_bool_field(idx.fields(cname).get(field, "")):
                    is_bool = True
            if is_bool:
                bool_flags.update(lits)
        # FrontendArgs dataclasses: every field is a flag
        for cls in ("BaseFrontendArgs", "FrontendArgs"):
            if f"class {cls}" not in (w.source(name) or ""):
                continue
            for field, ann in idx.fields(cls).items():
                flag = "--" + field.replace("_", "-")
                flags.add(flag)
                d = literal_default(class_field_value(idx, cls, field), idx)
                if d is not None:
                    defaults.setdefault(flag, d)
                if is_bool_field(ann):
                    bool_flags.add(flag)
    for flag in list(bool_flags):
        flags.add("--no-" + flag[2:])
        if enable_disable:
            for a, b in (("--enable-", "--disable-"), ("--disable-", "--enable-")):
                if flag.startswith(a):
                    flags.add(b + flag[len(a) :])
    return sorted(flags)


def dict_keys(tree: ast.Module, var: str) -> list[str]:
    for node in ast.walk(tree):
        target = None
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            target, value = node.targets[0].id, node.value
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            target, value = node.target.id, node.value
        if target == var and isinstance(value, ast.Dict):
            return [k for k in (str_const(k) for k in value.keys) if k]
    return []


def _registered_names(w: Archive, manager: str) -> list[str]:
    """Names given to ``@<manager>.register_module("a")`` / ``(["a", "b"])`` / ``(name="a")``
    decorators (vLLM before the lazy ``_*_TO_REGISTER`` tables), and to
    ``<manager>.register_lazy_module(name="a", ...)`` calls."""
    out: list[str] = []
    for name in w.py_files("vllm/"):
        src = w.source(name) or ""
        if manager not in src or "register_" not in src:
            continue
        tree = w.tree(name)
        if tree is None:
            continue
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
                continue
            if node.func.attr not in ("register_module", "register_lazy_module"):
                continue
            owner = node.func.value
            if not (isinstance(owner, ast.Name) and owner.id == manager):
                continue
            vals = list(node.args[:1]) + [k.value for k in node.keywords if k.arg == "name"]
            for v in vals:
                elts = v.elts if isinstance(v, (ast.List, ast.Tuple)) else [v]
                for e in elts:
                    s = str_const(e)
                    if s and s not in out:
                        out.append(s)
    return out


_EMPTY = ast.Module(body=[], type_ignores=[])


def vllm_parsers(w: Wheel) -> tuple[list[str], list[str]]:
    tools: list[str] = []
    for name in ("vllm/tool_parsers/__init__.py", "vllm/entrypoints/openai/tool_parsers/__init__.py"):
        tools += [k for k in dict_keys(w.tree(name) or _EMPTY, "_TOOL_PARSERS_TO_REGISTER") if k not in tools]
    reasoning = dict_keys(w.tree("vllm/reasoning/__init__.py") or _EMPTY, "_REASONING_PARSERS_TO_REGISTER")
    if not tools:
        tools = _registered_names(w, "ToolParserManager")
    if not reasoning:
        reasoning = _registered_names(w, "ReasoningParserManager")
    return tools, reasoning


def _strict_config(cls: ast.ClassDef) -> bool:
    """A config class whose JSON refuses unknown keys: a dataclass (``@dataclass``, pydantic's,
    or vLLM's ``@config``; built as ``Cls(**json)`` or with ``extra="forbid"``).  vLLM 0.8's
    pydantic ``BaseModel`` configs ignore unknown keys (pydantic's default) and its plain
    classes take no JSON: neither is catalogued."""
    names = set()
    for d in cls.decorator_list:
        f = d.func if isinstance(d, ast.Call) else d
        names.add(f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else "")
    if not names & {"dataclass", "config"}:
        return False
    return "BaseModel" not in " ".join(ast.unparse(b) for b in cls.bases) or "forbid" in ast.unparse(cls)


# ---------------------------------------------------------------------------------------------
# Flag values: closed choice sets and numeric types (what argparse rejects: `invalid choice`,
# `invalid int value`)

_ALIAS_DEF = r"^{name}\s*(?::\s*TypeAlias\s*)?=\s*Literal\["


class LiteralIndex:
    """Module-level ``Name = Literal[...]`` aliases of an archive's package, looked up by name
    when a field's annotation or ``get_args(Name)`` needs one (files whose text defines it are
    parsed; a name two files define differently is not resolved)."""

    def __init__(self, w: Archive, prefix: str):
        self.w = w
        self.files = w.py_files(prefix)
        self._found: dict[str, tuple[str, ...] | None] = {}

    def get(self, name: str) -> tuple[str, ...] | None:
        if name not in self._found:
            self._found[name] = None
            pat = re.compile(_ALIAS_DEF.format(name=re.escape(name)), re.M)
            seen: set[tuple[str, ...]] = set()
            for fname in self.files:
                src = self.w.source(fname) or ""
                if name not in src or not pat.search(src):
                    continue
                tree = self.w.tree(fname)
                for st in tree.body if tree is not None else ():
                    target = st.target if isinstance(st, ast.AnnAssign) else st.targets[0] if isinstance(st, ast.Assign) else None
                    if isinstance(target, ast.Name) and target.id == name and st.value is not None:
                        vals = _literal_values(st.value)
                        if vals is not None:
                            seen.add(vals)
            if len(seen) == 1:
                self._found[name] = next(iter(seen))
        return self._found[name]


def _literal_values(node: ast.AST) -> tuple[str, ...] | None:
    """``Literal["a", "b"]`` -> ("a", "b") (values as the command line writes them)."""
    if not (isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id == "Literal"):
        return None
    items = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
    out = []
    for it in items:
        if not isinstance(it, ast.Constant) or isinstance(it.value, bool) or it.value is None:
            return None
        out.append(str(it.value))
    return tuple(out)


def _annotation_values(ann: str, lits: LiteralIndex) -> tuple[tuple[str, ...] | None, bool, set[str]]:
    """(the Literal values an annotation holds — inline or through an alias —, whether it allows
    None, the plain type names in it)."""
    try:
        node = ast.parse(ann, mode="eval").body
    except SyntaxError:
        return None, False, set()
    values: list[str] = []
    found = False
    optional = False
    names: set[str] = set()
    stack = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, ast.Subscript) and isinstance(n.value, ast.Name) and n.value.id == "Literal":
            got = _literal_values(n)
            if got is None:
                return None, False, {"?"}
            values.extend(got)
            found = True
            continue
        if isinstance(n, ast.Constant) and n.value is None:
            optional = True
            continue
        if isinstance(n, ast.Name):
            if n.id == "None":
                optional = True
            elif n.id == "Optional":
                optional = True
            elif lits.get(n.id) is not None:
                values.extend(lits.get(n.id) or ())
                found = True
            elif n.id not in ("Union",):
                names.add(n.id)
            continue
        if isinstance(n, ast.Subscript):
            stack.append(n.value)
            stack.extend(n.slice.elts if isinstance(n.slice, ast.Tuple) else [n.slice])
            continue
        if isinstance(n, ast.BinOp):
            stack.extend([n.left, n.right])
            continue
        if isinstance(n, ast.Attribute):
            names.add(n.attr)
            continue
        names.add("?")
    return (tuple(dict.fromkeys(values)) if found else None), optional, names


def _choices_expr(
    node: ast.AST, tree: ast.Module | None, idx: ClassIndex, lits: LiteralIndex, depth: int = 0
) -> list[str] | None:
    """The choices an expression gives (``choices=`` of an ``add_argument``): a list or tuple of
    literals, a module-level name holding one, a sum of those, ``get_args(Alias)``,
    ``[f.value for f in Enum]``; None when they are computed some other way."""
    if depth > 4:
        return None
    if isinstance(node, (ast.List, ast.Tuple)):
        out = []
        for e in node.elts:
            if isinstance(e, ast.Constant) and not isinstance(e.value, bool) and e.value is not None:
                out.append(str(e.value))
            else:
                return None
        return out
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        a = _choices_expr(node.left, tree, idx, lits, depth + 1)
        b = _choices_expr(node.right, tree, idx, lits, depth + 1)
        return a + b if a is not None and b is not None else None
    if isinstance(node, ast.Call) and call_name(node) == "get_args" and node.args and isinstance(node.args[0], ast.Name):
        got = lits.get(node.args[0].id)
        return list(got) if got is not None else None
    if isinstance(node, ast.Call) and call_name(node) in ("list", "sorted") and len(node.args) == 1 and not node.keywords:
        return _choices_expr(node.args[0], tree, idx, lits, depth + 1)
    if isinstance(node, ast.ListComp) and len(node.generators) == 1:
        gen = node.generators[0]
        elt = node.elt
        if (
            isinstance(elt, ast.Attribute)
            and elt.attr == "value"
            and isinstance(elt.value, ast.Name)
            and isinstance(gen.target, ast.Name)
            and elt.value.id == gen.target.id
            and isinstance(gen.iter, ast.Name)
            and not gen.ifs
        ):
            return _enum_values(idx, gen.iter.id)
        return None
    if isinstance(node, ast.Name) and tree is not None:
        if any(
            isinstance(st, ast.Assign)
            and any(isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == node.id for t in st.targets)
            for st in ast.walk(tree)
        ):
            return None
        for st in tree.body:
            if isinstance(st, (ast.Assign, ast.AnnAssign)):
                targets = [st.target] if isinstance(st, ast.AnnAssign) else st.targets
                if any(isinstance(t, ast.Name) and t.id == node.id for t in targets) and st.value is not None:
                    if _extended(tree, node.id):
                        return None  # (`add_x_choices = X_CHOICES.extend`: plugins add choices at run time)
                    return _choices_expr(st.value, tree, idx, lits, depth + 1)
        got = lits.get(node.id)
        return list(got) if got is not None else None
    return None


def _extended(tree: ast.Module, name: str) -> bool:
    """Whether the module changes the list ``name`` after it is made (``.extend``/``.append``
    called or handed out, ``+=``): its choices are not fixed."""
    for n in ast.walk(tree):
        if (
            isinstance(n, ast.Attribute)
            and isinstance(n.value, ast.Name)
            and n.value.id == name
            and n.attr
            in (
                "extend",
                "append",
                "insert",
                "remove",
            )
        ):
            return True
        if isinstance(n, ast.AugAssign) and isinstance(n.target, ast.Name) and n.target.id == name:
            return True
    return False


def _enum_values(idx: ClassIndex, cname: str) -> list[str] | None:
    cls = idx.cls(cname)
    if cls is None:
        return None
    out = []
    for st in cls.body:
        if isinstance(st, ast.Assign) and len(st.targets) == 1 and isinstance(st.targets[0], ast.Name):
            v = st.value
            if isinstance(v, ast.Constant) and isinstance(v.value, str):
                out.append(v.value)
            elif not (isinstance(v, ast.Call) and call_name(v) == "auto"):
                return None
            else:
                return None  # (`auto()` values: not literal)
    return out or None


def _explicit_values(node: ast.Call, tree, idx: ClassIndex, lits: LiteralIndex) -> tuple[list[str] | None, str | None, bool]:
    """(choices, numeric type, whether the call names them itself) of an ``add_argument``."""
    choices = typ = None
    told = False
    for kw in node.keywords:
        if kw.arg == "choices":
            told = True
            choices = _choices_expr(kw.value, tree, idx, lits)
        elif kw.arg == "type":
            told = True
            if isinstance(kw.value, ast.Name) and kw.value.id in ("int", "float"):
                typ = kw.value.id
        elif kw.arg in ("action", "nargs"):
            told = True  # (a list, a flag without a value: not judged as one value)
            return None, None, True
    return choices, typ, told


def vllm_values(w: Archive) -> tuple[dict[str, list[str]], dict[str, str]]:
    """Per flag of ``vllm serve``: its closed choices and its numeric type, as argparse gets them
    — explicit ``choices=``/``type=`` of an ``add_argument``, or, through ``get_kwargs``, the
    config field's annotation: a ``Literal`` (inline or an alias) gives choices (and ``None`` when
    optional) unless the release opens a ``Literal`` joined with ``str`` (``metavar`` then, 0.11
    on), ``int``/``float`` a type; a ``bool``, a list or tuple, a config class give none."""
    idx = ClassIndex(w, VLLM_CLASS_PREFIXES)
    lits = LiteralIndex(w, "vllm/")
    utils = w.source("vllm/engine/arg_utils.py") or ""
    literal_kwargs = "contains_type(type_hints, Literal)" in utils
    str_opens = 'kwarg = "metavar" if contains_type(type_hints, str)' in utils
    choices: dict[str, list[str]] = {}
    types: dict[str, str] = {}
    for tree, kwargs_class, node, flags in vllm_add_arguments(w):
        if not flags:
            continue
        ch, typ, told = _explicit_values(node, tree, idx, lits)
        if not told and literal_kwargs:
            for cname, field in kwargs_fields(node, kwargs_class):
                ann = idx.fields(cname).get(field, "")
                if ann:
                    ch, typ = _field_values(ann, lits, str_opens)
        for f in flags:
            if ch:
                choices.setdefault(f, sorted(set(ch)))
            if typ:
                types.setdefault(f, typ)
    return choices, types


def _field_values(ann: str, lits: LiteralIndex, str_opens: bool) -> tuple[list[str] | None, str | None]:
    """get_kwargs' reading of a field's annotation (see :func:`vllm_values`)."""
    values, optional, names = _annotation_values(ann, lits)
    names -= _TRANSPARENT
    if "?" in names or "bool" in names or names & {"list", "tuple", "dict", "set", "List", "Tuple", "Dict", "Annotated"}:
        return None, None
    if any(n.endswith("Config") for n in names):
        return None, None  # (a config class: get_kwargs parses JSON before it looks for a Literal)
    if values is not None:
        if "str" in names and str_opens:
            return None, None  # (`Literal[...] | str`: a metavar, any text taken)
        return [*values, *(["None"] if optional else [])], None
    if names == {"int"}:
        return None, "int"
    if names == {"float"}:
        return None, "float"
    return None, None


#: annotation wrappers that leave the type as it is (pydantic's ``SkipValidation[int]``)
_TRANSPARENT = frozenset({"SkipValidation"})


def sglang_values(w: Archive) -> tuple[dict[str, list[str]], dict[str, str]]:
    """Per flag of ``sglang.launch_server``: the ``choices=`` and ``type=int``/``float`` of its
    ``add_argument`` calls in ``sglang/srt/server_args.py`` (a list another module extends at
    run time — ``add_*_choices = X.extend``, for plugins — is not closed, so not read)."""
    idx = ClassIndex(w, ("sglang/srt/",))
    lits = LiteralIndex(w, "sglang/srt/")
    choices: dict[str, list[str]] = {}
    types: dict[str, str] = {}
    tree = w.tree("sglang/srt/server_args.py")
    if tree is None:
        return choices, types
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and call_name(node) == "add_argument"):
            continue
        flags = [s for s in (str_const(a) for a in node.args) if s and s.startswith("--")]
        if not flags:
            continue
        ch, typ, _ = _explicit_values(node, tree, idx, lits)
        for f in flags:
            if ch:
                choices.setdefault(f, sorted(set(ch)))
            if typ:
                types.setdefault(f, typ)
    return choices, types


def vllm_json_keys(w: Wheel) -> dict[str, list[str]]:
    idx = ClassIndex(w, ("vllm/config/", "vllm/config.py"))
    out: dict[str, list[str]] = {}
    for flag, cname in VLLM_JSON_CONFIGS.items():
        cls = idx.cls(cname)
        if cls is None or not _strict_config(cls):
            continue
        keys = sorted(idx.fields(cname))
        if keys:
            out[flag] = keys
    return out


# ---------------------------------------------------------------------------------------------
# SGLang


def _add_argument_flags(node: ast.Call, idx: ClassIndex, flags: set[str], defaults: dict[str, str]) -> None:
    """One ``add_argument(...)`` call: its ``--`` literals (and ``--no-`` forms of a
    ``BooleanOptionalAction``) into ``flags``, its literal default into ``defaults``."""
    lits = [s for s in (str_const(a) for a in node.args) if s and s.startswith("--")]
    flags.update(lits)
    d = _call_default(node, idx, {}) if lits else None
    for lit in lits if d is not None else ():
        defaults.setdefault(lit, d)
    if any(kw.arg == "action" and "BooleanOptionalAction" in ast.unparse(kw.value) for kw in node.keywords):
        flags.update("--no-" + f[2:] for f in lits)


def sglang_flags(w: Wheel, defaults: dict[str, str] | None = None) -> list[str]:
    """Flags of ``sglang.launch_server``; ``defaults`` (when given) gets each flag's literal default."""
    defaults = {} if defaults is None else defaults
    flags: set[str] = {"--help"}
    files = ["sglang/srt/server_args.py", *w.py_files("sglang/srt/arg_groups/")]
    idx = ClassIndex(w, ("sglang/srt/",))
    for name in files:
        tree = w.tree(name)
        if tree is None:
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and call_name(node) == "add_argument":
                _add_argument_flags(node, idx, flags, defaults)
            # field(metadata={"cli_aliases": ["--tp"]}) / {"aliases": [...]} / {"flag": "--x"}
            if isinstance(node, ast.Dict):
                for k, v in zip(node.keys, node.values):
                    key = str_const(k) if k is not None else None
                    if key in ("cli_aliases", "aliases", "flags", "cli_flags", "flag", "cli_flag", "name"):
                        for sub in ast.walk(v):
                            s = str_const(sub)
                            if s and s.startswith("--"):
                                flags.add(s)
    for cname in sglang_cli_dataclasses(w):
        for field, ann in idx.annotations(cname).items():
            names = _dataclass_arg_flags(field, ann)
            flags.update(names)
            d = literal_default(class_field_value(idx, cname, field), idx) if names else None
            for n in names if d is not None else ():
                if not n.startswith("--no-"):
                    defaults.setdefault(n, d)
    # 0.5.23 on: ServerArgs collects its input fields from the namespace classes (`_NS_PATH`)
    for name in w.py_files("sglang/srt/arg_groups/fields/"):
        tree = w.tree(name)
        if tree is None:
            continue
        for node in tree.body:
            if isinstance(node, ast.ClassDef) and any(
                isinstance(st, (ast.Assign, ast.AnnAssign)) and "_NS_PATH" in ast.unparse(st).split("=")[0] for st in node.body
            ):
                values = {
                    st.target.id: st.value
                    for st in node.body
                    if isinstance(st, ast.AnnAssign) and isinstance(st.target, ast.Name)
                }
                for field, ann in annotated_fields(node).items():
                    names = _dataclass_arg_flags(field, ann)
                    flags.update(names)
                    d = literal_default(_unwrap_field(values.get(field)), idx) if names else None
                    for n in names if d is not None else ():
                        if not n.startswith("--no-"):
                            defaults.setdefault(n, d)
    return sorted(flags)


def sglang_cli_dataclasses(w: Wheel) -> list[str]:
    """Classes passed to ``add_cli_args_from_dataclass(parser, Cls, ...)`` (SGLang 0.5.16 on)."""
    out: list[str] = []
    for name in w.py_files("sglang/srt/"):
        src = w.source(name) or ""
        if "add_cli_args_from_dataclass(" not in src:
            continue
        tree = w.tree(name)
        if tree is None:
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and call_name(node) == "add_cli_args_from_dataclass" and len(node.args) >= 2:
                a = node.args[1]
                cname = a.id if isinstance(a, ast.Name) else a.attr if isinstance(a, ast.Attribute) else None
                if cname and cname not in out:
                    out.append(cname)
    return out


def _dataclass_arg_flags(field: str, ann: ast.AST) -> list[str]:
    """Flags of one ``A[T, "help"]`` / ``A[T, Arg(...)]`` dataclass field (else none)."""
    if not (isinstance(ann, ast.Subscript) and isinstance(ann.value, ast.Name) and ann.value.id in ("A", "Annotated")):
        return []
    elts = ann.slice.elts if isinstance(ann.slice, ast.Tuple) else []
    if len(elts) < 2:
        return []
    meta = elts[1]
    if str_const(meta) is not None:
        return ["--" + field.replace("_", "-")]
    if not (isinstance(meta, ast.Call) and call_name(meta) == "Arg"):
        return []
    kw = {k.arg: k.value for k in meta.keywords if k.arg}
    if isinstance(kw.get("no_cli"), ast.Constant) and kw["no_cli"].value is True:
        return []
    name = str_const(kw.get("cli_name")) if "cli_name" in kw else None
    names = [name or "--" + field.replace("_", "-")]
    if isinstance(kw.get("aliases"), (ast.List, ast.Tuple)):
        names += [s for s in (str_const(e) for e in kw["aliases"].elts) if s]
    if "action" in kw and "BooleanOptionalAction" in ast.unparse(kw["action"]):
        names += ["--no-" + n[2:] for n in names if n.startswith("--")]
    return names


def sglang_parsers(w: Wheel) -> tuple[list[str], list[str]]:
    tools: list[str] = []
    reasoning: list[str] = []
    for name in w.py_files("sglang/srt/function_call/") + w.py_files("sglang/srt/function_call_parser"):
        tree = w.tree(name)
        if tree is None:
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef) and node.name == "FunctionCallParser":
                for stmt in node.body:
                    if isinstance(stmt, (ast.Assign, ast.AnnAssign)):
                        tgt = stmt.targets[0] if isinstance(stmt, ast.Assign) else stmt.target
                        if isinstance(tgt, ast.Name) and tgt.id == "ToolCallParserEnum" and isinstance(stmt.value, ast.Dict):
                            tools = [k for k in (str_const(k) for k in stmt.value.keys) if k]
    for name in w.py_files("sglang/srt/parser/") + w.py_files("sglang/srt/reasoning_parser"):
        tree = w.tree(name)
        if tree is None:
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef) and node.name == "ReasoningParser":
                for stmt in node.body:
                    if isinstance(stmt, (ast.Assign, ast.AnnAssign)):
                        tgt = stmt.targets[0] if isinstance(stmt, ast.Assign) else stmt.target
                        if isinstance(tgt, ast.Name) and tgt.id == "DetectorMap" and isinstance(stmt.value, ast.Dict):
                            reasoning = [k for k in (str_const(k) for k in stmt.value.keys) if k]
    return ["auto", *tools] if tools and "auto" not in tools else tools, (
        ["auto", *reasoning] if reasoning and "auto" not in reasoning else reasoning
    )


# ---------------------------------------------------------------------------------------------
# output


def trtllm_flags(w: Wheel) -> list[str]:
    tree = w.tree("tensorrt_llm/commands/serve.py")
    if tree is None:
        raise SystemExit(f"{w.path.name}: no tensorrt_llm/commands/serve.py")
    for fn in ast.walk(tree):
        if not isinstance(fn, ast.FunctionDef):
            continue
        decos = [d for d in fn.decorator_list if isinstance(d, ast.Call)]
        if not any(call_name(d) == "command" and d.args and str_const(d.args[0]) == "serve" for d in decos):
            continue
        flags = {"--help"}
        for d in decos:
            if call_name(d) != "option":
                continue
            for a in d.args:
                for part in (str_const(a) or "").split("/"):
                    if part.startswith("-"):
                        flags.add(part.strip())
        return sorted(flags)
    raise SystemExit(f"{w.path.name}: no @click.command(\"serve\") in tensorrt_llm/commands/serve.py")


def write_catalog(out: Path, engine: str, version: str, w: Wheel, data: dict) -> Path:
    """JSON, one name per line (reviewable as a diff; loaded in a few milliseconds)."""
    cat: dict = {
        "engine": engine,
        "version": version,
        "source": {"wheel": w.path.name, "sha256": w.sha256(), "generator": "tools/gen_catalogs.py"},
    }
    if data.get("abbreviations") is False:  # click: options must be spelled out
        cat["abbreviations"] = False
    for key in ("flags", "tool_call_parsers", "reasoning_parsers"):
        if data.get(key):
            cat[key] = list(data[key])
    if data.get("json_keys"):
        cat["json_keys"] = {flag: list(keys) for flag, keys in sorted(data["json_keys"].items())}
    path = out / f"{engine}-{version}.json"
    path.write_text(json.dumps(cat, indent=1) + "\n")
    return path


# ---------------------------------------------------------------------------------------------
# ATOM

#: where ``python -m atom.entrypoints.openai_server`` builds its parser: ``EngineArgs.add_cli_args``
#: and the server's own ``--host``/``--server-port``/... (in openai_server.py up to 0.1.2, in
#: openai/api_server.py from 0.1.3, which openai_server.py imports ``main`` from)
ATOM_FLAG_FILES = (
    "atom/model_engine/arg_utils.py",
    "atom/entrypoints/openai_server.py",
    "atom/entrypoints/openai/api_server.py",
)
_ATOM_TAG = re.compile(r"^v(?P<ver>\d+\.\d+\.\d+(?:\.post\d+)?)$")


def atom_flags(w: Archive, defaults: dict[str, str] | None = None) -> list[str]:
    """Flags of ATOM's OpenAI server: the ``--`` literals of every ``add_argument(`` call in
    :data:`ATOM_FLAG_FILES` (``-tp``-style short options are not catalogued, as for the others)."""
    defaults = {} if defaults is None else defaults
    flags: set[str] = {"--help"}
    idx = ClassIndex(w, ("atom/model_engine/", "atom/entrypoints/"))
    for name in ATOM_FLAG_FILES:
        tree = w.tree(name)
        for node in ast.walk(tree) if tree is not None else ():
            if isinstance(node, ast.Call) and call_name(node) == "add_argument":
                _add_argument_flags(node, idx, flags, defaults)
    return sorted(flags)


def atom_tags(repo: Path) -> dict[str, str]:
    """version -> tag: the final release tags (``v0.1.5``; ``-rc`` tags left out)."""
    out = git_out(repo, "tag", "--list")
    return {m.group("ver"): t for t in sorted(out.split()) if (m := _ATOM_TAG.match(t))}


def atom_flexible(w: Archive) -> bool:
    """The server builds its parser with ATOM's ``FlexibleArgumentParser`` (main from 2026-07-23,
    ROCm/ATOM#1686: atom/utils/arg_parser.py registers ``--x_y`` for every ``--x-y`` and the
    reverse), so both spellings of each flag are accepted."""
    tree = w.tree("atom/entrypoints/openai/api_server.py")
    return tree is not None and any(isinstance(n, ast.Call) and call_name(n) == "FlexibleArgumentParser" for n in ast.walk(tree))


def atom_main_snapshots(repo: Path, newest: str, since: str) -> list[tuple[str, str]]:
    """``(version, commit)`` for ATOM's main after its newest release: the last first-parent
    commit of each ISO week (committer date, UTC) dated after ``since`` (the newest tag's day),
    named ``<newest with its last number + 1>.devYYYYMMDD`` after that commit's day — a PEP 440
    dev release, so it sorts after ``newest`` and before the next release, by day.  The newest
    week's snapshot is main's HEAD as fetched: a later fetch moves it (and adds weeks)."""
    log = git_out(repo, "log", "--first-parent", "--format=%H %cd", "--date=format-local:%G-%V %Y-%m-%d", "refs/heads/main")
    nums = [int(x) for x in newest.split(".")]
    nxt = ".".join(str(x) for x in nums[:-1] + [nums[-1] + 1])
    weeks: dict[str, tuple[str, str]] = {}
    for line in log.splitlines():
        commit, week, day = line.split()
        if day > since and week not in weeks:  # newest first: the week's last commit
            weeks[week] = (day, commit)
    return [(f"{nxt}.dev{day.replace('-', '')}", commit) for day, commit in sorted(weeks.values())]


def atom_history_main(repo: Path, out: Path) -> Path:
    tags = atom_tags(repo)
    if not tags:
        raise SystemExit(f"no release tags in {repo}")
    per_release: dict[str, dict] = {}
    sources: dict[str, tuple[str, ...]] = {}

    def read(v: str, ref: str, label: str) -> None:
        w = GitTree(repo, ref, "atom")
        defaults: dict[str, str] = {}
        flags = atom_flags(w, defaults)
        if atom_flexible(w):
            flags = sorted({g for f in flags for g in (f, "--" + f[2:].replace("_", "-"), "--" + f[2:].replace("-", "_"))})
        per_release[v] = {"flags": flags, "defaults": defaults}
        sources[v] = (label, w.commit, w.date)
        print(f"read {label} ({w.commit[:12]}, {w.date}): {len(flags)} flags", file=sys.stderr)

    for v, tag in sorted(tags.items()):
        read(v, tag, tag)
    from recipelint.engines.catalog import version_key

    newest = max(tags, key=version_key)
    for v, commit in atom_main_snapshots(repo, newest, sources[newest][2]):
        read(v, commit, "main")
    hist = build_history("atom", per_release, sources)
    hist["repository"] = "https://github.com/ROCm/ATOM"
    return write_history(out, hist)


# ---------------------------------------------------------------------------------------------
# NVIDIA Dynamo's worker wrappers (`python -m dynamo.vllm`, `python -m dynamo.sglang`)

#: wrapper module -> the engine whose parser it adds its own flags to
DYNAMO_WRAPPERS = {
    "dynamo.vllm": "vllm",
    "dynamo.sglang": "sglang",
    # (1.1.0-1.3.1: "unified" entry points over dynamo/common/backend, the same args.py parse_args)
    "dynamo.vllm.unified_main": "vllm",
    "dynamo.sglang.unified_main": "sglang",
}
_PIN = re.compile(
    r"^Requires-Dist:\s*(?P<pkg>[A-Za-z0-9_.-]+)(?:\[[^\]]*\])?\s*==\s*(?P<ver>[^\s;,]+)\s*;.*extra\s*==\s*['\"](?P<extra>\w+)['\"]"
)


def _module_file(names: set[str], mod: str) -> str | None:
    p = mod.replace(".", "/")
    return next((c for c in (p + ".py", p + "/__init__.py") if c in names), None)


def _imported(tree: ast.Module, mod: str, is_pkg: bool) -> list[str]:
    """The modules an ``import``/``from ... import`` anywhere in ``tree`` may load (relative
    imports resolved against ``mod``; ``from m import x`` may be the module ``m.x``)."""
    pkg = mod if is_pkg else mod.rpartition(".")[0]
    out: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = pkg
                for _ in range(node.level - 1):
                    up = up.rpartition(".")[0]
                base = f"{up}.{node.module}" if node.module else up
            out.append(base)
            out += [f"{base}.{a.name}" for a in node.names]
    return out


def _runnable(names: set[str], mod: str) -> bool:
    """Whether ``python -m <mod>`` runs something: a package's ``__main__.py`` or a module file."""
    p = mod.replace(".", "/")
    return p + "/__main__.py" in names or p + ".py" in names


def dynamo_modules(w: Archive, main: str) -> dict[str, str]:
    """module -> file: what ``python -m <main>`` may load of the ``dynamo`` package — the
    ``__main__`` module, every ``dynamo.*`` module an import in it names (lazy ones inside
    functions too), transitively, and the packages above each."""
    seen: dict[str, str] = {}
    todo = [main + ".__main__" if _module_file(w.names, main + ".__main__") else main]
    while todo:
        mod = todo.pop()
        if mod in seen or not (mod == "dynamo" or mod.startswith("dynamo.")):
            continue
        f = _module_file(w.names, mod)
        if f is None:
            continue
        seen[mod] = f
        parts = mod.split(".")
        todo += [".".join(parts[:k]) for k in range(1, len(parts))]
        tree = w.tree(f)
        if tree is not None:
            todo += _imported(tree, mod, f.endswith("__init__.py"))
    return seen


def dynamo_flags(w: Archive, main: str) -> list[str]:
    """The wrapper's own flags: in the modules ``python -m <main>`` loads, the ``--`` literals of
    every call whose name contains ``add_argument`` / ``add_negatable`` (positional, or Dynamo's
    ``flag_name=`` / ``obsolete_flag=`` keywords of ``dynamo.common.configuration.utils``), the
    ``--no-`` form where the call is ``add_negatable_bool_argument`` or a
    ``BooleanOptionalAction``, and the ``"flags": [...]`` lists of tables such as
    ``dynamo/sglang/args.py``'s ``DYNAMO_ARGS`` (0.4.1-0.9.1, added in a loop).  Every module
    reached is read, so a flag of a parser the worker does not build (a multimodal or
    diffusion sibling reached through an import) is counted too: the list errs towards
    accepting."""
    flags: set[str] = set()
    for _mod, f in sorted(dynamo_modules(w, main).items()):
        tree = w.tree(f)
        for node in ast.walk(tree) if tree is not None else ():
            if isinstance(node, ast.Call):
                name = call_name(node) or ""
                if "add_argument" not in name and "add_negatable" not in name:
                    continue
                lits = [s for s in (str_const(a) for a in node.args) if s and s.startswith("--")]
                primary = list(lits)
                for kw in node.keywords:
                    s = str_const(kw.value) if kw.arg in ("flag_name", "obsolete_flag") else None
                    if s and s.startswith("--"):
                        lits.append(s)
                        if kw.arg == "flag_name":
                            primary.append(s)
                flags.update(lits)
                negatable = "add_negatable" in name or any(
                    kw.arg == "action" and "BooleanOptionalAction" in ast.unparse(kw.value) for kw in node.keywords
                )
                if negatable:
                    flags.update("--no-" + s[2:] for s in primary)
            elif isinstance(node, ast.Dict):
                for k, v in zip(node.keys, node.values, strict=True):
                    if k is not None and str_const(k) == "flags" and isinstance(v, ast.List | ast.Tuple):
                        flags.update(s for s in (str_const(e) for e in v.elts) if s and s.startswith("--"))
    return sorted(flags)


def dynamo_pins(w: Archive) -> dict[str, str]:
    """extra -> the engine release ``ai-dynamo[extra]`` requires (``Requires-Dist: vllm==0.12.0;
    extra == "vllm"`` in the wheel's METADATA)."""
    if w.zip is None:
        return {}
    meta = next((n for n in w.zip.namelist() if n.endswith(".dist-info/METADATA")), None)
    out: dict[str, str] = {}
    for line in (w.zip.read(meta).decode("utf-8", "replace") if meta else "").splitlines():
        m = _PIN.match(line)
        extra = m.group("extra") if m else None
        if extra in _PIN_PACKAGES and m.group("pkg").lower().replace("_", "-") == _PIN_PACKAGES[extra]:
            out.setdefault(extra, m.group("ver"))
    return out


_PIN_PACKAGES = {"vllm": "vllm", "sglang": "sglang", "trtllm": "tensorrt-llm"}
_DYNAMO_WHEEL = re.compile(r"^ai_dynamo-(?P<ver>\d+(?:\.\d+)*(?:\.post\d+)?)-py3-none-any\.whl$")


def dynamo_history_main(dirs: list[Path], out: Path) -> list[Path]:
    """``wrappers/<module>-history.json`` for each of :data:`DYNAMO_WRAPPERS` from the final
    ``ai_dynamo-*.whl`` releases in ``dirs`` (dev builds left out), for the releases where
    ``python -m <module>`` exists (a package's ``__main__.py``, or the module's file)."""
    wheels: dict[str, Path] = {}
    for d in dirs:
        for path in sorted(d.iterdir()) if d.is_dir() else ():
            m = _DYNAMO_WHEEL.match(path.name)
            if m:
                wheels.setdefault(m.group("ver"), path)
    if not wheels:
        raise SystemExit(f"no ai_dynamo wheels in {', '.join(map(str, dirs))}")
    per: dict[str, dict[str, dict]] = {mod: {} for mod in DYNAMO_WRAPPERS}
    sources: dict[str, tuple[str, str]] = {}
    pins: dict[str, dict[str, str]] = {}
    for v, path in sorted(wheels.items()):
        w = Archive(path, "dynamo")
        sources[v] = (path.name, w.sha256())
        pins[v] = dynamo_pins(w)
        for mod in DYNAMO_WRAPPERS:
            if _runnable(w.names, mod):
                per[mod][v] = {"flags": dynamo_flags(w, mod)}
        print(f"read {path.name}: " + ", ".join(f"{m} {len(per[m][v]['flags'])}" for m in per if v in per[m]), file=sys.stderr)
    (out / "wrappers").mkdir(parents=True, exist_ok=True)
    written = []
    for mod, engine in DYNAMO_WRAPPERS.items():
        hist = build_history(mod, per[mod], sources)
        hist = {
            "engine": mod,
            "wraps": engine,
            "package": "ai-dynamo",
            **{k: val for k, val in hist.items() if k != "engine"},
            "engine_pins": {v: pins[v][engine] for v in hist["releases"] if engine in pins[v]},
        }
        hist.pop("catalogued", None)
        written.append(write_history(out / "wrappers", hist))
    return written


# ---------------------------------------------------------------------------------------------
# histories

PACKAGES = {"vllm": "vllm", "sglang": "sglang", "trtllm": "tensorrt_llm"}
_ARCHIVE = re.compile(r"^(?P<pkg>[A-Za-z0-9_.-]+?)-(?P<ver>\d+(?:\.\d+)*(?:\.post\d+)?)(?P<rest>(?:-[^/]*)?\.whl|\.tar\.gz)$")


def extract(engine: str, w: Archive) -> dict:
    """One release's names: flags, parser tables, JSON config keys."""
    defaults: dict[str, str] = {}
    if engine == "vllm":
        tools, reasoning = vllm_parsers(w)
        choices, types = vllm_values(w)
        return {
            "flags": vllm_flags(w, defaults),
            "defaults": defaults,
            "tool_call_parsers": tools,
            "reasoning_parsers": reasoning,
            "json_keys": vllm_json_keys(w),
            "choices": choices,
            "types": types,
        }
    if engine == "sglang":
        tools, reasoning = sglang_parsers(w)
        choices, types = sglang_values(w)
        return {
            "flags": sglang_flags(w, defaults),
            "defaults": defaults,
            "tool_call_parsers": tools,
            "reasoning_parsers": reasoning,
            "choices": choices,
            "types": types,
        }
    return {"flags": trtllm_flags(w), "abbreviations": False}


def release_archives(engine: str, dirs: list[Path]) -> dict[str, Path]:
    """version -> the archive to read it from: final releases only (no rc/dev), an sdist
    before a wheel, then the first name in sorted order — a fixed choice, so that the same
    folders give the same history."""
    pkg = PACKAGES[engine]
    found: dict[str, list[tuple[int, str, Path]]] = {}
    for d in dirs:
        for path in sorted(d.iterdir()) if d.is_dir() else ():
            m = _ARCHIVE.match(path.name)
            if not m or m.group("pkg").replace("-", "_").lower() != pkg:
                continue
            if not m.group("rest").endswith(".whl") and not m.group("rest").endswith(".tar.gz"):
                continue
            kind = 0 if path.name.endswith(".tar.gz") else 1
            found.setdefault(m.group("ver"), []).append((kind, path.name, path))
    return {v: sorted(c)[0][2] for v, c in found.items()}


def _ranges(present: list[int], releases: list[str]) -> str:
    """Release indices -> ``"0.8.0..0.10.2,0.12.0"`` (runs of consecutive releases)."""
    out: list[str] = []
    i = 0
    while i < len(present):
        j = i
        while j + 1 < len(present) and present[j + 1] == present[j] + 1:
            j += 1
        a, b = releases[present[i]], releases[present[j]]
        out.append(a if a == b else f"{a}..{b}")
        i = j + 1
    return ",".join(out)


def build_history(engine: str, per_release: dict[str, dict], sources: dict[str, tuple[str, str]]) -> dict:
    """One history from each release's names: for every name, the releases that have it."""
    from recipelint.engines.catalog import version_key

    releases = sorted(per_release, key=version_key)
    pos = {v: i for i, v in enumerate(releases)}

    def table(get) -> dict[str, str]:
        seen: dict[str, list[int]] = {}
        for v in releases:
            for name in get(per_release[v]):
                seen.setdefault(name, []).append(pos[v])
        return {name: _ranges(sorted(set(idx)), releases) for name, idx in sorted(seen.items())}

    hist: dict = {
        "engine": engine,
        "generator": "tools/gen_catalogs.py",
        "releases": releases,
        "sources": {v: list(sources[v]) for v in releases},
    }
    if any(d.get("abbreviations") is False for d in per_release.values()):
        hist["abbreviations"] = False
    hist["flags"] = table(lambda d: d.get("flags", []))
    catalogued: dict[str, str] = {}
    for kind in ("tool_call_parsers", "reasoning_parsers"):
        have = [pos[v] for v in releases if per_release[v].get(kind)]
        if have:
            catalogued[kind] = _ranges(have, releases)
            hist[kind] = table(lambda d, k=kind: d.get(k, []))
    json_flags = sorted({f for d in per_release.values() for f in d.get("json_keys", {})})
    if json_flags:
        hist["json_keys"] = {}
        for flag in json_flags:
            catalogued[flag] = _ranges([pos[v] for v in releases if flag in per_release[v].get("json_keys", {})], releases)
            hist["json_keys"][flag] = table(lambda d, f=flag: d.get("json_keys", {}).get(f, []))
    # literal defaults: flag -> {JSON value: releases}; a release without one is not readable
    defaults: dict[str, dict[str, list[int]]] = {}
    for v in releases:
        for flag, value in per_release[v].get("defaults", {}).items():
            if flag in per_release[v]["flags"]:
                defaults.setdefault(flag, {}).setdefault(value, []).append(pos[v])
    if defaults:
        hist["defaults"] = {
            flag: {value: _ranges(idx, releases) for value, idx in sorted(vals.items())}
            for flag, vals in sorted(defaults.items())
        }
    # flag values: closed choices (as a JSON list) and numeric types, each with its releases; the
    # releases where any was read are "values" in `catalogued` (outside them a value is not judged)
    for kind in ("choices", "types"):
        vals: dict[str, dict[str, list[int]]] = {}
        for v in releases:
            for flag, value in per_release[v].get(kind, {}).items():
                if flag in per_release[v]["flags"]:
                    key = json.dumps(value) if kind == "choices" else value
                    vals.setdefault(flag, {}).setdefault(key, []).append(pos[v])
        if vals:
            hist[kind] = {
                flag: {value: _ranges(idx, releases) for value, idx in sorted(got.items())} for flag, got in sorted(vals.items())
            }
    have = [pos[v] for v in releases if per_release[v].get("choices") or per_release[v].get("types")]
    if have:
        catalogued["values"] = _ranges(have, releases)
    # where a table was read: outside these releases a parser name or JSON key is not judged
    hist["catalogued"] = catalogued
    return hist


def write_history(out: Path, hist: dict) -> Path:
    """JSON, one name per line (reviewable as a diff); byte-identical for the same inputs."""
    path = out / f"{hist['engine']}-history.json"
    path.write_text(json.dumps(hist, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return path


def history_main(engine: str, dirs: list[Path], out: Path) -> Path:
    archives = release_archives(engine, dirs)
    if not archives:
        raise SystemExit(f"no {engine} archives in {', '.join(map(str, dirs))}")
    per_release: dict[str, dict] = {}
    sources: dict[str, tuple[str, str]] = {}
    for v, path in sorted(archives.items()):
        w = Archive(path, PACKAGES[engine])
        per_release[v] = extract(engine, w)
        sources[v] = (path.name, w.sha256())
        print(f"read {path.name}: {len(per_release[v]['flags'])} flags", file=sys.stderr)
    return write_history(out, build_history(engine, per_release, sources))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--history", nargs="*", default=[], choices=sorted(PACKAGES), help="engines to write a history for")
    ap.add_argument("--sources", nargs="*", type=Path, default=[], help="folders of sdists and wheels (--history)")
    ap.add_argument("--atom-repo", type=Path, help="a git directory of ROCm/ATOM: write atom-history.json from its tags")
    ap.add_argument(
        "--dynamo", nargs="*", type=Path, default=[], help="folders of ai_dynamo wheels: write wrappers/dynamo.*-history.json"
    )
    ap.add_argument("--vllm", nargs="*", default=[])
    ap.add_argument("--sglang", nargs="*", default=[])
    ap.add_argument("--trtllm", nargs="*", default=[])
    ap.add_argument("--out", type=Path, default=Path("rules/data/catalogs"))
    ap.add_argument("--wheels", type=Path, default=Path(".wheels"))
    args = ap.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    for engine in args.history:
        print(f"wrote {history_main(engine, args.sources, args.out)}")
    if args.atom_repo:
        print(f"wrote {atom_history_main(args.atom_repo, args.out)}")
    if args.dynamo:
        for path in dynamo_history_main(args.dynamo, args.out):
            print(f"wrote {path}")
    for v in args.vllm:
        w = Wheel(wheel_path("vllm", v, args.wheels))
        tools, reasoning = vllm_parsers(w)
        p = write_catalog(
            args.out,
            "vllm",
            v,
            w,
            {"flags": vllm_flags(w), "tool_call_parsers": tools, "reasoning_parsers": reasoning, "json_keys": vllm_json_keys(w)},
        )
        print(f"wrote {p}")
    for v in args.sglang:
        w = Wheel(wheel_path("sglang", v, args.wheels))
        tools, reasoning = sglang_parsers(w)
        p = write_catalog(
            args.out, "sglang", v, w, {"flags": sglang_flags(w), "tool_call_parsers": tools, "reasoning_parsers": reasoning}
        )
        print(f"wrote {p}")
    for v in args.trtllm:
        w = Wheel(wheel_path("tensorrt-llm", v, args.wheels))
        p = write_catalog(args.out, "trtllm", v, w, {"flags": trtllm_flags(w), "abbreviations": False})
        print(f"wrote {p}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
