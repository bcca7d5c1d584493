from recipelint.lint.rulebase import Rule, behaviour_scope_parts, env_int, flag_int, sglang_attention_dp

#: the behaviour this rule relies on (rules/data/behaviours.yaml)
BEHAVIOUR = "sglang.max-running-requests-global"


class SglangRunningRequestsDivided(Rule):
    """
    ## What it does
    Checks SGLang launches with DP attention (`--dp N --enable-dp-attention`, or
    `--attn-dp-size N`) whose `--max-running-requests` was already divided by the DP size in
    the script.

    ## Why is this bad?
    SGLang's `--max-running-requests` is global: SGLang itself divides it by the attention-DP
    size to get each worker's limit (`max_num_reqs // attn_dp_size`).  Dividing it again in the
    recipe shrinks every worker's limit N times, below the sweep point's concurrency, and the
    benchmark queues requests it was meant to run.

    ## Example
    ```bash
    MAX_RUNNING=$((2 * CONC / TP))
    python3 -m sglang.launch_server --tp "$TP" --dp "$TP" --enable-dp-attention \\
        --max-running-requests "$MAX_RUNNING"
    ```

    ## Use instead
    ```bash
    MAX_RUNNING=$((2 * CONC))   # global; SGLang splits it across DP workers
    ```

    ## Exceptions
    Only sweep points with a known `CONC` are judged; a global value at or above `CONC` is fine,
    and so is a constant cap (`MAX_RUNNING=256`): only a value computed with a division is
    reported.  Judged on releases that divide the flag by the attention-DP size
    (`sglang.max-running-requests-global` in `rules/data/behaviours.yaml`: 0.4.1.post7 on; 0.4.0–
    0.4.1.post6 do not), and the message names the release it judged.
    vLLM is the mirror case (per engine): see RL101.
    """

    code = "RL102"
    name = "sglang-running-requests-divided"
    severity = "warning"

    def check(self, ctx):
        for use in ctx.uses("sglang"):
            lc, point = use.launch, use.point
            dp = sglang_attention_dp(lc)
            conc = env_int(point, "CONC")
            f = lc.get("--max-running-requests")
            v = flag_int(lc, "--max-running-requests")
            if not dp or dp <= 1 or not conc or f is None or v is None:
                continue
            if v >= conc or v * dp < conc:
                continue
            # the value must have been computed by a division (a cap such as `=256` is not this bug)
            if "/" not in ctx.source_text(f.value_loc):
                continue
            got = use.behaviour(BEHAVIOUR)
            if got is None or not got[0].somewhere:
                continue
            per_worker = max(1, v // dp)
            short, provenance = behaviour_scope_parts(*got)
            msg = (
                f"`--max-running-requests` is {v} with {dp} DP-attention workers, each admitting only {per_worker} at "
                f"CONC={conc}: pass the global value (e.g. {v * dp})"
            )
            notes = [f"{short} already divides it by the DP size", provenance]
            yield ctx.finding(
                f.value_loc, msg, point, [(f.word.loc, f"--max-running-requests {v} is passed here")], key=f"{dp}", notes=notes
            )
