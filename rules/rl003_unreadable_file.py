import re

from recipelint.bash.source import Span
from recipelint.lint.findings import Finding
from recipelint.lint.rulebase import Rule


class UnreadableFile(Rule):
    """
    ## What it does
    Reports a recipe that cannot be analysed at all: a binary file, text that is not UTF-8,
    a file that cannot be read, or one too large to analyse (over 16 MiB, 200,000 lines or
    500,000 syntax nodes).

    ## Why is this bad?
    A `.sh` file under the benchmark tree that is not a readable bash script is either a
    mistake (a committed binary, a file saved in another encoding) or will fail when the
    launcher runs it.

    ## Example
    A recipe saved as Latin-1 (`caf\\xe9` in a comment) or a build artefact named `*.sh`.

    ## Use instead
    Save recipes as UTF-8 text.

    ## Exceptions
    Empty files are skipped, not reported.
    """

    code = "RL003"
    name = "unreadable-file"
    severity = "error"
    sweep_independent = True

    def check(self, ctx):
        err = ctx.result.error
        if not err or err.endswith(": empty file"):
            return
        line = 1
        head, _, rest = err.partition(": ")
        if head.startswith(ctx.result.display + ":"):
            tail = head[len(ctx.result.display) + 1 :]
            if tail.isdigit():
                line = int(tail)
        msg = err.split(": ", 1)[1] if ": " in err else err
        # the key, for fingerprints: the problem without its numbers (an offset, a size, a line)
        key = re.sub(r"0x[0-9a-fA-F]+|\d[\d,.]*", "#", msg)
        msg += "; " + _TODO.get(
            next((k for k in _TODO if k in msg), ""), "make it a readable text file inside the project, or exclude it"
        )
        yield Finding(self.code, self.name, self.severity, msg, Span(str(ctx.result.path), line, 1, line, 1), key=key)


#: what to do, by what the reason says
_TODO = {
    "UTF-8": "save it as UTF-8",
    "NUL": "remove the NUL bytes (a binary file is no recipe)",
    "larger than": "split it, or exclude it",
    "outside": "keep it inside the project (or name its folder with --search-root)",
    "": "make it a readable text file inside the project, or exclude it",
}
