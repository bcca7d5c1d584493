from recipelint.engines.catalog import catalogued_from, describe_lifetime, json_keys
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
    go between releases — `use_fp4_indexer_cache` of `--attention-config` exists through 0.29.0 and
    is gone in 0.30.0 — so a recipe that works on one image fails on the next.  The message
    gives a key's lifetime when other releases have it ("was removed in vLLM 0.30.0 (last in
    0.29.0)"), from the engine's history.

    ## Example
    ```bash
    vllm serve "$MODEL" --attention-config '{"backend": "FLASHINFER_MLA", "use_fp4_indexer_cache": true}'
    ```
    on vLLM 0.33.0.

    ## Use instead
    Drop the key, or pin the image the key exists in.

    ## Exceptions
    Unlike these four, `kv_connector_extra_config` (inside `--kv-transfer-config`) is free-form:
    see RL302.  vLLM 0.8's pydantic configs ignore unknown keys: not judged.  Versions as in RL601.
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
                    life = describe_lifetime("vllm", key, ev.versions, kind="json:" + f.base)
                    if life is None:
                        hint = ctx.did_you_mean(key, keys)
                        msg = f"`{f.base}` has no key `{key}` in {ev.label}: vLLM stops at startup (unexpected keyword){hint}"
                    else:
                        msg = (
                            f"`{f.base}` key `{key}` {life}; {ev.label} does not have it: vLLM stops at startup "
                            "(unexpected keyword)"
                        )
                    if ev.any_release:
                        # no image: no catalogued release has the key (older ones are not catalogued)
                        first = catalogued_from("vllm", "json:" + f.base) or ev.versions[0]
                        msg += f" (no release from {first} on has it; older releases are not catalogued)"
                        yield ctx.finding(loc, msg, use.point, key=f"{f.base}|{key}", severity="warning")
                        continue
                    yield ctx.finding(loc, msg, use.point, key=f"{f.base}|{key}")
