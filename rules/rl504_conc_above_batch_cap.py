import re

from recipelint.engines import facts
from recipelint.lint.rulebase import Rule, env_int, flag_int, model_family, vllm_dp_size


class ConcAboveBatchCap(Rule):
    """
    ## What it does
    Reports a master-config concurrency above the engine's effective batch cap for that launch:
    vLLM's `--max-num-seqs` times the number of data-parallel engines (when the flag is absent:
    1024 per engine on GPUs with 70 GiB or more — every H100/H200/B200/B300/MI300X-class GPU —
    and 256 on smaller ones); SGLang's global `--max-running-requests` (when absent: 48 with
    speculative decoding, 256 for DeepSeek-V4).  Defaults are data in
    `rules/data/engine_defaults.yaml`.

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
    only when one of its documented defaults applies, vLLM launches without it only when the
    recipe's GPU is known from its file name.
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
        defaults = facts.load("engine_defaults")
        if lc.engine == "vllm":
            dp = vllm_dp_size(lc) or 1
            engines = f" × {dp} DP engines" if dp > 1 else ""
            f = lc.get("--max-num-seqs")
            if f is not None:
                v = flag_int(lc, "--max-num-seqs")
                if v is None:
                    return None, "", None
                return v * dp, f"--max-num-seqs {v}{engines}", f.value_loc
            if not lc.complete:
                return None, "", None
            tokens = set(re.split(r"[_.-]", ctx.name.lower()))
            spec = defaults["vllm"]
            if tokens & set(spec["large_gpus"]):
                v = spec["max_num_seqs"]["large_gpu"]
            elif tokens & set(spec["small_gpus"]):
                v = spec["max_num_seqs"]["other"]
            else:
                return None, "", None
            return v * dp, f"vLLM's default --max-num-seqs {v} on this GPU{engines}", lc.loc
        if lc.engine == "sglang":
            spec = defaults["sglang"]["max_running_requests"]
            f = lc.get("--max-running-requests")
            if f is not None:
                v = flag_int(lc, "--max-running-requests")
                return (v, f"--max-running-requests {v} (global)", f.value_loc) if v is not None else (None, "", None)
            if not lc.complete:
                return None, "", None
            if lc.has("--speculative-algorithm"):
                return spec["speculative"], "SGLang's default --max-running-requests with speculative decoding", lc.loc
            if model_family(lc, ctx.name) == "deepseek_v4":
                return spec["deepseek_v4"], "SGLang's default --max-running-requests for DeepSeek-V4", lc.loc
        return None, "", None
