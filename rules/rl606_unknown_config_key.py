from recipelint.engines import llmapi
from recipelint.engines.catalog import catalogued_from, describe_lifetime, json_keys
from recipelint.lint.findings import span_of
from recipelint.lint.rulebase import Rule, closest


class UnknownConfigKey(Rule):
    """
    ## What it does
    Reports a top-level key of a vLLM JSON config flag — `--attention-config`,
    `--compilation-config`, `--speculative-config`, `--kv-transfer-config`, or their dotted
    `--x-config.key` forms — that the config class does not have at the vLLM version the sweep
    point runs.

    ## Why is this bad?
    These configs are strict (`extra="forbid"`): an unknown key is a startup error.  Keys come and
    go between releases — `use_fp4_indexer_cache` of `--attention-config` exists through 0.29.0 and
    is gone in 0.30.0 — so a recipe that works on one image fails on the next.  The message
    gives a key's lifetime when other releases have it ("was removed in vLLM 0.30.0 (last in
    0.29.0)"), from the engine's history.

    ## Example
    ```bash
    vllm serve "$MODEL" --attention-config '{"backend": "FLASHINFER_MLA", "use_fp4_indexer_cache": true}'
    ```
    on vLLM 0.33.0.

    ## Use instead
    Drop the key, or pin the image the key exists in.

    For TensorRT-LLM, the keys of the LLM-API options file (`trtllm-serve --config FILE` /
    `--extra_llm_api_options FILE`, usually a here-document the recipe writes) at every level,
    against the pydantic models of `tensorrt_llm/llmapi/llm_args.py` (`TorchLlmArgs` and the
    models its fields take: `KvCacheConfig`, `CudaGraphConfig`, the speculative configs picked by
    `decoding_type`, ...; `rules/data/trtllm_llm_args.yaml`, with the commit it was read at).
    They forbid extra keys: an unknown or misplaced key stops the server at startup
    (`Extra inputs are not permitted`).  A key that is an older or newer spelling of one the models
    have (`speculative_config.num_nextn_predict_layers` → `max_draft_len`) is an info naming the
    releases that take each, since the release an image runs is not known exactly.  The same for
    the multi-node engine configurations a master-config item names (`CONFIG_FILE=`: srt-slurm
    recipes, `backend.trtllm_config.<role>`), read where they are in the tree or where a runner
    launcher copies them from.

    ## Exceptions
    Unlike these four, `kv_connector_extra_config` (inside `--kv-transfer-config`) is free-form:
    see RL302.  vLLM 0.8's pydantic configs ignore unknown keys: not judged.  Versions as in RL601.
    """

    code = "RL606"
    name = "unknown-config-key"
    severity = "error"

    def check(self, ctx):
        for use in ctx.uses("trtllm"):
            yield from self._trtllm(ctx, use)
        for use in ctx.uses("vllm"):
            lc = use.launch
            ev = use.engine_version("vllm")
            if ev is None:
                continue
            for f in lc.flags:
                keys = json_keys("vllm", f.base, ev.versions)
                if keys is None:
                    continue
                if f.subkey is not None:
                    items = [(f.subkey.split(".")[0], f.word.loc)]
                elif f.json is not None and f.json.kind == "object":
                    items = [(k.value, k.loc) for k, _ in f.json.items if k.value is not None]
                else:
                    continue
                for key, loc in items:
                    if key in keys:
                        continue
                    life = describe_lifetime("vllm", key, ev.versions, kind="json:" + f.base)
                    if life is None:
                        hint = ctx.did_you_mean(key, keys)
                        msg = f"`{f.base}` has no key `{key}` in {ev.short}: drop it{hint}"
                        notes = ["vLLM stops at startup (unexpected keyword)"]
                    else:
                        msg = f"`{f.base}` key `{key}` is not in {ev.short}: drop it, or run a release that has it"
                        notes = [f"`{key}` {life}", "vLLM stops at startup (unexpected keyword)"]
                    notes.append(f"{ev.short}: {ev.provenance}" if ev.provenance else "")
                    if ev.any_release:
                        # no image: no catalogued release has the key (older ones are not catalogued)
                        first = catalogued_from("vllm", "json:" + f.base) or ev.versions[0]
                        notes.append(f"no release from {first} on has it; older releases are not catalogued")
                        yield ctx.finding(loc, msg, use.point, key=f"{f.base}|{key}", severity="warning", notes=notes)
                        continue
                    yield ctx.finding(loc, msg, use.point, key=f"{f.base}|{key}", notes=notes)

    def _trtllm(self, ctx, use):
        opts = ctx.llm_api(use).options
        if opts is None or not opts.judged:
            return
        passed = [(opts.flag.word.loc, f"the options file is passed here (`{opts.flag.name.split('=', 1)[0]}`)")]
        release = llmapi.image_release(use.point)
        for loc, msg, severity, key, notes in verdicts(llmapi.catalog().check(opts.root), release, ctx.did_you_mean):
            yield ctx.finding(loc, msg, use.point, related=passed, key=key, severity=severity, notes=notes)

    def check_project(self, project):
        """The LLM-API options of the multi-node engine configurations the master config's
        entries name (`CONFIG_FILE=…`: srt-slurm recipes' `backend.trtllm_config.<role>`)."""
        for cfg in project.engine_configs():
            for role, mapping in cfg.roles.items():
                for loc, msg, severity, _, notes in verdicts(
                    llmapi.catalog().check(mapping), cfg.release, _did_you_mean, f"{role}."
                ):
                    yield self.project_finding(span_of(loc), msg, cfg.related(), severity, notes=notes)


def _did_you_mean(word, candidates) -> str:
    close = closest(word, tuple(sorted(candidates)), 0.75)
    return f"; did you mean `{close}`?" if close else ""


def verdicts(problems, release, did_you_mean, prefix: str = ""):
    """(location, message, severity, key, notes) of each key problem that is RL606's: a key no model of
    the mapping has — an error when it is a misspelling (a close key) or misplaced (the key of
    another mapping), a warning otherwise (a newer or older release may have it); a key of other
    releases (``renames``): judged by the image's release when the change is pinned to one."""
    cat = llmapi.catalog()
    for p in problems:
        if p.kind in ("type", "deprecated"):
            continue  # (RL608, RL610)
        key = p.node.value
        path = prefix + p.path
        where = " / ".join(f"`{m}`" for m in p.models)
        fkey = f"llm_api|{path}"
        if p.kind == "renamed":
            r = p.rename or {}
            head = f"`{path}` {r.get('note', 'is a key of other releases')}"
            first = r.get("changed_in")
            if release and first:
                if llmapi.at_or_after(release, str(first)):
                    msg = f"{head}: the image's TensorRT-LLM {release} stops at startup on it; use the new key"
                    yield p.node.loc, msg, "warning", fkey, [f"changed in {first}"]
                else:
                    msg = f"{head}: right for the image's TensorRT-LLM {release}; switch when the image moves"
                    yield p.node.loc, msg, "info", fkey, [f"releases from {first} on stop at startup on it"]
                continue
            scope = r.get("scope")
            yield p.node.loc, f"{head}: pin the release the image runs", "info", fkey, [str(scope)] if scope else []
            continue
        hint = did_you_mean(key, p.allowed)
        stops = f"TensorRT-LLM stops at startup (`Extra inputs are not permitted`; {cat.source})"
        if p.kind == "ignored":
            msg = f"`{path}`: {where} has no key `{key}`, so the setting has no effect: drop it{hint}"
            yield p.node.loc, msg, "warning", fkey, [f"the model ignores unknown keys ({cat.source})"]
            continue
        parent = p.path.rpartition(".")[0]
        elsewhere = [x for x in cat.places(key) if x != parent]
        if elsewhere:
            at = "the top level" if elsewhere[0] == "" else f"`{elsewhere[0]}`"
            msg = f"`{path}`: `{key}` belongs at {at}, not under `{parent or 'the top level'}`: move it"
            yield p.node.loc, msg, "error", fkey, [f"{where} has no such key: {stops}"]
            continue
        if hint:
            msg = f"`{path}`: {where} has no key `{key}`{hint}"
            yield p.node.loc, msg, "error", fkey, [stops]
            continue
        # no close key and nowhere else: a key of a release newer or older than the source read
        # is as likely as a mistake — said, not asserted
        msg = f"`{path}`: {where} has no key `{key}` in the newest source read: check it against the image's release"
        notes = [
            f"{cat.source} is the newest source recipelint read; the release this image runs is not known",
            "a release without the key stops at startup (`Extra inputs are not permitted`)",
        ]
        yield p.node.loc, msg, "warning", fkey, notes
