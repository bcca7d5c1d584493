import re

from recipelint.engines import facts
from recipelint.lint.rulebase import Rule, Use, env_int, flag_int, model_family, vllm_dp_size


class ConcAboveBatchCap(Rule):
    """
    ## What it does
    Reports a master-config concurrency above the engine's effective batch cap for that launch:
    vLLM's `--max-num-seqs` times the number of data-parallel engines (when the flag is absent:
    the default of the release the sweep point's image runs — 1024 per engine on GPUs with 70 GiB
    or more that are not an A100, every H100/H200/B200/B300/MI300X-class GPU, and 256 on smaller
    ones, since vLLM 0.9.0; doubled by `--performance-mode throughput` from 0.17.0, capped by
    `--max-num-batched-tokens` from 0.11.1); SGLang's global `--max-running-requests` (when absent:
    48 with speculative decoding, 256 for DeepSeek-V4).  Defaults are data in
    `rules/data/engine_defaults.yaml`, per release range, with the file they were read from; the
    message names the releases whose default it relies on.

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
    recipe's GPU is known from its file name and every release the image may run has the same
    default there (a `--performance-mode` or `--max-num-batched-tokens` whose value is not known:
    not judged).  `--max-num-seqs` passed at the default is the same cap as the flag left out.
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
                cap, how, loc, key = self._cap(ctx, Use(lc, pr.point))
                if cap is None or conc <= cap:
                    continue
                msg = f"CONC={conc} is above the engine's batch cap of {cap} ({how}): requests beyond {cap} wait in the queue"
                yield ctx.finding(loc, msg, pr.point, key=f"{cap}|{key}")

    def _cap(self, ctx, use):
        """(cap, how it comes about — for the message, where, the finding's key text)."""
        lc = use.launch
        if lc.engine == "vllm":
            dp = vllm_dp_size(lc) or 1
            engines = f" × {dp} DP engines" if dp > 1 else ""
            if lc.get("--max-num-seqs") is None and not lc.complete:
                return None, "", None, ""
            got = use.max_num_seqs(re.split(r"[_.-]", ctx.name.lower()))
            if got is None:
                return None, "", None, ""
            v, f, d = got
            if f is not None:
                key = f"--max-num-seqs {v}{engines}"
                at = f", {d.label}'s default {d.gpu}: the same as leaving it out" if d is not None and d.value == v else ""
                return v * dp, f"--max-num-seqs {v}{at}{engines}", f.value_loc, key
            how = f"`--max-num-seqs` absent: {d.why}{engines}"
            # (the key stays what it was before the default became version-scoped)
            return v * dp, how, lc.loc, f"vLLM's default --max-num-seqs {v} on this GPU{engines}"
        if lc.engine == "sglang":
            spec = facts.load("engine_defaults")["sglang"]["max_running_requests"]
            f = lc.get("--max-running-requests")
            if f is not None:
                v = flag_int(lc, "--max-running-requests")
                how = f"--max-running-requests {v} (global)"
                return (v, how, f.value_loc, how) if v is not None else (None, "", None, "")
            if not lc.complete:
                return None, "", None, ""
            if lc.has("--speculative-algorithm"):
                how = "SGLang's default --max-running-requests with speculative decoding"
                return spec["speculative"], how, lc.loc, how
            if model_family(lc, ctx.name) == "deepseek_v4":
                how = "SGLang's default --max-running-requests for DeepSeek-V4"
                return spec["deepseek_v4"], how, lc.loc, how
        return None, "", None, ""
