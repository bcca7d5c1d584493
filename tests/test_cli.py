"""`recipelint render`: text and JSON output, exit codes, one-line errors."""

from __future__ import annotations

import json

import typer
from helpers import FIXTURES, ROOT
from typer.testing import CliRunner

from recipelint.cli import app

runner = CliRunner()
ARRAY = str(FIXTURES / "render" / "array_vllm.sh")
ENV = ["--env", "MODEL=org/M", "--env", "TP=8", "--env", "CONC=64", "--env", "DP_ATTENTION=true", "--env", "EP_SIZE=8"]


def test_render_text():
    r = runner.invoke(app, ["render", ARRAY, *ENV])
    assert r.exit_code == 0, r.output
    assert "vllm serve org/M --served-model-name M --port 8888 --max-num-seqs 16" in r.output
    assert "--data-parallel-size" in r.output


def test_render_text_shows_values_that_look_like_markup(tmp_path):
    # `[a b]` and `[/]` were read by rich as markup: the value column showed nothing
    p = tmp_path / "m.sh"
    p.write_text('Y="[a b]"\nvllm serve m "$Y" --served-model-name "[/]" --tag [bold]x\n')
    r = runner.invoke(app, ["render", str(p), "--env", "TP=8"])
    assert r.exit_code == 0, r.output
    rows = [line.split() for line in r.output.splitlines()]
    assert ["(positional)", "[a", "b]", "1"] in rows
    assert ["--served-model-name", "[/]", "2"] in rows
    assert ["--tag", "[bold]x", "2"] in rows


def test_render_json():
    r = runner.invoke(app, ["render", ARRAY, *ENV, "--format", "json"])
    assert r.exit_code == 0, r.output
    data = json.loads(r.output)
    (lc,) = data["launches"]
    assert lc["engine"] == "vllm" and lc["model"] == "org/M"
    flags = {f["flag"]: f for f in lc["flags"]}
    assert flags["--max-num-seqs"]["value"] == "16"
    assert flags["--max-num-seqs"]["written_line"] == 65 and flags["--max-num-seqs"]["value_line"] == 42
    assert flags["--compilation-config"]["json"] == {
        "cudagraph_mode": "FULL_DECODE_ONLY",
        "cudagraph_capture_sizes": [2, 4, 6, 8, 10, 12, 14, 16],
    }
    assert flags["--port"]["value_path"].endswith("lib/benchmark_lib.sh")


def test_render_default_matrix_lists_points():
    r = runner.invoke(app, ["render", ARRAY, "--format", "json"])
    assert r.exit_code == 0
    data = json.loads(r.output)
    labels = [p for lc in data["launches"] for p in lc["points"]]
    assert "tp8-ep8-dpatrue-conc64" in labels


def test_missing_file_is_a_one_line_error():
    r = runner.invoke(app, ["render", "/no/such/file.sh"])
    assert r.exit_code == 2
    assert r.output.strip().splitlines() == ["recipelint: /no/such/file.sh: no such file"]


def test_no_launch_exits_2(tmp_path):
    f = tmp_path / "plain.sh"
    f.write_text("echo hello\n")
    r = runner.invoke(app, ["render", str(f)])
    assert r.exit_code == 2
    assert "no serve launch found" in r.output


def test_bad_env_and_format():
    assert runner.invoke(app, ["render", ARRAY, "--env", "NOEQUALS"]).exit_code == 2
    assert runner.invoke(app, ["render", ARRAY, "--format", "xml"]).exit_code == 2


def test_binary_file(tmp_path):
    f = tmp_path / "b.sh"
    f.write_bytes(b"\x00\x01\x02")
    r = runner.invoke(app, ["render", str(f)])
    assert r.exit_code == 2 and "binary file" in r.output


def test_the_installed_command_exits_with_the_status_and_complete_output():
    """``main()`` leaves with os._exit after flushing: the whole report arrives, with the status."""
    import subprocess
    import sys

    def run(*args):
        return subprocess.run([sys.executable, "-m", "recipelint", *args], cwd=ROOT, capture_output=True, text=True)

    r = run("check", "fixtures/seed")
    assert r.returncode == 1 and "\nFound 3 findings (2 warnings, 1 info) in 3 files.\n" in r.stdout
    r = run("--version")
    assert r.returncode == 0 and r.stdout.startswith("recipelint ")
    r = run("check", "no/such/recipe.sh")
    assert r.returncode == 2 and r.stderr.strip() == "recipelint: no/such/recipe.sh: no such file or directory"
    r = run("check", "--bogus")
    assert r.returncode == 2


def test_help_shows_every_option_text_in_full():
    # rich reads help text as markup: "[tool.recipelint]" vanished from `check --help`
    import re

    group = typer.main.get_command(app)
    for name, command in group.commands.items():
        r = runner.invoke(app, [name, "--help"], terminal_width=400, env={"COLUMNS": "400"})
        assert r.exit_code == 0, r.output
        shown = " ".join(re.sub(r"[│╭╮╰╯─]", " ", r.output).split())
        for param in command.params:
            text = getattr(param, "help", None)
            if text:
                assert " ".join(text.replace("\\[", "[").split()) in shown, (name, param.name)


def test_ctrl_c_while_the_cli_is_imported_exits_130_without_a_traceback():
    """A Ctrl-C in a run's first moments (the CLI's modules being imported) exits 130 quietly
    (issue 48): the interrupt is sent, deterministically, when `recipelint.cli` is imported."""
    import subprocess
    import sys

    code = (
        "import importlib.abc, os, signal, sys\n"
        "import recipelint.entry as entry\n"
        "class Interrupt(importlib.abc.MetaPathFinder):\n"
        "    def find_spec(self, name, path, target=None):\n"
        "        if name == 'recipelint.cli':\n"
        "            os.kill(os.getpid(), signal.SIGINT)\n"
        "        return None\n"
        "sys.meta_path.insert(0, Interrupt())\n"
        "sys.argv = ['recipelint', '--version']\n"
        "entry.main()\n"
    )
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600)
    assert p.returncode == 130 and "Traceback" not in p.stderr and p.stdout == "", (p.returncode, p.stderr)


def test_render_and_sweep_use_the_recipes_settings(tmp_path, monkeypatch):
    """`render` and `sweep` run in the recipe's Workspace (issue 48 item 1): its settings' extra
    entry points make a launch known there too, as they do for `check`."""
    (tmp_path / ".git").mkdir()
    (tmp_path / ".recipelint.yaml").write_text('extra-entry-points: {vllm: ["my-serve"]}\n')
    (tmp_path / "serve.sh").write_text("#!/bin/bash\nmy-serve org/model --max-num-seqs 8 &\n")
    monkeypatch.chdir(tmp_path)
    r = runner.invoke(app, ["render", "serve.sh"])
    assert r.exit_code == 0 and "--max-num-seqs 8" in r.output, r.output
    (tmp_path / ".recipelint.yaml").unlink()
    r = runner.invoke(app, ["render", "serve.sh"])
    assert r.exit_code == 2 and "no serve launch found" in r.output
