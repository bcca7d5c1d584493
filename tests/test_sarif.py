"""SARIF for code scanning over every rule's fixtures: valid against the official 2.1.0 schema, one
fingerprint per result, the same fingerprints after lines are inserted above the findings, and rule
metadata (help pages, descriptions, levels) from the rule docs."""

from __future__ import annotations

import json
import shutil
from collections import Counter
from pathlib import Path

import pytest
from helpers import FIXTURES, ROOT
from test_rules import fixture_points

from recipelint.engines import facts
from recipelint.lint.check import lint
from recipelint.lint.registry import all_rules
from recipelint.report import ruledocs
from recipelint.report.sarif import render_sarif

SCHEMA = ROOT.parent / "shared" / "schemas" / "sarif-schema-2.1.0.json"
RULES = FIXTURES / "rules"


@pytest.fixture(autouse=True)
def _fresh_facts():
    facts.reset()
    yield
    facts.reset()


def _findings(rules_dir: Path):
    out = []
    for folder in sorted(p for p in rules_dir.iterdir() if p.is_dir()):
        if (folder / "configs").is_dir():
            out += lint([folder]).findings
        else:
            out += lint([folder], points_for=fixture_points).findings
    return out


def _run(findings, root: Path) -> dict:
    return json.loads(render_sarif(findings, root=root))["runs"][0]


@pytest.fixture(scope="module")
def fixtures_run(tmp_path_factory):
    root = tmp_path_factory.mktemp("repo")
    shutil.copytree(RULES, root / "rules")
    findings = _findings(root / "rules")
    return root, findings, _run(findings, root)


@pytest.mark.skipif(not SCHEMA.is_file(), reason="the shared SARIF schema is not beside this checkout")
def test_every_rules_findings_validate_against_the_schema(fixtures_run):
    import jsonschema

    root, findings, run = fixtures_run
    doc = json.loads(render_sarif(findings, root=root))
    jsonschema.validate(doc, json.loads(SCHEMA.read_text()))
    assert {r["ruleId"] for r in run["results"]} == {r.code for r in all_rules()}  # every rule reports
    assert len(run["results"]) == len(findings) > 50


def test_fingerprints_are_unique_over_every_rules_fixtures(fixtures_run):
    _, _, run = fixtures_run
    prints = Counter(r["partialFingerprints"]["recipelint/v2"] for r in run["results"])
    assert prints and max(prints.values()) == 1, prints.most_common(3)


def test_fingerprints_survive_lines_inserted_above(fixtures_run, tmp_path):
    # every recipe gets an empty line below its first line and every config a comment at its top:
    # the findings move down a line, their fingerprints (rule, file, key — no line numbers,
    # offsets or versions) do not change.  RL001 is left out: where tree-sitter-bash's error
    # recovery resynchronises depends on the text before the error (one empty line above
    # fixtures/rules/RL001/syntax_error.sh turns its one syntax error into two others).
    root, findings, _ = fixtures_run
    findings = [f for f in findings if f.code != "RL001"]
    moved = tmp_path / "rules"
    shutil.copytree(RULES, moved)
    for p in [*moved.rglob("*.sh"), *moved.rglob("*.yaml")]:
        data = p.read_bytes()
        if p.suffix == ".sh":
            head, _, rest = data.partition(b"\n")
            p.write_bytes(head + b"\n\n" + rest)
        else:
            p.write_bytes(b"# a line inserted above\n" + data)
    after = [f for f in _findings(moved) if f.code != "RL001"]
    by_code = Counter(f.code for f in findings)
    assert Counter(f.code for f in after) == by_code
    lines_moved = sum(1 for a, b in zip(sorted(findings, key=_where), sorted(after, key=_where)) if a.span.line != b.span.line)
    assert lines_moved > len(findings) // 2  # (the edit did move them)
    before = Counter((r["ruleId"], r["partialFingerprints"]["recipelint/v2"]) for r in _run(findings, root)["results"])
    now = Counter((r["ruleId"], r["partialFingerprints"]["recipelint/v2"]) for r in _run(after, tmp_path)["results"])
    assert now == before, sorted(set(before) ^ set(now))


def _where(f):
    return (f.code, Path(f.span.path).name, f.message)


def test_keys_hold_no_engine_versions(fixtures_run):
    # a catalogue upgrade changes the list of releases a nightly image is judged against: keys
    # (and the fingerprints made of them) must not name it
    from recipelint.engines.catalog import versions

    _, findings, _ = fixtures_run
    listed = {v for engine in ("vllm", "sglang") for v in versions(engine)}
    for f in findings:
        assert not any(f"'{v}'" in f.key for v in listed), (f.code, f.key)


def test_rule_metadata_for_code_scanning(fixtures_run):
    _, _, run = fixtures_run
    rules = run["tool"]["driver"]["rules"]
    assert [r["id"] for r in rules] == [r.code for r in all_rules()]
    level = {"error": "error", "warning": "warning", "info": "note"}
    for meta, rule in zip(rules, all_rules()):
        assert meta["helpUri"] == f"https://github.com/recipelint/recipelint/blob/main/docs/rules/{rule.code}.md"
        assert (ROOT / "docs" / "rules" / f"{rule.code}.md").is_file()
        assert meta["shortDescription"]["text"] == rule.summary() and "\n" not in meta["shortDescription"]["text"]
        assert meta["fullDescription"]["text"] != meta["shortDescription"]["text"]
        assert meta["fullDescription"]["text"] == ruledocs.full_description(rule)
        assert meta["help"]["markdown"].endswith(ruledocs.body(rule)) and "## Why is this bad?" in meta["help"]["text"]
        assert meta["defaultConfiguration"]["level"] == level[rule.severity]
    for res in run["results"]:
        assert rules[res["ruleIndex"]]["id"] == res["ruleId"]
    # a result's level is its finding's severity (after the settings' overrides), mapped
    assert {r["level"] for r in run["results"]} <= {"error", "warning", "note"}
    assert "note" in {r["level"] for r in run["results"]}  # (RL506's unreferenced recipes are info)


def test_help_uri_comes_from_the_package_metadata():
    # the installed metadata names the repository (pyproject.toml's [project.urls])
    assert ruledocs.repository_url() == "https://github.com/recipelint/recipelint"
    assert ruledocs.help_uri("RL101", "https://example.org/fork") == "https://example.org/fork/blob/main/docs/rules/RL101.md"


def test_one_flag_judged_against_two_releases_is_two_findings_with_one_key(tmp_path):
    # sweep points running different images: each finding says which release it judged (the
    # release is the finding's variant), the key — and so the fingerprint's base — is the flag alone
    p = tmp_path / "r.sh"
    p.write_text(
        "# point: TP=8 CONC=16 IMAGE=vllm/vllm-openai:v0.25.1\n# point: TP=8 CONC=16 IMAGE=vllm/vllm-openai:v0.33.0\n"
        "vllm serve m --max-num-seqz 4\n"
    )
    found = [f for f in lint([p], points_for=fixture_points).findings if f.code == "RL601"]
    assert sorted(f.message.split(" has no")[0] for f in found) == ["vLLM 0.25.1", "vLLM 0.33.0"]
    assert {f.key for f in found} == {"--max-num-seqz"}
    prints = [r["partialFingerprints"]["recipelint/v2"] for r in _run(found, tmp_path)["results"]]
    assert len(set(prints)) == 2 and prints[1] == prints[0] + ":1"
