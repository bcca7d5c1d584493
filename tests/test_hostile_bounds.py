"""Issue 33, "bounded everywhere": inputs that made recipelint work super-linearly or crash, each
run in a subprocess under a memory limit and a generous timeout.  Every run must END with
findings or a one-line error (exit 2) — never a hang, a crash or a traceback.  How fast they end
is measured in bench/, not asserted here.  Before the bounds: the `=~` / extended-glob cases took
~6 s at 28 pairs and x4 per added pair (here 34: hours), a 100 KB line of `[[` minutes, the eval
4.5 s, the sweep 42,000 points (11 s, 660 MB), the deep YAML a SIGSEGV."""

from __future__ import annotations

import re
import resource
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import HANG_S

TIMEOUT = HANG_S  # a hang guard only: the slowest case takes ~10 s here (a 100 KB line of `<<a `)
MEMORY = 2 << 30  # bytes of address space


def _limit():
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY, MEMORY))


def run(*args, cwd: Path):
    """`recipelint check --no-cache -o concise ARGS` in ``cwd``; asserts that it ends as it must."""
    p = subprocess.run(
        [sys.executable, "-m", "recipelint", "check", "--no-cache", "-o", "concise", *map(str, args)],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        preexec_fn=_limit,
    )
    out = p.stdout + p.stderr
    assert p.returncode in (0, 1, 2), f"exit {p.returncode}: {out[-2000:]}"
    assert "Traceback" not in out, out[-2000:]
    if p.returncode == 2:
        lines = [ln for ln in out.splitlines() if ln.strip()]
        assert len(lines) == 1 and lines[0].startswith("recipelint: "), out[-2000:]
    else:
        assert re.search(r"^(Found \d+ findings?|All checks passed)", p.stdout, re.M), out[-2000:]
    return p.returncode, out


def codes(out: str) -> list[str]:
    return re.findall(r"^\S.*?:\d+:\d+: \w+\[(RL\d{3})\] ", out, re.M)


def recipe(tmp_path: Path, body: str, name: str = "r.sh") -> Path:
    p = tmp_path / name
    p.write_text("#!/bin/bash\n" + body)
    return p


# --- `=~` and extended globs: RE2, linear in the value -------------------------------------------

N = 34  # pairs of `a?` and `a`: 2**34 backtracking steps for Python's re


def test_regex_with_many_optionals_that_does_not_match(tmp_path):
    # the value is one `b` too long for the pattern: RE2 answers "no match" exactly, so the branch
    # is not taken and its launch is reported as not reached
    recipe(tmp_path, f"X={'a' * N}b\nif [[ $X =~ ^{'a?' * N}{'a' * N}$ ]]; then\n  vllm serve m --port 1\nfi\n")
    code, out = run("r.sh", cwd=tmp_path)
    assert codes(out) == ["RL006"], out


def test_regex_with_many_optionals_that_matches(tmp_path):
    recipe(tmp_path, f"X={'a' * N}\nif [[ $X =~ ^{'a?' * N}{'a' * N}$ ]]; then\n  vllm serve m --port 1\nfi\n")
    code, out = run("r.sh", cwd=tmp_path)
    assert code == 0 and codes(out) == [], out


def test_regex_fixed_count_around_an_optional_group(tmp_path):
    recipe(tmp_path, f"X={'a' * N}b\nif [[ $X =~ ^(a?){{{N}}}a{{{N}}}$ ]]; then\n  vllm serve m --port 1\nfi\n")
    code, out = run("r.sh", cwd=tmp_path)
    assert codes(out) == ["RL006"], out


def test_regex_with_a_backreference_is_unknown(tmp_path):
    # RE2 has no backreferences: the test is unknown, so the branch may run and its launch is checked
    recipe(tmp_path, "X=aa\nif [[ $X =~ ^(a)\\1$ ]]; then\n  vllm serve m --port 1\nfi\n")
    code, out = run("r.sh", cwd=tmp_path)
    assert code == 0 and codes(out) == [], out


def test_extended_glob_with_many_optionals(tmp_path):
    recipe(
        tmp_path,
        f"shopt -s extglob\nX={'a' * N}b\nif [[ $X == {'?(a)' * N}{'a' * N} ]]; then\n  vllm serve m --port 1\nfi\n",
    )
    code, out = run("r.sh", cwd=tmp_path)
    assert codes(out) == ["RL006"], out


def test_extended_glob_with_a_negation_is_guarded(tmp_path):
    # `!(p)` needs a lookahead (Python's re, not RE2): the guard counts the optionals and gives up
    recipe(
        tmp_path,
        f"shopt -s extglob\nX={'a' * N}c\nif [[ $X == {'?(a)' * N}{'a' * N}!(b) ]]; then\n  vllm serve m --port 1\nfi\n",
    )
    code, out = run("r.sh", cwd=tmp_path)
    assert code == 0 and codes(out) == [], out


def test_extended_glob_replacement(tmp_path):
    recipe(tmp_path, f"shopt -s extglob\nX={'a' * N}b\nY=${{X//{'?(a)' * N}{'a' * N}/z}}\nvllm serve \"$Y\" --port 1\n")
    run("r.sh", cwd=tmp_path)


# --- repairs' cheap tests: linear in the line --------------------------------------------------


@pytest.mark.parametrize(
    "unit",
    ["[[", "[[ ", "[[ x ", "[ ", "[ \\", "<<a ", "<<a x ", "${A:-", "${A:-$((1)) ", "`", "eA=", '"$', "${a["],
    ids=[
        "dbracket",
        "dbracket-blank",
        "dbracket-equals",
        "bracket",
        "bracket-backslash",
        "heredoc",
        "heredoc-rest",
        "expansion",
        "arith",
        "backquotes",
        "assignments",  # (46 s before the hint's line bound: the review's > 60 s)
        "quote-dollar",  # (the review's > 60 s; 13 s here)
        "subscript",  # (the review's > 60 s; 14 s here)
    ],
)
def test_a_100_kb_line(tmp_path, unit):
    recipe(tmp_path, unit * (100_000 // len(unit)) + "\nvllm serve m --port 1\n")
    run("r.sh", cwd=tmp_path)


# --- eval ----------------------------------------------------------------------------------------


def test_eval_that_runs_itself_while_its_value_grows(tmp_path):
    recipe(tmp_path, "A='X=\"$X$X$X$X\"; eval \"$A\"'\nX=aaaaaaaa\neval \"$A\"\nvllm serve \"$X\" --port 1\n")
    run("r.sh", cwd=tmp_path)


def test_eval_growing_sixteenfold(tmp_path):
    recipe(
        tmp_path, "A='X=\"$X$X$X$X$X$X$X$X$X$X$X$X$X$X$X$X\"; eval \"$A\"; eval \"$A\"'\nX=a\neval \"$A\"\nvllm serve \"$X\"\n"
    )
    run("r.sh", cwd=tmp_path)


def test_eval_of_itself_doubled_eight_times(tmp_path):
    """Issue 49's attack: `S='eval "$S";'` doubled to eight copies, then `eval "$S"` (137 bytes;
    92 s and 342 MB in the attack review): ends, within the step budget."""
    recipe(tmp_path, "S='eval \"$S\";'\n" + 'S="$S$S"\n' * 3 + 'eval "$S"\nvllm serve m --port 1\n')
    run("r.sh", cwd=tmp_path)


def test_nested_defaults_10000_deep(tmp_path):
    """`${A:-${A:-…}}` 10,000 deep (435 s in the attack review, 43 s before this session's bound
    on the repair's scans): the repair reads each nested word only when it holds an operator."""
    n = 10_000
    recipe(tmp_path, "X=" + "${A:-" * n + "x;y" + "}" * n + '\nvllm serve m --x "$X"\n')
    run("r.sh", cwd=tmp_path)


def test_values_doubling_through_arrays(tmp_path):
    """A 280-byte recipe whose array doubles thirty times: the value bound (`Limits.max_words`)
    makes it unknown instead of building a billion words."""
    recipe(tmp_path, "A=(x x)\n" + 'A=("${A[@]}" "${A[@]}")\n' * 30 + 'vllm serve m "${A[@]}"\n')
    run("r.sh", cwd=tmp_path)


def test_a_launch_of_100000_flags_reads_4096_and_says_so(tmp_path):
    """203 s of rule work in the attack review: now the first 4,096 flags are read, and RL011
    says the rest are not."""
    recipe(tmp_path, "vllm serve m " + " ".join(["--max-num-seqs 8"] * 100_000) + "\n")
    code, out = run("r.sh", cwd=tmp_path)
    assert "RL011" in out and "more than 4,096 flags" in out, out[-2000:]


# --- sweep points --------------------------------------------------------------------------------


def _repo(tmp_path: Path, entries: int, items: int, concs: int) -> Path:
    (tmp_path / "configs").mkdir()
    (tmp_path / "configs" / "runners.yaml").write_text("labels:\n  h100: [h100_00, h100_01]\n")
    d = tmp_path / "benchmarks" / "single_node" / "fixed_seq_len"
    d.mkdir(parents=True)
    (d / "m_fp8_h100.sh").write_text('#!/bin/bash\nvllm serve "$MODEL" --tensor-parallel-size "$TP" --max-num-seqs "$CONC"\n')
    conc = ", ".join(str(i + 1) for i in range(concs))
    text = []
    for e in range(entries):
        space = "\n".join(f"      - {{ tp: {i + 1}, conc-list: *c{e} }}" for i in range(items))
        text.append(
            f"m-fp8-h100-vllm-{e}:\n  image: vllm/vllm-openai:v0.10.0\n  model: m\n  model-prefix: m\n  runner: h100\n"
            f"  precision: fp8\n  framework: vllm\n  multinode: false\n  x-concs: &c{e} [{conc}]\n"
            f"  scenarios:\n    fixed-seq-len:\n    - isl: 1024\n      osl: 1024\n      search-space:\n{space}\n"
        )
    (tmp_path / "configs" / "nvidia-master.yaml").write_text("".join(text))
    return tmp_path


def test_sweep_points_of_one_entry_are_bounded(tmp_path):
    # 21 items aliasing one 2,000-value conc-list: 42,000 points, 1,024 followed
    _repo(tmp_path, 1, 21, 2000)
    code, out = run("benchmarks", "configs", cwd=tmp_path)
    assert codes(out) == ["RL500"], out
    assert "42,000 sweep points, more than the 1,024" in out and "the last 40,976 are not checked" in out, out


def test_sweep_points_of_a_run_are_bounded(tmp_path):
    _repo(tmp_path, 9, 1, 1024)
    code, out = run("benchmarks", "configs", cwd=tmp_path)
    assert codes(out) == ["RL500"], out
    assert "more than the 8,192 sweep points recipelint follows per run: 1,024 of this entry's are not checked" in out, out


# --- YAML nesting and aliases --------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "e: " + "[" * 40_000 + "]" * 40_000 + "\n",
        "e: " + "{a: " * 40_000 + "b" + "}" * 40_000 + "\n",
        "e:\n" + "".join("  " * i + "- \n" for i in range(1, 400)),
    ],
    ids=["flow-sequences", "flow-mappings", "block-sequences"],
)
def test_deep_master_config_is_a_finding(tmp_path, text):
    _repo(tmp_path, 1, 1, 1)
    (tmp_path / "configs" / "nvidia-master.yaml").write_text(text)
    code, out = run("benchmarks", "configs", cwd=tmp_path)
    assert _config_unread(out) and "nesting deeper than 200 levels" in out, out


def _config_unread(out: str) -> bool:
    """The config's RL500 and, for the recipe it no longer runs, an RL506 saying the config could
    not be read (not "no entry runs it"): no other finding."""
    return sorted(set(codes(out))) in (["RL500"], ["RL500", "RL506"]) and (
        "RL506" not in codes(out) or "could not be read (RL500)" in out
    )


def _bomb() -> str:
    parts, prev = ["&a [x, x, x, x, x, x, x, x, x]"], "a"
    for n in "bcdefghi":
        parts.append(f"&{n} [{', '.join([f'*{prev}'] * 9)}]")
        prev = n
    return "[" + ", ".join(parts) + "]"


def test_alias_bomb_in_master_config_is_a_finding(tmp_path):
    _repo(tmp_path, 1, 1, 1)
    (tmp_path / "configs" / "nvidia-master.yaml").write_text(f"e: {_bomb()}\n")
    code, out = run("benchmarks", "configs", cwd=tmp_path)
    assert _config_unread(out) and "aliases expand to more than" in out, out


@pytest.mark.parametrize(
    "text, what",
    [
        ("ignore: " + "[" * 40_000 + "]" * 40_000 + "\n", "nesting deeper than 200 levels"),
        ("ignore:\n" + "".join("  " * i + "- \n" for i in range(1, 400)), "nesting deeper than 200 levels"),
        (f"ignore: {_bomb()}\n", "aliases expand to more than"),
        (f"per-file-ignores: {{'*.sh': {_bomb()}}}\n", "aliases expand to more than"),
    ],
    ids=["flow", "block", "aliases", "aliases-in-mapping"],
)
def test_hostile_settings_are_a_one_line_error(tmp_path, text, what):
    (tmp_path / ".recipelint.yaml").write_text(text)
    recipe(tmp_path, "echo hi\n")
    code, out = run("r.sh", cwd=tmp_path)
    assert code == 2 and what in out and ".recipelint.yaml:" in out, out


@pytest.mark.parametrize("table", [True, False])
def test_a_pyproject_nested_5000_deep_is_a_one_line_error_or_ignored(tmp_path, table):
    """Issue 49: a pyproject.toml with an array nested 5,000 deep made every run exit 2 with
    "internal error" (tomllib recurses once per level).  With a [tool.recipelint] table it is a
    settings error naming the file; without one it is not settings, and the run goes on (the
    engine-pins scan skips it with a note)."""
    head = "[tool.recipelint]\n" if table else '[project]\nname = "x"\n[tool.other]\n'
    (tmp_path / "pyproject.toml").write_text(head + "x = " + "[" * 5000 + "]" * 5000 + "\n")
    (tmp_path / "a.sh").write_text("#!/bin/bash\nvllm serve m\n")
    r = subprocess.run(
        [sys.executable, "-m", "recipelint", "check", "a.sh", "--no-cache"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=HANG_S,
    )
    assert "internal error" not in r.stderr and "Traceback" not in r.stderr
    if table:
        assert r.returncode == 2 and r.stderr.strip() == (
            f"recipelint: {tmp_path / 'pyproject.toml'}: invalid TOML: nested too deeply "
            "(it has a [tool.recipelint] table, which cannot be read)"
        ), r.stderr
    else:
        assert r.returncode in (0, 1), r.stderr


def test_a_files_step_budget_cuts_its_points_and_says_so(tmp_path, monkeypatch):
    """Issue 49 item 6: the steps of a file's sweep points are charged to one budget; past it the
    points left are not evaluated, and RL011 names how many (the rest of the run goes on)."""
    from recipelint.evaluate.state import Limits
    from recipelint.lint import analysis
    from recipelint.lint.check import lint
    from recipelint.sweep.points import SweepPoint

    (tmp_path / ".git").mkdir()
    heavy = tmp_path / "heavy.sh"
    heavy.write_text(
        "#!/bin/bash\nN=0\nfor ((i = 0; i < 200; i++)); do N=$((N + CONC)); done\nvllm serve m --max-num-seqs \"$CONC\" &\n"
    )
    light = tmp_path / "light.sh"
    light.write_text('#!/bin/bash\nvllm serve m --max-num-seqs "$CONC" &\n')
    monkeypatch.setattr(analysis, "Limits", lambda: Limits(file_steps=2000))

    def points(display, text):
        return [SweepPoint(env={"CONC": str(c), "TP": "8"}, label=f"conc {c}") for c in range(1, 11)]

    result = lint([tmp_path], points_for=points)
    budget = [f for f in result.findings if f.code == "RL011"]
    assert len(budget) == 1 and budget[0].span.path.endswith("heavy.sh")
    m = budget[0].message
    assert "was spent after" in m and "of 10 sweep points" in m and "are not checked" in m
    res = {r.path.name: r for r in result.files}
    done, total, spent = res["heavy.sh"].budget_cut
    assert 0 < done < total == 10 and spent > 2000
    assert res["light.sh"].budget_cut is None and len(res["light.sh"].points) == 10


def test_aliases_of_a_large_string_are_bounded_by_bytes(tmp_path):
    """Issue 49 (N4): aliases were bounded by their count only — a 1.6 MB master config (2,000
    entries, each `image: *i` of a 1 MB string) took 51 s and 3.99 GB, and a 1 MB settings file
    (5,000 aliases of a 1 MB string) a MemoryError.  A scalar now weighs a node per 64 bytes."""
    import shutil

    seed = tmp_path / "seed"
    shutil.copytree(Path(__file__).resolve().parent.parent / "fixtures" / "seed", seed)
    s = "vllm/vllm-openai:" + "x" * 1_000_000
    entry = (
        "dsv4-fp4-b200-vllm-agentic{k}:\n  image: *i\n  model: deepseek-ai/DeepSeek-V4-Pro\n  model-prefix: dsv4\n"
        "  runner: cluster:b200-dgxc\n  precision: fp4\n  framework: vllm\n  multinode: false\n  scenarios:\n"
        "    agentic-coding:\n    - dram-utilization: 0.95\n      search-space:\n      - {{ tp: 8, conc-list: [8] }}\n"
    )
    (seed / "configs" / "nvidia-master.yaml").write_text(f'_img: &i "{s}"\n' + "".join(entry.format(k=k) for k in range(2000)))
    code, out = run(".", cwd=seed)
    assert "aliases expand to more than" in out, out[-2000:]
    (seed / ".recipelint.yaml").write_text(
        'hardware-specific-flags: &a ["' + "x" * 1_000_000 + '"]\nsibling-groups: [' + ",".join(["*a"] * 5000) + "]\n"
    )
    code, out = run(".", cwd=seed)
    assert code == 2 and "aliases expand to more than" in out, out[-2000:]


def test_the_runs_step_budget_cuts_the_files_after_it(tmp_path, monkeypatch):
    """The steps of every file a process evaluates share the run's budget: past it, the points
    left are not evaluated and RL011 says so for each recipe cut; the files before are whole."""
    from recipelint.evaluate.state import Limits
    from recipelint.lint import analysis
    from recipelint.lint.check import lint
    from recipelint.sweep.points import SweepPoint

    (tmp_path / ".git").mkdir()
    for i in range(6):
        (tmp_path / f"r{i}.sh").write_text(
            "#!/bin/bash\nN=0\nfor ((i = 0; i < 100; i++)); do N=$((N + CONC)); done\nvllm serve m --max-num-seqs \"$CONC\" &\n"
        )
    monkeypatch.setattr(analysis, "Limits", lambda: Limits(run_steps=3000))

    def points(display, text):
        return [SweepPoint(env={"CONC": str(c), "TP": "8"}, label=f"conc {c}") for c in range(1, 4)]

    result = lint([tmp_path], points_for=points)  # (six files: one process)
    cut = sorted(f.span.path for f in result.findings if f.code == "RL011")
    assert cut and len(cut) < 6, cut
    assert all("the run's work budget" in f.message for f in result.findings if f.code == "RL011")
    whole = [r for r in result.files if r.budget_cut is None]
    assert whole and all(len(r.points) == 3 for r in whole)


def test_a_settings_config_path_too_long_is_a_one_line_error(tmp_path):
    """Found by the long fuzz run (issue 49): `configs: ["a" * 5000]` in .recipelint.yaml made
    `Path.is_file` raise ENAMETOOLONG, an "internal error"."""
    (tmp_path / ".recipelint.yaml").write_text('configs: ["' + "a" * 5000 + '"]\n')
    recipe(tmp_path, "vllm serve m\n")
    code, out = run("r.sh", cwd=tmp_path)
    assert code == 2 and "cannot be read (File name too long)" in out and "internal error" not in out, out[-500:]


def test_values_doubled_chunk_by_chunk_are_charged_to_the_budget(tmp_path, monkeypatch):
    """Issue 49 (N3): `X="$X$X"` twenty times makes values of 65,536 one-byte chunks, and each
    sweep point spent a second on them while counting a few thousand steps, so the file's budget
    never ran out (210 points: 99 s).  Chunks are charged now (a step per 64): the budget cuts
    the points, and RL011 says so (the same 210 points: 11 s)."""
    from recipelint.evaluate.state import Limits
    from recipelint.lint import analysis
    from recipelint.lint.check import lint
    from recipelint.sweep.points import SweepPoint

    (tmp_path / ".git").mkdir()
    (tmp_path / "g.sh").write_text(
        '#!/bin/bash\necho "$CONC"\nX=a\nfor i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do X="$X$X"; '
        'A+=("$X" "$X" "$X" "$X" "$X" "$X" "$X" "$X"); done\nB=("${A[@]}" "${A[@]}" "${A[@]}" "${A[@]}")\n'
        'vllm serve m --served-model-name "${B[*]}" --max-num-seqs "$CONC"\n'
    )
    monkeypatch.setattr(analysis, "Limits", lambda: Limits(file_steps=300_000))

    def points(display, text):
        return [SweepPoint(env={"CONC": str(c), "TP": "8"}, label=f"conc {c}") for c in range(1, 11)]

    result = lint([tmp_path], points_for=points)
    (cut,) = [f for f in result.findings if f.code == "RL011"]
    assert "of 10 sweep points" in cut.message
