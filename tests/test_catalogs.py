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


def histories():
    return sorted(CATALOGS.glob("*-history.json"))


def _view(engine: str, version: str) -> dict:
    from recipelint.engines.catalog import catalogs

    return catalogs()[engine][version]


@pytest.mark.parametrize("path", histories(), ids=lambda p: p.stem)
def test_history_schema(path):
    from recipelint.engines.catalog import version_key

    data = json.loads(path.read_text())
    assert set(data) <= {
        "engine",
        "generator",
        "releases",
        "sources",
        "abbreviations",
        "flags",
        "tool_call_parsers",
        "reasoning_parsers",
        "json_keys",
        "catalogued",
        "defaults",
        "choices",  # flag values (issue 47): closed choices as JSON lists, numeric types
        "types",
        "repository",  # a history read from a git repository's tags (ATOM)
    }
    assert path.stem == f"{data['engine']}-history" and data["generator"] == "tools/gen_catalogs.py"
    releases = data["releases"]
    assert releases == sorted(releases, key=version_key) and len(set(releases)) == len(releases)
    package = {"trtllm": "tensorrt_llm"}.get(data["engine"], data["engine"])
    for v in releases:  # every release names the archive it was read from, and its digest
        if "repository" in data:  # or the tag, its commit and the commit's day
            tag, commit, day = data["sources"][v]
            # (a weekly snapshot of main: "main", named after its commit's day)
            assert tag in (f"v{v}", "main") and len(commit) == 40 and len(day) == 10
            assert tag != "main" or v.endswith(".dev" + day.replace("-", ""))
            continue
        name, sha = data["sources"][v]
        assert name.replace("-", "_").startswith(f"{package}_{v}".replace("-", "_")) and len(sha) == 64
    pos = {v: i for i, v in enumerate(releases)}

    def check_table(table):
        assert list(table) == sorted(table)
        for ranges in table.values():
            runs = [r.partition("..") for r in ranges.split(",")]
            idx = [(pos[a], pos[b or a]) for a, _, b in runs]
            assert all(a <= b for a, b in idx) and all(idx[i][1] + 1 < idx[i + 1][0] for i in range(len(idx) - 1))

    check_table(data["flags"])
    assert all(f.startswith("--") for f in data["flags"])
    for kind in ("tool_call_parsers", "reasoning_parsers"):
        if kind in data:
            check_table(data[kind])
    for flag, keys in (data.get("json_keys") or {}).items():
        assert flag in data["flags"]
        check_table(keys)
    for flag, values in (data.get("defaults") or {}).items():
        assert flag in data["flags"] and all(json.loads(v) is not ... for v in values)
        check_table(values)
    for flag, values in (data.get("choices") or {}).items():
        assert flag in data["flags"] and all(isinstance(json.loads(v), list) for v in values)
        check_table(values)
    for flag, values in (data.get("types") or {}).items():
        assert flag in data["flags"] and set(values) <= {"int", "float"}
        check_table(values)


def test_values_read_from_the_history():
    """Flag values, read by hand from the sources: vLLM 0.10.1's `CacheDType` Literal
    (vllm/config.py) and `ModelDType`; 0.34.0's `cache_dtype: CacheDType | str` is open (a metavar);
    `--max-num-seqs` an int, `--gpu-memory-utilization` a float; SGLang 0.5.5's
    `--disaggregation-mode` choices (server_args.py) and 0.5.23 not read (its arguments moved to
    arg_groups/)."""
    from recipelint.engines.catalog import value_specs

    (s,) = value_specs("vllm", "--kv-cache-dtype", "0.10.1")
    assert s.choices == {"auto", "fp8", "fp8_e4m3", "fp8_e5m2", "fp8_inc"}
    (s,) = value_specs("vllm", "--dtype", "0.10.1")
    assert s.choices == {"auto", "half", "float16", "bfloat16", "float", "float32"}
    (s,) = value_specs("vllm", "--kv-cache-dtype", "0.34.0")
    assert s.choices is None
    assert value_specs("vllm", "--max-num-seqs", "0.25.1")[0].type == "int"
    assert value_specs("vllm", "--gpu-memory-utilization", "0.25.1")[0].type == "float"
    (s,) = value_specs("sglang", "--disaggregation-mode", "0.5.5")
    assert s.choices == {"null", "prefill", "decode"}
    assert value_specs("sglang", "--disaggregation-mode", "0.5.23") is None


def test_defaults_read_from_the_history():
    """Literal defaults, read by hand: vllm/config/cache.py CacheConfig.gpu_memory_utilization
    is 0.92 in 0.25.1 and ``Field(default=None)`` in 0.34.0; ``--port`` 8000 (FrontendArgs);
    SGLang ServerArgs.port 30000, allow_auto_truncate False; a computed default is not read."""
    from recipelint.engines.catalog import NOT_READ, default

    assert default("vllm", "--gpu-memory-utilization", "0.25.1") == 0.92
    assert default("vllm", "--gpu-memory-utilization", "0.34.0") is None
    assert default("vllm", "--gpu-memory-utilization", "0.8.0") == 0.9
    assert default("vllm", "--port", "0.10.2") == 8000
    assert default("vllm", "--kv-cache-dtype", "0.25.1") == "auto"
    assert default("sglang", "--port", "0.5.23") == 30000
    assert default("sglang", "--allow-auto-truncate", "0.5.12") is False
    assert default("vllm", "--no-such-flag", "0.25.1") is NOT_READ
    assert default("vllm", "--port", "0.0.1") is NOT_READ


@pytest.mark.parametrize("engine", ["vllm", "sglang"])
def test_every_release_has_a_view(engine):
    from recipelint.engines.catalog import catalogs, versions

    assert versions(engine)[0] == {"vllm": "0.8.0", "sglang": "0.4.0"}[engine]
    for v in versions(engine):
        cat = catalogs()[engine][v]
        assert cat["flags"] and cat["version"] == v


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


REFERENCED = sorted(p.name.split("-serve-flags")[0] for p in REFERENCE.glob("*-serve-flags.txt")) if REFERENCE.is_dir() else []


@pytest.mark.skipif(not REFERENCED, reason="the shared reference lists are not beside this checkout")
@pytest.mark.parametrize("name", REFERENCED)
def test_history_view_matches_the_reference_lists(name):
    """The full per-version catalogs the history gives agree with the lists extracted
    independently from the wheels (shared/facts/engine-lists, checked against the real parser
    for vLLM 0.25.1 and 0.33.0)."""
    engine, version = name.split("-", 1)
    cat = _view(engine, version)
    flags, tools, reasoning = _reference(engine, version)
    assert set(cat["flags"]) == flags
    assert set(cat["tool_call_parsers"]) == tools
    assert set(cat["reasoning_parsers"]) == reasoning


# Flags read by hand from the release sdists (file: vllm/engine/arg_utils.py unless named):
# present (+) and absent (-) at that release.
HAND = {
    ("vllm", "0.10.2"): {
        "+": [
            "--max-seq-len-to-capture",
            "--enable-prefix-caching",
            "--no-enable-prefix-caching",
            "--tensor-parallel-size",
            "--kv-transfer-config",
            "--speculative-config",
            "--enable-expert-parallel",
            "--gpu-memory-utilization",
            "--max-num-batched-tokens",
            "--compilation-config",
            "--disable-log-requests",  # parser.add_argument('--disable-log-requests', BooleanOptionalAction)
            "--enable-log-requests",
            "--async-scheduling",
            "--data-parallel-size",
            "--api-server-count",  # vllm/entrypoints/openai/cli_args.py make_arg_parser
            "--host",  # vllm/entrypoints/openai/cli_args.py FrontendArgs.host
            "--port",  # FrontendArgs.port
            "--api-key",  # FrontendArgs.api_key
            "--enable-chunked-prefill",
            "--kv-cache-dtype",
            "--reasoning-parser",
            "--max-model-len",
            "--block-size",
            "--enable-eplb",
            "--served-model-name",
        ],
        "-": ["--num-scheduler-steps", "--attention-config", "--speculative-model"],
    },
    ("vllm", "0.34.0"): {
        "+": [
            "--enable-prefix-caching",
            "--tensor-parallel-size",
            "--kv-transfer-config",
            "--speculative-config",
            "--enable-expert-parallel",
            "--gpu-memory-utilization",
            "--max-num-batched-tokens",
            "--compilation-config",
            "--attention-config",
            "--async-scheduling",
            "--data-parallel-size",
            "--api-server-count",  # vllm/entrypoints/common/cli_args.py make_arg_parser
            "--host",  # vllm/entrypoints/common/cli_args.py BaseFrontendArgs.host
            "--port",
            "--uvicorn-log-level",
            "--kv-cache-dtype",
            "--reasoning-parser",
            "--max-model-len",
            "--block-size",
            "--served-model-name",
            "--enable-log-requests",
            "--disable-log-requests",  # EnableDisableAction's inverse (vllm/utils/argparse_utils.py)
        ],
        "-": ["--max-seq-len-to-capture", "--num-redundant-experts", "--num-scheduler-steps"],
    },
}


@pytest.mark.parametrize("key", sorted(HAND), ids=lambda k: f"{k[0]}-{k[1]}")
def test_history_view_agrees_with_flags_read_by_hand(key):
    flags = set(_view(*key)["flags"])
    assert set(HAND[key]["+"]) <= flags
    assert not set(HAND[key]["-"]) & flags


def test_lifetimes_read_from_the_history():
    from recipelint.engines.catalog import describe_lifetime, lifetime

    assert lifetime("vllm", "--max-seq-len-to-capture") == (("0.8.0", "0.10.2"),)
    # vLLM 0.10.1 removed it (the issue's "0.11.0" was one release late: 0.10.1's arg_utils.py has no such flag)
    assert describe_lifetime("vllm", "--num-scheduler-steps", ("0.25.1",)) == "was removed in vLLM 0.10.1 (last in 0.10.0)"
    assert describe_lifetime("vllm", "--attention-config", ("0.10.2",)) == "exists only from vLLM 0.13.0 on"
    assert describe_lifetime("vllm", "--no-such-flag", ("0.10.2",)) is None
    # a deprecated flag dropped in 0.17.0 and back as EnableDisableAction's inverse in 0.33.0
    assert describe_lifetime("vllm", "--disable-log-requests", ("0.25.1",)) == (
        "exists only in vLLM 0.8.0–0.16.0 and 0.33.0–0.34.0"
    )
    key = describe_lifetime("vllm", "use_fp4_indexer_cache", ("0.33.0",), kind="json:--attention-config")
    assert key is not None and key.startswith("was removed in vLLM")


def test_no_image_accepts_a_flag_any_release_had():
    from recipelint.engines.catalog import expand

    assert expand("vllm", "--max-seq-len-to-capture")[0] == "--max-seq-len-to-capture"
    assert expand("vllm", "--max-seq-len-to-capture", ("0.25.1",))[0] is None
    # a prefix unique in one release resolves even when the union of releases makes it ambiguous
    assert expand("vllm", "--max-num-seq")[0] == "--max-num-seqs"


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
from dataclasses import dataclass
from typing import Literal
class ModelConfig:
    model: str = "m"
    trust_remote_code: bool = False
    quantization: Literal["fp8", "awq"] | None = None
class ParallelConfig:
    enable_thing: bool = False
    mixed: bool | str | None = None
@dataclass
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


def _sdist(tmp_path: Path, version: str, extra_flag: str | None) -> Path:
    """A vLLM sdist (tar.gz with a ``vllm-<v>/`` top folder) made here."""
    import io
    import tarfile

    p = tmp_path / f"vllm-{version}.tar.gz"
    args = ARG_UTILS + (f'        parser.add_argument("{extra_flag}", type=int)\n' if extra_flag else "")
    files = {"vllm/engine/arg_utils.py": args, "vllm/config/model.py": CONFIG, "vllm/tool_parsers/__init__.py": TOOLS}
    with tarfile.open(p, "w:gz") as tf:
        for name, text in sorted(files.items()):
            data = text.encode()
            info = tarfile.TarInfo(f"vllm-{version}/{name}")
            info.size, info.mtime = len(data), 0
            tf.addfile(info, io.BytesIO(data))
    return p


def test_history_from_sdists(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    _sdist(src, "9.8.0", "--num-scheduler-steps")
    _sdist(src, "9.9.0", "--num-scheduler-steps")
    _sdist(src, "9.10.0", None)  # removed here (9.10.0 sorts after 9.9.0)
    _sdist(src, "9.11.0rc1", None)  # not a release: left out
    outs = []
    for name in ("a", "b"):
        out = tmp_path / name
        gen_catalogs.main(["--history", "vllm", "--sources", str(src), "--out", str(out)])
        outs.append((out / "vllm-history.json").read_bytes())
    assert outs[0] == outs[1]  # reproducible: same inputs, same bytes
    hist = json.loads(outs[0])
    assert hist["releases"] == ["9.8.0", "9.9.0", "9.10.0"]
    assert hist["flags"]["--num-scheduler-steps"] == "9.8.0..9.9.0"
    assert hist["flags"]["--model"] == "9.8.0..9.10.0"
    assert hist["sources"]["9.8.0"][0] == "vllm-9.8.0.tar.gz"
    assert hist["tool_call_parsers"] == {"deepseek_v4": "9.8.0..9.10.0", "hermes": "9.8.0..9.10.0"}
    # no reasoning table in these sdists: not catalogued (a parser name is then not judged)
    assert "reasoning_parsers" not in hist and "reasoning_parsers" not in hist["catalogued"]


def test_old_vllm_tool_parsers_registered_by_decorator(tmp_path):
    p = tmp_path / "vllm-9.9.9-cp38-abi3-any.whl"
    with zipfile.ZipFile(p, "w") as z:
        z.writestr(
            "vllm/entrypoints/openai/tool_parsers/hermes.py",
            '@ToolParserManager.register_module("hermes")\nclass H: ...\n'
            '@ToolParserManager.register_module(["llama3_json", "llama4_json"])\nclass L: ...\n',
        )
        z.writestr("vllm/reasoning/r1.py", '@ReasoningParserManager.register_module("deepseek_r1")\nclass R: ...\n')
    assert gen_catalogs.vllm_parsers(gen_catalogs.Wheel(p)) == (["hermes", "llama3_json", "llama4_json"], ["deepseek_r1"])


def test_pydantic_basemodel_configs_are_not_strict(tmp_path):
    """vLLM 0.8's ``CompilationConfig(BaseModel)`` ignores unknown keys: no key list for it."""
    p = tmp_path / "vllm-9.9.9-cp38-abi3-any.whl"
    with zipfile.ZipFile(p, "w") as z:
        z.writestr("vllm/config.py", "class CompilationConfig(BaseModel):\n    level: int = 0\n")
    assert gen_catalogs.vllm_json_keys(gen_catalogs.Wheel(p)) == {}


@pytest.mark.skipif(not os.environ.get("RECIPELINT_SOURCES"), reason="set RECIPELINT_SOURCES to folders of engine sdists/wheels")
def test_generator_reproduces_the_committed_histories(tmp_path):
    """Opt-in (reads ~5 GB of sdists and wheels, ~1 min): regenerate every history and compare
    byte for byte.  RECIPELINT_SOURCES: folders separated by ':'."""
    out = tmp_path / "out"
    dirs = os.environ["RECIPELINT_SOURCES"].split(":")
    # (from archives: vLLM and SGLang; ATOM's history is read from its git tags, --atom-repo)
    engines = [e for e in (p.stem.split("-")[0] for p in histories()) if e in gen_catalogs.PACKAGES]
    gen_catalogs.main(["--history", *engines, "--sources", *dirs, "--out", str(out)])
    for p in histories():
        if p.stem.split("-")[0] in engines:
            assert (out / p.name).read_text() == p.read_text(), p.name


@pytest.mark.skipif(not os.environ.get("RECIPELINT_SOURCES"), reason="set RECIPELINT_SOURCES to folders of engine sdists/wheels")
@pytest.mark.parametrize("version", ["0.8.0", "0.10.2", "0.25.1", "0.34.0"])
def test_history_agrees_with_a_regex_over_the_sources(version):
    """A second extraction path: every option string that opens an ``add_argument(`` call in
    the serve-flag files (regex, no ast) is in the release's view; what the view adds beyond it
    comes from dataclass fields (get_kwargs) and their --no-/inverse forms."""
    import re

    path = next(Path(d) / f"vllm-{version}.tar.gz" for d in os.environ["RECIPELINT_SOURCES"].split(":"))
    a = gen_catalogs.Archive(path, "vllm")
    found: set[str] = set()
    for f in gen_catalogs.VLLM_FLAG_FILES:
        for m in re.finditer(r"add_argument\(\s*((?:[\"']-[-\w]+[\"']\s*,\s*)+)", a.source(f) or ""):
            found.update(re.findall(r"[\"'](--[-\w]+)[\"']", m.group(1)))
    assert found and found <= set(_view("vllm", version)["flags"])


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
    assert data["source"]["wheel"] == p.name
    # a history of click flags says abbreviations: false
    rel = tmp_path / "rel"
    rel.mkdir()
    (rel / "tensorrt_llm-9.9.9-cp312-cp312-linux_x86_64.whl").write_bytes(p.read_bytes())
    gen_catalogs.main(["--history", "trtllm", "--sources", str(rel), "--out", str(out)])
    test_history_schema(out / "trtllm-history.json")
    hist = json.loads((out / "trtllm-history.json").read_text())
    assert hist["abbreviations"] is False and hist["flags"]["--tp_size"] == "9.9.9"


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
    assert resolve("vllm", "vllm/vllm-openai:v0.26.0").exact  # every release is in the history now
    assert resolve("sglang", "lmsysorg/sglang:v0.5.8.post1-cu130").versions == ("0.5.8.post1",)
    assert resolve("sglang", "lmsysorg/sglang:v0.5.14-cu130").exact
    newest = resolve("vllm", "vllm/vllm-openai:v9.0.0")
    assert newest.versions == ("0.34.0",) and newest.newer == "9.0.0"
    assert "newer than every catalogued release: judged against 0.34.0" in newest.label
    # older than every catalog: nothing to judge with (flags may have been removed since)
    old = resolve("sglang", "lmsysorg/sglang:v0.3.6-cu124")
    assert old.versions == () and old.older == "0.3.6" and "older than every catalogued release" in old.label
    unknown = resolve("vllm", "rocm/vllm:custom-build")
    assert unknown.versions == resolve("vllm", None).versions and unknown.older is None


def test_history_defaults_agree_with_engine_defaults_read_by_hand():
    """rules/data/engine_defaults.yaml's `none` entries (defaults read by hand that mean "no
    parser / no template", each with its versions) are what the generated history says wherever
    it read one (the literal hand entries it replaced: tests/test_effective.py)."""
    from ruamel.yaml import YAML

    from recipelint.engines.catalog import NOT_READ, default

    data = YAML(typ="safe").load((ROOT / "rules" / "data" / "engine_defaults.yaml").read_text())
    checked, differ = 0, []
    for engine, table in data["parity"].items():
        for flag, spec in table.items():
            assert ("none" in spec) != ("same_as" in spec), (engine, flag)  # literal defaults come from the history
            for v in spec.get("versions", []):
                got = default(engine, flag, str(v))
                if got is NOT_READ or "none" not in spec:
                    continue
                checked += 1
                if got not in spec["none"]:
                    differ.append((engine, flag, v, spec["none"], got))
    assert checked >= 15 and not differ, differ


def test_history_unions_equal_the_per_version_views():
    """``History.union`` (one pass over the names) gives what the per-version views give, for
    one release, a few, all of them, and releases a table was not read for."""
    import random

    from recipelint.engines import catalog

    rnd = random.Random(7)
    for engine, h in catalog.histories().items():
        views = catalog.catalogs()[engine]
        picks = [None, (h.releases[0],), (h.releases[-1],), tuple(rnd.sample(h.releases, 3)), tuple(h.releases[:2])]
        for kind in [k for k in h.tables]:
            for vers in picks:
                cats = [views[v] for v in (vers or h.releases)]
                if kind.startswith("json:"):
                    got = [c.get("json_keys", {}).get(kind[5:]) for c in cats]
                else:
                    got = [c.get(kind) for c in cats]
                read = [set(g) for g in got if g is not None]
                want = set().union(*read) if read else None
                assert h.union(kind, vers) == want, (engine, kind, vers)
