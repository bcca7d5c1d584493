import json

from recipelint.engines import facts
from recipelint.engines.catalog import parsers, version_key
from recipelint.engines.clients import answers_used
from recipelint.evaluate.values import text_of
from recipelint.lint.findings import Fix
from recipelint.lint.rulebase import Rule, flag_insertion, launch_home, missing_defect, model_family

#: where a launch sets the chat-template kwargs every request gets by default
KWARGS_FLAG = "--default-chat-template-kwargs"


def _default_at(by_default, engine: str, version: str) -> bool | None:
    """Whether the family thinks by default on ``engine`` at ``version``: the value read at that
    release, or at the read releases around it when they agree; None when not known."""
    fact = (by_default or {}).get(engine)
    if isinstance(fact, bool) or fact is None:
        return fact
    read = sorted(((version_key(str(v)), bool(b)) for v, b in fact.items()), key=lambda x: x[0])
    at = version_key(version)
    below = [b for k, b in read if k <= at]
    above = [b for k, b in read if k >= at]
    if below and above and below[-1] == above[0]:
        return below[-1]
    return None


def _kwargs(launch):
    """(dict, flag) of ``--default-chat-template-kwargs``; dict None when absent, "unknown"
    when it could not be computed."""
    f = launch.get(KWARGS_FLAG)
    if f is None:
        return None, None
    if f.json is not None and f.json.kind == "object" and f.json.known:
        return f.json.to_python(), f
    try:
        value = json.loads(f.text) if f.text is not None else None
    except ValueError:
        value = None
    return (value if isinstance(value, dict) else "unknown"), f


class AgenticWithoutReasoningParser(Rule):
    """
    ## What it does
    Checks that an agentic benchmark serving a reasoning model passes `--reasoning-parser`.  A
    recipe is agentic as for RL201 (an `agentic/` folder, or the master-config scenario
    `agentic-coding`).  A model is a reasoning model when its family thinks by default on that
    engine and release — DeepSeek-R1, DeepSeek-V4 on vLLM ≥ 0.33, Qwen3 / Qwen3.5 (not the
    Instruct-2507 or Coder checkpoints), Kimi K2 thinking / K2.5 / K2.6 and K3, GLM-4.5 and
    later, MiniMax-M2 — or when `--default-chat-template-kwargs` turns thinking on (MiniMax-M3's
    `thinking_mode: enabled`), or SGLang's `SGLANG_DEFAULT_THINKING=1` does (DeepSeek-V4).  The facts, with the engine file and release each was read from,
    are `reasoning` in `rules/data/models.yaml`.

    ## Why is this bad?
    Without a reasoning parser neither engine separates the thinking from the answer: vLLM's
    parser returns the whole output as `content` (`vllm/parser/abstract_parser.py`,
    `DelegatingParser.extract_reasoning`, v0.33.0), and SGLang splits `reasoning_content` only
    when a reasoning parser is set (`sglang/srt/entrypoints/openai/serving_chat.py`, v0.5.16).
    The client then takes the model's thinking for its answer — an agent loop that threads live
    responses back sends it as assistant text — and the tool-call parser scans the thinking as
    answer text too; vLLM reports no `reasoning_tokens` in the usage (`chat_completion/serving.py`,
    `_include_reasoning_tokens_details`, v0.33.0).  The run still completes, so nothing
    shows that the agentic numbers measure another conversation than the model's intended one.

    ## Example
    ```bash
    python3 -m sglang.launch_server --model-path Qwen/Qwen3.5-397B-A17B-FP8 --tool-call-parser qwen3_coder
    ```

    ## Use instead
    ```bash
    python3 -m sglang.launch_server --model-path Qwen/Qwen3.5-397B-A17B-FP8 --tool-call-parser qwen3_coder \\
        --reasoning-parser qwen3
    ```

    ## Exceptions
    Only vLLM and SGLang launches whose argument list recipelint could compute, on sweep points
    that run the benchmark (not `EVAL_ONLY`).  A path whose benchmark clients only count tokens
    and timings (`answers: unused` in `rules/data/clients.yaml`: `vllm bench serve`,
    `sglang.bench_serving`, `benchmark_serving.py`) is not judged: nothing reads the answer; the
    message names the client that does (aiperf's trace replay threads the live answers back).  A family is judged only where its reasoning
    parser is registered in every engine release the image may run and the default is known
    for each (an image judged against a range of releases is quiet when they differ).  Thinking
    turned off by `--default-chat-template-kwargs` (`{"enable_thinking": false}`) is accepted;
    what the client sends per request is not known and not judged.  A choice documented by a
    comment naming `--reasoning-parser` is accepted.  `--reasoning-parser ""` (vLLM's default
    from 0.9.0: no parser) is the flag left out, and the message says so.
    """

    code = "RL203"
    name = "agentic-without-reasoning-parser"
    severity = "warning"

    def check(self, ctx):
        fams = facts.load("models")["families"]
        for use in ctx.uses():
            lc = use.launch
            if lc.engine not in ("vllm", "sglang") or not lc.complete or not ctx.is_agentic(use):
                continue
            if use.passes("--reasoning-parser") or lc.has("--reasoning-parser-plugin"):
                continue  # (`--reasoning-parser ""`, the default, is no parser: judged as absent)
            fam = model_family(lc, ctx.name)
            spec = fams.get(fam, {}) if fam else {}
            reasoning = spec.get("reasoning")
            parser = (spec.get(lc.engine) or {}).get("reasoning_parser")
            if not reasoning or not parser or not self._model_applies(lc, ctx.name, reasoning):
                continue
            ev = use.engine_version()
            if ev is None:
                continue
            if any(parser not in parsers(lc.engine, "reasoning_parsers", (v,)) for v in ev.versions):
                continue  # the family's parser is not registered in every release the image may run
            thinks, why = self._thinks(lc, reasoning, ev.versions)
            if not thinks:
                continue
            tools = " and the tool-call parser scans it as answer text" if use.passes("--tool-call-parser") else ""
            eff = use.effective("--reasoning-parser")
            at = ""
            if eff.flag is not None and eff.default is not None:
                shown = eff.flag.text or '""'
                at = f" (`{eff.flag.name} {shown}` is {eff.default.label}'s default, no parser)"
            calls = ctx.clients_after(use)
            if calls and all(answers_used(c.client) is False for c in calls):
                continue  # its clients count tokens and timings only: the answer's text is not used
            client = f"its client `{calls[0].client}`" if calls else "the client"
            fix = None
            if eff.flag is None:
                edit, where = flag_insertion(ctx, lc, [f"--reasoning-parser {parser}"])
                fix = Fix(f"add `--reasoning-parser {parser}` {where}", [edit], "unsafe") if edit is not None else None
            msg = f"agentic launch of a reasoning model without `--reasoning-parser`: pass `--reasoning-parser {parser}`"
            notes = [
                f"{fam}: {why}{at}",
                f"{ev.short} returns the thinking inside `content`, not `reasoning_content`, so {client} takes it "
                f"for the answer{tools}",
                f"{ev.short}: {ev.provenance}" if ev.provenance else "",
            ]
            kw = lc.get(KWARGS_FLAG)
            related = [(kw.word.loc, "thinking is turned on here")] if kw is not None and why.startswith("turned") else []
            documented = ctx.documented([lc.loc], ["--reasoning-parser"])
            yield ctx.finding(
                launch_home(lc) if eff.flag is None else eff.flag.word.loc,
                msg,
                use.point,
                related,
                key="--reasoning-parser",
                documented=documented,
                notes=notes,
                defects=(missing_defect(lc, "--reasoning-parser"),),
                fix=fix,
            )

    @staticmethod
    def _model_applies(lc, file_name: str, reasoning) -> bool:
        """The family's default holds for this checkpoint (hybrid families: not for their
        instruct checkpoints)."""
        texts = [
            t.lower() for t in (lc.model.text if lc.model is not None else None, lc.value("--served-model-name"), file_name) if t
        ]
        only = reasoning.get("only_models") or []
        if only and not any(o in t for o in only for t in texts):
            return False
        return not any(x in t for x in reasoning.get("except_models") or [] for t in texts)

    @staticmethod
    def _thinks(lc, reasoning, versions) -> tuple[bool, str]:
        """(whether the model thinks on every release, how it comes to)."""
        kwargs, _ = _kwargs(lc)
        if kwargs == "unknown":
            return False, ""
        switches = reasoning.get("switches") or {}
        if isinstance(kwargs, dict):
            set_here = [k for k in switches if k in kwargs]
            if set_here:
                on = all(kwargs[k] == switches[k] for k in set_here)
                return on, f"turned on by `{KWARGS_FLAG}` ({', '.join(f'{k}: {kwargs[k]}' for k in set_here)})"
        for name in (reasoning.get("env_switches") or {}).get(lc.engine, []):
            value = lc.env.get(name)
            text = text_of(value) if isinstance(value, tuple) else value
            if isinstance(text, str) and text.strip().lower() in ("true", "1", "yes", "y"):
                return True, f"turned on by `{name}={text.strip()}`"
        defaults = [_default_at(reasoning.get("by_default"), lc.engine, v) for v in versions]
        if defaults and all(d is True for d in defaults):
            return True, "thinks by default"
        return False, ""
