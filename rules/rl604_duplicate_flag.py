from recipelint.engines.catalog import expand
from recipelint.lint.rulebase import Rule


class DuplicateFlag(Rule):
    """
    ## What it does
    Reports a flag given twice on one launch with different values (also through abbreviations
    or `_` spellings: `--max-num-seq 5 ... --max_num_seqs 7`).

    ## Why is this bad?
    argparse keeps the last value silently (vLLM only logs "Found duplicate keys").  When a flag
    bundle (`$PARALLEL_ARGS`, an array splice) repeats a flag written inline, one of the two values
    the author chose is ignored — often the one that was meant to apply to this sweep point.

    ## Example
    ```bash
    EXTRA_ARGS=(--max-num-seqs 256)
    vllm serve "$MODEL" --max-num-seqs "$MAX_NUM_SEQS" "${EXTRA_ARGS[@]}"
    ```

    ## Use instead
    Pass the flag once.

    The same for a key written twice in one mapping of a TensorRT-LLM options file
    (`trtllm-serve --config FILE`): PyYAML, which the server reads it with, keeps the later one.

    ## Exceptions
    Repeats with the same value are not reported; neither are flags without a value.
    """

    code = "RL604"
    name = "duplicate-flag"
    severity = "warning"
    sweep_independent = True

    def check(self, ctx):
        for use in ctx.uses():
            lc = use.launch
            ev = use.engine_version()
            seen: dict = {}
            for f in lc.flags:
                if f.value is None or f.subkey is not None:
                    continue
                full = f.key
                if ev is not None and f.key.startswith("--"):
                    full = expand(lc.engine, f.key, ev.versions)[0] or f.key
                seen.setdefault(full, []).append(f)
            for full, occ in seen.items():
                texts = [o.text for o in occ]
                if len(occ) < 2 or None in texts or len(set(texts)) == 1:
                    continue
                last = occ[-1]
                for o in occ[:-1]:
                    if o.text == last.text:
                        continue
                    msg = (
                        f"`{full}` is given more than once: {_shown(o.text)} here is overridden by {_shown(last.text)} "
                        f"at line {last.word.loc.real().span.line} (the last one wins): keep one"
                    )
                    yield ctx.finding(
                        o.word.loc,
                        msg,
                        use.point,
                        [(last.word.loc, f"{last.name} {_shown(last.text)} wins")],
                        key=f"{full}|{o.text}|{last.text}",
                    )
            if lc.engine == "trtllm":
                yield from self._options_file(ctx, use)

    @staticmethod
    def _options_file(ctx, use):
        """A key written twice in one mapping of a TensorRT-LLM options file (a block appended
        with ``cat >> cfg.yml``, a copied line): PyYAML keeps the later value, silently."""
        opts = ctx.llm_api(use).options
        if opts is None or not opts.judged:
            return
        todo = [(opts.root, "")]
        while todo:
            node, prefix = todo.pop()
            seen: dict = {}
            for k, v in node.items:
                if k.value is None:
                    continue
                seen.setdefault(k.value, []).append(k)
                if v.kind == "object":
                    todo.append((v, f"{prefix}{k.value}."))
            for name, keys in seen.items():
                if len(keys) < 2:
                    continue
                last = keys[-1]
                line = last.loc.real().span.line if last.loc is not None else "?"
                for k in keys[:-1]:
                    msg = f"`{prefix}{name}` is given twice in the options file: the one at line {line} wins (YAML keeps the last); keep one"
                    yield ctx.finding(k.loc, msg, use.point, [(last.loc, "this value wins")], key=f"llm_api|{prefix}{name}")


def _shown(text: str) -> str:
    """A flag value in a message: quoted, so that an empty one is visible."""
    return f"`{text}`" if text else "an empty value"
