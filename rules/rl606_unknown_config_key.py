from recipelint.engines.catalog import json_keys
from recipelint.lint.rulebase import Rule


class UnknownConfigKey(Rule):
    """
    ## What it does
    Reports a top-level key of a vLLM JSON config flag — `--attention-config`,
    `--compilation-config`, `--speculative-config`, `--kv-transfer-config`, or their dotted
    `--x-config.key` forms — that the config class does not have at the vLLM version the sweep
    point runs.

    ## Why is this bad?
    These configs are strict (`extra="forbid"`): an unknown key is a startup error.  Keys come and
    go between releases — `use_fp4_indexer_cache` of `--attention-config` exists through 0.27.1 and
    is gone in 0.33.0 — so a recipe that works on one image fails on the next.

    ## Example
    ```bash
    vllm serve "$MODEL" --attention-config '{"backend": "FLASHINFER_MLA", "use_fp4_indexer_cache": true}'
    ```
    on vLLM 0.33.0.

    ## Use instead
    Drop the key, or pin the image the key exists in.

    ## Exceptions
    Unlike these four, `kv_connector_extra_config` (inside `--kv-transfer-config`) is free-form:
    see RL302.  Versions as in RL601.
    """

    code = "RL606"
    name = "unknown-config-key"
    severity = "error"

    def check(self, ctx):
        for use in ctx.uses("vllm"):
            lc = use.launch
            ev = use.engine_version("vllm")
            if ev is None:
                continue
            for f in lc.flags:
                keys = json_keys("vllm", f.base, ev.versions)
                if keys is None:
                    continue
                if f.subkey is not None:
                    items = [(f.subkey.split(".")[0], f.word.loc)]
                elif f.json is not None and f.json.kind == "object":
                    items = [(k.value, k.loc) for k, _ in f.json.items if k.value is not None]
                else:
                    continue
                for key, loc in items:
                    if key in keys:
                        continue
                    hint = ctx.did_you_mean(key, keys)
                    msg = f"`{f.base}` has no key `{key}` in {ev.label}: vLLM stops at startup (unexpected keyword){hint}"
                    if ev.image is None:  # (the script may run a release older than every catalogued one)
                        msg += f" (from {ev.versions[0]} on; older releases are not catalogued)"
                        yield ctx.finding(loc, msg, use.point, key=f"{f.base}|{key}", severity="warning")
                        continue
                    yield ctx.finding(loc, msg, use.point, key=f"{f.base}|{key}")
