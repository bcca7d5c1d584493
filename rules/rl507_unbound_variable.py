import re
from pathlib import Path

from recipelint.evaluate.state import BACKGROUND_JOB, ENVIRONMENT_NAMES, UNKNOWN_NAMES
from recipelint.lint.rulebase import Rule, unbound_name, uniq

#: the assignment of a name in the recipe's text (`X=`, `X+=`, `export X=`, `local X=`, `read ... X`)
_ASSIGN = r"(?m)(?:^|[\s;&|(])(?:(?:export|local|declare|typeset|readonly)(?:\s+-\w+)*\s+)?{name}\+?="
#: the describe() keys a group of sweep points is summarised by
_SHOWN = ("TP", "EP_SIZE", "DP_ATTENTION", "CONC", "KV_OFFLOADING", "KV_OFFLOAD_BACKEND", "SPEC_DECODING")


class UnboundVariable(Rule):
    """
    ## What it does
    Reports a read of a variable that is not set on the sweep point's path while `set -u`
    (`set -o nounset`) is on: no statement the path runs assigns it, the sweep point's
    environment does not have it, and no sourced file exports it.  Bash stops the script there
    with `NAME: unbound variable` (status 1) — or, in a background job (`vllm serve ... &`), ends
    that job before its command runs.

    ## Why is this bad?
    The job dies at that line, often after the node was allocated and the image pulled, and
    sometimes after the server loaded the model: a variable left over from an older version of
    the recipe, or set only in the branch of another KV-offload backend, takes down every job of
    the sweep points that reach the read.  The log shows `unbound variable`, not the recipe's own
    error message.  In a background job the server never starts and the script waits for it
    until its timeout.

    ## Example
    ```bash
    set -euo pipefail
    case "$KV_OFFLOAD_BACKEND" in
        vllm-simple)
            echo "offload: $CPU_BYTES_PER_RANK B/rank x ${SIMPLE_RANKS} ranks"   # set nowhere
            ;;
    esac
    ```

    ## Use instead
    Set the variable on that path, read the one that is set (`${TP}`), or give the read a
    default: `${SIMPLE_RANKS:-}`, `${SIMPLE_RANKS:-$TP}`.

    ## Exceptions
    Only points from a master config are judged.  Not reported: reads bash allows under
    `set -u` (`${X:-}`, `${X-}`, `${X:+w}`, `${X+w}`, `${X:=w}`, `$@`, `$*`, `${A[@]}`,
    `[[ -v X ]]`); a read in a command substitution or a subshell (the status they return is
    what stops the script, under `set -e`); a variable whose value recipelint cannot know (read
    from a file or a command's output) or that a statement recipelint cannot follow may set
    (`eval "$(cmd)"`, `declare "$k=$v"`, `export $(cat env)`, a sourced file it cannot find); a
    read that only some of the point's paths reach, on a condition recipelint could not decide;
    names the scheduler or the container sets (`SLURM_*`, `CUDA_VISIBLE_DEVICES`,
    `PYTHONPATH`, ...) and names a runner's launch script (`runners/*.sh`) exports.  A variable
    other sweep points of the recipe set but this one does not is RL503.
    """

    code = "RL507"
    name = "unbound-variable"
    severity = "error"

    def check(self, ctx):
        sweep = ctx.sweep_names()
        exported = ctx.project.runner_exports()
        sites: dict = {}
        for pr in ctx.config_points():
            stops = [_stops(p) for p in pr.paths]
            for path, found in zip(pr.paths, stops):
                for name, loc, ex, set_u in found:
                    if name in sweep or name in exported or ENVIRONMENT_NAMES.fullmatch(name):
                        continue
                    real = loc.real()
                    if ex is None and not _same(real.source.path, ctx.path):
                        continue  # (a background job's read in a sourced library)
                    at = (real.source.path, real.start)
                    # certain: a path without assumptions stops here, or every path of the point does
                    if path.cond and not all(any((n, _at(lc)) == (name, at) for n, lc, _, _ in f) for f in stops):
                        continue
                    site = sites.setdefault(
                        at, {"name": name, "loc": loc, "exit": ex, "set_u": set_u, "points": [], "guard": _guard_of(path, real)}
                    )
                    if pr.point not in site["points"]:
                        site["points"].append(pr.point)
        for site in sites.values():
            yield self._finding(ctx, site)

    def _finding(self, ctx, site):
        name, loc, points = site["name"], site["loc"], site["points"]
        anchor = loc if site["exit"] is None else ctx.exit_anchor(site["exit"])
        shown = f"${name}" if name.isdigit() else name
        where = ""
        related = []
        if site["set_u"] is not None:
            su = site["set_u"].real()
            same = _same(su.source.path, ctx.path)
            where = f" (line {su.span.line} sets -u)" if same else f" (`set -u` at {Path(su.source.path).name}:{su.span.line})"
            related.append((site["set_u"], "`set -u` is turned on here"))
        if anchor is not loc:
            related.append((loc, f"`{shown}` is read here"))
        sets = _assigned_at(ctx, name)
        also = (
            f" (the recipe sets it only at line {', '.join(map(str, sets[:3]))}, which this path does not run first)"
            if sets
            else ""
        )
        if site["exit"] is None:
            what = f"bash ends the background job with '{name}: unbound variable' (its command never runs) on"
        else:
            what = f"bash stops the script with '{name}: unbound variable' on"
        fix = f"set it on this path or use `${{{name}:-}}`"
        if site["guard"]:
            # (`*) echo "unsupported $OLD_NAME" >&2; exit 1`: the point was being rejected anyway)
            also += f", in the exit branch of `{site['guard']}`, which rejects these points anyway"
            fix = f"read a variable that is set in the message (`${{{name}:-}}` at least)"
        msg = f"`{shown}` is unset here under `set -u`: {fix}"
        notes = [f"{what} {_describe(points)}{also}", where.strip(" ()")]
        return ctx.finding(anchor, msg, points, related, key=name, notes=notes)


def _stops(path) -> list:
    """(name, read Loc, the Exit — None for a background job —, `set -u` Loc or None) of each stop of the path on an
    unset name: background jobs (notes) and the script's own exit; none after a statement that
    may set names recipelint does not know."""
    out: list = []
    for loc, msg in path.notes:
        if msg == UNKNOWN_NAMES:
            return out
        if msg.startswith(BACKGROUND_JOB) and loc is not None:
            name = unbound_name(_Reason(msg[len(BACKGROUND_JOB) :]))
            if name is not None:
                out.append((name, loc, None, None))
    name = unbound_name(path.exit)
    if name is not None:
        out.append((name, path.exit.loc, path.exit, path.exit.nounset))
    return out


class _Reason:
    __slots__ = ("reason",)

    def __init__(self, reason: str) -> None:
        self.reason = reason


def _guard_of(path, read) -> str:
    """The text of the exit guard the path took whose branch holds the read (a `case` arm
    `*) echo ... >&2; exit 1`), or ""."""
    for g in path.guards:
        gl = g.loc.real()
        if g.fired and gl.source.path == read.source.path and gl.start <= read.start < gl.end:
            return g.text
    return ""


def _at(loc) -> tuple:
    real = loc.real()
    return (real.source.path, real.start)


def _describe(points) -> str:
    keys = uniq(p.config_key for p in points)
    entry = ", ".join(f"`{k}`" for k in keys[:3]) + (", ..." if len(keys) > 3 else "")
    if len(points) == 1:
        return f"sweep point {points[0].describe()} ({entry})"
    common = [
        f"{k}={points[0].env[k]}"
        for k in _SHOWN
        if isinstance(points[0].env.get(k), str) and points[0].env[k] and all(p.env.get(k) == points[0].env[k] for p in points)
    ]
    return f"{len(points)} sweep points of {entry}" + (f" ({' '.join(common)})" if common else "")


def _assigned_at(ctx, name: str) -> list[int]:
    """Lines of the recipe that assign ``name`` (its text: a hint for the message)."""
    src = ctx.result.source
    if src is None or not re.fullmatch(r"[A-Za-z_]\w*", name):
        return []
    text = src.data.decode("utf-8", "replace")
    out = []
    for m in re.finditer(_ASSIGN.format(name=re.escape(name)), text):
        line = text.count("\n", 0, m.start() + (1 if text[m.start()].isspace() else 0)) + 1
        if not src.line_text(line).lstrip().startswith("#") and line not in out:
            out.append(line)
    return out


def _same(a: str, b: Path) -> bool:
    try:
        return Path(a).resolve() == b.resolve()
    except OSError:
        return False
