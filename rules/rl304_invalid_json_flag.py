from recipelint.lint.rulebase import Rule


class InvalidJsonFlag(Rule):
    """
    ## What it does
    Reports a JSON-valued flag (`--kv-transfer-config`, `--compilation-config`,
    `--speculative-config`, `--attention-config`, `--hf-overrides`, ...) whose value, after
    the script's expansions, is not valid JSON.

    ## Why is this bad?
    The engine parses the value at startup and exits on a JSON error — after the node was
    allocated and the model weights were loading.  Typical causes: a trailing comma left by a
    conditional fragment, a heredoc variable that expanded to nothing, single quotes inside
    the JSON.

    ## Example
    ```bash
    SPEC_CONFIG="{\\"method\\": \\"mtp\\", \\"num_speculative_tokens\\": $N,}"
    vllm serve "$MODEL" --speculative-config "$SPEC_CONFIG"
    ```

    ## Use instead
    ```bash
    SPEC_CONFIG="{\\"method\\": \\"mtp\\", \\"num_speculative_tokens\\": $N}"
    ```

    ## Exceptions
    Parts of the value recipelint cannot compute (the output of a command) are treated as
    unknown JSON values, not errors.
    """

    code = "RL304"
    name = "invalid-json-flag"
    severity = "error"
    sweep_independent = True

    def check(self, ctx):
        for use in ctx.uses():
            for f in use.launch.flags:
                if f.json_error is not None:
                    loc = f.json_error.loc or f.value_loc
                    msg = f"`{f.name}` is not valid JSON: {f.json_error.message}; correct the JSON here"
                    yield ctx.finding(loc, msg, use.point, [(f.word.loc, f"{f.name} is passed here")], key=f.name)
