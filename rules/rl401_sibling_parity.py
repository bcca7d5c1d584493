import fnmatch
import functools
import re
from pathlib import Path

from recipelint.engines import facts
from recipelint.lint.rulebase import Rule, Use


def _normalise_guard(text: str) -> str:
    """Guards that differ only in variable names are the same check: `(( PER_RANK_GB <= 0 ))`
    and `(( PER_RANK_GIB <= 0 ))`."""
    return re.sub(r"\b[A-Z][A-Z0-9_]*\b", "V", " ".join(text.split()))


def _shape(point) -> tuple:
    env = point.env
    ep = env.get("EP_SIZE")
    return (
        str(env.get("DP_ATTENTION", "")),
        (ep not in (None, "", "1", "0")) if isinstance(ep, str) else None,
        str(env.get("KV_OFFLOADING", "")),
        str(env.get("KV_OFFLOAD_BACKEND", "")),
        str(env.get("SPEC_DECODING", "")),
    )


class SiblingParity(Rule):
    """
    ## What it does
    Compares sibling recipes — files whose names differ only by the hardware token (b200/b300,
    h100/h200, mi300x/mi325x/mi355x, gb200/gb300) and that launch the same engine — under
    comparable sweep points (same DP-attention, expert-parallel, KV-offload and speculative
    settings).  It reports a flag one sibling passes and the other does not, and an `exit`
    guard (a divisibility or range check) one sibling has and the other lacks.

    ## Why is this bad?
    Sibling recipes are meant to be the same benchmark on two GPU generations.  When one is
    refactored and the other is not, flags get lost (tool calling dropped in an array rewrite)
    and guards go missing (a per-rank value that no longer divides evenly), and the two sets of
    results stop being comparable — the drift a reviewer has to spot by reading both files side
    by side.

    ## Example
    `dsv4_fp4_b300_vllm.sh` passes `--tool-call-parser deepseek_v4 --enable-auto-tool-choice`
    and checks `2*CONC % TP == 0` under DP-attention; `dsv4_fp4_b200_vllm.sh` does neither.

    ## Use instead
    Make the sibling pass the same flags and carry the same guard, or document the difference.

    ## Exceptions
    Hardware-specific flags (memory fractions, cudagraph capture sizing, NUMA and allocator
    knobs; `hardware_specific_flags` in `rules/data/parity.yaml`) are not compared.  A difference
    documented by a comment on the flag's line in either file is accepted.  An array that is
    declared and spliced but never filled counts as absent.
    """

    code = "RL401"
    name = "sibling-parity"
    severity = "warning"
    scope = "project"

    def _skip(self):
        """key -> whether it is a hardware-specific flag (answers kept for the whole run)."""
        skip = getattr(self, "_skip_fn", None)
        if skip is None:
            data = facts.load("parity")
            exact = set(data["hardware_specific_flags"])
            pats = list(data.get("hardware_specific_patterns", []))
            match = re.compile("|".join(f"(?:{fnmatch.translate(p)})" for p in pats)).match if pats else None
            skipped: dict[str, bool] = {}

            def skip(key: str) -> bool:
                hit = skipped.get(key)
                if hit is None:
                    hit = skipped[key] = key in exact or (match is not None and match(key) is not None)
                return hit

            self._skip_fn = skip
        return skip

    def check(self, ctx):
        skip = self._skip()
        cache: dict = {}  # result id -> its flags (siblings are compared more than once)

        sibs = ctx.project.siblings(ctx.result)
        if not sibs:
            return
        mine = self._flags(ctx.result, skip, cache)
        for sib in sibs:
            theirs = self._flags(sib, skip, cache)
            missing: dict = {}
            points: list = []
            guards: dict = {}
            guard_points: list = []
            for (engine, shape), (flags, use, pts, my_guards) in mine.items():
                other = theirs.get((engine, shape))
                if other is None:
                    continue
                for key, f in other[0].items():
                    if key in flags:
                        continue
                    if key not in missing:
                        if self._documented(f) or self._lacking_elsewhere(sibs, sib, engine, shape, key, skip, cache):
                            continue
                        missing[key] = (f, use)
                    points.extend(p for p in pts if p not in points)
                for norm, g in other[3].items():
                    if norm in my_guards:
                        continue
                    guards.setdefault(norm, (g, use))
                    guard_points.extend(p for p in pts if p not in guard_points)
            if missing:
                first_use = next(iter(missing.values()))[1]
                names = ", ".join(f"`{k}`" for k in missing)
                related = [(f.word.loc, f"{sib.path.name} passes {k} here") for k, (f, _) in missing.items()]
                msg = f"sibling {sib.path.name} passes {names} but this recipe does not"
                yield ctx.finding(first_use.launch.loc, msg, points, related, key=f"flags|{sib.path.name}|{names}")
            for norm, (g, use) in guards.items():
                msg = (
                    f"sibling {sib.path.name} stops the run when `{g.text}` (line {g.loc.real().span.line}); "
                    f"this recipe has no such check"
                )
                yield ctx.finding(
                    use.launch.loc,
                    msg,
                    guard_points,
                    [(g.loc, f"{sib.path.name} guards with an exit here")],
                    key=f"guard|{sib.path.name}|{norm}",
                )

    def _flags(self, result, skip, cache: dict) -> dict:
        """(engine, shape) -> (flags by key, a launch, points, guards by normalised text) over the
        benchmark points that reached a launch."""
        out = cache.get(id(result))
        if out is not None:
            return out
        out = cache[id(result)] = {}
        script = str(result.path.resolve())
        for pr in result.points:
            if str(pr.point.env.get("EVAL_ONLY", "false")).lower() == "true":
                continue
            for path in pr.paths:
                for lc in path.events:
                    if not hasattr(lc, "flags") or not lc.complete:
                        continue
                    key = (lc.engine, _shape(pr.point))
                    entry = out.get(key)
                    if entry is None:
                        entry = out[key] = ({}, Use(lc, pr.point), [], {})
                    if pr.point not in entry[2]:
                        entry[2].append(pr.point)
                    for f in lc.flags:
                        k = f.base
                        if skip(k) or not k.startswith("-"):
                            continue
                        entry[0].setdefault(k, f)
                    for g in path.guards:
                        if _same(g.loc.real().source.path, script):
                            entry[3].setdefault(_normalise_guard(g.text), g)
        return out

    def _documented(self, f) -> bool:
        real = f.word.loc.real()
        src = real.source
        if not hasattr(src, "line_text"):
            return False
        return "#" in src.line_text(real.span.line)

    def _lacking_elsewhere(self, sibs, sib, engine, shape, key, skip, cache) -> bool:
        """With three or more siblings, only the odd one out is reported."""
        for other in sibs:
            if other is sib:
                continue
            flags = self._flags(other, skip, cache).get((engine, shape))
            if flags is not None and key not in flags[0]:
                return True
        return False


@functools.lru_cache(maxsize=4096)
def _same(a: str, b: str) -> bool:
    try:
        return Path(a).resolve() == Path(b)
    except OSError:
        return False
