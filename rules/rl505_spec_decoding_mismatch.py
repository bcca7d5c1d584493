from recipelint.lint.rulebase import Rule

SPEC_FLAGS = {"vllm": ("--speculative-config",), "sglang": ("--speculative-algorithm",)}


class SpecDecodingMismatch(Rule):
    """
    ## What it does
    Compares a master-config sweep point's `spec-decoding` with the launch: `mtp` or
    `draft_model` with no speculative configuration on the server (vLLM `--speculative-config`,
    SGLang `--speculative-algorithm`), or `none` with one.

    ## Why is this bad?
    Results are published under the config's label: an "MTP" point that runs without speculative
    decoding (or the reverse) reports numbers for a different setup, and comparisons across
    hardware and engines are wrong.

    ## Example
    ```yaml
    - { tp: 8, spec-decoding: mtp, conc-list: [8, 16] }
    ```
    ```bash
    vllm serve "$MODEL" --tensor-parallel-size "$TP"    # no --speculative-config
    ```

    ## Use instead
    ```bash
    vllm serve "$MODEL" --tensor-parallel-size "$TP" \\
        --speculative-config '{"method": "mtp", "num_speculative_tokens": 3}'
    ```

    ## Exceptions
    Only vLLM and SGLang launches from master-config points are judged; TRT-LLM and ATOM configure
    speculation in files or flags recipelint does not read yet.
    """

    code = "RL505"
    name = "spec-decoding-mismatch"
    severity = "error"

    def check(self, ctx):
        for pr in ctx.config_points():
            sd = str(pr.point.env.get("SPEC_DECODING", "none"))
            for lc in pr.launches:
                flags = SPEC_FLAGS.get(lc.engine)
                if not flags or not lc.complete:
                    continue
                has = any(lc.has(k) for k in flags)
                if sd in ("mtp", "draft_model") and not has:
                    msg = f"the sweep point sets spec-decoding: {sd} but the {lc.engine} launch has no {flags[0]}"
                    yield ctx.finding(lc.loc, msg, pr.point, key=f"missing|{sd}")
                elif sd == "none" and has:
                    f = next(lc.get(k) for k in flags if lc.has(k))
                    msg = f"the sweep point sets spec-decoding: none but the launch passes {f.name}"
                    yield ctx.finding(f.word.loc, msg, pr.point, key="extra")
