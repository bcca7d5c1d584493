from recipelint.rulebase import Rule, env_int, flag_int, model_family, sglang_attention_dp, vllm_dp_size

VLLM_DEFAULT_MAX_NUM_SEQS = 256
SGLANG_SPEC_DEFAULT = 48
SGLANG_DSV4_DEFAULT = 256


class ConcAboveBatchCap(Rule):
    """
    ## What it does
    Reports a master-config concurrency above the engine's effective batch cap for that launch:
    vLLM's `--max-num-seqs` (256 per engine when the flag is absent) times the number of
    data-parallel engines; SGLang's global `--max-running-requests` (when absent: 48 with
    speculative decoding, 256 for DeepSeek-V4).

    ## Why is this bad?
    Requests above the cap wait in the engine's queue: the sweep point measures queueing, not the
    concurrency it is labelled with, and its latency and throughput are not comparable with the
    points below the cap.

    ## Example
    ```yaml
    - { tp: 8, spec-decoding: mtp, conc-list: [32, 64, 128] }
    ```
    ```bash
    python3 -m sglang.launch_server --tp 8 --speculative-algorithm EAGLE   # default cap: 48
    ```

    ## Use instead
    ```bash
    python3 -m sglang.launch_server --tp 8 --speculative-algorithm EAGLE --max-running-requests "$CONC"
    ```

    ## Exceptions
    Only points from a master config are judged; SGLang launches without the flag are judged
    only when one of its documented defaults applies.
    """

    code = "RL504"
    name = "conc-above-batch-cap"
    severity = "warning"

    def check(self, ctx):
        for pr in ctx.config_points():
            conc = env_int(pr.point, "CONC")
            if not conc:
                continue
            for lc in pr.launches:
                cap, how, loc = self._cap(ctx, lc)
                if cap is None or conc <= cap:
                    continue
                msg = f"CONC={conc} is above the engine's batch cap of {cap} ({how}): requests beyond {cap} wait in the queue"
                yield ctx.finding(loc, msg, pr.point, key=f"{cap}|{how}")

    def _cap(self, ctx, lc):
        if lc.engine == "vllm":
            dp = vllm_dp_size(lc) or 1
            f = lc.get("--max-num-seqs")
            if f is not None:
                v = flag_int(lc, "--max-num-seqs")
                if v is None:
                    return None, "", None
                return v * dp, f"--max-num-seqs {v}" + (f" × {dp} DP engines" if dp > 1 else ""), f.value_loc
            if not lc.complete:
                return None, "", None
            return VLLM_DEFAULT_MAX_NUM_SEQS * dp, f"vLLM's default --max-num-seqs {VLLM_DEFAULT_MAX_NUM_SEQS}" + (
                f" × {dp} DP engines" if dp > 1 else ""), lc.loc
        if lc.engine == "sglang":
            f = lc.get("--max-running-requests")
            if f is not None:
                v = flag_int(lc, "--max-running-requests")
                return (v, f"--max-running-requests {v} (global)", f.value_loc) if v is not None else (None, "", None)
            if not lc.complete:
                return None, "", None
            if lc.has("--speculative-algorithm"):
                return SGLANG_SPEC_DEFAULT, "SGLang's default --max-running-requests with speculative decoding", lc.loc
            if model_family(lc, ctx.name) == "deepseek_v4":
                return SGLANG_DSV4_DEFAULT, "SGLang's default --max-running-requests for DeepSeek-V4", lc.loc
        return None, "", None
