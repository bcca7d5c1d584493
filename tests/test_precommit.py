"""The pre-commit hook, run by the real ``pre-commit`` in temporary git repositories.

``--all-files`` must give exactly what ``recipelint check .`` gives; a commit must report what the
staged change introduced — also in a sibling it did not touch — and not what was there before.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import ROOT
from ruamel.yaml import YAML

PRE_COMMIT = shutil.which("pre-commit", path=str(Path(sys.executable).parent)) or shutil.which("pre-commit")
pytestmark = pytest.mark.skipif(PRE_COMMIT is None, reason="pre-commit is not installed (pip install -e '.[dev]')")

SIBLING = """#!/usr/bin/env bash
vllm serve org/model --tensor-parallel-size "$TP" --gpu-memory-utilization 0.9 &
"""
AGENTIC_OLD_BUG = """#!/usr/bin/env bash
vllm serve deepseek-ai/DeepSeek-V4-Pro --tensor-parallel-size "$TP" --tool-call-parser deepseek_v4 &
"""


def _hook() -> dict:
    """The project's hook definition, run from this interpreter (as `language: system`)."""
    (hook,) = YAML(typ="safe").load((ROOT / ".pre-commit-hooks.yaml").read_text())
    hook = dict(hook)
    assert hook["entry"].startswith("recipelint ")
    hook["entry"] = f"{sys.executable} -m recipelint" + hook["entry"][len("recipelint") :]
    hook["language"] = "system"
    hook.pop("description", None)
    return hook


def _env(tmp: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GIT_", "PRE_COMMIT"))}
    env.update(
        HOME=str(tmp),
        PRE_COMMIT_HOME=str(tmp / "pc-home"),
        RECIPELINT_CACHE_DIR=str(tmp / "cache"),
        GIT_AUTHOR_NAME="t",
        GIT_AUTHOR_EMAIL="t@example.com",
        GIT_COMMITTER_NAME="t",
        GIT_COMMITTER_EMAIL="t@example.com",
        NO_COLOR="1",
    )
    return env


def _run(cmd: list[str], repo: Path, env: dict) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, cwd=repo, env=env, capture_output=True, text=True, timeout=300)


@pytest.fixture
def repo(tmp_path):
    import json

    repo = tmp_path / "r"
    files = {
        "benchmarks/m_fp8_b200_vllm.sh": SIBLING,
        "benchmarks/m_fp8_b300_vllm.sh": SIBLING,
        "benchmarks/agentic/dsv4_fp4_b200_vllm.sh": AGENTIC_OLD_BUG,  # RL201, there before
        "configs/deprecated/old-master.yaml": "not: [a, master, config\n",  # (never a sweep source)
        ".github/workflows/ci.yml": "on: push\njobs: {}\n",  # (a workflow that is not a dispatch one)
    }
    for name, text in files.items():
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_text(text)
    (repo / ".pre-commit-config.yaml").write_text(json.dumps({"repos": [{"repo": "local", "hooks": [_hook()]}]}))
    env = _env(tmp_path)
    for cmd in (["git", "init", "-q", "-b", "main"], ["git", "add", "-A"], ["git", "commit", "-qm", "one"]):
        subprocess.run(cmd, cwd=repo, env=env, check=True, capture_output=True)
    return repo


def _hook_output(out: str) -> str:
    """What the hook printed, without pre-commit's status lines."""
    lines = out.splitlines()
    body = [ln for ln in lines if not re.match(r"^(recipelint\.+|- hook id:|- exit code:|- duration:)", ln)]
    return "\n".join(body).strip()


def test_the_hook_file_matches_what_the_code_assumes():
    from recipelint.gitdiff import HOOK_FILES

    (hook,) = YAML(typ="safe").load((ROOT / ".pre-commit-hooks.yaml").read_text())
    assert hook["files"] == HOOK_FILES.pattern and hook.get("require_serial") is True


def test_all_files_is_exactly_check_dot(repo, tmp_path):
    env = _env(tmp_path)
    pc = _run([PRE_COMMIT, "run", "--all-files"], repo, env)
    direct = _run([sys.executable, "-m", "recipelint", "check", "."], repo, env)
    assert direct.returncode == 1 and "RL201" in direct.stdout
    assert pc.returncode == 1
    assert _hook_output(pc.stdout) == (direct.stdout + direct.stderr).strip()
    assert "skipped" not in pc.stdout and "deprecated" not in pc.stdout


def test_a_commit_reports_what_it_introduced_also_in_an_unchanged_sibling(repo, tmp_path):
    env = _env(tmp_path)
    b300 = repo / "benchmarks/m_fp8_b300_vllm.sh"
    b300.write_text(SIBLING.replace(" &", " --tokenizer org/other-tokenizer &"))
    _run(["git", "add", str(b300)], repo, env)
    pc = _run([PRE_COMMIT, "run"], repo, env)  # (what `git commit` runs: the staged files)
    out = _hook_output(pc.stdout)
    assert pc.returncode == 1, pc.stdout + pc.stderr
    assert "RL401" in out and "RL201" not in out  # the old agentic bug was there before
    assert "m_fp8_b200_vllm.sh" in out  # the sibling the commit did not touch is named
    # a real commit through the installed hook is refused for the same reason
    assert _run([PRE_COMMIT, "install"], repo, env).returncode == 0
    commit = _run(["git", "commit", "-qm", "two"], repo, env)
    assert commit.returncode != 0 and "RL401" in commit.stdout + commit.stderr


def test_a_commit_that_only_moves_lines_passes(repo, tmp_path):
    env = _env(tmp_path)
    rec = repo / "benchmarks/agentic/dsv4_fp4_b200_vllm.sh"
    rec.write_text(AGENTIC_OLD_BUG.replace("#!/usr/bin/env bash\n", "#!/usr/bin/env bash\n# notes\n\n"))
    _run(["git", "add", str(rec)], repo, env)
    pc = _run([PRE_COMMIT, "run"], repo, env)
    assert pc.returncode == 0, pc.stdout + pc.stderr
