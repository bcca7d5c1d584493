import os

from recipelint.evaluate.builtins import NOT_FOUND
from recipelint.lint.rulebase import Rule


class UnknownEntryPoint(Rule):
    """
    ## What it does
    Reports a command that looks like a server launch but is no entry point recipelint knows:
    `python3 -m dynamo.mocker`, `python -m sglang_router.launch_server`, a `*-serve` program, or
    `python3 -m "$MODULE"` with server options (`--model`, `--port`, ...) where the value of
    the module is unknown (a variable set by a file recipelint could not follow), or a container
    of an image named after an engine given server options whose entrypoint recipelint does not
    know (`docker run … opea/vllm-gaudi:latest --model m`; `vllm/vllm-openai`'s is known: its
    launches are checked), or an engine's own launcher running a command recipelint cannot see
    (`trtllm-llmapi-launch ${server_cmd}`).

    ## Why is this bad?
    recipelint checks the flags of launches it recognises; a launch through an entry point it
    does not know is not checked at all, and without this finding the file would pass as "All
    checks passed".

    ## Example
    ```bash
    python3 -m my_site.serve --model "$MODEL" --tensor-parallel-size 8
    ```

    ## Use instead
    When the entry point takes an engine's flags, name it in the settings so that its launches
    are checked like the engine's:
    ```toml
    [tool.recipelint]
    extra-entry-points = {vllm = ["python -m my_site.serve"]}
    ```
    Otherwise suppress the finding with the reason (`# recipelint: ignore[RL007] ...`).

    ## Exceptions
    The engines' own tools (benchmark clients such as `python -m sglang.bench_serving`,
    environment checks) are not servers (`serve_like.not_servers` in
    `rules/data/engines.yaml`).  NVIDIA Dynamo's `python -m dynamo.vllm` and `python -m
    dynamo.sglang` are known entry points (their own flags and the engine's are checked, RL601);
    `dynamo.trtllm` is known too: its LLM-API options file (`--extra-engine-args`) is checked, its
    own flags are not (no catalog of them yet).
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
            words = site.text.split()
            if words[0] in ("docker", "podman") and len(words) > 2:
                # (`docker run … opea/vllm-gaudi:latest --model m`: the image's entrypoint serves)
                image = words[-2]
                msg = (
                    f"the image `{image}` takes server options (`{words[-1]}`) but what it runs is not known, so its "
                    "flags are not checked: suppress this with what the image runs, once known"
                )
                yield ctx.finding(ctx.site_loc(site), msg, key=site.text, notes=[f"`{words[0]} run … {image}`"])
                continue
            low = site.text.lower()
            engine = "sglang" if "sglang" in low else "trtllm" if "trtllm" in low or "tensorrt" in low else "vllm"
            msg = (
                f"`{site.text}` looks like a server launch of an entry point not known, so its flags are not checked: "
                f'name it in the settings\' `extra-entry-points` (`{{{engine} = ["{site.text}"]}}`) if it takes them'
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
                    if ev.why is not None:
                        yield ctx.finding(ev.loc, self._unknown_module(ev, path, ctx), pr.point, key=ev.text)
                        continue
                    msg = (
                        f"`{ev.text}` (as evaluated here) looks like a server launch, but recipelint does not know "
                        "this entry point: its flags are not checked; name it in the settings' `extra-entry-points` "
                        "if it takes an engine's flags"
                    )
                    yield ctx.finding(ev.loc, msg, pr.point, key=ev.text)

    @staticmethod
    def _unknown_module(ev, path, ctx) -> str:
        """The message for ``python -m <a module not known>`` with server options."""
        missing = []
        for _, m in path.notes:
            if m.startswith(NOT_FOUND):
                p = m[len(NOT_FOUND) :]
                missing.append(os.path.relpath(os.path.normpath(p), ctx.path.parent) if p.startswith("/") else p)
        whence = f" (the sourced {', '.join(f'`{m}`' for m in missing[:2])} was not found)" if missing else ""
        if ev.why.startswith("hidden:"):
            from recipelint.engines.catalog import ENGINE_NAMES

            engine = ev.why.split(":", 1)[1]
            return (
                f"`{ev.text}` starts a {ENGINE_NAMES.get(engine, engine)} server whose command recipelint cannot see "
                "(not known here): this launch is not checked; build the command in the script (an array) or "
                "suppress the finding with the reason"
            )
        what = "is empty here (nothing this path runs sets it)" if ev.why == "empty" else "is unknown here"
        return (
            f"`{ev.text}` takes server options, so it likely launches a server, but its module {what}{whence}: "
            "this launch is not checked; give the variable a value (`--env NAME=VALUE`, or the settings' `env`) "
            "or suppress the finding with the reason"
        )
