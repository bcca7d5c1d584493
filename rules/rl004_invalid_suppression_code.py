import re

from recipelint.bash.source import Span
from recipelint.lint.rulebase import Rule


class InvalidSuppressionCode(Rule):
    """
    ## What it does
    Reports a code in a `# recipelint: ignore[...]` or `file-ignore[...]` comment that is neither a
    recipelint rule code nor the prefix of one: a typo (`RL10l`, `RL1O1`), a code that was never
    recipelint's (`RL999`), another tool's code (ShellCheck's `SC2086`).

    ## Why is this bad?
    A suppression matches findings by code: an invalid code suppresses nothing, so the finding it
    was written for is still reported — or, when the comment names valid codes too, the comment
    reads as a deliberate suppression of a rule that does not exist.  Nothing else reports it:
    RL002 judges only suppressions of rules that ran.

    ## Example
    ```bash
    MAX_NUM_SEQS=$((2 * CONC))   # recipelint: ignore[RL10l] the router pins sessions to rank 0
    ```

    ## Use instead
    ```bash
    MAX_NUM_SEQS=$((2 * CONC))   # recipelint: ignore[RL101] the router pins sessions to rank 0
    ```

    ## Exceptions
    `ignore` without brackets (every code) is not checked.  A prefix (`RL1`) is valid when some
    rule's code starts with it.  Other tools' directives (`# shellcheck disable=SC2086`) are not
    recipelint's and are not read.
    """

    code = "RL004"
    name = "invalid-suppression-code"
    severity = "warning"
    sweep_independent = True

    def check(self, ctx):
        source = ctx.result.source
        if source is None:
            return
        from recipelint.lint.registry import known_codes
        from recipelint.lint.suppress import scan

        known = known_codes()
        text = source.data.decode("utf-8", "replace")
        lines = text.split("\n")
        for s in scan(text).items:
            bad = [c for c in s.codes if not any(k.startswith(c) for k in known)]
            if not bad:
                continue
            line = lines[s.line - 1]
            for code in bad:
                col = _column(line, s.col, code)
                at = line[col - 1 : col - 1 + len(code)]
                written = at if at.upper() == code else code  # (the scan upper-cases codes)
                # l, I and O typed for 1 and 0 (`RL10l`): the code they look like
                lookalike = code[:2] + code[2:].replace("L", "1").replace("I", "1").replace("O", "0")
                if code == "ALL":
                    hint = f"; `{s.kind}` without brackets suppresses every code"
                elif lookalike in known:
                    hint = f"; did you mean `{lookalike}`?"
                else:
                    hint = ctx.did_you_mean(code, known, cutoff=0.6)
                msg = f"`{written}` is not a recipelint rule code or prefix: this suppression does not apply to it{hint or '; name a code (`recipelint rule --all`)'}"
                span = Span(str(ctx.result.path), s.line, col, s.line, col + len(code))
                yield ctx.finding(span, msg, key=f"{s.kind}[{code}]")


def _column(line: str, start: int, code: str) -> int:
    """The 1-based column of ``code`` in the brackets of the directive starting at ``start``."""
    open_at = line.find("[", start - 1)
    close_at = line.find("]", open_at)
    m = re.search(rf"(?<![A-Za-z0-9]){re.escape(code)}(?![A-Za-z0-9])", line[open_at:close_at], re.I) if open_at >= 0 else None
    return open_at + m.start() + 1 if m else start
