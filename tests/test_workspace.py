"""`lint.workspace.Workspace`: one resolution of a run's paths, settings and configs (one error
type), and a kept workspace (the language server's) whose reuse never changes a finding."""

from __future__ import annotations

from pathlib import Path

import pytest

from recipelint.lint.workspace import Workspace, WorkspaceError

AGENTIC = Path("benchmarks/single_node/agentic")
B200 = AGENTIC / "dsv4_fp4_b200_vllm.sh"
B300 = AGENTIC / "dsv4_fp4_b300_vllm.sh"


@pytest.fixture
def seed(seed_tree):
    return seed_tree  # (conftest: a copy of fixtures/seed as the working directory)


@pytest.mark.parametrize(
    ("kw", "message"),
    [
        ({"fail_on": "fatal"}, "--fail-on must be one of info, warning, error, got 'fatal'"),
        ({"output_format": "xml", "formats": ("full", "json")}, "--output-format must be one of full, json, got 'xml'"),
        ({"select": ["RL1,XY9"]}, "unknown rule code or prefix 'XY9' (see `recipelint rule --all`)"),
        ({"search_roots": [Path("nowhere")]}, "--search-root nowhere: not a directory"),
        ({"master_configs": [Path("pyproject.toml")]}, "pyproject.toml: config file not found"),
        (
            {"master_configs": [Path("configs/runners.yaml")]},
            "configs/runners.yaml: not a master config (configs/*-master.yaml); recipelint's own settings go to --settings",
        ),
    ],
)
def test_problems_are_one_workspace_error(seed, kw, message):
    with pytest.raises(WorkspaceError) as e:
        Workspace.open([Path("benchmarks")], **kw)
    assert str(e.value) == message


def test_options_carry_what_was_resolved(seed):
    (seed / ".recipelint.yaml").write_text("fail-on: error\nignore: [RL201]\n")
    ws = Workspace.open([B200], select=["RL1, RL4"], cache=False)
    assert ws.fail_on == "error" and ws.output_format == "full"
    assert ws.settings.path == seed / ".recipelint.yaml"
    assert ws.roots == [seed]
    opts = ws.options(jobs=1)
    assert opts.select == ["RL1", "RL4"] and opts.settings is ws.settings and opts.jobs == 1 and not opts.cache
    assert {f.code for f in ws.lint(opts).findings} == {"RL101", "RL401"}


def _found(result) -> list[dict]:
    return [f.to_dict() for f in result.findings]


def _fresh(paths, texts=None) -> list[dict]:
    ws = Workspace.open(paths, cache=False)
    return _found(ws.lint(ws.options(jobs=1), texts=texts))


def test_a_kept_workspace_finds_what_a_fresh_one_does(seed):
    kept = Workspace.open([B200], cache=False).keep()

    def run(texts=None):
        return _found(kept.lint(kept.options(jobs=1), paths=[B200], texts=texts))

    text = B200.read_bytes()
    first = run({B200: text})
    assert first == _fresh([B200]) and {f["code"] for f in first} == {"RL101", "RL401"}
    assert run({B200: text}) == first  # (configs and the sibling's analysis reused)
    # a text given is checked, and is not kept: the next run without it reads the file
    edited = text.replace(b"MAX_NUM_SEQS=$((2 * CONC))", b"MAX_NUM_SEQS=$((2 * CONC / TP))")
    assert run({B200: edited}) == _fresh([B200], {B200: edited}) != first
    assert run() == first
    # the sibling changed on disk: analysed again (its RL401 about the tool-call flags goes)
    sibling = B300.read_text()
    B300.write_text(sibling.replace("    --tool-call-parser deepseek_v4\n    --enable-auto-tool-choice\n", ""))
    after = run({B200: text})
    assert after == _fresh([B200]) != first
    # a master config changed on disk: loaded again (the points the findings hold for change)
    cfg = seed / "configs" / "nvidia-master.yaml"
    cfg.write_text(cfg.read_text().replace("conc-list: [8, 16, 24, 32, 40,", "conc-list: [8, 16, 24, 32, 44,", 1))
    assert "32, 44," in cfg.read_text()
    moved = run({B200: text})
    assert moved == _fresh([B200]) != after
