from recipelint.engines import facts
from recipelint.lint.rulebase import Rule, model_family


class ParserModelMismatch(Rule):
    """
    ## What it does
    Reports a tool-call or reasoning parser that belongs to another model family than the model
    the launch serves: a `deepseek_v4` parser on a Kimi model, a `qwen3_coder` parser on
    DeepSeek.

    ## Why is this bad?
    A parser reads one model family's output format.  With another family's parser, tool calls
    and reasoning come back as plain text or are cut wrongly — no error, just a benchmark of a
    broken agent loop, usually after a recipe was copied from another model's.

    ## Example
    ```bash
    vllm serve moonshotai/Kimi-K3 --tool-call-parser deepseek_v4 --enable-auto-tool-choice
    ```

    ## Use instead
    ```bash
    vllm serve moonshotai/Kimi-K3 --tool-call-parser kimi_k3 --enable-auto-tool-choice
    ```

    ## Exceptions
    Only families listed in `rules/data/models.yaml` are judged, and only when the model name (or
    the recipe's file name) identifies one and the parser is another listed family's.
    """

    code = "RL603"
    name = "parser-model-mismatch"
    severity = "error"

    def check(self, ctx):
        fams = facts.load("models")["families"]
        for use in ctx.uses():
            lc = use.launch
            fam = model_family(lc, ctx.name, parsers=False)
            if fam is None:
                continue
            expected = fams.get(fam, {}).get(lc.engine) or {}
            for flag, kind in (("--tool-call-parser", "tool_call_parser"), ("--reasoning-parser", "reasoning_parser")):
                f = lc.get(flag)
                if f is None or f.text is None or not expected.get(kind) or f.text == expected[kind]:
                    continue
                owner = next(
                    (name for name, spec in fams.items() if name != fam and (spec.get(lc.engine) or {}).get(kind) == f.text), None
                )
                if owner is None:
                    continue
                msg = (
                    f"the `{f.text}` {kind.replace('_', ' ')} is for {owner} models, but this launch serves a {fam} model: "
                    f"use `{expected[kind]}`"
                )
                yield ctx.finding(f.value_loc, msg, use.point, [(f.word.loc, f"{flag} is passed here")], key=f"{flag}|{f.text}")
