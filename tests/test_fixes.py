"""``check --fix`` / ``--unsafe-fixes`` / ``--diff`` (issue 48, item 4) and one finding per defect
(item 2): the seed review's recipe fixed as the review asked, each safe fix on its rule's shape,
and every guard of ``lint.fixes`` (a stale edit, bash -n, a fix that does not remove its finding,
a link out of the tree)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

from typer.testing import CliRunner

from recipelint.bash.source import Span
from recipelint.cli import app
from recipelint.lint import fixes
from recipelint.lint.findings import Edit, Finding, Fix, Related, merge_defects

runner = CliRunner()
SEED = Path(__file__).resolve().parent.parent / "fixtures" / "seed"
B200 = "benchmarks/single_node/agentic/dsv4_fp4_b200_vllm.sh"


def _seed(tmp_path: Path) -> Path:
    root = tmp_path / "seed"
    shutil.copytree(SEED, root, ignore=shutil.ignore_patterns("expected.*"))
    (root / ".git").mkdir()  # (the project's root)
    return root


def test_unsafe_fixes_restore_what_the_review_asked_for(tmp_path, monkeypatch):
    root = _seed(tmp_path)
    monkeypatch.chdir(root)
    before = (root / B200).read_text()
    r = runner.invoke(app, ["check", ".", "--fix", "--unsafe-fixes", "--no-cache", "-o", "concise"])
    assert r.exit_code == 0, r.output
    assert "fixed 3 findings in 1 file" in r.stderr and "All checks passed" in r.stdout
    text = (root / B200).read_text()
    assert text != before
    # the tool-calling flags, where the sibling writes them (after --tokenizer-mode)
    assert "    --tokenizer-mode deepseek_v4\n    --tool-call-parser deepseek_v4\n    --enable-auto-tool-choice\n" in text
    # per-rank sizing in the family's own form (the sibling's if/else, in place of the one line)
    assert 'if [ "$DP_ATTENTION" = "true" ]; then\n' in text and "    MAX_NUM_SEQS=$((2 * CONC / TP))\nelse\n" in text
    assert "\nMAX_NUM_SEQS=$((2 * CONC))\n" not in text
    # the sibling's guard, with its comment
    assert "[ $((2 * CONC % TP)) -ne 0 ]; then" in text
    assert subprocess.run(["bash", "-n", str(root / B200)]).returncode == 0
    # the sibling is untouched
    assert (root / "benchmarks/single_node/agentic/dsv4_fp4_b300_vllm.sh").read_text() == (
        SEED / "benchmarks/single_node/agentic/dsv4_fp4_b300_vllm.sh"
    ).read_text()


def test_fix_alone_applies_no_unsafe_fix_and_says_so(tmp_path, monkeypatch):
    root = _seed(tmp_path)
    monkeypatch.chdir(root)
    before = (root / B200).read_bytes()
    r = runner.invoke(app, ["check", ".", "--fix", "--no-cache", "-o", "concise"])
    assert r.exit_code == 1
    assert "fixed 0 findings in 0 files (3 more with --unsafe-fixes)" in r.stderr
    assert (root / B200).read_bytes() == before


def test_diff_writes_nothing_and_shows_the_change(tmp_path, monkeypatch):
    root = _seed(tmp_path)
    monkeypatch.chdir(root)
    before = (root / B200).read_bytes()
    r = runner.invoke(app, ["check", ".", "--diff", "--unsafe-fixes", "--no-cache"])
    assert r.exit_code == 1
    assert f"--- a/{B200}\n+++ b/{B200}\n" in r.stdout
    assert "+    --tool-call-parser deepseek_v4\n" in r.stdout and "-MAX_NUM_SEQS=$((2 * CONC))\n" in r.stdout
    assert (root / B200).read_bytes() == before
    clean = runner.invoke(app, ["check", "benchmarks/single_node/agentic/dsv4_fp4_b300_vllm.sh", "--diff", "--no-cache"])
    assert clean.exit_code == 0 and clean.stdout == ""


def test_usage_errors(tmp_path, monkeypatch):
    root = _seed(tmp_path)
    monkeypatch.chdir(root)
    r = runner.invoke(app, ["check", ".", "--unsafe-fixes"])
    assert r.exit_code == 2 and "--unsafe-fixes goes with --fix" in r.output
    r = runner.invoke(app, ["check", ".", "--fix", "--diff-base", "HEAD"])
    assert r.exit_code == 2 and "not with --diff-base" in r.output


def test_the_full_format_shows_each_fix_and_the_count():
    r = runner.invoke(app, ["check", str(SEED), "--no-cache"])
    assert (
        "   = fix: add `--tool-call-parser deepseek_v4 --enable-auto-tool-choice` after `--tokenizer-mode` (line 74)" in r.output
    )
    assert r.output.rstrip().endswith("3 fixable with `--fix --unsafe-fixes`.")


# -- the safe fixes, one per shape --------------------------------------------------------------
def _fix_file(tmp_path, monkeypatch, name: str, data: bytes, *extra: str) -> tuple[bytes, str]:
    (tmp_path / ".git").mkdir(exist_ok=True)
    p = tmp_path / name
    p.write_bytes(data)
    monkeypatch.chdir(tmp_path)
    r = runner.invoke(app, ["check", name, "--fix", "--no-cache", "-o", "concise", *extra])
    return p.read_bytes(), r.stderr


def test_safe_fix_crlf_file(tmp_path, monkeypatch):
    got, err = _fix_file(tmp_path, monkeypatch, "w.sh", b"#!/bin/bash\r\nTP=8\r\nvllm serve m --tensor-parallel-size $TP\r\n")
    assert got == b"#!/bin/bash\nTP=8\nvllm serve m --tensor-parallel-size $TP\n" and "fixed 1 finding" in err


def test_crlf_in_some_lines_only_is_not_fixed(tmp_path, monkeypatch):
    data = b"#!/bin/bash\nX='a\r\nb'\r\nvllm serve m\n"
    got, _ = _fix_file(tmp_path, monkeypatch, "m.sh", data)
    assert got == data  # (a carriage return may be data: which ones to drop is a choice)


def test_safe_fix_heredoc_terminator(tmp_path, monkeypatch):
    data = b"#!/bin/bash\ncat > c.yaml <<EOF\nmax-num-seqs: 256\n  EOF\nvllm serve m --config c.yaml\n"
    got, err = _fix_file(tmp_path, monkeypatch, "h.sh", data)
    assert got == data.replace(b"\n  EOF\n", b"\nEOF\n") and "fixed 1 finding" in err


def test_safe_fix_blank_after_backslash(tmp_path, monkeypatch):
    data = b'#!/bin/bash\nvllm serve m \\ \n    --max-num-seqs 8 &\n'
    got, err = _fix_file(tmp_path, monkeypatch, "b.sh", data)
    assert got == b'#!/bin/bash\nvllm serve m \\\n    --max-num-seqs 8 &\n' and "fixed 1 finding" in err


def test_safe_fix_json_boolean(tmp_path, monkeypatch):
    data = (
        b"#!/bin/bash\nvllm serve m --kv-transfer-config "
        b'\'{"kv_connector":"SimpleCPUOffloadConnector","kv_role":"kv_both","kv_connector_extra_config":{"lazy_offload":"false"}}\'\n'
    )
    got, err = _fix_file(tmp_path, monkeypatch, "j.sh", data, "--select", "RL303")
    assert b'"lazy_offload":false}' in got and "fixed 1 finding" in err


# -- the guards of lint.fixes -------------------------------------------------------------------
def _finding(path: Path, edits: list[Edit], code="RL009", applicability="safe") -> Finding:
    sp = Span(str(path), 1, 1, 1, 1)
    return Finding(code, "x", "error", "m", sp, key="k", fix=Fix("t", edits, applicability))


def _edit(path: Path, start: int, end: int, old: str, new: str) -> Edit:
    return Edit(str(path), start, end, old, new, Span(str(path), 1, start + 1, 1, end + 1))


def _plan(p: Path, *found: Finding, unsafe: bool = False):
    """``fixes.plan`` of ``found`` on a file ``p`` reading ``echo one``: (the plan, the outcome)."""
    p.write_text("echo one\n")
    out = fixes.Outcome()
    return fixes.plan(list(found), unsafe, out), out


def test_a_stale_edit_is_not_applied(tmp_path):
    p = tmp_path / "a.sh"
    plan, out = _plan(p, _finding(p, [_edit(p, 5, 8, "two", "three")]))
    assert plan == {} and out.skipped[0][1] == "the file changed since it was checked"


def test_a_result_bash_rejects_is_not_applied(tmp_path):
    p = tmp_path / "a.sh"
    plan, out = _plan(p, _finding(p, [_edit(p, 5, 8, "one", "'one")]))
    assert plan == {} and out.skipped[0][1] == "bash -n rejects the result"


def test_overlapping_fixes_keep_the_first(tmp_path):
    p = tmp_path / "a.sh"
    a = _finding(p, [_edit(p, 5, 8, "one", "two")])
    b = _finding(p, [_edit(p, 5, 8, "one", "three")], code="RL010")
    plan, out = _plan(p, a, b)
    assert [f.code for f, _ in plan[p][1]] == ["RL009"] and out.skipped == [(b, "another fix edits the same text")]


def test_unsafe_fixes_wait_for_the_option(tmp_path):
    p = tmp_path / "a.sh"
    plan, out = _plan(p, _finding(p, [_edit(p, 5, 8, "one", "two")], applicability="unsafe"))
    assert plan == {} and out.needs_unsafe == 1


def test_two_insertions_at_one_place_are_both_made_in_order(tmp_path):
    p = tmp_path / "a.sh"
    a = _finding(p, [_edit(p, 8, 8, "", " two")])
    b = _finding(p, [_edit(p, 8, 8, "", " three")], code="RL010")
    plan, out = _plan(p, a, b)
    assert plan[p][1][-1][1] == b"echo one two three\n" and out.skipped == []


def test_a_fix_that_leaves_its_finding_is_put_back(tmp_path):
    p = tmp_path / "a.sh"
    p.write_text("echo one\n")
    f = _finding(p, [_edit(p, 5, 8, "one", "two")])
    out = fixes.apply([f], False, write=True, relint=lambda paths: [f])  # (linting again: still there)
    assert p.read_text() == "echo one\n" and out.fixed == 0
    assert out.skipped == [(f, "linting again, the finding is still there or another appeared")]


def test_a_fix_through_a_link_out_of_the_tree_is_not_applied(tmp_path):
    (tmp_path / "repo" / ".git").mkdir(parents=True)
    outside = tmp_path / "outside.sh"
    outside.write_text("echo one\n")
    link = tmp_path / "repo" / "a.sh"
    os.symlink(outside, link)
    out = fixes.Outcome()
    plan = fixes.plan([_finding(link, [_edit(link, 5, 8, "one", "two")])], False, out)
    assert plan == {} and outside.read_text() == "echo one\n" and "link" in out.skipped[0][1]


# -- one finding per defect ---------------------------------------------------------------------
def _ev(code: str, severity: str, line: int, defects=("missing|a.sh:1|--x",), fix=None, path="a.sh") -> Finding:
    return Finding(
        code, code.lower(), severity, f"{code} headline: do this", Span(path, line, 1, line, 2), ["p1"], defects=defects, fix=fix
    )


def test_two_rules_on_one_defect_are_one_finding():
    a, b = _ev("RL201", "info", 5), _ev("RL401", "warning", 5)
    (one,) = merge_defects([a, b])
    assert one.code == "RL401" and one.merged == (("RL201", 5),)
    assert [r.message for r in one.related] == ["also RL201 rl201: RL201 headline: do this"]


def test_a_family_fix_wins_at_equal_severity():
    fam = Fix("add", [], "unsafe", follows="x_b300.sh")
    a, b = _ev("RL201", "info", 5, fix=Fix("add", [], "unsafe")), _ev("RL401", "info", 5, fix=fam)
    (one,) = merge_defects([a, b])
    assert one.code == "RL401" and one.fix is fam


def test_other_defects_and_other_files_stay_apart():
    a = _ev("RL201", "info", 5)
    b = _ev("RL401", "warning", 5, defects=("missing|a.sh:1|--y",))
    c = _ev("RL401", "warning", 5, path="b.sh")
    assert len(merge_defects([a, b, c])) == 3
    assert merge_defects([_ev("RL101", "warning", 3, defects=())])[0].related == [] and Related


def test_a_suppression_of_either_rule_suppresses_the_defect(tmp_path, monkeypatch):
    root = _seed(tmp_path)
    monkeypatch.chdir(root)
    p = root / B200
    text = p.read_text().replace(
        '    vllm serve "$MODEL" --served-model-name "$MODEL"\n',
        '    vllm serve "$MODEL" --served-model-name "$MODEL"  # recipelint: ignore[RL201] the eval client is not run here\n',
    )
    p.write_text(text)
    r = runner.invoke(app, ["check", B200, "--no-cache", "-o", "concise"])
    assert "lacks `--tool-call-parser" not in r.stdout and "RL002" not in r.stdout, r.stdout


def test_only_a_guard_that_tests_and_stops_is_copied():
    """A sibling's "guard" that patches the engine (`patch … || exit 1`, PR 2124 of InferenceX) is
    not copied into the recipe by the fix: copying it would apply the patch there too."""
    from recipelint.rules.rl401_sibling_parity import _plain_guard

    assert _plain_guard('# why\nif [ "$DP" = "true" ] && [ $((2 * CONC % TP)) -ne 0 ]; then\n    echo "no" >&2\n    exit 1\nfi\n')
    assert _plain_guard("if (( N <= 0 )); then\n    printf 'bad\\n' >&2; exit 2\nfi\n")
    assert not _plain_guard('if ! patch -p1 -d "$SITE" < "$PATCH"; then\n    exit 1\nfi\n')
    assert not _plain_guard('if [ -z "$X" ]; then\n    curl -fsSL https://example.com/x.sh | bash\n    exit 1\nfi\n')
    assert not _plain_guard('SITE_PACKAGES=$(python3 -c "import x")\n')


def test_safe_fix_byte_units_writes_the_bytes(tmp_path, monkeypatch):
    """RL306: `"${PER_RANK_GB}GB"` (read as GiB) becomes `"${PER_RANK_GB}000000000"`, the byte count
    of the decimal-GB share at every sweep point; linting again, the finding is gone."""
    from test_rules import fixture_points

    from recipelint.lint.check import lint

    (tmp_path / ".git").mkdir()
    src = Path(__file__).resolve().parent.parent / "fixtures" / "rules" / "RL306" / "byte_units.sh"
    p = tmp_path / "byte_units.sh"
    p.write_bytes(src.read_bytes())
    monkeypatch.chdir(tmp_path)

    def relint(paths):
        return lint(paths, points_for=fixture_points).all_findings

    found = relint([Path("byte_units.sh")])
    fixable = [f for f in found if f.code == "RL306" and f.fix is not None]
    assert len(fixable) == 1 and fixable[0].fix.applicability == "safe"
    out = fixes.apply(found, False, write=True, relint=relint)
    assert out.fixed == 1, out.skipped
    assert '"global_segment_size": "${PER_RANK_GB}000000000",' in p.read_text()
    assert subprocess.run(["bash", "-n", str(p)]).returncode == 0
