"""Issue 33, items 4 and 5: scripts bash does not run as they read (CRLF, a here-document
terminator bash does not take) are findings, checked against real bash; output and process
hygiene (control characters escaped, workers that exit quietly, CLI edge cases)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import HANG_S, bash_emits, emits

BASH = shutil.which("bash")
RECIPELINT = [sys.executable, "-m", "recipelint"]


def _limit():
    import resource

    resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))


def run(*args, cwd=None, timeout=HANG_S, **kw):
    return subprocess.run([*RECIPELINT, *map(str, args)], cwd=cwd, capture_output=True, timeout=timeout, preexec_fn=_limit, **kw)


def codes(out: str) -> list[str]:
    return re.findall(r"^\S.*?:\d+:\d+: \w+\[(RL\d{3})\] ", out, re.M)


def real_bash(data: bytes, tmp_path: Path, direct: bool = False) -> subprocess.CompletedProcess:
    p = tmp_path / "real.sh"
    p.write_bytes(data)
    p.chmod(0o755)
    return subprocess.run([BASH, "-c", str(p)] if direct else [BASH, str(p)], capture_output=True, timeout=HANG_S, cwd=tmp_path)


# --- 1. CRLF: RL009 -----------------------------------------------------------------------


def test_crlf_recipe_is_rl009_once_with_the_count(tmp_path):
    data = b"#!/bin/bash\nTP=8\r\nif [ -n \"$TP\" ]; then\r\n  vllm serve m --tensor-parallel-size $TP\r\nfi\r\n"
    # bash: `then` CR is not `then`, and the script does not parse
    r = real_bash(data, tmp_path)
    assert r.returncode != 0 and b"syntax error" in r.stderr
    p = tmp_path / "crlf.sh"
    p.write_bytes(data)
    out = run("check", "--no-cache", "-o", "concise", p).stdout.decode()
    assert codes(out) == ["RL009"], out
    assert "crlf.sh:2:5:" in out and "4 in code, on 4 lines" in out


def test_crlf_values_carry_the_carriage_return_in_bash(tmp_path):
    # what the message claims: `TP=8` CR sets `8` and a CR
    r = real_bash(b"TP=8\r\nprintf '%q' \"$TP\"\n", tmp_path)
    assert r.stdout == b"$'8\\r'"


@pytest.mark.parametrize(
    "data",
    [
        b"X='a\r\nb'\nprintf '%q' \"$X\"\n",  # single quotes
        b'X="a\rb"\nprintf \'%q\' "$X"\n',  # double quotes
        b"cat <<EOF\nbody\r\nEOF\n",  # a here-document's body
        b"# a comment\r\necho ok\n",  # a comment's line ending
        b"# a\recho hidden\necho ok\n",  # bash: all of it is the comment
    ],
    ids=["single", "double", "heredoc", "comment", "mid-comment"],
)
def test_carriage_return_as_data_is_not_rl009(tmp_path, data):
    r = real_bash(data, tmp_path)  # bash runs it without an error: the CR is data
    assert r.returncode == 0 and not r.stderr and b"hidden" not in r.stdout
    p = tmp_path / "data.sh"
    p.write_bytes(data)
    out = run("check", "--no-cache", "-o", "concise", p).stdout.decode()
    assert "RL009" not in out, out


def test_crlf_shebang_is_rl009(tmp_path):
    data = b"#!/bin/bash\r\necho ok\n"
    r = real_bash(data, tmp_path, direct=True)
    assert r.returncode == 127 and b"cannot execute" in r.stderr or b"bad interpreter" in r.stderr
    p = tmp_path / "shebang.sh"
    p.write_bytes(data)
    out = run("check", "--no-cache", "-o", "concise", p).stdout.decode()
    assert codes(out) == ["RL009"] and "shebang.sh:1:12:" in out, out


def test_crlf_file_is_analysed_as_after_tr(tmp_path):
    # the other findings are those of the script as it means (tr -d '\r'): the flag is checked
    p = tmp_path / "flag.sh"
    p.write_bytes(b"vllm serve m --bogus-flag 1\r\n")
    out = run("check", "--no-cache", "-o", "concise", p).stdout.decode()
    assert sorted(codes(out)) == ["RL009", "RL601"], out
    assert "`--bogus-flag`" in out


# --- 2. `<<-` terminator indented with spaces: RL010 -------------------------------------------

HEREDOCS = [
    "cat <<-EOF\n\tbody\n  EOF\nemit after\n",  # spaces after <<-: to the end of the file
    "cat <<EOF\nbody\n\tEOF\nemit after\n",  # any indentation after <<
    "cat <<EOF\nbody\nEOF  \nemit after\n",  # blanks after the delimiter
    "cat <<EOF\nbody\nEOF\r\nemit after\n",  # a carriage return after it
    "cat <<-EOF\n\tbody\n  EOF\nemit mid\n\tEOF\nemit after\n",  # a later real terminator
    "cat <<-'EOF'\n\tbody\n \tEOF\nemit mid\nEOF\nemit after\n",  # quoted delimiter, space then tab
    "emit before\ncat <<-EOF\n\tbody\n\tEOF\nemit after\n",  # tabs: a terminator (no finding)
]


@pytest.mark.skipif(BASH is None, reason="needs bash")
@pytest.mark.parametrize("src", HEREDOCS)
def test_heredoc_end_matches_real_bash(src):
    # the evaluation ends the document where bash does: the statements after a terminator bash
    # does not take are text of the document
    assert emits(src) == bash_emits(src)


@pytest.mark.parametrize("src", HEREDOCS)
def test_heredoc_terminator_is_rl010(tmp_path, src):
    p = tmp_path / "doc.sh"
    p.write_bytes(src.encode())
    r = real_bash(src.replace("emit", "echo").encode(), tmp_path)
    out = run("check", "--no-cache", "-o", "concise", p).stdout.decode()
    if "emit before" in src:
        assert "RL010" not in out and not r.stderr
        return
    assert codes(out) == ["RL010"], out
    line = src.count("\n", 0, src.index("<<")) + 1
    assert f"doc.sh:{line}:" in out and "does not end at line 3" in out
    if "mid" in src:
        assert "on to line 5" in out and b"delimited by end-of-file" not in r.stderr
    else:
        assert "to the end of the file" in out and b"delimited by end-of-file" in r.stderr


def test_heredoc_swallowing_the_launch(tmp_path):
    # the launch after the space-indented terminator never runs: no RL601 about its flag
    p = tmp_path / "swallow.sh"
    p.write_bytes(b"cat > c.yaml <<-EOF\n\tx: 1\n    EOF\nvllm serve m --bogus-flag 1\n")
    out = run("check", "--no-cache", "-o", "concise", p).stdout.decode()
    assert "RL010" in codes(out) and "RL601" not in codes(out), out


# --- 3. control characters escaped in every output format -------------------------------------

ESC_RECIPE = b'vllm serve m "--bad\x1b[8mflag" 1  # \x1b]0;retitled\x07 \xc2\x9b2J \xe2\x80\xae\n'


def _strings(doc):
    if isinstance(doc, str):
        yield doc
    elif isinstance(doc, dict | list):
        for v in doc.values() if isinstance(doc, dict) else doc:
            yield from _strings(v)


@pytest.mark.parametrize("fmt", ["full", "concise", "github", "json", "json-lines", "sarif"])
def test_control_characters_never_reach_the_output_raw(tmp_path, fmt):
    (tmp_path / "r\x1b[8m.sh").write_bytes(ESC_RECIPE)
    summary = tmp_path / "summary.md"
    r = run("check", "--no-cache", "-o", fmt, "--color", "never", "--summary-file", summary, ".", cwd=tmp_path)
    assert r.returncode == 1, r.stderr
    for out in (r.stdout, r.stderr, summary.read_bytes()):
        assert b"\x1b" not in out and b"\x07" not in out and "\x9b".encode() not in out and "\u202e".encode() not in out
    text = r.stdout.decode()
    if fmt in ("json", "json-lines", "sarif"):  # valid JSON, the message carries the character escaped by JSON
        docs = [json.loads(line) for line in text.splitlines()] if fmt == "json-lines" else [json.loads(text)]
        assert any("--bad\x1b[8mflag" in t for t in _strings(docs))  # (written `\\u001b` by the JSON encoder)
    else:
        assert "--bad\\x1b[8mflag" in text and "r\\x1b[8m.sh" in text
    if fmt == "full":  # the caret still under the word, counted in escaped characters
        frame = text.splitlines()
        i = next(k for k, ln in enumerate(frame) if ln.startswith("1 | "))
        assert frame[i + 1].index("^") == frame[i].index('"--bad')
        assert "\\x1b]0;retitled\\x07" in frame[i] and "\\x9b2J" in frame[i] and "\\u202e" in frame[i]


def test_control_characters_escaped_with_colour_and_in_render(tmp_path):
    p = tmp_path / "r.sh"
    p.write_bytes(ESC_RECIPE)
    r = run("check", "--no-cache", "--color", "always", p)
    assert b"\x1b[8m" not in r.stdout and b"\x1b[1;33m" in r.stdout  # recipelint's colours only
    r = run("render", p)
    assert b"\x1b" not in r.stdout + r.stderr and b"--bad\\x1b[8mflag" in r.stdout


def test_github_annotation_escapes():
    from recipelint.report.github import _esc_data, _esc_prop

    assert _esc_data("100% a\nb\r") == "100%25 a%0Ab\\x0d"
    assert _esc_prop("a:b,c%") == "a%3Ab%2Cc%25"
    assert _esc_data("\x1b[8m") == "\\x1b[8m"


# --- 4. workers exit quietly when the parent goes -----------------------------------------------

IX = Path("/work/ix/git/benchmarks")


@pytest.fixture(scope="module")
def big_tree(tmp_path_factory):
    if not IX.is_dir():
        pytest.skip("needs the InferenceX checkout (/work/ix/git)")
    root = tmp_path_factory.mktemp("big")
    shutil.copytree(IX, root / "benchmarks")
    (root / ".git").mkdir()
    return root


def _start(root, *args):
    return subprocess.Popen(
        [*RECIPELINT, "check", "--no-cache", "--jobs", "2", *args, "benchmarks"],
        cwd=root,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,  # (its own process group: the workers are found, and gone, by it)
        preexec_fn=_limit,
    )


def _group_gone(pgid: int, within: float = HANG_S) -> bool:
    """Whether the process group ``pgid`` is gone, waiting for it up to ``within`` seconds (a hang
    guard only: it returns as soon as the group is gone)."""
    import time

    end = time.monotonic() + within
    while time.monotonic() < end:
        try:
            os.killpg(pgid, 0)
        except ProcessLookupError:
            return True
        time.sleep(0.1)
    return False


@pytest.mark.parametrize("sig", ["SIGTERM", "SIGINT"])
def test_signal_mid_run_ends_quietly(big_tree, sig):
    import signal
    import time

    proc = _start(big_tree, "-o", "concise")
    time.sleep(1.0)  # (workers started, mid-run)
    assert proc.poll() is None, "the run ended before the signal: the tree is too small for this test"
    # SIGINT as a terminal sends it: to the whole process group; SIGTERM to the parent only
    if sig == "SIGINT":
        os.killpg(proc.pid, signal.SIGINT)
    else:
        proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=HANG_S)
    assert b"Traceback" not in err and b"Error" not in err, err.decode()[-2000:]
    assert proc.returncode == (143 if sig == "SIGTERM" else 130)
    assert _group_gone(proc.pid), "workers left running"


def test_parent_killed_mid_run_leaves_quiet_workers(big_tree):
    # SIGKILL: the parent cannot stop its workers; each ends at its next result (a closed pipe),
    # saying nothing
    import signal
    import time

    proc = _start(big_tree, "-o", "concise")
    time.sleep(1.0)
    assert proc.poll() is None
    proc.send_signal(signal.SIGKILL)
    _, err = proc.communicate(timeout=HANG_S)  # (until every worker has closed its stderr)
    assert b"Traceback" not in err and b"Error" not in err, err.decode()[-2000:]
    assert _group_gone(proc.pid)


def test_closed_stdout_pipe_is_quiet(big_tree):
    # `recipelint check ... | head -1`: the reader leaves after one line
    r = subprocess.run(
        f"{sys.executable} -m recipelint check --no-cache --jobs 2 -o full benchmarks | head -1",
        shell=True,
        cwd=big_tree,
        capture_output=True,
        timeout=HANG_S,
        preexec_fn=_limit,
    )
    assert len(r.stdout.splitlines()) == 1
    assert b"Traceback" not in r.stderr and b"Error" not in r.stderr, r.stderr.decode()[-2000:]


# --- 5. CLI edge cases ------------------------------------------------------------------------


@pytest.mark.parametrize("args", [["check", "--diff-base", ""], ["check", "--diff-base", "  "], ["changes", "--base", ""]])
def test_empty_revision_is_a_one_line_error(tmp_path, args):
    (tmp_path / "r.sh").write_text("vllm serve m\n")
    r = run(*args, "r.sh", cwd=tmp_path)
    lines = r.stderr.decode().splitlines()
    assert r.returncode == 2 and len(lines) == 1 and lines[0].startswith("recipelint: --") and "empty revision" in lines[0]
    assert not r.stdout


def test_action_passes_no_empty_diff_base():
    # the Action's default (`github.event.pull_request.base.sha`) is empty off a pull request: it
    # must leave the option out then, not pass `--diff-base ''` (now an error)
    text = (Path(__file__).resolve().parents[1] / "action.yml").read_text()
    i = text.index('args+=(--diff-base "$RL_DIFF_BASE")')
    assert 'if [ -n "$RL_DIFF_BASE" ]; then' in text[:i].rsplit("\n        fi", 1)[-1]


# --- tools/word_diff.py runs only safe fragments, under a guard ---------------------------------

ATTACKS = [
    "[[ $'a[\\x24(touch {m})]' -eq 0 ]]",  # ANSI-C quoting hides the `$(`
    "[[ a[\\$\\(touch\\ {m}\\)] -eq 0 ]]",  # escaped
    "[[ '$'\"(touch {m})\" -eq 0 ]]",  # quoted apart
    "[[ ${{X:=\\\\x24\\\\x28touch {m}\\\\x29}}${{X@E}} -eq 0 ]]",  # an escape transformation
    "[[ $\"a[\\x24(touch {m})]\" -eq 0 ]]",  # locale quoting
]


@pytest.mark.parametrize("attack", ATTACKS)
def test_word_diff_refuses_words_that_could_run_a_command(tmp_path, attack):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))
    import word_diff

    marker = tmp_path / "ran"
    src = attack.format(m=marker)
    assert word_diff.unsafe(src)
    script = tmp_path / "a.sh"
    script.write_text(f"if {src}; then echo; fi\n")
    r = subprocess.run(
        [sys.executable, "tools/word_diff.py", str(script)],
        cwd=Path(__file__).resolve().parents[1],
        capture_output=True,
        timeout=HANG_S,
    )
    assert b"fragments compared: 0" in r.stdout and not marker.exists()


def test_word_diff_guard_stops_a_command_substitution(tmp_path):
    # should a word pass `unsafe`, bash runs it under GUARD: the subshell ends before its command
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))
    import word_diff

    marker = tmp_path / "ran"
    src = f"[[ $'a[\\x24(touch {marker})]' -eq 0 ]]; emit after\n"
    assert bash_emits(word_diff.GUARD + src) == [["after"]] and not marker.exists()
    bash_emits(src)  # (the attack itself, unguarded: it does run)
    assert marker.exists()
    assert not word_diff.unsafe('"${X:-d}" ${A[@]} $1 "$@" ${#X} ${X@Q}')  # ordinary expansions pass


@pytest.mark.parametrize(
    "data",
    [b"echo" + b" \r" * (4 << 20) + b"\n", b"echo a\r\n" * 100_000, b"X='" + b"\r" * (8 << 20) + b"'\nvllm serve m\r\n"],
    ids=["one-line", "crlf-lines", "quoted"],
)
def test_many_carriage_returns_stay_bounded(tmp_path, data):
    # one finding whatever the count (no offset kept per carriage return), under 2 GiB
    p = tmp_path / "many.sh"
    p.write_bytes(data)
    r = run("check", "--no-cache", "-o", "concise", p)
    out = r.stdout.decode()
    assert r.returncode == 1 and codes(out).count("RL009") == 1, (r.returncode, out[-500:], r.stderr[-500:])


def test_many_space_indented_terminators_stay_bounded(tmp_path):
    # 40,000 documents, each with a terminator bash does not take: the first swallows the rest
    # (one scan of the file, not one per document), one finding
    p = tmp_path / "docs.sh"
    p.write_bytes(b"cat <<-EOF\n\tx\n  EOF\n" * 40_000 + b"vllm serve m\n")
    r = run("check", "--no-cache", "-o", "concise", p)
    out = r.stdout.decode()
    assert r.returncode == 1 and codes(out).count("RL010") == 1 and "lines 4–120001 are text" in out, out[-500:]


def test_stderr_notes_never_start_a_line_from_repository_text(tmp_path, monkeypatch):
    """A file named `requirements\\n::stop-commands::X\\n.txt` (with a pin that disagrees) made the
    engine-pins note print a line `::stop-commands::X`, which a GitHub runner obeys (issue 49):
    every stderr note is one line, its newlines written as escapes."""
    from typer.testing import CliRunner

    from recipelint.cli import app

    (tmp_path / ".git").mkdir()
    (tmp_path / "r.sh").write_text("#!/usr/bin/env bash\nvllm serve org/m &\n")
    (tmp_path / "requirements.txt").write_text("vllm==0.10.1\n")
    (tmp_path / "requirements\n::stop-commands::X\n.txt").write_text("vllm==0.11.0\n")
    monkeypatch.chdir(tmp_path)
    r = CliRunner().invoke(app, ["check", ".", "-o", "github", "--no-cache"])
    notes = [line for line in r.stderr.splitlines() if "pins disagree" in line]
    assert notes and "\\n::stop-commands::X\\n.txt" in notes[0], r.stderr
    assert not any(line.startswith("::stop-commands") for line in r.stderr.splitlines() + r.stdout.splitlines())


@pytest.mark.parametrize("option", ["--output-file", "--sarif-file", "--summary-file", "--write-baseline"])
@pytest.mark.parametrize("dangling", [False, True])
def test_report_files_are_not_written_through_a_link(tmp_path, monkeypatch, option, dangling):
    """A link committed where CI writes a report (issue 49): refused with one line, exit 2, and
    nothing written where it points (a dangling link would have created a file outside the tree)."""
    from typer.testing import CliRunner

    from recipelint.cli import app

    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / "r.sh").write_text("#!/usr/bin/env bash\nvllm serve org/m --no-such-flag 1 &\n")
    target = tmp_path / "outside.txt"
    if not dangling:
        target.write_text("keep\n")
    (repo / "out.txt").symlink_to(target)
    monkeypatch.chdir(repo)
    r = CliRunner().invoke(app, ["check", ".", "--no-cache", option, "out.txt"])
    assert r.exit_code == 2 and "symbolic link" in r.output, r.output
    assert (target.read_text() == "keep\n") if not dangling else not target.exists()


@pytest.mark.parametrize("sep", ["\u2028", "\u2029", "\x85"])
def test_a_line_separator_in_a_file_name_is_escaped(tmp_path, sep):
    """Found by the file-name fuzz run (issue 49): U+2028 in a recipe's name reached the github
    and concise outputs raw — a line break to Python's splitlines, JavaScript and many log
    viewers.  It is written as an escape, as control characters are."""
    (tmp_path / ".git").mkdir()
    (tmp_path / f"a{sep}b.sh").write_text("#!/bin/bash\nvllm serve m --no-such-flag-xyz 1\n")
    for fmt in ("github", "concise"):
        r = run("check", ".", "--no-cache", "-o", fmt, cwd=tmp_path)
        out = r.stdout.decode()
        assert sep not in out and r.returncode == 1, out
        assert (f"a\\u{ord(sep):04x}b.sh" in out) or (f"a\\x{ord(sep):02x}b.sh" in out), out
