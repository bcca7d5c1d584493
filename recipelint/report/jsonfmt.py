"""``--output-format json`` (one array) and ``json-lines`` (one object a line)."""

from __future__ import annotations

import json

from recipelint.lint.findings import Finding


def render_json(findings: list[Finding]) -> str:
    return json.dumps([f.to_dict() for f in findings], indent=2) + "\n"


def render_json_lines(findings: list[Finding]) -> str:
    return "".join(json.dumps(f.to_dict(), separators=(",", ":")) + "\n" for f in findings)
