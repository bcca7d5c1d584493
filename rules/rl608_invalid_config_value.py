import re

from recipelint.engines import facts, llmapi
from recipelint.lint.rulebase import Rule

#: a value written as one variable (`$MAX_BATCH_SIZE`, `${MAX_BATCH_SIZE}`)
_VARIABLE = re.compile(r"\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?")


def _never_set(ctx, use, name: str) -> bool:
    """Whether nothing sets ``name``: no assignment of it in the recipe's text (`NAME=`, `NAME+=`,
    `read … NAME`, `for NAME`, `declare`/`export`/`local NAME`), not the sweep point, not a runner."""
    if name in use.point.env:
        return False
    text = ctx.result.source.data.decode("utf-8", "replace") if ctx.result.source is not None else ""
    if re.search(rf"(?:^|[\s;&|(]){name}\+?=|\b(?:read|for|declare|typeset|export|local|readonly)\b[^\n;]*\b{name}\b", text):
        return False
    return name not in ctx.project.runner_names()


class InvalidConfigValue(Rule):
    """
    ## What it does
    Reports a value of a TensorRT-LLM LLM-API options file (`trtllm-serve --config FILE` /
    `--extra_llm_api_options FILE`) that the option's pydantic field does not take: a word where
    a number is expected, a value outside a `Literal` or enum (`moe_config.backend: TRTLMM`), a
    scalar where a nested model is expected, `null` where the field is not optional.  The fields
    and their types are those of `tensorrt_llm/llmapi/llm_args.py` at the commit named in
    `rules/data/trtllm_llm_args.yaml`.

    Multi-node engine configurations (`CONFIG_FILE=`, srt-slurm recipes) are judged too.

    ## Why is this bad?
    The options are validated when the server starts: a value the field does not take stops it
    with a pydantic `ValidationError`, after the node was allocated and the container pulled.

    ## Example
    ```bash
    cat > cfg.yml <<EOF
    moe_config:
      backend: TRTLMM
    kv_cache_config:
      free_gpu_memory_fraction: high
    EOF
    trtllm-serve "$MODEL" --config cfg.yml
    ```

    ## Use instead
    ```yaml
    moe_config:
      backend: TRTLLM
    kv_cache_config:
      free_gpu_memory_fraction: 0.85
    ```

    Also `trtllm-serve`'s own typed options (click): `--max_batch_size=` with an empty value (a
    variable never set, InferenceX 9670ce5ec), `--tp_size eight`, `--backend torch`.

    ## Exceptions
    Pydantic's lax mode is modelled: `"8"` is an integer, `yes`/`on`/`1` are booleans, an enum
    takes its member's name or value.  Values the recipe computes are judged at each sweep point;
    values recipelint cannot compute, fields typed as something it does not model (callables,
    objects), and free-form mappings (`model_kwargs`) are not judged.
    """

    code = "RL608"
    name = "invalid-config-value"
    severity = "error"

    def check(self, ctx):
        for use in ctx.uses("trtllm"):
            yield from self._cli(ctx, use)
            opts = ctx.llm_api(use).options
            if opts is None or not opts.judged:
                continue
            passed = [(opts.flag.word.loc, "the options file is passed here")]
            for loc, msg, key in _values(opts.root):
                yield ctx.finding(loc, msg, use.point, related=passed, key=key)

    def check_project(self, project):
        """The multi-node engine configurations' LLM-API mappings (srt-slurm recipes)."""
        from recipelint.lint.findings import span_of

        for cfg in project.engine_configs():
            for role, mapping in cfg.roles.items():
                for loc, msg, _ in _values(mapping, f"{role}."):
                    yield self.project_finding(span_of(loc), msg, cfg.related())

    @staticmethod
    def _cli(ctx, use):
        """``trtllm-serve``'s typed options (click): a value it cannot convert stops it."""
        data = facts.load("trtllm_serve")
        if (data.get("entries") or {}).get(use.launch.entry) != "serve":
            return
        types = data.get("types") or {}
        for f in use.launch.flags:
            name = f.name.split("=", 1)[0]
            kind = types.get(name)
            if kind is None or f.value is None or f.value.text is None:
                continue
            text = f.value.text
            if isinstance(kind, list):
                if text in kind:
                    continue
                want = "one of " + ", ".join(kind)
            else:
                try:
                    (int if kind == "int" else float)(text.strip())
                    continue
                except ValueError:
                    want = "an integer" if kind == "int" else "a number"
            if text == "":
                # empty: said only for a variable nothing sets — not the script (an assignment
                # whose own inputs the sweep point lacks), not the sweep point, not a runner
                loc = f.word.loc if f.inline else f.value_loc
                written = ctx.source_text(loc).split("=", 1)[-1].strip("\"'") if loc is not None else ""
                m = _VARIABLE.fullmatch(written)
                if m is None or not _never_set(ctx, use, m.group(1)):
                    continue
                shown = f"`{name}` is given no value (`{written}` is set nowhere: not by the script, the sweep point or a runner)"
            else:
                shown = f"`{name} {text}` is not {want}"
            msg = f"{shown}: trtllm-serve stops at startup (click: the option takes {want}); give it one of those"
            yield ctx.finding(f.value_loc or f.word.loc, msg, use.point, key=f"cli|{name}|{text}")


def _values(root, prefix: str = ""):
    """(location, message, key) of each value of an LLM-API mapping its field does not take."""
    cat = llmapi.catalog()
    for p in cat.check(root):
        if p.kind != "type":
            continue
        shown = p.node.raw.strip() or str(p.node.value)
        msg = (
            f"`{prefix}{p.path}: {shown}`: the field takes {p.expected}; TensorRT-LLM stops at startup "
            f"(pydantic `ValidationError`; {cat.source}); give it {p.expected}"
        )
        yield p.node.loc, msg, f"llm_api|{prefix}{p.path}|{shown}"
