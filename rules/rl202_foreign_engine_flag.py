from recipelint.engines.catalog import engine_flags, resolves, wrapper_flags
from recipelint.lint.rulebase import Rule

ENGINE_NAMES = {"vllm": "vLLM", "sglang": "SGLang"}


class ForeignEngineFlag(Rule):
    """
    ## What it does
    Reports a flag that belongs to another engine: `--enable-auto-tool-choice` (vLLM) on an
    SGLang launch, `--mem-fraction-static` (SGLang) on a vLLM launch.

    ## Why is this bad?
    Both engines reject unknown flags at startup (`unrecognized arguments`), so the server never
    comes up and the sweep point fails after the node was allocated.  It usually means a flag
    list was copied from a recipe for the other engine.

    ## Example
    ```bash
    python3 -m sglang.launch_server --model-path "$MODEL" --tool-call-parser deepseekv4 \\
        --enable-auto-tool-choice
    ```

    ## Use instead
    ```bash
    python3 -m sglang.launch_server --model-path "$MODEL" --tool-call-parser deepseekv4
    ```

    ## Exceptions
    A flag the engine accepts under any known version, or as a unique abbreviation of one of
    its flags, is not reported.  Single-dash short options are not judged.  On an ATOM launch a
    flag ATOM lacks is RL601 (whichever engine it comes from).  Through a wrapper
    (`python -m dynamo.vllm`), the wrapper's own flags are accepted too.
    """

    code = "RL202"
    name = "foreign-engine-flag"
    severity = "error"

    def check(self, ctx):
        for use in ctx.uses():
            lc = use.launch
            own = engine_flags(lc.engine)
            if not own or lc.engine not in ENGINE_NAMES:  # ATOM: an unknown flag is RL601
                continue
            for f in lc.flags:
                if not f.name.startswith("--"):
                    continue
                key = f.base if lc.engine == "vllm" else f.name.split(".", 1)[0]
                if resolves(lc.engine, key) or (lc.wrapper and key in wrapper_flags(lc.wrapper)):
                    continue
                for other, label in ENGINE_NAMES.items():
                    if other != lc.engine and key in engine_flags(other):
                        msg = f"`{key}` is a {label} flag, not {ENGINE_NAMES[lc.engine]}'s: drop it or use {ENGINE_NAMES[lc.engine]}'s own"
                        notes = [f"{ENGINE_NAMES[lc.engine]} stops at startup with `unrecognized arguments`"]
                        yield ctx.finding(f.word.loc, msg, use.point, key=key, notes=notes)
                        break
