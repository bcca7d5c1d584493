from recipelint.lint.rulebase import Rule


class SyntaxError_(Rule):
    """
    ## What it does
    Reports bash that does not parse: a syntax error, a missing `fi`/`done`/quote, or a token
    the parser had to drop.

    ## Why is this bad?
    bash stops at the first syntax error it meets, often after the server was started, and
    recipelint cannot rebuild the serve command past it (the rest of the file is still analysed
    as far as it parses).

    ## Example
    ```bash
    if [ "$DP_ATTENTION" = "true" ]; then
        PARALLEL_ARGS="--dp-size $TP"
    # the `fi` is missing
    ```

    ## Use instead
    ```bash
    if [ "$DP_ATTENTION" = "true" ]; then
        PARALLEL_ARGS="--dp-size $TP"
    fi
    ```

    ## Exceptions
    tree-sitter-bash rejects a few constructs bash accepts (for example `$-` inside `[[ ]]`);
    suppress those with `# recipelint: ignore[RL001]`.
    """

    code = "RL001"
    name = "syntax-error"
    severity = "error"
    sweep_independent = True

    def check(self, ctx):
        for p in ctx.result.problems:
            if p.kind == "syntax":
                yield ctx.finding(p.loc, p.message)
