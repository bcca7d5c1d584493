from recipelint.bash.source import Loc
from recipelint.lint.findings import Fix
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

    ## Fix
    Safe, when every line of the file ends in CR LF (a file saved by a Windows editor): the
    carriage returns are deleted.  A file where only some lines do is left to you (a carriage
    return there may be data).

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
                yield ctx.finding(p.loc, p.message, key="crlf", fix=_lf(ctx, p.loc.source))


def _lf(ctx, src):
    """LF line endings, when every line of the file ends in CR LF (a file saved by a Windows
    editor: no carriage return in it can be data); else None."""
    data = src.data
    if data.count(b"\n") == 0 or data.count(b"\n") != data.count(b"\r\n") or data.count(b"\r") != data.count(b"\r\n"):
        return None
    edits = []
    at = data.find(b"\r\n")
    while at >= 0:
        edits.append(ctx.replace(Loc(src, at, at + 1), ""))
        at = data.find(b"\r\n", at + 2)
    if not edits or any(e is None for e in edits):
        return None
    return Fix("save with LF line endings", edits, "safe")
