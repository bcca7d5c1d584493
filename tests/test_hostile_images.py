"""Hostile image tags (issue 34, exact images): a master config's `image:` is untrusted text that
`recipelint.engines.versions.resolve` takes apart with regular expressions and matches against
the data.  Each tag below is ~1 MB; the run must END with findings (never a hang, a crash or a
traceback), and the tag is judged as an unknown image (every catalogued release)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from test_hostile_bounds import run

from recipelint.engines.catalog import versions

SEED = Path(__file__).resolve().parent.parent / "fixtures" / "seed"
PINNED = "nightly-dev-x86_64-cu13.0.1-515d6e9"

TAGS = {
    "dotted-digits": "v" + "1." * 300_000 + "x",
    "letters-then-version": "nightly-" + "a" * 600_000 + "1.2.3",
    "many-dates": "-".join(["20260101"] * 60_000),
    "many-hashes": "-".join(["abcdef1"] * 60_000),
    "many-versions": "_".join(["cu13.0.1"] * 60_000),
}


@pytest.mark.parametrize("name", sorted(TAGS))
def test_hostile_image_tag_ends_with_findings(tmp_path, name):
    seed = tmp_path / "seed"
    shutil.copytree(SEED, seed)
    cfg = seed / "configs" / "nvidia-master.yaml"
    text = cfg.read_text()
    assert PINNED in text
    cfg.write_text(text.replace(PINNED, TAGS[name]))
    code, out = run("benchmarks", "-o", "full", "--color", "never", cwd=seed)  # (the release judged is a note)
    assert code == 1, out[-2000:]
    # judged as an unknown image: against every catalogued release, and the message says so
    known = versions("vllm")
    assert f"{known[0]}–{known[-1]}" in out, out[-3000:]
