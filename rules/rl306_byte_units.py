import re

from recipelint.engines import facts
from recipelint.engines.catalog import version_key
from recipelint.lint.rulebase import Rule, env_file_json, env_int, flag_int, kv_connector

GB = 10**9
GIB = 1024**3
OVER = (GIB / GB - 1) * 100  # 7.37 %


class ByteUnits(Rule):
    """
    ## What it does
    Reports a CPU-memory budget in decimal gigabytes (the sweep point's `TOTAL_CPU_DRAM_GB` is
    10⁹ bytes) written where binary units are read, or the reverse:

    * Mooncake's `global_segment_size: "NGB"` in the store's config file: vLLM's
      MooncakeStoreConnector reads that file itself (`MooncakeStoreConfig.from_file`, whose
      `_parse_size` takes `GB` as 1024³) and hands Mooncake the byte count; SGLang's HiCache
      Mooncake backend (`_parse_global_segment_size`) does the same;
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

    ## Fix
    Safe for Mooncake's `global_segment_size` written as a decimal-GB count with the unit in its
    quotes (`"${PER_RANK_GB}GB"`, `"356GB"`): the unit becomes nine zeros, the byte count
    (`"${PER_RANK_GB}000000000"`).  `--kv-offloading-size` (a GiB count: the conversion rounds) and
    `cpu_bytes_to_use` computed in the shell are left to you.

    ## Exceptions
    Judged only when the sweep point's `TOTAL_CPU_DRAM_GB` is known and the value matches the
    budget (whole, or divided by the GPU count or TP size).  The segment size is judged only
    where the engine reads the file: a vLLM launch with MooncakeStoreConnector and
    `MOONCAKE_CONFIG_PATH`, an SGLang launch with `SGLANG_HICACHE_MOONCAKE_CONFIG_PATH`; the
    parser's file for the judged release is in `size_parsers` of `rules/data/connectors.yaml`.
    """

    code = "RL306"
    name = "byte-units"
    severity = "warning"

    def check(self, ctx):
        for use in ctx.uses():
            lc, point = use.launch, use.point
            total = env_int(point, "TOTAL_CPU_DRAM_GB")
            if not total or point.extra.get("dram_default"):
                continue  # (a template's default number, not the generator's decimal-GB budget)
            tp = flag_int(lc, "--tensor-parallel-size", "--tp-size") or 1
            gpus = env_int(point, "GPU_COUNT") or tp
            shares = {total} | {total // n for n in (gpus, tp) if n > 1}
            yield from self._mooncake(ctx, use, shares, total)
            if lc.engine == "vllm":
                f = lc.get("--kv-offloading-size")
                v = flag_int(lc, "--kv-offloading-size")
                if f is not None and v is not None and v in shares:
                    msg = f"`--kv-offloading-size {v}` is read in GiB but is decimal GB: convert it (×10⁹/2³⁰)"
                    notes = [f"{v} comes from the decimal-GB budget TOTAL_CPU_DRAM_GB={total}: {OVER:.1f} % over budget"]
                    yield ctx.finding(f.value_loc, msg, point, key="kv-offloading-size", notes=notes)
                _, extra, _ = kv_connector(lc)
                if extra is not None:
                    for key in ("cpu_bytes_to_use", "cpu_bytes_to_use_per_rank"):
                        node = extra.get(key)
                        if node is None or node.integer is None:
                            continue
                        value = node.integer
                        if any(value == s * GIB for s in shares) or any(value * n == total * GIB for n in (gpus, tp) if n > 1):
                            msg = f"`{key}` is TOTAL_CPU_DRAM_GB in GiB (×1024³), but the budget is decimal GB: use ×10⁹"
                            notes = [f"{value} bytes: {OVER:.1f} % over budget"]
                            yield ctx.finding(node.loc, msg, point, key=key, notes=notes)

    def _mooncake(self, ctx, use, shares, total):
        lc = use.launch
        spec = facts.load("connectors").get("size_parsers", {}).get(lc.engine)
        if spec is None:
            return
        if spec.get("connector") and kv_connector(lc)[0] != spec["connector"]:
            return  # the file is read by that connector only
        ev = use.engine_version()
        if ev is None:
            return
        doc = env_file_json(lc, spec["env"])
        seg = doc.get("global_segment_size") if doc is not None else None
        if seg is None or seg.kind != "string" or seg.value is None:
            return
        m = re.fullmatch(r"\s*(\d+)\s*(gb)\s*", seg.value.lower())
        if not m or int(m.group(1)) not in shares or spec["units"].get(m.group(2)) != GIB:
            return
        n = int(m.group(1))
        files = [
            f["file"]
            for f in spec["files"]
            if any(
                version_key(str(f["since"])) <= version_key(v)
                and ("until" not in f or version_key(v) <= version_key(str(f["until"])))
                for v in ev.versions
            )
        ]
        where = f"`{spec['function']}` in {' / '.join(files)}" if files else f"`{spec['function']}`"
        msg = f"`global_segment_size: \"{seg.value}\"` is read as {n} GiB but is decimal GB: give the size in bytes"
        notes = [
            f"{spec['reader']} reads \"GB\" as 1024³ and hands Mooncake the byte count ({where}; {ev.short})",
            f"{n} is a decimal-GB share of TOTAL_CPU_DRAM_GB={total}: each segment is {OVER:.1f} % over budget",
            f"{ev.short}: {ev.provenance}" if ev.provenance else "",
        ]
        yield ctx.finding(
            seg.loc, msg, use.point, key="global_segment_size", variant=ev.label, notes=notes, fix=_bytes_fix(ctx, seg)
        )


def _bytes_fix(ctx, seg):
    """The size in bytes, written where the unit is: `"${PER_RANK_GB}GB"` becomes
    `"${PER_RANK_GB}000000000"` (the digits of a decimal GB count followed by nine zeros is its
    byte count, whatever the count is at each sweep point); None when the text does not end in
    the unit inside its quotes (a value built another way)."""
    from recipelint.bash.source import Loc
    from recipelint.lint.findings import Fix

    if seg.loc is None:
        return None
    real = seg.loc.real()
    data = getattr(real.source, "data", b"")
    if data[real.start : real.start + 1] != b'"':
        return None
    end = data.find(b'"', real.start + 1)  # (the string as written: its closing quote, on its line)
    text = data[real.start : end + 1] if end > 0 else b""
    if b"\n" in text or b"\\" in text or len(text) < 4 or text[-3:-1].lower() != b"gb":
        return None
    if not (text[-4:-3] == b"}" or text[-4:-3].isdigit()):  # (`${N}GB`, `356GB`: a count before the unit)
        return None
    edit = ctx.replace(Loc(real.source, end - 2, end), "000000000")
    return Fix("give the size in bytes (decimal GB × 10⁹)", [edit], "safe") if edit is not None else None
