"""check --add-suppressions: a comment per finding, where bash keeps it a comment, verified by
linting again; files where the comments would not do exactly their job are left as they were."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from typer.testing import CliRunner

from recipelint.bash.source import Span
from recipelint.cli import app
from recipelint.lint.addsuppress import REASON, FileEdit, Outcome, plan, verify
from recipelint.lint.findings import Finding

runner = CliRunner()
SEED = Path(__file__).resolve().parent.parent / "fixtures" / "seed"


def _lines(edit) -> list[str]:
    return edit.data.decode().split("\n")


def test_end_of_line_where_bash_allows_a_comment():
    e = plan(b"A=1\nMAX=$((2 * CONC))\necho $MAX\n", {2: {"RL101"}})
    assert _lines(e)[1] == f"MAX=$((2 * CONC))  # recipelint: ignore[RL101] {REASON}"
    assert e.placed == {2: ["RL101"]} and not e.unplaced and e.added_lines == 0


def test_a_continued_line_gets_a_comment_above_its_statement():
    text = b"set -e\n  vllm serve m \\\n    --a 1 \\\n    --b 2\necho done\n"
    e = plan(text, {3: {"RL401"}, 4: {"RL201"}})
    lines = _lines(e)
    # line 3 ends with a backslash; line 4 is the command's last line, where a comment is fine
    assert lines[1] == f"  # recipelint: ignore[RL401] {REASON}"
    assert lines[2] == "  vllm serve m \\"
    assert lines[4].startswith("    --b 2  # recipelint: ignore[RL201]")


def test_here_document_lines_and_multi_line_strings_are_text():
    text = b'X=$(cat <<EOF\n{"lazy": false}\nEOF\n)\nY="a\nb"\n'
    e = plan(text, {2: {"RL301"}, 5: {"RL305"}})
    lines = _lines(e)
    assert lines[0].startswith("# recipelint: ignore[RL301]") and lines[2] == '{"lazy": false}'
    assert lines[5].startswith("# recipelint: ignore[RL305]") and lines[6] == 'Y="a'


def test_codes_join_a_directive_already_on_the_line():
    e = plan(b"vllm serve m &  # recipelint: ignore[RL201] tools unused\n", {1: {"RL401"}})
    assert _lines(e)[0] == "vllm serve m &  # recipelint: ignore[RL201, RL401] tools unused"


def test_no_place_means_unplaced():
    # a here-document line of a statement that does not start its line
    e = plan(b"true; cat <<EOF\nbody\nEOF\n", {2: {"RL101"}})
    assert e.unplaced == [2] and not e.placed


def _seed(tmp_path: Path) -> Path:
    root = tmp_path / "seed"
    shutil.copytree(SEED, root, ignore=shutil.ignore_patterns("expected.*"))
    (root / ".git").mkdir()
    return root


def test_the_seed_tree_is_clean_after_it_and_bash_still_parses_it(tmp_path, monkeypatch):
    root = _seed(tmp_path)
    # on vLLM 0.21.0, where RL301 reports the here-document's `lazy_offload` line and the B300
    # sibling's connector JSON without the key (eager by default) (the seed's own image, a nightly
    # after 0.22.1, is not reported)
    cfg = root / "configs/nvidia-master.yaml"
    cfg.write_text(cfg.read_text().replace("nightly-dev-x86_64-cu13.0.1-515d6e9", "v0.21.0"))
    monkeypatch.chdir(root)
    r = runner.invoke(app, ["check", "benchmarks", "configs", "--add-suppressions", "--no-cache"])
    assert r.exit_code == 0, r.output
    assert "added suppression comments on 5 lines in 2 files" in r.stderr, r.stderr
    after = runner.invoke(app, ["check", "benchmarks", "configs", "-o", "concise", "--no-cache"])
    assert after.exit_code == 0 and "All checks passed" in after.stdout, after.output
    recipe = root / "benchmarks/single_node/agentic/dsv4_fp4_b200_vllm.sh"
    assert subprocess.run(["bash", "-n", str(recipe)]).returncode == 0
    text = recipe.read_text()
    # the here-document stays JSON: the comment for its line is above the statement
    assert '    "lazy_offload": false\n' in text
    assert f"        # recipelint: ignore[RL301] {REASON}\n        OFFLOAD_CONFIG=$(cat <<EOF\n" in text
    assert f'"${{VLLM_CMD[@]}}" > "$SERVER_LOG" 2>&1 &  # recipelint: ignore[RL401] {REASON}\n' in text
    # the dropped tool-calling flags (RL401, with RL201 as its note: one defect) point at the
    # command's first word, in the array: the comment goes there, and suppresses both rules' view
    assert f'    vllm serve "$MODEL" --served-model-name "$MODEL"  # recipelint: ignore[RL401] {REASON}\n' in text
    # run again: nothing left to add, nothing changes
    again = runner.invoke(app, ["check", "benchmarks", "configs", "--add-suppressions", "--no-cache"])
    assert "on 0 lines in 0 files" in again.stderr and recipe.read_text() == text


def test_config_findings_are_listed_for_the_baseline(tmp_path, monkeypatch):
    root = _seed(tmp_path)
    cfg = root / "configs/nvidia-master.yaml"
    first = cfg.read_text().split("\n\n")[0].split("\n", 2)[2]  # the first entry, without the header
    ghost = first.replace("dsv4-fp4-b200", "ghost-fp4-b200").replace("model-prefix: dsv4", "model-prefix: ghost")
    cfg.write_text(cfg.read_text() + "\n" + ghost + "\n")
    monkeypatch.chdir(root)
    before = runner.invoke(app, ["check", "configs", "benchmarks", "-o", "concise", "--no-cache"])
    assert "RL506" in before.stdout, before.stdout
    r = runner.invoke(app, ["check", "configs", "benchmarks", "--add-suppressions", "--no-cache"])
    assert r.exit_code == 0
    assert "1 finding cannot take a comment (use --write-baseline" in r.stderr and "RL506" in r.stderr, r.stderr
    assert "recipelint: ignore" not in cfg.read_text()


def test_verify_puts_back_a_file_whose_comments_did_not_work(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    p = tmp_path / "r.sh"
    p.write_bytes(b"edited\n")
    f = Finding("RL101", "rule-name", "warning", "m", Span("r.sh", 1, 1, 1, 2), key="k")
    out = Outcome(edits={"r.sh": (b"original\n", FileEdit(b"edited\n", placed={1: ["RL101"]}))})
    verify(out, [f], [f])  # still reported after the edit
    assert p.read_bytes() == b"original\n" and out.reverted == ["r.sh"] and out.unplaced == [f]


def test_not_with_diff_mode():
    r = runner.invoke(app, ["check", "--add-suppressions", "--diff-base", "HEAD"])
    assert r.exit_code == 2 and "not with --diff-base" in r.stderr


def test_a_linked_recipe_is_edited_at_its_target_inside_the_tree_and_never_outside(tmp_path, monkeypatch):
    """`--add-suppressions` through links (issue 49): a link to a recipe of the tree gets the
    comment in its target and stays a link; a link out of the tree, or into `.git/`, is not
    edited (it used to be replaced by a regular-file copy of its target — `.git/config` included)."""
    import os

    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / ".git" / "config").write_text("[core]\n\tbare = false\n")
    body = "#!/usr/bin/env bash\nvllm serve org/m --no-such-flag 1 &\n"
    (repo / "real.sh").write_text(body)
    (repo / "alias.sh").symlink_to("real.sh")
    outside = tmp_path / "outside.sh"
    outside.write_text(body)
    (repo / "out.sh").symlink_to(outside)
    (repo / "cfg.sh").symlink_to(".git/config")
    monkeypatch.chdir(repo)
    r = runner.invoke(app, ["check", "alias.sh", "out.sh", "cfg.sh", "--add-suppressions", "--no-cache"])
    assert r.exit_code == 0, r.output
    assert os.path.islink(repo / "alias.sh") and "recipelint: ignore[RL601]" in (repo / "real.sh").read_text()
    assert os.path.islink(repo / "out.sh") and outside.read_text() == body
    assert "out.sh: not edited: a link whose target is not edited" in r.output
    assert os.path.islink(repo / "cfg.sh") and (repo / ".git" / "config").read_text() == "[core]\n\tbare = false\n"
