"""The rule pages (docs/rules/) are what tools/gen_rule_docs.py writes from the rules' docstrings."""

from __future__ import annotations

import subprocess
import sys

from helpers import ROOT

from recipelint.lint.registry import all_rules
from recipelint.report import ruledocs

DOCS = ROOT / ruledocs.DOCS_DIR


def test_rule_docs_are_up_to_date():
    wanted = ruledocs.pages()
    have = {p.name: p.read_text(encoding="utf-8") for p in DOCS.glob("*.md")}
    stale = sorted(n for n in wanted.keys() | have.keys() if wanted.get(n) != have.get(n))
    assert not stale, f"docs/rules/ is out of date ({', '.join(stale)}): run python tools/gen_rule_docs.py"


def test_gen_rule_docs_check_mode(tmp_path):
    tool = [sys.executable, str(ROOT / "tools" / "gen_rule_docs.py")]
    assert subprocess.run([*tool, "--check"], capture_output=True).returncode == 0
    # a stale copy: a changed page, a missing one and a page of a rule that no longer exists
    out = tmp_path / "rules"
    subprocess.run([*tool, "--out", str(out)], check=True, capture_output=True)
    (out / "RL101.md").write_text("old\n")
    (out / "RL201.md").unlink()
    (out / "RL999.md").write_text("gone\n")
    r = subprocess.run([*tool, "--check", "--out", str(out)], capture_output=True, text=True)
    assert r.returncode == 1 and all(n in r.stderr for n in ("RL101.md", "RL201.md", "RL999.md"))
    subprocess.run([*tool, "--out", str(out)], check=True, capture_output=True)
    assert subprocess.run([*tool, "--check", "--out", str(out)], capture_output=True).returncode == 0
    assert not (out / "RL999.md").exists()


def test_every_rule_has_a_page_with_its_sections():
    index = (DOCS / "README.md").read_text(encoding="utf-8")
    for r in all_rules():
        page = (DOCS / f"{r.code}.md").read_text(encoding="utf-8")
        assert page.splitlines()[2] == f"# {r.code} `{r.name}`"
        assert f"**Severity:** {r.severity}" in page
        for title in ("What it does", "Why is this bad?", "Example", "Use instead"):
            assert f"\n## {title}\n" in page, (r.code, title)
        assert f"[{r.code}]({r.code}.md) | `{r.name}` | {r.severity} |" in index


def test_summaries_end_at_a_sentence_not_inside_code():
    # `*) ... exit 1` and `--max-num-seq 5 ... --max_num_seqs 7` hold ". " inside backticks: the
    # summary was cut there (RL501, RL604)
    by = {r.code: r for r in all_rules()}
    assert by["RL501"].summary().endswith("of the helper library that stops the run.")
    assert by["RL604"].summary().endswith("`--max-num-seq 5 ... --max_num_seqs 7`).")
    for r in all_rules():
        s = r.summary()
        assert s.count("`") % 2 == 0 and "\n" not in s, r.code
        assert s != ruledocs.full_description(r) and ruledocs.full_description(r).startswith(s[:-1]), r.code


def test_the_readmes_first_command_reports_what_the_readme_says(monkeypatch):
    """README and tool agree (issue 48): the first line's `recipelint check fixtures/seed` reports
    the counts the sentence under it states, with the exit status it states."""
    import json
    import re

    from typer.testing import CliRunner

    from recipelint.cli import app

    root = ROOT
    text = (root / "README.md").read_text(encoding="utf-8")
    assert "recipelint check fixtures/seed" in text.split("```", 2)[1]  # (the first command)
    words = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8}
    m = re.search(r"reports (\w+) findings — (\w+) warnings? and (\w+) info — and exits (\d)", text)
    assert m, "the README no longer states the counts of its first command"
    total, warnings, infos, status = words[m[1]], words[m[2]], words[m[3]], int(m[4])
    monkeypatch.chdir(root)
    r = CliRunner().invoke(app, ["check", "fixtures/seed", "-o", "json", "--no-cache"])
    found = json.loads(r.stdout)
    assert r.exit_code == status
    assert len(found) == total
    assert sum(f["severity"] == "warning" for f in found) == warnings
    assert sum(f["severity"] == "info" for f in found) == infos
