from pathlib import Path

from recipelint.engines import clients
from recipelint.evaluate.state import Rejected
from recipelint.lint.rulebase import Rule


class RejectedArgument(Rule):
    """
    ## What it does
    Reports a call of a shell function (a helper library's `run_benchmark_serving`,
    `wait_for_server_ready`, or the recipe's own) with an argument that the function's own
    option loop rejects: its `case "$1" in ... *)` arm, which returns or exits non-zero
    (`echo "Unknown parameter: $1"; return 1`), is the arm the argument reaches.

    ## Why is this bad?
    The function stops at its option loop and does none of its work.  For the benchmark
    client's wrapper this happens after the server has started: the job spends its allocation
    loading the model and then writes no result for the sweep point (under `set -e` the
    script exits there; without it, the run goes on as if the benchmark had run).  Nothing in
    the log but one "Unknown parameter" line says why.

    ## Example
    ```bash
    run_benchmark_serving \\
        --model "$MODEL" \\
        --port "$PORT" \\
        --max-concurrency "$CONC" \\
        --request-rate 4     # run_benchmark_serving has no --request-rate arm
    ```

    ## Use instead
    Pass only the options the function's loop has an arm for (the message names the closest
    one, when one is close), or add the option to the helper library.

    ## Exceptions
    Only arguments whose text is known at the sweep point are judged, in option loops over
    `$1` whose catch-all arm (`*`, `-*`, `--*`) itself runs `return N` / `exit N` with N > 0;
    a loop without such an arm (one that skips unknown words) is not a rejection, and neither is
    an arm reached only on an assumption made inside the function (a condition recipelint could
    not decide: `expr` arithmetic that skips the first words).  After the
    server's launch the evaluator follows the statements up to the last benchmark client call
    (rules/data/clients.yaml), not further, and at one sweep point per config entry and kind of
    run (the topology and the concurrency do not change a client's arguments; following them at
    every point doubled the evaluation): the finding lists the points it was checked at.
    """

    code = "RL801"
    name = "rejected-argument"
    severity = "error"

    def check(self, ctx):
        script = str(ctx.result.path.resolve())
        found: dict = {}  # (function, word, where) -> [event, points, set -e exit]
        for pr in ctx.result.points:
            for path in pr.paths:
                for ev in path.events:
                    if not isinstance(ev, Rejected) or ev.assumed:
                        continue  # (reached on an assumption made inside the function: maybe not the arm bash takes)
                    anchor = _anchor(ev, script)
                    key = (ev.function, ev.word.text, anchor.real().source.path, anchor.real().start)
                    entry = found.setdefault(key, [ev, [], False, anchor])
                    if pr.point not in entry[1]:
                        entry[1].append(pr.point)
                    if path.exit is not None and "set -e" in path.exit.reason:
                        entry[2] = True
        for (function, word, _, _), (ev, points, errexit, anchor) in found.items():
            arm = ev.arm.real().span
            where = f"{Path(arm.path).name}:{arm.line}"
            verb = "exits" if ev.exits else "returns"
            if function in clients.functions():
                then = "so the benchmark client never runs and the sweep point writes no result"
            else:
                then = f"before `{function}` does any of its work"
            if errexit and verb == "returns":
                then += "; the script then exits under `set -e`"
            hint = ctx.did_you_mean(word, ev.accepted) if ev.accepted and word.startswith("-") else ""
            what = "" if word.startswith("-") else " (a word that is no option: left over, or its `--option` is missing)"
            msg = f"`{function}` does not accept `{word}`{what}: {'drop it or give its option' if what else 'drop it'}{hint}"
            notes = [f"the argument reaches its option loop's catch-all arm ({where}), which {verb} {ev.status}, {then}"]
            related = [(ev.arm, f"`{function}`'s catch-all arm rejects `{word}` here")]
            call = _call_site(ev, script)
            if call is not None and call is not anchor:
                related.append((call, f"`{function}` is called here"))
            # (no documented choice: an argument the function rejects is never one)
            yield ctx.finding(anchor, msg, points, related, key=f"{function}|{word}", notes=notes)


def _anchor(ev: Rejected, script: str):
    """Where the fix goes: the argument as the recipe wrote it, else the call in the recipe."""
    if ev.word.loc is not None and _same_file(ev.word.loc.real().source.path, script):
        return ev.word.loc
    call = _call_site(ev, script)
    return call if call is not None else (ev.word.loc or ev.arm)


def _call_site(ev: Rejected, script: str):
    for _name, _args, loc in ev.stack:
        if _same_file(loc.real().source.path, script):
            return loc
    return None


def _same_file(a: str, b: str) -> bool:
    try:
        return str(Path(a).resolve()) == b
    except OSError:
        return False
