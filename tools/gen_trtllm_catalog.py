"""Write ``rules/data/trtllm_llm_args.yaml``: TensorRT-LLM's LLM-API options (the YAML of
``trtllm-serve --config FILE``) as the linter judges them.

    python tools/gen_trtllm_catalog.py [--check]
        (reads bench/trtllm/llm_args-0004396.json and bench/trtllm/renames.yaml)

TensorRT-LLM publishes no sources on PyPI (stub sdists), so the catalog is made from a reading of
``tensorrt_llm/llmapi/llm_args.py`` at a named commit (the search index's ``read_file``): the
*extraction* is that reading written down — every pydantic class, its bases, its ``extra``
setting and each field's annotation and default as written, the enums the fields use — kept in
``bench/trtllm/``.  This tool turns annotations into what a YAML value may be (a nested class,
a choice among literals or enum members, a scalar type, a free-form mapping) and adds the
command line's fields (``serve.py``'s ``get_llm_args``) and the renames between releases.
``--check`` fails when the committed data file differs from what it would write.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "rules" / "data" / "trtllm_llm_args.yaml"

#: trtllm-serve's flags that set an LLM-API field (tensorrt_llm/commands/serve.py, get_llm_args and
#: the click options that feed it, at 00209af149e7774406881a37283dce303571eb11)
CLI_FIELDS = {
    "--tokenizer": "tokenizer",
    "--custom_tokenizer": "custom_tokenizer",
    "--backend": "backend",
    "--max_beam_width": "max_beam_width",
    "--max_batch_size": "max_batch_size",
    "--max_num_tokens": "max_num_tokens",
    "--max_seq_len": "max_seq_len",
    "--tp_size": "tensor_parallel_size",
    "--tensor_parallel_size": "tensor_parallel_size",
    "--pp_size": "pipeline_parallel_size",
    "--pipeline_parallel_size": "pipeline_parallel_size",
    "--cp_size": "context_parallel_size",
    "--context_parallel_size": "context_parallel_size",
    "--ep_size": "moe_expert_parallel_size",
    "--moe_expert_parallel_size": "moe_expert_parallel_size",
    "--gpus_per_node": "gpus_per_node",
    "--num_postprocess_workers": "num_postprocess_workers",
    "--trust_remote_code": "trust_remote_code",
    "--revision": "revision",
    "--reasoning_parser": "reasoning_parser",
    "--enable_chunked_prefill": "enable_chunked_prefill",
}
#: the flags naming an options file: trtllm-serve's (and its alias), Dynamo's TensorRT-LLM worker's
OPTIONS_FILE_FLAGS = ["--config", "--extra_llm_api_options", "--extra-engine-args"]

_SCALARS = {
    "int": "int",
    "PositiveInt": "int",
    "NonNegativeInt": "int",
    "StrictInt": "int",
    "float": "float",
    "PositiveFloat": "float",
    "NonNegativeFloat": "float",
    "bool": "bool",
    "StrictBool": "bool",
    "str": "str",
}


def _split_top(s: str) -> list[str]:
    out, depth, cur = [], 0, []
    for ch in s:
        if ch in "[(":
            depth += 1
        elif ch in "])":
            depth -= 1
        if ch == "," and depth == 0:
            out.append("".join(cur).strip())
            cur = []
        else:
            cur.append(ch)
    if "".join(cur).strip():
        out.append("".join(cur).strip())
    return out


def kinds(ann: str, classes: set[str], enums: dict) -> dict:
    """What a value of annotation ``ann`` may be: {classes, choices, scalars, list, mapping, any}."""
    ann = ann.strip().strip("'\"")
    got: dict = {"classes": [], "choices": [], "scalars": [], "list": None, "mapping": False, "any": False, "null": False}

    def walk(a: str):
        a = a.strip().strip("'\"")
        m = re.fullmatch(r"(?:typing\.)?(\w+)\s*\[(.*)\]", a, re.S)
        head, inner = (m.group(1), m.group(2)) if m else (a, None)
        head = head.split(".")[-1]
        if inner is not None and head in ("Optional",):
            got["null"] = True
            walk(inner)
        elif inner is not None and head in ("Union",):
            for part in _split_top(inner):
                walk(part)
        elif inner is not None and head == "Annotated":
            walk(_split_top(inner)[0])
        elif inner is not None and head == "Literal":
            for part in _split_top(inner):
                got["choices"].append(part.strip().strip("'\""))
        elif inner is not None and head in ("List", "list", "Sequence", "Tuple", "tuple", "Set", "set"):
            got["list"] = kinds(_split_top(inner)[0], classes, enums)
        elif inner is not None and head in ("Dict", "dict", "Mapping"):
            got["mapping"] = True
        elif "|" in a and inner is None:
            for part in a.split("|"):
                walk(part)
        elif head in ("None", "NoneType"):
            got["null"] = True
        elif head in classes:
            got["classes"].append(head)
        elif head in enums:
            got["choices"].extend(enums[head])
        elif head in _SCALARS:
            got["scalars"].append(_SCALARS[head])
        elif head in ("dict", "Dict", "Mapping", "object"):
            got["mapping"] = True
        elif head in ("list", "List"):
            got["list"] = {"any": True}
        else:
            got["any"] = True  # a type this tool does not model (a callable, a path, a model object)

    walk(ann)
    return {k: v for k, v in got.items() if v}


def _enum_members(members: list) -> list[str]:
    """An enum's accepted spellings: member names and their values (`MAX_UTILIZATION = "MAX_UTILIZATION"`)."""
    out: list[str] = []
    for m in members:
        name, _, value = str(m).partition("=")
        for t in (name.strip(), value.strip().strip("'\"")):
            if t and t not in out:
                out.append(t)
    return out


def aliases(extraction: dict, classes: set[str]) -> dict[str, str]:
    """Type aliases the annotations use (``SpeculativeConfig``, ``CudaGraphConfigType``) as the
    union they stand for, read from the extraction's ``unions`` (the members it names)."""
    out = {}
    for name, text in (extraction.get("unions") or {}).items():
        if "." in name:
            continue
        lit = re.match(r"\s*Literal\[.*?\]", text)
        if lit:
            out[name] = lit.group(0).strip()
            continue
        # the members: `Name='literal'` pairs, or the names inside `Union[...]` (never the model
        # that uses the alias: "used by BaseLlmArgs.speculative_config")
        named = re.findall(r"\b(\w+)\s*=\s*'", text)
        inside = re.search(r"Union\[([^\]]*)\]", text)
        listed = re.findall(r"\b(\w+)\b", inside.group(1)) if inside else []
        members = [m for m in named + listed if m in classes]
        if members:
            out[name] = "Union[" + ", ".join(dict.fromkeys(members)) + "]"
    return out


def _alias_names(text, field: str) -> list[str]:
    """The other names a field takes: a plain alias (``alias="x"``, read as ``x``) or the choices
    of ``validation_alias=AliasChoices("speculative_model", "speculative_model_dir")``."""
    if not text:
        return []
    text = str(text)
    if "(" in text or "=" in text:
        names = re.findall(r"""["']([A-Za-z_][A-Za-z0-9_]*)["']""", text)
    else:
        names = [text]
    return [n for n in dict.fromkeys(names) if n != field]


def build(extraction: dict, renames: list | None) -> dict:
    classes = extraction["classes"]
    enums = {name.split(".")[-1]: _enum_members(members) for name, members in (extraction.get("enums") or {}).items()}
    names = set(classes)
    alias = aliases(extraction, names)
    out_classes = {}
    for name, c in sorted(classes.items()):
        fields = {}
        for fname, f in (c.get("fields") or {}).items():
            ann = f.get("annotation", "Any")
            for a, full in alias.items():
                ann = re.sub(rf"\b{a}\b", full, ann)
            spec = kinds(ann, names, enums)
            for k in ("deprecated", "note", "constraints", "default"):
                if f.get(k) not in (None, ""):
                    spec[k] = f[k]
            others = _alias_names(f.get("alias"), fname)
            if others:
                spec["aliases"] = others
            fields[fname] = spec
        entry: dict = {"bases": [b for b in c.get("bases", [])], "fields": fields}
        if c.get("extra"):
            entry["extra"] = c["extra"]
        if c.get("validators"):
            entry["validators"] = c["validators"]
        out_classes[name] = entry
    src = extraction["source"]
    return {
        "sources": [{"repo": src["repo"], "file": src["file"], "commit": src["commit"]}],
        # `LlmArgs = TorchLlmArgs` at the end of the file: what `trtllm-serve` (PyTorch backend) validates
        "root": "TorchLlmArgs",
        # the models' base class, imported from tensorrt_llm/llmapi/utils.py at this commit; older
        # llm_args.py define it themselves with `class Config: extra = "forbid"`
        "strict_bases": ["StrictBaseModel"],
        "options_file_flags": OPTIONS_FILE_FLAGS,
        "cli_fields": CLI_FIELDS,
        "classes": out_classes,
        "enums": enums,
        "unions": extraction.get("unions") or {},
        "free_form_fields": extraction.get("free_form_fields") or [],
        "renames": renames or [],
        # the image repositories whose tag is a TensorRT-LLM release (`release:1.3.0rc23.post1`)
        "images": ["nvcr.io/nvidia/tensorrt-llm/release", "nvcr.io/nvidia/tensorrt-llm/devel"],
    }


HEADER = """\
# TensorRT-LLM's LLM-API options: the YAML of `trtllm-serve --config FILE` /
# `--extra_llm_api_options FILE`, validated by pydantic models that forbid unknown keys.
# Written by tools/gen_trtllm_catalog.py from bench/trtllm/ (a reading of llm_args.py at the
# commit below, and the renames between releases with their evidence): do not edit by hand.
# `fields`: what a value may be — `classes` (a nested model), `choices` (literals, enum
# members), `scalars`, `list`, `mapping` (free form), `any` (not modelled), `null`.
"""


def render(data: dict) -> str:
    import io

    from ruamel.yaml import YAML

    y = YAML()
    y.default_flow_style = False
    y.width = 110
    buf = io.StringIO()
    y.dump(data, buf)
    return HEADER + buf.getvalue()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--extraction", default=str(ROOT / "bench" / "trtllm" / "llm_args-0004396.json"))
    ap.add_argument("--renames", default=str(ROOT / "bench" / "trtllm" / "renames.yaml"))
    ap.add_argument("--check", action="store_true")
    a = ap.parse_args(argv)
    extraction = json.loads(Path(a.extraction).read_text())
    renames = None
    if a.renames:
        from ruamel.yaml import YAML

        renames = YAML(typ="safe").load(Path(a.renames).read_text())
    text = render(build(extraction, renames))
    if a.check:
        if OUT.read_text() != text:
            print(f"{OUT} is stale: run tools/gen_trtllm_catalog.py", file=sys.stderr)
            return 1
        return 0
    OUT.write_text(text)
    print(f"wrote {OUT.relative_to(ROOT)}: {len(text)} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
