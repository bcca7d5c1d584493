"""The package graph: no import cycles, and every import goes down the pipeline's stages.

Stages, lowest first (ARCHITECTURE.md): the cache's storage; bash (and the tree cache); evaluate;
engines; sweep; lint (with the result cache and git access); the rules; report; the command line.
A module may import its own stage and the ones below.  Imports inside functions count too (they
are how a module defers a cost, never how it reaches up)."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

STAGES = [  # (module prefix, rank)
    ("recipelint.cache.store", 0),
    ("recipelint.files", 0),
    ("recipelint.stack", 0),  # (frame-stack room for deep recursion: the CLI, workers, the server)
    ("recipelint.bash", 1),
    ("recipelint.cache.trees", 1),
    ("recipelint.evaluate", 2),
    ("recipelint.engines", 3),
    ("recipelint.sweep", 4),
    ("recipelint.lint", 5),
    ("recipelint.cache.results", 5),
    ("recipelint.gitdiff", 5),
    ("recipelint.rules", 6),
    ("recipelint.report", 7),
    ("recipelint.cli", 8),
    ("recipelint.server", 8),  # (the language server: the command line's peer, over LSP)
    ("recipelint.__main__", 8),
    ("recipelint.entry", 8),  # (the console script: the CLI above it)
    ("recipelint", 0),  # the package itself: __version__
]

#: the one import that goes up, and why
UPWARD = {
    ("recipelint.lint.registry", "recipelint.rules"): "rule discovery lists the rules package",
}


def _modules() -> dict[str, Path]:
    out = {}
    for base, pkg in ((ROOT / "recipelint", "recipelint"), (ROOT / "rules", "recipelint.rules")):
        for p in sorted(base.rglob("*.py")):
            parts = list(p.relative_to(base).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            out[".".join([pkg, *parts])] = p
    return out


def _rank(mod: str) -> int:
    return next(r for prefix, r in STAGES if mod == prefix or mod.startswith(prefix + "."))


def _imports(mod: str, path: Path, known: dict) -> tuple[set[str], set[str]]:
    """(module-level imports, all imports) of recipelint modules."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    is_pkg = path.name == "__init__.py"
    top, every = set(), set()

    def targets(node) -> list[str]:
        if isinstance(node, ast.Import):
            return [a.name for a in node.names]
        base = node.module or ""
        if node.level:
            here = mod.split(".") if is_pkg else mod.split(".")[:-1]
            base = ".".join(here[: len(here) - node.level + 1] + ([node.module] if node.module else []))
        return [f"{base}.{a.name}" if f"{base}.{a.name}" in known else base for a in node.names]

    def visit(body, level_top: bool):
        for node in body:
            if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
                continue
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                for t in targets(node):
                    if t.startswith("recipelint"):
                        every.add(t)
                        if level_top:
                            top.add(t)
            for field in ("body", "orelse", "finalbody", "handlers"):
                sub = getattr(node, field, None)
                if isinstance(sub, list):
                    nested = level_top and not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
                    visit(sub, nested if not isinstance(node, ast.ClassDef) else level_top)

    visit(tree.body, True)
    return top, every


def _graph():
    known = _modules()
    return known, {m: _imports(m, p, known) for m, p in known.items()}


def test_no_import_cycles():
    known, graph = _graph()
    edges = {m: {t for t in top if t in known and t != m} for m, (top, _) in graph.items()}
    state: dict[str, int] = {}
    cycles = []

    def dfs(v, path):
        state[v] = 1
        for w in sorted(edges[v]):
            if state.get(w) == 1:
                cycles.append(" -> ".join(path[path.index(w) :] + [w]))
            elif w not in state:
                dfs(w, path + [w])
        state[v] = 2

    for m in sorted(edges):
        if m not in state:
            dfs(m, [m])
    assert cycles == []


def test_imports_go_down_the_stages():
    known, graph = _graph()
    bad = [
        f"{m} ({_rank(m)}) imports {t} ({_rank(t)})"
        for m, (_, every) in sorted(graph.items())
        for t in sorted(every)
        if t.startswith("recipelint") and _rank(t) > _rank(m) and (m, t) not in UPWARD
    ]
    assert bad == []


def test_the_checker_sees_a_cycle_and_an_upward_import(tmp_path, monkeypatch):
    pkg = tmp_path / "recipelint"
    (pkg / "bash").mkdir(parents=True)
    (tmp_path / "rules").mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "bash" / "__init__.py").write_text("")
    (pkg / "bash" / "a.py").write_text("from recipelint.bash import b\n")
    (pkg / "bash" / "b.py").write_text("from . import a\n\ndef f():\n    from recipelint.cli import main\n")
    (pkg / "cli.py").write_text("")
    monkeypatch.setattr("test_layers.ROOT", tmp_path)
    import re

    import pytest

    with pytest.raises(AssertionError, match=re.escape("recipelint.bash.a -> recipelint.bash.b -> recipelint.bash.a")):
        test_no_import_cycles()
    with pytest.raises(AssertionError, match=r"recipelint.bash.b \(1\) imports recipelint.cli \(8\)"):
        test_imports_go_down_the_stages()


def test_every_package_is_installed():
    # pyproject.toml lists the packages (the rules need a package-dir mapping, so no discovery):
    # a package missing there is missing from the wheel, which an editable install hides
    import tomllib

    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]["packages"])
    found = {m for m, p in _modules().items() if p.name == "__init__.py"}
    assert found <= listed
    for data in sorted(listed - found):  # the others are data folders, with no Python in them
        rel = data.removeprefix("recipelint.rules.").replace(".", "/")
        folder = ROOT / "rules" / rel if data.startswith("recipelint.rules.") else ROOT / data.replace(".", "/")
        assert folder.is_dir() and not list(folder.glob("*.py")), data
