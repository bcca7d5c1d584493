from recipelint.bash.source import Span
from recipelint.engines import facts
from recipelint.lint.rulebase import Rule


class NonUpstreamImage(Rule):
    """
    ## What it does
    Reports a master-config entry for vLLM or SGLang whose `image:` is not from the engine's
    upstream image repository (`vllm/...` on Docker Hub for vLLM, `lmsysorg/...` for SGLang).

    ## Why is this bad?
    InferenceX's review checklist: a vendor claiming first-class vLLM/SGLang support submits with
    the upstream images, so that results reflect what users can run.  A private or rebuilt image
    can carry patches no one reviewed.

    ## Example
    ```yaml
    dsr1-fp8-mi355x-sglang:
      image: rocm/sgl-dev:sglang-0.5.9-rocm720-mi35x
      framework: sglang
    ```

    ## Use instead
    ```yaml
      image: lmsysorg/sglang:v0.5.12-rocm720-mi35x
    ```

    ## Exceptions
    Active in repositories that have `docs/PR_REVIEW_CHECKLIST.md`.  The checklist's own
    exceptions (new hardware, new model architectures) are listed by config key in
    `image_exceptions` (`rules/data/policy.yaml`).  The engine is the first word of the entry's
    `framework` (`vllm`, `sglang`, `sglang-disagg`); frameworks that compose an engine with their
    own runtime (`dynamo-vllm`, `llmd-vllm`: their images are the framework's, InferenceX's llm-d
    image is built on `vllm/vllm-openai`) and other engines (TRT-LLM, ATOM) are not judged.
    """

    code = "RL703"
    name = "non-upstream-image"
    severity = "warning"

    def check_project(self, project):
        cs = project.configs
        root = getattr(cs, "root", None)
        if root is None or project.policy_root(root / "x") is None:
            return
        pol = facts.load("policy")
        allowed = pol["upstream_images"]
        for e in project.entries():
            # `sglang-disagg`: the engine is the framework's first word (`dynamo-vllm`, `llmd-vllm`
            # run the framework's own image, which carries the engine)
            first = (e.framework or "").split("-")[0]
            engine = first if first in allowed else None
            prefixes = allowed.get(engine)
            image = e.image
            if not prefixes or not image or e.key in pol["image_exceptions"]:
                continue
            if any(image.startswith(p) for p in prefixes):
                continue
            line, col = e.image_line, e.image_col
            msg = (
                f"`{e.key}` runs {engine} from `{image}`, not an upstream image: use one of "
                f"{', '.join(p + '…' for p in prefixes)}, or document why"
            )
            yield self.project_finding(Span(str(e.path), line, col, line, col + len(image)), msg)
