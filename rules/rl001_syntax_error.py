from recipelint.lint.rulebase import Rule


class SyntaxError_(Rule):
    """
    ## What it does
    Reports bash that does not parse: a syntax error, a missing `fi`/`done`/quote, or a token
    the parser had to drop.

    ## Why is this bad?
    bash stops at the first syntax error it meets, often after the server was started, and
    recipelint cannot rebuild the serve command past it (the rest of the file is still analysed
    as far as it parses).  Only the first is reported, with how many follow: later ones are
    often its cascade, and none of that code runs.

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
        found = [p for p in ctx.result.problems if p.kind == "syntax"]
        if not found:
            return
        # bash stops at the first: what follows it never runs, and the later errors are often
        # its cascade (a missing quote or `fi` makes the rest of the file mean something else)
        first, more = found[0], len(found) - 1
        notes = [f"bash stops here; {more} more syntax problem{'s' if more != 1 else ''} after it"] if more else []
        msg = (
            first.message
            if first.message.endswith("close it")
            else first.message + ": fix the syntax here (bash stops at it: nothing after it runs)"
        )
        yield ctx.finding(first.loc, msg, key=first.message, notes=notes)
