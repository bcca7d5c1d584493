"""RL506 on a recipe no master-config entry runs: when entries run a recipe of its folder named
one `_part` longer or shorter, the finding points at them (InferenceX PR 2605: the entry meant
for `qwen3.5_fp4_mi355x_sglang.sh` had `spec-decoding: mtp`, so it ran the `_mtp` recipe)."""

from __future__ import annotations

import json
import shutil

from helpers import FIXTURES
from typer.testing import CliRunner

from recipelint.cli import app

RL5XX = FIXTURES / "rules" / "RL5xx"
RECIPES = "benchmarks/single_node/fixed_seq_len"


def _rl506(tmp_path, recipe: str) -> dict:
    root = tmp_path / "repo"
    shutil.copytree(RL5XX, root)
    (root / "configs" / "broken-master.yaml").unlink()  # (every config readable: the plain message)
    r = CliRunner().invoke(app, ["check", str(root / RECIPES / recipe), "--no-cache", "-o", "json"])
    assert r.exit_code in (0, 1), r.output
    (f,) = [f for f in json.loads(r.stdout) if f["code"] == "RL506"]
    return f


def test_the_entry_running_the_mtp_recipe_is_named(tmp_path):
    f = _rl506(tmp_path, "nbr_fp8_b300_vllm.sh")
    # (the headline is the plain one: the finding is the same finding whether or not such an
    # entry exists, which a diff's scope relies on)
    assert f["message"] == "no master-config entry runs this recipe: add an entry that runs it, or remove it if it is retired"
    (rel,) = f["related"]
    assert rel["path"].endswith("configs/nvidia-master.yaml") and rel["col"] == 1
    line = (RL5XX / "configs" / "nvidia-master.yaml").read_text().splitlines()[rel["line"] - 1]
    assert line.startswith("nbr-fp8-b300-vllm:")
    assert rel["message"] == "config entry `nbr-fp8-b300-vllm` runs `nbr_fp8_b300_vllm_mtp.sh`, this recipe's name with `_mtp`"


def test_a_recipe_with_no_neighbour_keeps_the_plain_message(tmp_path):
    # (mdl_fp8_b200_mtp.sh and other names in the folder differ in more than one last part)
    f = _rl506(tmp_path, "orphan_fp8_b200_vllm.sh")
    assert f["message"] == "no master-config entry runs this recipe: add an entry that runs it, or remove it if it is retired"
    assert f["related"] == []
