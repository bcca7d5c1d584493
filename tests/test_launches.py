"""Launch extraction: engines, launchers, flag forms, JSON values and source lines."""

from __future__ import annotations

import pytest
from helpers import FIXTURES, analyze, dedent

from recipelint.bash.parse import parse
from recipelint.bash.source import SourceFile
from recipelint.engines.jsonpos import JsonError
from recipelint.lint.analysis import Analyzer
from recipelint.sweep.points import SweepPoint

SEED = FIXTURES / "seed" / "benchmarks" / "single_node" / "agentic"


def launches_of(src: str, env: dict | None = None, path: str = "/virtual/recipe.sh"):
    from pathlib import Path

    source = SourceFile(path, dedent(src).encode())
    an = Analyzer()
    pr = an.evaluate(parse(source), Path(path), SweepPoint("t", env or {}))
    return pr.launches


@pytest.mark.parametrize(
    "cmd,engine,start",
    [
        ("vllm serve m --port 1", "vllm", 0),
        ("python3 -m vllm.entrypoints.openai.api_server --model m", "vllm", 0),
        ("python -u -m vllm.entrypoints.openai.api_server --model m", "vllm", 0),
        ("sglang serve --model-path m", "sglang", 0),
        ("/usr/bin/python3.12 -m sglang.launch_server --model-path m", "sglang", 0),
        ("trtllm-serve m --tp_size 8", "trtllm", 0),
        ("trtllm-serve serve m --tp_size 8", "trtllm", 0),
        ("python3 -m atom.entrypoints.openai_server --model m", "atom", 0),
        ("mpirun -n 1 --oversubscribe --allow-run-as-root trtllm-serve m", "trtllm", 5),
        ("mpirun -np 2 -x NCCL_DEBUG --mca btl tcp python3 -m sglang.launch_server --tp 2", "sglang", 8),
        ("numactl --cpunodebind=0 --membind 0 vllm serve m", "vllm", 4),
        ("env -u X A=1 B=2 setsid nohup timeout -s KILL 3600 vllm serve m", "vllm", 11),
        ("srun --container-image=img -N 1 --export ALL,PORT=1 vllm serve m", "vllm", 6),
        ("taskset -c 0-7 vllm serve m", "vllm", 3),
        # containers and wrappers (issue 32: launch scripts of other repositories)
        ("docker run --rm --gpus all -v /d:/d -p 8000:8000 --ipc=host img:1 vllm serve m", "vllm", 11),
        ("podman run -it -e HF_TOKEN --name x img python3 -m sglang.launch_server --tp 8", "sglang", 8),
        ("docker exec -e A=1 ctr vllm serve m", "vllm", 5),
        ("trtllm-llmapi-launch trtllm-serve m --tp_size 8", "trtllm", 1),
        ('docker run --rm --entrypoint /bin/bash img -c "vllm serve m --port 1"', "vllm", 0),
        ('docker exec ctr bash -c "python3 -m sglang.launch_server --tp 2"', "sglang", 0),
        ("f() { vllm serve m; }; time f", "vllm", 0),
        ("f() { vllm serve m; }; time -p f", "vllm", 0),
    ],
)
def test_engines_and_launchers(cmd, engine, start):
    (lc,) = launches_of(cmd + "\n")
    assert lc.engine == engine
    assert lc.start == start


@pytest.mark.parametrize(
    "cmd",
    [
        "vllm --version",
        "python3 -m pip install vllm",
        "echo vllm serve m",
        "vllm-router --port 1",
        "sglang_router.launch_router",
        "docker ps vllm serve m",  # (no subcommand that runs a command)
        "docker pull vllm/vllm-openai:v0.25.1",
    ],
)
def test_not_a_launch(cmd):
    assert launches_of(cmd + "\n") == []


def test_flag_forms():
    (lc,) = launches_of(
        "vllm serve org/m --max_num_seqs 8 --port=9 --enable-prefix-caching --no-enable-log-requests "
        "--compilation-config.cudagraph_mode FULL -tp 4 --max-num-seqs 16 --swap-space -1\n"
    )
    assert lc.model.text == "org/m"
    got = [(f.name, f.key, f.base, f.subkey, f.text, f.inline) for f in lc.flags]
    assert got == [
        ("--max_num_seqs", "--max-num-seqs", "--max-num-seqs", None, "8", False),
        ("--port", "--port", "--port", None, "9", True),
        ("--enable-prefix-caching", "--enable-prefix-caching", "--enable-prefix-caching", None, None, False),
        ("--no-enable-log-requests", "--no-enable-log-requests", "--no-enable-log-requests", None, None, False),
        (
            "--compilation-config.cudagraph_mode",
            "--compilation-config.cudagraph_mode",
            "--compilation-config",
            "cudagraph_mode",
            "FULL",
            False,
        ),
        ("-tp", "--tensor-parallel-size", "--tensor-parallel-size", None, "4", False),  # an alias
        ("--max-num-seqs", "--max-num-seqs", "--max-num-seqs", None, "16", False),
        ("--swap-space", "--swap-space", "--swap-space", None, "-1", False),
    ]
    # repeated flags are kept in order; the last one wins
    assert [f.text for f in lc.all("--max-num-seqs")] == ["8", "16"]
    assert lc.value("--max-num-seqs") == "16"
    assert lc.has("--compilation-config")


def test_an_inline_unknown_value_stays_unknown():
    # `--served-model-name=$MODEL` with MODEL set but not known: the value is that unknown, not ""
    from recipelint.evaluate.values import Opaque

    src = "X=$MODEL; env A=$MODEL vllm serve m --served-model-name=$MODEL --max-num-seqs=${N}4 --served-model-name x\n"
    (lc,) = launches_of(src, {"MODEL": Opaque(), "N": "1"})
    first = lc.all("--served-model-name")[0]
    assert first.text is None and [c.why for c in first.value.chunks] == ["$MODEL"]
    assert lc.value("--max-num-seqs") == "14"
    assert [c.why for c in lc.env["A"]] == ["$MODEL"]
    # an unknown launcher operand (`timeout "$T"`) ends the launcher's options, as a known one does
    (lc2,) = launches_of('timeout "$T" vllm serve m2\n', {"T": Opaque()})
    assert lc2.launcher == ("timeout",) and lc2.model.text == "m2"


def test_a_tilde_is_the_home_directory_where_bash_expands_it():
    # `--download-dir ~/hf`: `$HOME` (unknown on the GPU node unless set), from the line that
    # wrote the `~`; `--x=~/y` is no assignment to bash: the engine gets the `~` as text
    src = "D=~/models\nvllm serve m --download-dir ~/hf --x=~/y --root \"$D\" --home ~\n"
    (lc,) = launches_of(src)
    hf = lc.all("--download-dir")[0].value.chunks
    assert [(c.text, c.why) for c in hf] == [(None, "$HOME"), ("/hf", "")] and hf[0].loc.line == 2
    assert lc.value("--x") == "~/y"
    assert [(c.text, c.why) for c in lc.all("--root")[0].value.chunks] == [(None, "$HOME"), ("/models", "")]
    (known,) = launches_of(src, {"HOME": "/home/u"})
    assert (known.value("--download-dir"), known.value("--root"), known.value("--home")) == (
        "/home/u/hf",
        "/home/u/models",
        "/home/u",
    )


def test_json_values_are_decoded_with_positions():
    src = """
    CFG=$(cat <<EOF
    {
      "kv_connector": "SimpleCPUOffloadConnector",
      "kv_connector_extra_config": {
        "lazy_offload": false,
        "cpu_bytes_to_use": ${BYTES}
      }
    }
    EOF
    )
    vllm serve m --kv-transfer-config "$CFG" --speculative-config '{"method": "mtp",}'
    """
    (lc,) = launches_of(src, {"BYTES": "1000"})
    kv = lc.get("--kv-transfer-config")
    assert kv.json.to_python() == {
        "kv_connector": "SimpleCPUOffloadConnector",
        "kv_connector_extra_config": {"lazy_offload": False, "cpu_bytes_to_use": 1000},
    }
    extra = kv.json.get("kv_connector_extra_config")
    lazy = extra.get("lazy_offload")
    assert lazy.loc.span.line == 5 and lazy.loc.span.col == 21
    assert extra.key_node("cpu_bytes_to_use").loc.span.line == 6
    assert extra.get("cpu_bytes_to_use").loc.span.line == 6
    spec = lc.get("--speculative-config")
    assert isinstance(spec.json_error, JsonError)
    assert "trailing comma" in spec.json_error.message
    assert spec.json_error.loc.span.line == 11


def test_unknown_json_parts_are_unknown_not_errors():
    (lc,) = launches_of('vllm serve m --kv-transfer-config "{\\"cpu_bytes_to_use\\": $(nproc)}"\n')
    f = lc.get("--kv-transfer-config")
    assert f.json_error is None
    assert f.json.get("cpu_bytes_to_use").kind == "unknown"


def test_env_prefix_and_exports_reach_the_launch():
    src = """
    export VLLM_A=1
    B=2
    PYTHONNOUSERSITE=1 vllm serve m
    """
    (lc,) = launches_of(src)
    env = {k: "".join(c.text for c in v) for k, v in lc.env.items()}
    assert env["VLLM_A"] == "1" and env["PYTHONNOUSERSITE"] == "1" and "B" not in env


def test_unknown_splice_marks_the_launch_incomplete():
    src = """
    while read -r line; do EXTRA+=("$line"); done < flags.txt
    vllm serve m "${EXTRA[@]}" --port 1
    """
    (lc,) = launches_of(src, {})
    assert not lc.complete
    assert lc.value("--port") == "1"


def test_seed_b200_launch_words_and_lines():
    env = {
        "MODEL": "deepseek-ai/DeepSeek-V4-Pro",
        "TP": "8",
        "EP_SIZE": "8",
        "DP_ATTENTION": "true",
        "CONC": "72",
        "KV_OFFLOADING": "dram",
        "KV_OFFLOAD_BACKEND": "vllm-simple",
        "TOTAL_CPU_DRAM_GB": "2849",
        "RESULT_DIR": "/tmp/r",
    }
    res = analyze(SEED / "dsv4_fp4_b200_vllm.sh", env)
    (lc,) = res.launches
    assert [w.text for w in lc.argv] == [
        "vllm",
        "serve",
        "deepseek-ai/DeepSeek-V4-Pro",
        "--served-model-name",
        "deepseek-ai/DeepSeek-V4-Pro",
        "--host",
        "0.0.0.0",
        "--port",
        "8889",
        "--trust-remote-code",
        "--kv-cache-dtype",
        "fp8",
        "--block-size",
        "256",
        "--tokenizer-mode",
        "deepseek_v4",
        "--reasoning-parser",
        "deepseek_v4",
        "--attention-config",
        '{"backend":"FLASHINFER_MLA_SPARSE_DSV4"}',
        "--max-num-seqs",
        "144",
        "--max-cudagraph-capture-size",
        "144",
        "--tensor-parallel-size",
        "1",
        "--data-parallel-size",
        "8",
        "--enable-expert-parallel",
        "--kv-transfer-config",
        lc.get("--kv-transfer-config").text,
    ]
    lines = {f.name: (f.word.loc.span.line, f.value_loc.span.line if f.value is not None else None) for f in lc.flags}
    # flag word written in the VLLM_CMD array; value computed by MAX_NUM_SEQS=$((2 * CONC))
    assert lines["--max-num-seqs"] == (77, 60)
    assert lines["--max-cudagraph-capture-size"] == (78, 60)
    # spliced from PARALLEL_ARGS in the DP_ATTENTION branch
    assert lines["--data-parallel-size"] == (51, 51)
    assert lines["--enable-expert-parallel"] == (56, None)
    # the flag from OFFLOAD_ARGS in the case arm, its value from the heredoc
    assert lines["--kv-transfer-config"] == (41, 31)
    assert lines["--port"] == (70, 64)
    assert lc.loc.span.line == 83
    extra = lc.get("--kv-transfer-config").json.get("kv_connector_extra_config")
    assert extra.get("cpu_bytes_to_use_per_rank").value == 2849 * 10**9 // 8
    lazy = extra.get("lazy_offload").loc.span
    assert (lazy.line, lazy.col) == (36, 21)


def test_launch_inside_a_launcher_run_bash_c_string():
    src = """
    CMD="PYTHONNOUSERSITE=1 python3 -m sglang.launch_server --model-path m --tp 8"
    CMD="$CMD --dist-init-addr host:5000"
    setsid bash -c "$CMD" > /tmp/log 2>&1 &
    """
    (lc,) = launches_of(src)
    assert lc.engine == "sglang" and lc.value("--dist-init-addr") == "host:5000"
    assert "PYTHONNOUSERSITE" in lc.env
    assert lc.get("--tp-size").word.loc.real().span.line == 1


def test_every_trtllm_serve_launch_of_a_file_is_found():
    # `trtllm-serve MODEL` is an entry point any use of which launches, not a launcher that wraps
    # another command: after the first launch the others are still followed (issue 46)
    found = launches_of(
        """
        trtllm-serve m1 --tp_size 8 &
        vllm serve m2 &
        trtllm-serve m3 --tp_size 4 &
        trtllm-serve serve m4 &
        """
    )
    assert [(lc.engine, lc.model.text) for lc in found] == [("trtllm", "m1"), ("vllm", "m2"), ("trtllm", "m3"), ("trtllm", "m4")]


@pytest.mark.parametrize(
    "cmd,entry,model",
    [
        ("trtllm-serve disaggregated -c cfg.yaml", "trtllm-serve disaggregated", None),
        ("trtllm-serve disaggregated_mpi_worker -c cfg.yaml", "trtllm-serve disaggregated_mpi_worker", None),
        ("trtllm-serve encoder m", "trtllm-serve encoder", "m"),
        ("trtllm-serve mm_embedding_serve m", "trtllm-serve mm_embedding_serve", "m"),
        ("trtllm-serve serve m", "trtllm-serve serve", "m"),
        ("trtllm-serve m", "trtllm-serve", "m"),
    ],
)
def test_a_trtllm_serve_subcommand_is_no_model(cmd, entry, model):
    (lc,) = launches_of(cmd)
    assert lc.entry == entry
    assert (lc.model.text if lc.model is not None else None) == model
