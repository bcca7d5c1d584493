from recipelint.engines import facts
from recipelint.lint.findings import Fix
from recipelint.lint.rulebase import Rule, kv_connector

_BOOL_WORDS = {"true", "false", "0", "1", "yes", "no", "on", "off"}


class JsonStringBoolean(Rule):
    """
    ## What it does
    Reports a boolean or integer setting of a KV connector written as a JSON string:
    `"lazy_offload": "false"`, `"cpu_bytes_to_use": "400GB"`.

    ## Why is this bad?
    The connector reads booleans with Python's `bool(...)`: every non-empty string is true, so
    `"false"` turns the option *on*.  Integers are read with `int(...)`: a digit string works,
    but `"400GB"` raises at startup.

    ## Example
    ```json
    {"kv_connector_extra_config": {"lazy_offload": "false"}}
    ```

    ## Use instead
    ```json
    {"kv_connector_extra_config": {"lazy_offload": false}}
    ```

    ## Fix
    Safe, for `"true"` or `"false"` written as a plain JSON string: the JSON boolean (`false`).
    Other spellings (`"no"`, `"0"`) are left to you.

    ## Exceptions
    Keys compared as strings (`enable_cross_layers_blocks` is read as `str(v).lower() == "true"`)
    accept either form and are not reported.
    """

    code = "RL303"
    name = "json-string-boolean"
    severity = "error"

    def check(self, ctx):
        data = facts.load("connectors")
        for use in ctx.uses("vllm"):
            name, extra, flag = kv_connector(use.launch)
            spec = data["vllm"].get(name) if name else None
            if spec is None or extra is None:
                continue
            for key_node, val in extra.items:
                kspec = spec["keys"].get(key_node.value)
                if kspec is None or val.kind != "string" or val.value is None:
                    continue
                parse = kspec.get("parse")
                s = val.value.strip().lower()
                if parse == "bool" and s in _BOOL_WORDS:
                    truth = "true" if val.value else "false"
                    meant = s if s in ("true", "false") else ("true" if s in ("1", "yes", "on") else "false")
                    msg = (
                        f"`{key_node.value}` is the string \"{val.value}\", read with bool(): any non-empty string is "
                        f"{truth}; write the JSON boolean {meant}"
                    )
                    fix = None
                    # (`"true"`/`"false"` written in plain quotes: one meaning; `"no"`, `"0"` are left to you)
                    if s in ("true", "false") and val.loc is not None and ctx.source_text(val.loc) == f'"{val.value}"':
                        edit = ctx.replace(val.loc, meant)
                        fix = Fix(f"write the JSON boolean {meant}", [edit], "safe") if edit is not None else None
                    yield ctx.finding(val.loc, msg, use.point, key=key_node.value, fix=fix)
                elif parse == "int" and not s.isdigit():
                    msg = f"`{key_node.value}` is the string \"{val.value}\", read with int(): vLLM fails at startup; write a JSON number"
                    yield ctx.finding(val.loc, msg, use.point, key=key_node.value)
