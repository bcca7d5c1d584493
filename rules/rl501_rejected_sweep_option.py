import re

from recipelint.lint.rulebase import Rule


def mentioned_values(text: str, env: dict) -> str:
    names = []
    for m in re.finditer(r"\$\{?([A-Za-z_][A-Za-z0-9_]*)", text):
        if m.group(1) not in names:
            names.append(m.group(1))
    shown = [f"{n}={env[n]}" for n in names if isinstance(env.get(n), str)]
    return " ".join(shown)


class RejectedSweepOption(Rule):
    """
    ## What it does
    Reports a master-config sweep point whose option the recipe rejects: the point reaches the
    `*) ... exit 1` arm of a `case` over that option (an unsupported `KV_OFFLOAD_BACKEND`, say),
    or a KV-offload check of the helper library that stops the run.

    ## Why is this bad?
    The config promises a benchmark the recipe cannot run: every job for that point allocates a
    node, starts the container and exits with an error, and the sweep has a hole where the
    results should be.

    ## Example
    ```yaml
    - { tp: 8, kv-offloading: dram, kv-offload-backend: { name: mooncake }, conc-list: [8, 16] }
    ```
    ```bash
    case "$KV_OFFLOAD_BACKEND" in
        vllm-simple) ... ;;
        *) echo "unsupported KV_OFFLOAD_BACKEND" >&2; exit 1 ;;
    esac
    ```

    ## Use instead
    Add the backend's arm to the recipe, or drop the point from the config.

    ## Exceptions
    Only points from a master config are judged (the default matrix's are not real jobs), and only
    when the exit does not depend on anything recipelint could not compute.
    """

    code = "RL501"
    name = "rejected-sweep-option"
    severity = "error"

    def check(self, ctx):
        for pr, path in ctx.stopped_points():
            kind, text = ctx.classify_stop(path)
            if kind != "option":
                continue
            ex = path.exit
            values = mentioned_values(text, pr.point.env) or " ".join(
                f"{k}={pr.point.env.get(k)}" for k in ("KV_OFFLOADING", "KV_OFFLOAD_BACKEND") if pr.point.env.get(k)
            )
            why = f" (“{ex.message}”)" if ex.message else ""
            where = f"`{text}`" if not text.startswith("require") else f"`{text}`"
            msg = (
                f"the recipe rejects the sweep point's {values or 'options'}: {where} exits {ex.code}{why}; "
                "support the option in the recipe, or drop it from the config entry"
            )
            related = [] if ctx.exit_anchor(ex) is ex.loc else [(ex.loc, "the exit is here")]
            yield ctx.finding(ctx.exit_anchor(ex), msg, pr.point, related, key=f"{text}|{values}")
