"""Image → engine release (recipelint/engines/versions.py, rules/data/images.yaml): every tag
shape InferenceX pins at 843c6254f, and the data's own consistency."""

from __future__ import annotations

import datetime
import re

import pytest

from recipelint.engines import facts
from recipelint.engines.catalog import versions
from recipelint.engines.versions import parse_image, release_in_tag, resolve


@pytest.fixture(autouse=True)
def _fresh():
    resolve.cache_clear()
    yield
    facts.reset()
    resolve.cache_clear()


def span(ev):
    return (ev.versions[0], ev.versions[-1]) if ev.versions else ()


ALL_VLLM = (versions("vllm")[0], versions("vllm")[-1])
ALL_SGLANG = (versions("sglang")[0], versions("sglang")[-1])

# (engine, image, (first, last) judged, exact) — one row per tag shape pinned at InferenceX HEAD
SHAPES = [
    ("vllm", "vllm/vllm-openai:v0.25.1", ("0.25.1", "0.25.1"), True),
    ("vllm", "vllm/vllm-openai:v0.21.0-ubuntu2404", ("0.21.0", "0.21.0"), True),
    ("vllm", "vllm/vllm-openai-rocm:v0.17.0", ("0.17.0", "0.17.0"), True),
    ("sglang", "lmsysorg/sglang:v0.5.12", ("0.5.12", "0.5.12"), True),
    ("sglang", "lmsysorg/sglang:v0.5.8.post1-cu130-runtime", ("0.5.8.post1", "0.5.8.post1"), True),
    ("sglang", "lmsysorg/sglang:v0.5.12-rocm700-mi30x", ("0.5.12", "0.5.12"), True),
    ("sglang", "lmsysorg/sglang-rocm:v0.5.12.post1-rocm720-mi35x-20260523", ("0.5.12.post1", "0.5.12.post1"), True),
    ("sglang", "lmsysorg/sglang:v0.5.14-cu130@sha256:" + "5" * 64, ("0.5.14", "0.5.14"), True),
    ("sglang", "rocm/sgl-dev:sglang-0.5.9-rocm720-mi35x-mori-0227-2", ("0.5.9", "0.5.9"), True),
    ("vllm", "vllm/vllm-openai:vllm-x86_64-cu13-0.25.1-7a33ba9", ("0.25.1", "0.25.1"), True),
    # a series: the only 0.26 release
    ("vllm", "quay.io/rh-ee-imarkov/llm-d-nokube-vllm:vllm0.26@sha256:" + "a" * 64, ("0.26.0", "0.26.0"), False),
    # nightlies of main: commit → dates in images.yaml → the releases around them
    ("vllm", "vllm/vllm-openai:nightly-3ee2df30337a301164c46ae444b76ee67e71c106", ("0.27.0", "0.29.0"), False),
    ("vllm", "vllm/vllm-openai-rocm:nightly-09663abde0f50944a8d5ea30120666024b503faa", ("0.23.0", "0.26.0"), False),
    ("vllm", "vllm/vllm-openai:nightly-dev-arm64-cu13.0.1-728d3ad", ("0.26.0", "0.29.0"), False),
    ("vllm", "vllm/vllm-openai:nightly-dev-x86_64-cu13.0.1-426e59f", ("0.23.0", "0.28.0"), False),
    # vendor builds: a commit in the tag, or the whole tag in images.yaml
    ("vllm", "vllm/vllm-openai:minimax-m3-perf-arm64-13.0.1-7a67223", ("0.23.0", "0.25.0"), False),
    ("vllm", "vllm/vllm-openai:vllm-minimax-m3-perf-x86_64-13.0.1-8b00f41", ("0.23.0", "0.25.0"), False),
    ("vllm", "vllm/vllm-openai:dsv4-megamoe-mxfp4-arm64-cu130-4ba0a72", ("0.19.1", "0.26.0"), False),
    ("vllm", "vllm/vllm-openai:kimi-k3", ("0.25.0", "0.28.0"), False),
    ("vllm", "vllm/vllm-openai-rocm:minimax-m3", ("0.22.0", "0.24.0"), False),
    ("vllm", "vllm/vllm-openai:minimax-m3-0618-x86_64-cu130", ("0.23.0", "0.25.0"), False),
    ("sglang", "lmsysorg/sglang:deepseek-v4-hopper@sha256:" + "1" * 64, ("0.5.10", "0.5.12"), False),
    ("sglang", "lmsysorg/sglang:dev-nightly-0820", ("0.5.17", "0.5.19"), False),
    # SGLang dated nightlies: read from the tag, no data entry
    ("sglang", "lmsysorg/sglang:nightly-dev-20260527-14f81a67", ("0.5.12.post1", "0.5.14"), False),
    ("sglang", "lmsysorg/sglang:nightly-dev-cu13-20260815-a5ba081f", ("0.5.17", "0.5.19"), False),
    # other products' images under a vLLM or SGLang launch: their numbers are not the engine's
    ("vllm", "nvcr.io#nvidia/ai-dynamo/tensorrtllm-runtime:0.8.1.post2", ALL_VLLM, False),
    ("sglang", "nvcr.io/nvidia/tensorrt-llm/release:1.3.0rc24", ALL_SGLANG, False),
    ("vllm", "rocm/atom:rocm7.2.2_ubuntu24.04_py3.12_pytorch_release_2.10.0_atom0.1.2.post", ALL_VLLM, False),
    ("vllm", "rocm/atom-dev:ubuntu24.04_py3.12_pytorch_release_2.10.0_kimi_k3_agentic_0820", ALL_VLLM, False),
    ("vllm", "ghcr.io/tile-ai/tilert:0.1.5", ALL_VLLM, False),
    ("vllm", "ghcr.io#semianalysisai/trtllm-deepseek-v4:feat-deepseek_v4-c185066", ALL_VLLM, False),
]


@pytest.mark.parametrize("engine,image,expected,exact", SHAPES, ids=[s[1][:60] for s in SHAPES])
def test_every_inferencex_tag_shape(engine, image, expected, exact):
    ev = resolve(engine, image)
    assert span(ev) == expected, ev.label
    assert ev.exact is exact
    assert ev.newer is None and ev.older is None, ev.label
    if not exact:  # the label names what it judged and why
        assert f"{ev.versions[0]}–{ev.versions[-1]}" in ev.label or f" {ev.versions[0]} (" in ev.label
        assert f"`{image}`" in ev.label


def test_cuda_version_is_never_the_engine_release():
    """The bug: `minimax-m3-perf-arm64-13.0.1-7a67223` read "13.0.1" (CUDA) as vLLM 13.0.1,
    "newer than every catalogued release".  Without its data entry it is an unknown image."""
    facts.extend("images", lambda d: d["vllm"]["nightlies"].pop("7a67223"))
    for image in (
        "vllm/vllm-openai:minimax-m3-perf-arm64-13.0.1-7a67223",
        "vllm/vllm-openai:vllm-minimax-m3-perf-x86_64-13.0.1-9999999",
        "vllm/vllm-openai:nightly-dev-arm64-cu13.0.1-abcdef0",
    ):
        ev = resolve("vllm", image)
        assert ev.newer is None and span(ev) == ALL_VLLM, ev.label
        assert "13.0.1" not in ev.label.replace(image, "")
    for tag in (
        "rocm7.2.2_ubuntu24.04_py3.12_pytorch_release_2.10.0",
        "cu13.0.1",
        "cuda-12.8.1",
        "py3.12-torch2.11.0",
        "ubuntu24.04",
    ):
        assert release_in_tag("vllm", parse_image(f"vllm/vllm-openai:{tag}")) is None, tag
        assert release_in_tag("sglang", parse_image(f"lmsysorg/sglang:{tag}")) is None, tag


def test_hash_spelling_and_digest_parse_the_same():
    a = parse_image("nvcr.io#nvidia/ai-dynamo/tensorrtllm-runtime:0.8.1.post2")
    b = parse_image("nvcr.io/nvidia/ai-dynamo/tensorrtllm-runtime:0.8.1.post2@sha256:" + "0" * 64)
    assert a == b and a.repository == "nvcr.io/nvidia/ai-dynamo/tensorrtllm-runtime" and a.tag == "0.8.1.post2"
    for engine, image in (("vllm", "docker.io/vllm/vllm-openai:v0.25.1"), ("vllm", "docker.io#vllm/vllm-openai:v0.25.1")):
        assert resolve(engine, image).versions == ("0.25.1",), image
    assert parse_image("registry.local:5000/vllm/vllm-openai").tag == "latest"


def test_engine_name_glued_to_a_version():
    assert release_in_tag("vllm", parse_image("quay.io/x/llm-d-vllm:vllm0.26")) == ("0.26", "series")
    assert release_in_tag("vllm", parse_image("rocm/vllm:rocm6.3.1_vllm_0.8.5_20250521")) == ("0.8.5", "release")
    assert release_in_tag("vllm", parse_image("quay.io/x/llm-d-vllm:v0.26.0")) == ("0.26.0", "release")
    # a bare version outside the engine's repositories is not its release (a dynamo runtime's)
    assert release_in_tag("vllm", parse_image("nvcr.io/nvidia/ai-dynamo/vllm-runtime:0.8.1")) is None
    ev = resolve("vllm", "quay.io/x/llm-d-vllm:vllm0.26")
    assert "names the vLLM 0.26 series, whose only release is 0.26.0" in ev.label


def test_a_dated_nightly_follows_the_release_dates_in_data():
    """The range comes from `released:` by code: move a release's date and it moves."""
    img = "lmsysorg/sglang:nightly-dev-20260612-deadbeef"
    assert span(resolve("sglang", img)) == ("0.5.13", "0.5.14")  # 0.5.13 published 06-11
    facts.extend("images", lambda d: d["sglang"]["released"].update({"0.5.13": "2026-06-13"}))
    resolve.cache_clear()
    assert span(resolve("sglang", img)) == ("0.5.12.post1", "0.5.14")  # now published after it


def test_a_nightly_newer_than_every_release_is_judged_against_the_newest():
    ev = resolve("sglang", "lmsysorg/sglang:nightly-dev-20991231-0123abcd")
    assert ev.versions == (versions("sglang")[-1],)
    assert f"newer than every catalogued release: judged against {versions('sglang')[-1]}, the newest" in ev.label
    facts.extend("images", lambda d: d["vllm"]["nightlies"].update({"feedface01": {"by": "2099-01-01", "evidence": "t"}}))
    ev = resolve("vllm", "vllm/vllm-openai:nightly-feedface01" + "0" * 30)
    assert ev.versions == tuple(versions("vllm"))  # no lower bound: from the oldest
    assert "no lower bound known" in ev.label and "possibly newer than every catalogued release" in ev.label


def test_one_line_adds_a_nightly():
    img = "vllm/vllm-openai:nightly-0123456789abcdef0123456789abcdef01234567"
    assert span(resolve("vllm", img)) == ALL_VLLM and "not a catalogued release" in resolve("vllm", img).label
    facts.extend(
        "images",
        lambda d: d["vllm"]["nightlies"].update({"0123456789ab": {"dev": "0.27.2rc1.dev9", "by": "2026-08-20", "evidence": "t"}}),
    )
    resolve.cache_clear()
    ev = resolve("vllm", img)
    assert span(ev) == ("0.27.1", "0.29.0")  # dev base 0.27.2 → 0.27.1; first after 08-20: 0.28.0 → next series 0.29.0
    assert "commit 0123456789ab of 2026-08-20 or earlier" in ev.label
    # the short tag form matches the longer key, and the reverse
    assert span(resolve("vllm", "vllm/vllm-openai:nightly-dev-x86_64-cu13.0.1-0123456")) == ("0.27.1", "0.29.0")


def test_unknown_vendor_tag_is_judged_against_every_release_and_says_so():
    ev = resolve("vllm", "vllm/vllm-openai:some-vendor-build")
    assert span(ev) == ALL_VLLM and not ev.exact
    assert "`vllm/vllm-openai:some-vendor-build` is not a catalogued release" in ev.label
    assert resolve("vllm", "vllm/vllm-openai:latest").versions == tuple(versions("vllm"))


def test_images_data_is_consistent():
    data = facts.load("images")
    for engine in ("vllm", "sglang"):
        d = data[engine]
        known = set(versions(engine))
        assert set(map(str, d["released"])) == known  # every catalogued release has its date
        dates = [datetime.date.fromisoformat(str(x)) for x in d["released"].values()]
        assert dates == sorted(dates)  # in release order
        entries = list((d.get("nightlies") or {}).items()) + list((d.get("images") or {}).items())
        for key, e in entries:
            assert e.get("evidence"), key
            for k in ("after", "by"):
                if k in e:
                    datetime.date.fromisoformat(str(e[k]))
            for v in list(e.get("range") or ()) + [e[k] for k in ("lo", "release") if k in e]:
                assert str(v) in known, (key, v)
            if "dev" in e:
                assert re.fullmatch(r"\d+\.\d+\.\d+rc\d+\.dev\d+", str(e["dev"])), key
        for key in d.get("nightlies") or {}:
            assert isinstance(key, str) and re.fullmatch(r"[0-9a-f]{7,40}", key), key


def test_a_dev_version_in_the_tag_is_a_build_after_its_base_release():
    ev = resolve("vllm", "vllm/vllm-openai:v0.26.1rc1.dev668-cu130")
    assert span(ev) == ("0.26.0", versions("vllm")[-1]) and not ev.exact
    assert "possibly newer than every catalogued release" in ev.label
    assert release_in_tag("vllm", parse_image("vllm/vllm-openai:vllm0.26.1rc1.dev5")) == ("0.26.1rc1.dev5", "dev")
