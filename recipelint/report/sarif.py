"""``--output-format sarif``: SARIF 2.1.0 for code scanning."""

from __future__ import annotations

import json

from recipelint.lint.findings import Finding
from recipelint.report.common import docs_url

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"


SARIF_LEVEL = {"error": "error", "warning": "warning", "info": "note"}


def _region(sp) -> dict:
    region = {"startLine": max(1, sp.line), "startColumn": max(1, sp.col)}
    if (sp.end_line, sp.end_col) > (sp.line, sp.col):
        region["endLine"] = sp.end_line
        region["endColumn"] = max(1, sp.end_col)
    return region


def _uri(path: str) -> str:
    from pathlib import PurePosixPath
    from urllib.parse import quote

    p = PurePosixPath(path.replace("\\", "/"))
    return quote(str(p)) if not p.is_absolute() else "file://" + quote(str(p))


def render_sarif(findings: list[Finding], rules=None) -> str:
    """SARIF 2.1.0 as GitHub code scanning reads it: rule metadata from the rule docs, results
    with repository-relative locations, related locations for siblings and config lines."""
    from recipelint import __version__
    from recipelint.lint.registry import all_rules

    rules = list(rules or all_rules())
    index = {r.code: i for i, r in enumerate(rules)}
    base = docs_url()
    driver_rules = []
    for r in rules:
        doc = r.doc()
        rule = {
            "id": r.code,
            "name": r.name,
            "shortDescription": {"text": r.summary()},
            "fullDescription": {"text": " ".join(doc.split("## Why is this bad?")[0].replace("## What it does", "").split())},
            "help": {"text": doc, "markdown": f"# {r.code} {r.name}\n\n{doc}"},
            "defaultConfiguration": {"level": SARIF_LEVEL.get(r.severity, "warning")},
            "properties": {"tags": ["recipelint"]},
        }
        if base:
            rule["helpUri"] = f"{base.rstrip('/')}#{r.code.lower()}-{r.name}"
        driver_rules.append(rule)
    results = []
    for f in findings:
        res = {
            "ruleId": f.code,
            "level": SARIF_LEVEL.get(f.severity, "warning"),
            "message": {
                "text": f.message
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
                        "artifactLocation": {"uri": _uri(f.span.path), "uriBaseId": "%SRCROOT%"},
                        "region": _region(f.span),
                    }
                }
            ],
            "partialFingerprints": {"recipelint/v1": f"{f.code}:{f.span.path}:{f.key or f.message}"[:200]},
        }
        if f.code in index:
            res["ruleIndex"] = index[f.code]
        if f.related:
            res["relatedLocations"] = [
                {
                    "id": i,
                    "message": {"text": r.message},
                    "physicalLocation": {
                        "artifactLocation": {"uri": _uri(r.span.path), "uriBaseId": "%SRCROOT%"},
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
