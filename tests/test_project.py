"""``Project.tree``: what a run reads of the tree beside its files is read once per process."""

from __future__ import annotations

import os
from collections import Counter
from pathlib import Path

import pytest

from recipelint.lint import check, rulebase
from recipelint.lint.rulebase import Project

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"


def _counted(monkeypatch, log: Path) -> None:
    real = rulebase._runner_matches

    def counted(root, pattern):
        with log.open("a") as fh:  # (a file: the workers' reads are counted too)
            fh.write(f"{os.getpid()}\n")
        return real(root, pattern)

    monkeypatch.setattr(rulebase, "_runner_matches", counted)


def test_projects_of_a_run_share_what_they_read_of_the_tree(tmp_path, monkeypatch):
    from recipelint.sweep import configs

    _counted(monkeypatch, tmp_path / "reads")
    cs = configs.load(FIXTURES / "rules" / "RL507")
    tree: dict = {}
    a, b = Project([], cs, tree=tree), Project([], cs, tree=tree)
    assert a.runner_exports() == b.runner_exports() and "RUNNER_PORT_BASE" in a.runner_exports()
    assert Project([], cs).runner_names() >= a.runner_exports()
    # one reading of the exports for both, one of the names for the third project alone
    assert len((tmp_path / "reads").read_text().split()) == 2


def test_a_workers_chunks_read_the_runners_once(tmp_path, monkeypatch):
    import shutil

    if not hasattr(os, "fork") or len(os.sched_getaffinity(0)) < 2:
        pytest.skip("no fork or one CPU: no workers")
    monkeypatch.setattr(check, "PARALLEL_MIN_FILES", 1)
    # fourteen more recipes of other models (two workers, a chunk each), each with a name RL507
    # looks for among the runners' exports
    root = tmp_path / "r"
    shutil.copytree(FIXTURES / "rules" / "RL507", root)
    cfg = root / "configs" / "nvidia-master.yaml"
    text = cfg.read_text()
    entry = text[text.index("unb-fp8-b200-vllm:") : text.index("lib-fp8-b200-vllm:")]
    recipe = root / "benchmarks/single_node/fixed_seq_len/unb_fp8_b200_vllm.sh"
    for i in range(14):
        text += "\n" + entry.replace("unb", f"m{i}")
        shutil.copy(recipe, recipe.with_name(f"m{i}_fp8_b200_vllm.sh"))
    cfg.write_text(text)
    monkeypatch.chdir(root)
    log = tmp_path / "reads"
    _counted(monkeypatch, log)
    par = check.lint([Path("benchmarks")], options=check.Options(jobs=2))
    per_process = Counter(log.read_text().split())
    one = check.lint([Path("benchmarks")], options=check.Options(jobs=1))
    assert [f.to_dict() for f in par.findings] == [f.to_dict() for f in one.findings]
    assert sum(f.code == "RL507" for f in one.findings) >= 14
    # every chunk a worker checks has a Project of its own; the runners are read once per process
    assert per_process and max(per_process.values()) == 1, per_process
