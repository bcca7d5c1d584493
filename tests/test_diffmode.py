"""``--diff-base``: the findings a change introduced, in real temporary git repositories.

Each case is one of the ways the old line-based filter was wrong (issue 30): a finding anchored
on an unchanged line, a sibling's, a config-driven one, the base branch moving after the fork, a
diff git will not show (``-diff``), a diff line that looks like a header, a shallow clone.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from helpers import git as _git
from typer.testing import CliRunner

from recipelint.cli import app

runner = CliRunner()

AGENTIC = """#!/usr/bin/env bash
ARGS=(
    --tensor-parallel-size "$TP"
    --tool-call-parser deepseek_v4
    --enable-auto-tool-choice
)
vllm serve deepseek-ai/DeepSeek-V4-Pro "${ARGS[@]}" &
"""


def _repo(tmp_path: Path, files: dict[str, str]) -> Path:
    repo = tmp_path / "r"
    for name, text in files.items():
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_text(text)
    _git(repo, "init", "-q", "-b", "main")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "one")
    return repo


def _check(repo: Path, monkeypatch, *args: str) -> list[dict]:
    monkeypatch.chdir(repo)
    r = runner.invoke(app, ["check", "benchmarks", "-o", "json", *args])
    assert r.exit_code in (0, 1), r.output
    return json.loads(r.output)


def _codes(found: list[dict]) -> list[tuple[str, str, int]]:
    return sorted((f["code"], f["location"]["path"], f["location"]["line"]) for f in found)


@pytest.fixture(autouse=True)
def _own_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("RECIPELINT_CACHE_DIR", str(tmp_path / "cache"))


def test_a_flag_dropped_from_an_array_is_reported_on_the_unchanged_launch_line(tmp_path, monkeypatch):
    # the seed's bug: `--enable-auto-tool-choice` deleted; RL201 is anchored on the launch (line 7),
    # a line the change did not touch
    repo = _repo(tmp_path, {"benchmarks/agentic/dsv4_fp4_b200_vllm.sh": AGENTIC})
    assert _check(repo, monkeypatch, "--diff-base", "main") == []
    _git(repo, "checkout", "-qb", "topic")
    rec = repo / "benchmarks/agentic/dsv4_fp4_b200_vllm.sh"
    rec.write_text(AGENTIC.replace("    --enable-auto-tool-choice\n", ""))
    _git(repo, "commit", "-qam", "drop a flag")
    new = _check(repo, monkeypatch, "--diff-base", "main", "--select", "RL201")
    assert _codes(new) == [("RL201", "benchmarks/agentic/dsv4_fp4_b200_vllm.sh", 6)]
    # and the same from the working tree, before any commit (and with the base already cached)
    _git(repo, "reset", "-q", "--hard", "main")
    rec.write_text(AGENTIC.replace("    --enable-auto-tool-choice\n", ""))
    assert _codes(_check(repo, monkeypatch, "--diff-base", "HEAD", "--select", "RL201")) == _codes(new)
    assert _check(repo, monkeypatch, "--diff-base", "HEAD", "--select", "RL201", "--no-cache") == new


SIBLING = """#!/usr/bin/env bash
vllm serve org/model --tensor-parallel-size "$TP" --gpu-memory-utilization 0.9 &
"""


def test_a_change_to_one_sibling_is_reported_on_the_other(tmp_path, monkeypatch):
    repo = _repo(
        tmp_path,
        {"benchmarks/m_fp8_b200_vllm.sh": SIBLING, "benchmarks/m_fp8_b300_vllm.sh": SIBLING},
    )
    _git(repo, "checkout", "-qb", "topic")
    (repo / "benchmarks/m_fp8_b300_vllm.sh").write_text(SIBLING.replace(" &", " --tokenizer org/other-tokenizer &"))
    full = _check(repo, monkeypatch, "--select", "RL401")
    new = _check(repo, monkeypatch, "--select", "RL401", "--diff-base", "main")
    assert new and new == full  # nothing was there before: all of it is new, wherever anchored
    assert any(f["location"]["path"] == "benchmarks/m_fp8_b200_vllm.sh" for f in new) or any(
        r["path"] == "benchmarks/m_fp8_b200_vllm.sh" for f in new for r in f["related"]
    )
    _git(repo, "commit", "-qam", "b300 differs")
    # moved down by an unrelated edit, the difference is the same finding: not new
    _git(repo, "checkout", "-qb", "later")
    for name in ("m_fp8_b200_vllm.sh", "m_fp8_b300_vllm.sh"):
        p = repo / "benchmarks" / name
        p.write_text(p.read_text().replace("#!/usr/bin/env bash\n", "#!/usr/bin/env bash\n# a comment\n\n"))
    assert _check(repo, monkeypatch, "--select", "RL401", "--diff-base", "topic") == []


def test_commits_on_main_after_the_fork_are_not_blamed_on_the_branch(tmp_path, monkeypatch):
    bad = AGENTIC.replace("    --enable-auto-tool-choice\n", "")
    repo = _repo(tmp_path, {"benchmarks/agentic/dsv4_fp4_b200_vllm.sh": bad})
    _git(repo, "checkout", "-qb", "topic")
    (repo / "benchmarks/agentic/notes.sh").write_text("#!/usr/bin/env bash\necho hi\n")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "unrelated")
    _git(repo, "checkout", "-q", "main")
    (repo / "benchmarks/agentic/dsv4_fp4_b200_vllm.sh").write_text(AGENTIC)  # main fixes it
    _git(repo, "commit", "-qam", "fix on main")
    _git(repo, "checkout", "-q", "topic")
    # the branch still has the old bug, which main fixed after the fork: not the branch's doing
    assert _check(repo, monkeypatch, "--select", "RL201", "--diff-base", "main") == []
    assert _check(repo, monkeypatch, "--select", "RL201", "--diff-base", "main...HEAD") == []
    # the whole tree still has it
    assert len(_check(repo, monkeypatch, "--select", "RL201")) == 1


def test_a_config_change_alone_makes_findings_on_unchanged_recipes(tmp_path, monkeypatch):
    recipe = "#!/usr/bin/env bash\nMAX=$((2 * CONC))\nvllm serve org/m --data-parallel-size \"$TP\" --max-num-seqs \"$MAX\" &\n"
    entry = (
        "x-fp8-b200-vllm:\n  image: i\n  model: m\n  model-prefix: x\n  runner: b200\n  precision: fp8\n"
        "  framework: vllm\n  multinode: false\n  scenarios:\n    fixed-seq-len:\n    - isl: 1024\n      osl: 1024\n"
        "      search-space:\n      - { tp: 1, ep: 1, dp-attn: false, conc-list: [16] }\n"
    )
    repo = _repo(
        tmp_path,
        {
            "configs/runners.yaml": "labels:\n  b200: [b200-dgxc_00]\n",
            "configs/t-master.yaml": entry,
            "benchmarks/single_node/fixed_seq_len/x_fp8_b200_vllm.sh": recipe,
        },
    )
    assert _check(repo, monkeypatch, "--select", "RL101", "--diff-base", "HEAD") == []
    (repo / "configs/t-master.yaml").write_text(
        entry + entry.replace("x-fp8-b200-vllm:", "x-fp8-b200-vllm-tp8:").replace("tp: 1", "tp: 8")
    )
    new = _check(repo, monkeypatch, "--select", "RL101", "--diff-base", "HEAD")
    assert [f["location"]["line"] for f in new] == [2] and all("tp8" in p for p in new[0]["points"])


def test_a_diff_git_will_not_show_and_a_line_like_a_header_do_not_blind_it(tmp_path, monkeypatch):
    repo = _repo(
        tmp_path,
        {".gitattributes": "*.sh -diff\n", "benchmarks/agentic/dsv4_fp4_b200_vllm.sh": AGENTIC},
    )
    _git(repo, "config", "diff.noprefix", "true")
    # `git diff` prints "Binary files differ" for these; an added "++ " line read as a file header
    # by a text parser would end the hunk
    (repo / "benchmarks/agentic/dsv4_fp4_b200_vllm.sh").write_text(
        AGENTIC.replace("    --enable-auto-tool-choice\n", "").replace(
            "ARGS=(", "cat <<'EOF' >/dev/null\n++ b/notes\nEOF\nARGS=("
        )
    )
    new = _check(repo, monkeypatch, "--select", "RL201", "--diff-base", "HEAD")
    assert [f["code"] for f in new] == ["RL201"]


def test_a_renamed_recipe_keeps_its_old_findings_old(tmp_path, monkeypatch):
    bad = AGENTIC.replace("    --enable-auto-tool-choice\n", "")
    repo = _repo(tmp_path, {"benchmarks/agentic/a_fp4_b200_vllm.sh": bad})
    _git(repo, "mv", "benchmarks/agentic/a_fp4_b200_vllm.sh", "benchmarks/agentic/b_fp4_b200_vllm.sh")
    assert len(_check(repo, monkeypatch, "--select", "RL201")) == 1
    assert _check(repo, monkeypatch, "--select", "RL201", "--diff-base", "HEAD") == []


def test_a_shallow_clone_without_the_base_says_what_to_fetch(tmp_path, monkeypatch):
    repo = _repo(tmp_path, {"benchmarks/agentic/dsv4_fp4_b200_vllm.sh": AGENTIC})
    (repo / "benchmarks/agentic/dsv4_fp4_b200_vllm.sh").write_text(AGENTIC + "# two\n")
    _git(repo, "commit", "-qam", "two")
    shallow = tmp_path / "shallow"
    subprocess.run(["git", "clone", "-q", "--depth", "1", f"file://{repo}", str(shallow)], check=True, capture_output=True)
    monkeypatch.chdir(shallow)
    r = runner.invoke(app, ["check", "benchmarks", "--diff-base", "HEAD~1"])
    lines = r.output.strip().splitlines()
    assert r.exit_code == 2 and len(lines) == 1 and "shallow" in lines[0] and "fetch-depth: 0" in lines[0], r.output


@pytest.mark.parametrize(
    ("spec", "needle"),
    [("-x", "not a revision"), ("nope", "not a commit"), ("main..HEAD", "A...B"), ("HEAD...nope", "not a commit")],
)
def test_bad_revisions_are_one_line_errors(tmp_path, monkeypatch, spec, needle):
    repo = _repo(tmp_path, {"benchmarks/agentic/dsv4_fp4_b200_vllm.sh": AGENTIC})
    monkeypatch.chdir(repo)
    r = runner.invoke(app, ["check", "benchmarks", "--diff-base", spec])
    assert r.exit_code == 2 and needle in r.output and len(r.output.strip().splitlines()) == 1, r.output


def test_the_base_is_exported_without_running_anything_or_leaving_the_tree(tmp_path, monkeypatch):
    from recipelint.gitdiff import base_tree

    repo = _repo(tmp_path, {"benchmarks/a.sh": "echo a\n", "big.bin": "x" * (2 << 20), "small.bin": "y"})
    (repo / "benchmarks" / "out").symlink_to("/etc/passwd")
    (repo / "benchmarks" / "in").symlink_to("a.sh")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "links")
    bt = base_tree("HEAD", repo / "benchmarks", None)
    try:
        names = sorted(p.relative_to(bt.dir).as_posix() for p in bt.dir.rglob("*"))
        # no 2 MiB .bin (a small one is kept: rules read files of any kind), no link out of the tree
        assert names == ["benchmarks", "benchmarks/a.sh", "benchmarks/in", "small.bin"]
        assert (bt.dir / "benchmarks/in").resolve() == (bt.dir / "benchmarks/a.sh").resolve()
    finally:
        bt.cleanup()
    assert not bt.dir.exists()


def test_changes_lists_what_the_change_does_to_the_launches(tmp_path, monkeypatch):
    recipe = (
        "#!/usr/bin/env bash\nexport VLLM_RPC_TIMEOUT=600\nexport RESULT_DIR=/r\n"
        'vllm serve org/m --max-num-seqs "$((2 * CONC))" --enable-prefix-caching &\n'
    )
    entry = (
        "x-fp8-b200-vllm:\n  image: i\n  model: m\n  model-prefix: x\n  runner: b200\n  precision: fp8\n"
        "  framework: vllm\n  multinode: false\n  scenarios:\n    fixed-seq-len:\n    - isl: 1024\n      osl: 1024\n"
        "      search-space:\n      - { tp: 8, ep: 1, dp-attn: false, conc-list: [8, 16] }\n"
    )
    repo = _repo(
        tmp_path,
        {
            "configs/runners.yaml": "labels:\n  b200: [b200-dgxc_00]\n",
            "configs/t-master.yaml": entry,
            "benchmarks/single_node/fixed_seq_len/x_fp8_b200_vllm.sh": recipe,
            "benchmarks/single_node/fixed_seq_len/y_fp8_b200_vllm.sh": recipe,
        },
    )
    (repo / "benchmarks/single_node/fixed_seq_len/x_fp8_b200_vllm.sh").write_text(
        recipe.replace("2 * CONC", "4 * CONC")
        .replace(" --enable-prefix-caching", "")
        .replace("=600", "=900")
        .replace("RESULT_DIR=/r", "RESULT_DIR=/s\nexport NCCL_P2P_DISABLE=1")
    )
    (repo / "configs/t-master.yaml").write_text(entry.replace("[8, 16]", "[8, 16, 32]"))
    monkeypatch.chdir(repo)
    r = runner.invoke(app, ["changes", "--base", "HEAD", "benchmarks"])
    assert r.exit_code == 0, r.output
    lines = r.output.splitlines()
    assert lines[0].startswith("Serve commands changed since ")
    assert "benchmarks/single_node/fixed_seq_len/x_fp8_b200_vllm.sh" in lines and not any("y_fp8" in ln for ln in lines)
    assert any(ln.strip().startswith("--max-num-seqs 16 → 32   at t-master.yaml:") and ln.endswith("conc 8") for ln in lines), (
        r.output
    )
    assert any(ln.strip().startswith("- --enable-prefix-caching   at") and "conc 8,16" in ln for ln in lines), r.output
    assert sum("sweep points added" in ln and "conc 32" in ln for ln in lines) == 1, r.output
    # engine variables of the launch's environment are compared too; harness variables are not
    assert any(ln.strip().startswith("$VLLM_RPC_TIMEOUT 600 → 900   at") for ln in lines), r.output
    assert any(ln.strip().startswith("+ export NCCL_P2P_DISABLE=1   at") for ln in lines), r.output
    assert not any("RESULT_DIR" in ln for ln in lines), r.output
    r = runner.invoke(app, ["changes", "--base", "nope", "benchmarks"])
    assert r.exit_code == 2 and "--base" in r.output


def test_changes_as_a_step_summary_section(tmp_path):
    from recipelint.lint.changes import RecipeChanges
    from recipelint.report.changes import render_markdown

    rc = RecipeChanges("benchmarks/a_b200.sh")
    rc.changes[("--max-num-seqs", "--max-num-seqs 16 → 32")] = ["t-master.yaml:3:tp8-ep1-dpafalse conc 8"]
    rc.points_added = ["t-master.yaml:3:tp8-ep1-dpafalse conc 32"]
    text = render_markdown("0123456789abcdef", [rc, RecipeChanges("benchmarks/b|c.sh", new_file=True)])
    assert "from the merge base `0123456789ab`:" in text
    assert "| `--max-num-seqs 16 → 32` | t-master.yaml:3:tp8-ep1-dpafalse conc 8 |" in text, text
    assert "| `sweep points added` | t-master.yaml:3:tp8-ep1-dpafalse conc 32 |" in text
    assert "**benchmarks/b\\|c.sh** (new recipe)" in text  # a cell's | is escaped
    assert "No serve command changed since `0123456789ab`." in render_markdown("0123456789abcdef", [])
    many = render_markdown("0" * 40, [RecipeChanges(f"r{i}.sh", new_file=True) for i in range(60)], limit=50)
    assert many.count("(new recipe)") == 50 and "… and 10 more recipes" in many


def test_the_base_export_drops_links_that_leave_it_through_other_links(tmp_path):
    """Each link alone stays in the tree, but `d/esc -> up/..` goes through `d/up -> ..` and out
    of the export (issue 49, item 5): resolved against the export's root, it is dropped; the
    links that stay inside are kept."""
    from recipelint.gitdiff import base_tree

    repo = _repo(tmp_path, {"benchmarks/a.sh": "echo a\n"})
    (repo / "d").mkdir()
    (repo / "d" / "up").symlink_to("..")
    (repo / "d" / "esc").symlink_to("up/..")
    (repo / "d" / "ok").symlink_to("up/benchmarks/a.sh")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "chains")
    bt = base_tree("HEAD", repo / "benchmarks", None)
    try:
        d = bt.dir / "d"
        assert (d / "up").is_symlink() and (d / "ok").is_symlink()
        assert not (d / "esc").is_symlink() and not (d / "esc").exists()
        assert (d / "ok").resolve() == (bt.dir / "benchmarks" / "a.sh").resolve()
    finally:
        bt.cleanup()


def test_no_filter_driver_of_the_repository_runs(tmp_path, monkeypatch):
    """A committed `.gitattributes` selecting `filter=evil`, with `filter.evil.clean` in the
    repository's config, ran that program when diff mode compared the work tree (`git diff REV`)
    (issue 49, item 2): every filter driver is switched off for recipelint's git calls."""
    import os

    marker = tmp_path / "PWNED"
    repo = _repo(
        tmp_path,
        {
            "benchmarks/r.sh": "#!/usr/bin/env bash\nvllm serve org/m --tensor-parallel-size 8 &\n",
            ".gitattributes": "*.sh filter=evil\n",
        },
    )
    _git(repo, "config", "filter.evil.clean", f'sh -c "touch {marker}; cat"')
    _git(repo, "config", "filter.evil.process", f'sh -c "touch {marker}"')
    _git(repo, "config", "filter.evil.required", "true")
    r = repo / "benchmarks" / "r.sh"
    r.write_text("#!/usr/bin/env bash\nvllm serve org/m --tensor-parallel-size 4 --bogus 1 &\n")
    os.utime(r, (1_000_000_000, 1_000_000_000))  # (git must hash it: the stat data differs)
    got = _check(repo, monkeypatch, "--diff-base", "HEAD")
    assert [f["code"] for f in got] == ["RL601"]  # the change is still seen
    assert not marker.exists()
