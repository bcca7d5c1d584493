import re

from recipelint.engines import facts
from recipelint.engines.catalog import (
    ENGINE_NAMES,
    describe_lifetime,
    engine_flags,
    expand,
    versions,
    wrapper_flags,
    wrapper_label,
)
from recipelint.evaluate.values import text_of
from recipelint.lint.rulebase import Rule

OTHER = {"vllm": "sglang", "sglang": "vllm"}
#: whether a flag word holds a blank (Unicode's, as `str.isspace`)
_BLANK = re.compile(r"\s").search


def permissive(lc) -> str | None:
    """The launch's environment setting that makes the engine pass unknown flags on
    (``permissive_env`` in rules/data/engines.yaml: ATOM's ``USE_ATOMESH_ENTRYPOINTS=1``), or
    None.  A value the linter cannot read counts as set."""
    spec = ((facts.load("engines").get("engines") or {}).get(lc.engine) or {}).get("permissive_env") or {}
    for name, on in spec.items():
        if name not in lc.env:
            continue
        value = lc.env[name]
        text = text_of(value) if isinstance(value, tuple) else value
        if not isinstance(text, str) or text.strip() == str(on):
            return f"{name}={text.strip() if isinstance(text, str) else '<unknown>'}"
    return None


def build_signs(ctx, use) -> str | None:
    """Why the launch may not run an upstream release of its engine (issue 47, item 3): the path
    installs the engine from a checkout or a git URL before it, the repository holds it (or a
    plugin) as a git submodule, or the launch enables vLLM plugins (``VLLM_PLUGINS``), which may add options;
    None when nothing says so."""
    from recipelint.engines.changes import EngineChange

    lc = use.launch
    for ev in ctx.events_before(use):
        if isinstance(ev, EngineChange) and ev.source is not None and ev.detail.startswith(f"installs {lc.engine} "):
            return (
                f"the script installs {ENGINE_NAMES.get(lc.engine, lc.engine)} from `{ev.source}` (line {ev.loc.line}) before it"
            )
    sub = ctx.engine_submodule(lc.engine)
    if sub is not None:
        path, url, line = sub
        return (
            f"the repository holds a checkout of {ENGINE_NAMES.get(lc.engine, lc.engine)} or a plugin as its git "
            f"submodule `{path}` ({url or 'no URL'}, `.gitmodules` line {line}); name the checkout in the settings' "
            "`engine-trees` to judge the flags with its parser"
        )
    for name in facts.load("engines")["engines"].get(lc.engine, {}).get("plugin_env") or ():
        if name in lc.env:
            value = lc.env[name]
            text = text_of(value) if isinstance(value, tuple) else value
            if not isinstance(text, str) or text.strip():
                shown = text.strip() if isinstance(text, str) else "<unknown>"
                return f"the launch enables plugins (`{name}={shown}`), which may add options"
    return None


def _module_gone(lc, ev) -> str | None:
    """The message for an entry module the judged release no longer has (``python -m
    vllm.entrypoints.api_server`` on vLLM 0.25.0 or later: its history, read from the engine's own
    releases, ends at 0.24.0); None otherwise or when no release is known."""
    from recipelint.engines.catalog import version_key, wrapper_histories

    h = wrapper_histories().get(lc.wrapper) if lc.wrapper else None
    if h is None or ev.any_release or getattr(h, "package", None) != lc.engine or not ev.versions:
        return None
    last = h.releases[-1]
    if not all(version_key(v) > version_key(last) for v in ev.versions):
        return None
    return (
        f"`python -m {lc.wrapper}` is not in {ev.label}: the module is in {ENGINE_NAMES.get(lc.engine, lc.engine)} "
        f"{h.releases[0]}–{last} only, so the job stops with `No module named {lc.wrapper}`; start the server "
        "with `vllm serve MODEL` (its OpenAI-compatible server)"
    )


def _alive(lc, ev, tree=None) -> frozenset[str]:
    """What a "did you mean" picks from: the engine's flags at the judged releases and, through
    a wrapper, the wrapper's own; and those of the engine's own tree in the repository."""
    own = engine_flags(lc.engine, ev.versions)
    if tree is not None:
        own = own | tree.flags
    return own | wrapper_flags(lc.wrapper) if lc.wrapper else own


def _nor(lc) -> str:
    return f", nor does {wrapper_label(lc.wrapper)}" if lc.wrapper else ""


class UnknownFlag(Rule):
    """
    ## What it does
    Reports a flag the engine does not have at the version the sweep point runs (from its
    master-config `image:`), with a "did you mean" suggestion — including flags removed or not yet
    added in that release, and ambiguous abbreviations.

    ## Why is this bad?
    vLLM and SGLang parse their command line with argparse: an unknown option stops the server
    with `unrecognized arguments` (an ambiguous prefix with `ambiguous option`) after the job was
    scheduled, the container pulled and the node allocated.

    The flag lists come from the engines' own release wheels (`rules/data/catalogs/`, made by
    `tools/gen_catalogs.py`). The engines' parsing is modelled: vLLM accepts `_` for `-` and
    dotted `--x-config.key` forms; both accept unique prefixes (`--max-num-seq`).

    ## Example
    ```bash
    vllm serve "$MODEL" --enable-expert-paralel --max-num-seq 64
    ```

    ## Use instead
    ```bash
    vllm serve "$MODEL" --enable-expert-parallel --max-num-seqs 64
    ```

    Options written as one word (`"$args"` with `args="--tp 8 --port 30000"`) are reported
    as such: argparse takes a word with blanks for a positional argument.

    When the flag exists in other releases, the message gives its lifetime from the engine's
    history (`rules/data/catalogs/<engine>-history.json`, every release from vLLM 0.8.0 and
    SGLang 0.4.0 on): "`--num-scheduler-steps` was removed in vLLM 0.10.1 (last in 0.10.0)",
    "`--attention-config` exists only from vLLM 0.13.0 on" — and no "did you mean" (a guess
    at a rename); otherwise the suggestion is among the flags alive at the judged release.

    ## Exceptions
    TensorRT-LLM has no per-release history (PyPI's releases are stub sdists): `trtllm-serve` is
    judged against the click options of the source read, named in `rules/data/trtllm_serve.yaml`
    (`tensorrt_llm/commands/serve.py` at a commit), as a warning that says the release is not known;
    its subcommands not read there (`disaggregated`, `grpc`, ...) are not judged.  A flag of the
    *other* engine is RL202.  When the image is not a release (a nightly, a dev
    build), the flag is judged against every catalogued release in the range the image lies in
    (or all of them), and the message says so; a release newer than every catalogued one is
    judged against the newest, saying so.  Without an image, the release the settings declare
    (`engine-versions = {vllm = "0.10.1"}`) or the repository pins (`vllm==0.10.1.1` in
    `requirements*.txt` or `pyproject.toml`, `FROM vllm/vllm-openai:v0.10.1` in a Dockerfile, when
    the pins agree) is judged, and the message says where it came from ("vLLM 0.10.1.1 (pinned in
    requirements.txt:3)"; docs/engine-histories.md).  With no version known at all (a script outside a
    benchmark repository), a flag is unknown only if no catalogued release ever had it (a
    warning: older releases are not catalogued); a flag that later releases removed is
    accepted and its lifetime said as info.  A release older than every catalogued one is not
    judged (flags it had may have been removed since).  TRT-LLM is not catalogued.  ATOM's history
    comes from the ROCm/ATOM release tags (0.1.2 on; its parser takes flags as written: no `_` for
    `-`); an ATOM 0.1.5 launch with `USE_ATOMESH_ENTRYPOINTS=1` is not judged, as info (that
    entry point passes unknown flags to the atomesh CLI).
    NVIDIA Dynamo's workers (`python -m dynamo.vllm`, `python -m dynamo.sglang`) take their own
    flags besides the engine's: those come from the ai-dynamo wheels 0.4.0–1.6.1
    (`rules/data/catalogs/wrappers/`), and one is accepted when any of those releases has it.
    Options a plugin adds to the engine's parser (vllm-omni's `--omni`) are named in the
    settings' `extra-flags`.

    An entry module the judged release does not have is said once for the launch: `python -m
    vllm.entrypoints.api_server` (vLLM's demo server, in the sdists 0.8.0–0.24.0 only) on a 0.25.0 or
    later image stops with `No module named` (the fix: `vllm serve`).

    Forks and engine checkouts: a script inside the engine's own source tree (the engine's
    repository and its PR branches, a fork that keeps its layout such as Semi-PD's SGLang, a
    vendored checkout — the nearest folder above the script holding `sglang/srt/server_args.py`,
    `python/sglang/srt/server_args.py` or `vllm/engine/arg_utils.py`), or under the settings'
    `engine-trees = {sglang = "3rdparty/sglang/python"}`, runs that tree's engine: the options its
    parser files define (their `"--flag"` literals, and the fields of vLLM's `*Args` dataclasses)
    are accepted, and a finding names the tree it also read.  When the path installs the engine from
    a checkout or a git URL before the launch (`pip install -e ./sglang/python`,
    `pip install git+https://github.com/org/sglang.git`), the launch enables vLLM plugins
    (`VLLM_PLUGINS`), or the repository has a git submodule that is a checkout of the engine or of
    a plugin (`.gitmodules`: a path or URL named `vllm`, `vllm-ascend`, `sglang`, ...), a flag
    upstream releases lack is said as info with that reason, not asserted, and without "drop it"
    (the fork's own option would go).
    """

    code = "RL601"
    name = "unknown-flag"
    severity = "error"
    sweep_independent = True

    def check(self, ctx):
        for use in ctx.uses():
            lc = use.launch
            if lc.engine == "trtllm":
                yield from self._trtllm(ctx, use)
                continue
            ev = use.engine_version()
            if ev is None:
                continue
            why = permissive(lc)
            if why:
                msg = (
                    f"{ENGINE_NAMES.get(lc.engine, lc.engine)}'s flags are not judged: with `{why}` the server "
                    "passes flags it does not know on (to the atomesh CLI) instead of stopping"
                )
                yield ctx.finding(lc.loc, msg, use.point, key="permissive|" + why, variant=ev.label, severity="info")
                continue
            gone = _module_gone(lc, ev)
            if gone is not None:
                yield ctx.finding(lc.loc, gone, use.point, key=f"gone|{lc.wrapper}", variant=ev.label)
                continue
            tree = ctx.engine_tree(lc.engine)
            signs = build_signs(ctx, use)
            for f in lc.flags:
                if not f.name.startswith("--"):
                    continue
                if _BLANK(f.name):
                    # options in one word (`"$args"` holding `--tp 8 --port 30000`)
                    shown = f.name if len(f.name) <= 60 else f.name[:57] + "..."
                    msg = (
                        f"`{shown}` is one word holding several options: argparse takes a word with blanks "
                        "for a positional argument and the server stops with `unrecognized arguments`; let the "
                        'shell split it (an array, `ARGS=(--tp 8 ...)` then `"${ARGS[@]}"`)'
                    )
                    yield ctx.finding(f.word.loc, msg, use.point, key="one-word|" + f.name.split()[0])
                    continue
                key = f.base
                if lc.wrapper and key in wrapper_flags(lc.wrapper):
                    continue  # the wrapper's own (python -m dynamo.vllm --endpoint ...)
                full, candidates = expand(lc.engine, key, ev.versions)
                if full is not None:
                    continue
                if tree is not None and (key in tree.flags or f.key in tree.flags):
                    continue  # the engine's own tree in the repository defines it (a fork, a PR branch)
                if lc.engine in OTHER and key in engine_flags(OTHER[lc.engine]):
                    continue  # RL202
                severity = None  # (the rule's)
                notes: list[str] = []
                if candidates:
                    msg = (
                        f"`{key}` is ambiguous in {ev.short}: it abbreviates {', '.join(f'`{c}`' for c in candidates[:4])}"
                        f"{' …' if len(candidates) > 4 else ''}; write the flag in full"
                    )
                    notes.append("argparse stops with `ambiguous option`")
                    notes.append(f"{ev.short}: {ev.provenance}" if ev.provenance else "")
                else:
                    life = describe_lifetime(lc.engine, key, ev.versions)
                    if ev.any_release and life is None:
                        # no image: the script may run any catalogued release, and none has the
                        # flag; what releases older than the first catalogued one had is not known
                        known = versions(lc.engine)
                        hint = ctx.did_you_mean(key, _alive(lc, ev, tree))
                        msg = (
                            f"no {ENGINE_NAMES.get(lc.engine, lc.engine)} release from {known[0]} to {known[-1]} has a "
                            f"flag `{key}`{_nor(lc)}: drop it{hint or ''}"
                        )
                        notes.append(
                            "the server stops with `unrecognized arguments`; no image is known for this script"
                            f"{' and ' + ev.note if ev.note else ''}, and older releases are not catalogued"
                        )
                        severity = "warning"
                    elif life is None:
                        hint = ctx.did_you_mean(key, _alive(lc, ev, tree))
                        msg = f"{ev.short} has no flag `{key}`{_nor(lc)}: the server stops with `unrecognized arguments`{hint}"
                        notes.append(f"{ev.short}: {ev.provenance}" if ev.provenance else "")
                    else:
                        # the flag exists in other releases: its lifetime is the fix (pin an image, or
                        # drop it); a "did you mean" among today's flags would guess at a rename
                        msg = (
                            f"`{key}` is not a flag of {ev.short}{_nor(lc)}: the server stops with `unrecognized "
                            "arguments`; drop it, or run an image whose release has it"
                        )
                        notes.append(f"`{key}` {life}")
                        notes.append(f"{ev.short}: {ev.provenance}" if ev.provenance else "")
                if tree is not None:
                    notes.append(f"nor does the engine's own tree at `{tree.where}`, whose parser files were read")
                if signs is not None:
                    # a fork or a plugin may define it: said, not asserted (and not "drop it": the
                    # fork's own option would go)
                    notes.append(f"not asserted, as a fork or a plugin may define it: {signs}")
                    severity = "info"
                    if not candidates:
                        upstream = (
                            f"no upstream {ENGINE_NAMES.get(lc.engine, lc.engine)} release from {versions(lc.engine)[0]} to "
                            f"{versions(lc.engine)[-1]}"
                            if ev.any_release
                            else f"upstream {ev.short}"
                        )
                        msg = f"{upstream} has {'a' if ev.any_release else 'no'} flag `{key}`{_nor(lc)}: keep it only if the fork or plugin defines it"
                yield ctx.finding(f.word.loc, msg, use.point, key=key, variant=ev.label, severity=severity, notes=notes)
            if ev.any_release and use.point.origin != "default matrix":
                # (a benchmark repository's recipe that no master config runs, `deprecated/`: not
                # launched with any image, so what a newer release removed is not its concern)
                yield from self._lifetimes(ctx, use, ev)

    def _trtllm(self, ctx, use):
        """trtllm-serve in the "no exact version known" mode (``rules/data/trtllm_serve.yaml``): a
        flag no source read has is a warning naming the source; subcommands not read are not judged."""
        data = facts.load("trtllm_serve")
        sub = (data.get("entries") or {}).get(use.launch.entry)
        known = (data.get("subcommands") or {}).get(sub) if sub else None
        if not known:
            if any(f.name.startswith("--") for f in use.launch.flags):  # never silent: say what is not judged
                msg = (
                    f"the options of `{use.launch.entry}` are not checked: recipelint has no catalog of them "
                    "(only `trtllm-serve serve` / `mm_embedding_serve` are read)"
                )
                yield ctx.finding(use.launch.loc, msg, use.point, key=f"unjudged|{use.launch.entry}", severity="info")
            return
        srcs = data.get("sources") or [{}]
        where = f"{srcs[0].get('file', '?')} at " + " and ".join(str(x.get("commit", "?"))[:12] for x in srcs)
        names = set(known)
        for f in use.launch.flags:
            name = f.name.split("=", 1)[0]
            if not name.startswith("--") or name in names or any(ch.isspace() for ch in name):
                continue
            hint = ctx.did_you_mean(name, names)
            msg = (
                f"`trtllm-serve {sub}` has no option `{name}` in the sources recipelint has read ({where}): click "
                f"stops with `No such option`{hint} (the release this image runs is not known; other "
                "releases were not read)"
            )
            yield ctx.finding(f.word.loc, msg, use.point, key=name, severity="warning")

    def _lifetimes(self, ctx, use, ev):
        """No engine version known: a flag some catalogued release has is accepted, and one that
        later releases removed is said, as info, with its lifetime."""
        lc = use.launch
        newest = versions(lc.engine)[-1]
        tree = ctx.engine_tree(lc.engine)
        for f in lc.flags:
            if not f.name.startswith("--") or _BLANK(f.name):
                continue
            if tree is not None and (f.base in tree.flags or f.key in tree.flags):
                continue  # (the repository's own engine tree has it)
            if lc.wrapper and f.base in wrapper_flags(lc.wrapper):
                continue  # the wrapper's own, even where it also abbreviates an engine flag
            full, _ = expand(lc.engine, f.base, ev.versions)
            if full is None or full in engine_flags(lc.engine, newest) or (lc.wrapper and full in wrapper_flags(lc.wrapper)):
                continue
            life = describe_lifetime(lc.engine, full, (newest,))
            if life is None:
                continue
            _, amb = expand(lc.engine, full, newest)
            stop = (
                f"`ambiguous option` (there it abbreviates {', '.join(f'`{c}`' for c in amb[:3])})"
                if amb
                else "`unrecognized arguments`"
            )
            msg = (
                f"`{full}` {life}: no engine version is known for this script ({ev.why_unknown}), so it is "
                f"not judged; from that release on the server stops with {stop}"
            )
            yield ctx.finding(f.word.loc, msg, use.point, key=full, variant="lifetime", severity="info")
