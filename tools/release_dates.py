"""Print the ``released:`` block of ``rules/data/images.yaml`` for an engine: each catalogued
release's PyPI upload date (the ``upload-time`` of its first file, from PyPI's JSON simple API).

    python tools/release_dates.py vllm [--json SAVED.json]

Without ``--json`` it asks https://pypi.org/simple/<engine>/ with
``Accept: application/vnd.pypi.simple.v1+json``.  Paste the output under ``<engine>:``.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from recipelint.engines.catalog import version_key, versions


def first_uploads(engine: str, data: dict) -> dict[str, str]:
    out: dict[str, str] = {}
    pat = re.compile(rf"{re.escape(engine)}-([^-]+?)(?:\.tar\.gz|\.zip|-)", re.I)
    for f in data.get("files", []):
        m = pat.match(f.get("filename", ""))
        t = f.get("upload-time")
        if m and t and (m.group(1) not in out or t < out[m.group(1)]):
            out[m.group(1)] = t
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("engine")
    ap.add_argument("--json", type=Path, help="a saved answer of PyPI's JSON simple API")
    a = ap.parse_args(argv)
    if a.json:
        data = json.loads(a.json.read_text())
    else:
        req = urllib.request.Request(
            f"https://pypi.org/simple/{a.engine}/", headers={"Accept": "application/vnd.pypi.simple.v1+json"}
        )
        with urllib.request.urlopen(req, timeout=60) as r:
            data = json.loads(r.read(16 * 1024 * 1024))
    up = first_uploads(a.engine, data)
    print("  released:  # PyPI upload-time of each release's first file (tools/release_dates.py)")
    for v in sorted(versions(a.engine), key=version_key):
        if v in up:
            print(f'    "{v}": "{up[v][:10]}"')
        else:
            print(f"    # {v}: not on PyPI")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
