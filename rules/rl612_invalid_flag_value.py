import re

from recipelint.engines.catalog import ENGINE_NAMES, expand, value_specs
from recipelint.lint.rulebase import Rule

#: what argparse's `int` takes, and vLLM's human-readable sizes (`1k`, `2M`, `auto` where it
#: takes one): a value matching neither is reported for an `int` flag
_INT = re.compile(r"[+-]?\d+|\d+(?:\.\d+)?[kKmMgGtT]i?|auto|-1")
_FLOAT = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?|[+-]?(?:inf|infinity|nan)", re.I)


class InvalidFlagValue(Rule):
    """
    ## What it does
    Reports a flag value the engine's parser rejects at the release the sweep point runs: a value
    outside the option's closed choices (`--kv-cache-dtype fp8e4m3`, `--dtype bf16` on vLLM,
    `--disaggregation-mode prefil`), or a word where the option takes a number
    (`--max-num-seqs 64k`, `--gpu-memory-utilization high`), with a "did you mean" among the
    choices only.

    ## Why is this bad?
    argparse checks choices and types before the server starts: the job stops with
    `argument --kv-cache-dtype: invalid choice: 'fp8e4m3' (choose from ...)` or `invalid int value`
    after the node was allocated and the container pulled.

    ## Example
    ```bash
    vllm serve "$MODEL" --kv-cache-dtype fp8e4m3 --max-num-seqs 64k
    ```

    ## Use instead
    ```bash
    vllm serve "$MODEL" --kv-cache-dtype fp8_e4m3 --max-num-seqs 64
    ```

    The choices and types are read from each release's source (`rules/data/catalogs/`, made by
    `tools/gen_catalogs.py`): vLLM's `add_argument(choices=..., type=...)` and, through
    `get_kwargs`, each config field's annotation (a `Literal`, inline or an alias, gives choices,
    and `None` when it is optional; `int`/`float` a type) from vLLM 0.8.0 on; SGLang's
    `server_args.py` `add_argument` calls from 0.4.0 to 0.5.13.post1.

    ## Exceptions
    A value is judged only when it is known at the sweep point and every judged release was read
    for values; with several releases (no image: every catalogued release) it is reported only
    when none of them takes it (a warning then).  Choices that plugins extend at run time (SGLang's
    `add_*_choices`, vLLM's `Literal[...] | str` fields from 0.11 on, read as `metavar`) are not
    closed and not judged.  Numbers are taken as argparse and vLLM's human-readable sizes take them
    (`1k`, `2M`, `auto`), so a size vLLM rejects for a plain `int` flag may pass.  TensorRT-LLM's
    `trtllm-serve` options are RL608's.
    """

    code = "RL612"
    name = "invalid-flag-value"
    severity = "error"
    sweep_independent = True

    def check(self, ctx):
        for use in ctx.uses():
            lc = use.launch
            if lc.engine not in ("vllm", "sglang"):
                continue
            ev = use.engine_version()
            if ev is None:
                continue
            for f in lc.flags:
                value = f.text
                if not value or f.subkey is not None or f.json is not None or not f.name.startswith("--"):
                    continue
                full, _ = expand(lc.engine, f.base, ev.versions)
                if full is None:
                    continue  # (RL601's)
                specs = value_specs(lc.engine, full, ev.versions)
                if not specs:
                    continue
                yield from self._judge(ctx, use, f, full, value, specs, ev)

    def _judge(self, ctx, use, f, full, value, specs, ev):
        engine = ENGINE_NAMES.get(use.launch.engine, use.launch.engine)
        where = ev.label if not ev.any_release else f"any {engine} release from {specs[0].version} to {specs[-1].version}"
        severity = "warning" if ev.any_release else None
        if all(s.choices is not None and value not in s.choices for s in specs):
            choices = sorted(set().union(*(s.choices for s in specs)))
            shown = ", ".join(f"`{c}`" for c in choices[:8]) + (" …" if len(choices) > 8 else "")
            hint = ctx.did_you_mean(value, choices, cutoff=0.6)
            msg = f"`{full} {value}` is no choice of {where} ({shown}): the server stops with `invalid choice`{hint or '; use one of them'}"
            yield ctx.finding(f.value_loc, msg, use.point, key=f"choice|{full}|{value}", severity=severity)
            return
        typed = [s.type for s in specs]
        if typed and all(t == "int" for t in typed) and not _INT.fullmatch(value):
            msg = f"`{full}` takes an integer in {where}, not `{value}`: the server stops with `invalid int value`; write an integer"
            yield ctx.finding(f.value_loc, msg, use.point, key=f"int|{full}|{value}", severity=severity)
        elif typed and all(t == "float" for t in typed) and not _FLOAT.fullmatch(value):
            msg = (
                f"`{full}` takes a number in {where}, not `{value}`: the server stops with `invalid float value`; write a number"
            )
            yield ctx.finding(f.value_loc, msg, use.point, key=f"float|{full}|{value}", severity=severity)
