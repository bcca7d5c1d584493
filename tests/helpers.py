"""Shared test helpers: evaluate snippets with recipelint, and run them with real bash.

Real bash only ever runs recipelint's own fixtures and snippets, with stub executables
first on PATH (the product itself never executes anything).
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
import textwrap
from pathlib import Path, PurePath

from recipelint.bash.parse import parse
from recipelint.bash.source import SourceFile
from recipelint.evaluate.evaluator import Evaluator
from recipelint.evaluate.values import Opaque
from recipelint.lint.analysis import Analyzer
from recipelint.sweep.points import SweepPoint

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "fixtures"

RECORDER = "emit"
SERVE_STUBS = ("vllm", "sglang", "python3", "python", "trtllm-serve", "emit")
NOOP_STUBS = ("hf", "nvidia-smi", "rocm-smi", "curl", "pip")


def dedent(src: str) -> str:
    return textwrap.dedent(src).lstrip("\n")


def evaluate(src: str, env: dict | None = None, path: str = "/virtual/script.sh", limits=None):
    """Evaluate a snippet; return (paths, commands) where commands are (argv texts, cond) of
    every external command run, in order."""
    source = SourceFile(path, dedent(src).encode())
    parsed = parse(source)
    commands = []

    def hook(state, cmd):
        commands.append(([w.text for w in cmd.argv], state.cond, cmd))
        return None

    ev = Evaluator(Path(path), hook, limits)
    paths = ev.run(parsed, env or {})
    return paths, commands


def dump(obj, _depth: int = 0):
    """A plain, comparable picture of evaluation results (paths, events, words, locations):
    two results dump equal exactly when every text, unknown, location and point agrees."""
    from recipelint.bash.source import Loc, VirtualSource
    from recipelint.bash.source import SourceFile as _SF

    if _depth > 12:
        return "..."
    if obj is None or isinstance(obj, (str, int, float, bool)):
        return obj
    if isinstance(obj, Loc):
        return ("loc", dump(obj.source, _depth + 1), obj.start, obj.end)
    if isinstance(obj, _SF):
        return ("src", str(obj.path))
    if isinstance(obj, VirtualSource):
        return ("eval", str(obj.path), bytes(obj.data))
    if isinstance(obj, SweepPoint):
        return ("point", obj.label)
    if isinstance(obj, PurePath):
        return ("path", str(obj))
    if isinstance(obj, (list, tuple)):
        return tuple(dump(x, _depth + 1) for x in obj)
    if isinstance(obj, dict):
        return tuple(sorted((str(k), dump(v, _depth + 1)) for k, v in obj.items()))
    names = getattr(type(obj), "__slots__", None) or list(vars(obj))
    if isinstance(names, str):
        names = [names]
    return (type(obj).__name__,) + tuple((n, dump(getattr(obj, n, None), _depth + 1)) for n in names)


def emits(src: str, env: dict | None = None) -> list[list[str | None]]:
    """argv (without the name) of each `emit` command the snippet runs, on every path."""
    _, commands = evaluate(src, env)
    return [argv[1:] for argv, _, _ in commands if argv and argv[0] == RECORDER]


def _make_stubs(d: Path) -> None:
    for name in SERVE_STUBS:
        p = d / name
        p.write_text(
            "#!/bin/bash\n"
            '{ printf \'%s\\0\' "$(basename "$0")" "$@"; printf \'\\036\'; env -0; printf \'\\037\'; } >> "$RL_ARGV_LOG"\n'
        )
        p.chmod(0o755)
    for name in NOOP_STUBS:
        p = d / name
        p.write_text("#!/bin/bash\nexit 0\n")
        p.chmod(0o755)


#: seconds before a subprocess a test runs is taken as hung: a guard against a hang only, never a
#: speed bound (how fast things are is measured in bench/), so far above what any run here takes
#: on a machine ten times slower or under load
HANG_S = 600.0


def run_bash(
    script: Path | None = None, src: str | None = None, env: dict | None = None, timeout: float = HANG_S, as_file: bool = False
):
    """Run a fixture (or snippet) with real bash; return (records, returncode).  It is sourced
    (background jobs are waited for), or with ``as_file`` run as ``bash FILE`` (what differs:
    an error assigning an integer drops the rest of a sourced file, and of the line sourcing it).

    A record is (argv list, environment dict) for each stub invocation."""
    bash = shutil.which("bash")
    assert bash, "bash is needed for the ground-truth tests"
    with tempfile.TemporaryDirectory() as tmp:
        tmpd = Path(tmp)
        stubs = tmpd / "bin"
        stubs.mkdir()
        _make_stubs(stubs)
        log = tmpd / "argv.log"
        log.write_bytes(b"")
        if script is None:
            script = tmpd / "snippet.sh"
            script.write_text(dedent(src))
        full_env = {"PATH": f"{stubs}:/usr/bin:/bin", "HOME": tmp, "RL_ARGV_LOG": str(log), "LC_ALL": "C"}
        for k, v in (env or {}).items():
            if v is not None and not isinstance(v, Opaque):
                full_env[k] = str(v)
        proc = subprocess.run(
            [bash, str(script)] if as_file else [bash, "-c", '. "$0"; wait', str(script)],
            env=full_env,
            cwd=tmp,
            capture_output=True,
            timeout=timeout,
        )
        data = log.read_bytes()
    records = []
    for rec in data.split(b"\x1f"):
        if not rec:
            continue
        argv_part, _, env_part = rec.partition(b"\x1e")
        argv = [a.decode() for a in argv_part.split(b"\0")[:-1]]
        envd = {}
        for item in env_part.split(b"\0"):
            if b"=" in item:
                k, _, v = item.partition(b"=")
                envd[k.decode()] = v.decode()
        records.append((argv, envd))
    return records, proc.returncode


def bash_emits(src: str, env: dict | None = None, as_file: bool = False) -> list[list[str]]:
    records, _ = run_bash(src=src, env=env, as_file=as_file)
    return [argv[1:] for argv, _ in records if argv and argv[0] == RECORDER]


class CountingAnalyzer(Analyzer):
    """An analyzer that keeps the evaluation steps (``Evaluator.steps``) each sweep point took, in
    the order evaluated: the work a run did, counted the same on any machine under any load."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.steps: list[int] = []

    def evaluate(self, parsed, path, point, ev=None):
        ev = ev or self.evaluator(path)
        pr = super().evaluate(parsed, path, point, ev)
        self.steps.append(ev.steps)
        return pr


def analyze(path: Path, env: dict):
    point = SweepPoint("test", dict(env))
    return Analyzer().analyze(path, str(path), [point])


def git(repo: Path, *args: str) -> str:
    """Run git in a test's repository, with a fixed identity and none of the user's settings."""
    env = {
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.com",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.com",
        "HOME": str(repo),
        "PATH": "/usr/bin:/bin",
    }
    return subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True, text=True, env=env).stdout


def record_analyses(monkeypatch) -> list[str]:
    """The names of the files ``Analyzer.analyze`` evaluates from now on (in this process)."""
    seen: list[str] = []
    real = Analyzer.analyze

    def spy(self, path, display, points):
        seen.append(Path(path).name)
        return real(self, path, display, points)

    monkeypatch.setattr(Analyzer, "analyze", spy)
    return seen
