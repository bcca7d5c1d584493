"""NVIDIA Dynamo's worker wrappers (`python -m dynamo.vllm`, `python -m dynamo.sglang`): the
histories of their own flags read from the ai-dynamo wheels (tools/gen_catalogs.py --dynamo),
and their launches (the engine's flags plus the wrapper's)."""

from __future__ import annotations

import json
import os
import sys
import zipfile
from pathlib import Path

import pytest
from helpers import ROOT

from recipelint.engines.catalog import wrapper_flags, wrapper_histories

sys.path.insert(0, str(ROOT / "tools"))
import gen_catalogs

WRAPPERS = ROOT / "rules" / "data" / "catalogs" / "wrappers"
WHEELS = os.environ.get("RECIPELINT_DYNAMO_WHEELS")


def _wheel(folder: Path, version: str, files: dict[str, str], pins: dict[str, str]) -> Path:
    path = folder / f"ai_dynamo-{version}-py3-none-any.whl"
    meta = "Metadata-Version: 2.1\nName: ai-dynamo\n" + "".join(
        f"Requires-Dist: {pkg}[extra]=={ver}; extra == '{extra}'\nRequires-Dist: nixl==1.0.0; extra == '{extra}'\n"
        for extra, (pkg, ver) in pins.items()
    )
    with zipfile.ZipFile(path, "w") as z:
        for name, text in files.items():
            z.writestr(name, text)
        z.writestr(f"ai_dynamo-{version}.dist-info/METADATA", meta)
    return path


OLD = {
    "dynamo/__init__.py": "",
    "dynamo/vllm/__init__.py": "",
    "dynamo/vllm/__main__.py": "from .main import run\nrun()\n",
    "dynamo/vllm/main.py": "def run():\n    from dynamo.vllm.args import parse_args\n    parse_args()\n",
    "dynamo/vllm/args.py": (
        "def parse_args():\n"
        "    parser.add_argument('--endpoint', type=str)\n"
        "    parser.add_argument('--is-prefill-worker', action='store_true')\n"
    ),
    # a module nothing imports: its parser is not the worker's
    "dynamo/vllm/unused.py": "parser.add_argument('--not-reached')\n",
    # dynamo.sglang without a __main__: no `python -m dynamo.sglang` in this release
    "dynamo/sglang/__init__.py": "",
    "dynamo/sglang/worker.py": "parser.add_argument('--sglang-worker-flag')\n",
}
NEW = {
    "dynamo/__init__.py": "",
    "dynamo/common/__init__.py": "",
    "dynamo/common/configuration/__init__.py": "",
    "dynamo/common/configuration/utils.py": "def add_argument(parser, *, flag_name, env_var, default, help, obsolete_flag=None): ...\n",
    "dynamo/common/configuration/groups/runtime_args.py": (
        "from dynamo.common.configuration.utils import add_argument, add_negatable_bool_argument\n"
        "class DynamoRuntimeArgGroup:\n"
        "    def add_arguments(self, parser):\n"
        "        add_argument(parser, flag_name='--namespace', env_var='DYN_NAMESPACE', default='dynamo', help='')\n"
        "        add_negatable_bool_argument(parser, flag_name='--kv-events', env_var='DYN_KV', default=True, help='')\n"
    ),
    "dynamo/common/configuration/groups/http_args.py": "add_argument(p, flag_name='--frontend-only', env_var='X', default=1, help='')\n",
    "dynamo/vllm/__init__.py": "",
    "dynamo/vllm/__main__.py": "from dynamo.vllm.main import main\nmain()\n",
    "dynamo/vllm/main.py": "from .args import parse_args\n",
    "dynamo/vllm/args.py": (
        "from dynamo.common.configuration.groups.runtime_args import DynamoRuntimeArgGroup\n"
        "from .backend_args import DynamoVllmArgGroup\n"
    ),
    "dynamo/vllm/backend_args.py": (
        "from dynamo.common.configuration.utils import add_argument\n"
        "import argparse\n"
        "def add(parser):\n"
        "    add_argument(parser, flag_name='--disaggregation-mode', env_var='X', default='agg', help='',\n"
        "                 obsolete_flag='--is-prefill-worker')\n"
        "    parser.add_argument('--use-vllm-tokenizer', action=argparse.BooleanOptionalAction)\n"
    ),
    "dynamo/sglang/__init__.py": "",
    "dynamo/sglang/__main__.py": "from dynamo.sglang import args\n",
    "dynamo/sglang/args.py": (
        "DYNAMO_ARGS = {\n"
        "    'endpoint': {'flags': ['--endpoint'], 'type': str},\n"
        "    'migration-limit': {'flags': ['--migration-limit'], 'type': int, 'default': 0},\n"
        "}\n"
        "for info in DYNAMO_ARGS.values():\n"
        "    parser.add_argument(*info['flags'])\n"
    ),
}


def test_extractor_reads_what_the_worker_imports(tmp_path):
    src, out = tmp_path / "wheels", tmp_path / "out"
    src.mkdir()
    _wheel(src, "0.4.0", OLD, {"vllm": ("vllm", "0.10.0")})
    _wheel(src, "1.0.0", NEW, {"vllm": ("vllm", "0.16.0"), "sglang": ("sglang", "0.5.9")})
    _wheel(src, "1.1.0.dev20260101", NEW, {})  # a dev build: left out
    gen_catalogs.dynamo_history_main([src], out)
    v = json.loads((out / "wrappers" / "dynamo.vllm-history.json").read_text())
    assert v["engine"] == "dynamo.vllm" and v["wraps"] == "vllm" and v["package"] == "ai-dynamo"
    assert v["releases"] == ["0.4.0", "1.0.0"]
    assert v["flags"] == {
        "--disaggregation-mode": "1.0.0",
        "--endpoint": "0.4.0",
        "--is-prefill-worker": "0.4.0..1.0.0",  # 1.0.0: the obsolete spelling of --disaggregation-mode
        "--kv-events": "1.0.0",
        "--namespace": "1.0.0",
        "--no-kv-events": "1.0.0",  # add_negatable_bool_argument
        "--no-use-vllm-tokenizer": "1.0.0",  # BooleanOptionalAction
        "--use-vllm-tokenizer": "1.0.0",
    }  # (--not-reached, --frontend-only: modules the worker does not import)
    assert v["engine_pins"] == {"0.4.0": "0.10.0", "1.0.0": "0.16.0"}  # (nixl==1.0.0 is not the engine)
    assert v["sources"]["1.0.0"][0] == "ai_dynamo-1.0.0-py3-none-any.whl" and len(v["sources"]["1.0.0"][1]) == 64
    s = json.loads((out / "wrappers" / "dynamo.sglang-history.json").read_text())
    assert s["releases"] == ["1.0.0"]  # 0.4.0 has no dynamo/sglang/__main__.py
    assert s["flags"] == {"--endpoint": "1.0.0", "--migration-limit": "1.0.0"}  # the DYNAMO_ARGS table
    assert s["engine_pins"] == {"1.0.0": "0.5.9"}


def test_committed_histories():
    hs = wrapper_histories()
    assert set(hs) == {
        "dynamo.vllm",
        "dynamo.sglang",
        "dynamo.vllm.unified_main",
        "dynamo.sglang.unified_main",
        "vllm.entrypoints.api_server",  # (vLLM's demo server: tools/gen_api_server_history.py)
    }
    assert hs["dynamo.vllm.unified_main"].releases == ["1.1.0", "1.1.1", "1.2.0.post1", "1.2.1", "1.3.0.post1", "1.3.1"]
    v = json.loads((WRAPPERS / "dynamo.vllm-history.json").read_text())
    assert v["releases"][0] == "0.4.0" and "1.6.1" in v["releases"]
    assert v["engine_pins"]["0.8.1"] == "0.12.0" and v["engine_pins"]["1.6.1"] == "0.31.0"
    s = json.loads((WRAPPERS / "dynamo.sglang-history.json").read_text())
    assert s["releases"][0] == "0.4.1" and s["engine_pins"]["1.4.2"] == "0.5.16"
    assert {"--endpoint", "--is-prefill-worker", "--connector", "--migration-limit"} <= wrapper_flags("dynamo.vllm")
    assert {"--endpoint", "--migration-limit", "--dyn-tool-call-parser"} <= wrapper_flags("dynamo.sglang")
    # the engine's flags are the engine history's, not copied into the wrapper's
    assert "--max-num-seqs" not in wrapper_flags("dynamo.vllm")


@pytest.mark.skipif(not WHEELS, reason="set RECIPELINT_DYNAMO_WHEELS to a folder of ai_dynamo wheels")
def test_regenerating_from_the_wheels_gives_the_same_bytes(tmp_path):
    # python tools/download_sources.py ai-dynamo --dest DIR; RECIPELINT_DYNAMO_WHEELS=DIR pytest ...
    gen_catalogs.dynamo_history_main([Path(WHEELS)], tmp_path)
    for name in sorted(p.name for p in WRAPPERS.iterdir() if p.name.startswith("dynamo.")):
        assert (tmp_path / "wrappers" / name).read_bytes() == (WRAPPERS / name).read_bytes()


def test_the_vllm_api_server_history():
    # the demo server's own options, read from the vLLM sdists; the module is gone from 0.25.0
    h = wrapper_histories()["vllm.entrypoints.api_server"]
    assert h.releases[0] == "0.8.0" and h.releases[-1] == "0.24.0"
    assert {"--host", "--port", "--log-level", "--root-path"} <= wrapper_flags("vllm.entrypoints.api_server")
    assert "--tensor-parallel-size" not in wrapper_flags("vllm.entrypoints.api_server")  # (the engine's)


def test_the_api_server_generator_reads_the_main_block_only():
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "gen_api", Path(__file__).resolve().parents[1] / "tools" / "gen_api_server_history.py"
    )
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    src = (
        "def helper(parser):\n    parser.add_argument('--not-this')\n"
        "if __name__ == '__main__':\n    parser = P()\n    parser.add_argument('--host', type=str)\n"
        "    parser.add_argument('--log-level', default='debug')\n    parser = Engine.add_cli_args(parser)\n"
    )
    assert mod.own_flags(src) == ["--host", "--log-level"]
