from recipelint.lint.rulebase import Rule, behaviour_scope, flag_int, kv_connector

#: the behaviours this rule relies on (rules/data/behaviours.yaml)
AUTO_TOOL = "vllm.auto-tool-choice-needs-parser-at-startup"
KV_ROLE = "vllm.kv-role-required"
CAPTURE = "vllm.capture-size-consistent"


class StartupRejection(Rule):
    """
    ## What it does
    Reports vLLM settings that vLLM rejects when it starts:

    * `--enable-auto-tool-choice` without `--tool-call-parser` (`TypeError`);
    * a `--kv-transfer-config` with a `kv_connector` and no `kv_role`;
    * `max_cudagraph_capture_size` (in `--compilation-config`, dotted, or
      `--max-cudagraph-capture-size`) different from the largest `cudagraph_capture_sizes`
      entry that is kept (entries above `--max-num-batched-tokens` are dropped) (`ValueError`);

    and TensorRT-LLM's LLM-API options file with a `cuda_graph_config` whose `max_batch_size`
    (non-zero) differs from the largest `batch_sizes` entry (`BaseCudaGraphConfig`'s validator:
    `ValueError` at startup).

    ## Why is this bad?
    The job fails at startup, after the node was allocated and the weights started loading.

    ## Example
    ```bash
    vllm serve "$MODEL" --max-cudagraph-capture-size 512 \\
        --compilation-config '{"cudagraph_capture_sizes": [1, 2, 4, 8, 256]}'
    ```

    ## Use instead
    Give one of the two, or make the maximum equal to the largest listed size.

    ## Exceptions
    Checked only where every value involved is known.  The first two are version-scoped
    behaviours (`vllm.auto-tool-choice-needs-parser-at-startup`, `vllm.kv-role-required` in
    `rules/data/behaviours.yaml`: every release 0.8.0–0.34.0, read from `validate_parsed_serve_args`
    and `KVTransferConfig.__post_init__`), and so is the third (`vllm.capture-size-consistent`:
    0.11.1–0.34.0, `VllmConfig._set_cudagraph_sizes`); the message names the release judged.
    """

    code = "RL607"
    name = "startup-rejection"
    severity = "error"

    def check(self, ctx):
        for use in ctx.uses("trtllm"):
            yield from self._trtllm_graphs(ctx, use)
        for use in ctx.uses("vllm"):
            lc = use.launch
            auto = lc.get("--enable-auto-tool-choice")
            got = use.behaviour(AUTO_TOOL)
            if auto is not None and not lc.has("--tool-call-parser") and lc.complete and got and got[0].somewhere:
                yield ctx.finding(
                    auto.word.loc,
                    f"`--enable-auto-tool-choice` without `--tool-call-parser`: {behaviour_scope(*got)} stops "
                    "at startup (`--enable-auto-tool-choice requires --tool-call-parser`); add the model's `--tool-call-parser`",
                    use.point,
                    key="auto",
                )
            name, _extra, kv = kv_connector(lc)
            got = use.behaviour(KV_ROLE)
            if (
                kv is not None
                and kv.json is not None
                and kv.json.kind == "object"
                and name
                and kv.json.get("kv_role") is None
                and got
                and got[0].somewhere
            ):
                yield ctx.finding(
                    kv.json.key_node("kv_connector").loc,
                    f"`--kv-transfer-config` names `{name}` but no "
                    f"`kv_role`: {behaviour_scope(*got)} stops at startup (kv_role is required with kv_connector); "
                    "add `\"kv_role\": \"kv_both\"` (or the role this server plays)",
                    use.point,
                    key="role",
                )
            yield from self._capture(ctx, use)

    def _capture(self, ctx, use):
        lc = use.launch
        cc = lc.get("--compilation-config")
        sizes_node = (
            cc.json.get("cudagraph_capture_sizes")
            if cc is not None and cc.json is not None and cc.json.kind == "object"
            else None
        )
        if sizes_node is None or sizes_node.kind != "array" or not sizes_node.elements:
            return
        if not all(e.integer is not None for e in sizes_node.elements):
            return
        maxima = []
        mnode = cc.json.get("max_cudagraph_capture_size")
        if mnode is not None and mnode.integer is not None:
            maxima.append((mnode.integer, mnode.loc))
        for f in lc.all("--compilation-config.max_cudagraph_capture_size") + lc.all("--max-cudagraph-capture-size"):
            v = flag_int(lc, f.key) if f.subkey is None else (int(f.text) if f.text and f.text.isdigit() else None)
            if v is not None:
                maxima.append((v, f.value_loc))
        if not maxima:
            return
        got = use.behaviour(CAPTURE)
        if got is None or not got[0].somewhere:
            return
        sizes = [e.integer for e in sizes_node.elements]
        mbt = flag_int(lc, "--max-num-batched-tokens")
        kept = [s for s in sizes if mbt is None or s <= mbt]
        if not kept:
            return
        for value, loc in maxima[-1:]:
            if value != max(kept):
                msg = (
                    f"max_cudagraph_capture_size is {value} but the largest kept cudagraph_capture_sizes entry is "
                    f"{max(kept)}: {behaviour_scope(*got)} stops at startup (they must be consistent); make them agree"
                )
                yield ctx.finding(loc, msg, use.point, key=f"capture|{value}|{max(kept)}")

    def _trtllm_graphs(self, ctx, use):
        got = graph_mismatch(ctx.llm_api(use).node("cuda_graph_config"))
        if got is not None:
            loc, msg, related, key = got
            yield ctx.finding(loc, msg, use.point, related=related, key=key)

    def check_project(self, project):
        """The multi-node engine configurations' LLM-API mappings (srt-slurm recipes)."""
        from recipelint.lint.findings import span_of

        for cfg in project.engine_configs():
            for role, mapping in cfg.roles.items():
                got = graph_mismatch(mapping.get("cuda_graph_config"), f"{role}.")
                if got is not None:
                    loc, msg, related, _ = got
                    rel = [(span_of(x), m) for x, m in related if x is not None] + cfg.related()
                    yield self.project_finding(span_of(loc), msg, rel)


def graph_mismatch(cg, prefix: str = ""):
    """TensorRT-LLM's ``cuda_graph_config`` with a non-zero ``max_batch_size`` other than the
    largest ``batch_sizes`` entry (``BaseCudaGraphConfig``'s validator): (location, message,
    related, key), else None."""
    if cg is None or cg.kind != "object":
        return None
    sizes, top = cg.get("batch_sizes"), cg.get("max_batch_size")
    if sizes is None or top is None or sizes.kind != "array" or not sizes.elements or top.integer in (None, 0):
        return None
    if not all(e.integer is not None for e in sizes.elements):
        return None
    largest = max(e.integer for e in sizes.elements)
    if top.integer == largest:
        return None
    from recipelint.engines.llmapi import catalog

    msg = (
        f"`{prefix}cuda_graph_config.max_batch_size` is {top.integer} but the largest `batch_sizes` entry is {largest}: "
        f"TensorRT-LLM stops at startup (they must be equal when both are given; {catalog().source}); make them equal"
    )
    return top.loc, msg, [(sizes.loc, "batch_sizes are listed here")], f"trtllm-graphs|{top.integer}|{largest}"
