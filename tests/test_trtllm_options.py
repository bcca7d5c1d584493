"""TensorRT-LLM's LLM-API options: the YAML decoded from chunks with positions
(``engines.yamlchunks``), the options file found and merged (``engines.llmapi``), the catalog
walk (unknown, misplaced, renamed, deprecated keys; value types), and the data file kept in step
with its generator."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from recipelint.bash.source import Loc, SourceFile
from recipelint.engines import llmapi
from recipelint.engines.jsonpos import JNode, JsonError
from recipelint.engines.yamlchunks import decode
from recipelint.evaluate.values import Chunk

ROOT = Path(__file__).resolve().parents[1]


def _source(text: str) -> tuple[SourceFile, tuple]:
    data = text.encode()
    src = SourceFile("cfg.yml", data)
    return src, (Chunk(text, Loc(src, 0, len(data))),)


def _at(node: JNode) -> tuple[int, int]:
    sp = node.loc.real().span
    return sp.line, sp.col


# ---- decoding ------------------------------------------------------------------------------


def test_keys_and_values_point_at_their_line_and_column():
    _, chunks = _source("kv_cache_config:\n    dtype: fp8\n    free_gpu_memory_fraction: 0.8\nstream_interval: 10\n")
    root = decode(chunks)
    assert isinstance(root, JNode) and root.kind == "object"
    kv = root.get("kv_cache_config")
    assert [k.value for k, _ in kv.items] == ["dtype", "free_gpu_memory_fraction"]
    assert _at(kv.key_node("free_gpu_memory_fraction")) == (3, 5)
    frac = kv.get("free_gpu_memory_fraction")
    assert (frac.kind, frac.value, _at(frac)) == ("number", 0.8, (3, 31))
    assert root.get("stream_interval").value == 10


def test_an_unknown_chunk_is_an_unknown_value_not_an_error():
    chunks = (
        Chunk("max_batch_size: ", None),
        Chunk(None, None, "x"),
        Chunk("\nlist: [", None),
        Chunk(None, None),
        Chunk("]\n", None),
    )
    root = decode(chunks)
    assert isinstance(root, JNode)
    assert root.get("max_batch_size").kind == "unknown"
    assert [e.kind for e in root.get("list").elements] == ["unknown"]


def test_a_key_written_twice_keeps_both_in_order_and_the_later_value_wins():
    _, chunks = _source("a: 1\nb: 2\na: 3\n")
    root = decode(chunks)
    assert [k.value for k, _ in root.items] == ["a", "b", "a"]
    assert root.get("a").value == 3
    assert root.items[0][1].kind == "unknown"  # (the earlier value: replaced, not judged)


@pytest.mark.parametrize(
    "text, unknown",
    [
        ("cuda_graph_config:\n    enable_padding: true\n enable_attention_dp: false\n", False),
        ("a: [1, 2\n", False),
    ],
)
def test_a_document_that_is_not_yaml_says_where(text, unknown):
    _, chunks = _source(text)
    got = decode(chunks)
    assert isinstance(got, JsonError)
    assert got.message.startswith("unknown: ") is unknown
    assert "line" in got.message and got.loc is not None


# ---- the catalog walk ----------------------------------------------------------------------


def _check(text: str):
    _, chunks = _source(text)
    root = decode(chunks)
    assert isinstance(root, JNode)
    return llmapi.catalog().check(root)


def test_unknown_misplaced_and_known_keys():
    probs = _check(
        "kv_cache_config:\n  enable_blok_reuse: false\n  dtype: fp8\n"
        "cuda_graph_config:\n  enable_attention_dp: true\n  enable_padding: true\n"
        "enable_attention_dp: true\n"
    )
    assert [(p.kind, p.path) for p in probs] == [
        ("unknown", "kv_cache_config.enable_blok_reuse"),
        ("unknown", "cuda_graph_config.enable_attention_dp"),
    ]
    assert llmapi.catalog().places("enable_attention_dp") == [""]


def test_the_speculative_model_is_picked_by_decoding_type():
    # MTP has no speculative_model alias issue, Eagle3 has; an MTP-only key under Eagle3 is unknown
    assert _check("speculative_config:\n  decoding_type: Eagle3\n  speculative_model: /m\n  max_draft_len: 3\n") == []
    probs = _check("speculative_config:\n  decoding_type: Eagle3\n  use_mtp_vanilla: true\n")
    assert [(p.kind, p.path) for p in probs] == [("unknown", "speculative_config.use_mtp_vanilla")]


def test_renamed_and_deprecated_keys_carry_their_history():
    probs = {
        p.path: p
        for p in _check("autotuner_enabled: true\nspeculative_config:\n  decoding_type: MTP\n  num_nextn_predict_layers: 3\n")
    }
    assert probs["autotuner_enabled"].kind == "renamed"
    assert "enable_autotuner" in probs["autotuner_enabled"].rename["note"]
    assert probs["speculative_config.num_nextn_predict_layers"].kind == "deprecated"
    assert "1.3.0rc8" in probs["speculative_config.num_nextn_predict_layers"].rename["scope"]


@pytest.mark.parametrize(
    "text, bad",
    [
        ("moe_config:\n  backend: TRTLMM\n", True),
        ("moe_config:\n  backend: TRTLLM\n", False),
        ("stream_interval: '10'\n", False),  # lax mode: a numeric string is an integer
        ("stream_interval: ten\n", True),
        ("enable_chunked_prefill: yes\n", False),
        ("enable_chunked_prefill: maybe\n", True),
        ("scheduler_config: MAX_UTILIZATION\n", True),
        ("scheduler_config:\n  capacity_scheduler_policy: GUARANTEED_NO_EVICT\n", False),
        ("cuda_graph_config: null\n", False),  # null turns CUDA graphs off
        ("model_kwargs:\n  whatever: 1\n", False),  # free form
    ],
)
def test_value_types_in_lax_mode(text, bad):
    assert any(p.kind == "type" for p in _check(text)) is bad


# ---- the options file and the merged view --------------------------------------------------


def test_the_file_wins_over_the_command_line_and_images_name_a_release():
    from recipelint.engines.launches import detect
    from recipelint.evaluate.values import Word, file_key, lit
    from recipelint.sweep.points import SweepPoint

    words = ["trtllm-serve", "m", "--max_batch_size", "64", "--tp_size", "8", "--config", "c.yml"]
    lc = detect([Word(lit(w, None), None) for w in words], {}, lambda: {}, None)
    assert lc is not None
    lc.files = {file_key("c.yml"): lit("max_batch_size: 16\nenable_attention_dp: true\n", None)}
    opts = llmapi.options_file(lc)
    assert opts is not None and opts.origin == "written" and opts.judged
    api = llmapi.resolve(lc, opts)
    assert api.get("max_batch_size").integer == 16  # the file over --max_batch_size
    assert api.get("tensor_parallel_size").integer == 8  # from --tp_size
    pt = SweepPoint("p", {"IMAGE": "nvcr.io#nvidia/tensorrt-llm/release:1.3.0rc23.post1"})
    assert llmapi.image_release(pt) == "1.3.0rc23.post1"
    assert llmapi.image_release(SweepPoint("p", {"IMAGE": "ghcr.io/x/trtllm:feat-abc"})) is None
    assert llmapi.at_or_after("1.3.0rc24", "1.3.0rc24") and not llmapi.at_or_after("1.3.0rc23.post1", "1.3.0rc24")


def test_the_data_file_is_what_the_generator_writes():
    r = subprocess.run([sys.executable, str(ROOT / "tools" / "gen_trtllm_catalog.py"), "--check"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr


def test_trtllm_judged(tmp_path):
    """Issue 46's acceptance in one script: an unknown flag, every launch of a file, a subcommand
    (not a model), an unknown key in a file of the tree and in a here-document, a per-rank
    max_batch_size of 0 under attention DP — each reported."""
    from recipelint.lint.check import lint
    from recipelint.sweep.points import point_from_overrides

    (tmp_path / "tree.yaml").write_text("kv_cache_config:\n  enable_blok_reuse: false\n")
    script = tmp_path / "r.sh"
    script.write_text(
        "#!/usr/bin/env bash\n"
        "trtllm-serve m --tp_size 8 --no_such_flag 1 &\n"  # 2: unknown flag
        "trtllm-serve m --tp_size 8 --config tree.yaml &\n"  # 3: unknown key in a tree file (second launch)
        "trtllm-serve encoder m --port 8000 &\n"  # 4: a subcommand, not the model
        "cat > cfg.yml <<EOF\n"
        "enable_attention_dp: true\n"
        "max_batch_size: $(( CONC / TP ))\n"  # 7: 0 per rank at CONC=4, TP=8
        "cuda_graph_config:\n"
        "  enable_paddding: true\n"  # 9: unknown key in a here-document
        "EOF\n"
        "trtllm-serve serve m --tp_size \"$TP\" --config cfg.yml &\n"
    )

    def points(display, text):  # (a master-config point: RL504 judges those)
        pt = point_from_overrides(display, {"TP": "8", "CONC": "4"})
        pt.config_key = "m-fp4-b200-trt"
        return [pt]

    res = lint([script], points_for=points)
    got = {(f.code, Path(f.span.path).name, f.span.line, f.severity) for f in res.findings}
    assert ("RL601", "r.sh", 2, "warning") in got
    assert ("RL606", "tree.yaml", 2, "error") in got
    assert ("RL601", "r.sh", 4, "info") in got  # (encoder's options: not read, and said)
    assert ("RL606", "r.sh", 9, "error") in got
    assert ("RL504", "r.sh", 7, "error") in got
    launches = [lc for f in res.files for pr in f.points for lc in pr.launches]
    assert [lc.entry for lc in launches] == ["trtllm-serve", "trtllm-serve", "trtllm-serve encoder", "trtllm-serve serve"]
    assert launches[2].model is not None and launches[2].model.text == "m"
