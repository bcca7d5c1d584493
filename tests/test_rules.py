"""Rules against their annotated fixtures (fixtures/rules/<CODE>/), the rule meta-checks, and
the seed replica's golden output."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from helpers import FIXTURES

from recipelint.lint.check import lint
from recipelint.lint.registry import all_rules
from recipelint.lint.rulebase import DOC_SECTIONS
from recipelint.report.concise import render_concise
from recipelint.report.jsonfmt import render_json
from recipelint.sweep.points import default_points, point_from_overrides

RULES_DIR = FIXTURES / "rules"
ANNOT = re.compile(r"#\s*(expect|ok):\s*(RL\d{3})(?:@(\+?\d+))?")


def fixture_points(display: str, text: str):
    pts = []
    for line in text.splitlines():
        m = re.match(r"\s*#\s*point:\s*(.*)$", line)
        if m:
            env = dict(kv.split("=", 1) for kv in m.group(1).split())
            pts.append(point_from_overrides(display, env))
    return pts or default_points(display, text)


def annotations(path: Path):
    """{(kind, code, line)} from a fixture's comments."""
    lines = path.read_bytes().decode("utf-8", "replace").split("\n")
    out = set()
    for i, raw in enumerate(lines, 1):
        for m in ANNOT.finditer(raw):
            kind, code, at = m.groups()
            if at is not None:
                line = i + int(at[1:]) if at.startswith("+") else int(at)
            elif raw[: m.start()].strip():
                line = i
            else:
                line = i + 1
                while line <= len(lines) and (not lines[line - 1].strip() or lines[line - 1].lstrip().startswith("#")):
                    line += 1
            out.add((kind, code, line))
    return out


def rule_dirs():
    return sorted(p for p in RULES_DIR.iterdir() if p.is_dir())


@pytest.mark.parametrize("folder", rule_dirs(), ids=lambda p: p.name)
def test_rule_fixtures(folder):
    # a folder with configs/ is a small benchmark repository: its master configs give the points
    if (folder / "configs").is_dir():
        result = lint([folder])
    else:
        result = lint([folder], points_for=fixture_points)
    by_file: dict[str, set] = {}
    for f in result.findings:
        by_file.setdefault(str(Path(f.span.path).resolve()), set()).add((f.code, f.span.line))
    checked = 0
    for path in sorted([*folder.rglob("*.sh"), *folder.rglob("*.sbatch"), *folder.rglob("*.slurm"), *folder.rglob("*.yaml")]):
        ann = annotations(path)
        codes = {c for _, c, _ in ann}
        got = {(c, ln) for c, ln in by_file.get(str(path.resolve()), set()) if c in codes}
        expected = {(c, ln) for k, c, ln in ann if k == "expect"}
        near_misses = {(c, ln) for k, c, ln in ann if k == "ok"}
        assert got == expected, f"{path.name}: findings {sorted(got)} != expected {sorted(expected)}"
        assert not (got & near_misses), f"{path.name}: near misses reported: {sorted(got & near_misses)}"
        checked += len(ann)
    assert checked


def test_every_rule_has_docs_and_fixtures():
    have = {}
    for path in [*RULES_DIR.rglob("*.sh"), *RULES_DIR.rglob("*.sbatch"), *RULES_DIR.rglob("*.yaml")]:
        for kind, code, _ in annotations(path):
            have.setdefault(code, set()).add(kind)
    for rule in all_rules():
        doc = rule.doc()
        for section in DOC_SECTIONS:
            assert f"## {section}" in doc, f"{rule.code} lacks a '{section}' section"
        assert re.fullmatch(r"RL\d{3}", rule.code) and re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", rule.name)
        assert rule.severity in ("info", "warning", "error")
        assert have.get(rule.code) == {"expect", "ok"}, f"{rule.code} needs fixtures with positives and near misses"


def test_rule_codes_and_names_are_unique():
    rules = all_rules()
    assert len({r.code for r in rules}) == len(rules)
    assert len({r.name for r in rules}) == len(rules)


SEED = FIXTURES / "seed"


def test_seed_replica_golden(monkeypatch):
    """The seed review's PR, replicated: exactly the bot's findings, none on the B300 sibling."""
    monkeypatch.chdir(SEED)
    result = lint([Path("benchmarks")])
    out = render_concise(result.findings, result.file_count)
    golden = (SEED / "expected.concise.txt").read_text()
    assert out == golden
    assert (SEED / "expected.json").read_text() == render_json(result.findings)
    codes = sorted((f.code, f.span.line) for f in result.findings)
    assert ("RL101", 60) in codes and ("RL401", 68) in codes and ("RL401", 83) in codes
    # one finding per defect: the dropped tool-calling flags are RL401's (the sibling's form and
    # fix), with RL201's view of the same defect as its note, on the command's first word (line 68)
    tools = next(f for f in result.findings if (f.code, f.span.line) == ("RL401", 68))
    assert tools.merged == (("RL201", 68),) and any(r.message.startswith("also RL201 ") for r in tools.related)
    # the bot's eager-offload claim (RL301 at line 36) does not hold on this image: nightly 515d6e9
    # lies after 0.22.1, where the eager store path changed, and InferenceX published eager
    # DeepSeek-V4 runs on such nightlies (rules/data/connectors.yaml `failures`)
    assert not any(f.code == "RL301" for f in result.findings)
    assert [c for c, _ in codes].count("RL401") == 2 and not any(f.code == "RL201" for f in result.findings)
    assert not any(f.code == "RL302" for f in result.findings)
    assert not any("b300" in f.span.path for f in result.findings)


def test_policy_rules_need_the_review_checklist(tmp_path):
    # the RL7xx fixture repository without its docs/: nothing from RL7xx
    import shutil

    repo = tmp_path / "repo"
    shutil.copytree(RULES_DIR / "RL7xx", repo, ignore=shutil.ignore_patterns("docs"))
    with_docs = {f.code for f in lint([RULES_DIR / "RL7xx"]).findings}
    without = {f.code for f in lint([repo]).findings}
    assert {"RL701", "RL702", "RL703"} <= with_docs
    assert not {c for c in without if c.startswith("RL7")}


def test_config_entries_are_reported_for_the_paths_checked(monkeypatch):
    # a one-recipe check (a pre-commit hook on one changed file) is not answerable for entries
    # that run other recipes; checking the config, or the directory, reports them all
    monkeypatch.chdir(RULES_DIR / "RL7xx")
    recipes = Path("benchmarks/single_node/fixed_seq_len")

    def rl703(paths):
        return sorted(f.span.line for f in lint(paths).findings if f.code == "RL703")

    everything = rl703([Path(".")])
    assert len(everything) == 2
    assert rl703([Path("configs/nvidia-master.yaml"), recipes / "waived_fp8_b200_vllm.sh"]) == everything
    assert rl703([Path("benchmarks")]) == everything  # both entries run recipes under benchmarks/
    assert rl703([recipes / "waived_fp8_b200_vllm.sh"]) == []  # its entry uses an upstream image
    arch = rl703([recipes / "arch_fp8_b200_vllm.sh"])  # the entry that runs it, and only that one
    assert len(arch) == 1 and arch[0] in everything


def test_rule_codes_are_known_without_importing_the_rules():
    from recipelint.lint.registry import known_codes

    assert known_codes() == [r.code for r in all_rules()]


def test_suggestions_are_made_for_the_first_words_of_a_file_only(tmp_path):
    # found by the fuzz suite: `--compilation-config{1..5000}` made 5,000 unknown flags at each
    # of six points, and difflib's "did you mean" took 140 s; now cached, and capped per file
    from recipelint.lint.rulebase import MAX_SUGGESTIONS

    p = tmp_path / "many.sh"
    n = MAX_SUGGESTIONS + 6
    p.write_text("# point: TP=8 CONC=16 IMAGE=vllm/vllm-openai:v0.33.0\nvllm serve m --max-num-seqz{1..%d} 4\n" % n)
    result = lint([p], points_for=fixture_points)
    msgs = {f.message.split("`")[1]: f.message for f in result.findings if f.code == "RL601"}
    assert len(msgs) == n
    hinted = [k for k, m in msgs.items() if "did you mean `--max-num-seqs`?" in m]
    assert len(hinted) == MAX_SUGGESTIONS and "--max-num-seqz1" in hinted
