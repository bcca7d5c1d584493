from recipelint.lint.rulebase import Rule


class CrlfLineEnding(Rule):
    """
    ## What it does
    Reports a literal carriage return in code: a file saved with CRLF (Windows) line endings,
    or a stray `\\r` between words. Reported once per file, at the first one, with how many
    there are. A carriage return inside a quoted string, a here-document's body or a comment
    is data to bash and is not counted (the shebang line is: the kernel reads it).
    ShellCheck reports the same as SC1017.

    ## Why is this bad?
    To bash a carriage return is not a blank but a character of the word before it:
    `then` followed by CR is not the keyword `then` (`syntax error near unexpected token`),
    `TP=8` followed by CR sets `TP` to `8` and a carriage return, and the last argument of
    every command ends in one (`--max-model-len 4096` CR is rejected by the server, a file
    name CR is not found). `#!/bin/bash` CR fails when the script is run as a program
    (`cannot execute: required file not found`). The script does not
    run as it reads.

    The rest of the analysis reads the file as it means, as if each carriage return in code
    were a blank: for CRLF line endings, the script as it is after `tr -d '\\r'`, so the other
    findings are the ones left once the line endings are fixed.

    ## Example
    A recipe saved by a Windows editor (`TP=8` CR LF, `vllm serve $MODEL --tensor-parallel-size $TP` CR LF).

    ## Use instead
    Save it with LF line endings: `tr -d '\\r' < recipe.sh > fixed.sh`, `dos2unix recipe.sh`,
    or `* text eol=lf` in `.gitattributes`.

    ## Exceptions
    None: a script bash is to run has no carriage return in code. A carriage return meant as
    data is written `$'\\r'` (or kept inside quotes).
    """

    code = "RL009"
    name = "crlf-line-ending"
    severity = "error"
    sweep_independent = True

    def check(self, ctx):
        for p in ctx.result.problems:
            if p.kind == "crlf":
                yield ctx.finding(p.loc, p.message, key="crlf")
