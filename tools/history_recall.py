"""Recall on real bugs from a benchmark repository's history.

    python tools/history_recall.py --repo /path/to/InferenceX [--manifest bench/history_cases.yaml]
        [--recipelint PATH] [--case ID ...] [--json] [--keep DIR]

The manifest (``bench/history_cases.yaml``) lists bugs that were really committed to the
repository and later fixed (or are still there): for each, the commit that has the bug, the
commit that fixed it, the file, and the rule code that should report it (``null`` when no rule
of recipelint covers that class of bug: those are listed as missed classes, not counted in the
recall).

For each case this tool materialises the buggy commit's tree (``git archive`` of the folders
recipelint reads: benchmarks/, configs/, .github/ (dispatch workflows, and the master configs
before they moved to configs/), docs/ (the review checklist and waivers the RL7xx rules look
for), runners/) into a temporary folder with a ``.git`` marker, runs
``recipelint check FILE -o json --no-cache --show-documented --exit-zero`` there (for a master
config, ``check benchmarks CONFIG``: its entries are judged against the recipes; ``--scope tree``
checks the whole tree once per commit instead), and looks for a finding with the expected code
on that file (any line; with the case's ``match``, one whose message contains that text).  It does the same at the fix commit, where
the finding should be gone.  A tree that still keeps its master configs under ``.github/configs/``
(InferenceX before its commit e9fc98807, which moved them) gets them copied to ``configs/``,
where recipelint looks; the report says so.

Reported per case: found / documented (found, but hidden by default because a comment documents
the choice) / not found, at the buggy commit; gone / still / removed (file deleted) at the fix.
Totals: recall = found / cases with an expected code; fixed-at-fix-commit = gone or removed /
found cases with a fix commit.  Output is deterministic (cases in manifest order, findings
sorted).  ``--json`` prints the same as JSON.

This is a development tool: it runs ``git`` and recipelint (recipelint itself never runs
anything it reads).
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tarfile
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ruamel.yaml import YAML

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_MANIFEST = ROOT / "bench" / "history_cases.yaml"
#: top-level entries of the repository that recipelint reads (the rest is not materialised)
MATERIALISE = ("benchmarks", "configs", ".github", "docs", "runners", "pyproject.toml", "recipelint.toml", ".recipelint.toml")
#: where the master configs lived before they moved to configs/
OLD_CONFIGS = Path(".github") / "configs"


@dataclass(frozen=True)
class Case:
    id: str
    expected: str | None
    buggy: str
    path: str
    summary: str
    fix: str | None = None
    fix_path: str | None = None
    line: int | None = None
    source: str = ""
    fix_summary: str = ""
    #: a text the finding's message must contain (e.g. the config entry's key, on a master config
    #: whose other entries may have findings of the same code)
    match: str | None = None

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Case:
        known = {f for f in cls.__dataclass_fields__}
        extra = set(d) - known
        if extra:
            raise ValueError(f"case {d.get('id')!r}: unknown keys {sorted(extra)}")
        values: dict[str, Any] = {k: (str(v) if k in ("buggy", "fix") and v is not None else v) for k, v in d.items()}
        return cls(**values)


@dataclass
class Run:
    """recipelint's answer on one file of one commit."""

    status: str  # found | documented | absent | removed | error
    lines: list[int] = field(default_factory=list)
    codes: list[str] = field(default_factory=list)  # every code reported on the file
    note: str = ""


def load_manifest(path: Path) -> tuple[dict[str, Any], list[Case]]:
    data = YAML(typ="safe").load(path.read_text(encoding="utf-8"))
    cases = [Case.from_dict(c) for c in data.get("cases") or []]
    ids = [c.id for c in cases]
    dup = sorted({i for i in ids if ids.count(i) > 1})
    if dup:
        raise ValueError(f"duplicate case ids: {dup}")
    return data, cases


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True).stdout


def materialise(repo: Path, commit: str, dest: Path, relocate: bool = False) -> list[str]:
    """Extract the parts of ``commit``'s tree recipelint reads into ``dest`` (with a ``.git``
    marker); return notes on what was adapted (``relocate``: master configs still under
    ``.github/configs/`` are copied to ``configs/``, for a recipelint that reads only the newer
    layout)."""
    notes: list[str] = []
    top = set(git(repo, "ls-tree", "--name-only", commit).split("\n")) - {""}
    wanted = [p for p in MATERIALISE if p in top]
    dest.mkdir(parents=True, exist_ok=True)
    if wanted:
        data = subprocess.run(
            ["git", "-C", str(repo), "archive", "--format=tar", commit, "--", *wanted], check=True, capture_output=True
        ).stdout
        tar_path = dest.parent / (dest.name + ".tar")
        tar_path.write_bytes(data)
        with tarfile.open(tar_path) as tf:
            tf.extractall(dest, filter="data")
        tar_path.unlink()
    (dest / ".git").mkdir(exist_ok=True)
    old = list((dest / OLD_CONFIGS).glob("*-master.yaml"))
    if relocate and old and not list((dest / "configs").glob("*-master.yaml")):
        (dest / "configs").mkdir(exist_ok=True)
        for p in sorted((dest / OLD_CONFIGS).iterdir()):
            target = dest / "configs" / p.name
            if p.is_dir():
                shutil.copytree(p, target, dirs_exist_ok=True)
            else:
                shutil.copy2(p, target)
        notes.append(".github/configs copied to configs/")
    return notes


def check_paths(path: str) -> list[str]:
    """What to put on the command line for ``path``: a master config is judged against the
    recipes, which recipelint only knows when they are among the paths checked."""
    return ["benchmarks", path] if path.endswith("-master.yaml") else [path]


def run_recipelint(recipelint: Path, tree: Path, paths: list[str]) -> list[dict[str, Any]] | str:
    """recipelint's findings (JSON) on ``paths`` of ``tree``, or the error line."""
    proc = subprocess.run(
        [str(recipelint), "check", *paths, "-o", "json", "--no-cache", "--show-documented", "--exit-zero"],
        cwd=tree,
        capture_output=True,
        text=True,
    )
    try:
        findings: list[dict[str, Any]] = json.loads(proc.stdout)
    except json.JSONDecodeError:
        return (proc.stderr.strip().splitlines() or ["no output"])[-1][:200]
    return findings


def judge(findings: list[dict[str, Any]], path: str, expected: str | None, match: str | None) -> Run:
    on_file = [f for f in findings if (f.get("location") or {}).get("path") == path]
    codes = sorted({f["code"] for f in on_file})
    if expected is None:
        return Run("absent", codes=codes)
    hits = [f for f in on_file if f["code"] == expected and (match is None or match in f.get("message", ""))]
    shown = [f for f in hits if not f.get("documented")]
    lines = sorted({f["location"]["line"] for f in (shown or hits)})
    if shown:
        return Run("found", lines, codes)
    if hits:
        return Run("documented", lines, codes, note="hidden by default: a comment documents the choice")
    return Run("absent", codes=codes)


class Trees:
    """Materialised commits, each extracted once."""

    def __init__(self, repo: Path, base: Path, recipelint: Path, relocate: bool = False, scope: str = "file") -> None:
        self.repo, self.base, self.recipelint, self.relocate, self.scope = repo, base, recipelint, relocate, scope
        self._done: dict[str, tuple[Path, list[str]]] = {}
        self._runs: dict[tuple[Path, tuple[str, ...]], list[dict[str, Any]] | str] = {}

    def get(self, commit: str) -> tuple[Path, list[str]]:
        if commit not in self._done:
            full = git(self.repo, "rev-parse", "--verify", commit + "^{commit}").strip()
            dest = self.base / (full[:12] + ("-relocated" if self.relocate else ""))
            notes_file = dest.parent / (dest.name + ".notes.json")
            if dest.exists() and notes_file.exists():  # kept from an earlier run (--keep)
                notes = json.loads(notes_file.read_text())
            else:
                shutil.rmtree(dest, ignore_errors=True)
                notes = materialise(self.repo, full, dest, self.relocate)
                notes_file.write_text(json.dumps(notes))
            self._done[commit] = (dest, notes)
        return self._done[commit]

    def lint(self, tree: Path, path: str, expected: str | None, match: str | None) -> Run:
        if self.relocate:
            path = _relocated(path, tree)
        if not (tree / path).exists():
            return Run("removed", note="file not in this commit")
        paths = ["."] if self.scope == "tree" else check_paths(path)
        key = (tree, tuple(paths))
        if key not in self._runs:
            self._runs[key] = run_recipelint(self.recipelint, tree, paths)
        found = self._runs[key]
        if isinstance(found, str):
            return Run("error", note=found)
        return judge(found, path, expected, match)


def _relocated(path: str, tree: Path) -> str:
    """The path recipelint reports for ``path`` in a tree whose old configs were copied to configs/."""
    old = OLD_CONFIGS.as_posix() + "/"
    if path.startswith(old) and (tree / ".github" / "configs").exists() and (tree / "configs").exists():
        moved = "configs/" + path[len(old) :]
        if (tree / moved).exists() and not (tree / path).samefile(tree / moved):
            return moved
    return path


def run_case(case: Case, trees: Trees) -> dict[str, Any]:
    tree, notes = trees.get(case.buggy)
    before = trees.lint(tree, case.path, case.expected, case.match)
    out: dict[str, Any] = {
        "id": case.id,
        "expected": case.expected,
        "buggy": case.buggy,
        "path": case.path,
        "summary": case.summary,
        "before": before.status,
        "before_lines": before.lines,
        "before_codes": before.codes,
        "notes": notes + ([before.note] if before.note else []),
        "fix": case.fix,
        "at_fix": None,
        "incidental": [],
    }
    if case.fix and not case.expected:
        # a class no rule covers: which codes on the file went away with the fix (reported incidentally)
        ftree, _ = trees.get(case.fix)
        after_codes = trees.lint(ftree, case.fix_path or case.path, None, None).codes
        out["incidental"] = sorted(set(before.codes) - set(after_codes))
    if case.fix and case.expected:
        ftree, _ = trees.get(case.fix)
        after = trees.lint(ftree, case.fix_path or case.path, case.expected, case.match)
        out["at_fix"] = {"found": "still", "documented": "documented", "absent": "gone", "removed": "removed"}.get(
            after.status, after.status
        )
        if after.status == "error":
            out["notes"].append("at fix: " + after.note)
    return out


def totals(results: Iterable[dict[str, Any]]) -> dict[str, Any]:
    results = list(results)
    ruled = [r for r in results if r["expected"]]
    found = [r for r in ruled if r["before"] == "found"]
    with_fix = [r for r in found if r["fix"]]
    fixed = [r for r in with_fix if r["at_fix"] in ("gone", "removed")]
    by_rule: dict[str, list[int]] = {}
    for r in ruled:
        s = by_rule.setdefault(r["expected"], [0, 0])
        s[0] += r["before"] == "found"
        s[1] += 1
    return {
        "cases": len(results),
        "with_rule": len(ruled),
        "found": len(found),
        "documented": sum(r["before"] == "documented" for r in ruled),
        "recall": round(len(found) / len(ruled), 3) if ruled else None,
        "found_with_fix": len(with_fix),
        "fixed_at_fix_commit": len(fixed),
        "fixed_rate": round(len(fixed) / len(with_fix), 3) if with_fix else None,
        "by_rule": {k: {"found": v[0], "cases": v[1]} for k, v in sorted(by_rule.items())},
        "missed_classes": [r["id"] for r in results if not r["expected"]],
        "missed_classes_reported_incidentally": [r["id"] for r in results if not r["expected"] and r["incidental"]],
    }


def render_text(results: list[dict[str, Any]], tot: dict[str, Any], version: str) -> str:
    rows = [("case", "expected", "before", "lines", "at fix", "other codes on the file (* gone at the fix)")]
    for r in results:
        other = [c + ("*" if c in r["incidental"] else "") for c in r["before_codes"] if c != r["expected"]]
        rows.append(
            (
                r["id"],
                r["expected"] or "no rule",
                r["before"],
                ",".join(map(str, r["before_lines"])) or "-",
                r["at_fix"] or "-",
                ",".join(other) or "-",
            )
        )
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines = [f"recipelint {version}"]
    lines += ["  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip() for row in rows]
    for r in results:
        for n in r["notes"]:
            lines.append(f"  note {r['id']}: {n}")
    lines.append("")
    lines.append(
        f"recall: {tot['found']}/{tot['with_rule']} = {tot['recall']} "
        f"(+{tot['documented']} found but documented); "
        f"fixed at the fix commit: {tot['fixed_at_fix_commit']}/{tot['found_with_fix']} = {tot['fixed_rate']}"
    )
    lines.append("by rule: " + ", ".join(f"{k} {v['found']}/{v['cases']}" for k, v in tot["by_rule"].items()))
    if tot["missed_classes"]:
        lines.append("no rule (missed classes): " + ", ".join(tot["missed_classes"]))
        inc = tot["missed_classes_reported_incidentally"]
        lines.append("  of which another code on the file went away with the fix: " + (", ".join(inc) or "none"))
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repo", type=Path, required=True, help="a clone of the manifest's repository (full history)")
    ap.add_argument("--manifest", type=Path, default=DEFAULT_MANIFEST)
    ap.add_argument("--recipelint", type=Path, default=Path(sys.executable).parent / "recipelint")
    ap.add_argument("--case", action="append", default=[], help="only these case ids (repeatable)")
    ap.add_argument("--json", action="store_true", help="machine-readable output")
    ap.add_argument("--keep", type=Path, help="materialise trees here and keep them (default: a temp dir)")
    ap.add_argument(
        "--relocate-old-configs",
        action="store_true",
        help="copy master configs still under .github/configs/ to configs/ (for a recipelint that reads only that layout)",
    )
    ap.add_argument(
        "--scope",
        choices=("file", "tree"),
        default="file",
        help="check the case's file (a master config together with benchmarks/), or the whole tree once per commit",
    )
    ap.add_argument("--label", default="", help="printed with the results (e.g. the recipelint commit measured)")
    args = ap.parse_args(argv)

    _, cases = load_manifest(args.manifest)
    if args.case:
        unknown = sorted(set(args.case) - {c.id for c in cases})
        if unknown:
            ap.error(f"unknown case ids: {unknown}")
        cases = [c for c in cases if c.id in args.case]
    version = subprocess.run([str(args.recipelint), "--version"], capture_output=True, text=True).stdout.strip()
    if args.label:
        version += f" ({args.label})"
    with tempfile.TemporaryDirectory(prefix="history-recall-") as tmp:
        base = args.keep or Path(tmp)
        trees = Trees(args.repo, base, args.recipelint, args.relocate_old_configs, args.scope)
        results = [run_case(c, trees) for c in cases]
    tot = totals(results)
    if args.json:
        print(json.dumps({"recipelint": version, "cases": results, "totals": tot}, indent=2, sort_keys=True))
    else:
        sys.stdout.write(render_text(results, tot, version))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
