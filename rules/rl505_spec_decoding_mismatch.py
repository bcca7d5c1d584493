from recipelint.lint.rulebase import Rule, int_value

SPEC_FLAGS = {"vllm": ("--speculative-config",), "sglang": ("--speculative-algorithm",)}
#: what differs between the points of one search-space row besides the concurrency
_PER_CONC = frozenset({"CONC", "EXP_NAME", "RESULT_FILENAME", "RUN_EVAL", "EVAL_ONLY"})
#: what a comment names when it documents that drafting is turned off on purpose
DOC_NAMES = (
    "no drafting",
    "without drafting",
    "drafting off",
    "not drafting",
    "no speculative",
    "without speculative",
    "speculative decoding off",
    "no spec decoding",
    "no mtp",
    "without mtp",
    "mtp off",
)


class SpecDecodingMismatch(Rule):
    """
    ## What it does
    Compares a master-config sweep point's `spec-decoding` with the launch: `mtp` or
    `draft_model` with no speculative configuration on the server (vLLM `--speculative-config`,
    SGLang `--speculative-algorithm`), or `none` with one.

    ## Why is this bad?
    Results are published under the config's label: an "MTP" point that runs without speculative
    decoding (or the reverse) reports numbers for a different setup, and comparisons across
    hardware and engines are wrong.

    A recipe may turn drafting off on purpose above (or below) a concurrency: the points of one
    search-space row that differ only in `CONC` then launch with the speculative configuration
    up to a threshold and without it past it.  That choice is read as such: the finding is a
    warning that says what it means (those points are labelled `mtp` but measured without
    drafting), and none at all when a comment documents it.

    ## Example
    ```yaml
    - { tp: 8, spec-decoding: mtp, conc-list: [8, 16] }
    ```
    ```bash
    vllm serve "$MODEL" --tensor-parallel-size "$TP"    # no --speculative-config
    ```

    ## Use instead
    ```bash
    vllm serve "$MODEL" --tensor-parallel-size "$TP" \\
        --speculative-config '{"method": "mtp", "num_speculative_tokens": 3}'
    ```

    ## Exceptions
    Only vLLM and SGLang launches from master-config points are judged; TRT-LLM and ATOM configure
    speculation in files or flags recipelint does not read yet.  Drafting turned off past a
    concurrency threshold is accepted when a comment names the choice (`--speculative-config`,
    "no drafting", "without speculative", "no MTP", ...) on the launch's lines, on the lines
    that pass the speculative configuration, above them or their block, or in the recipe's
    header; such a finding is shown only with `--show-documented`.
    """

    code = "RL505"
    name = "spec-decoding-mismatch"
    severity = "error"

    def check(self, ctx):
        points = ctx.config_points()
        rows = _rows(points)
        for pr in points:
            sd = str(pr.point.env.get("SPEC_DECODING", "none"))
            for lc in pr.launches:
                flags = SPEC_FLAGS.get(lc.engine)
                if not flags or not lc.complete:
                    continue
                has = any(lc.has(k) for k in flags)
                if sd in ("mtp", "draft_model") and not has:
                    gate = _conc_gate(rows.get(_row_key(pr)), lc.engine, flags)
                    if gate is not None:
                        yield self._gated(ctx, pr, lc, sd, flags, gate)
                        continue
                    msg = f"the sweep point sets spec-decoding: {sd} but the {lc.engine} launch has no {flags[0]}: pass it, or label the point none"
                    yield ctx.finding(lc.loc, msg, pr.point, key=f"missing|{sd}")
                elif sd == "none" and has:
                    f = next(lc.get(k) for k in flags if lc.has(k))
                    msg = f"the sweep point sets spec-decoding: none but the launch passes {f.name}: drop it there, or label the point"
                    yield ctx.finding(f.word.loc, msg, pr.point, key="extra")

    def _gated(self, ctx, pr, lc, sd, flags, gate):
        side, threshold, spec_flag = gate
        where = f"CONC ≤ {threshold}" if side == "above" else f"CONC ≥ {threshold}"
        msg = (
            f"the recipe turns drafting off {side} CONC={threshold}: in this search-space row it passes {flags[0]} "
            f"only at {where}, so the points {side} are labelled spec-decoding: {sd} but measured without "
            f"speculative decoding; document the choice in a comment, or label those points spec-decoding: none"
        )
        doc = ctx.documented([lc.loc, spec_flag.word.loc], (*flags, *DOC_NAMES))
        return ctx.finding(
            lc.loc,
            msg,
            pr.point,
            [(spec_flag.word.loc, f"{flags[0]} is passed here at {where}")],
            key=f"conc-gated|{sd}",
            severity="warning",
            documented=doc,
        )


def _row_key(pr):
    env = pr.point.env
    return (pr.point.config_key, tuple(sorted((k, str(v)) for k, v in env.items() if k not in _PER_CONC)))


def _rows(points) -> dict:
    """The config points grouped by search-space row: same entry, same environment but for the
    concurrency."""
    rows: dict = {}
    for pr in points:
        rows.setdefault(_row_key(pr), []).append(pr)
    return rows


def _conc_gate(row, engine, flags):
    """("above" | "below", threshold, a flag that passes the speculative config) when the row's
    points launch with the speculative configuration on one side of a concurrency and without it
    on the other, else None."""
    if not row:
        return None
    with_spec, without = [], []
    spec_flag = None
    for pr in row:
        conc = int_value(str(pr.point.env.get("CONC", "")))
        launches = [lc for lc in pr.launches if lc.engine == engine and lc.complete]
        if conc is None or not launches:
            continue
        passed = [lc.get(k) for lc in launches for k in flags if lc.has(k)]
        if passed and len(passed) >= len(launches):
            with_spec.append(conc)
            spec_flag = spec_flag or passed[0]
        elif not passed:
            without.append(conc)
        else:
            return None  # some launches of one point draft and others not: not a concurrency choice
    if not with_spec or not without or spec_flag is None:
        return None
    if min(without) > max(with_spec):
        return "above", max(with_spec), spec_flag
    if max(without) < min(with_spec):
        return "below", min(with_spec), spec_flag
    return None
