from pathlib import Path

from recipelint.engines.changes import EngineChange
from recipelint.lint.rulebase import Rule


class EnginePatch(Rule):
    """
    ## What it does
    Reports a recipe that changes the inference engine inside the pinned image before serving:
    `patch` / `git apply`, `sed -i` (or `cp`, `tee`, ...) on installed engine sources
    (`site-packages`, `/sgl-workspace/sglang`, ...), a Python heredoc that rewrites them, or
    `pip install` of engine packages (vLLM, SGLang, FlashInfer, AITER, Triton, ...) over the
    image — also when done by a script the recipe runs (`bash apply_patches.sh`).

    ## Why is this bad?
    InferenceX's review checklist requires the pinned image to run as shipped: results must be
    reproducible from the image tag, and comparable across submissions.  The only exception is a
    patch covered by a filled-out waiver, `docs/waiver/<PR>.md`, that names it.

    ## Example
    ```bash
    sed -i 's/assert /pass  # /' /sgl-workspace/sglang/python/sglang/srt/managers/scheduler.py
    ```

    ## Use instead
    Use an image that has the fix, or file `docs/waiver/<PR>.md` (what is patched, why the
    upstream image cannot run the benchmark, the upstream PR, the removal plan) naming the recipe.

    ## Exceptions
    Active in repositories that have `docs/PR_REVIEW_CHECKLIST.md`.  A change is waived when a
    waiver file mentions the recipe's file name or the name of the script that makes the change.
    Installing non-engine packages (benchmark clients, KV-cache stores) is not reported.
    """

    code = "RL701"
    name = "engine-patch"
    severity = "error"
    sweep_independent = True

    def check(self, ctx):
        root = ctx.project.policy_root(ctx.result.path)
        if root is None:
            return
        waivers = ctx.project.waivers(root)
        seen = set()
        for pr in ctx.result.points:
            for path in pr.paths:
                for ev in path.events:
                    if not isinstance(ev, EngineChange) or id(ev) in seen:
                        continue
                    seen.add(id(ev))
                    names = {ctx.result.path.name, Path(ev.loc.real().source.path).name}
                    if any(n in text for _, text in waivers for n in names):
                        continue
                    msg = f"{ev.detail}: drop the change, or add a waiver under docs/waiver/ naming this recipe"
                    notes = ["the pinned image must run as shipped"]
                    yield ctx.finding(ev.loc, msg, pr.point, key=ev.detail, notes=notes)
