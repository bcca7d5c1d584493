"""The benchmark tools measure the work a real run does."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

from helpers import FIXTURES, ROOT

from recipelint.lint.check import Options, lint

sys.path.insert(0, str(ROOT / "bench"))
import floor
import simulate

import bench as bench_tool


def test_the_floor_tool_evaluates_the_sweep_points_a_check_does(tmp_path, monkeypatch):
    root = tmp_path / "repo"
    shutil.copytree(FIXTURES / "rules" / "RL5xx", root)
    times, points = floor._phases(root)
    assert set(times) == {"configs", "parse", "first", "later", "rules"} and min(times.values()) >= 0
    monkeypatch.chdir(root)
    res = lint([Path("benchmarks"), Path("configs")], options=Options(jobs=1))
    assert points == sum(len(f.points) for f in res.files) > len(res.files)


def test_the_simulation_measures_the_drivers_tasks(tmp_path, monkeypatch):
    root = tmp_path / "repo"
    shutil.copytree(FIXTURES / "rules" / "RL5xx", root)
    m = simulate.measure(root)
    assert len(m.warm) == len(m.fresh) == len(m.groups) and sorted(i for g in m.groups for i in g) == list(range(len(m.files)))
    assert len(m.alone) == len(m.evals) == len(m.loads) == len(m.points) == len(m.files) and m.serial >= 0
    monkeypatch.chdir(root)
    res = lint([Path("benchmarks"), Path("configs")], options=Options(jobs=1))
    assert sorted(m.files) == sorted(f.display for f in res.files)
    assert sum(m.points) == sum(len(f.points) for f in res.files)


def test_list_scheduling_hands_each_task_to_the_worker_free_first():
    assert simulate.list_schedule([3, 1, 1, 1], 2) == (3, [3, 3])
    assert simulate.list_schedule([1, 1, 1, 1], 1)[0] == 4
    # more workers than tasks: the longest task is the makespan
    assert simulate.list_schedule([5, 2], 64)[0] == 5
    # a worker's first task at its fresh cost (warm-up), later ones warm
    assert simulate.list_schedule([2, 2, 2], 2, first=[3, 3, 3]) == (5, [5, 3])
    assert simulate.list_schedule([], 4)[0] == 0


def test_driver_chunks_keep_groups_whole_and_put_the_largest_first():
    groups = [[0], [1, 2], [3], [4]]
    sizes = [10, 1, 1, 50, 5]
    # 5 files, 1 job: chunks of up to ceil(5 / 48) = 1 file, a group of 2 stays whole
    assert simulate.driver_chunks(groups, sizes, 1) == [[2], [0], [3], [1]]
    many = [[i] for i in range(200)]
    chunks = simulate.driver_chunks(many, [1] * 200, 2)  # ceil(200 / 96) = 3 files a chunk
    assert max(len(c) for c in chunks) == 3 and sorted(g for c in chunks for g in c) == list(range(200))


def test_speedup_and_efficiency_from_a_makespan():
    o = simulate.outcome(serial=1.0, one_process=9.0, makespan=2.0, workers=4)
    assert (o.wall, o.speedup, o.efficiency) == (3.0, 3.0, 0.75)


def test_point_tasks_share_or_repeat_what_is_not_evaluation():
    assert simulate.point_tasks(11.0, [4.0, 2.0, 2.0], 0.0, pessimistic=False) == [5.0, 3.0, 3.0]
    # pessimistic: each point parses again (1.0) and costs a first evaluation (4.0); the other 2.0 shared
    assert simulate.point_tasks(11.0, [4.0, 2.0, 2.0], 1.0, pessimistic=True) == [5.0 + 2 / 3] * 3
    assert simulate.point_tasks(1.0, [], 0.5, pessimistic=True) == [1.0]


def test_simulate_on_synthetic_measurements():
    m = simulate.Measured(
        startup=0.5,
        serial=0.5,
        files=["a.sh", "b.sh", "c.sh"],
        sizes=[3, 2, 1],
        groups=[[0, 1], [2]],
        warm=[6.0, 2.0],
        fresh=[7.0, 3.0],
        alone=[4.0, 3.0, 2.0],
        evals=[[1.0, 1.0], [1.0], []],
        loads=[0.5, 0.5, 0.5],
        points=[2, 1, 1],
    )
    sim = simulate.simulate(m, (1, 2))
    assert sim["one_process"] == 9.0 and sim["warmup"] == 1.0
    assert sim["splits"]["groups"][1].speedup == 1.0  # one job: no worker, no warm-up
    # two workers: the group of 6 (7 fresh) is the long pole
    assert sim["splits"]["groups"][2].makespan == 7.0
    assert set(sim["splits"]) == {
        "groups",
        "groups LPT",
        "per recipe",
        "per point ideal",
        "per point pessim.",
        "hybrid ideal",
        "hybrid pessim.",
    }
    assert "long pole" in simulate.report(m, sim, cap=1)


def test_bench_edits_and_verdicts():
    text = "#!/bin/bash\nCMD=(\n    vllm serve m\n    --trust-remote-code\n    --port 1\n)\n"
    assert "--trust-remote-code" not in bench_tool.drop_flag_line(text)
    assert bench_tool.drop_flag_line("echo hi\n").endswith("# bench: edited\n")
    assert bench_tool.replace_once("a: [1, 4]", "[1, 4]", "[1, 5]") == "a: [1, 5]"
    assert bench_tool.bump_last_number("conc-list: [1, 4, 8, 16] }", 2) == "conc-list: [1, 4, 8, 18] }"
    r = {"median_s": 0.8, "cpu_s": 4.0}
    assert bench_tool.verdict(r, ("wall", 1.0)).endswith(": met")
    assert bench_tool.verdict(r, ("cpu", 3.0)).endswith("NOT met")
    assert bench_tool.ratio(r, {"median_s": 0.4, "cpu_s": 1.0}, "slower") == "2.0x slower (CPU 4.0x)"
    assert bench_tool.selected(bench_tool.ALL_IDS, "pre-commit-*,tree-cold") == [
        "tree-cold",
        "pre-commit-cold",
        "pre-commit-warm",
        "pre-commit-edited",
    ]
