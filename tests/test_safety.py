"""recipelint never executes what it reads: no process spawning, no dynamic code execution in
the product (the `recipelint` package and the `rules` package), apart from an explicit
allowlist."""

from __future__ import annotations

import ast

from helpers import ROOT

PACKAGES = [ROOT / "recipelint", ROOT / "rules"]

#: (module path, dotted call) pairs that are allowed, with the reason
ALLOWED = {
    ("recipelint/gitdiff.py", "subprocess.run"): "`--diff-base`: runs `git diff`/`git rev-parse` (fixed argv, no shell)",
    ("recipelint/lint/fixes.py", "subprocess.run"): "`--fix`: `bash --norc --noprofile -n` parses a fixed text on stdin "
    "(syntax only, nothing executed; empty environment, fixed argv, no shell)",
}

FORBIDDEN_MODULES = {"subprocess", "pty", "pexpect", "sh", "plumbum", "ctypes", "pickle", "marshal", "shelve"}
FORBIDDEN_CALLS = {
    "eval",
    "exec",
    "compile",
    "__import__",
    "execfile",
    "os.system",
    "os.popen",
    "os.spawnl",
    "os.spawnle",
    "os.spawnlp",
    "os.spawnlpe",
    "os.spawnv",
    "os.spawnve",
    "os.spawnvp",
    "os.spawnvpe",
    "os.execl",
    "os.execle",
    "os.execlp",
    "os.execlpe",
    "os.execv",
    "os.execve",
    "os.execvp",
    "os.execvpe",
    "os.fork",
    "os.forkpty",
    "os.posix_spawn",
    "os.posix_spawnp",
    "subprocess.run",
    "subprocess.call",
    "subprocess.check_call",
    "subprocess.check_output",
    "subprocess.Popen",
    "subprocess.getoutput",
    "subprocess.getstatusoutput",
    "pickle.load",
    "pickle.loads",
    "marshal.loads",
}
#: modules allowed to import a forbidden module (for the allowlisted calls above)
ALLOWED_IMPORTS = {
    ("recipelint/gitdiff.py", "subprocess"),
    ("recipelint/lint/fixes.py", "subprocess"),
    ("recipelint/lint/check.py", "multiprocessing"),
}


def _dotted(node) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = _dotted(node.value)
        return f"{base}.{node.attr}" if base else None
    return None


def _modules():
    for pkg in PACKAGES:
        for p in sorted(pkg.rglob("*.py")):
            yield p.relative_to(ROOT).as_posix(), ast.parse(p.read_text(encoding="utf-8"), str(p))


def violations():
    out = []
    for rel, tree in _modules():
        aliases: dict[str, str] = {}
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for a in node.names:
                    aliases[a.asname or a.name] = a.name
                    if a.name.split(".")[0] in FORBIDDEN_MODULES and (rel, a.name) not in ALLOWED_IMPORTS:
                        out.append(f"{rel}:{node.lineno}: import {a.name}")
            elif isinstance(node, ast.ImportFrom) and node.module:
                for a in node.names:
                    full = f"{node.module}.{a.name}"
                    aliases[a.asname or a.name] = full
                    if (node.module.split(".")[0] in FORBIDDEN_MODULES or full in FORBIDDEN_CALLS) and (
                        rel,
                        node.module,
                    ) not in ALLOWED_IMPORTS:
                        out.append(f"{rel}:{node.lineno}: from {node.module} import {a.name}")
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            name = _dotted(node.func)
            if name is None:
                continue
            head, _, rest = name.partition(".")
            full = aliases.get(head, head) + ("." + rest if rest else "")
            if full in FORBIDDEN_CALLS and (rel, full) not in ALLOWED:
                out.append(f"{rel}:{node.lineno}: call {full}")
    return out


def test_the_product_never_executes_anything():
    assert violations() == []


def test_the_checker_sees_what_it_forbids(tmp_path, monkeypatch):
    # the walker must catch each spelling; a checker that finds nothing proves nothing
    bad = tmp_path / "recipelint"
    bad.mkdir()
    (bad / "bad.py").write_text(
        "import subprocess as sp\nimport os\nfrom os import system\n"
        "sp.run(['x'])\nos.system('x')\nsystem('x')\neval('1')\nexec('1')\nos.execvp('x', [])\n"
    )
    monkeypatch.setattr("test_safety.PACKAGES", [bad])
    monkeypatch.setattr("test_safety.ROOT", tmp_path)
    found = violations()
    for what in (
        "import subprocess",
        "call subprocess.run",
        "call os.system",
        "from os import system",
        "call eval",
        "call exec",
        "call os.execvp",
    ):
        assert any(what in v for v in found), (what, found)


def test_multiprocessing_forks_only_our_own_workers():
    # lint.py uses multiprocessing (fork) to run recipelint's analysis in workers; nothing else does
    users = [
        rel
        for rel, tree in _modules()
        if any(isinstance(n, (ast.Import, ast.ImportFrom)) and "multiprocessing" in ast.dump(n) for n in ast.walk(tree))
    ]
    assert users == ["recipelint/lint/check.py"]
