from recipelint.engines import behaviours
from recipelint.lint.rulebase import Rule, model_family, offload_connector

#: the behaviour this rule relies on (rules/data/behaviours.yaml)
BEHAVIOUR = "vllm.simplecpu-eager-store-per-step-dedup"
#: `lazy_offload` absent = eager: removing the key does not help where this holds
DEFAULT_EAGER = "vllm.simplecpu-lazy-offload-default-eager"
#: `--kv-offloading-size` with VLLM_USE_SIMPLE_KV_OFFLOAD is the same connector, eager
SHORTCUT = "vllm.kv-offloading-native-simple-env"
#: what a comment names when it documents eager offload as a choice
DOC_NAMES = ("lazy_offload", "lazy offload", "lazy mode", "eager offload", "offload eagerly", "eager mode", "popleft")


class SimpleCpuEagerOffloadDsv4(Rule):
    """
    ## What it does
    Reports eager offload by vLLM's SimpleCPUOffloadConnector on a DeepSeek-V4 launch, when the
    sweep point's image runs a vLLM release whose eager store path has the defect behind the
    reported crash.  Every form that configures the connector is judged: `"lazy_offload": false`
    in the `kv_connector_extra_config` of `--kv-transfer-config`, the same JSON without the key
    (eager by default), and the shortcut `--kv-offloading-size N` (backend `native`, the default)
    with `VLLM_USE_SIMPLE_KV_OFFLOAD=1`, which builds the connector without the key
    (`vllm.kv-offloading-native-simple-env` in `rules/data/behaviours.yaml`, 0.19.0 on).

    ## Why is this bad?
    Eager mode copies every newly computed KV block to CPU one step later.  On vLLM 0.20.0,
    DeepSeek-V4 with SimpleCPUOffloadConnector in eager mode crashed with a `popleft_n`
    AssertionError in the GPU block pool (`vllm/v1/core/kv_cache_utils.py:269`) at low and mid
    concurrency, so a sweep of low `CONC` values fails during warm-up.  Releases 0.19.0–0.21.0
    deduplicate eager stores only within one scheduler step, so a block whose store is still in
    flight is offloaded again; 0.22.0 keeps the in-flight set across steps
    (`_in_flight_store_gpu_blocks` in `vllm/v1/simple_kv_offload/manager.py`), and InferenceX has
    published eager DeepSeek-V4 runs on later nightlies.  The releases, files and reports
    (InferenceX 4208910, 333a7c3, 370a162f3) are data: `vllm.simplecpu-eager-store-per-step-dedup`
    in `rules/data/behaviours.yaml`.

    On an affected release, removing the key does not help: the connector reads it as
    `bool(extra_config.get("lazy_offload", False))`, so its default is also eager.  Set it to
    the JSON boolean `true`.

    The finding names the release it judged (the sweep point's image, see
    `rules/data/images.yaml`).  A release from 0.22.0 on is not reported.  When the image's
    release is not known (an uncatalogued image, or a nightly spanning both sides), the finding
    is a warning that says only what was reported.

    ## Example
    ```json
    {"kv_connector": "SimpleCPUOffloadConnector", "kv_role": "kv_both",
     "kv_connector_extra_config": {"cpu_bytes_to_use_per_rank": 356000000000, "lazy_offload": false}}
    ```
    on `image: vllm/vllm-openai:v0.20.0`.

    ## Use instead
    ```json
    {"kv_connector": "SimpleCPUOffloadConnector", "kv_role": "kv_both",
     "kv_connector_extra_config": {"cpu_bytes_to_use_per_rank": 356000000000, "lazy_offload": true}}
    ```
    or an image with vLLM 0.22.0 or later.  The shortcut cannot set the key: pass the connector as
    `--kv-transfer-config` JSON instead.

    ## Exceptions
    A comment that names the choice (`lazy_offload`, "eager offload", "eager mode", "lazy mode",
    `popleft`) on the setting's lines, just above them or their block, or in the recipe's
    header documents it: the finding is then shown only with `--show-documented`.  When the
    value comes from a variable (`"lazy_offload": ${LAZY}`), the comment may stand above that
    assignment.
    """

    code = "RL301"
    name = "simplecpu-eager-offload-dsv4"
    severity = "error"

    def check(self, ctx):
        b = behaviours.get(BEHAVIOUR)
        spec = b.spec
        lo, hi = b.runs[0][0], b.runs[-1][1]
        for use in ctx.uses("vllm"):
            lc = use.launch
            conn = offload_connector(use, SHORTCUT)
            if conn is None or conn.name != spec["connector"]:
                continue
            lazy = conn.key(spec["key"])
            if lazy is not None:
                if lazy.kind not in ("bool", "number") or lazy.value not in spec["values_reported"]:
                    continue
                default = use.behaviour(DEFAULT_EAGER)
                also = " (the default is also eager)" if default is not None and default[0].everywhere else ""
                how, where = f"`lazy_offload: false` offloads eagerly{also}", lazy.loc
            elif conn.form == "json" and conn.extra is None:
                continue  # an extra config recipelint could not read: the key may be in it
            else:
                default = use.behaviour(DEFAULT_EAGER)
                if default is None or not default[0].everywhere:
                    continue
                how = (
                    "`--kv-offloading-size` with VLLM_USE_SIMPLE_KV_OFFLOAD builds SimpleCPUOffloadConnector without `lazy_offload`, so it offloads eagerly (the default)"
                    if conn.form == "shortcut"
                    else "`lazy_offload` is not set, so SimpleCPUOffloadConnector offloads eagerly (the default)"
                )
                where = conn.loc
            if model_family(lc, ctx.name) != spec["model_family"]:
                continue
            got = use.behaviour(BEHAVIOUR)
            if got is None:  # older than every catalogued release: no SimpleCPU connector to judge
                continue
            judged, ev = got
            if not judged.somewhere:
                continue
            fix = (
                'pass the connector as `--kv-transfer-config` JSON with `"lazy_offload": true` (the shortcut cannot set it)'
                if conn.form == "shortcut"
                else 'set `"lazy_offload": true`'
            )
            provenance = f"{ev.short}: {ev.provenance}" if ev.provenance else ""
            if judged.everywhere:
                msg = f"{how} on {ev.short}'s eager store path, reported to crash DeepSeek-V4: {fix} or use vLLM {spec['changed_in']}+"
                notes = [
                    f"releases {lo}–{hi} have the eager store path; DeepSeek-V4 was reported to crash on it with "
                    f"{spec['symptom']} ({spec['reported']})",
                    provenance,
                ]
                severity = None
            else:
                msg = f"{how}: eager SimpleCPU offload was reported to crash DeepSeek-V4: {fix}, or pin an image with vLLM {spec['changed_in']}+"
                notes = [
                    f"reported with {spec['symptom']} on {spec['reported']}; releases {lo}–{hi} have that eager store path "
                    f"and {spec['changed_in']} changed it ({spec['change']})",
                    f"this point's release is not known: {ev.label}",
                ]
                severity = "warning"
            doc = ctx.documented([where, conn.flag.value_loc, conn.flag.word.loc], DOC_NAMES)
            yield ctx.finding(
                where, msg, use.point, conn.related(), severity=severity, variant=ev.label, documented=doc, notes=notes
            )
