import re

from recipelint.bash.source import Loc
from recipelint.lint.findings import Fix
from recipelint.lint.rulebase import Rule


class HeredocTerminatorIndented(Rule):
    """
    ## What it does
    Reports a here-document whose terminator line bash does not take as its end: indented with
    spaces after `<<-` (which strips leading tabs only), indented at all after `<<`, or with
    blanks or a carriage return after the delimiter. Reported at the here-document's start,
    naming the line that looks like its end and where bash ends it instead.

    ## Why is this bad?
    bash ends a here-document only at a line that is exactly its delimiter (after the leading
    tabs, for `<<-`). Short of one it reads on to the next such line, or to the end of the file
    (`warning: here-document delimited by end-of-file`): every statement in between, the
    server launch included, is text of the document and never runs. An editor that turns tabs
    into spaces does this to a `<<-` that worked.

    recipelint reads the file as bash does: the statements swallowed are text of the document,
    not analysed as code (tree-sitter-bash alone ends the document at the indented line).

    ## Example
    ```bash
    if [ -n "$EXTRA" ]; then
        cat > config.yaml <<-EOF
            max-num-seqs: 256
        EOF
    fi
    vllm serve "$MODEL" --config config.yaml
    ```

    ## Use instead
    Indent the terminator with tabs (and only tabs), or do not indent it:
    ```bash
    if [ -n "$EXTRA" ]; then
        cat > config.yaml <<EOF
    max-num-seqs: 256
    EOF
    fi
    vllm serve "$MODEL" --config config.yaml
    ```

    ## Fix
    Safe, when the line is the delimiter with blanks around it: the blanks are deleted, so the
    line ends the document where it was meant to.

    ## Exceptions
    None: a line that only looks like the terminator is never what was meant.
    """

    code = "RL010"
    name = "heredoc-terminator-indented"
    severity = "error"
    sweep_independent = True

    def check(self, ctx):
        for p in ctx.result.problems:
            if p.kind == "heredoc-end":
                # the key: the problem without its line numbers
                fix = None
                if p.mend is not None:
                    a, b, new = p.mend
                    edit = ctx.replace(Loc(p.loc.source, a, b), new)
                    line = p.loc.source.point(a)[0]
                    fix = Fix(f"delete the blanks around the terminator on line {line}", [edit], "safe") if edit else None
                yield ctx.finding(p.loc, p.message, key=re.sub(r"\d+", "#", p.message), fix=fix)
