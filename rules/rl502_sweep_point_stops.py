from recipelint.evaluate.state import Rejected
from recipelint.lint.rulebase import Rule

PER_RANK_KEYS = (
    "--max-num-seqs",
    "--max-running-requests",
    "--max-cudagraph-capture-size",
    "--cuda-graph-max-bs",
    "--max-num-batched-tokens",
    "--max_batch_size",
)


class SweepPointStops(Rule):
    """
    ## What it does
    Reports master-config sweep points that cannot run as configured: the recipe's own `exit`
    guard stops them (a divisibility check, a supported-concurrency list, a positivity check), or
    a per-rank value computed from the point is zero or loses a remainder (`$((2 * CONC / TP))` at
    `conc: 1` on DEP8 is 0; at `conc: 9` it is 18/8, truncated to 2).

    ## Why is this bad?
    A guard that fires makes the job fail after the node was allocated; a zero per-rank limit
    makes the server refuse to start or serve nothing; a truncated one silently runs a different
    configuration than the sweep point describes, so neighbouring points are not comparable.

    ## Example
    ```yaml
    - { tp: 8, ep: 8, dp-attn: true, conc-list: [1, 9, 16] }
    ```
    ```bash
    MAX_NUM_SEQS=$((2 * CONC / TP))    # 0 at conc 1, 2 (not 2.25) at conc 9
    ```

    ## Use instead
    Keep the config's concurrencies multiples of what the recipe divides by, or round up in the
    recipe (`$(( (2 * CONC + TP - 1) / TP ))`).

    ## Exceptions
    Only points from a master config are judged.  Exits that depend on values recipelint could
    not compute (a file test, a command's output) are not reported.  Truncation is reported for
    per-rank limits computed from `CONC` (`--max-num-seqs`, `--max-running-requests`, cudagraph
    batch sizes), and only when it changes the result (`$(( CONC*3/2 > 8 ? CONC*3/2 : 8 ))` at
    `conc: 1` is 8 either way); deliberate rounding of sizes is not.  A rejected option is RL501,
    a missing variable RL503, and an argument a called function's option loop rejects RL801.
    """

    code = "RL502"
    name = "sweep-point-stops"
    severity = "error"

    def check(self, ctx):
        for pr, path in ctx.stopped_points():
            kind, text = ctx.classify_stop(path)
            if kind != "guard" or _rejected_call(path):
                continue
            ex = path.exit
            why = f" (“{ex.message}”)" if ex.message else ""
            cond = f"at `{text}`" if text else f"at {ctx.line_of(ex.loc)}"
            msg = (
                f"sweep point {pr.point.describe()} stops {cond} with exit status {ex.code}{why}; "
                "drop the point from the config entry, or let the recipe run it"
            )
            related = [] if ctx.exit_anchor(ex) is ex.loc else [(ex.loc, "the exit is here")]
            yield ctx.finding(
                ctx.exit_anchor(ex), msg, pr.point, related, key=f"{text or ctx.source_text(ex.loc)}|{ex.code}|{ex.message}"
            )
        for pr in ctx.config_points():
            for path in pr.paths:
                for lc in {id(e): e for e in path.events if hasattr(e, "flags")}.values():
                    yield from self._per_rank(ctx, pr, path, lc)

    def _per_rank(self, ctx, pr, path, lc):
        inexact = {(i.loc.real().source.path, i.loc.real().start): i for i in path.inexact}
        for f in lc.flags:
            if f.value is None or f.value_loc is None:
                continue
            real = f.value_loc.real()
            hit = inexact.get((real.source.path, real.start))
            if f.key in PER_RANK_KEYS and f.text is not None and f.text.strip() == "0":
                yield ctx.finding(
                    f.value_loc,
                    f"`{f.name}` is 0 at sweep point {pr.point.describe()}: size it at least 1 (or drop the point)",
                    pr.point,
                    [(f.word.loc, f"{f.name} is passed here")],
                    key=f"zero|{f.name}",
                )
            elif hit is not None and f.key in PER_RANK_KEYS and "CONC" in hit.text:
                exact = hit.exact
                shown = f"{float(exact):g}" if exact is not None else f"{hit.dividend}/{hit.divisor}"
                msg = (
                    f"`{hit.text}` is {shown} at sweep point {pr.point.describe()}, not a whole number: bash "
                    f"truncates it to {hit.value} for `{f.name}`; choose points it divides, or round on purpose"
                )
                yield ctx.finding(hit.loc, msg, pr.point, [(f.word.loc, f"{f.name} is passed here")], key=f"inexact|{f.name}")


def _rejected_call(path) -> bool:
    """Whether the path exits (`set -e`) at a call whose function rejected an argument (RL801)."""
    ex = path.exit
    if "set -e" not in ex.reason:
        return False
    at = ex.loc.real()
    for ev in path.events:
        if isinstance(ev, Rejected) and ev.stack:
            call = ev.stack[0][2].real()
            if call.source.path == at.source.path and call.start == at.start:
                return True
    return False
