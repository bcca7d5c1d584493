"""The engine release a repository without master configs runs (issue 34 item 4): declared in the
settings (`engine-versions`), or read from the repository's own pins (requirements*.txt,
pyproject.toml, a Dockerfile's FROM) where they agree; a sweep point's image wins over both, the
settings over the pins, and findings that depend on the version say where it came from."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from recipelint.cli import app
from recipelint.engines import facts

runner = CliRunner()

SERVE = """#!/usr/bin/env bash
vllm serve org/m --num-scheduler-steps 8 --max-seq-len-to-capture 8192 --port 8000
"""


@pytest.fixture(autouse=True)
def _fresh_facts():
    facts.reset()
    yield
    facts.reset()


@pytest.fixture
def repo(tmp_path, monkeypatch) -> Path:
    (tmp_path / ".git").mkdir()
    (tmp_path / "serve.sh").write_text(SERVE)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _check(*args: str):
    return runner.invoke(app, ["check", *(args or (".",)), "-o", "json-lines", "--no-cache"])


def _lines(r) -> list[str]:
    """Each finding as ``path:line:col: severity[CODE] headline | note | note`` (the version judged
    and its provenance are notes)."""
    import json

    out = []
    for raw in r.stdout.splitlines():
        if raw.strip().startswith("{"):
            f = json.loads(raw)
            loc = f["location"]
            out.append(
                f"{loc['path']}:{loc['line']}:{loc['col']}: {f['severity']}[{f['code']}] {f['message']}"
                + "".join(f" | {n}" for n in f.get("notes", []))
            )
    return out


def _rl601(r) -> dict[str, str]:
    """flag -> the RL601 line about it."""
    out = {}
    for line in _lines(r):
        if "[RL601]" in line:
            for flag in ("--num-scheduler-steps", "--max-seq-len-to-capture", "--no-such-flag-xyz"):
                if f"`{flag}`" in line:
                    out[flag] = line
    return out


def _settings(repo: Path, text: str) -> None:
    (repo / ".recipelint.yaml").write_text(text)


# -- declared in the settings ------------------------------------------------------------------


def test_declared_0_10_0_accepts_both_flags(repo):
    _settings(repo, "engine-versions: {vllm: '0.10.0'}\n")
    r = _check()
    assert r.exit_code == 0, r.output
    assert _rl601(r) == {}


def test_declared_0_10_1_rejects_num_scheduler_steps_naming_the_declaration(repo):
    _settings(repo, "engine-versions: {vllm: '0.10.1'}\n")
    got = _rl601(_check())
    assert set(got) == {"--num-scheduler-steps"}, got
    line = got["--num-scheduler-steps"]
    assert "error[RL601]" in line
    assert "is not a flag of vLLM 0.10.1" in line and "was removed in vLLM 0.10.1 (last in 0.10.0)" in line
    assert "vLLM 0.10.1: declared in .recipelint.yaml" in line


def test_declared_in_pyproject_names_the_table(repo):
    (repo / "pyproject.toml").write_text('[tool.recipelint]\nengine-versions = {vllm = "0.11.0"}\n')
    got = _rl601(_check())
    assert "vLLM 0.11.0: declared in pyproject.toml [tool.recipelint]" in got["--max-seq-len-to-capture"]


def test_an_environments_entry_scopes_its_own_version(repo):
    (repo / "old").mkdir()
    (repo / "old" / "serve.sh").write_text(SERVE)
    _settings(repo, "engine-versions: {vllm: '0.11.0'}\nenvironments: [{files: 'old/*', engine-versions: {vllm: '0.10.0'}}]\n")
    r = _check()
    lines = [x for x in _lines(r) if "[RL601]" in x]
    assert lines and all(x.startswith("serve.sh:") for x in lines), lines
    assert all("declared in .recipelint.yaml" in x for x in lines)


@pytest.mark.parametrize(
    "text, says",
    [
        ("engine-versions: {vllm: '0.10.5'}\n", "'0.10.5' is not a vLLM release recipelint knows (nearest: 0.10.2, 0.11.0)"),
        ("engine-versions: {vllm: '99.0.0'}\n", "is newer than every vLLM release recipelint knows (the newest is"),
        ("engine-versions: {vllm: '0.1.0'}\n", "is older than every vLLM release recipelint knows (the oldest is 0.8.0)"),
        ("engine-versions: {vllm: 0.10}\n", 'must be a release as a string (like "0.10.1"), got 0.1'),
        ("engine-versions: {vllm: 'latest'}\n", "'latest' is not a release number"),
        ("engine-versions: {sglang: '0.10.1'}\n", "`engine-versions.sglang`: '0.10.1'"),
        ("engine-versions: {vlm: '0.10.1'}\n", "`engine-versions.vlm`: engine must be one of atom, sglang, vllm"),
        ("engine-versions: {trtllm: '1.2.0'}\n", "no release history of TensorRT-LLM, so its version would not be judged"),
        ("engine-versions: [vllm]\n", "`engine-versions` must be a table of engine"),
        (
            "environments: [{files: 'x/*', engine-versions: {atom: '1'}}]\n",
            "`environments.engine-versions.atom`: '1' is not a release number",
        ),
    ],
)
def test_bad_declarations_are_one_line_errors(repo, text, says):
    _settings(repo, text)
    r = _check()
    assert r.exit_code == 2, r.output
    assert says in r.stderr and len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert "Traceback" not in r.output


def test_show_settings_shows_the_declaration_and_the_pins(repo):
    _settings(repo, "engine-versions: {vllm: '0.10.0'}\n")
    (repo / "requirements.txt").write_text("vllm==0.11.0\nsglang>=0.5\n")
    r = runner.invoke(app, ["check", ".", "--show-settings"])
    assert r.exit_code == 0, r.output
    assert 'engine-versions = { vllm = "0.10.0" }' in r.stdout and ".recipelint.yaml" in r.stdout
    assert "# engine pins: vLLM 0.11.0: pinned in requirements.txt:1 `vllm==0.11.0` (engine-versions wins)" in r.stdout
    assert "# engine pins: requirements.txt:2 `sglang>=0.5`: `>=0.5` is not one release, not a pin: not used" in r.stdout


# -- read from the repository's pins -----------------------------------------------------------


def test_requirements_pin_is_used_and_named(repo):
    (repo / "requirements.txt").write_text(
        "# serving\ntorch==2.8.0\nvllm[audio]==0.10.2 \\\n    --hash=sha256:00  # the engine\n"
    )
    r = _check()
    assert _rl601(r) == {"--num-scheduler-steps": _rl601(r)["--num-scheduler-steps"]}
    assert "vLLM 0.10.2: pinned in requirements.txt:3" in _rl601(r)["--num-scheduler-steps"]


def test_max_seq_len_to_capture_is_an_error_naming_the_pin_on_0_11_0(repo):
    (repo / "requirements-serve.txt").write_text("vllm==0.11.0+cu128\n")
    line = _rl601(_check())["--max-seq-len-to-capture"]
    assert "error[RL601]" in line
    assert "removed in vLLM 0.11.0 (last in 0.10.2)" in line and "vLLM 0.11.0: pinned in requirements-serve.txt:1" in line


def test_pyproject_dependency_pin(repo):
    (repo / "pyproject.toml").write_text('[project]\nname = "x"\ndependencies = [\n  "numpy",\n  "vllm==0.10.1.1",\n]\n')
    line = _rl601(_check())["--num-scheduler-steps"]
    assert "vLLM 0.10.1.1: pinned in pyproject.toml:5" in line


def test_dockerfile_from_pin(repo):
    (repo / "Dockerfile").write_text("ARG X=1\nFROM --platform=linux/amd64 vllm/vllm-openai:v0.11.0 AS base\nRUN true\n")
    got = _rl601(_check())
    assert set(got) == {"--num-scheduler-steps", "--max-seq-len-to-capture"}
    assert "vLLM 0.11.0: pinned in Dockerfile:2, `FROM --platform" not in got["--num-scheduler-steps"]
    assert "vLLM 0.11.0: pinned in Dockerfile:2, `FROM vllm/vllm-openai:v0.11.0`" in got["--num-scheduler-steps"]


def test_agreeing_pins_are_used(repo):
    (repo / "requirements.txt").write_text("vllm==0.11.0\n")
    (repo / "Dockerfile").write_text("FROM vllm/vllm-openai:v0.11.0\n")
    got = _rl601(_check())
    assert "error[RL601]" in got["--max-seq-len-to-capture"] and "pinned in Dockerfile:1" in got["--max-seq-len-to-capture"]


def test_disagreeing_pins_are_not_used_and_said(repo):
    (repo / "requirements.txt").write_text("vllm==0.10.0\n")
    (repo / "requirements-dev.txt").write_text("vllm==0.11.0\n")
    (repo / "serve.sh").write_text(SERVE + "vllm serve org/m --no-such-flag-xyz\n")
    r = _check()
    got = _rl601(r)
    # judged against every release: lifetimes as info, the flag no release has as a warning, each
    # saying why no version is known
    assert "info[RL601]" in got["--num-scheduler-steps"] and "info[RL601]" in got["--max-seq-len-to-capture"]
    assert "warning[RL601]" in got["--no-such-flag-xyz"]
    for line in got.values():
        assert "pins disagree, so none is used: requirements-dev.txt:1 `vllm==0.11.0`, requirements.txt:1 `vllm==0.10.0`" in line
    assert "recipelint: engine pins: vLLM: the repository's pins disagree" in r.stderr


def test_ranges_and_variables_are_not_pins(repo):
    (repo / "requirements.txt").write_text("vllm>=0.9\nvllm~=0.11.0\nvllm==0.10.*\n")
    (repo / "Dockerfile").write_text("FROM vllm/vllm-openai:${TAG}\n")
    got = _rl601(_check())
    assert set(got) == {"--num-scheduler-steps", "--max-seq-len-to-capture"}
    assert all("info[RL601]" in x and "(no image, no pin)" in x for x in got.values()), got


def test_settings_beat_pins(repo):
    (repo / "requirements.txt").write_text("vllm==0.11.0\n")
    _settings(repo, "engine-versions: {vllm: '0.10.0'}\n")
    r = _check()
    assert r.exit_code == 0 and _rl601(r) == {}, r.output


def test_an_image_beats_settings_and_pins(repo):
    (repo / "requirements.txt").write_text("vllm==0.10.0\n")
    _settings(
        repo, "engine-versions: {vllm: '0.10.0'}\nenvironments: [{files: '*.sh', env: {IMAGE: 'vllm/vllm-openai:v0.11.0'}}]\n"
    )
    got = _rl601(_check())
    line = got["--max-seq-len-to-capture"]
    assert "is not a flag of vLLM 0.11.0" in line and "pinned" not in line and "declared" not in line


def test_pins_in_a_subfolder_apply_when_it_is_checked(repo):
    (repo / "examples" / "old").mkdir(parents=True)
    (repo / "examples" / "old" / "serve.sh").write_text(SERVE)
    (repo / "examples" / "old" / "requirements.txt").write_text("vllm==0.11.0\n")
    sub = _rl601(_check("examples/old"))
    assert "pinned in examples/old/requirements.txt:1" in sub["--max-seq-len-to-capture"]
    # from the root, only the root's folder is looked in (no walk of the tree)
    top = [x for x in _lines(_check()) if "[RL601]" in x]
    assert top and not any("pinned" in x for x in top)


def test_the_result_cache_sees_a_pin_change(repo, tmp_path_factory, monkeypatch):
    monkeypatch.setenv("RECIPELINT_CACHE_DIR", str(tmp_path_factory.mktemp("cache")))
    (repo / "requirements.txt").write_text("vllm==0.10.0\n")

    def warm():
        return runner.invoke(app, ["check", ".", "-o", "json-lines"])

    first = warm()
    assert first.exit_code == 0 and _rl601(first) == {}, first.output
    assert warm().stdout == first.stdout
    (repo / "requirements.txt").write_text("vllm==0.11.0\n")
    after = warm()
    assert set(_rl601(after)) == {"--num-scheduler-steps", "--max-seq-len-to-capture"}, after.output
    (repo / "requirements.txt").unlink()
    gone = warm()
    assert all("no image, no pin" in x for x in _rl601(gone).values()) and _rl601(gone)
    _settings(repo, "engine-versions: {vllm: '0.10.0'}\n")
    assert _rl601(warm()) == {}


@pytest.mark.parametrize(
    "line, version",
    [
        ("vllm==0.10.1.1", "0.10.1.1"),
        ("VLLM === 0.10.0", "0.10.0"),
        ('vllm==0.10.1 ; sys_platform == "linux"', "0.10.1"),
        ("vllm==0.11.0+cu128  # pinned for CUDA 12.8", "0.11.0"),
        ("sglang[all]==0.5.3.post1", "0.5.3.post1"),
        ("vllm>=0.9", None),
        ("vllm==0.10.*", None),
        ("vllm==0.10.1,<0.11", None),
        ("vllm", None),
        ("vllm @ https://example.com/vllm-0.10.1.whl", None),
        ("vllm-ascend==0.10.1", None),  # (another distribution)
        ("-r requirements-common.txt", None),
    ],
)
def test_what_a_requirement_line_pins(line, version):
    from recipelint.engines.pins import Scan, _engines, _requirements

    packages, _ = _engines()
    pins = _requirements(line + "\n", "requirements.txt", packages, Scan())
    assert [p.version for p in pins] == ([version] if version else [])
