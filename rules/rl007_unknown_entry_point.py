from recipelint.lint.rulebase import Rule


class UnknownEntryPoint(Rule):
    """
    ## What it does
    Reports a command that looks like a server launch but is no entry point recipelint knows:
    `python3 -m dynamo.vllm`, `python -m sglang_router.launch_server`, a `*-serve` program.

    ## Why is this bad?
    recipelint checks the flags of launches it recognises; a launch through an entry point it
    does not know is not checked at all, and without this finding the file would pass as "All
    checks passed".

    ## Example
    ```bash
    python3 -m dynamo.vllm --model "$MODEL" --tensor-parallel-size 8
    ```

    ## Use instead
    When the entry point takes an engine's flags, name it in the settings so that its launches
    are checked like the engine's:
    ```toml
    [tool.recipelint]
    extra-entry-points = {vllm = ["python -m dynamo.vllm"]}
    ```
    Otherwise suppress the finding with the reason (`# recipelint: ignore[RL007] ...`).

    ## Exceptions
    The engines' own tools (benchmark clients such as `python -m sglang.bench_serving`,
    environment checks) are not servers (`serve_like.not_servers` in
    `rules/data/engines.yaml`).
    """

    code = "RL007"
    name = "unknown-entry-point"
    severity = "info"
    sweep_independent = True

    def check(self, ctx):
        seen = set()
        for site in ctx.result.sites:
            if site.engine is not None or site.text in seen:
                continue
            seen.add(site.text)
            low = site.text.lower()
            engine = "sglang" if "sglang" in low else "trtllm" if "trtllm" in low or "tensorrt" in low else "vllm"
            msg = (
                f"`{site.text}` looks like a server launch, but recipelint does not know this entry point: "
                "its flags are not checked; if it takes an engine's flags, name it in the settings' "
                f'`extra-entry-points` (e.g. `{{{engine} = ["{site.text}"]}}`)'
            )
            yield ctx.finding(ctx.site_loc(site), msg, key=site.text)
        # launches the text does not show (the module in a variable: `python -m "$WORKER_MODULE"`)
        from recipelint.engines.sites import UnknownServe

        lines = {ctx.site_loc(s).real().span.line for s in ctx.result.sites}
        for pr in ctx.result.points:
            for path in pr.paths:
                for ev in path.events:
                    if not isinstance(ev, UnknownServe) or ev.text in seen:
                        continue
                    if ev.loc.real().span.line in lines:
                        continue
                    seen.add(ev.text)
                    msg = (
                        f"`{ev.text}` (as evaluated here) looks like a server launch, but recipelint does not know "
                        "this entry point: its flags are not checked; name it in the settings' `extra-entry-points` "
                        "if it takes an engine's flags"
                    )
                    yield ctx.finding(ev.loc, msg, pr.point, key=ev.text)
