from recipelint.bash.source import Loc
from recipelint.lint.findings import Fix
from recipelint.lint.rulebase import Rule


class DroppedContinuation(Rule):
    """
    ## What it does
    Reports a line that bash runs as a command named by an option word (`--max-num-seqs 4`):
    the rest of a continued command, cut off because the line above it lacks its trailing
    `\\` (or has a blank after it), or because a comment line or a blank line stands inside the
    continued command.

    ## Why is this bad?
    The command above ends one line early: the options from this line on never reach it (a
    server starts without them, or a benchmark client runs with its defaults), and bash then
    runs `--max-num-seqs` as a program ("command not found"), which under `set -e` ends the
    script.  When the cut-off part ends with `&`, the command above runs in the foreground
    instead of the background, and the recipe waits on it forever.

    ## Example
    ```bash
    vllm serve "$MODEL" --port "$PORT" \\
        --block-size 64
        --disable-log-requests > "$SERVER_LOG" 2>&1 &
    ```

    ## Use instead
    End every line of the command but its last with `\\` (and move comments out of it):
    ```bash
    vllm serve "$MODEL" --port "$PORT" \\
        --block-size 64 \\
        --disable-log-requests > "$SERVER_LOG" 2>&1 &
    ```

    ## Fix
    Safe for a blank after the line's final `\\`: the blank is deleted.  A blank line, a comment
    line or a missing `\\` is left to you (which lines belong to the command is a choice).

    ## Exceptions
    Only commands whose name is a literal option word (`--name`, `--name=value`, `-tp`) are
    reported; an option word inside a here-document, a string or an array is not a command.
    """

    code = "RL802"
    name = "dropped-continuation"
    severity = "error"
    sweep_independent = True

    def check(self, ctx):
        for s in ctx.result.strays:
            above = f"the `{s.above}` command (line {s.above_line})" if s.above else "the command above"
            if s.why == "comment":
                cause = (
                    f"the comment line {s.line} inside {above} ends it (the `\\` before the comment joins it, "
                    "and a comment runs to the end of its line)"
                )
                related = [(s.line_loc, "this comment line ends the command")]
            elif s.why == "blank":
                cause = f"the blank line {s.line} ends {above}"
                related = [(s.line_loc, "this blank line ends the command")]
            elif s.why == "space":
                cause = (
                    f"line {s.line} ends with `\\` and a blank after it, so the `\\` escapes the blank, not the "
                    f"newline, and {above} ends there"
                )
                related = [(s.line_loc, "the blank after this `\\` ends the command")]
            else:
                cause = f"line {s.line} does not end with `\\`, so {above} ends there"
                related = [(s.line_loc, "a `\\` is missing at the end of this line")]
            launch = self._launch_at(ctx, s)
            lost = "its options from here on never reach the server" if launch else "it loses its options from here on"
            todo = {
                "space": f"delete the blank after the `\\` of line {s.line}",
                "blank": f"delete the blank line {s.line}",
                "comment": f"move the comment line {s.line} out of the command",
            }.get(s.why, f"end line {s.line} with `\\`")
            msg = f"`{s.word}` starts a command of its own: {todo}"
            notes = [f"{cause} and {lost}; bash runs `{s.word}` as a command (command not found)"]
            if s.background:
                notes.append("the `&` at its end now backgrounds this line, so the command above runs in the foreground")
            yield ctx.finding(s.loc, msg, None, related, key=f"{s.word}|{s.why}", fix=_blank_fix(ctx, s), notes=notes)

    @staticmethod
    def _launch_at(ctx, s) -> bool:
        """Whether the command above is a server launch at some sweep point."""
        if not s.above_line:
            return False
        for pr in ctx.result.points:
            for lc in pr.launches:
                real = lc.loc.real()
                if real.span.line == s.above_line and real.source.path == s.loc.real().source.path:
                    return True
        return False


def _blank_fix(ctx, s):
    """The one unambiguous mend: the blanks after a line's final `\\` deleted (the `\\` then
    continues the command, as it was meant to); None for the other causes (a line to join or a
    `\\` to add is a choice)."""
    if s.why != "space":
        return None
    src = s.line_loc.real().source
    data = getattr(src, "data", b"")
    end = s.line_loc.real().end
    nl = data.find(b"\n", end)
    nl = len(data) if nl < 0 else nl
    if data[end - 1 : end] != b"\\" or data[end:nl].strip(b" \t\r"):
        return None
    edit = ctx.replace(Loc(src, end, nl - (1 if data[nl - 1 : nl] == b"\r" else 0)), "")
    return Fix(f"delete the blanks after the `\\` of line {s.line}", [edit], "safe") if edit is not None else None
