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

    For multi-node engine configurations (`CONFIG_FILE=`), the decode role's graphs against the
    concurrency per decode worker and rank (at most its `max_batch_size`).

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
            if not conc:
                continue
            got = below(ctx.llm_api(use), conc, 1)
            if got is None:
                continue
            where, cg, msg = got
            documented = ctx.documented([where.loc, cg.loc], ["cuda_graph_config", "max_batch_size", "batch_sizes"])
            yield ctx.finding(where.loc, msg, use.point, key=msg.split(" but ")[0], documented=documented)

    def check_project(self, project):
        """Multi-node TensorRT-LLM engine configurations: the decode role's graphs against the
        item's concurrency per decode worker and rank."""
        from recipelint.engines import llmapi
        from recipelint.lint.findings import span_of

        for cfg in project.engine_configs():
            mapping = cfg.roles.get("decode")
            if mapping is None:
                continue
            api = llmapi.resolve_mapping(mapping)
            worst = None
            for _, ref in cfg.uses:
                workers = (ref.roles.get("decode") or {}).get("workers") or 1
                for c in ref.concs:
                    got = below(api, c, workers)
                    if got is not None and (worst is None or c > worst[0]):
                        worst = (c, got)
            if worst is not None:
                where, _, msg = worst[1]
                yield self.project_finding(span_of(where.loc), f"decode: {msg}", cfg.related())


def below(api, conc: int, workers: int):
    """(the graph ceiling's node, the cuda_graph_config node, the message) when the CUDA graphs of
    an LLM-API mapping stop below the batch each rank runs at ``conc`` over ``workers``, else None."""
    cg = api.node("cuda_graph_config")
    if cg is None or cg.kind != "object":
        return None
    top, sizes = cg.get("max_batch_size"), cg.get("batch_sizes")
    if top is not None and top.integer:
        ceiling, where = top.integer, top
    elif sizes is not None and sizes.kind == "array" and sizes.elements:
        if not all(e.integer is not None for e in sizes.elements):
            return None
        where = max(sizes.elements, key=lambda e: e.integer)
        ceiling = where.integer
    else:
        return None
    dp = attention_dp(api)
    if not dp:
        return None
    load = -(-conc // (dp * workers))
    mbs = api.get("max_batch_size")
    if mbs is not None:
        if mbs.integer is None:
            return None
        load = min(load, mbs.integer)
    if ceiling >= load:
        return None
    spread = " over ".join(
        x for x in (f"{workers} workers" if workers > 1 else "", f"{dp} attention-DP ranks" if dp > 1 else "") if x
    )
    per = f"CONC={conc} over {spread}" if spread else f"CONC={conc}"
    msg = (
        f"CUDA graphs are captured up to batch {ceiling} but each rank runs batches up to {load} ({per}): "
        f"batches above {ceiling} run without CUDA graphs (eager)"
    )
    return where, cg, msg
