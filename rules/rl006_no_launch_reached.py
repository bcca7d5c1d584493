import re

from recipelint.evaluate.builtins import NOT_FOUND
from recipelint.evaluate.values import ARGV
from recipelint.lint.rulebase import Rule


class NoLaunchReached(Rule):
    """
    ## What it does
    Reports a file whose text launches a server (a known entry point: `vllm serve`,
    `python3 -m sglang.launch_server`, `trtllm-serve`, ...) where no sweep point's evaluation
    reaches the launch, and says what stopped every path: the exit and its line, the variables
    a check requires, or that no path runs that code (a function nobody calls, a branch no
    point takes, a here-document the script writes to another file).

    ## Why is this bad?
    A launch recipelint does not reach is a launch it does not check: without this finding the
    file would pass as "All checks passed" although nothing of its serve command was looked at.
    Often the stop is real (a required variable the benchmark never sets); often the script
    needs inputs recipelint does not give by default (positional arguments, a variable from the
    caller).

    ## Example
    ```bash
    : "${MODEL:?set MODEL}"
    vllm serve "$MODEL" --port 8000
    ```
    (run with MODEL unset, every path stops at the first line)

    ## Use instead
    Give the script what it needs: a master config entry that runs it, or a default
    (`MODEL=${MODEL:-org/model}`), or suppress the finding with the reason.

    ## Exceptions
    In a repository with master configs, a file no entry runs (a multi-node helper a job file
    starts with its own variables) gets this as an info, its points being the default matrix's.
    A serve command a path runs as one word (`"$CMD"` with `CMD="vllm serve m --tp 8"`: bash looks
    for a program of that name, `command not found`) is an error at that command, whatever else
    the file launches.
    When paths stop at several places, each is named (the most common first), not one for all;
    a stop in a file the script sources is named with that file ("line 66 of `setup_deps.sh`").
    A serve command in a string the script assigns is said to be run by no path, unless every
    path stops before the assignment: then the stops are named.  A `source` on the way that
    finds no file is named in a note: what it would set is not seen, and the stops may follow.
    When the stops hang on the script's own arguments (it reads `$1`, `$@`, `getopt`, `shift`)
    and no sweep point gives them, that is said as an info, with the settings' `environments`
    (`args = [...]`) as the fix, not asserted as a defect (recipelint may not find the path the
    right arguments take).
    Recipes whose sweep points come from a master config are RL502's (sweep-point-stops), which
    names each point that stops; a file with a syntax error is RL001's.
    """

    code = "RL006"
    name = "no-launch-reached"
    severity = "warning"
    # (also on a recipe no master-config entry runs, as an info: its points are invented, but a
    # launch no path reaches is unchecked whatever the point — never silent)
    sweep_independent = True

    def check(self, ctx):
        res = ctx.result
        one_words = list(self._one_words(ctx))
        yield from one_words
        if one_words:
            return  # (the site the one word stands for is that defect: one finding)
        known = [s for s in res.sites if s.engine]
        if not known or not res.points or res.launched or ctx.config_points():
            return
        if any(p.kind == "syntax" for p in res.problems):
            return  # RL001 says why (bash stops there, recipelint reads no further)
        site = known[0]
        why, guessed = self._why(ctx)
        if site.kind == "string" and self._stopped_before(ctx, ctx.site_loc(site).span.line):
            # (no path reaches the assignment either: the stops are why, not who runs the string)
            site_kind = ""
        else:
            site_kind = site.kind
        where = {
            "heredoc": "it is in a here-document the script writes (recipelint does not follow that file)",
            "string": "it is a string the script assigns; recipelint saw no path run it (passed to another program?)",
        }.get(site_kind, "")
        todo = {
            "heredoc": "check the file the here-document writes on its own",
            "string": "run it from this script (an array), or check the script that runs it",
        }.get(site_kind, "give the values its paths need in the settings (`environments`)")
        severity = None
        notes: list[str] = []
        if guessed and not where:
            # the stops follow the arguments recipelint does not know: said, not asserted
            todo = "give the script's arguments in the settings (`environments = [{files = \"…\", args = [\"…\"]}]`)"
            notes.append("these stops hang on the script's arguments, which recipelint does not know here")
            severity = "info"
        elif getattr(ctx.project.configs, "found", False) and not ctx.project.is_run(res):
            # (a helper a job file runs with its own inputs: said, not asserted as a defect)
            notes.append("no master-config entry runs this file: its sweep points are the default matrix's")
            severity = "info"
        if not where:
            # (a sourced file that is not there sets nothing: the stops may follow from that)
            seen: dict = {}
            for pr in res.points:
                for path in pr.paths:
                    for loc, note in path.notes:
                        if note.startswith(NOT_FOUND) and ctx.is_here(loc):
                            said = " ".join(ctx.source_text(loc).split())
                            seen.setdefault((ctx.line_of(loc), said), note[len(NOT_FOUND) :])
            notes += [
                f"`{said}` ({line}) "
                + (f"names a file whose path is not known here (`{path}`)" if "⟨" in path else f"finds no file (`{path}`)")
                + ": what it would set is not seen"
                for (line, said), path in list(seen.items())[:2]
            ]
        msg = f"no sweep point reaches this {site.engine} launch (`{site.text}`), so it is not checked: {where or why}; {todo}"
        yield ctx.finding(
            ctx.site_loc(site),
            msg,
            [pr.point for pr in res.points],
            key=f"{site.engine}|{site.text}",
            severity=severity,
            notes=notes,
        )

    def _one_words(self, ctx):
        """A serve command a path runs as one word (`"$CMD"` with CMD="vllm serve m --tp 8"): the
        launch it stands for never starts, whatever else the file launches."""
        from recipelint.engines.sites import WordLaunch

        found: dict = {}  # loc -> (event, the points whose paths run it)
        for pr in ctx.result.points:
            for path in pr.paths:
                for ev in path.events:
                    if isinstance(ev, WordLaunch):
                        got = found.setdefault(ev.loc, (ev, []))
                        if pr.point not in got[1]:
                            got[1].append(pr.point)
        for ev, points in found.values():
            shown = ev.text if len(ev.text) <= 80 else ev.text[:77] + "..."
            msg = (
                f"this command runs a serve command as one word, so bash looks for a program named `{shown}` "
                "and stops with `command not found`: the launch never starts; let the shell split it (an "
                'array, `CMD=(vllm serve …)` then `"${CMD[@]}"`)'
            )
            yield ctx.finding(ev.loc, msg, points, key=f"one-word|{ev.text}", severity="error")

    @staticmethod
    def _stopped_before(ctx, line: int) -> bool:
        """Whether every path of every sweep point ends in a failing exit, none of them shown in
        this file at or below ``line`` (an exit in a sourced file counts as before it)."""
        ends = [p for pr in ctx.result.points for p in pr.paths]
        if not ends or any(p.exit is None or p.exit.code in (0, None) for p in ends):
            return False
        for p in ends:
            anchor = ctx.exit_anchor(p.exit)
            if ctx.is_here(anchor) and anchor.real().span.line >= line:
                return False
        return True

    def _why(self, ctx) -> tuple[str, bool]:
        """(what stopped every path, whether the stops hang on arguments no sweep point gives)."""
        ends = [p for pr in ctx.result.points for p in pr.paths]
        if any(p.exit is None or p.exit.code in (0, None) for p in ends):
            # (some path ends normally without it: no exit to blame)
            return "no path runs it (a function no path calls, a branch no sweep point takes, or a loop that never runs)", False
        stops: dict = {}  # (order, where, text) -> number of paths
        for pr in ctx.result.points:
            for path in pr.paths:
                kind, text = ctx.classify_stop(path)
                anchor = ctx.exit_anchor(path.exit)
                real = anchor.real()
                # (this file's lines first, in order, then other files'; an exit in a file this one
                # sources, outside any function it calls, is named with that file)
                order = (0, "", real.span.line) if ctx.is_here(anchor) else (1, str(real.source.path), real.span.line)
                line = ctx.line_of(anchor)
                if kind == "missing" and text:
                    said = f"it requires {', '.join(f'`{n}`' for n in text.split())}, which no sweep point sets"
                elif text:
                    said = f"`exit {path.exit.code}` after `{text}`"
                else:
                    said = f"`exit {path.exit.code}`"
                stops[(order, line, said)] = stops.get((order, line, said), 0) + 1
        if not stops:
            return "no path runs it (a function no path calls, or a branch no sweep point takes)", False
        guessed = _reads_arguments(ctx) and any(pr.point.env.get(ARGV, ()) is None for pr in ctx.result.points)
        if len(stops) == 1:
            (_, line, said), _ = next(iter(stops.items()))
            if said.startswith("it requires"):
                return f"every path stops first ({line}): {said}", guessed
            return f"every path stops first: {said} ({line})", guessed
        # (paths stop at several places: each is named, the most common first — not one for all)
        ranked = sorted(stops.items(), key=lambda kv: (-kv[1], kv[0][0]))
        shown = [f"{said} ({line}, {n} path{'s' if n > 1 else ''})" for (_, line, said), n in ranked[:3]]
        more = f" and {len(ranked) - 3} more" if len(ranked) > 3 else ""
        return f"every path stops first, at {len(ranked)} places: {'; '.join(shown)}{more}", guessed


#: a script's own positional parameters read in its text (`$1`, `${2:-x}`, `$@`, `$#`, `getopt`)
_ARGUMENTS = re.compile(r"\$\{?[#@*1-9]|\bgetopts?\b|\bshift\b")


def _reads_arguments(ctx) -> bool:
    src = ctx.result.source
    return src is not None and _ARGUMENTS.search(src.data.decode("utf-8", "replace")) is not None
