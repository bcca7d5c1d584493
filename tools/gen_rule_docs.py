"""Generate the rule pages (docs/rules/RLxxx.md and docs/rules/README.md) from the rules' docstrings.

    python tools/gen_rule_docs.py            # write docs/rules/
    python tools/gen_rule_docs.py --check    # exit 1, naming the stale files, if docs/rules/ is out of date

The pages are what SARIF's ``helpUri`` points at; ``tests/test_docs.py`` fails when the checked-in
pages differ from what this writes.  Pages of rules that no longer exist are removed.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def stale(out: Path, wanted: dict[str, str]) -> list[str]:
    """Files of ``out`` that differ from ``wanted`` (missing, changed, or no longer generated)."""
    have = {p.name for p in out.glob("*.md")} if out.is_dir() else set()
    bad = [n for n, text in sorted(wanted.items()) if n not in have or (out / n).read_text(encoding="utf-8") != text]
    return bad + sorted(have - set(wanted))


def main(argv: list[str] | None = None) -> int:
    from recipelint.report.ruledocs import DOCS_DIR, pages

    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--check", action="store_true", help="only compare; exit 1 if a page is out of date")
    ap.add_argument("--out", type=Path, default=ROOT / DOCS_DIR, help=f"the folder (default: {DOCS_DIR})")
    args = ap.parse_args(argv)
    wanted = pages()
    bad = stale(args.out, wanted)
    if args.check:
        if bad:
            print(f"{args.out}: out of date: {', '.join(bad)} (run python tools/gen_rule_docs.py)", file=sys.stderr)
            return 1
        return 0
    args.out.mkdir(parents=True, exist_ok=True)
    for name in bad:
        if name in wanted:
            (args.out / name).write_text(wanted[name], encoding="utf-8")
        else:
            (args.out / name).unlink()
    print(f"{args.out}: {len(bad)} file(s) written or removed ({len(wanted)} pages)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
