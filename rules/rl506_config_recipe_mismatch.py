from recipelint.bash.source import Span
from recipelint.lint.findings import Finding
from recipelint.lint.rulebase import Rule


class ConfigRecipeMismatch(Rule):
    """
    ## What it does
    Reports a master-config entry whose recipe does not exist (error), and a recipe under the
    benchmark tree that no config entry runs (info).

    ## Why is this bad?
    The launcher builds the recipe's name from the entry (model prefix, precision, the runner's
    GPU, framework, `_mtp` for MTP); a renamed or deleted recipe makes every job of the entry fail
    with "No such file".  A recipe no entry reaches is dead code that still has to be maintained,
    or a recipe whose config entry was lost.

    ## Example
    ```yaml
    qwen3.5-fp8-h100-sglang-agentic:     # runs agentic/qwen3.5_fp8_h100.sh, which was deleted
      model-prefix: qwen3.5
      precision: fp8
      runner: cluster:h100-dgxc
    ```

    ## Use instead
    Restore the recipe, point the entry at an existing one, or delete the entry.

    ## Exceptions
    Multi-node entries (which run through their own orchestration) are not mapped.  Only recipes
    in the folders the launcher reads (`agentic/`, `fixed_seq_len/`) are reported as unreferenced
    (not `deprecated/` or tool-specific folders), and only if they launch a server.
    """

    code = "RL506"
    name = "config-recipe-mismatch"
    severity = "error"
    sweep_independent = True

    def check_project(self, project):
        for e in project.entries():
            for missing in e.missing:
                if e.scripts:
                    continue  # another runner of the entry found its recipe
                msg = f"config entry `{e.key}` runs `{missing}`, which does not exist"
                yield self.project_finding(Span(str(e.path), e.line, 1, e.line, len(e.key) + 1), msg)

    def check(self, ctx):
        cs = ctx.project.configs
        if not getattr(cs, "found", False) or ctx.config_points() or not ctx.result.launches:
            return
        from recipelint.engines import facts

        # only recipes where the launcher looks for them (benchmarks/single_node/<scenario dir>/)
        dirs = {d.strip("/") for d in facts.load("inferencex")["scenario_dirs"].values()}
        if ctx.result.path.resolve().parent.name not in dirs:
            return
        yield Finding(
            self.code, self.name, "info", "no master-config entry runs this recipe", Span(str(ctx.result.path), 1, 1, 1, 1)
        )
