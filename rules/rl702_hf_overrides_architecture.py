import fnmatch

from recipelint.engines import facts
from recipelint.lint.rulebase import Rule


class HfOverridesArchitecture(Rule):
    """
    ## What it does
    Reports `--hf-overrides` (vLLM) / `--json-model-override-args` (SGLang) keys that change the
    model's architecture: layer counts, expert counts and routing, attention heads, sparse-indexer
    settings, skipped layers — at any depth (`{"text_config": {"index_topk_freq": 4}}`).

    ## Why is this bad?
    InferenceX's review checklist: "the model architecture isn't changed with benchmark hacks like
    using --hf-overrides to skip the indexer for every x layers".  An override that removes work
    from the model makes its numbers incomparable with every other submission of that model.

    ## Example
    ```bash
    vllm serve "$MODEL" --hf-overrides '{"index_topk_freq": 4}'
    ```

    ## Use instead
    Serve the model as released.  Overrides that do not change the computation (a longer
    `max_position_embeddings`, a rope-scaling setting the model card documents) are fine.

    ## Exceptions
    Active in repositories that have `docs/PR_REVIEW_CHECKLIST.md`.  The keys judged are data
    (`hf_overrides_keys`, `hf_overrides_patterns` in `rules/data/policy.yaml`).
    """

    code = "RL702"
    name = "hf-overrides-architecture"
    severity = "error"
    sweep_independent = True

    FLAGS = ("--hf-overrides", "--json-model-override-args")

    def check(self, ctx):
        if ctx.project.policy_root(ctx.result.path) is None:
            return
        pol = facts.load("policy")
        keys, patterns = set(pol["hf_overrides_keys"]), pol["hf_overrides_patterns"]
        for use in ctx.uses():
            for flag in self.FLAGS:
                for f in use.launch.all(flag):
                    if f.subkey is not None:  # --hf-overrides.text_config.index_topk_freq 4
                        items = [(k, f.word.loc) for k in f.subkey.split(".")]
                    elif f.json is not None:
                        items = _keys(f.json)
                    else:
                        continue
                    hits = [(k, loc) for k, loc in items if k in keys or any(fnmatch.fnmatchcase(k, p) for p in patterns)]
                    if hits:
                        names = ", ".join(f"`{k}`" for k, _ in hits)
                        msg = f"`{flag}` changes the model architecture ({names}): not allowed for benchmark submissions; drop those keys"
                        yield ctx.finding(hits[0][1], msg, use.point, key=f"{flag}|{names}")


def _keys(node):
    """(key, loc) of every object key, nested ones too (`{"text_config": {"index_topk_freq": 4}}`)."""
    out = []
    if node.kind == "object":
        for k, v in node.items:
            if k.value:
                out.append((k.value, k.loc))
            out.extend(_keys(v))
    elif node.kind == "array":
        for v in node.elements:
            out.extend(_keys(v))
    return out
