"""Generate recipelint's engine catalogs (rules/data/catalogs/*.json) from the engines' wheels.

    python tools/gen_catalogs.py --vllm 0.25.1 0.33.0 --sglang 0.5.16 --out rules/data/catalogs \\
        [--wheels DIR]

Each wheel is fetched with ``pip download --no-deps`` (or found in ``--wheels``), opened as a zip
file, and its Python sources are *parsed* with ``ast`` — never imported or run.  What is read:

vLLM
  * serve flags: every ``--`` string literal of every ``.add_argument(`` call in
    ``vllm/engine/arg_utils.py``, ``vllm/entrypoints/{openai,common}/cli_args.py`` and
    ``vllm/entrypoints/cli/serve.py``; ``--<field>`` for each field of the ``*FrontendArgs``
    dataclasses; ``--no-<flag>`` for boolean fields (``get_kwargs`` gives them
    ``BooleanOptionalAction``: annotation contains ``bool``, not ``Literal``, not a union with
    ``str``) and explicit ``BooleanOptionalAction``s; with ``EnableDisableAction`` (0.33.0 on),
    the ``--enable-x``/``--disable-x`` inverse too (without a ``--no-`` form of its own).
  * tool-call and reasoning parsers: the keys of ``_TOOL_PARSERS_TO_REGISTER``
    (``vllm/tool_parsers/__init__.py``) and ``_REASONING_PARSERS_TO_REGISTER``
    (``vllm/reasoning/__init__.py``).
  * JSON config flags: the field names of ``AttentionConfig``, ``CompilationConfig``,
    ``SpeculativeConfig`` and ``KVTransferConfig`` (their JSON is strict: unknown keys fail).
SGLang
  * server flags: ``--`` literals of ``add_argument(`` calls in ``sglang/srt/server_args.py`` and
    ``sglang/srt/arg_groups/**``, plus the fields of the ``ServerArgs`` dataclass when the CLI is
    built from it (0.5.16 on), with its ``cli_aliases``/``alias`` metadata.
  * parsers: ``FunctionCallParser.ToolCallParserEnum`` keys and ``ReasoningParser.DetectorMap`` keys
    (``auto`` is accepted by the argparse choices too).  From 0.5.16 the CLI is built from
    ``A[T, "help"]`` / ``A[T, Arg(cli_name=, aliases=, action=, no_cli=)]`` dataclass fields, and
    from 0.5.23 those fields live in the ``_NS_PATH`` namespace classes of ``arg_groups/fields/``.

TensorRT-LLM
  * ``trtllm-serve serve`` flags: the option strings of the ``click.option(...)`` decorators of
    the function decorated ``@click.command("serve")`` in ``tensorrt_llm/commands/serve.py``
    (``"--flag/--no-flag"`` pairs give both).  click does not accept abbreviations, so the
    catalog says ``abbreviations: false``.  The wheels are on pypi.nvidia.com only (PyPI holds
    a stub sdist): put ``tensorrt_llm-<version>-*.whl`` in ``--wheels``.

Every catalog records the wheel it was read from (file name and SHA-256) and the generator.
The output is deterministic: the same wheels give byte-identical catalogs.
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import json
import subprocess
import sys
import warnings
import zipfile
from pathlib import Path

VLLM_FLAG_FILES = (
    "vllm/engine/arg_utils.py",
    "vllm/entrypoints/openai/cli_args.py",
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


class Wheel:
    def __init__(self, path: Path):
        self.path = path
        self.zip = zipfile.ZipFile(path)
        self.names = set(self.zip.namelist())
        self._trees: dict[str, ast.Module] = {}

    def sha256(self) -> str:
        h = hashlib.sha256()
        with self.path.open("rb") as f:
            for block in iter(lambda: f.read(1 << 20), b""):
                h.update(block)
        return h.hexdigest()

    def source(self, name: str) -> str | None:
        if name not in self.names:
            return None
        return self.zip.read(name).decode("utf-8-sig")

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
    """Class definitions of a wheel, by name (fields resolved through base classes)."""

    def __init__(self, wheel: Wheel, prefixes: tuple[str, ...]):
        self.classes: dict[str, ast.ClassDef] = {}
        for prefix in prefixes:
            for name in wheel.py_files(prefix):
                tree = wheel.tree(name)
                if tree is None:
                    continue
                for node in ast.walk(tree):
                    if isinstance(node, ast.ClassDef):
                        # the first definition wins (vllm/config comes first in the prefixes)
                        self.classes.setdefault(node.name, node)

    def annotations(self, name: str, depth: int = 0) -> dict[str, ast.AST]:
        cls = self.classes.get(name)
        if cls is None or depth > 8:
            return {}
        out: dict[str, ast.AST] = {}
        for base in cls.bases:
            bname = base.id if isinstance(base, ast.Name) else base.attr if isinstance(base, ast.Attribute) else None
            if bname:
                out.update(self.annotations(bname, depth + 1))
        out.update(annotated_fields(cls))
        return out

    def fields(self, name: str, depth: int = 0) -> dict[str, str]:
        cls = self.classes.get(name)
        if cls is None or depth > 8:
            return {}
        out: dict[str, str] = {}
        for base in cls.bases:
            bname = base.id if isinstance(base, ast.Name) else base.attr if isinstance(base, ast.Attribute) else None
            if bname:
                out.update(self.fields(bname, depth + 1))
        out.update(dataclass_fields(cls))
        return out


def is_bool_field(ann: str) -> bool:
    return "bool" in ann and "Literal" not in ann and "str" not in ann


# ---------------------------------------------------------------------------------------------
# vLLM


def vllm_flags(w: Wheel) -> list[str]:
    idx = ClassIndex(w, ("vllm/config/", "vllm/entrypoints/", "vllm/engine/", "vllm/"))
    enable_disable = "class EnableDisableAction" in (w.source("vllm/utils/argparse_utils.py") or "")
    flags: set[str] = set()
    bool_flags: set[str] = set()
    for name in VLLM_FLAG_FILES:
        tree = w.tree(name)
        if tree is None:
            continue
        kwargs_class: dict[str, str] = {}
        for node in ast.walk(tree):
            # model_kwargs = get_kwargs(ModelConfig)
            if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call) and call_name(node.value) == "get_kwargs":
                arg = node.value.args[0] if node.value.args else None
                cname = arg.id if isinstance(arg, ast.Name) else arg.attr if isinstance(arg, ast.Attribute) else None
                for t in node.targets:
                    if isinstance(t, ast.Name) and cname:
                        kwargs_class[t.id] = cname
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Call) and call_name(node) == "add_argument"):
                continue
            lits = [s for s in (str_const(a) for a in node.args) if s and s.startswith("--")]
            flags.update(lits)
            is_bool = False
            for kw in node.keywords:
                if kw.arg == "action" and "BooleanOptionalAction" in ast.unparse(kw.value):
                    is_bool = True
                if kw.arg is None:
                    for sub in ast.walk(kw.value):
                        if isinstance(sub, ast.Subscript) and isinstance(sub.value, ast.Name):
                            cname = kwargs_class.get(sub.value.id)
                            field = str_const(sub.slice)
                            if cname and field and is_bool_field(idx.fields(cname).get(field, "")):
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


def vllm_parsers(w: Wheel) -> tuple[list[str], list[str]]:
    tools = dict_keys(
        w.tree("vllm/tool_parsers/__init__.py") or ast.Module(body=[], type_ignores=[]), "_TOOL_PARSERS_TO_REGISTER"
    )
    reasoning = dict_keys(
        w.tree("vllm/reasoning/__init__.py") or ast.Module(body=[], type_ignores=[]), "_REASONING_PARSERS_TO_REGISTER"
    )
    return tools, reasoning


def vllm_json_keys(w: Wheel) -> dict[str, list[str]]:
    idx = ClassIndex(w, ("vllm/config/",))
    return {flag: sorted(idx.fields(cls)) for flag, cls in VLLM_JSON_CONFIGS.items() if idx.fields(cls)}


# ---------------------------------------------------------------------------------------------
# SGLang


def sglang_flags(w: Wheel) -> list[str]:
    flags: set[str] = {"--help"}
    files = ["sglang/srt/server_args.py", *w.py_files("sglang/srt/arg_groups/")]
    for name in files:
        tree = w.tree(name)
        if tree is None:
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and call_name(node) == "add_argument":
                lits = [s for s in (str_const(a) for a in node.args) if s and s.startswith("--")]
                flags.update(lits)
                if any(kw.arg == "action" and "BooleanOptionalAction" in ast.unparse(kw.value) for kw in node.keywords):
                    flags.update("--no-" + f[2:] for f in lits)
            # field(metadata={"cli_aliases": ["--tp"]}) / {"aliases": [...]} / {"flag": "--x"}
            if isinstance(node, ast.Dict):
                for k, v in zip(node.keys, node.values):
                    key = str_const(k) if k is not None else None
                    if key in ("cli_aliases", "aliases", "flags", "cli_flags", "flag", "cli_flag", "name"):
                        for sub in ast.walk(v):
                            s = str_const(sub)
                            if s and s.startswith("--"):
                                flags.add(s)
    idx = ClassIndex(w, ("sglang/srt/",))
    for cname in sglang_cli_dataclasses(w):
        for field, ann in idx.annotations(cname).items():
            flags.update(_dataclass_arg_flags(field, ann))
    # 0.5.23 on: ServerArgs collects its input fields from the namespace classes (`_NS_PATH`)
    for name in w.py_files("sglang/srt/arg_groups/fields/"):
        tree = w.tree(name)
        if tree is None:
            continue
        for node in tree.body:
            if isinstance(node, ast.ClassDef) and any(
                isinstance(st, (ast.Assign, ast.AnnAssign)) and "_NS_PATH" in ast.unparse(st).split("=")[0] for st in node.body
            ):
                for field, ann in annotated_fields(node).items():
                    flags.update(_dataclass_arg_flags(field, ann))
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
    for name in w.py_files("sglang/srt/function_call/"):
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


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--vllm", nargs="*", default=[])
    ap.add_argument("--sglang", nargs="*", default=[])
    ap.add_argument("--trtllm", nargs="*", default=[])
    ap.add_argument("--out", type=Path, default=Path("rules/data/catalogs"))
    ap.add_argument("--wheels", type=Path, default=Path(".wheels"))
    args = ap.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
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
