from recipelint.lint.rulebase import Rule


def _broken(text: str) -> bool:
    """A fragment of JSON or of a quoted argument."""
    if text[:1] in "{[" or text[-1:] in "}]":
        import json

        try:
            json.loads(text)
            return False
        except ValueError:
            return True
    return text.count('"') % 2 == 1 or text.count("'") % 2 == 1


class SplitExpansion(Rule):
    """
    ## What it does
    Reports an unquoted expansion (`$OFFLOAD_ARGS`, `${EXTRA[@]}` without quotes) whose value
    holds spaces inside a JSON value or a quoted argument, so that bash cuts it into pieces and a
    flag receives a fragment.

    ## Why is this bad?
    Word splitting ignores JSON and quotes inside the value: `OFFLOAD_ARGS="--kv-transfer-config
    {\\"kv_connector\\": \\"X\\"}"` passed as `$OFFLOAD_ARGS` gives `--kv-transfer-config` the word
    `{"kv_connector":` and the server stops on invalid JSON (or, worse, a later word is taken as a
    positional argument).

    ## Example
    ```bash
    OFFLOAD_ARGS="--kv-transfer-config {\\"kv_connector\\": \\"SimpleCPUOffloadConnector\\", \\"kv_role\\": \\"kv_both\\"}"
    vllm serve "$MODEL" $OFFLOAD_ARGS
    ```

    ## Use instead
    ```bash
    OFFLOAD_ARGS=(--kv-transfer-config '{"kv_connector": "SimpleCPUOffloadConnector", "kv_role": "kv_both"}')
    vllm serve "$MODEL" "${OFFLOAD_ARGS[@]}"
    ```

    ## Exceptions
    Splitting that yields whole words (a flag bundle like `--tp 8 --dp 8`) is the intended use of
    an unquoted string and is not reported.
    """

    code = "RL605"
    name = "split-expansion"
    severity = "error"
    sweep_independent = True

    def check(self, ctx):
        for use in ctx.uses():
            for f in use.launch.flags:
                w = f.value if f.value is not None else f.word
                if w.split is None or w.text is None or not _broken(w.text):
                    continue
                msg = (
                    f"this unquoted expansion is split at spaces inside a JSON or quoted value: `{f.name}` receives "
                    f"only `{w.text[:40]}`; quote it, or build the command as an array"
                )
                yield ctx.finding(w.split, msg, use.point, [(f.word.loc, f"{f.name} is passed here")], key=f.name)
