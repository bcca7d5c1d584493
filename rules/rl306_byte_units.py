import re

from recipelint.engines.jsonpos import decode
from recipelint.evaluate.values import file_key, text_of
from recipelint.lint.rulebase import Rule, env_int, flag_int, kv_connector

GB = 10**9
GIB = 1024**3
OVER = (GIB / GB - 1) * 100  # 7.37 %


class ByteUnits(Rule):
    """
    ## What it does
    Reports a CPU-memory budget in decimal gigabytes (the sweep point's `TOTAL_CPU_DRAM_GB` is
    10⁹ bytes) written where binary units are read, or the reverse:

    * Mooncake's `global_segment_size: "NGB"` (Mooncake parses `GB` as 1024³);
    * vLLM's `--kv-offloading-size N` (GiB);
    * `cpu_bytes_to_use` computed as `TOTAL_CPU_DRAM_GB * 1024**3`.

    ## Why is this bad?
    1 GiB is 7.4 % more than 1 GB.  A host-memory budget sized to the node's DRAM (often 95 %
    of it) then over-commits by 7.4 %: the offload pool can push the host into swap or the OOM
    killer at high concurrency, and the budget the results claim is not the one used.

    ## Example
    ```bash
    PER_RANK_GB=$((TOTAL_CPU_DRAM_GB / GPU_COUNT))
    cat > "$MOONCAKE_CONFIG_PATH" <<EOF
    {"mode": "embedded", "global_segment_size": "${PER_RANK_GB}GB"}
    EOF
    ```

    ## Use instead
    ```bash
    PER_RANK_BYTES=$((TOTAL_CPU_DRAM_GB * 1000000000 / GPU_COUNT))
    cat > "$MOONCAKE_CONFIG_PATH" <<EOF
    {"mode": "embedded", "global_segment_size": ${PER_RANK_BYTES}}
    EOF
    ```

    ## Exceptions
    Judged only when the sweep point's `TOTAL_CPU_DRAM_GB` is known and the value matches the
    budget (whole, or divided by the GPU count or TP size).
    """

    code = "RL306"
    name = "byte-units"
    severity = "warning"

    def check(self, ctx):
        for use in ctx.uses():
            lc, point = use.launch, use.point
            total = env_int(point, "TOTAL_CPU_DRAM_GB")
            if not total:
                continue
            tp = flag_int(lc, "--tensor-parallel-size", "--tp-size") or 1
            gpus = env_int(point, "GPU_COUNT") or tp
            shares = {total} | {total // n for n in (gpus, tp) if n > 1}
            yield from self._mooncake(ctx, use, shares, total)
            if lc.engine == "vllm":
                f = lc.get("--kv-offloading-size")
                v = flag_int(lc, "--kv-offloading-size")
                if f is not None and v is not None and v in shares:
                    msg = (
                        f"`--kv-offloading-size {v}` is read in GiB, but {v} comes from the decimal-GB budget "
                        f"TOTAL_CPU_DRAM_GB={total}: {OVER:.1f} % over budget; convert (×10⁹/2³⁰)"
                    )
                    yield ctx.finding(f.value_loc, msg, point, key="kv-offloading-size")
                _, extra, _ = kv_connector(lc)
                if extra is not None:
                    for key in ("cpu_bytes_to_use", "cpu_bytes_to_use_per_rank"):
                        node = extra.get(key)
                        if node is None or node.integer is None:
                            continue
                        value = node.integer
                        if any(value == s * GIB for s in shares) or any(value * n == total * GIB for n in (gpus, tp) if n > 1):
                            msg = (
                                f"`{key}` is {value} bytes = TOTAL_CPU_DRAM_GB in GiB (×1024³), but the budget is decimal "
                                f"GB (×10⁹): {OVER:.1f} % over budget"
                            )
                            yield ctx.finding(node.loc, msg, point, key=key)

    def _mooncake(self, ctx, use, shares, total):
        lc = use.launch
        path_s = lc.env.get("MOONCAKE_CONFIG_PATH")
        path = text_of(path_s) if path_s is not None else None
        content = lc.files.get(file_key(path)) if path else None
        if content is None:
            return
        doc = decode(content)
        if getattr(doc, "kind", None) != "object":
            return
        seg = doc.get("global_segment_size")
        if seg is None or seg.kind != "string" or seg.value is None:
            return
        m = re.fullmatch(r"\s*(\d+)\s*(GB|G|gb|g)\s*", seg.value)
        if m and int(m.group(1)) in shares:
            n = int(m.group(1))
            msg = (
                f"`global_segment_size: \"{seg.value}\"` is parsed by Mooncake as {n} GiB (binary units), but {n} is "
                f"a decimal-GB share of TOTAL_CPU_DRAM_GB={total}: each segment is {OVER:.1f} % over budget; "
                f"give the size in bytes"
            )
            yield ctx.finding(seg.loc, msg, use.point, key="global_segment_size")
