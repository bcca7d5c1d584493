from recipelint.engines import facts
from recipelint.engines.behaviours import span
from recipelint.lint.rulebase import Rule, behaviour_scope, model_family

#: the behaviours this rule relies on (rules/data/behaviours.yaml), per engine: (id, what it does)
EFFECTS = {
    "vllm": (("vllm.auto-tool-choice-rejected", "answers every `tool_choice: auto` request with HTTP 400"),),
    "sglang": (
        ("sglang.tools-unparsed-without-parser", "returns tool calls as plain text"),
        ("sglang.tools-rejected-without-parser", "fails every request with tools (`Unsupported tool_call_parser: None`)"),
    ),
}


class AgenticWithoutToolCalling(Rule):
    """
    ## What it does
    Checks that an agentic (tool-using) benchmark launches its server with tool calling on:
    vLLM needs both `--tool-call-parser NAME` and `--enable-auto-tool-choice`; SGLang needs
    `--tool-call-parser NAME`.  A recipe is agentic when it lives under an `agentic/` folder or
    its master-config scenario is `agentic-coding`.

    ## Why is this bad?
    Agentic trace replays send chat requests with `tools` and `tool_choice: auto`.  Without
    both flags vLLM rejects every such request with HTTP 400 (`"auto" tool choice requires
    --enable-auto-tool-choice and --tool-call-parser to be set`); SGLang accepts them but
    returns tool calls as plain text, so the replayed agent loop silently measures something
    else (SGLang 0.5.2 on; 0.4.2–0.5.1.post3 fail every request with tools, `ValueError:
    Unsupported tool_call_parser: None`).  Either way the sweep's numbers are invalid.  These are
    version-scoped behaviours (`vllm.auto-tool-choice-rejected`, `sglang.tools-unparsed-without-parser`,
    `sglang.tools-rejected-without-parser` in `rules/data/behaviours.yaml`); the message names the
    release judged.

    ## Example
    ```bash
    VLLM_CMD=(vllm serve "$MODEL" --reasoning-parser deepseek_v4 --max-num-seqs "$MAX_NUM_SEQS")
    ```

    ## Use instead
    ```bash
    VLLM_CMD=(vllm serve "$MODEL" --reasoning-parser deepseek_v4
              --tool-call-parser deepseek_v4 --enable-auto-tool-choice
              --max-num-seqs "$MAX_NUM_SEQS")
    ```

    ## Exceptions
    Only the benchmark path is judged: flags added only under an `EVAL_ONLY` branch do not count.
    Launches with an argument list recipelint could not compute are skipped (the flags may be in
    it).  gpt-oss (harmony) models parse tool calls without a parser.  A flag passed at the
    engine's default (`--tool-call-parser ""`) is the flag left out.
    """

    code = "RL201"
    name = "agentic-without-tool-calling"
    severity = "error"

    REQUIRED = {"vllm": ("--tool-call-parser", "--enable-auto-tool-choice"), "sglang": ("--tool-call-parser",)}

    def check(self, ctx):
        fams = facts.load("models")["families"]
        for use in ctx.uses():
            lc = use.launch
            need = self.REQUIRED.get(lc.engine)
            if not need or not ctx.is_agentic(use) or not lc.complete:
                continue
            fam = model_family(lc, ctx.name)
            if fam and fams.get(fam, {}).get("tool_calling_builtin"):
                continue
            missing = [k for k in need if not use.passes(k)]  # (passed at the default: absent)
            if not missing:
                continue
            names = " and ".join(f"`{k}`" for k in missing)
            parser = fams.get(fam, {}).get(lc.engine, {}).get("tool_call_parser") if fam else None
            hint = f" (for this model: `--tool-call-parser {parser}`)" if parser and "--tool-call-parser" in missing else ""
            effect = _effect(use, lc.engine)
            if effect is None:
                continue
            msg = f"agentic {lc.engine} launch without {names}: {effect}{hint}"
            yield ctx.finding(lc.loc, msg, use.point, key=",".join(missing))


def _effect(use, engine: str) -> str | None:
    """What the engine does with the agent's requests on the releases judged, or None when no
    behaviour is known to hold on any of them."""
    parts = []
    for bid, does in EFFECTS.get(engine, ()):
        got = use.behaviour(bid)
        if got is None or not got[0].somewhere:
            continue
        parts.append((got, does))
    if not parts:
        return None
    if len(parts) == 1:
        got, does = parts[0]
        return f"{behaviour_scope(*got)} {does}"
    (_, ev) = parts[0][0]
    each = "; ".join(f"{does} on releases {span(j.held)}" for (j, _ev), does in parts)
    return f"{ev.label}: {each}"
