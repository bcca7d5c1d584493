"""The per-file findings cache (``lint.filecache``): a recipe whose inputs did not change is not
analysed again — whatever else changed in the tree, and wherever the tree lies — and the output is
byte for byte the output of a run without any cache."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from helpers import record_analyses

from recipelint.lint.check import Options, lint
from recipelint.lint.settings import find, load
from recipelint.report.jsonfmt import render_json

SEED = Path(__file__).resolve().parent.parent / "fixtures" / "seed"
B200 = "benchmarks/single_node/agentic/dsv4_fp4_b200_vllm.sh"
B300 = "benchmarks/single_node/agentic/dsv4_fp4_b300_vllm.sh"
LONE = "benchmarks/single_node/agentic/glm5_fp8_h200.sh"
LIB = "benchmarks/benchmark_lib.sh"

LONE_RECIPE = """#!/usr/bin/env bash
source "$(dirname "$0")/../../benchmark_lib.sh"
vllm serve "$MODEL" --tensor-parallel-size "$TP" --no-such-flag 1 &
"""


@pytest.fixture
def tree(tmp_path, monkeypatch) -> Path:
    monkeypatch.setenv("RECIPELINT_CACHE_DIR", str(tmp_path / "cache"))
    r = tmp_path / "r"
    shutil.copytree(SEED, r, ignore=shutil.ignore_patterns("expected*"))
    (r / LONE).write_text(LONE_RECIPE)
    (r / ".git").mkdir()  # (the project's root)
    monkeypatch.chdir(r)
    return r


@pytest.fixture
def analysed(monkeypatch) -> list[str]:
    return record_analyses(monkeypatch)


def _run(cache: bool = True) -> str:
    ps = [Path(".")]
    opt = Options(settings=load(find(ps[0])), cache=cache, jobs=1)
    return render_json(lint(ps, options=opt).findings)


def _per_file_only(tree: Path) -> None:
    """Forget the whole-tree results (so that the per-file entries answer)."""
    for p in (tree.parent / "cache").glob("*.json"):
        p.unlink()


def test_a_second_run_analyses_nothing_and_says_the_same(tree, analysed):
    fresh = _run(cache=False)
    assert json.loads(fresh)  # (the seed's findings)
    assert _run() == fresh
    analysed.clear()
    _per_file_only(tree)
    assert _run() == fresh
    assert analysed == []


def test_an_edited_recipe_is_analysed_again_with_its_family_only(tree, analysed):
    _run()
    (tree / B200).write_text((tree / B200).read_text().replace("--block-size 256", "--block-size 128"))
    analysed.clear()
    out = _run()
    # the b200 recipe (its text changed) and b300 (whose parity findings compare it with b200);
    # b300's analysis serves b200's rules too, the lone recipe and the library are cache hits
    assert sorted(set(analysed)) == ["dsv4_fp4_b200_vllm.sh", "dsv4_fp4_b300_vllm.sh"]
    assert out == _run(cache=False)


def test_an_unrelated_file_changes_no_key(tree, analysed):
    _run()
    (tree / "README.md").write_text("notes\n")
    (tree / "benchmarks/single_node/agentic/new_fp8_mi355x_sglang.sh").write_text("#!/usr/bin/env bash\necho hi\n")
    analysed.clear()
    _run()
    assert analysed == ["new_fp8_mi355x_sglang.sh"]


def test_the_same_tree_elsewhere_is_answered_from_the_cache(tree, analysed, tmp_path, monkeypatch):
    fresh = _run()
    other = tmp_path / "export" / "tree"
    shutil.copytree(tree, other)
    monkeypatch.chdir(other)
    analysed.clear()
    out = _run()
    assert analysed == []
    assert out == fresh


def test_a_changed_library_reaches_every_recipe_that_sources_it(tree, analysed):
    _run()
    with (tree / LIB).open("a") as fh:
        fh.write("\n# a comment\n")
    analysed.clear()
    out = _run()
    assert {"dsv4_fp4_b200_vllm.sh", "dsv4_fp4_b300_vllm.sh", "glm5_fp8_h200.sh"} <= set(analysed)
    assert out == _run(cache=False)


def test_a_file_sourced_through_a_name_built_at_run_time_is_never_cached(tree, analysed):
    (tree / "benchmarks/extra_vars.sh").write_text("ARGS=--no-such-flag\n")
    (tree / LONE).write_text(
        '#!/usr/bin/env bash\nNAME=extra\nsource "$(dirname "$0")/../../${NAME}_vars.sh"\nvllm serve m $ARGS &\n'
    )
    first = _run()
    assert "RL601" in first
    (tree / "benchmarks/extra_vars.sh").write_text("ARGS=--tensor-parallel-size 8\n")
    analysed.clear()
    second = _run()
    assert "glm5_fp8_h200.sh" in analysed and "RL601" not in second
    assert second == _run(cache=False)


def test_a_config_edit_is_seen_by_the_recipes_it_runs(tree, analysed):
    _run()
    cfg = tree / "configs/nvidia-master.yaml"
    cfg.write_text(cfg.read_text().replace("conc-list: [8, 12, 16] }", "conc-list: [8, 12, 16, 20] }", 1))
    analysed.clear()
    out = _run()
    assert "dsv4_fp4_b200_vllm.sh" in analysed
    assert out == _run(cache=False)


def test_the_key_reads_no_file_outside_the_project(tree, tmp_path, monkeypatch):
    # a recipe names `vars.sh`, a link to a file outside the project: the key holds where the
    # link leads (refused), never the file's bytes
    import recipelint.files as files_mod
    from recipelint.cache import store

    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "vars.sh").write_text("SECRET=1\n")
    (tree / "benchmarks/vars.sh").symlink_to(outside / "vars.sh")
    (tree / LONE).write_text(LONE_RECIPE.replace("vllm serve", 'source "$(dirname "$0")/../../vars.sh"\nvllm serve'))
    seen: list[str] = []
    real_read, real_digest = files_mod.read_regular, store.file_digest

    def read(path, *a, **k):
        seen.append(os.path.realpath(path))
        return real_read(path, *a, **k)

    def digest(path):
        seen.append(os.path.realpath(path))
        return real_digest(path)

    monkeypatch.setattr(files_mod, "read_regular", read)
    monkeypatch.setattr("recipelint.lint.filecache.file_digest", digest)
    _run()
    assert not [p for p in seen if p.startswith(str(outside))]


def test_keys_that_would_read_too_much_leave_the_run_uncached(tree, analysed, monkeypatch):
    from recipelint.lint import filecache

    monkeypatch.setattr(filecache, "MAX_READ", 100)
    fresh = _run(cache=False)
    assert _run() == fresh
    _per_file_only(tree)
    analysed.clear()
    assert _run() == fresh
    assert analysed  # (nothing was cached per file: every recipe analysed again)
    assert not list((tree.parent / "cache" / "files").glob("*.json"))
