"""ATOM: the history read from the ROCm/ATOM release tags (tools/gen_catalogs.py --atom-repo) and
the mapping of ATOM images (rocm/atom, rocm/atom-dev) to those releases."""

from __future__ import annotations

import datetime
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import ROOT

from recipelint.engines import facts
from recipelint.engines.catalog import describe_lifetime, expand, snapshots, versions
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
    tags = [v for v in h["releases"] if h["sources"][v][0] != "main"]
    assert tags == ["0.1.2", "0.1.3", "0.1.4", "0.1.5"]
    assert h["sources"]["0.1.3"] == ["v0.1.3", "bdcc62e94daf73c04c2da1724a248030654509d9", "2026-05-30"]
    assert h["sources"]["0.1.5"][0] == "v0.1.5" and len(h["sources"]["0.1.5"][1]) == 40
    # the release dates in images.yaml are the tags' commit dates
    released = facts.load("images")["atom"]["released"]
    assert {v: str(d) for v, d in released.items()} == {v: h["sources"][v][2] for v in tags}


def test_main_snapshots_follow_the_newest_tag_weekly():
    h = json.loads(HISTORY.read_text())
    snaps = [v for v in h["releases"] if h["sources"][v][0] == "main"]
    assert h["releases"] == [v for v in h["releases"] if v not in snaps] + snaps  # after every tag
    days = [h["sources"][v][2] for v in snaps]
    assert days[0] > h["sources"]["0.1.5"][2] and days == sorted(days)
    for v, day in zip(snaps, days):
        assert v == "0.1.6.dev" + day.replace("-", "") and len(h["sources"][v][1]) == 40
    weeks = [datetime.date.fromisoformat(d).isocalendar()[:2] for d in days]
    assert len(set(weeks)) == len(weeks)  # one a week
    assert snapshots("atom") == dict(zip(snaps, days))


def test_snapshots_spell_flags_as_main_parses_them():
    # 2026-07-16 (ROCm/ATOM#1597) `--kv-cache-dtype` became an alias; 2026-07-23 (#1686) the
    # FlexibleArgumentParser takes both spellings of every flag
    assert expand("atom", "--kv-cache-dtype", ("0.1.6.dev20260712",))[0] is None
    assert expand("atom", "--kv-cache-dtype", ("0.1.6.dev20260719",))[0] == "--kv-cache-dtype"
    assert expand("atom", "--tensor_parallel_size", ("0.1.6.dev20260719",))[0] is None
    assert expand("atom", "--tensor_parallel_size", ("0.1.6.dev20260725",))[0] == "--tensor_parallel_size"
    assert expand("atom", "--enable-prefix-caching", ("0.1.6.dev20260725",))[0] == "--enable-prefix-caching"
    assert describe_lifetime("atom", "--served-model-name", ("0.1.5",)) == (
        "exists only from ATOM 0.1.6.dev20260801 (main of 2026-08-01) on"
    )


def _git(repo: Path, *args: str, day: str | None = None) -> str:
    env = {"PATH": "/usr/bin:/bin", "HOME": str(repo), "GIT_CONFIG_NOSYSTEM": "1", "TZ": "UTC"}
    if day:
        env |= {"GIT_AUTHOR_DATE": f"{day}T12:00:00Z", "GIT_COMMITTER_DATE": f"{day}T12:00:00Z"}
    env |= {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t"}
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True, env=env).stdout


def test_snapshot_choice_on_a_small_repository(tmp_path):
    # main: a tag on 06-22 (Mon), then commits through three ISO weeks; a side branch is not read
    repo = tmp_path / "r"
    repo.mkdir()
    _git(repo, "init", "-q", "-b", "main")
    for day in ("2026-06-20", "2026-06-22", "2026-06-24", "2026-06-28", "2026-06-29", "2026-07-08", "2026-07-09"):
        (repo / "f").write_text(day)
        _git(repo, "add", "f")
        _git(repo, "commit", "-q", "-m", day, day=day)
        if day == "2026-06-22":
            _git(repo, "tag", "v0.1.5")
    _git(repo, "checkout", "-q", "-b", "side", "HEAD~2")
    (repo / "f").write_text("side")
    _git(repo, "commit", "-q", "-am", "side", day="2026-07-10")
    git_dir = repo / ".git"
    got = gen_catalogs.atom_main_snapshots(git_dir, "0.1.5", "2026-06-22")
    msgs = {v: _git(repo, "log", "-1", "--format=%s", c).strip() for v, c in got}
    # week 26 (06-22..06-28): its last commit, 06-28; week 27: 06-29; week 28: 07-09
    assert msgs == {"0.1.6.dev20260628": "2026-06-28", "0.1.6.dev20260629": "2026-06-29", "0.1.6.dev20260709": "2026-07-09"}


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
        assert f'"{flag}"' in src and expand("atom", flag, ("0.1.5",))[0] == flag
    assert '"--served-model-name"' not in src and expand("atom", "--served-model-name", ("0.1.5",))[0] is None
    # and against main's newest snapshot: its commit, its flags (both spellings there)
    head = h["sources"][h["releases"][-1]]

    def show(path):
        cmd = ["git", "--git-dir", str(MIRROR), "show", f"{head[1]}:{path}"]
        return subprocess.run(cmd, check=True, capture_output=True, text=True).stdout

    assert "FlexibleArgumentParser(" in show("atom/entrypoints/openai/api_server.py")
    assert '"--served-model-name"' in show("atom/model_engine/arg_utils.py")
    assert h["flags"]["--served_model_name"].endswith(h["releases"][-1])


@pytest.mark.parametrize(
    ("image", "span", "exact"),
    [
        (f"rocm/atom:{P}_atom0.1.3", ("0.1.3", "0.1.3"), True),
        (f"rocm/atom:{P}_atom0.1.4_202607091539", ("0.1.4", "0.1.4"), True),
        # dated builds: the release before the day .. the release after the next (release branches)
        ("rocm/atom:rocm7.2.3_ubuntu24.04_py3.12_pytorch_release_2.10.0_atom20260511", ("0.1.2", "0.1.4"), False),
        ("rocm/atom:rocm7.2.2_ubuntu24.04_py3.12_pytorch_release_2.10.0_atom0.1.2.post", ("0.1.2", "0.1.4"), False),
        # builds of main: the snapshots around their day (before the first snapshot: the release
        # before the day .. the first snapshot, a series later)
        ("rocm/atom-dev:nightly_202606101403", ("0.1.4", "0.1.6.dev20260628"), False),
        ("rocm/atom-dev:nightly_202607231538", ("0.1.6.dev20260719", "0.1.6.dev20260725"), False),
        ("rocm/atom-dev:nightly_202608201032", ("0.1.6.dev20260816", "0.1.6.dev20260822"), False),
        (f"rocm/atom:{P}_atomesh_202607121715", ("0.1.6.dev20260705", "0.1.6.dev20260719"), False),
        # newer than the newest snapshot: not judged
        ("rocm/atom-dev:nightly_202608251032", (), False),
        # branch builds: not judged (their entries say why)
        ("rocm/atom-dev:ubuntu24.04_py3.12_pytorch_release_2.10.0_glm52_agentic_0813", (), False),
        ("rocm/atom-dev:ubuntu24.04_py3.12_pytorch_release_2.10.0_kimi_k3_agentic_0820", (), False),
    ],
)
def test_atom_images(image, span, exact):
    ev = resolve("atom", image)
    assert ((ev.versions[0], ev.versions[-1]) if ev.versions else ()) == span
    assert ev.exact is exact
    if not span:
        assert "not judged" in ev.label
    elif any(v in snapshots("atom") for v in ev.versions):
        assert "snapshot of main" in ev.label


def test_atom_in_a_vllm_tag_is_not_the_vllm_release():
    ev = resolve("vllm", f"rocm/vllm-dev:{P}_atom0.1.3")
    assert "0.1.3" not in ev.versions and len(ev.versions) == len(versions("vllm"))
