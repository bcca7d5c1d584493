"""Hostile and bad input through `recipelint check`, end to end: every case gives findings or a
one-line error with exit status 2 — never a traceback, never a hang."""

from __future__ import annotations

import os
import re
import sys

import pytest
from helpers import CountingAnalyzer, emits
from typer.testing import CliRunner

from recipelint.cli import app
from recipelint.evaluate.state import Limits

runner = CliRunner()


def check(*args, cwd=None):
    r = runner.invoke(app, ["check", "--no-cache", "-o", "concise", *map(str, args)], catch_exceptions=True)
    assert r.exception is None or isinstance(r.exception, SystemExit), f"exception escaped: {r.exception!r}"
    assert "Traceback" not in r.output
    assert r.exit_code in (0, 1, 2), r.output
    if r.exit_code == 2:
        lines = [ln for ln in r.output.splitlines() if ln.strip()]
        assert len(lines) == 1 and lines[0].startswith("recipelint: "), r.output
    return r


def codes(r) -> list[str]:
    return re.findall(r"^\S.*?:\d+:\d+: \w+\[(RL\d{3})\] ", r.output, re.M)


# Bounds are asserted on work (evaluation steps, bytes, executed lines, characters given to a
# regex engine), counted the same on any machine under any load; how fast it goes is bench/'s.


def _within_steps(an: CountingAnalyzer) -> None:
    """Every sweep point stopped within the (default) step limit: ``run_node`` refuses every
    statement past ``max_steps``, so what may be counted past it is the bulk of the one statement
    that crossed it (its words, its values' KiB): measured up to 31,000, far less than another
    ``max_steps``."""
    assert an.steps and max(an.steps) <= 2 * Limits().max_steps, an.steps


def _executed_lines(fn) -> int:
    """The Python lines ``fn()`` executes (every loop iteration and generator step counts)."""
    count = 0

    def tracer(frame, event, arg):
        nonlocal count
        count += 1
        return tracer

    before = sys.gettrace()
    sys.settrace(tracer)
    try:
        fn()
    finally:
        sys.settrace(before)
    return count


def _peak_bytes(fn) -> int:
    """The most memory Python held while ``fn()`` ran (tracemalloc: deterministic sizes)."""
    import tracemalloc

    tracemalloc.start()
    try:
        fn()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_binary_file_is_a_finding(tmp_path):
    p = tmp_path / "bin.sh"
    p.write_bytes(b"\x7fELF\x00\x01\x02" + bytes(range(256)) * 10)
    assert codes(check(p)) == ["RL003"]


def test_non_utf8_is_a_finding_with_its_line(tmp_path):
    p = tmp_path / "latin.sh"
    p.write_bytes(b"echo ok\nvllm serve caf\xe9\n")
    r = check(p)
    assert codes(r) == ["RL003"] and "latin.sh:2" in r.output


def test_empty_file_passes(tmp_path):
    p = tmp_path / "empty.sh"
    p.write_bytes(b"")
    assert check(p).exit_code == 0


def test_ten_megabyte_script(tmp_path):
    # ~145,000 statements, ~730,000 syntax nodes: beyond MAX_NODES, so one RL003 finding instead of
    # gigabytes of tree; a script under the bounds (below) is analysed
    p = tmp_path / "big.sh"
    line = b'echo "padding padding padding padding padding padding padding padding"\n'
    p.write_bytes(line * (10 * 1024 * 1024 // len(line)) + b"vllm serve m --max-num-seqs 8\n")
    r = check(p, "-o", "concise")
    assert r.exit_code == 1
    assert "big.sh:1:1: error[RL003] unreadable-file: " in r.output and "syntax nodes, more than the 500,000" in r.output


def test_two_million_lines_are_refused_before_parsing(tmp_path):
    # tree-sitter's own tree of two million statements takes 1 GB: refused on the line count
    p = tmp_path / "lines.sh"
    p.write_bytes(b"echo a\n" * 2_000_000)
    r = check(p, "-o", "concise")
    assert r.exit_code == 1 and "2,000,000 lines, more than the 200,000 recipelint analyses: not analysed" in r.output


def test_a_long_script_under_the_bounds_is_analysed(tmp_path):
    p = tmp_path / "long.sh"
    p.write_bytes(b"echo padding\n" * 40_000 + b"vllm serve m --max-num-seqs 8 --max-num-seqs 16\n")
    r = check(p, "-o", "concise")
    assert "RL003" not in r.output and "long.sh:40001:" in r.output  # RL604 on the duplicated flag


def test_thousands_of_statements_the_parser_repairs(tmp_path):
    # each repair of a tree-sitter-bash misreading once rebuilt the statement's parent per
    # statement: 20,000 `a && b > f` lines took 23 s, `a && b 2>&1 | c` 125 s, `X=${H:-`h`}` 172 s.
    # The work per statement (Python lines executed) must not grow with the number of statements:
    # a pass that copies or scans the parent's children per statement makes it grow linearly
    from recipelint.bash.parse import parse
    from recipelint.bash.source import SourceFile

    shapes = [
        b"a && b > f x",
        b"a && b 2>&1 | c",
        b"! { a; }",
        b"X=$D/$N.log",
        b"X=${H:-`hostname`}",
        b"[[ $a = b && $c = d ]]",
        b"2>/dev/null X=1",
        b"for x do :; done",
        b"emit $\"x\" ${X:$o:$n+1}",
        b"\\cp a b",
        b"A=([k]=$a/$b.c)",
        b"exec 3<>/dev/tcp/$h/$p",
        b'[[ $p == *" on "* && $q =~ "r" || -n x ]]',
        b"case $p in x${n}y|*\" -S \"*) ;; esac",
        b'! local y; z="${p%% *} $ w"',
        b"[[ ! $x =~ ^a$ ]]",
    ]
    unit = b"".join(shape + b"\n" for shape in shapes)
    parse(SourceFile(tmp_path / "r.sh", unit))  # (the parser and the passes' regexes made once)
    parsed = {}
    work = {}
    for k in (100, 200):
        work[k] = _executed_lines(lambda k=k: parsed.setdefault(k, parse(SourceFile(tmp_path / "r.sh", unit * k))))
    per_unit = {k: w / k for k, w in work.items()}
    # (linear: 2x the statements is 2x the work to within 0.1%; a per-statement scan of the
    # parent's children adds 6% here, and more the more statements)
    assert per_unit[200] <= 1.02 * per_unit[100], per_unit
    for k, p in parsed.items():
        assert p.problems == [] and not p.too_large
        assert len(p.root.named_children) == (len(shapes) + 1) * k  # (one line holds two statements)


def test_five_thousand_levels_of_nesting(tmp_path):
    p = tmp_path / "deep.sh"
    p.write_text("(" * 5000 + "vllm serve m" + ")" * 5000 + "\n" + "{ " * 5000 + "true; " + "} " * 5000 + "\n")
    r = check(p)
    assert r.exit_code in (0, 1)


def test_nesting_of_if_and_functions(tmp_path):
    p = tmp_path / "deepif.sh"
    p.write_text("if true; then\n" * 3000 + "vllm serve m\n" + "fi\n" * 3000)
    assert check(p).exit_code in (0, 1)


def test_symlink_loops_are_not_followed(tmp_path):
    d = tmp_path / "tree"
    d.mkdir()
    (d / "loop").symlink_to(d)
    (d / "a").symlink_to(d / "b")
    (d / "b").symlink_to(d / "a")
    (d / "x.sh").symlink_to(d / "x.sh")  # a link to itself
    (d / "ok.sh").write_text("vllm serve m\n")
    r = check(d)
    assert r.exit_code in (0, 1)
    r = check(d / "x.sh")
    assert r.exit_code in (1, 2)


@pytest.mark.skipif(sys.platform == "win32" or os.geteuid() == 0, reason="root reads everything")
def test_unreadable_file(tmp_path):
    p = tmp_path / "secret.sh"
    p.write_text("vllm serve m\n")
    p.chmod(0)
    try:
        r = check(p)
        assert codes(r) == ["RL003"] and "permission denied" in r.output
    finally:
        p.chmod(0o644)


def test_unreadable_file_as_root_is_simulated(tmp_path, monkeypatch):
    from pathlib import Path

    p = tmp_path / "secret.sh"
    p.write_text("vllm serve m\n")
    real = os.open

    def deny(path, *a, **k):  # (every read of a checked file goes through recipelint.files' os.open)
        if Path(path).name == "secret.sh":
            raise PermissionError(13, "Permission denied")
        return real(path, *a, **k)

    monkeypatch.setattr(os, "open", deny)
    r = check(p)
    assert codes(r) == ["RL003"] and "permission denied" in r.output


def test_a_directory_of_ten_thousand_files(tmp_path):
    d = tmp_path / "many"
    d.mkdir()
    for i in range(10_000):
        (d / f"r{i:05d}.sh").write_text("echo hi\n" if i % 100 else f"vllm serve m{i} --port {8000 + i}\n")
    r = check(d, "--jobs", "1")
    assert r.exit_code == 0, r.output


def test_a_recipe_sourcing_itself(tmp_path):
    p = tmp_path / "self.sh"
    p.write_text('source "$0"\n. "${BASH_SOURCE[0]}"\nvllm serve m\n')
    assert check(p).exit_code in (0, 1)


def test_a_recipe_sourcing_itself_between_launches_is_cut_at_the_launch_limit(tmp_path):
    # found by the fuzz suite: three self-sources per level, eight levels deep, 3**8 copies of
    # the launches (80 s before the limit); each launch parses its JSON config: the work is
    # bounded by the launch limit (and the step limit)
    from recipelint.sweep.points import SweepPoint

    p = tmp_path / "self.sh"
    launch = (
        "vllm serve org/m --kv-transfer-config '{\"kv_connector\":\"SimpleCPUOffloadConnector\",\"kv_role\":\"kv_both\"}' &\n"
    )
    p.write_text(('source "$(dirname "$0")/$(basename "$0")"\n' + launch) * 3)
    an = CountingAnalyzer()
    res = an.analyze(p, "self.sh", [SweepPoint("p", {"TP": "8"})])
    _within_steps(an)
    (pr,) = res.points
    assert len(pr.launches) == Limits().max_launches + 1  # the one over the limit is kept, then nothing
    notes = [m for path in pr.paths for _, m in path.notes]
    assert f"evaluation stopped after {Limits().max_launches} launches" in notes
    assert all(path.truncated for path in pr.paths if any(m.endswith("launches") for _, m in path.notes))
    assert check(p).exit_code in (0, 1)


def test_two_recipes_sourcing_each_other(tmp_path):
    (tmp_path / "a.sh").write_text('source "$(dirname "$0")/b.sh"\nvllm serve a\n')
    (tmp_path / "b.sh").write_text('source "$(dirname "$0")/a.sh"\nvllm serve b\n')
    assert check(tmp_path).exit_code in (0, 1)


def test_unbounded_recursion_and_loops(tmp_path):
    p = tmp_path / "rec.sh"
    p.write_text("f() { f \"$@\" x; }\nf\nwhile true; do X=$((X+1)); done\nfor ((;;)); do :; done\nvllm serve m\n")
    assert check(p).exit_code in (0, 1)


def test_huge_array(tmp_path):
    p = tmp_path / "arr.sh"
    p.write_text("A=(" + " ".join(str(i) for i in range(50_000)) + ")\nvllm serve m \"${A[@]}\"\n")
    assert check(p).exit_code in (0, 1)


def test_brace_expansions_that_make_too_many_words(tmp_path):
    # 2**40 words, 10**10 words, five million words, 3,000 nested braces: bounded, unknown words
    p = tmp_path / "braces.sh"
    p.write_text("vllm serve m " + "{a,b}" * 40 + " {1..99999}{1..99999} {1..5000000} " + "{" * 3000 + "a,b" + "}" * 3000 + "\n")
    assert check(p).exit_code in (0, 1)
    assert emits("emit " + "{a,b}" * 40 + " {1..5000000} x{1,2}\n") == [[None, None, "x1", "x2"]]


def _repo(tmp_path, master: str):
    (tmp_path / "configs").mkdir()
    (tmp_path / "benchmarks").mkdir()
    (tmp_path / "benchmarks" / "r.sh").write_text("vllm serve m\n")
    (tmp_path / "configs" / "nvidia-master.yaml").write_text(master)
    return tmp_path


def test_malformed_master_config_is_a_finding(tmp_path):
    root = _repo(tmp_path, "entry:\n  image: [unclosed\n  model: x\n")
    r = check(root / "benchmarks", root / "configs" / "nvidia-master.yaml")
    assert "RL500" in codes(r)


def test_yaml_alias_bomb_is_a_finding(tmp_path):
    lol = ["a: &a [x, x, x, x, x, x, x, x, x, x]"]
    for i in range(1, 12):
        prev = chr(ord("a") + i - 1)
        cur = chr(ord("a") + i)
        lol.append(f"{cur}: &{cur} [*{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}]")
    root = _repo(tmp_path, "\n".join(lol) + "\n")
    r = check(root / "benchmarks", root / "configs" / "nvidia-master.yaml")
    assert "RL500" in codes(r) and "aliases expand" in r.output


def test_recursive_yaml_alias_is_a_finding(tmp_path):
    root = _repo(tmp_path, "a: &a\n  b: *a\n")
    r = check(root / "benchmarks", root / "configs" / "nvidia-master.yaml")
    assert r.exit_code in (1, 2)


def test_yaml_that_is_not_a_mapping(tmp_path):
    root = _repo(tmp_path, "- just\n- a list\n")
    r = check(root / "benchmarks", root / "configs" / "nvidia-master.yaml")
    assert r.exit_code in (0, 1, 2)


def test_config_naming_a_missing_recipe_is_a_finding(tmp_path):
    master = """entry-fp8-b200-vllm:
  image: vllm/vllm-openai:v0.25.1
  model: org/M
  model-prefix: nope
  runner: b200
  precision: fp8
  framework: vllm
  multinode: false
  scenarios:
    fixed-seq-len:
    - { isl: 1024, osl: 1024, search-space: [{ tp: 8, conc-list: [4] }] }
"""
    root = _repo(tmp_path, master)
    r = check(root / "benchmarks", root / "configs" / "nvidia-master.yaml")
    assert "RL506" in codes(r) or "RL500" in codes(r)


@pytest.mark.parametrize(
    "space",
    [
        "{ tp: .inf, conc-list: [4] }",
        "{ tp: 8, conc-list: [.nan] }",
        "{ tp: 8, ep: 1e999, conc-list: [4] }",
        "{ tp: 8, conc-start: 1, conc-end: -.inf }",
        "{ tp: 8, kv-offloading: dram, conc-list: [4] }",
    ],
)
def test_non_finite_and_non_numeric_numbers_in_a_master_config_are_a_finding(tmp_path, space):
    # YAML reads `.inf` and `.nan` (and 1e999) as floats: a sweep point of them is no point (it
    # was an internal error, exit 2, from int() of infinity)
    scenario = "agentic-coding" if "dram" in space else "fixed-seq-len"  # (with `dram-utilization: abc`: a Decimal)
    master = (
        "entry-fp8-b200-vllm:\n  image: vllm/vllm-openai:v0.25.1\n  model: org/M\n  model-prefix: entry\n"
        f"  runner: b200\n  precision: fp8\n  framework: vllm\n  multinode: false\n  scenarios:\n    {scenario}:\n"
        f"    - {{ isl: 1024, osl: 1024, dram-utilization: abc, search-space: [{space}] }}\n"
    )
    root = _repo(tmp_path, master)
    (root / "configs" / "runners.yaml").write_text(
        "labels:\n  b200: [b200-dgxc_00]\nhardware:\n  b200:\n    available-cpu-dram-mib: 100000\n    gpus-per-node: 8\n"
    )
    r = check(root / "benchmarks", root / "configs" / "nvidia-master.yaml")
    assert r.exit_code in (0, 1) and "internal error" not in r.output, r.output
    if "inf" in space or "1e999" in space or "dram" in space:
        assert "RL500" in codes(r) and "cannot expand" in r.output


def test_missing_config_file_on_the_command_line_is_an_error(tmp_path):
    p = tmp_path / "r.sh"
    p.write_text("vllm serve m\n")
    r = check(p, "--config", tmp_path / "nope-master.yaml")
    assert r.exit_code == 2 and "config file not found" in r.output


def test_missing_path_is_an_error(tmp_path):
    r = check(tmp_path / "nothing-here.sh")
    assert r.exit_code == 2 and "no such file" in r.output


def test_values_with_newlines_keep_findings_on_one_line(tmp_path):
    # found by the fuzz suite: a flag value holding a newline broke line-oriented formats
    p = tmp_path / "nl.sh"
    p.write_text('V="1\n2"\nvllm serve m --max-num-seqs 8 --max-num-seqs "$V"\n')
    r = runner.invoke(app, ["check", "--no-cache", "-o", "github", str(p)])
    lines = [ln for ln in r.output.splitlines() if ln.strip()]
    assert lines and all(ln.startswith("::") for ln in lines), r.output


GROWING = {
    # each doubles a value per iteration: 2**40 characters or words if followed to the end
    "concatenation": 'X=a\nfor i in $(seq 40); do X="$X$X"; done\n',
    "pattern-replacement": "X=abc\nfor i in $(seq 40); do X=${X//a/aa}; done\n",
    "pattern-with-wildcards": 'X=ab\nfor i in $(seq 40); do X="$X$X"; Y=${X//a?/c}; Z=${X%%b*}; done\n',
    "command-output": 'X=a\nfor i in $(seq 40); do X=$(echo "$X$X"); done\n',
    "files": 'X=a\nfor i in $(seq 40); do echo "$X$X" > f; X=$(cat f f); done\n',
    "array": 'A=(a)\nfor i in $(seq 30); do A=("${A[@]}" "${A[@]}"); done\n',
    "positional-parameters": 'set -- a\nfor i in $(seq 30); do set -- "$@" "$@"; done\n',
    "printf-width": 'X=$(printf "%100000000s|%.100000000f" x 1)\n',
}


@pytest.mark.parametrize("name", list(GROWING))
def test_values_that_grow_without_bound_are_cut(tmp_path, name):
    # found while testing this session: `X="$X$X"` in a loop ran out of time and memory (2**40
    # characters within the step limit); `${X//a/aa}` tried its quadratic match on megabytes.
    # Bounded in bytes (at most 64 values of the longest allowed: measured 1-28 MB; with values of
    # up to 128 MiB allowed, 90 MB-1.5 GB) and in steps
    from recipelint.sweep.points import SweepPoint

    p = tmp_path / "grow.sh"
    p.write_text(GROWING[name] + "vllm serve m --max-num-seqs 4\n")
    an = CountingAnalyzer()
    res = None

    def run():
        nonlocal res
        res = an.analyze(p, "grow.sh", [SweepPoint("p", {"TP": "8"})])

    peak = _peak_bytes(run)
    assert peak <= 64 * Limits().max_output, f"{peak:,} bytes"
    _within_steps(an)
    (pr,) = res.points
    notes = [m for path in pr.paths for _, m in path.notes]
    if name in ("array", "positional-parameters"):  # millions of words: cut by the step limit
        assert any(m.startswith("evaluation stopped after") for m in notes), notes
    else:  # cut by the size limits; the launch after the loop is still found
        assert name == "printf-width" or any("taken as unknown" in m for m in notes), notes
        assert [lc.value("--max-num-seqs") for lc in pr.launches] == ["4"]
    assert check(p).exit_code in (0, 1)


BIG_WORK = {
    "array": "A=(" + " ".join(map(str, range(5000))) + ")",
    "brace-expansion": "X=${X:-$(printf '%.0s-' {1..5000})}",
    "literal-arguments": "printf '%.0s-' " + " ".join(map(str, range(5000))) + " >/dev/null",
    "word-splitting": "X=$(printf %5000s); X=${X// /a }; printf '%.0s-' $X >/dev/null",
}


@pytest.mark.parametrize("name", list(BIG_WORK))
def test_big_words_in_a_script_that_runs_itself_twice(tmp_path, name):
    # found by the fuzz suite: `bash "$0"` twice per level, eight levels: 511 copies of a
    # 5,000-element array assignment per sweep point (218 s), and later of a 5,000-word brace
    # expansion given to printf (41 s, 1.4 GB) — the words of every expansion that makes more
    # than a few now count as steps, each time it is expanded (so the step limit ends it)
    from recipelint.sweep.points import SweepPoint

    p = tmp_path / "twice.sh"
    p.write_text(BIG_WORK[name] + '\nbash "$0"\nbash "$0"\nvllm serve m\n')
    an = CountingAnalyzer()
    (pr,) = an.analyze(p, "twice.sh", [SweepPoint("p", {"TP": "8"})]).points
    _within_steps(an)
    assert any(m.startswith("evaluation stopped after") for path in pr.paths for _, m in path.notes)
    assert check(p).exit_code in (0, 1)


def test_a_literal_too_long_to_follow_is_noted_at_every_sweep_point(tmp_path):
    # the expansion of a literal is kept per syntax node; a cut one is not, so each point says so
    from recipelint.lint.analysis import Analyzer
    from recipelint.sweep.points import SweepPoint

    p = tmp_path / "big.sh"
    p.write_text('X="' + "a" * (1 << 20) + "b" + '"\nvllm serve m --max-num-seqs "$CONC"\n')
    res = Analyzer().analyze(p, "big.sh", [SweepPoint("p1", {"CONC": "1"}), SweepPoint("p2", {"CONC": "2"})])
    for pr in res.points:
        notes = [m for path in pr.paths for _, m in path.notes]
        assert any("taken as unknown" in m for m in notes), notes
    assert [lc.value("--max-num-seqs") for pr in res.points for lc in pr.launches] == ["1", "2"]


def test_a_sourced_file_too_large_to_analyse_is_skipped(tmp_path):
    (tmp_path / "huge.sh").write_bytes(b"X=1\n" * 250_000)
    r = tmp_path / "r.sh"
    r.write_text('source "$(dirname "$0")/huge.sh"\nvllm serve m --max-num-seqs 8 --max-num-seqs 16\n')
    out = check(r, "-o", "concise")
    assert out.exit_code == 1 and "r.sh:2:" in out.output and "RL604" in out.output  # the recipe is still analysed


A3000 = "X=$(printf %3000s); X=${X// /a}\n"
A1000 = "X=$(printf %1000s); X=${X// /a}\n"
BACKTRACKING = {
    # a regex that backtracks exponentially in Python's engine (bash answers in a blink):
    # matched with RE2, in linear time, so answered exactly (issue 33)
    "regex-nested-repeat": ("X=" + "a" * 40 + "b\n[[ $X =~ ^(a+)+$ ]] && emit y || emit n\n", [["n"]]),
    "regex-nested-repeat-short": ("X=aaaab\n[[ $X =~ ^(a+)+$ ]] && emit y || emit n\n", [["n"]]),
    # a regex with five stars on a long value: RE2 again
    "regex-many-stars": (A3000 + "[[ $X =~ a.*a.*a.*a.*b ]] && emit y || emit n\n", [["n"]]),
    # plain globs are matched in linear time: exactly
    "case-many-stars": (A3000 + "case $X in *a*a*a*a*a*b) emit y;; *) emit n;; esac\n", [["n"]]),
    "test-many-stars": (A3000 + "[[ $X == *a*a*a*a*a*b ]] && emit y || emit n\n", [["n"]]),
    "replace-many-stars": (A1000 + "Y=${X//*a*a*b/c}; Z=${X//a*a/c}; emit ${#Y} $Z\n", [["1000", "c"]]),
    "strip-many-stars": (A1000 + "Y=${X%%a*a*a*b}; Z=${X#a*a*a}; emit ${#Y} ${#Z}\n", [["1000", "997"]]),
    # an extended glob that backtracks exponentially in Python's engine: RE2, exact
    "extglob-alternation": ("shopt -s extglob\nX=" + "a" * 60 + "b\nemit \"${X//+(a|aa)c/x}\"\n", [["a" * 60 + "b"]]),
    # ... tried at n**2 places (`${X//p/r}`): on values up to 100 characters, beyond unknown
    "extglob-alternation-long": ("shopt -s extglob\nX=" + "a" * 200 + "b\nemit \"${X//+(a|aa)c/x}\"\n", [[None]]),
}


class _Counted:
    """A compiled regex that counts the characters it is given to match (``work``), and refuses a
    match by a backtracking engine that ``patterns.too_long`` says is too long for it."""

    def __init__(self, rx, regex: str, backtracking: bool, work: dict):
        self.rx, self.regex, self.backtracking, self.work = rx, regex, backtracking, work

    def _offered(self, text: str, pos: int = 0, endpos: int | None = None) -> None:
        from recipelint.bash import patterns

        part = text[pos:endpos]
        self.work["chars"] += len(part)
        if self.backtracking:
            assert not patterns.too_long(self.regex, part), f"backtracking match of {self.regex!r} on {len(part)} characters"

    def match(self, text, *a):
        self._offered(text, *a)
        return self.rx.match(text, *a)

    def fullmatch(self, text, *a):
        self._offered(text, *a)
        return self.rx.fullmatch(text, *a)

    def search(self, text, *a):
        self._offered(text, *a)
        return self.rx.search(text, *a)


@pytest.mark.parametrize("name", list(BACKTRACKING))
def test_patterns_that_backtrack_finish(name, monkeypatch):
    # found while looking for the fuzz suite's blind spots: `[[ $X =~ ^(a+)+$ ]]` on 41
    # characters and `case` with five stars on 3,000 each ran for more than a minute.  The work is
    # counted in characters given to a regex engine: RE2 and plain globs (atomic groups) are linear
    # in them, and at most quadratic in a value of MAX_WILDCARD_TEXT characters (`${X//p/r}` tries
    # every place); Python's backtracking `re` on any other regex only within `try_limit`
    from recipelint.bash import patterns
    from recipelint.evaluate import conditions

    work = {"chars": 0}
    plain: set = set()
    real_linear = patterns.linear

    def glob_parts(segments):
        parts = patterns._glob_parts(tuple(segments))
        if parts[2]:
            plain.add(parts[0])
        return parts

    def compiled(regex):
        return _Counted(patterns.re.compile(regex, patterns.re.S), regex, regex not in plain, work)

    def linear(regex, longest=False):
        rx = real_linear(regex, longest)
        return None if rx is None else _Counted(rx, regex, False, work)

    monkeypatch.setattr(patterns, "glob_parts", glob_parts)
    monkeypatch.setattr(patterns, "compiled", compiled)
    monkeypatch.setattr(patterns, "linear", linear)
    monkeypatch.setattr(conditions, "linear", linear)
    src, want = BACKTRACKING[name]
    got = emits(src + "emit end\n")
    assert got == want + [["end"]]
    assert work["chars"] <= patterns.MAX_WILDCARD_TEXT**2, work


#: every place a word is expanded, and the errors expanding one can raise (`$((1/0))`, a bad
#: substitution, an invalid indirect name, `${X:?}`): each is a finding or nothing, never an
#: exception (`case a in $((1/0)))` was one: "internal error: _CmdError")
_ERROR_WORDS = ["$((1/0))", "${x/[/y}", "${!bad-name}", "${UNSET_Z:?m}"]
_EXPANDED_AT = [
    "unset {e}",
    "select v in {e}; do break; done",
    "[[ {e} == a ]]",
    "[[ a == {e} ]]",
    "(( {e} ))",
    "case {e} in a) :;; esac",
    "case a in {e}) :;; esac",
    "for v in {e}; do :; done",
    "for (( i={e}; i<1; i++ )); do :; done",
    "cat <<< {e}",
    "cat <<EOF\n{e}\nEOF",
    "echo > {e}",
    "x={e}",
    "declare x={e}",
    "f() {{ local x={e}; }}; f",
    "export x={e}",
    "readonly r={e}",
    "echo {e} | cat",
    "( echo {e} )",
    "echo ${{x:-{e}}}",
    "a=({e})",
    "a[{e}]=1",
    "echo ${{a[{e}]}}",
    "[ {e} = 1 ]",
    "let x={e}",
    "x=$(echo {e})",
    "eval echo {e}",
    "bash -c 'echo {e}'",
    "{{ echo {e}; }} > /dev/null",
    "while [ {e} ]; do break; done",
    "if [ {e} ]; then :; fi",
    'x="${{y:-{e}}}"',
    "printf -v v {e}",
    "read -r v <<< {e}",
    "declare -A m=([{e}]=1)",
    "echo ${{x//{e}/y}}",
    "echo ${{x#{e}}}",
    "[[ a =~ {e} ]]",
    "trap {e} EXIT",
    "shift {e}",
    "f() {{ return {e}; }}; f",
    "source {e}",
    "echo {e} &",
    "! echo {e}",
    "mapfile -t A < <(echo {e})",
]


@pytest.mark.parametrize("template", _EXPANDED_AT)
def test_expansion_errors_anywhere_are_never_exceptions(tmp_path, template):
    body = "\n".join("x=abc\n" + template.format(e=e) + "\nvllm serve m --tensor-parallel-size 2\n" for e in _ERROR_WORDS)
    (tmp_path / "r.sh").write_text("#!/bin/bash\n" + body)
    r = check(tmp_path / "r.sh", "--no-config")
    assert r.exit_code in (0, 1), r.output
