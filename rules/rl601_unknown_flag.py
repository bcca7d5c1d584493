from recipelint.engines.catalog import engine_flags, expand, versions
from recipelint.lint.rulebase import Rule

OTHER = {"vllm": "sglang", "sglang": "vllm"}


class UnknownFlag(Rule):
    """
    ## What it does
    Reports a flag the engine does not have at the version the sweep point runs (from its
    master-config `image:`), with a "did you mean" suggestion — including flags removed or not yet
    added in that release, and ambiguous abbreviations.

    ## Why is this bad?
    vLLM and SGLang parse their command line with argparse: an unknown option stops the server
    with `unrecognized arguments` (an ambiguous prefix with `ambiguous option`) after the job was
    scheduled, the container pulled and the node allocated.

    The flag lists come from the engines' own release wheels (`rules/data/catalogs/`, made by
    `tools/gen_catalogs.py`). The engines' parsing is modelled: vLLM accepts `_` for `-` and
    dotted `--x-config.key` forms; both accept unique prefixes (`--max-num-seq`).

    ## Example
    ```bash
    vllm serve "$MODEL" --enable-expert-paralel --max-num-seq 64
    ```

    ## Use instead
    ```bash
    vllm serve "$MODEL" --enable-expert-parallel --max-num-seqs 64
    ```

    Options written as one word (`"$args"` with `args="--tp 8 --port 30000"`) are reported
    as such: argparse takes a word with blanks for a positional argument.

    ## Exceptions
    A flag of the *other* engine is RL202.  When the image is not a release (a nightly, a dev
    build), the flag is judged against every catalogued release in the range the image lies in
    (or all of them), and the message says so; with no image known at all (a script outside a
    benchmark repository), a flag no catalogued release has is a warning, since the script may
    run an older release.  A release older than every catalogued one is not
    judged (flags it had may have been removed since).  TRT-LLM and ATOM are not catalogued.
    Options a plugin adds to the engine's parser (vllm-omni's `--omni`) are named in the
    settings' `extra-flags`.
    """

    code = "RL601"
    name = "unknown-flag"
    severity = "error"
    sweep_independent = True

    def check(self, ctx):
        for use in ctx.uses():
            lc = use.launch
            ev = use.engine_version()
            if ev is None:
                continue
            for f in lc.flags:
                if not f.name.startswith("--"):
                    continue
                if any(ch.isspace() for ch in f.name):
                    # options in one word (`"$args"` holding `--tp 8 --port 30000`)
                    shown = f.name if len(f.name) <= 60 else f.name[:57] + "..."
                    msg = (
                        f"`{shown}` is one word holding several options: argparse takes a word with blanks "
                        "for a positional argument and the server stops with `unrecognized arguments`; let the "
                        'shell split it (an array, `ARGS=(--tp 8 ...)` then `"${ARGS[@]}"`)'
                    )
                    yield ctx.finding(f.word.loc, msg, use.point, key="one-word|" + f.name.split()[0])
                    continue
                key = f.base
                full, candidates = expand(lc.engine, key, ev.versions)
                if full is not None:
                    continue
                if key in engine_flags(OTHER[lc.engine]):
                    continue  # RL202
                if candidates:
                    msg = (
                        f"`{key}` is ambiguous in {ev.label}: it abbreviates {', '.join(f'`{c}`' for c in candidates[:4])}"
                        f"{' …' if len(candidates) > 4 else ''}; argparse stops with `ambiguous option`"
                    )
                else:
                    elsewhere = [v for v in versions(lc.engine) if key in engine_flags(lc.engine, v)]
                    if elsewhere:
                        span = elsewhere[0] if len(elsewhere) == 1 else f"{elsewhere[0]}–{elsewhere[-1]}"
                        hint = f"; it exists only in releases {span}"
                    else:
                        hint = ctx.did_you_mean(key, engine_flags(lc.engine, ev.versions))
                    msg = f"{ev.label} has no flag `{key}`: the server stops with `unrecognized arguments`{hint}"
                    if ev.image is None and not elsewhere:
                        # no image: the script may run a release older than every catalogued one,
                        # which may have had the flag — what is known, said as such
                        first = versions(lc.engine)[0]
                        msg += f" (no release from {first} on has it; older releases are not catalogued)"
                        yield ctx.finding(f.word.loc, msg, use.point, key=key, variant=ev.label, severity="warning")
                        continue
                yield ctx.finding(f.word.loc, msg, use.point, key=key, variant=ev.label)
