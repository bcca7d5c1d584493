from recipelint.lint.rulebase import Rule, env_int


def attention_dp(api) -> int | None:
    """TensorRT-LLM's attention-DP size: ``tensor_parallel_size`` when ``enable_attention_dp`` is
    on, 1 when it is off, None when not known."""
    adp = api.get("enable_attention_dp")
    if adp is None:
        return 1
    if not adp.known:
        return None
    if str(adp.value).strip().lower() not in ("true", "1", "yes", "on"):
        return 1
    tp = api.get("tensor_parallel_size")
    return tp.integer if tp is not None and tp.integer else (1 if tp is None else None)


class CudaGraphsBelowLoad(Rule):
    """
    ## What it does
    Notes a TensorRT-LLM launch whose CUDA graphs stop below the batch each rank runs at the sweep
    point: the largest graph batch size (`cuda_graph_config.max_batch_size`, else the largest
    `batch_sizes` entry) is smaller than the sweep point's concurrency per rank — `CONC` divided by
    the attention-DP size (`tensor_parallel_size` under `enable_attention_dp`), at most the
    engine's `max_batch_size`.

    ## Why is this bad?
    TensorRT-LLM runs a decode batch larger than every captured graph without CUDA graphs
    (eagerly): the top of the sweep measures a different execution mode from the points below it,
    which is easy to miss when reading the curve.  It may be intended (capturing very large graphs
    costs start-up time and memory: InferenceX dbd6084ad caps them at 1024 and says "batches above
    just run eager"), so this is an info, and a comment naming the setting accepts it.

    ## Example
    ```bash
    cat > cfg.yml <<EOF
    enable_attention_dp: true
    cuda_graph_config:
      enable_padding: true
      max_batch_size: 64
    EOF
    trtllm-serve "$MODEL" --tp_size 8 --max_batch_size 512 --config cfg.yml   # CONC=2048: 256 per rank
    ```

    ## Use instead
    Size the graphs from the per-rank load (`max_batch_size: $(( CONC / TP ))` under attention DP),
    or say in a comment that larger batches run eager on purpose.

    ## Exceptions
    Judged only when the options file gives `cuda_graph_config` and every value involved is known
    (the default graphs, when `cuda_graph_config` is absent, are not the recipe's choice).
    """

    code = "RL103"
    name = "cuda-graphs-below-load"
    severity = "info"

    def check(self, ctx):
        for use in ctx.uses("trtllm"):
            conc = env_int(use.point, "CONC")
            api = ctx.llm_api(use)
            cg = api.node("cuda_graph_config")
            if not conc or cg is None or cg.kind != "object":
                continue
            top, sizes = cg.get("max_batch_size"), cg.get("batch_sizes")
            if top is not None and top.integer:
                ceiling, where = top.integer, top
            elif sizes is not None and sizes.kind == "array" and sizes.elements:
                if not all(e.integer is not None for e in sizes.elements):
                    continue
                where = max(sizes.elements, key=lambda e: e.integer)
                ceiling = where.integer
            else:
                continue
            dp = attention_dp(api)
            if not dp:
                continue
            load = -(-conc // dp)
            mbs = api.get("max_batch_size")
            if mbs is not None:
                if mbs.integer is None:
                    continue
                load = min(load, mbs.integer)
            if ceiling >= load:
                continue
            per = f"CONC={conc} over {dp} attention-DP ranks" if dp > 1 else f"CONC={conc}"
            msg = (
                f"CUDA graphs are captured up to batch {ceiling} but each rank runs batches up to {load} ({per}): "
                f"batches above {ceiling} run without CUDA graphs (eager)"
            )
            documented = ctx.documented([where.loc, cg.loc], ["cuda_graph_config", "max_batch_size", "batch_sizes"])
            yield ctx.finding(where.loc, msg, use.point, key=f"{ceiling}", documented=documented)
