from recipelint.lint.rulebase import Rule, unbound_name


class MissingSweepVariable(Rule):
    """
    ## What it does
    Reports a variable the recipe requires — listed in `check_env_vars`, `${VAR:?}`, or used
    under `set -u` while other sweep points of the recipe set it — that a master-config sweep
    point does not set.

    ## Why is this bad?
    The launcher only sets the variables the config gives it (`TP`, `CONC`, `EP_SIZE`,
    `DP_ATTENTION`, `KV_OFFLOADING`, ...).  A recipe that requires another one stops at its first
    line for every job of that entry.

    ## Example
    ```bash
    check_env_vars MODEL TP CONC MAX_MODEL_LEN DRAFT_MODEL   # DRAFT_MODEL: no config sets it
    ```

    ## Use instead
    Give the variable a default in the recipe (`DRAFT_MODEL=${DRAFT_MODEL:-org/draft}`) or have
    the config and the launcher set it.

    ## Exceptions
    Only points from a master config are judged; the default matrix sets a fixed list of
    variables.  A read under `set -u` of a variable no sweep point of the recipe sets is the
    recipe's own bug, RL507.
    """

    code = "RL503"
    name = "missing-sweep-variable"
    severity = "error"

    def check(self, ctx):
        sweep = ctx.sweep_names()
        for pr, path in ctx.stopped_points():
            kind, text = ctx.classify_stop(path)
            if kind != "missing":
                continue
            unset = unbound_name(path.exit)
            if unset is not None and unset not in sweep:
                continue  # a name no sweep point of the recipe sets, read under `set -u`: RL507
            ex = path.exit
            names = [n for n in text.split() if not isinstance(pr.point.env.get(n), str) or not pr.point.env.get(n)]
            if not names:
                names = text.split()
            shown = ", ".join(f"`{n}`" for n in names[:6])
            msg = f"the recipe requires {shown}, which the sweep point does not set ({pr.point.config_key})"
            related = [] if ctx.exit_anchor(ex) is ex.loc else [(ex.loc, "the check is here")]
            yield ctx.finding(ctx.exit_anchor(ex), msg, pr.point, related, key=",".join(names))
