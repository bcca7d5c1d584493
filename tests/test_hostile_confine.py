"""Confinement (issue 33, item 1): a checked repository is untrusted, so recipelint reads only
its files — inside the project root or a ``--search-root`` folder, never /proc, /dev, /sys, only
regular files, bounded — and what it refuses is said (RL008 for a sourced file, RL003 for a
recipe, a one-line error for the command line).  The key case: the CI job's environment (a
token) must never reach any output.

Runs go through a subprocess (a real environment holding the secret, a timeout, a memory cap)."""

from __future__ import annotations

import ast
import json
import os
import resource
import secrets
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import HANG_S

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent / "recipelint"
SECRET = "hf_" + secrets.token_hex(16)

RECIPE = """#!/usr/bin/env bash
source /proc/self/environ
vllm serve m --tool-call-parser "$HF_TOKEN" --tensor-parallel-size 8
"""


def _limits():
    resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))


def run(*args, cwd: Path, stdin=subprocess.DEVNULL, env_extra=None) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("RECIPELINT_", "FORCE_COLOR"))}
    env.update({"HF_TOKEN": SECRET, "SECRET_IN_ENV": SECRET, "NO_COLOR": "1"}, **(env_extra or {}))
    env["RECIPELINT_CACHE_DIR"] = str(cwd.parent / "cache")
    r = subprocess.run(
        [str(BIN), *map(str, args)],
        cwd=cwd,
        env=env,
        stdin=stdin,
        capture_output=True,
        text=True,
        timeout=HANG_S,  # (a hang guard only: each run takes ~1 s here)
        preexec_fn=_limits,
    )
    assert "Traceback" not in r.stderr, r.stderr
    return r


def no_secret(r: subprocess.CompletedProcess, *files: Path) -> None:
    assert SECRET not in r.stdout and SECRET not in r.stderr, (r.stdout, r.stderr)
    for f in files:
        if f.exists():
            assert SECRET not in f.read_text(encoding="utf-8", errors="replace"), f


def one_line_error(r: subprocess.CompletedProcess) -> str:
    assert r.returncode == 2, (r.stdout, r.stderr)
    lines = [ln for ln in r.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("recipelint: "), r.stderr
    return lines[0]


def repo(tmp_path: Path, master: bool = False) -> Path:
    """A checked repository: ``repo/`` (with ``.git``), its recipe, and ``outside/`` beside it
    holding the secret."""
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    (root / "benchmarks").mkdir()
    (root / "benchmarks" / "r.sh").write_text(RECIPE)
    out = tmp_path / "outside"
    out.mkdir()
    (out / "secret.sh").write_text(f"HF_TOKEN={SECRET}\nvllm serve {SECRET} --tool-call-parser {SECRET}\n")
    (out / "secret-master.yaml").write_text(
        f"e:\n  image: {SECRET}\n  model: {SECRET}\n  model-prefix: r\n  precision: fp8\n  framework: vllm\n"
        f"  runner: {SECRET}\n  scenarios: {{}}\n"
    )
    if master:
        (root / "configs").mkdir()
        (root / "configs" / "x-master.yaml").write_text(
            "r-fp8-h100-vllm:\n  image: vllm/vllm-openai:v0.11.0\n  model: org/m\n  model-prefix: r\n"
            "  precision: fp8\n  framework: vllm\n  runner: h100\n  multinode: false\n"
            "  scenarios:\n    fixed-seq-len:\n      - isl: 1024\n        osl: 1024\n        search-space:\n"
            "          - { tp: 8, conc-start: 4, conc-end: 4 }\n"
        )
        (root / "configs" / "runners.yaml").write_text("labels:\n  h100: [h100_a]\n")
    return root


# ---- the leak test: `source /proc/self/environ` with the token in recipelint's environment ------


@pytest.mark.parametrize("fmt", ["full", "concise", "json", "json-lines", "github", "sarif"])
def test_environ_secret_never_in_check_output(tmp_path, fmt):
    root = repo(tmp_path)
    sarif, summary = tmp_path / "out.sarif", tmp_path / "summary.md"
    r = run("check", ".", "-o", fmt, "--no-cache", "--sarif-file", sarif, "--summary-file", summary, cwd=root)
    no_secret(r, sarif, summary)
    assert r.returncode == 1
    # the refusal is said, at the `source` line
    assert "RL008" in r.stdout or "file-not-followed" in r.stdout, r.stdout
    if fmt == "json":
        found = json.loads(r.stdout)
        assert [(f["code"], f["location"]["line"]) for f in found if f["code"] == "RL008"] == [("RL008", 2)]


def test_environ_secret_never_in_statistics_and_cached_runs(tmp_path):
    root = repo(tmp_path)
    for _ in range(2):  # cold, then from the cache
        r = run("check", ".", "--statistics", cwd=root)
        no_secret(r)
        assert "RL008" in r.stdout
        no_secret(run("check", ".", "-o", "json", cwd=root))


def test_environ_secret_never_in_render_sweep_changes(tmp_path):
    root = repo(tmp_path, master=True)
    recipe = root / "benchmarks" / "single_node" / "fixed_seq_len" / "r_fp8_h100.sh"
    recipe.parent.mkdir(parents=True)
    recipe.write_text(RECIPE)
    for fmt in ("text", "json"):
        r = run("render", recipe, "--format", fmt, cwd=root)
        no_secret(r)
        assert "--tool-call-parser" in r.stdout  # the launch is rendered, its value unknown
        r = run("sweep", recipe, "--format", fmt, cwd=root)
        no_secret(r)
        assert r.returncode == 0 and "vllm" in r.stdout, (r.stdout, r.stderr)
        r = run("sweep", recipe, "--point", "1", cwd=root)
        no_secret(r)
        assert "--tool-call-parser" in r.stdout, r.stdout
    git = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t"}
    (root / ".git").rmdir()
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    subprocess.run(["git", "add", "-A"], cwd=root, check=True)
    subprocess.run(["git", "commit", "-qm", "base"], cwd=root, check=True, env={**os.environ, **git})
    recipe.write_text(RECIPE.replace("--tensor-parallel-size 8", '--tensor-parallel-size 8 --served-model-name "$HF_TOKEN"'))
    r = run("changes", ".", "--base", "HEAD", "--no-cache", cwd=root)
    no_secret(r)
    assert r.returncode == 0 and "--served-model-name" in r.stdout, (r.stdout, r.stderr)
    summary = tmp_path / "summary.md"
    r = run("check", ".", "--diff-base", "HEAD", "--no-cache", "--summary-file", summary, cwd=root)
    no_secret(r, summary)


def test_ambient_environment_never_flows_into_values(tmp_path):
    # no `source`: `$HF_TOKEN` is a variable of the caller's environment, which recipelint does not
    # read — only --env gives it a value
    root = repo(tmp_path)
    (root / "benchmarks" / "r.sh").write_text(
        'vllm serve m --tool-call-parser "$HF_TOKEN" --served-model-name "$SECRET_IN_ENV"\n'
    )
    for fmt in ("full", "json"):
        no_secret(run("check", ".", "-o", fmt, "--no-cache", cwd=root))
    r = run("render", "benchmarks/r.sh", "--format", "json", cwd=root)
    no_secret(r)
    given = run("render", "benchmarks/r.sh", "--format", "json", "--env", "HF_TOKEN=given-on-purpose", cwd=root)
    assert "given-on-purpose" in given.stdout  # the documented way in


def test_no_module_of_the_analysis_reads_the_process_environment():
    # the static side of the test above: os.environ / os.getenv appear only where the process
    # itself is configured (colour, git's environment, the cache directory, pre-commit's refs)
    allowed = {"recipelint/report/style.py", "recipelint/gitdiff.py", "recipelint/cache/store.py"}
    for base in (ROOT / "recipelint", ROOT / "rules"):
        for p in sorted(base.rglob("*.py")):
            rel = p.relative_to(ROOT).as_posix()
            tree = ast.parse(p.read_text(encoding="utf-8"))
            for node in ast.walk(tree):
                if isinstance(node, ast.Attribute) and node.attr in ("environ", "getenv", "environb") and rel not in allowed:
                    raise AssertionError(f"{rel}:{node.lineno}: reads the process environment")


# ---- links and configs leaving the root ------------------------------------------------------------


def test_recipe_linked_outside_is_rl003_and_never_shown(tmp_path):
    root = repo(tmp_path)
    (root / "benchmarks" / "link.sh").symlink_to(tmp_path / "outside" / "secret.sh")
    for args in (["."], ["benchmarks/link.sh"]):
        for fmt in ("full", "json", "sarif", "github"):
            r = run("check", *args, "-o", fmt, "--no-cache", cwd=root)
            no_secret(r)
            assert "RL003" in r.stdout and "outside the project root" in r.stdout, r.stdout
    no_secret(run("render", "benchmarks/link.sh", cwd=root))


def test_source_of_a_file_outside_is_rl008_and_not_followed(tmp_path):
    root = repo(tmp_path)
    (root / "benchmarks" / "r.sh").write_text('source ../../outside/secret.sh\nvllm serve m --tool-call-parser "$HF_TOKEN"\n')
    (root / "benchmarks" / "lib.sh").symlink_to(tmp_path / "outside" / "secret.sh")
    (root / "benchmarks" / "s.sh").write_text('. ./lib.sh\nbash ./lib.sh\nvllm serve m --tool-call-parser "$HF_TOKEN"\n')
    r = run("check", ".", "-o", "json", "--no-cache", cwd=root)
    no_secret(r)
    got = sorted(
        (f["location"]["path"].rsplit("/", 1)[-1], f["location"]["line"]) for f in json.loads(r.stdout) if f["code"] == "RL008"
    )
    assert got == [("r.sh", 1), ("s.sh", 1), ("s.sh", 2)]
    # --search-root lets the invoker open a folder: then it is followed
    r = run("check", ".", "-o", "json", "--no-cache", "--search-root", tmp_path / "outside", cwd=root)
    assert not [f for f in json.loads(r.stdout) if f["code"] == "RL008"]


def test_settings_configs_outside_the_root_are_not_read(tmp_path):
    root = repo(tmp_path)
    (root / ".recipelint.yaml").write_text(f"configs: [{tmp_path / 'outside' / 'secret-master.yaml'}]\n")
    r = run("check", ".", "--no-cache", cwd=root)
    no_secret(r)
    assert "outside the project root" in one_line_error(r)
    (root / ".recipelint.yaml").write_text("configs: [../outside/secret-master.yaml]\n")
    no_secret(r := run("check", ".", "--no-cache", cwd=root))
    one_line_error(r)
    (root / ".recipelint.yaml").write_text("configs: [/proc/self/environ]\n")
    assert "/proc" in one_line_error(run("check", ".", "--no-cache", cwd=root))


def test_master_config_linked_outside_is_not_read(tmp_path):
    root = repo(tmp_path, master=True)
    (root / "configs" / "y-master.yaml").symlink_to(tmp_path / "outside" / "secret-master.yaml")
    r = run("check", ".", "-o", "json", "--no-cache", cwd=root)
    no_secret(r)
    rl500 = [f for f in json.loads(r.stdout) if f["code"] == "RL500"]
    assert rl500 and "outside the project root" in rl500[0]["message"]


# ---- what the command line names, and what a walk finds ------------------------------------------


def test_dev_zero_fifo_and_piped_stdin_are_one_line_errors(tmp_path):
    root = repo(tmp_path)
    os.mkfifo(root / "fifo.sh")
    assert "system file" in one_line_error(run("check", "/dev/zero", "--no-cache", cwd=root))
    assert "FIFO" in one_line_error(run("check", "fifo.sh", "--no-cache", cwd=root))
    assert "FIFO" in one_line_error(run("render", "fifo.sh", cwd=root))
    p = subprocess.Popen(["echo", "vllm serve m"], stdout=subprocess.PIPE)
    try:
        line = one_line_error(run("check", "/dev/stdin", "--no-cache", cwd=root, stdin=p.stdout))
    finally:
        p.wait()
    assert "link loop" not in line and "system file" in line


def test_fifo_and_device_link_under_a_folder_are_rl003_without_hanging(tmp_path):
    root = repo(tmp_path)
    os.mkfifo(root / "benchmarks" / "fifo.sh")
    (root / "benchmarks" / "zero.sh").symlink_to("/dev/zero")
    r = run("check", ".", "-o", "json", "--no-cache", cwd=root)
    got = sorted((f["location"]["path"].rsplit("/", 1)[-1], f["code"]) for f in json.loads(r.stdout) if f["code"] == "RL003")
    assert got == [("fifo.sh", "RL003"), ("zero.sh", "RL003")]


def test_sourced_fifo_is_not_opened(tmp_path):
    root = repo(tmp_path)
    os.mkfifo(root / "benchmarks" / "env.sh")
    (root / "benchmarks" / "r.sh").write_text('source ./env.sh\nvllm serve m --tool-call-parser "$P"\n')
    r = run("check", ".", "-o", "json", "--no-cache", cwd=root)
    msgs = [f["message"] for f in json.loads(r.stdout) if f["code"] == "RL008"]
    assert len(msgs) == 1 and "FIFO" in msgs[0]


def test_oversized_sourced_file_is_not_read(tmp_path):
    root = repo(tmp_path)
    with open(root / "benchmarks" / "big.env", "wb") as fh:
        fh.truncate(17 * 1024 * 1024)  # sparse: over the 16 MiB limit
    (root / "benchmarks" / "r.sh").write_text('source ./big.env\nvllm serve m --tool-call-parser "$P"\n')
    r = run("check", ".", "-o", "json", "--no-cache", cwd=root)
    msgs = [f["message"] for f in json.loads(r.stdout) if f["code"] == "RL008"]
    assert len(msgs) == 1 and "limit" in msgs[0]


def test_missing_sourced_file_is_not_reported(tmp_path):
    root = repo(tmp_path)
    (root / "benchmarks" / "r.sh").write_text(
        'source /opt/venv-nowhere/bin/activate\nsource ./config.sh\nvllm serve m --tool-call-parser "$P"\n'
    )
    r = run("check", ".", "-o", "json", "--no-cache", cwd=root)
    assert not [f for f in json.loads(r.stdout) if f["code"] == "RL008"]


def test_sourced_name_is_not_looked_for_above_the_root(tmp_path):
    # `source config.sh` is looked for in the recipe's folders up to the root, never above (a
    # user's config.sh in a parent folder is not the project's)
    root = repo(tmp_path)
    (tmp_path / "config.sh").write_text(f"P={SECRET}\n")
    (root / "benchmarks" / "r.sh").write_text('source config.sh\nvllm serve m --tool-call-parser "$P"\n')
    r = run("check", ".", "-o", "json", "--no-cache", cwd=root)
    no_secret(r)
    assert not [f for f in json.loads(r.stdout) if f["code"] == "RL008"]


# ---- settings are looked up no higher than the project root -------------------------------------


def test_settings_in_a_shared_parent_do_not_silence_a_project(tmp_path):
    shared = tmp_path / "shared-tmp"
    (shared / "proj" / "bench").mkdir(parents=True)
    (shared / ".recipelint.yaml").write_text("ignore: [RL]\n")
    (shared / "proj" / "bench" / "r.sh").write_text("source /proc/self/environ\nvllm serve m\n")
    for proj in (shared / "proj", shared / "proj" / "bench"):  # without .git; then a repository
        r = run("check", "bench" if proj.name == "proj" else ".", "--no-cache", "-o", "concise", cwd=proj)
        assert "RL008" in r.stdout, r.stdout
    (shared / "proj" / ".git").mkdir()
    r = run("check", "bench", "--no-cache", "-o", "concise", cwd=shared / "proj")
    assert "RL008" in r.stdout, r.stdout


def test_fifo_as_settings_or_baseline_is_a_one_line_error(tmp_path):
    root = repo(tmp_path)
    os.mkfifo(root / "s.yaml")
    os.mkfifo(root / "base.json")
    assert "FIFO" in one_line_error(run("check", ".", "--no-cache", "--settings", "s.yaml", cwd=root))
    assert "FIFO" in one_line_error(run("check", ".", "--no-cache", "--baseline", "base.json", cwd=root))
    os.unlink(root / "s.yaml")
    os.mkfifo(root / ".recipelint.yaml")  # found, not given: the same
    assert "FIFO" in one_line_error(run("check", ".", "--no-cache", cwd=root))


def test_settings_linked_outside_are_not_read(tmp_path):
    root = repo(tmp_path)
    (tmp_path / "outside" / "s.yaml").write_text(f"{SECRET}: 1\n")  # (an unknown key is quoted by the error)
    (root / ".recipelint.yaml").symlink_to(tmp_path / "outside" / "s.yaml")
    r = run("check", ".", "--no-cache", cwd=root)
    no_secret(r)
    assert "outside the project root" in one_line_error(r)


def test_nothing_under_a_vcs_folder_is_read(tmp_path, monkeypatch):
    """`.git/` is inside the project but never read (issue 49, item 4): a recipe linked to
    `.git/config` (a remote URL with a token) is refused, a `source .git/config` not followed, and
    no code frame quotes it."""
    import json

    from typer.testing import CliRunner

    from recipelint.cli import app

    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "config").write_text('[remote "origin"]\n\turl = https://u:SECRET-TOKEN@example.com/r.git\n')
    (tmp_path / "evil.sh").symlink_to(tmp_path / ".git" / "config")
    (tmp_path / "r.sh").write_text("#!/usr/bin/env bash\nsource .git/config\nvllm serve org/m &\n")
    monkeypatch.chdir(tmp_path)
    r = CliRunner().invoke(app, ["check", ".", "--no-cache", "-o", "full"])
    assert "SECRET-TOKEN" not in r.output and "[remote" not in r.output, r.output
    r = CliRunner().invoke(app, ["check", ".", "--no-cache", "-o", "json"])
    got = {(f["location"]["path"], f["code"]) for f in json.loads(r.stdout)}
    assert ("evil.sh", "RL003") in got and ("r.sh", "RL008") in got, got
    assert all("inside .git/" in f["message"] for f in json.loads(r.stdout) if f["code"] in ("RL003", "RL008"))
