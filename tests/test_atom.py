"""ATOM: the history read from the ROCm/ATOM release tags (tools/gen_catalogs.py --atom-repo) and
the mapping of ATOM images (rocm/atom, rocm/atom-dev) to those releases."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import ROOT

from recipelint.engines import facts
from recipelint.engines.catalog import describe_lifetime, expand, versions
from recipelint.engines.versions import resolve

sys.path.insert(0, str(ROOT / "tools"))
import gen_catalogs

HISTORY = ROOT / "rules" / "data" / "catalogs" / "atom-history.json"
MIRROR = Path(os.environ.get("ATOM_GIT", "/work/.mirror/ROCm+ATOM/repo"))
P = "rocm7.2.4_ubuntu24.04_py3.12_pytorch_release_2.10.0"


@pytest.fixture(autouse=True)
def _fresh():
    resolve.cache_clear()
    yield
    facts.reset()
    resolve.cache_clear()


def test_history_records_each_tag_and_commit():
    h = json.loads(HISTORY.read_text())
    assert h["releases"] == ["0.1.2", "0.1.3", "0.1.4", "0.1.5"]
    assert h["sources"]["0.1.3"] == ["v0.1.3", "bdcc62e94daf73c04c2da1724a248030654509d9", "2026-05-30"]
    assert h["sources"]["0.1.5"][0] == "v0.1.5" and len(h["sources"]["0.1.5"][1]) == 40
    # the release dates in images.yaml are the tags' commit dates
    released = facts.load("images")["atom"]["released"]
    assert {v: str(d) for v, d in released.items()} == {v: s[2] for v, s in h["sources"].items()}


def test_flags_as_the_tags_spell_them():
    assert expand("atom", "--kv_cache_dtype", ("0.1.3",))[0] == "--kv_cache_dtype"
    assert expand("atom", "--kv-cache-dtype", ("0.1.3",))[0] is None  # plain argparse: no `-` for `_`
    assert expand("atom", "--max-num-seq", ("0.1.3",))[0] == "--max-num-seqs"  # allow_abbrev
    assert expand("atom", "--hf-overrides", ("0.1.4",))[0] is None
    assert expand("atom", "--hf-overrides", ("0.1.5",))[0] == "--hf-overrides"
    assert "0.1.5" in describe_lifetime("atom", "--hf-overrides", ("0.1.3",))
    # the server's own flags: openai_server.py in 0.1.2, openai/api_server.py from 0.1.3
    assert expand("atom", "--server-port", ("0.1.2",))[0] == "--server-port"
    assert expand("atom", "--request-log", ("0.1.2",))[0] is None
    assert expand("atom", "--request-log", ("0.1.3",))[0] == "--request-log"


@pytest.mark.skipif(not MIRROR.is_dir(), reason="no ROCm/ATOM git directory (set ATOM_GIT)")
def test_regenerating_gives_the_same_bytes(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    gen_catalogs.atom_history_main(MIRROR, a)
    gen_catalogs.atom_history_main(MIRROR, b)
    assert (a / "atom-history.json").read_bytes() == (b / "atom-history.json").read_bytes()
    assert (a / "atom-history.json").read_bytes() == HISTORY.read_bytes()
    # spot check against the tag's source, read with git
    src = subprocess.run(
        ["git", "--git-dir", str(MIRROR), "show", "v0.1.5:atom/model_engine/arg_utils.py"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    h = json.loads(HISTORY.read_text())
    for flag in ("--hf-overrides", "--enable_prefix_caching", "--attn-prefill-chunk-size"):
        assert f'"{flag}"' in src and "0.1.5" in h["flags"][flag]
    assert '"--served-model-name"' not in src and "--served-model-name" not in h["flags"]


@pytest.mark.parametrize(
    ("image", "span", "exact"),
    [
        (f"rocm/atom:{P}_atom0.1.3", ("0.1.3", "0.1.3"), True),
        (f"rocm/atom:{P}_atom0.1.4_202607091539", ("0.1.4", "0.1.4"), True),
        # dated builds: the release before the day .. the release after the next (release branches)
        ("rocm/atom:rocm7.2.3_ubuntu24.04_py3.12_pytorch_release_2.10.0_atom20260511", ("0.1.2", "0.1.4"), False),
        ("rocm/atom:rocm7.2.2_ubuntu24.04_py3.12_pytorch_release_2.10.0_atom0.1.2.post", ("0.1.2", "0.1.4"), False),
        # possibly newer than 0.1.5: not judged
        ("rocm/atom-dev:nightly_202606101403", (), False),
        ("rocm/atom-dev:nightly_202608201032", (), False),
        ("rocm/atom-dev:ubuntu24.04_py3.12_pytorch_release_2.10.0_glm52_agentic_0813", (), False),
    ],
)
def test_atom_images(image, span, exact):
    ev = resolve("atom", image)
    assert ((ev.versions[0], ev.versions[-1]) if ev.versions else ()) == span
    assert ev.exact is exact
    if not span:
        assert "not judged" in ev.label and "0.1.5" in ev.label


def test_atom_in_a_vllm_tag_is_not_the_vllm_release():
    ev = resolve("vllm", f"rocm/vllm-dev:{P}_atom0.1.3")
    assert "0.1.3" not in ev.versions and len(ev.versions) == len(versions("vllm"))
