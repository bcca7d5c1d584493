from recipelint.engines import facts
from recipelint.engines.catalog import ENGINE_NAMES
from recipelint.lint.findings import Fix
from recipelint.lint.rulebase import Rule, flag_insertion, launch_home, missing_defect, model_family


class AgenticWithoutToolCalling(Rule):
    """
    ## What it does
    Checks that an agentic (tool-using) benchmark launches its server with tool calling on:
    vLLM needs both `--tool-call-parser NAME` and `--enable-auto-tool-choice`; SGLang needs
    `--tool-call-parser NAME`.  A recipe is agentic when it lives under an `agentic/` folder or
    its master-config scenario is `agentic-coding`.

    ## Why is this bad?
    An agentic client sends chat requests with `tools`, and `tool_choice` left out means `auto`.
    Which requests carry tools depends on the client the recipe runs after the launch
    (`tools` in `rules/data/clients.yaml`): aiperf's trace replay (InferenceX's
    `build_replay_cmd` / `run_agentic_replay_and_write_outputs`) adds them only to the requests
    whose trace turn carries them, so the finding is a warning that says so; a client known to
    send none (`vllm bench serve`, `sglang.bench_serving`, InferenceX's trace replay, whose prompts
    are synthesized from the trace's block hashes) leaves the benchmark unaffected: an info finding
    says that only a client that sends tools (an agent eval) would be; when no known client runs
    after the launch, a warning says that which requests carry tools is not known.  Without
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

    ## Fix
    Unsafe (it chooses a parser): the missing flags — `--tool-call-parser` with the parser the
    model's family uses (`rules/data/models.yaml`), `--enable-auto-tool-choice` for vLLM — are
    added after the last flag of the launch's flag list, on lines of their own when the list
    has one flag per line.  When a sibling passes them, RL401 reports the same defect and its fix
    (the sibling's flags, where the sibling writes them) is the one applied: one finding per
    defect, RL201 as its note.

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
            who, severity, effect = ctx.tools_claim(use)
            if effect is None:
                continue
            does, provenance = effect
            parser = fams.get(fam, {}).get(lc.engine, {}).get("tool_call_parser") if fam else None
            texts = [
                f"--tool-call-parser {parser or '<the model´s parser>'}" if k == "--tool-call-parser" else k for k in missing
            ]
            fix, where = None, ""
            if parser or "--tool-call-parser" not in missing:
                edit, where = flag_insertion(ctx, lc, texts)
                if edit is not None:
                    fix = Fix(f"add `{' '.join(texts)}` {where}", [edit], "unsafe")
            msg = f"agentic {ENGINE_NAMES.get(lc.engine, lc.engine)} launch without tool calling: add `{' '.join(texts)}`" + (
                f" {where}" if where else ""
            )
            yield ctx.finding(
                launch_home(lc),
                msg,
                use.point,
                key=",".join(missing),
                severity=severity,
                fix=fix,
                defects=tuple(missing_defect(lc, k) for k in missing),
                notes=[f"{who}; {does}", provenance],
            )
