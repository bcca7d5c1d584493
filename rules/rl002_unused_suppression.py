from recipelint.bash.source import Span
from recipelint.lint.findings import Finding
from recipelint.lint.rulebase import Rule


class UnusedSuppression(Rule):
    """
    ## What it does
    Reports a `# recipelint: ignore[...]` or `file-ignore[...]` comment that suppresses nothing:
    no finding with those codes was reported where it applies.

    ## Why is this bad?
    A stale suppression hides the next real finding at that place, and tells readers a problem
    exists that does not.  Suppressions should disappear with the problem they documented.

    ## Example
    ```bash
    # recipelint: ignore[RL101] sized globally on purpose
    MAX_NUM_SEQS=$((2 * CONC / TP))     # already per rank: RL101 does not fire
    ```

    ## Use instead
    Remove the comment.

    ## Exceptions
    A suppression naming a rule that was not run (deselected with `--select`/`--ignore`) is not
    reported.  `--no-ignores` reports the suppressed findings instead.
    """

    code = "RL002"
    name = "unused-suppression"
    severity = "warning"
    sweep_independent = True

    def unused(self, path: str, s) -> Finding:
        """The finding for one unused suppression (the report stage decides which are unused)."""
        what = ", ".join(s.codes) if s.codes else "all codes"
        where = (
            "in this file"
            if s.kind == "file-ignore"
            else (f"on line {s.first}" if s.first == s.last else f"on lines {s.first}-{s.last}")
        )
        msg = f"this suppression of {what} suppresses nothing {where}: remove it"
        span = Span(path, s.line, s.col, s.line, s.col + 1)
        return Finding(self.code, self.name, self.severity, msg, span, key=f"{s.kind}[{','.join(s.codes)}]")
