import re

from recipelint.engines import behaviours
from recipelint.lint.rulebase import Rule, Use, env_int, flag_int, model_family, vllm_dp_size

#: SGLang's defaults when --max-running-requests is absent (rules/data/behaviours.yaml); the model's
#: default is applied before the speculative one, so it wins
SGLANG_DSV4 = "sglang.deepseek-v4-default-max-running-requests"
SGLANG_SPEC = "sglang.speculative-default-max-running-requests"


class ConcAboveBatchCap(Rule):
    """
    ## What it does
    Reports a master-config concurrency above the engine's effective batch cap for that launch:
    vLLM's `--max-num-seqs` times the number of data-parallel engines (when the flag is absent:
    the default of the release the sweep point's image runs — 1024 per engine on GPUs with 70 GiB
    or more that are not an A100, every H100/H200/B200/B300/MI300X-class GPU, and 256 on smaller
    ones, since vLLM 0.9.0; doubled by `--performance-mode throughput` from 0.17.0, capped by
    `--max-num-batched-tokens` from 0.11.1); SGLang's global `--max-running-requests` (when absent:
    256 for DeepSeek-V4, 0.5.12 on, also with speculative decoding — the model's default is applied
    first; otherwise 48 with speculative decoding from 0.4.4.post4 on, 32 in 0.4.3.post3–0.4.4.post3);
    TensorRT-LLM's `max_batch_size` (the LLM-API options file over `--max_batch_size`), which is per
    rank: under `enable_attention_dp` the cap is `max_batch_size × tensor_parallel_size`.  A cap
    computed down to 0 (`CONC/TP` with `CONC < TP`, InferenceX 27569fe46) is an error: no request
    can be scheduled.
    vLLM's defaults are data in `rules/data/engine_defaults.yaml` per release range, SGLang's
    version-scoped ones in `rules/data/behaviours.yaml`, each with the file they were read from;
    the message names the releases it judged.

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
    recipe's GPU is known from its file name; TensorRT-LLM launches only when `max_batch_size` is
    given and known (its default, 2048, is above any sweep point).  Multi-node disaggregated
    configurations are not judged: at a concurrency, the requests in prefill or in KV transfer are
    not in the decode batch, so a decode cap below `CONC` (NVIDIA's reference configurations size it
    at about 5/6 of it) does not make requests wait.
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
                scope = ""
                if lc.engine == "sglang" and lc.get("--max-running-requests") is None:
                    cap, how, loc, scope = self._sglang_default(ctx, lc, pr.point, conc)
                    key = how
                else:
                    cap, how, loc, key = self._cap(ctx, Use(lc, pr.point))
                if cap is None or conc <= cap:
                    continue
                if cap <= 0:  # (TensorRT-LLM: `max_batch_size` computed down to 0)
                    msg = f"the engine's batch cap is {cap} at CONC={conc}: no request can be scheduled; size it at least 1"
                    yield ctx.finding(loc, msg, pr.point, key=f"{cap}|{key}", severity="error", notes=[f"the cap: {how}"])
                    continue
                msg = f"CONC={conc} is above the engine's batch cap of {cap}: raise the cap to CONC, or lower CONC"
                notes = [
                    f"the cap: {how}{scope}",
                    f"requests beyond {cap} wait in the queue, so the point measures {cap} concurrent requests",
                ]
                yield ctx.finding(loc, msg, pr.point, key=f"{cap}|{key}", notes=notes)

    @staticmethod
    def _sglang_default(ctx, lc, point, conc):
        """(cap, how, loc, scope) of SGLang's default --max-running-requests for the releases the
        point may run: DeepSeek-V4's, else the speculative one; the smallest cap among the judged
        releases that have one below CONC, and which releases those are when not all."""
        none = (None, "", None, "")
        if not lc.complete:
            return none
        ev = Use(lc, point).engine_version("sglang")
        if ev is None:
            return none
        dsv4 = model_family(lc, ctx.name) == "deepseek_v4"
        spec_flag = lc.get("--speculative-algorithm")
        algo = (spec_flag.text or "").upper() if spec_flag is not None else None
        caps: dict[str, tuple[int, str]] = {}
        for v in ev.versions:
            cap = behaviours.value(SGLANG_DSV4, v) if dsv4 else None
            if cap is not None:
                caps[v] = (cap, "SGLang's default --max-running-requests for DeepSeek-V4")
                continue
            if spec_flag is None:
                continue
            exempt = behaviours.get(SGLANG_SPEC).spec.get("except_algorithms") or {}
            if algo in exempt and behaviours.holds_in(exempt[algo], "sglang", v):
                continue
            cap = behaviours.value(SGLANG_SPEC, v)
            if cap is not None:
                caps[v] = (cap, "SGLang's default --max-running-requests with speculative decoding")
        over = [v for v in ev.versions if v in caps and conc > caps[v][0]]
        if not over:
            return none
        cap, how = min(caps[v] for v in over)
        if len(over) == len(ev.versions):
            scope = f"; {ev.label}"
        else:
            scope = f"; on releases {behaviours.span(over)} of {ev.label}"
        return cap, how, lc.loc, scope

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
        if lc.engine == "trtllm":
            return self._trtllm_cap(ctx, use)
        if lc.engine == "sglang":  # (passed: absent, its defaults are _sglang_default's)
            f = lc.get("--max-running-requests")
            if f is not None:
                v = flag_int(lc, "--max-running-requests")
                how = f"--max-running-requests {v} (global)"
                return (v, how, f.value_loc, how) if v is not None else (None, "", None, "")
        return None, "", None, ""

    @staticmethod
    def _trtllm_cap(ctx, use):
        """TensorRT-LLM: ``max_batch_size`` (the options file over ``--max_batch_size``) is per
        rank; under ``enable_attention_dp`` each of the ``tensor_parallel_size`` ranks schedules its
        own batch.  Not judged when the value is not known; absent, the default (2048 in the
        sources read) is not a cap a sweep point reaches."""
        api = ctx.llm_api(use)
        s = api.get("max_batch_size")
        v = s.integer if s is not None else None
        if v is None or s.loc is None:
            return None, "", None, ""
        dp = 1
        adp = api.get("enable_attention_dp")
        if adp is not None and adp.known and str(adp.value).lower() in ("true", "1", "yes", "on"):
            tp = api.get("tensor_parallel_size")
            dp = tp.integer if tp is not None and tp.integer else 0
            if not dp:
                return None, "", None, ""
        where = "the options file" if s.node is not None else "--max_batch_size"
        if dp > 1:
            how = f"max_batch_size {v} per rank ({where}) × {dp} attention-DP ranks"
        else:
            how = f"max_batch_size {v} ({where})"
        return v * dp, how, s.loc, f"max_batch_size {v}|dp {dp}"
