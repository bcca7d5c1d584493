"""Run recipelint's evaluator over a tree of recipes and report launch resolution.

    python tools/corpus_report.py PATH/TO/InferenceX/benchmarks [--verbose]

For every ``*.sh`` file: does it contain a serve command (a syntactic look for the engines'
entry points), and does evaluation under the default environment matrix resolve at least one
serve launch?  Prints the unresolved scripts with the reason, crashes (tracebacks), and timing.
"""

from __future__ import annotations

import re
import sys
import time
import traceback
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from recipelint.lint.analysis import Analyzer
from recipelint.sweep.points import default_points

SERVE = re.compile(
    r"(vllm\s+serve|sglang\s+serve|sglang\.launch_server|trtllm-serve|atom\.entrypoints\.openai_server|vllm\.entrypoints\.openai\.api_server)"
)


def main(argv: list[str]) -> int:
    root = Path(argv[0])
    verbose = "--verbose" in argv
    files = sorted(p for p in root.rglob("*.sh") if p.is_file())
    an = Analyzer()
    t0 = time.perf_counter()
    crashes, serve, resolved, unresolved, points, launches = [], 0, 0, [], 0, 0
    for f in files:
        rel = str(f.relative_to(root))
        text = f.read_text(errors="replace")
        has_serve = bool(SERVE.search("\n".join(ln for ln in text.splitlines() if not ln.lstrip().startswith("#"))))
        try:
            res = an.analyze(f, rel, lambda text, rel=rel: default_points(rel, text))
        except Exception:
            crashes.append((rel, traceback.format_exc()))
            continue
        points += len(res.points)
        n = len(res.launches)
        launches += n
        if has_serve:
            serve += 1
            if n:
                resolved += 1
            else:
                reasons = set()
                for pr in res.points:
                    for p in pr.paths:
                        if p.exit is not None:
                            sp = p.exit.loc.real().span
                            reasons.add(f"exit {p.exit.code} at {Path(sp.path).name}:{sp.line} {p.exit.reason}".strip())
                        for _, msg in p.notes:
                            reasons.add(msg)
                unresolved.append((rel, sorted(reasons)[:4] or [res.error or "no launch on any path"]))
        if verbose:
            print(f"{rel}: {n} launches")
    dt = time.perf_counter() - t0
    print(f"files: {len(files)}  with a serve command: {serve}  resolved: {resolved} ({100.0 * resolved / max(serve, 1):.1f}%)")
    print(f"sweep points evaluated: {points}  launches: {launches}  crashes: {len(crashes)}  time: {dt:.2f}s")
    for rel, reasons in unresolved:
        print(f"UNRESOLVED {rel}")
        for r in reasons:
            print(f"    {r}")
    for rel, tb in crashes:
        print(f"CRASH {rel}\n{tb}")
    return 1 if crashes else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
