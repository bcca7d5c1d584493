from recipelint.lint.rulebase import Rule, kv_connector, model_family


class SimpleCpuEagerOffloadDsv4(Rule):
    """
    ## What it does
    Reports `"lazy_offload": false` in the `kv_connector_extra_config` of vLLM's
    SimpleCPUOffloadConnector on a DeepSeek-V4 launch.

    ## Why is this bad?
    Eager mode copies every newly computed KV block to CPU one step later.  On DeepSeek-V4 with
    SimpleCPUOffloadConnector it hits a `popleft_n` AssertionError at low and mid concurrency —
    benchmark repos document the workaround (`lazy_offload: true`) next to their other
    SimpleCPU recipes.  A sweep of low `CONC` values then crashes during warm-up.

    Removing the key does not help: the connector reads it as
    `bool(extra_config.get("lazy_offload", False))`, so its default is also eager.  Set it to
    the JSON boolean `true`.

    ## Example
    ```json
    {"kv_connector": "SimpleCPUOffloadConnector", "kv_role": "kv_both",
     "kv_connector_extra_config": {"cpu_bytes_to_use_per_rank": 356000000000, "lazy_offload": false}}
    ```

    ## Use instead
    ```json
    {"kv_connector": "SimpleCPUOffloadConnector", "kv_role": "kv_both",
     "kv_connector_extra_config": {"cpu_bytes_to_use_per_rank": 356000000000, "lazy_offload": true}}
    ```

    ## Exceptions
    Accepted when a comment beside the setting — on its line or in the four lines above it, or
    above the JSON's first line — mentions `lazy` or `eager`, documenting that eager mode was
    chosen on purpose (for example on an image known to carry the fix).  When the value comes
    from a variable (`"lazy_offload": ${LAZY}`), the comment may stand above that assignment.
    """

    code = "RL301"
    name = "simplecpu-eager-offload-dsv4"
    severity = "error"

    def check(self, ctx):
        for use in ctx.uses("vllm"):
            lc = use.launch
            name, extra, flag = kv_connector(lc)
            if name != "SimpleCPUOffloadConnector" or extra is None:
                continue
            lazy = extra.get("lazy_offload")
            if lazy is None or lazy.kind not in ("bool", "number") or lazy.value not in (False, 0):
                continue
            if model_family(lc, ctx.name) != "deepseek_v4":
                continue
            # the setting's line, the JSON's first line (a heredoc), and the lines above each
            if ctx.comment_near([lazy.loc, flag.value_loc], ("lazy", "eager"), above=4):
                continue
            msg = (
                "`lazy_offload: false` makes SimpleCPUOffloadConnector offload eagerly, which crashes DeepSeek-V4 "
                "with a popleft_n AssertionError at low/mid concurrency; set `\"lazy_offload\": true` (the default is "
                "also eager), or document the choice in a comment"
            )
            yield ctx.finding(lazy.loc, msg, use.point, [(flag.word.loc, "--kv-transfer-config is passed here")])
