from recipelint.lint.rulebase import Rule, behaviour_scope_parts, env_int, offload_connector, vllm_world_size

#: the behaviours this rule relies on (rules/data/behaviours.yaml)
SERVER_WIDE = "vllm.simplecpu-cpu-bytes-server-wide"
PER_RANK = "vllm.simplecpu-per-rank-key"
#: `--kv-offloading-size` (GiB, server-wide) with VLLM_USE_SIMPLE_KV_OFFLOAD is the same connector
SHORTCUT = "vllm.kv-offloading-native-simple-env"

GB = 10**9
GIB = 1024**3


def _number(text: str | None) -> float | None:
    try:
        return float(text) if text is not None else None
    except ValueError:
        return None


def _close(a: int, b: int) -> bool:
    return b > 0 and abs(a - b) <= max(1, b // 200)


class CpuBytesDoubleDivided(Rule):
    """
    ## What it does
    Reports SimpleCPUOffloadConnector's `cpu_bytes_to_use` (or the `--kv-offloading-size` shortcut that
    builds it when `VLLM_USE_SIMPLE_KV_OFFLOAD` is set) given a value that is already the
    per-GPU share of the sweep point's CPU budget (`TOTAL_CPU_DRAM_GB / GPU_COUNT`) on an engine
    whose world size (TP × PP × PCP) is above 1.

    ## Why is this bad?
    `cpu_bytes_to_use` is server-wide: the connector divides it by the engine's world size
    (`cpu_capacity_bytes // world_size`).  Data parallelism does not count — each DP engine has
    its own connector — so under DEP (`--tensor-parallel-size 1`) a per-GPU value is right, but
    on a TP4 engine the per-GPU value is divided again and each rank gets a quarter of its
    share: only 1/world-size of the budget is used.

    ## Example
    ```bash
    CPU_BYTES=$(( TOTAL_CPU_DRAM_GB * 1000000000 / GPU_COUNT ))   # per GPU
    vllm serve "$MODEL" --tensor-parallel-size 4 \\
        --kv-transfer-config "{\\"kv_connector\\":\\"SimpleCPUOffloadConnector\\",\\"kv_role\\":\\"kv_both\\",
            \\"kv_connector_extra_config\\":{\\"cpu_bytes_to_use\\":$CPU_BYTES}}"
    ```

    ## Use instead
    Pass the per-GPU value as `cpu_bytes_to_use_per_rank`, or the whole budget
    (`TOTAL_CPU_DRAM_GB * 1000000000`) as `cpu_bytes_to_use`.

    ## Exceptions
    Judged only when the sweep point's `TOTAL_CPU_DRAM_GB` and the engine's parallel sizes are
    known, and only on releases whose connector divides `cpu_bytes_to_use` by the world size
    (`vllm.simplecpu-cpu-bytes-server-wide` in `rules/data/behaviours.yaml`: every release with the
    connector, 0.19.0 on, read from `simple_cpu_offload_connector.py`); the message names the
    release it judged.
    """

    code = "RL305"
    name = "cpu-bytes-double-divided"
    severity = "warning"

    def check(self, ctx):
        for use in ctx.uses("vllm"):
            lc, point = use.launch, use.point
            conn = offload_connector(use, SHORTCUT)
            if conn is None or conn.name != "SimpleCPUOffloadConnector":
                continue
            if conn.form == "shortcut":
                gib = _number(conn.flag.text)
                if gib is None:
                    continue
                value, loc, what = int(gib * GIB), conn.flag.value_loc or conn.flag.word.loc, "`--kv-offloading-size`"
            else:
                node = conn.key("cpu_bytes_to_use")
                if node is None or node.integer is None or conn.key("cpu_bytes_to_use_per_rank") is not None:
                    continue
                value, loc, what = node.integer, node.loc, "`cpu_bytes_to_use`"
            total = env_int(point, "TOTAL_CPU_DRAM_GB")
            ws = vllm_world_size(lc)
            if not total or not ws or ws <= 1:
                continue
            got = use.behaviour(SERVER_WIDE)
            if got is None or not got[0].somewhere:
                continue
            judged, ev = got
            per_rank_read = use.behaviour(PER_RANK)
            per_rank = per_rank_read is not None and per_rank_read[0].everywhere
            gpus = env_int(point, "GPU_COUNT") or ws
            for unit in (GB, GIB):
                if any(_close(value * n, total * unit) for n in {gpus, ws} if n > 1):
                    share = value // ws
                    fix = "pass it as `cpu_bytes_to_use_per_rank` or pass" if per_rank and conn.form == "json" else "pass"
                    short, provenance = behaviour_scope_parts(judged, ev)
                    msg = f"{what} is the per-GPU share ({value / GB:.0f} GB), which vLLM divides again by {ws}: {fix} the server-wide total"
                    notes = [
                        f"TOTAL_CPU_DRAM_GB={total}: {short} divides {what} by the world size {ws}, so each rank gets "
                        f"{share / GB:.0f} GB and only 1/{ws} of the budget is used",
                        provenance,
                    ]
                    yield ctx.finding(loc, msg, point, conn.related(), key=str(ws), notes=notes)
                    break
