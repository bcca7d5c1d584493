from recipelint.lint.rulebase import Rule


class SubstringForDefault(Rule):
    """
    ## What it does
    Reports `${NAME:word}` where `word` is no number: a substring expansion written where a
    default, `${NAME:-word}`, was meant.

    ## Why is this bad?
    bash accepts it as a substring expansion and evaluates `word` as an arithmetic offset.  When
    `NAME` is set, a word like `meta-llama/Llama-3.1-8B` is an arithmetic error (`division by
    0`) that stops the script before the server starts; when `NAME` is unset the expansion is
    empty, so the intended default never applies and the launch gets an empty value.

    ## Example
    ```bash
    MODEL=${MODEL:meta-llama/Llama-3.1-8B}
    ```

    ## Use instead
    ```bash
    MODEL=${MODEL:-meta-llama/Llama-3.1-8B}
    ```

    ## Exceptions
    A numeric offset (`${X:2}`, `${X:1:3}`) and an arithmetic expression the grammar takes
    (`${X:$o}`, `${X: -1}`) are substring expansions on purpose and are not reported.
    """

    code = "RL005"
    name = "substring-for-default"
    severity = "error"
    sweep_independent = True

    def check(self, ctx):
        for p in ctx.result.problems:
            if p.kind == "substring":
                yield ctx.finding(p.loc, p.message)
