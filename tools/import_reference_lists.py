"""Convert the engine reference lists (flag and parser names per version) into recipelint catalogs.

    python tools/import_reference_lists.py ../shared/facts/engine-lists rules/data/catalogs

Each catalog records where it came from.  (The generator that reads the engines' own
published sources is tools/gen_catalogs.py; these reference lists are what its output is
checked against.)
"""

from __future__ import annotations

import re
import sys
from pathlib import Path


def main(src: str, dst: str) -> int:
    src_d, dst_d = Path(src), Path(dst)
    dst_d.mkdir(parents=True, exist_ok=True)
    found: dict[tuple[str, str], dict] = {}
    for f in sorted(src_d.glob("*.txt")):
        m = re.match(r"(vllm|sglang)-([0-9.]+)-(serve-flags|parsers)\.txt$", f.name)
        if not m:
            continue
        engine, version, kind = m.groups()
        entry = found.setdefault((engine, version), {"sources": []})
        lines = f.read_text().splitlines()
        header = lines[0].lstrip("# ").strip() if lines and lines[0].startswith("#") else ""
        entry["sources"].append(f"{f.name}: {header}")
        if kind == "serve-flags":
            entry["flags"] = sorted(ln.strip() for ln in lines if ln.strip() and not ln.startswith("#"))
        else:
            for ln in lines:
                if ln.startswith("tool-call-parser:"):
                    entry["tool_call_parsers"] = ln.split(":", 1)[1].split()
                elif ln.startswith("reasoning-parser:"):
                    entry["reasoning_parsers"] = ln.split(":", 1)[1].split()
    for (engine, version), entry in sorted(found.items()):
        out = [f"# {engine} {version}: imported by tools/import_reference_lists.py", f"engine: {engine}", f"version: {version}"]
        out.append("sources:")
        out += [f"  - {s!r}" for s in entry["sources"]]
        for key in ("flags", "tool_call_parsers", "reasoning_parsers"):
            if key in entry:
                out.append(f"{key}:")
                out += [f"  - {v!r}" if v.startswith(("-", "*")) else f"  - {v}" for v in entry[key]]
        (dst_d / f"{engine}-{version}.yaml").write_text("\n".join(out) + "\n")
    print(f"wrote {len(found)} catalogs to {dst_d}")
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:3]))
