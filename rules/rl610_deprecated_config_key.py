import re

from recipelint.engines import llmapi
from recipelint.lint.rulebase import Rule

#: "Use X instead" in a field's description: what a deprecated key moves to
_REPLACEMENT = re.compile(r"\b[Uu]se (`?[\w.=']+`?) instead")


class DeprecatedConfigKey(Rule):
    """
    ## What it does
    Notes a key of a TensorRT-LLM LLM-API options file (`trtllm-serve --config FILE`) that the
    newest source recipelint read marks deprecated and names a replacement for — accepted today,
    with a warning in the server log: `speculative_config.num_nextn_predict_layers` (→ `max_draft_len`),
    `torch_compile_config.enable_piecewise_cuda_graph` / `capture_num_tokens` (→
    `prefill_cuda_graph_backend` / `prefill_capture_num_tokens`), `backend: pytorch`.  The note
    says what the source does with it and, where recipelint knows them, which releases take the old
    and the new spelling (`rules/data/trtllm_llm_args.yaml`, `renames`, with their evidence).

    Multi-node engine configurations (`CONFIG_FILE=`, srt-slurm recipes) are judged too.

    ## Why is this bad?
    A deprecated key is removed in a later release, and then the server stops at startup on it
    (the models forbid unknown keys).  Recipes copied from one another carry the old spelling
    forward; sibling recipes that spell the same setting two ways drift apart silently.

    ## Example
    ```yaml
    speculative_config:
      decoding_type: MTP
      num_nextn_predict_layers: 3
    ```

    ## Use instead
    ```yaml
    speculative_config:
      decoding_type: MTP
      max_draft_len: 3
    ```
    — once every image the recipe runs takes the new spelling (the note names the releases).

    ## Exceptions
    An info, never more: the image's exact TensorRT-LLM release is not known to recipelint, and
    the old spelling is what older releases need.
    """

    code = "RL610"
    name = "deprecated-config-key"
    severity = "info"

    def check(self, ctx):
        for use in ctx.uses("trtllm"):
            opts = ctx.llm_api(use).options
            if opts is None or not opts.judged:
                continue
            cat = llmapi.catalog()
            release = llmapi.image_release(use.point)
            on = f" (the image runs TensorRT-LLM {release})" if release else ""
            for loc, msg, related, key, more in notes(cat.check(opts.root), cat, on):
                yield ctx.finding(loc, msg, use.point, related, key=key, notes=more)

    def check_project(self, project):
        """The multi-node engine configurations' LLM-API mappings (srt-slurm recipes)."""
        from recipelint.lint.findings import span_of

        for cfg in project.engine_configs():
            cat = llmapi.catalog()  # (read only when there is something to judge)
            on = f" (the image runs TensorRT-LLM {cfg.release})" if cfg.release else ""
            for role, mapping in cfg.roles.items():
                for loc, msg, related, _, more in notes(cat.check(mapping), cat, on, f"{role}."):
                    rel = [(span_of(x), m) for x, m in related if x is not None] + cfg.related()
                    yield self.project_finding(span_of(loc), msg, rel, notes=more)


def notes(problems, cat, on: str, prefix: str = ""):
    """(location, headline, related, key, notes): one finding per mapping that holds deprecated
    keys — the headline names the first and the fix, the notes the others and which releases take
    which spelling."""
    found: dict = {}  # parent mapping -> [(problem, head, scope)]
    for p in problems:
        if p.kind != "deprecated":
            continue
        r = p.rename
        path = prefix + p.path
        if r is not None:
            head, scope = f"`{path}` {r.get('note', 'is deprecated')}", str(r.get("scope") or "")
        else:
            use_instead = _REPLACEMENT.search(p.expected)
            if use_instead is None:
                continue  # (deprecated as a status only, with nothing to move to: not worth a note)
            head = f"`{path}` is deprecated in {cat.source}"
            scope = f"the server logs a warning; use {use_instead.group(1)}"
        found.setdefault(path.rpartition(".")[0], []).append((p, head, scope))
    for parent, items in found.items():
        first = items[0][0]
        scopes = list(dict.fromkeys(sc for _, _, sc in items))
        more = f" (and {len(items) - 1} more older spelling{'s' if len(items) > 2 else ''})" if len(items) > 1 else ""
        it = "them" if len(items) > 1 else "it"
        msg = f"{items[0][1]}{more}: switch to the new key once every image the recipe runs takes {it}"
        extra = [h for _, h, _ in items[1:]] + [sc for sc in scopes if sc] + ([on.strip(" ()")] if on else [])
        related = [(p.node.loc, f"`{prefix}{p.path}` is here") for p, _, _ in items[1:]]
        yield first.node.loc, msg, related, f"llm_api|{parent}|{prefix}{first.path}", extra
