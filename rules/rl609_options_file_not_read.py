from recipelint.lint.groups import trtllm_engine_files
from recipelint.lint.rulebase import Rule


class OptionsFileNotRead(Rule):
    """
    ## What it does
    Says when the options file of a TensorRT-LLM launch (`trtllm-serve --config FILE` /
    `--extra_llm_api_options FILE`) cannot be checked, and why: its path is not known at the sweep
    point, the script does not write it before the launch and there is no such file in the tree,
    the file is outside the checked tree — or it is not YAML.

    ## Why is this bad?
    Most of what a TensorRT-LLM launch does is in that file (batch sizes, CUDA graphs, attention
    DP, the KV cache, speculative decoding): when recipelint cannot read it, those settings are not
    checked, and a run without this finding would look checked.  A file that is not YAML stops the
    server at startup (an error then, when every part of the text is known).

    ## Example
    ```bash
    trtllm-serve "$MODEL" --config "$CONFIG_DIR/llm.yaml"   # CONFIG_DIR not known
    ```

    ## Use instead
    Write the file in the recipe (a here-document before the launch) or commit it beside the
    recipe, so that each sweep point's values are known.

    For multi-node entries, the engine configuration files their items name (`CONFIG_FILE=`,
    srt-slurm recipes with a TensorRT-LLM backend) that are not in the checked tree — the
    orchestrator's own recipe checkout, beyond what the runner launchers copy from the tree — are
    said in one finding per reason.

    ## Exceptions
    A file the script writes is read as written at each sweep point; parts it cannot compute are
    not judged (and do not make the file "not YAML").
    """

    code = "RL609"
    name = "options-file-not-read"
    severity = "info"

    def check(self, ctx):
        for use in ctx.uses("trtllm"):
            opts = ctx.llm_api(use).options
            if opts is None:
                continue
            flag = opts.flag.name.split("=", 1)[0]
            shown = f"`{opts.name}`" if opts.name else "the options file"
            if opts.origin == "unseen":
                msg = f"{shown} (`{flag}`) is not checked: {opts.why}"
                yield ctx.finding(opts.flag.word.loc, msg, use.point, key=f"unseen|{opts.name}")
                continue
            err = opts.error
            if err is not None:
                if err.message.startswith("unknown: "):
                    msg = f"{shown} is not checked: with the parts recipelint cannot compute it does not load as YAML ({err.message[9:]})"
                    yield ctx.finding(err.loc or opts.flag.word.loc, msg, use.point, key=f"yaml|{opts.name}")
                    continue
                msg = f"{shown} is not valid YAML: {err.message}; TensorRT-LLM stops when it reads it"
                related = [(opts.flag.word.loc, f"passed here (`{flag}`)")]
                yield ctx.finding(
                    err.loc or opts.flag.word.loc, msg, use.point, related=related, key=f"yaml|{opts.name}", severity="error"
                )
                continue
            if opts.root is not None and opts.root.kind not in ("object", "null", "unknown"):
                msg = f"{shown} is not a mapping of options ({opts.root.kind}); TensorRT-LLM stops when it reads it"
                yield ctx.finding(opts.root.loc or opts.flag.word.loc, msg, use.point, key=f"shape|{opts.name}", severity="error")

    def check_project(self, project):
        """Multi-node TensorRT-LLM entries whose engine configuration files are not in the tree (or
        not TensorRT-LLM's): one finding for the run, naming how many and why."""
        from recipelint.bash.source import Span

        unread = {
            name: (why, [(e, ref) for e, ref in uses if trtllm_engine_files(e) is not None])
            for name, (why, uses) in project.engine_configs_unread.items()
        }
        unread = {k: v for k, v in unread.items() if v[1]}
        if not unread:
            return
        by_why: dict = {}
        for name, (why, uses) in unread.items():
            by_why.setdefault(why, []).append((name, uses))
        for why, items in by_why.items():
            e, ref = items[0][1][0]
            entries = {u[0].key for _, uses in items for u in uses}
            names = ", ".join(f"`{n}`" for n, _ in items[:2]) + (f" and {len(items) - 2} more" if len(items) > 2 else "")
            msg = (
                f"{len(items)} TensorRT-LLM engine configuration file{'s' if len(items) > 1 else ''} of "
                f"{len(entries)} multi-node entr{'ies' if len(entries) > 1 else 'y'} not checked: check them where they are"
            )
            notes = [f"why: {why}", f"the files: {names}"]
            yield self.project_finding(Span(str(e.path), ref.line, 1, ref.line, 2), msg, notes=notes)
