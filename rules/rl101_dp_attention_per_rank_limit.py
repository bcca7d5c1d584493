import re
from collections import Counter

from recipelint.bash.source import Loc
from recipelint.engines import facts
from recipelint.lint.findings import Fix
from recipelint.lint.rulebase import Rule, enclosing_statement, env_int, flag_int, statement_text, vllm_dp_size

#: ``NAME=`` (or ``NAME+=``) just before a value on its line: the variable a limit is assigned to
_ASSIGNED = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)\+?=[\"']?$")


class DpAttentionPerRankLimit(Rule):
    """
    ## What it does
    Checks vLLM launches that run several data-parallel engines (`--data-parallel-size N`,
    DP-attention) for per-engine limits sized for the whole sweep point: `--max-num-seqs`,
    `--max-cudagraph-capture-size` and the largest `cudagraph_capture_sizes` entry of
    `--compilation-config`, computed from `CONC` and at least `CONC`.  It is a warning when the
    recipe's family — the same recipe name with another hardware token in the same folder
    (`dsv4_fp4_mi355x_vllm_mtp.sh` → `dsv4_fp4_b200_vllm_mtp.sh`) — sizes `--max-num-seqs` per DP
    rank under DP-attention, and otherwise an info.

    ## Why is this bad?
    Under DP-attention every DP rank is an independent vLLM engine, and vLLM never divides
    `--max-num-seqs` or the cudagraph capture sizes by the DP size: `max_num_seqs` "applies per
    data-parallel rank" and "sizes the model runner (per-request buffers and CUDA graph
    capture)" (`vllm/config/scheduler.py`, `SchedulerConfig`, v0.33.0; `vllm/engine/arg_utils.py`
    passes the flag through unchanged).  A router spreads the sweep point's `CONC` sessions over
    the N engines.  A cap computed from the whole concurrency lets each rank admit all of them
    and sizes every rank's buffers and graphs for them.  When the family divides the cap by the
    DP size (`2*CONC/TP`), the two recipes benchmark different engine configurations at the
    same sweep point and their results are not comparable; the suggestion uses the family's
    own headroom (`2·CONC/DP`, not `CONC/DP`).

    ## Example
    ```bash
    PARALLEL_ARGS=(--tensor-parallel-size 1 --data-parallel-size "$TP")
    MAX_NUM_SEQS=$((2 * CONC))
    vllm serve "$MODEL" "${PARALLEL_ARGS[@]}" --max-num-seqs "$MAX_NUM_SEQS"
    ```

    ## Use instead
    ```bash
    if [ "$DP_ATTENTION" = "true" ]; then
        MAX_NUM_SEQS=$((2 * CONC / TP))
    else
        MAX_NUM_SEQS=$((2 * CONC))
    fi
    ```

    ## Fix
    Unsafe (`--fix --unsafe-fixes`: it chooses the family's sizing): when a sibling sizes the same
    variable per DP rank in an `if … else … fi`, this recipe's one-line assignment is replaced by
    that statement (re-indented); when the assignment already sits in a branch on the sibling's
    own condition, by the sibling's assignment there.  `--diff` shows it first.

    ## Exceptions
    Only sweep points whose `CONC` is known are judged, and only values computed from `CONC`
    (a constant ceiling such as `--max-cudagraph-capture-size 2048` is not sized for the sweep
    point).  Capture sizes count tokens: with speculative decoding a capture size up to
    `per-rank seqs × (1 + num_speculative_tokens)` is expected and not reported.  No claim is
    made that the larger graphs go unused: in vLLM v0.33.0 a `FULL_DECODE_ONLY` engine does not
    capture decode sizes above `max_num_seqs × (1 + num_speculative_tokens)`, and piecewise
    graphs also serve mixed prefill batches (`vllm/v1/cudagraph_dispatcher.py`,
    `initialize_cudagraph_keys`).  A choice documented by a comment naming the flag or its
    variable (on the line, above the assignment or its block, or in the header) is accepted.
    SGLang's `--max-running-requests` is the opposite case (global, divided by SGLang itself):
    see RL102.
    """

    code = "RL101"
    name = "dp-attention-per-rank-limit"
    severity = "warning"

    @staticmethod
    def _from_conc(ctx, loc) -> bool:
        """Whether the value was computed from the sweep point's concurrency (a constant
        ceiling such as 2048 is not sized for the sweep point)."""
        return loc is not None and "CONC" in ctx.source_text(loc)

    @staticmethod
    def _variable(ctx, loc) -> str | None:
        """The variable the value at ``loc`` is assigned to on its line (``MAX_NUM_SEQS=...``)."""
        if loc is None:
            return None
        real = loc.real()
        line = ctx.line_text(loc)
        m = _ASSIGNED.search(line[: max(0, real.span.col - 1)].rstrip("$(").rstrip())
        return m.group(1) if m else None

    @staticmethod
    def _extra_tokens(lc) -> int:
        spec = lc.get("--speculative-config")
        if spec is not None and spec.json is not None and spec.json.kind == "object":
            n = spec.json.get("num_speculative_tokens")
            return (n.integer or 0) if n is not None and isinstance(n.value, int) else 0
        return 0

    def _family_headroom(self, ctx):
        """(k, evidence) when the family sizes ``--max-num-seqs`` per DP rank as ``k·CONC/DP``
        under DP-attention: k from the family's own values, evidence = [(file name, value loc,
        source text)]; else (None, [])."""
        cached = ctx.__dict__.get("_rl101_family")
        if cached is not None:
            return cached
        ks: Counter = Counter()
        evidence: list = []
        for fam in ctx.project.family(ctx.result):
            seen = False
            for pr in fam.points:
                conc = env_int(pr.point, "CONC")
                if not conc or str(pr.point.env.get("EVAL_ONLY", "false")).lower() == "true":
                    continue
                for lc in pr.launches:
                    dp = vllm_dp_size(lc) if lc.engine == "vllm" else None
                    f = lc.get("--max-num-seqs")
                    v = flag_int(lc, "--max-num-seqs")
                    if not dp or dp <= 1 or f is None or v is None or f.value_loc is None or conc < dp:
                        continue
                    text = ctx.source_text(f.value_loc)
                    if "CONC" not in text or not (v < conc or "/" in text):
                        continue  # not computed from CONC, or not divided by the DP size
                    k = v * dp / conc
                    if abs(k - round(k)) > 1e-9 or round(k) < 1:
                        continue
                    ks[round(k)] += 1
                    if not seen:
                        evidence.append((fam.path.name, f.value_loc, text.strip(), fam))
                        seen = True
        out = (ks.most_common(1)[0][0], evidence) if ks else (None, [])
        ctx.__dict__["_rl101_family"] = out
        return out

    def check(self, ctx):
        for use in ctx.uses("vllm"):
            lc, point = use.launch, use.point
            dp = vllm_dp_size(lc)
            conc = env_int(point, "CONC")
            if not dp or dp <= 1 or not conc:
                continue
            extra_tokens = self._extra_tokens(lc)
            by_origin: dict = {}
            for key in facts.load("engine_defaults")["vllm"]["per_engine_limits"]:
                f = lc.get(key)
                v = flag_int(lc, key)
                limit = conc * (1 + extra_tokens) if key == "--max-cudagraph-capture-size" else conc
                if f is None or v is None or v < limit or not self._from_conc(ctx, f.value_loc):
                    continue
                origin = f.value_loc
                by_origin.setdefault((origin.real().source.path, origin.real().start), (origin, []))[1].append((f, v))
            cc = lc.get("--compilation-config")
            if cc is not None and cc.json is not None and cc.json.kind == "object":
                sizes = cc.json.get("cudagraph_capture_sizes")
                if (
                    sizes is not None
                    and sizes.kind == "array"
                    and sizes.elements
                    and all(e.integer is not None for e in sizes.elements)
                ):
                    largest = max(sizes.elements, key=lambda e: e.integer)
                    # a computed list (its entries come from expansions) rather than a literal ladder
                    computed = ctx.source_text(largest.loc).lstrip('"').startswith("$") if largest.loc else False
                    if largest.integer >= conc * (1 + extra_tokens) and (computed or self._from_conc(ctx, largest.loc)):
                        origin = largest.loc or cc.value_loc
                        by_origin.setdefault((origin.real().source.path, origin.real().start), (origin, []))[1].append(
                            (cc, largest.integer)
                        )
            for origin, items in by_origin.values():
                finding = self._finding(ctx, use, dp, conc, extra_tokens, origin, items)
                if finding is not None:
                    yield finding

    def _finding(self, ctx, use, dp, conc, extra_tokens, origin, items):
        lc, point = use.launch, use.point
        label = {"--compilation-config": "`cudagraph_capture_sizes`"}
        names = " and ".join(label.get(f.name, f"`{f.name}`") for f, _ in items)
        v = items[0][1]
        seqs = any(f.key == "--max-num-seqs" for f, _ in items)
        k, evidence = self._family_headroom(ctx)
        if k is not None:
            # the family's headroom, per rank: seqs, or tokens for a capture size (× 1 + draft tokens)
            per_seq = 1 if seqs else 1 + extra_tokens
            suggested = max(1, k * conc * per_seq // dp)
            shown = f"{k * per_seq}·CONC/DP" if per_seq == 1 else f"{k}·(1+{extra_tokens})·CONC/DP"
        else:
            suggested = -(-v // dp)  # the recipe's own multiplier, per rank (at least one request)
            shown = f"{v // conc}·CONC/DP" if v % conc == 0 else "CONC/DP-scaled"  # (exact: v may be huge)
        if suggested >= v:
            return None  # already at or below the per-rank size (a cap of 1 at CONC=1 is the smallest)
        verb = "are" if len(items) > 1 else "is"
        it = "them" if len(items) > 1 else "it"
        if seqs:
            load = "each rank may admit the whole sweep point's load"
            sized = f"{load} and sizes its request buffers and CUDA graphs for it"
        else:
            load = sized = "each rank captures CUDA graphs for the whole sweep point's batch"
        head = f"{names} {verb} {v} on each of the {dp} DP engines at CONC={conc}"
        applies = f"vLLM applies {it} per engine"
        related = [(f.word.loc, f"{f.name} is passed here") for f, _ in items]
        dpf = lc.get("--data-parallel-size")
        if dpf is not None:
            related.append((dpf.word.loc, "the data-parallel size is set here"))
        fix = None
        if k is not None:
            files = ", ".join(e[0] for e in evidence)
            how = evidence[0][2]
            what = "it" if names == "`--max-num-seqs`" else "`--max-num-seqs`"
            msg = f"{head}, not per DP rank: use {shown} (= {suggested} here), as {evidence[0][0]} does"
            notes = [
                f"{applies}: {sized}",
                f"the family sizes {what} per DP rank ({files}: `{how}`), so the results are not comparable",
            ]
            related += [(e[1], f"{e[0]} sizes it per DP rank here") for e in evidence]
            severity = None
            fix = self._family_fix(ctx, origin, evidence[0])
        else:
            msg = f"{head}, not per DP rank: size it ≈ {suggested} ({shown}), or document the choice in a comment"
            notes = [f"{applies}: {load}", "no recipe of its family sizes it per rank to compare with"]
            severity = "info"
        # the flag (as written and normalised) or the capture-size key — not `--compilation-config`,
        # which a comment names for any of its keys
        doc_names = [n for f, _ in items for n in ((f.name, f.key) if f.key != "--compilation-config" else ())]
        doc_names += ["cudagraph_capture_sizes"] if any(f.key == "--compilation-config" for f, _ in items) else []
        var = self._variable(ctx, origin)
        if var:
            doc_names.append(var)
        documented = ctx.documented([origin, *(f.word.loc for f, _ in items)], doc_names)
        return ctx.finding(origin, msg, point, related, key=names, severity=severity, documented=documented, fix=fix, notes=notes)

    def _family_fix(self, ctx, origin, evidence):
        """The family's own form, as an unsafe fix: this recipe's one-line assignment of the value
        (``MAX_NUM_SEQS=$((2 * CONC))``) replaced by the sibling's statement that sizes the same
        variable per DP rank (its `if … else … fi`), re-indented; None when the shapes differ."""
        name, loc, _, sib = evidence
        var = self._variable(ctx, origin)
        real = origin.real()
        if not var or getattr(real.source, "path", None) != ctx.result.source.path:
            return None
        line = real.span.line
        mine = ctx.result.source.line_text(line)
        here = enclosing_statement(ctx.result, line)
        if not mine.strip().startswith(f"{var}=") or (here is not None and here[0] == line):
            return None
        sline = loc.real().span.line
        enc = enclosing_statement(sib, sline)
        if enc is None or enc[1] - enc[0] > 12:
            return None
        block = statement_text(sib, *enc)
        if not block.lstrip().startswith("if ") or f"{var}=" not in block:
            return None
        import textwrap

        indent = mine[: len(mine) - len(mine.lstrip())]
        if here is None:  # a statement of its own: the sibling's `if … fi` in its place
            new = textwrap.indent(textwrap.dedent(block), indent).rstrip("\n")
        elif ctx.result.source.line_text(here[0]).strip() == sib.source.line_text(enc[0]).strip():
            # already in a branch on the sibling's own condition: the sibling's assignment there
            theirs = sib.source.line_text(sline).strip()
            if not theirs.startswith(f"{var}="):
                return None
            new = indent + theirs
        else:
            return None
        src = ctx.result.source
        start = src.line_start(line)
        edit = ctx.replace(Loc(src, start, start + len(mine.encode())), new)
        if edit is None:
            return None
        return Fix(f"size `{var}` per DP rank as {name} does (its lines {enc[0]}–{enc[1]})", [edit], "unsafe", follows=name)
