"""Baselines: the findings a repository accepts for now, so that the check can be turned on
without a red main branch (``--write-baseline FILE``, then ``--baseline FILE``).

The file is JSON a reviewer can read: one entry per finding with its rule, file (relative to the
baseline's folder), line (for the reader only), key and sweep points. Entries are matched as
``--diff-base`` matches findings (:mod:`recipelint.lint.fingerprint`): by rule, file, key and
sweep point, never by line, so edits above a finding keep it baselined; an entry that no longer
occurs is reported, so the file shrinks as findings are fixed.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from recipelint.bash.source import Span
from recipelint.lint.findings import Finding
from recipelint.lint.fingerprint import point_id, rel_path, subtract

FORMAT = 1
MAX_BYTES = 64 * 1024 * 1024


class BaselineError(Exception):
    pass


def write(path: Path, findings: list[Finding]) -> int:
    root = Path(os.path.abspath(path)).parent
    entries = []
    for f in findings:
        entries.append(
            {
                "code": f.code,
                "path": rel_path(f.span.path, root),
                "line": f.span.line,
                "key": f.key or f.message,
                "points": sorted({point_id(p) for p in f.points}),
                "message": f.message,
            }
        )
    entries.sort(key=lambda e: (e["path"], e["line"], e["code"], e["key"]))
    doc = {"recipelint-baseline": FORMAT, "findings": entries}
    from recipelint.files import write_error, write_output

    try:
        write_output(path, json.dumps(doc, indent=2, ensure_ascii=False) + "\n")
    except OSError as e:
        raise BaselineError(f"{path}: the baseline not written: {write_error(e)}") from None
    return len(entries)


def load(path: Path) -> list[Finding]:
    from recipelint.files import Refused, read_text

    try:
        doc = json.loads(read_text(path, MAX_BYTES))
    except Refused as e:
        if e.kind == "missing":
            raise BaselineError(f"{path}: baseline file not found (write one with --write-baseline)") from None
        if e.kind == "too-large":
            raise BaselineError(f"{path}: baseline over {MAX_BYTES >> 20} MiB") from None
        why = e.reason[len(str(path)) + 2 :] if e.reason.startswith(f"{path}: ") else e.reason
        raise BaselineError(f"{path}: cannot read the baseline ({why})") from None
    except ValueError as e:
        raise BaselineError(f"{path}: not a recipelint baseline (invalid JSON: {e})") from None
    if not isinstance(doc, dict) or doc.get("recipelint-baseline") != FORMAT or not isinstance(doc.get("findings"), list):
        raise BaselineError(f"{path}: not a recipelint baseline (format {FORMAT})")
    out = []
    for i, entry in enumerate(doc["findings"], 1):
        try:
            code, where, key = str(entry["code"]), str(entry["path"]), str(entry["key"])
            line = int(entry.get("line", 1))
            points = [str(p) for p in entry.get("points", [])]
        except (KeyError, TypeError, ValueError, AttributeError):
            raise BaselineError(f"{path}: entry {i} needs code, path and key") from None
        out.append(Finding(code, "", "", str(entry.get("message", "")), Span(where, line, 1, line, 1), points, key=key))
    return out


def apply(findings: list[Finding], path: Path, entries: list[Finding]) -> tuple[list[Finding], list[Finding]]:
    """(the findings not in the baseline ``entries`` read from ``path``, the entries that no longer occur)."""
    root = Path(os.path.abspath(path)).parent
    return subtract(findings, entries, lambda p: rel_path(p, root), lambda p: p)
