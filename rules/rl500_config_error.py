from recipelint.lint.rulebase import Rule


class ConfigError(Rule):
    """
    ## What it does
    Reports a master config (`configs/*-master.yaml`) or runner file that cannot be read: invalid
    YAML, a missing file named with `--config`, an entry whose search space cannot be expanded
    (a missing `tp`, a `conc-start` without `conc-end`), or one with more sweep points than
    recipelint follows (1,024 per entry, 8,192 per run; InferenceX's largest entry has 42): the
    points beyond are not checked, and the finding says how many.

    ## Why is this bad?
    The benchmark launcher reads the same file: what recipelint cannot expand, the sweep
    generator rejects too, and no recipe of that file is benchmarked.  recipelint also loses the
    sweep points it needs to judge the recipes.

    ## Example
    ```yaml
    dsv4-fp4-b200-vllm-agentic:
      scenarios:
        agentic-coding:
        - search-space:
          - { ep: 8, conc-list: [8, 16] }   # no tp
    ```

    ## Use instead
    ```yaml
          - { tp: 8, ep: 8, conc-list: [8, 16] }
    ```

    ## Exceptions
    None: a config recipelint cannot read is reported, and the recipes fall back to the default
    environment matrix.
    """

    code = "RL500"
    name = "config-error"
    severity = "error"

    def check_project(self, project):
        cs = project.configs
        for p in getattr(cs, "problems", []):
            yield self.project_finding(p.span, p.message + ": correct the config here (its entries are not run until it reads)")
