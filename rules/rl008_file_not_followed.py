from recipelint.evaluate.builtins import NOT_FOLLOWED
from recipelint.lint.rulebase import Rule


class FileNotFollowed(Rule):
    """
    ## What it does
    Reports a file a recipe sources (`source FILE`, `. FILE`) or runs (`bash FILE`) that exists
    but that recipelint does not read: a file outside the project root (the repository, or the
    folder with the master configs) and the search roots given with `--search-root`, a system
    file (under `/proc`, `/dev`, `/sys`), a FIFO, a device or another file that is not a regular
    file, a file over the size limit (16 MiB, or too large to parse), a binary or non-UTF-8 file.
    What the file would set is unknown to recipelint from there on (it may set any variable), so
    values that depend on it are not checked.

    Also reported: code recipelint stops following because it nests past its limits — `source`
    or `bash FILE` more than 8 files deep, `eval` inside `eval` more than 8 deep, a function that
    may launch running itself more than 8 deep (directly, through `$(...)` or `bash -c`), or
    function calls more than 48 deep. A launch inside that code is not seen. These are info
    findings: such code mostly runs itself again, and its deeper levels repeat what was followed.

    ## Why is this bad?
    recipelint runs on pull requests, on files an outside author controls: following
    `source /proc/self/environ` or a link to a file outside the checkout would put the CI job's
    environment or other files (tokens included) into launch values and finding messages. A
    recipe that needs a file outside its repository is also one that does not run the same on
    another machine. The finding says what was not followed and why, so that the launch is not
    taken as checked when part of it was not.

    ## Example
    ```bash
    source /etc/profile.d/cluster.sh   # outside the project root
    vllm serve "$MODEL" --tensor-parallel-size "$TP"
    ```

    ## Use instead
    Keep the sourced file in the repository, or pass `--search-root DIR` to let recipelint read
    a folder of shared scripts; or suppress the finding with the reason.

    ## Exceptions
    A sourced file that does not exist is not reported (a virtual environment's `activate`, a
    user's config file): it is treated as unknown too, without a finding. Nor are the machine's
    distribution files (`. /etc/os-release`, `/usr/lib/os-release`, `/etc/lsb-release`) and its
    system-wide environment (`/etc/environment`): not read either, but never part of a recipe.
    """

    code = "RL008"
    name = "file-not-followed"
    severity = "warning"
    sweep_independent = True

    def check(self, ctx):
        seen = set()
        for pr in ctx.result.points:
            for path in pr.paths:
                for loc, note in path.notes:
                    if not note.startswith(NOT_FOLLOWED):
                        continue
                    word, _, why = note[len(NOT_FOLLOWED) :].partition(": ")
                    span = loc.real().span
                    if (span.path, span.line, word) in seen:
                        continue
                    seen.add((span.path, span.line, word))
                    # the reason without the path it repeats (the word names the file)
                    _, sep, short = why.partition(": ")
                    msg = f"`{word}` is not followed: {short if sep else why}; what it sets is unknown from here on (name its folder with `--search-root` if it is yours)"
                    kind = _kind(short or why)
                    # (past a nesting limit: mostly code running itself again, whose deeper levels
                    # repeat what was followed — said, as info)
                    sev = "info" if kind in ("nest", "runs itself") else None
                    yield ctx.finding(loc, msg, pr.point, key=f"{word}|{kind}", severity=sev)


def _kind(why: str) -> str:
    for k in ("outside", "under /", "FIFO", "device", "regular", "limit", "binary", "UTF-8", "permission", "nest", "runs itself"):
        if k in why:
            return k
    return "other"
