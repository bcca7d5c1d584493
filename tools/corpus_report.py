"""Report how recipelint does on a corpus of other repositories' launch scripts.

    python tools/corpus_report.py ROOT [--manifest bench/corpus.yaml] [--triage bench/corpus-triage.yaml]
                                       [--recipelint PATH] [--json OUT] [--verbose]

ROOT is one repository's checkout, or a folder of checkouts named ``owner+name`` (as
``bench/corpus.yaml`` lists them).  For each repository it runs recipelint as a user would,
``recipelint check . -o json --no-cache`` in the checkout, and, with the same build's Python,
the analysis that says which files reached a launch (``--launches``, below).  Then, per script
that launches a server (the manifest's ``scripts``; without a manifest, every file whose text
holds a serve command, known or serve-like):

- RESOLVED: a sweep point's evaluation reaches a launch;
- EXPLAINED: none does, and a finding on the file says why (``EXPLAINING`` below);
- SILENT: neither — the file passes although nothing of its launch was checked (a bug).

It prints totals per repository, every finding (for triage), the SILENT scripts and the
crashes (a traceback, exit status 2, output that is not JSON).  With ``--triage`` (verdicts
keyed by repository, path, code and line), each finding is marked true or false, precision is
computed, false findings are grouped by cause, and findings no verdict covers are listed
(UNTRIAGED), as are verdicts no finding matches any more (GONE).  It fetches nothing and never
executes the scripts: recipelint only reads them.

``--recipelint`` (default: ``recipelint`` on PATH) picks the build; its launch analysis runs
with the Python next to it (``<bin>/python``), so both halves judge with the same code.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

#: findings that say why a file's launch is not reached (or not recognised, or not readable)
EXPLAINING = ("RL001", "RL003", "RL006", "RL007", "RL500", "RL502", "RL503")


@dataclass
class Script:
    path: str
    status: str = "SILENT"  # RESOLVED, EXPLAINED, SILENT, MISSING (not in the checkout)
    launches: int = 0
    sites: list[dict] = field(default_factory=list)
    why: list[str] = field(default_factory=list)


@dataclass
class Repo:
    name: str
    folder: Path
    commit: str | None = None
    listed: list[str] | None = None  # the manifest's scripts (None: found from the sites)
    not_scripts: list[str] = field(default_factory=list)  # files that name a serve command but launch none
    scripts: list[Script] = field(default_factory=list)
    findings: list[dict] = field(default_factory=list)
    files: dict[str, dict] = field(default_factory=dict)
    unlisted: list[str] = field(default_factory=list)  # files with a known site the manifest omits
    crashes: list[str] = field(default_factory=list)
    exit_status: int | None = None
    verdicts: dict = field(default_factory=dict)  # (path, code, line) -> verdict entry
    gone: list[dict] = field(default_factory=list)  # verdicts no finding matches


def _norm(p: str) -> str:
    return os.path.normpath(p).replace(os.sep, "/").removeprefix("./")


# ---------------------------------------------------------------------------------------------
# the launch analysis (runs in the build's own Python: `--launches FOLDER`)


def launches_main(folder: str) -> int:
    """Print, as JSON, per file recipelint checks in ``folder``: whether a sweep point reached a
    launch, how many launches, and the serve commands its text holds (sites).  Done through
    ``recipelint.lint.check.lint`` with the settings the CLI would find, so it sees the files and
    sweep points ``recipelint check`` sees."""
    from recipelint.lint.check import Options, lint
    from recipelint.lint.settings import apply_facts, find, load

    os.chdir(folder)
    here = Path(".")
    st = load(find(here))
    apply_facts(st)
    result = lint([here], options=Options(settings=st, jobs=1, cache=False))
    out = []
    for res in result.files:
        sites = []
        for s in res.sites:
            line = res.source.point(s.start)[0] if res.source is not None else 0
            sites.append({"line": line, "text": s.text, "engine": s.engine, "kind": s.kind})
        out.append(
            {
                "path": _norm(str(res.display)),
                "launched": bool(res.launched),
                "launches": len(res.launches),
                "points": len(res.points),
                "sites": sites,
                "error": res.error,
            }
        )
    json.dump(out, sys.stdout)
    return 0


# ---------------------------------------------------------------------------------------------
# the driver


def _python_of(recipelint: str) -> str:
    exe = shutil.which(recipelint) or recipelint
    for name in ("python", "python3"):
        cand = Path(exe).parent / name
        if cand.exists():
            return str(cand)
    return sys.executable


def _crashed(rc: int, stderr: str) -> bool:
    return rc == 2 or "Traceback (most recent call last)" in stderr


def run_repo(repo: Repo, recipelint: str, python: str) -> None:
    env = dict(os.environ, NO_COLOR="1")
    proc = subprocess.run(
        [recipelint, "check", ".", "-o", "json", "--no-cache"],
        cwd=repo.folder,
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    repo.exit_status = proc.returncode
    if _crashed(proc.returncode, proc.stderr):
        repo.crashes.append(f"recipelint check: exit {proc.returncode}\n{proc.stderr.strip()}")
    else:
        try:
            repo.findings = json.loads(proc.stdout or "[]")
        except json.JSONDecodeError as e:
            repo.crashes.append(f"recipelint check: output is not JSON ({e}): {proc.stdout[:200]!r}")
    proc = subprocess.run(
        [python, str(Path(__file__).resolve()), "--launches", str(repo.folder)],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    if proc.returncode != 0 or _crashed(proc.returncode, proc.stderr):
        repo.crashes.append(f"launch analysis: exit {proc.returncode}\n{proc.stderr.strip()}")
        return
    repo.files = {f["path"]: f for f in json.loads(proc.stdout)}


def classify(repo: Repo) -> None:
    by_file: dict[str, list[dict]] = {}
    for f in repo.findings:
        by_file.setdefault(_norm(f["location"]["path"]), []).append(f)
    with_sites = sorted(p for p, f in repo.files.items() if f["sites"])
    if repo.listed is None:
        paths = with_sites
    else:
        paths = [_norm(p) for p in repo.listed]
        skip = set(paths) | {_norm(p) for p in repo.not_scripts}
        repo.unlisted = [p for p in with_sites if p not in skip and any(s["engine"] for s in repo.files[p]["sites"])]
    for p in paths:
        sc = Script(p)
        info = repo.files.get(p)
        if info is None:
            sc.status = "MISSING" if not (repo.folder / p).is_file() else "SILENT"
            from recipelint.cache.results import SKIP_DIRS

            skipped = [d for d in Path(p).parts[:-1] if d in SKIP_DIRS]
            if sc.status == "SILENT":
                sc.why.append(
                    f"not collected: `recipelint check .` skips the folder `{skipped[0]}`"
                    if skipped
                    else "not collected by `recipelint check .` (excluded by the settings?)"
                )
            repo.scripts.append(sc)
            continue
        sc.sites, sc.launches = info["sites"], info["launches"]
        explaining = [f for f in by_file.get(p, []) if f["code"] in EXPLAINING]
        if info["launched"]:
            sc.status = "RESOLVED"
        elif explaining:
            sc.status = "EXPLAINED"
            sc.why = [f"{f['code']} line {f['location']['line']}: {f['message']}" for f in explaining]
        else:
            sc.status = "SILENT"
            if info["error"]:
                sc.why.append(f"error: {info['error']}")
            if not info["sites"]:
                sc.why.append("no serve command found in its text (sites: none)")
            else:
                sc.why.append(f"sites: {', '.join(s['text'] for s in info['sites'][:3])}; points: {info['points']}")
        repo.scripts.append(sc)


def _load_yaml(path: Path):
    from ruamel.yaml import YAML

    return YAML(typ="safe").load(path.read_text(encoding="utf-8"))


def _key(path: str, code: str, line: int) -> tuple[str, str, int]:
    return (_norm(path), code, int(line))


def triage(repos: list[Repo], data: dict) -> None:
    """Attach each finding's verdict (``finding["verdict"]``, ``finding["cause"]``)."""
    by_repo: dict[str, dict] = {}
    for e in data.get("findings") or []:
        by_repo.setdefault(str(e["repo"]), {})[_key(e["path"], e["code"], e["line"])] = e
    for r in repos:
        r.verdicts = by_repo.get(r.name, {})
        used = set()
        for f in r.findings:
            k = _key(f["location"]["path"], f["code"], f["location"]["line"])
            e = r.verdicts.get(k)
            if e is not None:
                used.add(k)
                f["verdict"] = "true" if e["verdict"] is True or str(e["verdict"]).lower() == "true" else "false"
                f["cause"] = e.get("cause")
                f["why"] = e.get("why")
        r.gone = [e for k, e in r.verdicts.items() if k not in used]


def _verdicts(r: Repo, v: str) -> int:
    return sum(1 for f in r.findings if f.get("verdict") == v)


def _repos(root: Path, manifest: Path | None) -> list[Repo]:
    if manifest is not None:
        data = _load_yaml(manifest)
        out = []
        for e in data.get("repos") or []:
            name = str(e["repo"])
            folder = root / name.replace("/", "+")
            scripts = [str(s["path"] if isinstance(s, dict) else s) for s in e.get("scripts") or []]
            out.append(Repo(name, folder, e.get("commit"), scripts, [str(p) for p in e.get("not_scripts") or []]))
        return out
    subs = sorted(d for d in root.iterdir() if d.is_dir() and "+" in d.name) if root.is_dir() else []
    if subs:
        return [Repo(d.name.replace("+", "/", 1), d) for d in subs]
    return [Repo(root.name, root)]


def _count(repo: Repo, status: str) -> int:
    return sum(1 for s in repo.scripts if s.status == status)


def render(repos: list[Repo], verbose: bool, triaged: bool = False) -> str:
    lines = []
    cols = (
        ["scripts", "resolved", "explained", "silent", "findings"]
        + (["true", "false", "untriaged"] if triaged else [])
        + ["crashes"]
    )
    head = f"{'repository':<34} " + " ".join(f"{c:>9}" for c in cols)
    lines += [head, "-" * len(head)]
    tot = [0] * len(cols)
    for r in repos:
        row = [len(r.scripts), _count(r, "RESOLVED"), _count(r, "EXPLAINED"), _count(r, "SILENT"), len(r.findings)]
        if triaged:
            t, f = _verdicts(r, "true"), _verdicts(r, "false")
            row += [t, f, len(r.findings) - t - f]
        row.append(len(r.crashes))
        tot = [a + b for a, b in zip(tot, row)]
        lines.append(f"{r.name:<34} " + " ".join(f"{x:>9}" for x in row))
    lines.append("-" * len(head))
    lines.append(f"{'total':<34} " + " ".join(f"{x:>9}" for x in tot))
    if triaged:
        t, f = tot[5], tot[6]
        lines.append(f"precision (true / triaged findings): {t}/{t + f} = {100.0 * t / max(t + f, 1):.1f}%")
    for r in repos:
        lines.append("")
        lines.append(f"== {r.name}" + (f" @ {r.commit}" if r.commit else "") + f"  (exit {r.exit_status})")
        for s in r.scripts:
            if s.status == "RESOLVED" and not verbose:
                continue
            lines.append(f"  {s.status:<9} {s.path}" + (f"  ({s.launches} launches)" if s.launches else ""))
            for w in s.why:
                lines.append(f"      {w}")
        for f in r.findings:
            loc = f["location"]
            mark = {"true": "TRUE ", "false": "FALSE"}.get(f.get("verdict", ""), "UNTRIAGED" if triaged else "finding")
            cause = f" [{f['cause']}]" if f.get("cause") else ""
            lines.append(f"  {mark}{cause} {loc['path']}:{loc['line']}: {f['code']} {f['name']}: {f['message']}")
        for e in r.gone:
            lines.append(f"  GONE {e['path']}:{e['line']}: {e['code']} (verdict {e['verdict']}): no such finding now")
        for p in r.unlisted:
            lines.append(f"  unlisted {p}: its text holds a known serve command the manifest does not list")
        for c in r.crashes:
            lines.append(f"  CRASH {c}")
    if triaged:
        causes: dict[str, list[str]] = {}
        for r in repos:
            for f in r.findings:
                if f.get("verdict") == "false":
                    causes.setdefault(f.get("cause") or "(no cause)", []).append(
                        f"{r.name}:{f['location']['path']}:{f['location']['line']} {f['code']}"
                    )
        lines.append("")
        lines.append("false findings by cause:")
        for c, items in sorted(causes.items(), key=lambda kv: (-len(kv[1]), kv[0])):
            lines.append(f"  {c} ({len(items)})")
            lines += [f"      {x}" for x in items]
    return "\n".join(lines)


def to_json(repos: list[Repo]) -> list[dict]:
    return [
        {
            "repo": r.name,
            "commit": r.commit,
            "exit_status": r.exit_status,
            "scripts": [{"path": s.path, "status": s.status, "launches": s.launches, "why": s.why} for s in r.scripts],
            "findings": r.findings,
            "gone": r.gone,
            "unlisted": r.unlisted,
            "crashes": r.crashes,
        }
        for r in repos
    ]


def main(argv: list[str]) -> int:
    if argv[:1] == ["--launches"]:
        return launches_main(argv[1])
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("root", type=Path)
    ap.add_argument("--manifest", type=Path)
    ap.add_argument("--triage", type=Path, help="verdicts on findings (bench/corpus-triage.yaml)")
    ap.add_argument("--recipelint", default="recipelint")
    ap.add_argument("--json", type=Path, help="also write the report as JSON here")
    ap.add_argument("--verbose", action="store_true", help="list resolved scripts too")
    ap.add_argument("--only", action="append", help="only these repositories (owner/name; repeatable)")
    a = ap.parse_args(argv)
    # each repository is checked from inside its checkout: a relative path to the build would
    # not resolve there
    found = shutil.which(a.recipelint)
    if found is None:
        ap.error(f"--recipelint {a.recipelint}: no such executable")
    a.recipelint = str(Path(found).absolute())
    python = _python_of(a.recipelint)
    repos = _repos(a.root, a.manifest)
    if a.only:
        repos = [r for r in repos if r.name in a.only]
    for r in repos:
        if not r.folder.is_dir():
            r.crashes.append(f"{r.folder}: no checkout")
            continue
        run_repo(r, a.recipelint, python)
        classify(r)
    if a.triage:
        triage(repos, _load_yaml(a.triage))
    print(render(repos, a.verbose, triaged=a.triage is not None))
    if a.json:
        a.json.write_text(json.dumps(to_json(repos), indent=1), encoding="utf-8")
    bad = any(r.crashes for r in repos) or any(s.status == "SILENT" for r in repos for s in r.scripts)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
