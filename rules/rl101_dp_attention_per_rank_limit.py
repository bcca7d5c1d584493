from recipelint.lint.rulebase import Rule, env_int, flag_int, vllm_dp_size


class DpAttentionPerRankLimit(Rule):
    """
    ## What it does
    Checks vLLM launches that run several data-parallel engines (`--data-parallel-size N`,
    DP-attention) for per-engine limits sized for the whole sweep point: `--max-num-seqs`,
    `--max-cudagraph-capture-size` and the largest `cudagraph_capture_sizes` entry of
    `--compilation-config`.

    ## Why is this bad?
    Under DP-attention every DP rank is an independent vLLM engine, and vLLM never divides
    `--max-num-seqs` or the cudagraph capture sizes by the DP size: they are per engine.  A
    router spreads the sweep point's `CONC` sessions over the N engines, so each sees about
    `CONC/N`.  A cap computed from the whole concurrency (`2*CONC`) over-provisions every rank
    N times: a wider scheduler batch and capture ceiling than the recipe intends, and numbers
    that are not comparable with a sibling recipe that sizes per rank.

    ## Example
    ```bash
    PARALLEL_ARGS=(--tensor-parallel-size 1 --data-parallel-size "$TP")
    MAX_NUM_SEQS=$((2 * CONC))
    vllm serve "$MODEL" "${PARALLEL_ARGS[@]}" --max-num-seqs "$MAX_NUM_SEQS"
    ```

    ## Use instead
    ```bash
    if [ "$DP_ATTENTION" = "true" ]; then
        MAX_NUM_SEQS=$((2 * CONC / TP))
    else
        MAX_NUM_SEQS=$((2 * CONC))
    fi
    ```

    ## Exceptions
    Only sweep points whose `CONC` is known are judged, and only values computed from `CONC`
    (a constant ceiling such as `--max-cudagraph-capture-size 2048` is not sized for the sweep
    point).  Capture sizes count tokens: with
    speculative decoding a capture size up to `per-rank seqs × (1 + num_speculative_tokens)`
    is expected and not reported.  SGLang's `--max-running-requests` is the opposite case
    (global, divided by SGLang itself): see RL102.
    """

    @staticmethod
    def _from_conc(ctx, loc) -> bool:
        """Whether the value was computed from the sweep point's concurrency (a constant
        ceiling such as 2048 is not sized for the sweep point)."""
        return loc is not None and "CONC" in ctx.source_text(loc)

    code = "RL101"
    name = "dp-attention-per-rank-limit"
    severity = "warning"

    def check(self, ctx):
        for use in ctx.uses("vllm"):
            lc, point = use.launch, use.point
            dp = vllm_dp_size(lc)
            conc = env_int(point, "CONC")
            if not dp or dp <= 1 or not conc:
                continue
            spec = lc.get("--speculative-config")
            extra_tokens = 0
            if spec is not None and spec.json is not None and spec.json.kind == "object":
                n = spec.json.get("num_speculative_tokens")
                extra_tokens = (n.integer or 0) if n is not None and isinstance(n.value, int) else 0
            by_origin: dict = {}
            for key in ("--max-num-seqs", "--max-cudagraph-capture-size"):
                f = lc.get(key)
                v = flag_int(lc, key)
                limit = conc * (1 + extra_tokens) if key == "--max-cudagraph-capture-size" else conc
                if f is None or v is None or v < limit or not self._from_conc(ctx, f.value_loc):
                    continue
                origin = f.value_loc
                by_origin.setdefault((origin.real().source.path, origin.real().start), (origin, []))[1].append((f, v))
            cc = lc.get("--compilation-config")
            if cc is not None and cc.json is not None and cc.json.kind == "object":
                sizes = cc.json.get("cudagraph_capture_sizes")
                if (
                    sizes is not None
                    and sizes.kind == "array"
                    and sizes.elements
                    and all(e.integer is not None for e in sizes.elements)
                ):
                    largest = max(sizes.elements, key=lambda e: e.integer)
                    # a computed list (its entries come from expansions) rather than a literal ladder
                    computed = ctx.source_text(largest.loc).lstrip('"').startswith("$") if largest.loc else False
                    if largest.integer >= conc * (1 + extra_tokens) and (computed or self._from_conc(ctx, largest.loc)):
                        origin = largest.loc or cc.value_loc
                        by_origin.setdefault((origin.real().source.path, origin.real().start), (origin, []))[1].append(
                            (cc, largest.integer)
                        )
            for origin, items in by_origin.values():
                names = " and ".join(
                    f"`{f.name}`" if f.name != "--compilation-config" else "`cudagraph_capture_sizes`" for f, _ in items
                )
                v = items[0][1]
                suggested = -(-v // dp)  # at least one request per rank
                if suggested >= v:
                    continue  # nothing to divide: a cap of 1 (CONC=1) is already the smallest
                shown = f"{v // conc}·CONC/DP" if v % conc == 0 else "CONC/DP-scaled"  # (exact: v may be huge)
                verb = "are" if len(items) > 1 else "is"
                msg = (
                    f"{names} {verb} {v} for each of the {dp} DP engines at CONC={conc}: vLLM applies it per engine, "
                    f"so every rank gets the whole sweep point's budget; size it per DP rank (≈ {suggested} = {shown})"
                )
                related = [(f.word.loc, f"{f.name} is passed here") for f, _ in items]
                dpf = lc.get("--data-parallel-size")
                if dpf is not None:
                    related.append((dpf.word.loc, "the data-parallel size is set here"))
                yield ctx.finding(origin, msg, point, related, key=names)
