from recipelint.lint.rulebase import Rule, env_int

_TRUE = ("true", "1", "yes", "on", "y", "t")


class PromptAboveTokenBudget(Rule):
    """
    ## What it does
    Reports a TensorRT-LLM launch whose `max_num_tokens` (the options file over
    `--max_num_tokens`; 8192 when neither gives it) is below the sweep point's input length
    (`ISL`) while chunked prefill is off (`enable_chunked_prefill`, off by default).

    ## Why is this bad?
    Without chunked prefill a prompt is prefilled in one forward step, and one step holds at most
    `max_num_tokens` tokens: a prompt longer than that cannot run.  TensorRT-LLM's LLM API rejects
    such a request up front (`LLM._check_arguments`: a `RequestError`, the client sees an error
    response) — newer releases let it through only when KV-cache block reuse may shorten it, which
    random benchmark prompts do not.  The sweep point then measures failed or stuck requests.

    ## Example
    ```bash
    trtllm-serve "$MODEL" --max_num_tokens 4096 --max_seq_len 9416 &   # ISL=8192
    ```

    ## Use instead
    Size `max_num_tokens` from the input length (`ISL` plus headroom), or turn on
    `enable_chunked_prefill: true`.

    ## Exceptions
    Judged only where `ISL` and `max_num_tokens` are known and `enable_chunked_prefill` is known
    to be off.
    """

    code = "RL508"
    name = "prompt-above-token-budget"
    severity = "warning"

    def check(self, ctx):
        for use in ctx.uses("trtllm"):
            isl = env_int(use.point, "ISL")
            if not isl:
                continue
            api = ctx.llm_api(use)
            chunked = api.get("enable_chunked_prefill")
            if chunked is not None and (not chunked.known or str(chunked.value).strip().lower() in _TRUE):
                continue
            budget = api.get("max_num_tokens")
            if budget is not None:
                value, loc, how = budget.integer, budget.loc, "max_num_tokens"
            else:
                value, loc, how = 8192, use.launch.loc, "max_num_tokens absent: the default 8192"
            if value is None or value >= isl:
                continue
            msg = f"ISL={isl} is above {how} ({value}) with chunked prefill off: raise it to ISL, or turn chunked prefill on"
            notes = ["a prompt this long does not fit one prefill step, and TensorRT-LLM rejects it (or cannot schedule it)"]
            yield ctx.finding(loc, msg, use.point, key=f"{value}|{isl}", notes=notes)
