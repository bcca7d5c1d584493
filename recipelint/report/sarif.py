"""``--output-format sarif``: SARIF 2.1.0 for code scanning."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

from recipelint.lint.findings import Finding
from recipelint.lint.fingerprint import identity
from recipelint.report.common import docs_url
from recipelint.report.ruledocs import body, full_description, help_uri, repository_url

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"


SARIF_LEVEL = {"error": "error", "warning": "warning", "info": "note"}


def _region(sp) -> dict:
    region = {"startLine": max(1, sp.line), "startColumn": max(1, sp.col)}
    if (sp.end_line, sp.end_col) > (sp.line, sp.col):
        region["endLine"] = sp.end_line
        region["endColumn"] = max(1, sp.end_col)
    return region


def repository_root(start: Path | None = None) -> Path | None:
    """The work tree (the folder holding ``.git``) at or above ``start`` (the working directory),
    which code scanning's ``%SRCROOT%`` stands for; None outside one."""
    here = Path(os.path.abspath(start or Path.cwd()))
    for d in (here, *here.parents):
        if (d / ".git").exists():
            return d
    return None


def _location(path: str, root: Path | None) -> dict:
    """An artifactLocation: relative to the repository root with ``uriBaseId: %SRCROOT%``, or,
    for a file outside it, an absolute ``file://`` URI without a base (SARIF §3.4.4)."""
    from pathlib import PurePosixPath
    from urllib.parse import quote

    full = Path(os.path.abspath(path))
    if root is not None and full.is_relative_to(root):
        return {"uri": quote(full.relative_to(root).as_posix()), "uriBaseId": "%SRCROOT%"}
    p = PurePosixPath(path.replace("\\", "/"))
    if root is None and not p.is_absolute():
        return {"uri": quote(str(p)), "uriBaseId": "%SRCROOT%"}
    return {"uri": "file://" + quote(full.as_posix())}


def _fingerprints(findings: list[Finding], root: Path | None) -> list[str]:
    """One fingerprint a finding, unique within the run and stable across runs: a hash of the rule,
    the file and what makes the finding itself (its key, or its message) — no line numbers, so an
    edit above it keeps it; a second finding with the same three gets its rank in the file."""
    out, seen = [], {}
    for f in findings:
        where = _location(f.span.path, root)["uri"]  # (the same from any working directory)
        base = hashlib.sha256(identity(f, where).encode()).hexdigest()[:32]
        n = seen.get(base, 0)
        seen[base] = n + 1
        out.append(base if n == 0 else f"{base}:{n}")
    return out


def render_sarif(findings: list[Finding], rules=None, root: Path | None = None) -> str:
    """SARIF 2.1.0 as GitHub code scanning reads it: rule metadata from the rule docs, results
    with repository-relative locations, related locations for siblings and config lines."""
    from recipelint import __version__
    from recipelint.lint.registry import all_rules

    rules = list(rules or all_rules())
    index = {r.code: i for i, r in enumerate(rules)}
    base = docs_url()
    repo = repository_url()
    driver_rules = []
    for r in rules:
        rule = {
            "id": r.code,
            "name": r.name,
            "shortDescription": {"text": r.summary()},
            "fullDescription": {"text": full_description(r)},
            "help": {"text": r.doc(), "markdown": f"# {r.code} `{r.name}`\n\n{body(r)}"},
            "defaultConfiguration": {"level": SARIF_LEVEL.get(r.severity, "warning")},
            "properties": {"tags": ["recipelint"]},
        }
        uri = help_uri(r.code, repo)
        if uri:
            rule["helpUri"] = uri
        driver_rules.append(rule)
    results = []
    root = root if root is not None else repository_root()
    for f, fingerprint in zip(findings, _fingerprints(findings, root)):
        res = {
            "ruleId": f.code,
            "level": SARIF_LEVEL.get(f.severity, "warning"),
            "message": {
                "text": f.text
                + (
                    f" (sweep points: {', '.join(f.points[:6])}"
                    + (f", +{len(f.points) - 6} more" if len(f.points) > 6 else "")
                    + ")"
                    if f.points
                    else ""
                )
            },
            "locations": [
                {
                    "physicalLocation": {
                        "artifactLocation": _location(f.span.path, root),
                        "region": _region(f.span),
                    }
                }
            ],
            "partialFingerprints": {"recipelint/v2": fingerprint},
        }
        if f.code in index:
            res["ruleIndex"] = index[f.code]
        if f.fix is not None:
            res["fixes"] = [_fix(f.fix, root)]
        if f.related:
            res["relatedLocations"] = [
                {
                    "id": i,
                    "message": {"text": r.message},
                    "physicalLocation": {
                        "artifactLocation": _location(r.span.path, root),
                        "region": _region(r.span),
                    },
                }
                for i, r in enumerate(f.related, 1)
            ]
        results.append(res)
    doc = {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": dict(
                        {"name": "recipelint", "version": __version__, "semanticVersion": __version__, "rules": driver_rules},
                        **({"informationUri": base} if base else {}),
                    )
                },
                "results": results,
                "columnKind": "unicodeCodePoints",
            }
        ],
    }
    return json.dumps(doc, indent=2) + "\n"


def _fix(fix, root) -> dict:
    """A SARIF ``fix``: the edits as replacements of regions (SARIF 2.1.0 §3.55–3.57)."""
    changes: dict[str, list] = {}
    for e in fix.edits:
        region = {"startLine": e.span.line, "startColumn": e.span.col, "endLine": e.span.end_line, "endColumn": e.span.end_col}
        changes.setdefault(e.path, []).append({"deletedRegion": region, "insertedContent": {"text": e.new}})
    return {
        "description": {"text": fix.title + (" (unsafe: it chooses a value)" if fix.applicability == "unsafe" else "")},
        "artifactChanges": [{"artifactLocation": _location(p, root), "replacements": r} for p, r in changes.items()],
    }
