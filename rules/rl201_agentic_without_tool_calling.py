from recipelint.engines import facts
from recipelint.engines.behaviours import span
from recipelint.engines.clients import tools_mode
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
        # the clients each launch (by where it is written) runs on any path: a path that stops
        # before its client (an exit, a branch) is judged by what the launch's other paths run
        by_launch: dict = {}
        own: dict = {}  # id(launch) -> the clients its own path runs
        for use in ctx.uses():
            calls = own[id(use.launch)] = ctx.clients_after(use)
            by_launch.setdefault((use.launch.loc.source.path, use.launch.loc.start), []).extend(calls)
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
            run = _run(own.get(id(lc)) or by_launch.get((lc.loc.source.path, lc.loc.start), []))
            who, severity = run
            msg = f"agentic {lc.engine} launch without {names}: {who}; {effect}{hint}"
            yield ctx.finding(lc.loc, msg, use.point, key=",".join(missing), severity=severity)


def _run(calls) -> tuple[str, str | None]:
    """Which requests of this path carry tools, from the clients it runs after the launch
    (clients.yaml ``tools``), and the severity that claim supports (info when every client is
    known to send none: only another client, an eval, would be affected)."""
    modes = [(c, tools_mode(c.client)) for c in calls]
    always = [c for c, m in modes if m == "always"]
    if always:
        return f"its client `{always[0].client}` sends `tools` with every request", None
    trace = [c for c, m in modes if m == "trace"]
    if trace:
        return (
            f"its client `{trace[0].client}` sends `tools` only on the requests whose trace turn carries them, "
            "without `tool_choice` (the server's default: `auto`)",
            "warning",
        )
    if modes and all(m == "never" for _, m in modes):
        return (
            f"its client `{modes[0][0].client}` sends no `tools`, so the benchmark's own requests are not affected; "
            "a client that sends them (an agent eval run against this server)",
            "info",
        )
    return "no benchmark client recipelint knows runs after it, so whether requests carry `tools` is not known", "warning"


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
