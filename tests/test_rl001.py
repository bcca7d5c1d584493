"""RL001's consequence agrees with bash: bash runs a script up to its first syntax error, then
stops (the message said "bash runs nothing of the file"; a placeholder left in a script,
`export KEY=<YOUR_KEY>`, runs every line above it first)."""

from __future__ import annotations

import json
import shutil
import subprocess

from typer.testing import CliRunner

from recipelint.cli import app

SCRIPT = '#!/usr/bin/env bash\necho first\nexport KEY=<YOUR_KEY>\necho after\nvllm serve org/m --tensor-parallel-size 8\n'


def test_the_message_says_what_bash_does_at_a_syntax_error(tmp_path):
    p = tmp_path / "run.sh"
    p.write_text(SCRIPT)
    proc = subprocess.run([shutil.which("bash") or "bash", str(p)], capture_output=True, text=True)
    assert proc.stdout == "first\n" and proc.returncode == 2  # (the line above ran; nothing after)
    r = CliRunner().invoke(app, ["check", str(p), "--no-cache", "-o", "json"])
    (f,) = [f for f in json.loads(r.stdout) if f["code"] == "RL001"]
    assert f["location"]["line"] == 3
    assert f["message"].endswith("fix the syntax here (bash stops at it: nothing after it runs)"), f["message"]
