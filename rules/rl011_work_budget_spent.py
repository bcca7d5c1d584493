from recipelint.engines.launches import MAX_FLAGS
from recipelint.evaluate.state import Limits
from recipelint.lint.rulebase import Rule

#: the run's budget, per process (``Limits.run_steps``)
RUN_STEPS = Limits().run_steps


class WorkBudgetSpent(Rule):
    """
    ## What it does
    Reports where recipelint stopped reading because a bound on its work was reached: a launch
    with more than 4,096 flags (the words after them are not read), a recipe whose sweep
    points together took more than 2,000,000 evaluation steps (the points after that are not
    evaluated), and the recipes a run reached after its files together took 40,000,000 steps (in
    one process; each worker has its own).

    ## Why is this bad?
    A checked repository is untrusted input, and a recipe can be written to cost any amount of
    work: a value that doubles through arrays at every sweep point, an `eval` of a growing
    string, a launch of 100,000 flags (203 s of rule work before the bound).  recipelint bounds
    the work per file and says where it stopped, instead of running for hours or passing the
    rest in silence: what is past the bound is not checked.  No real recipe comes near the
    bounds (InferenceX's longest launch passes about 40 flags; its costliest recipe takes about
    70,000 steps over 72 sweep points).

    ## Example
    ```bash
    vllm serve "$MODEL" --f1 1 --f2 2 … --f5000 5000   # generated, or a runaway loop
    ```

    ## Use instead
    Pass the options a launch needs: a few dozen flags, or a configuration file
    (`--config`).  For a recipe that spends the step budget, split its sweep (fewer points per
    file) or simplify what it computes per point.

    ## Exceptions
    None: the bounds are fixed (`engines.launches.MAX_FLAGS`, `evaluate.state.Limits.file_steps`).
    """

    code = "RL011"
    name = "work-budget-spent"
    severity = "warning"
    sweep_independent = True

    def check(self, ctx):
        cut = ctx.result.budget_cut
        if cut is not None and len(cut) > 3:  # (the run's budget, spent before or in this file)
            done, total = cut[0], cut[1]
            msg = (
                f"the run's work budget ({RUN_STEPS:,} evaluation steps) was spent after {done} of this recipe's "
                f"{total} sweep points: the other {total - done} are not checked; check fewer files per run"
            )
            yield ctx.finding(ctx.header_loc(1), msg, key="run-steps")
        elif cut is not None:
            done, total, spent = cut
            msg = (
                f"the work budget of this recipe ({spent:,} evaluation steps) was spent after {done} of {total} sweep "
                f"points: the other {total - done} are not checked; split the sweep or simplify what each point computes"
            )
            yield ctx.finding(ctx.header_loc(1), msg, key="steps")
        seen = set()
        for use in ctx.uses(benchmark=False):
            lc = use.launch
            real = lc.loc.real()
            if not lc.cut or (real.source.path, real.start) in seen:
                continue
            seen.add((real.source.path, real.start))
            msg = (
                f"this launch passes more than {MAX_FLAGS:,} flags: the first {MAX_FLAGS:,} are checked, the "
                f"{lc.cut:,} words after them are not; pass fewer flags (or a configuration file)"
            )
            yield ctx.finding(lc.loc, msg, use.point, key="flags")
