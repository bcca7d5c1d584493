from recipelint.engines.catalog import describe_lifetime, parsers
from recipelint.lint.rulebase import Rule

KINDS = {
    "--tool-call-parser": ("tool_call_parsers", "--tool-parser-plugin", "tool-call"),
    "--reasoning-parser": ("reasoning_parsers", "--reasoning-parser-plugin", "reasoning"),
}


def _squash(name: str) -> str:
    return name.replace("_", "").replace("-", "").lower()


class UnknownParser(Rule):
    """
    ## What it does
    Reports a `--tool-call-parser` or `--reasoning-parser` name the engine does not register at
    the version the sweep point runs, and suggests the engine's own name for it.

    ## Why is this bad?
    SGLang declares both flags with argparse `choices`: an unknown name stops the server at
    startup (`invalid choice`).  vLLM raises `KeyError: invalid reasoning parser` at startup, and
    `invalid tool call parser` when `--enable-auto-tool-choice` is set.  The two engines name the
    same parsers differently (`deepseek_v4` in vLLM is `deepseekv4` for SGLang's tool parser and
    `deepseek-v4` for its reasoning parser), so names copied between recipes of different engines
    fail.

    ## Example
    ```bash
    python3 -m sglang.launch_server --model-path "$MODEL" --tool-call-parser deepseek_v4
    ```

    ## Use instead
    ```bash
    python3 -m sglang.launch_server --model-path "$MODEL" --tool-call-parser deepseekv4
    ```

    ## Exceptions
    Parsers loaded from a plugin (`--tool-parser-plugin`, `--reasoning-parser-plugin`) are not
    judged.  A parser other releases have is given with its lifetime ("exists only from vLLM
    0.20.0 on").  Versions as in RL601.
    """

    code = "RL602"
    name = "unknown-parser"
    severity = "error"
    sweep_independent = True

    def check(self, ctx):
        for use in ctx.uses():
            lc = use.launch
            ev = use.engine_version()
            if ev is None:
                continue
            for flag, (kind, plugin, label) in KINDS.items():
                f = lc.get(flag)
                if f is None or f.text is None or lc.has(plugin):
                    continue
                known = parsers(lc.engine, kind, ev.versions)
                if not known or f.text in known:
                    continue
                same = [n for n in sorted(known) if _squash(n) == _squash(f.text)]
                hint = f"; {ev.label.split(' (')[0].split(' ')[0]} calls it `{same[0]}`" if same else ""
                life = describe_lifetime(lc.engine, f.text, ev.versions, kind=kind)
                notes = [f"{ev.short}: {ev.provenance}" if ev.provenance else ""]
                if life is not None:  # other releases have it: its lifetime is the fix
                    msg = f"{ev.short} has no {label} parser `{f.text}`: the server stops at startup; run a release that has it"
                    notes.insert(0, f"{label} parser `{f.text}` {life}")
                else:
                    msg = f"{ev.short} has no {label} parser `{f.text}`: the server stops at startup{hint or '; name a registered one'}"
                yield ctx.finding(
                    f.value_loc, msg, use.point, [(f.word.loc, f"{flag} is passed here")], key=f"{flag}|{f.text}", notes=notes
                )
