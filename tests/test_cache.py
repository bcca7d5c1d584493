"""The result cache of `recipelint check`: a hit gives the same report, any input change misses."""

from __future__ import annotations

import json
import os
import shutil
import time

import pytest
from helpers import FIXTURES
from typer.testing import CliRunner

from recipelint.cli import app

runner = CliRunner()


@pytest.fixture
def repo(tmp_path, monkeypatch):
    """A copy of the RL5xx mini repository (configs + recipes + benchmark_lib.sh), as cwd."""
    root = tmp_path / "repo"
    shutil.copytree(FIXTURES / "rules" / "RL5xx", root)
    monkeypatch.chdir(root)
    cache = tmp_path / "cache"
    monkeypatch.setenv("RECIPELINT_CACHE_DIR", str(cache))
    return root, cache


def _check(*args):
    r = runner.invoke(app, ["check", "benchmarks", "configs", "-o", "json", *args])
    assert r.exit_code in (0, 1), r.output
    return r.output


def test_a_second_identical_run_is_served_from_the_cache(repo, monkeypatch):
    root, cache = repo
    first = _check()
    assert len(list(cache.glob("*.json"))) == 1
    # a hit must not analyse anything: make analysis impossible and run again
    import recipelint.lint.analysis as analysis

    monkeypatch.setattr(analysis.Analyzer, "analyze", lambda *a, **k: pytest.fail("analysed on a cache hit"))
    assert _check() == first
    assert json.loads(first)  # and it is a real report
    assert len(json.loads(first)) > 0


@pytest.mark.parametrize("change", ["recipe", "library", "config", "settings"])
def test_changing_any_input_misses(repo, change):
    root, cache = repo
    first = _check()
    target = {
        "recipe": root / "benchmarks/single_node/fixed_seq_len/mdl_fp8_b200_vllm.sh",
        "library": root / "benchmarks/benchmark_lib.sh",
        "config": root / "configs/nvidia-master.yaml",
        "settings": root / ".recipelint.yaml",
    }[change]
    if change == "settings":
        target.write_text("ignore: [RL502]\n")
    else:
        target.write_text(target.read_text() + "\n# touched\n")
    second = _check()
    assert len(list(cache.glob("*.json"))) == 2
    if change == "settings":
        assert "RL502" in first and "RL502" not in second


def test_no_cache_bypasses_and_a_corrupt_entry_is_ignored(repo):
    root, cache = repo
    first = _check()
    (entry,) = cache.glob("*.json")
    entry.write_text("{not json")
    assert _check() == first  # analysed again, entry rewritten
    assert json.loads(entry.read_text())["data"]["format"] == 2
    entry.unlink()
    assert _check("--no-cache") == first
    assert not list(cache.glob("*.json"))


def test_entries_are_json_not_pickle(repo):
    root, cache = repo
    _check()
    (entry,) = cache.glob("*.json")
    sealed = json.loads(entry.read_text())
    assert set(sealed) == {"check", "data"}
    data = sealed["data"]
    assert set(data) == {"format", "files", "suppressed", "unrun", "reads", "absent", "findings"}
    assert all(set(f) >= {"code", "span", "message", "points"} for f in data["findings"])


def test_nothing_is_cached_outside_a_project(tmp_path, monkeypatch):
    cache = tmp_path / "cache"
    monkeypatch.setenv("RECIPELINT_CACHE_DIR", str(cache))
    lone = tmp_path / "lone"
    lone.mkdir()
    (lone / "r.sh").write_text("vllm serve m --port 8000\n")
    monkeypatch.chdir(lone)
    r = runner.invoke(app, ["check", "r.sh"])
    assert r.exit_code == 0, r.output
    assert not cache.exists() or not list(cache.glob("*.json"))


def test_the_stat_index_trusts_only_files_older_than_their_hashing(tmp_path, monkeypatch):
    from recipelint.cache import store as cache_mod

    monkeypatch.setenv("RECIPELINT_CACHE_DIR", str(tmp_path / "c"))
    f = tmp_path / "a.sh"
    f.write_text("aaaa\n")
    idx = cache_mod._StatIndex()
    first = idx.digest(str(f))
    st = os.stat(f)
    # rewritten within the same tick (same size, mtime put back): "racily clean", hashed again
    f.write_text("bbbb\n")
    os.utime(f, ns=(st.st_atime_ns, st.st_mtime_ns))
    second = idx.digest(str(f))
    assert second != first
    # a file last modified an hour before it was hashed is known by its stat from then on
    old = time.time_ns() - 3600 * 10**9
    os.utime(f, ns=(old, old))
    third = idx.digest(str(f))
    assert third == second
    # ... so a same-size rewrite that also puts that old mtime back is not seen (git's rule too)
    f.write_text("dddd\n")
    os.utime(f, ns=(old, old))
    assert idx.digest(str(f)) == third
    idx.save()
    again = cache_mod._StatIndex()
    f.write_text("cccc\n")  # a real edit moves the mtime: hashed again
    assert again.digest(str(f)) != third


def test_rule_facts_are_kept_as_json_in_the_cache_only_when_json_keeps_them(tmp_path):
    from recipelint.engines import facts

    text = "a: [1, 2.5, true, null, x]\nb: {c: d}\n"
    facts.cache_in(tmp_path)
    try:
        first = facts._parse(text)
        kept = list((tmp_path / "facts").glob("*.json"))
        assert len(kept) == 1 and json.loads(kept[0].read_text())["data"] == first
        from recipelint.cache.store import seal

        kept[0].write_text(seal({"a": "from the cache"}))  # proves the second parse reads it
        assert facts._parse(text) == {"a": "from the cache"}
        kept[0].write_text(json.dumps({"a": "unsealed"}))  # (an entry without its check: not read)
        assert facts._parse(text) == first
        assert facts._parse("1: one\n") == {1: "one"}  # an integer key: not kept as JSON (it would come back "1")
        assert len(list((tmp_path / "facts").glob("*.json"))) == 1
    finally:
        facts.cache_in(None)
    assert facts._parse(text) == first == {"a": [1, 2.5, True, None, "x"], "b": {"c": "d"}}


def test_changing_a_dispatch_workflow_misses(repo):
    """Workflows under .github/ that run recipes (``dispatch_workflows``) are inputs too, though the
    tree walk skips dot-directories."""
    root, cache = repo
    wf = root / ".github" / "workflows" / "speedbench-al.yml"
    wf.parent.mkdir(parents=True)
    wf.write_text(
        "on:\n  workflow_dispatch:\n    inputs:\n      p: {default: mdl}\n"
        "env:\n  TP: '8'\n  BENCH_SCRIPT_OVERRIDE: benchmarks/single_node/${{ inputs.p }}_x.sh\n"
    )
    _check()
    _check()
    assert len(list(cache.glob("*.json"))) == 1
    wf.write_text(wf.read_text().replace("TP: '8'", "TP: '4'"))
    _check()
    assert len(list(cache.glob("*.json"))) == 2


def _tree(parsed) -> list:
    out, stack = [], [(parsed.root, 0)]
    while stack:
        n, d = stack.pop()
        out.append((d, n.type, n.start, n.end, n.named, n.fields, n.text, [(x.type, x.start, x.end) for x in n.extra]))
        stack.extend((c, d + 1) for c in reversed(n.children))
    return out + [(p.loc.start, p.loc.end, p.message) for p in parsed.problems] + [parsed.depth]


@pytest.mark.parametrize(
    "text",
    [
        b"",
        b"x=1\nf() { local a=$1; echo \"${a%% *}\" | tr a b > /dev/null 2>&1; }\n",
        b"echo '{'\\\n'\"a\": 1}' $((1 + \\\n 2))\n",  # (joined lines: nodes whose text is not the file's bytes)
        b"python3 - <<'PY'\nprint(1)\nPY\n",  # (a token the grammar drops, recovered as an extra word)
        b"if [ 1 = 1 ]; then\n  echo (\nfi\ncase $x in a|b) :;; *\" s \"*) :;; esac\n",  # (a syntax error)
        b"[[ a && $x =~ ^b || ! -f c ]] && d > e 2>&1 | f\n",
        b"f() {\n" * 300 + b"}\n" * 300,
    ],
)
def test_a_kept_tree_is_the_tree_parse_gives(text):
    from recipelint.bash.parse import parse
    from recipelint.bash.source import SourceFile
    from recipelint.cache.trees import decode, encode

    src = SourceFile("lib.sh", text)
    parsed = parse(src)
    kept = decode(json.loads(json.dumps(encode(parsed))), src)
    assert _tree(kept) == _tree(parsed)


def test_sourced_libraries_are_parsed_once_across_runs(tmp_path, monkeypatch):
    from recipelint.cache import trees as treecache
    from recipelint.lint.analysis import Analyzer
    from recipelint.sweep.points import SweepPoint

    (tmp_path / "lib.sh").write_text("serve() { vllm serve m --max-num-seqs \"$1\"; }\n")
    recipe = tmp_path / "r.sh"
    recipe.write_text('source "$(dirname "$0")/lib.sh"\nserve 8\n')
    cache = tmp_path / "cache"

    def seqs():
        res = Analyzer(cache_dir=cache).analyze(recipe, "r.sh", [SweepPoint("p", {})])
        return [lc.value("--max-num-seqs") for lc in res.launches]

    assert seqs() == ["8"]
    kept = list((cache / "trees").glob("*.json"))
    assert len(kept) == 1
    monkeypatch.setattr(treecache, "parse", lambda src: pytest.fail("a kept library parsed again"))
    assert seqs() == ["8"]
    monkeypatch.undo()
    kept[0].write_text('{"types": [], "nodes": [1, 2]}')  # unreadable: parsed afresh, never an error
    assert seqs() == ["8"]
    (tmp_path / "lib.sh").write_text("serve() { vllm serve m --max-num-seqs 2; }\n")  # another text: another tree
    assert seqs() == ["2"]
    assert len(list((cache / "trees").glob("*.json"))) == 2
    assert seqs() == ["2"] and Analyzer().analyze(recipe, "r.sh", [SweepPoint("p", {})]).launches  # no cache dir: parsed


def test_the_code_fingerprint_covers_the_parser_binaries(tmp_path, monkeypatch):
    # another build of tree-sitter or of its bash grammar may give other trees: cached results and
    # library trees must not outlive it
    from importlib.machinery import ModuleSpec

    from recipelint.cache import store as cache_mod

    pkg = tmp_path / "tree_sitter_bash"
    pkg.mkdir()
    (pkg / "_binding.abi3.so").write_bytes(b"build one")
    import importlib.util

    original = importlib.util.find_spec

    def fake(name, *a, **k):
        if name == "tree_sitter_bash":
            spec = ModuleSpec(name, None, is_package=True)
            spec.submodule_search_locations = [str(pkg)]
            return spec
        return original(name, *a, **k)

    monkeypatch.setattr(importlib.util, "find_spec", fake)
    monkeypatch.setattr(cache_mod, "_CODE", None)
    monkeypatch.setattr(cache_mod, "_INDEX", None)
    monkeypatch.setenv("RECIPELINT_CACHE_DIR", str(tmp_path / "c"))
    first = cache_mod.code_fingerprint()
    monkeypatch.setattr(cache_mod, "_CODE", None)
    assert cache_mod.code_fingerprint() == first  # (the same build: the same fingerprint)
    (pkg / "_binding.abi3.so").write_bytes(b"build two, another size")
    monkeypatch.setattr(cache_mod, "_CODE", None)
    assert cache_mod.code_fingerprint() != first
