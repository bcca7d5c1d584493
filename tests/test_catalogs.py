"""Engine catalogs: their schema, their agreement with the reference lists, and the generator
(tools/gen_catalogs.py) on a small wheel built here."""

from __future__ import annotations

import json
import os
import sys
import zipfile
from pathlib import Path

import pytest
from helpers import ROOT

sys.path.insert(0, str(ROOT / "tools"))
import gen_catalogs

CATALOGS = ROOT / "rules" / "data" / "catalogs"
REFERENCE = ROOT.parent / "shared" / "facts" / "engine-lists"


def catalogs():
    return sorted(CATALOGS.glob("*.json"))


@pytest.mark.parametrize("path", catalogs(), ids=lambda p: p.stem)
def test_catalog_schema(path):
    data = json.loads(path.read_text())
    assert set(data) <= {
        "engine",
        "version",
        "source",
        "flags",
        "tool_call_parsers",
        "reasoning_parsers",
        "json_keys",
        "abbreviations",
    }
    assert data["engine"] in ("vllm", "sglang", "trtllm") and path.stem == f"{data['engine']}-{data['version']}"
    assert set(data["source"]) == {"wheel", "sha256", "generator"} and len(data["source"]["sha256"]) == 64
    wheel_name = {"trtllm": "tensorrt_llm"}.get(data["engine"], data["engine"])
    assert data["source"]["wheel"].startswith(f"{wheel_name}-{data['version']}-")
    assert data.get("abbreviations", True) is (data["engine"] != "trtllm")
    flags = data["flags"]
    assert flags == sorted(set(flags)) and all(f.startswith("--") for f in flags)
    for key in ("tool_call_parsers", "reasoning_parsers") if data["engine"] != "trtllm" else ():
        names = data[key]
        assert names and len(names) == len(set(names)) and all(isinstance(n, str) and n for n in names)
    for flag, keys in (data.get("json_keys") or {}).items():
        assert flag in flags and keys == sorted(set(keys))


def _reference(engine: str, version: str):
    flags = {
        ln.strip()
        for ln in (REFERENCE / f"{engine}-{version}-serve-flags.txt").read_text().splitlines()
        if ln.strip() and not ln.startswith("#")
    }
    lines = (REFERENCE / f"{engine}-{version}-parsers.txt").read_text().splitlines()
    tools = set(next(ln for ln in lines if ln.startswith("tool-call-parser:")).split(":", 1)[1].split())
    reasoning = set(next(ln for ln in lines if ln.startswith("reasoning-parser:")).split(":", 1)[1].split())
    return flags, tools, reasoning


@pytest.mark.skipif(not REFERENCE.is_dir(), reason="the shared reference lists are not beside this checkout")
@pytest.mark.parametrize("path", catalogs(), ids=lambda p: p.stem)
def test_generated_catalog_matches_the_reference_lists(path):
    data = json.loads(path.read_text())
    flags, tools, reasoning = _reference(data["engine"], data["version"])
    assert set(data["flags"]) == flags
    assert set(data["tool_call_parsers"]) == tools
    assert set(data["reasoning_parsers"]) == reasoning


# ---- the generator, on a wheel made here ----------------------------------------------------

ARG_UTILS = '''
import argparse
from vllm.config import ModelConfig, ParallelConfig
def get_kwargs(cls): ...
class EngineArgs:
    @staticmethod
    def add_cli_args(parser):
        model_kwargs = get_kwargs(ModelConfig)
        parallel_kwargs = get_kwargs(ParallelConfig)
        g = parser.add_argument_group("ModelConfig")
        g.add_argument("--model", **model_kwargs["model"])
        g.add_argument("--trust-remote-code", **model_kwargs["trust_remote_code"])
        g.add_argument("--quantization", "-q", **model_kwargs["quantization"])
        g.add_argument("--enable-thing", **{**parallel_kwargs["enable_thing"], "default": None})
        g.add_argument("--plain", action=argparse.BooleanOptionalAction)
        return parser
'''
CONFIG = '''
from typing import Literal
class ModelConfig:
    model: str = "m"
    trust_remote_code: bool = False
    quantization: Literal["fp8", "awq"] | None = None
class ParallelConfig:
    enable_thing: bool = False
    mixed: bool | str | None = None
class AttentionConfig:
    backend: str | None = None
    use_fp4_indexer_cache: bool = False
'''
CLI_ARGS = '''
class BaseFrontendArgs:
    tool_call_parser: str | None = None
    enable_auto_tool_choice: bool = False
class FrontendArgs(BaseFrontendArgs):
    port: int = 8000
def make_arg_parser(parser):
    parser.add_argument("--headless", action="store_true")
'''
TOOLS = '_TOOL_PARSERS_TO_REGISTER = {"hermes": ("hermes", "H"), "deepseek_v4": ("d", "D")}\n'
REASONING = '_REASONING_PARSERS_TO_REGISTER: dict = {"qwen3": ("q", "Q")}\n'


def _wheel(tmp_path: Path, enable_disable: bool) -> Path:
    p = tmp_path / "vllm-9.9.9-cp38-abi3-any.whl"
    with zipfile.ZipFile(p, "w") as z:
        z.writestr("vllm/engine/arg_utils.py", ARG_UTILS)
        z.writestr("vllm/config/model.py", CONFIG)
        z.writestr("vllm/entrypoints/openai/cli_args.py", CLI_ARGS)
        z.writestr("vllm/tool_parsers/__init__.py", TOOLS)
        z.writestr("vllm/reasoning/__init__.py", REASONING)
        z.writestr("vllm/utils/argparse_utils.py", "class EnableDisableAction: ...\n" if enable_disable else "\n")
    return p


def test_generator_reads_flags_the_way_argparse_builds_them(tmp_path):
    w = gen_catalogs.Wheel(_wheel(tmp_path, enable_disable=False))
    assert gen_catalogs.vllm_flags(w) == [
        "--enable-auto-tool-choice",
        "--enable-thing",
        "--headless",
        "--model",
        "--no-enable-auto-tool-choice",
        "--no-enable-thing",
        "--no-plain",
        "--no-trust-remote-code",
        "--plain",
        "--port",
        "--quantization",
        "--tool-call-parser",
        "--trust-remote-code",
    ]
    assert gen_catalogs.vllm_parsers(w) == (["hermes", "deepseek_v4"], ["qwen3"])
    assert gen_catalogs.vllm_json_keys(w) == {"--attention-config": ["backend", "use_fp4_indexer_cache"]}


def test_generator_adds_enable_disable_inverses(tmp_path):
    w = gen_catalogs.Wheel(_wheel(tmp_path, enable_disable=True))
    flags = gen_catalogs.vllm_flags(w)
    assert "--disable-thing" in flags and "--disable-auto-tool-choice" in flags
    assert "--no-disable-thing" not in flags


def test_generator_output_is_deterministic(tmp_path):
    wheel = _wheel(tmp_path, enable_disable=False)
    out1, out2 = tmp_path / "a", tmp_path / "b"
    for out in (out1, out2):
        out.mkdir()
        gen_catalogs.main(["--vllm", "9.9.9", "--wheels", str(tmp_path), "--out", str(out)])
    a = (out1 / "vllm-9.9.9.json").read_text()
    assert a == (out2 / "vllm-9.9.9.json").read_text()
    data = json.loads(a)
    assert data["source"]["wheel"] == wheel.name and data["flags"][0] == "--enable-auto-tool-choice"


@pytest.mark.skipif(not os.environ.get("RECIPELINT_WHEELS"), reason="set RECIPELINT_WHEELS to a folder of engine wheels")
def test_generator_reproduces_the_committed_catalogs(tmp_path):
    """Opt-in (downloads or reads ~3 GB of wheels): regenerate every catalog and compare."""
    out = tmp_path / "out"
    vllm = [p.stem.split("-", 1)[1] for p in catalogs() if p.stem.startswith("vllm-")]
    sglang = [p.stem.split("-", 1)[1] for p in catalogs() if p.stem.startswith("sglang-")]
    gen_catalogs.main(["--vllm", *vllm, "--sglang", *sglang, "--wheels", os.environ["RECIPELINT_WHEELS"], "--out", str(out)])
    for p in catalogs():
        assert (out / p.name).read_text() == p.read_text(), p.name


TRT_SERVE = """
import click

@click.group()
def main():
    pass

@click.command("serve")
@click.argument("model", type=str)
@click.option("--tp_size", type=int, default=1)
@click.option("--host", type=str, default="localhost")
@click.option("--trust_remote_code/--no_trust_remote_code", default=False)
@click.option("--tool_parser", type=click.Choice(["qwen3"]), default=None)
def serve(model, tp_size, host, trust_remote_code, tool_parser):
    pass

@click.command("disaggregated")
@click.option("--config_file", type=str)
def disaggregated(config_file):
    pass
"""


def test_generator_reads_trtllm_click_options(tmp_path):
    p = tmp_path / "tensorrt_llm-9.9.9rc1-cp312-cp312-linux_x86_64.whl"
    with zipfile.ZipFile(p, "w") as z:
        z.writestr("tensorrt_llm/commands/serve.py", TRT_SERVE)
    assert gen_catalogs.trtllm_flags(gen_catalogs.Wheel(p)) == [
        "--help",
        "--host",
        "--no_trust_remote_code",
        "--tool_parser",
        "--tp_size",
        "--trust_remote_code",
    ]
    out = tmp_path / "out"
    gen_catalogs.main(["--trtllm", "9.9.9rc1", "--wheels", str(tmp_path), "--out", str(out)])
    data = json.loads((out / "trtllm-9.9.9rc1.json").read_text())
    assert data["abbreviations"] is False and "--config_file" not in data["flags"]
    test_catalog_schema(out / "trtllm-9.9.9rc1.json")


def test_click_catalogs_take_no_abbreviations(monkeypatch):
    from recipelint.engines import catalog

    cats = {
        "trtllm": {
            "1.0.0": {"engine": "trtllm", "version": "1.0.0", "abbreviations": False, "flags": ["--tp_size", "--max_batch_size"]}
        }
    }
    monkeypatch.setattr(catalog, "catalogs", lambda: cats)
    catalog.engine_flags.cache_clear()
    catalog.expand.cache_clear()
    try:
        assert catalog.expand("trtllm", "--tp_size") == ("--tp_size", ())
        assert catalog.expand("trtllm", "--max_batch") == (None, ())
        assert catalog.expand("vllm", "--max-num-seq")[0] is None  # no vLLM catalogue in this stub
    finally:
        catalog.engine_flags.cache_clear()
        catalog.expand.cache_clear()


def test_release_order_knows_release_candidates():
    from recipelint.engines.catalog import version_key

    order = ["0.5.12", "0.33.0", "1.3.0rc3", "1.3.0rc14", "1.3.0rc22.post1", "1.3.0", "1.3.0.post1", "1.3.1"]
    assert sorted(reversed(order), key=version_key) == order


def test_image_tags_resolve_to_releases():
    from recipelint.engines.versions import resolve

    assert resolve("vllm", "vllm/vllm-openai:v0.25.1").versions == ("0.25.1",)
    assert resolve("sglang", "lmsysorg/sglang:v0.5.16-cu130").versions == ("0.5.16",)
    between = resolve("vllm", "vllm/vllm-openai:v0.26.0")
    assert between.versions == ("0.25.1", "0.27.1") and not between.exact and "0.25.1–0.27.1" in between.label
    newest = resolve("vllm", "vllm/vllm-openai:v9.0.0")
    assert newest.versions == ("0.33.0",) and "not a catalogued release" in newest.label
    # older than every catalog: nothing to judge with (flags may have been removed since)
    old = resolve("sglang", "lmsysorg/sglang:v0.5.8.post1-cu130")
    assert old.versions == () and old.older == "0.5.8.post1" and "older than every catalogued release" in old.label
    unknown = resolve("vllm", "rocm/vllm:custom-build")
    assert unknown.versions == resolve("vllm", None).versions and unknown.older is None
