from recipelint.engines import facts
from recipelint.engines.catalog import version_key
from recipelint.lint.rulebase import Rule, kv_connector


def key_ranges(spec: dict, connector_since: str) -> tuple[str, str | None]:
    return str(spec.get("since", connector_since)), (str(spec["until"]) if "until" in spec else None)


class UnknownConnectorKey(Rule):
    """
    ## What it does
    Reports a `kv_connector_extra_config` key that the named vLLM KV connector does not read.

    ## Why is this bad?
    `kv_connector_extra_config` is a free-form dict: vLLM ignores keys no connector reads,
    silently.  A misspelt or invented key (`cpu_byte_to_use`, `lazy_offloading`) therefore
    loses the setting without an error, and the benchmark runs with the connector's default
    (for SimpleCPUOffloadConnector, 8 GiB of CPU cache and eager offload).

    The key sets come from the connectors' own source in each vLLM release (see
    `rules/data/connectors.yaml`).  SimpleCPUOffloadConnector reads `cpu_bytes_to_use`,
    `cpu_bytes_to_use_per_rank` and `lazy_offload` in every release that has it (0.19.0 on):
    `cpu_bytes_to_use_per_rank` is a real key (a per-rank override of the server-wide
    `cpu_bytes_to_use`) and is not reported.

    ## Example
    ```json
    {"kv_connector": "SimpleCPUOffloadConnector", "kv_role": "kv_both",
     "kv_connector_extra_config": {"cpu_byte_to_use": 400000000000}}
    ```

    ## Use instead
    ```json
    {"kv_connector": "SimpleCPUOffloadConnector", "kv_role": "kv_both",
     "kv_connector_extra_config": {"cpu_bytes_to_use": 400000000000}}
    ```

    ## Exceptions
    Connectors whose extra config belongs to another package (LMCacheConnectorV1,
    LMCacheMPConnector, NixlConnector) are only checked for the version of the keys vLLM itself
    defines; unknown connectors are not checked.  Keys vLLM reads from any connector's config
    (`enable_cross_layers_blocks`, 0.24.0–0.27.1) are accepted in those releases.  Keys that
    changed across releases are judged for the sweep point's release (from its image; a nightly
    is judged against the releases around it).
    """

    code = "RL302"
    name = "unknown-connector-key"
    severity = "warning"

    def check(self, ctx):
        data = facts.load("connectors")
        conns = data["vllm"]
        common = data.get("any_connector", {})
        for use in ctx.uses("vllm"):
            lc = use.launch
            name, extra, flag = kv_connector(lc)
            spec = conns.get(name) if name else None
            if spec is None or extra is None:
                continue
            ev = use.engine_version("vllm")
            if ev is None:
                continue
            since = str(spec.get("since", "0"))
            known = {k: v for k, v in spec["keys"].items()}
            for k, v in common.items():
                known.setdefault(k, v)
            for key_node, _ in extra.items:
                key = key_node.value
                if key is None:
                    continue
                kspec = known.get(key)
                if kspec is not None:
                    lo, hi = key_ranges(kspec, since)
                    if _reads(lo, hi, ev.versions):
                        continue
                    span = f"{lo}–{hi}" if hi else f"{lo} and later"
                    msg = (
                        f"{name} reads `{key}` only in vLLM {span}, not in {ev.label}: vLLM ignores unknown "
                        f"kv_connector_extra_config keys silently, so this setting has no effect"
                    )
                    yield ctx.finding(key_node.loc, msg, use.point, key=key, variant=ev.label)
                    continue
                if spec.get("open"):
                    continue
                hint = ctx.did_you_mean(key, known, cutoff=0.6)
                msg = (
                    f"{name} does not read `{key}` from kv_connector_extra_config ({ev.label}): vLLM ignores "
                    f"unknown keys silently, so this setting has no effect{hint}"
                )
                yield ctx.finding(key_node.loc, msg, use.point, key=key)


def _reads(lo: str, hi: str | None, judged: tuple) -> bool:
    """Whether a key read from release ``lo`` (to ``hi``) is read by any release judged."""
    if not judged:
        return True
    return any(version_key(lo) <= version_key(v) and (hi is None or version_key(v) <= version_key(hi)) for v in judged)
