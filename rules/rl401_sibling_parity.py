import functools
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from recipelint.bash.source import Loc
from recipelint.engines import facts
from recipelint.evaluate.values import first_loc, text_of
from recipelint.lint.findings import Fix
from recipelint.lint.rulebase import (
    Rule,
    Use,
    enclosing_statement,
    flag_insertion,
    flag_source,
    launch_home,
    main_list,
    missing_defect,
    same_source,
    statement_text,
)

#: the effective value of a flag or variable left at the engine's default
DEFAULT = "\0default"
_TRUE = ("true", "1", "yes", "on")
_FALSE = ("false", "0", "no", "off")


def _normalise_guard(text: str) -> str:
    """Guards that differ only in variable names are the same check: `(( PER_RANK_GB <= 0 ))`
    and `(( PER_RANK_GIB <= 0 ))`."""
    return re.sub(r"\b[A-Z][A-Z0-9_]*\b", "V", " ".join(text.split()))


def _shape(point) -> tuple:
    env = point.env
    ep = env.get("EP_SIZE")
    return (
        str(env.get("DP_ATTENTION", "")),
        (ep not in (None, "", "1", "0")) if isinstance(ep, str) else None,
        str(env.get("KV_OFFLOADING", "")),
        str(env.get("KV_OFFLOAD_BACKEND", "")),
        str(env.get("SPEC_DECODING", "")),
        str(env.get("PP_SIZE", "") or "1"),
    )


@functools.lru_cache(maxsize=1024)
def _layout_parts(path: Path) -> tuple[str, ...] | None:
    """The folders of ``path`` below its project's root (the repository's layout, whatever the
    working directory and wherever the tree lies: a diff's base is exported elsewhere); None for
    a file outside any project (its root is its own folder)."""
    from recipelint.sweep.configs import project_root

    try:
        real = Path(os.path.realpath(path))
        root = project_root(Path(path))
        if root == real.parent:
            return None
        return real.relative_to(root).parts
    except (ValueError, OSError):
        return None


def _workload(result, point) -> str | None:
    """The point's SCENARIO_TYPE, else what the recipe's folder says, else None (unknown)."""
    st = point.env.get("SCENARIO_TYPE")
    if isinstance(st, str) and st:
        return st
    parts = _layout_parts(result.path)
    if parts is None:  # (no repository, no master configs: the folders as the path was named)
        parts = Path(getattr(result, "display", "") or str(result.path)).parts
    if "agentic" in parts:
        return "agentic-coding"
    if "fixed_seq_len" in parts:
        return "fixed-seq-len"
    return None


@dataclass
class _Group:
    """One recipe's launches of one engine under comparable sweep points."""

    uses: list = field(default_factory=list)  # [Use]
    points: list = field(default_factory=list)
    guards: dict = field(default_factory=dict)  # normalised guard text -> guard


@dataclass
class _Value:
    """A recipe's effective value of one flag (or variable) over a group's points in scope."""

    values: frozenset
    flag: object = None  # the Flag that sets it (a representative), or None when none is passed
    loc: object = None  # for a variable: where it is set
    use: object = None
    text: str = ""  # how the recipe writes it (`--tool-call-parser deepseek_v4`, `NAME=value`)
    at_default: bool = False  # some point runs with the engine's default (left out or spelled out at it)
    all_default: bool = False  # every point does
    dflt: object = None  # the default judged with (``recipelint.lint.effective.Default``), for a flag


def _defaulted(v: _Value) -> bool:
    """Whether some point of the value runs at the engine's default (flags: ``at_default``;
    engine variables: the ``DEFAULT`` sentinel)."""
    return v.at_default or DEFAULT in v.values


def _labels(defaults) -> str:
    """The releases the defaults were judged at, as one span: ``vLLM 0.25.1``, ``SGLang 0.5.12–0.5.23``."""
    from recipelint.engines.catalog import ENGINE_NAMES, version_key

    found = [d for d in defaults if d is not None]
    if not found:
        return "the engine"
    name = ENGINE_NAMES.get(found[0].engine, found[0].engine)
    vs = sorted({v for d in found for v in d.versions}, key=version_key)
    if not vs:
        return name
    return f"{name} {vs[0]}" if len(vs) == 1 else f"{name} {vs[0]}–{vs[-1]}"


class SiblingParity(Rule):
    """
    ## What it does
    Compares sibling recipes — files whose names differ only by the hardware token (b200/b300,
    h100/h200, mi300x/mi325x/mi355x, gb200/gb300) and that launch the same engine — under
    comparable sweep points (same DP-attention, expert-parallel, KV-offload, speculative and
    pipeline settings).  It reports a *behaviour* flag or engine variable whose effective value differs
    (what the recipe passes, or the engine's default when it passes nothing), and an `exit` guard
    (a divisibility or range check) one sibling has and the other lacks.

    ## Why is this bad?
    Sibling recipes are meant to be the same benchmark on two GPU generations.  When one is
    refactored and the other is not, flags get lost (tool calling dropped in an array rewrite)
    and guards go missing (a per-rank value that no longer divides evenly), and the two sets of
    results stop being comparable — the drift a reviewer has to spot by reading both files side
    by side.  The message says what the difference changes for the benchmark.

    ## Example
    `dsv4_fp4_b300_vllm.sh` (agentic) passes `--tool-call-parser deepseek_v4
    --enable-auto-tool-choice` and checks `2*CONC % TP == 0` under DP-attention;
    `dsv4_fp4_b200_vllm.sh` does neither: its agentic client gets tool calls as plain text.

    ## Use instead
    Make the sibling pass the same flags and carry the same guard, or document the difference
    with a comment that names the flag (or variable, or the sibling's file name).

    ## Fix
    Unsafe (it takes the sibling's choice): a flag the siblings pass and this recipe lacks is
    added as the sibling writes it, after the flag the sibling writes before it (else after the
    last flag of the list); a guard this recipe lacks is copied from the sibling, with the
    comment lines above it, before the line that follows it in the sibling (else before the
    launch's command) — only a guard that tests and stops (`if [ … ]; then echo …; exit 1; fi`),
    never one that does more (a `patch`, a download).  Flags whose value is computed (`$VAR`) are
    not copied.

    ## Exceptions
    Only flags classified as behaviour in `rules/data/parity.yaml` (`behaviour_flags`, each with
    the reason it matters) are compared: request parsers, auto-truncation, chat templates, the
    tokenizer, pipeline stages, whether draft acceptance is simulated (a synthetic acceptance
    length in `--speculative-config`; only simulated or not, since the length follows the draft
    depth).  Tuning flags by nature — kernels and backends, memory and
    CUDA-graph sizing, load balancing, all-reduce, scheduler and batching knobs such as
    `--max-running-requests`, prefix-cache toggles, the parallel layout the sweep point sets —
    and unclassified flags are not.  Workload-scoped flags are compared only on sweep points of
    that workload: the request parsers on agentic-coding points, not on fixed-seq-len throughput
    runs (whose client sends `/v1/completions`).  A flag's effective value is the value passed, else
    the engine's default at the release the sweep point's image runs, from the engine history
    (`rules/data/catalogs/<engine>-history.json`); a flag passed at that default
    (`--pipeline-parallel-size 1`, `--tokenizer-path` equal to the model path) equals the flag
    left out, and an alias equals its canonical spelling.  Where the history has no literal default
    (the engine decides at run time) or the releases judged disagree on it, only the facts in
    `rules/data/engine_defaults.yaml` (`parity`: "same as the model", "none") are used, else the
    flag is not compared at that point; the message names the release whose default it relies on.  Engine variables are compared the same way (`behaviour_env`: thinking
    defaults, think-token caps, tool-call strictness, `SGLANG_SIMULATE_ACC_LEN`; every other
    `VLLM_*` / `SGLANG_*` / `NCCL_*` ... variable is tuning).  With three or more siblings the odd
    one out is reported once, naming the siblings that agree.  A difference documented by a
    comment naming the flag, the variable or the sibling's file name (on the line, above the
    statement, or in the recipe's header; in either file) is accepted.  An array that is declared
    and spliced but never filled counts as absent.

    A recipe whose header claims parity with a sibling ("Identical to x_b300.sh", "Every engine
    flag is the B300 script unchanged") is held to it: every flag of the pair is compared, tuning
    ones included — one passed by one recipe only, or a literal value that differs — except the
    flags the header names (the deltas it admits).  A value computed from variables or the sweep
    point is not compared under the claim (a hardware-specific budget, a staged checkpoint path).
    """

    code = "RL401"
    name = "sibling-parity"
    severity = "warning"
    scope = "project"

    # -- classification (data) -----------------------------------------------------------------
    def _spec(self):
        spec = getattr(self, "_spec_cache", None)
        if spec is None:
            data = facts.load("parity")
            defaults = facts.load("engine_defaults")
            tuning = set(data.get("tuning_flags") or {})
            # an explicit tuning entry (also the settings' hardware-specific-flags) wins over a
            # behaviour entry; a behaviour entry wins over a tuning pattern (it is more specific)
            behaviour = {
                k: v for k, v in (data.get("behaviour_flags") or {}).items() if k not in tuning and k.split(".")[0] not in tuning
            }
            spec = self._spec_cache = (
                behaviour,
                defaults.get("parity") or {},
                data.get("behaviour_env") or {},
                defaults.get("parity_env") or {},
            )
        return spec

    def check(self, ctx):
        sibs = ctx.project.siblings(ctx.result)
        if not sibs:
            return
        cache: dict = {}  # result id -> its groups (siblings are compared more than once)
        mine = self._groups(ctx.result, cache)
        others = [(sib, self._groups(sib, cache)) for sib in sibs]
        yield from self._flag_findings(ctx, mine, others)
        yield from self._env_findings(ctx, mine, others)
        yield from self._guard_findings(ctx, mine, others)
        yield from self._claim_findings(ctx, mine, others)

    # -- a header that claims parity -----------------------------------------------------------
    def _claim_findings(self, ctx, mine: dict, others: list):
        """The recipe's header says every engine flag equals a sibling's: every flag and engine
        variable of the pair is compared as written, tuning ones included (except the flags the
        header names: the deltas it admits, and the behaviour flags compared above)."""
        claim = _parity_claim(ctx, [sib for sib, _ in others])
        if claim is None:
            return
        sib, line, named = claim
        theirs = next(groups for other, groups in others if other is sib)
        behaviour = self._spec()[0]
        diffs: dict = {}  # key -> (my written values, theirs, my flag, their flag, points)
        for gkey, group in mine.items():
            other = theirs.get(gkey)
            if other is None:
                continue
            mine_w, theirs_w = _written_flags(group), _written_flags(other)
            for key in sorted(set(mine_w) | set(theirs_w)):
                if key in named or key in behaviour or key.split(".")[0] in behaviour:
                    continue
                a, b = mine_w.get(key, ({ABSENT}, None)), theirs_w.get(key, ({ABSENT}, None))
                if not _claimed_differ(a[0], b[0]):
                    continue
                entry = diffs.setdefault(key, (a[0], b[0], a[1], b[1], []))
                entry[4].extend(p for p in group.points if p not in entry[4])
        if not diffs:
            return
        keys = list(diffs)
        shown = "; ".join(
            f"`{k}` {_shown(diffs[k][0])} here, {_shown(diffs[k][1])} in {sib.path.name}" for k in keys[:MAX_CLAIM_DIFFS]
        )
        more = f" (and {len(keys) - MAX_CLAIM_DIFFS} more)" if len(keys) > MAX_CLAIM_DIFFS else ""
        # where the fix goes: a differing flag this recipe passes, else its launch
        first = next((diffs[k] for k in keys if diffs[k][2] is not None), diffs[keys[0]])
        anchor = first[2].word.loc if first[2] is not None else mine[next(iter(mine))].uses[0][1].launch.loc
        points: list = []
        for k in keys:
            points.extend(p for p in diffs[k][4] if p not in points)
        related = [(ctx.header_loc(line), f"the header claims parity with {sib.path.name} here")]
        if first[3] is not None:
            related.append((first[3].word.loc, f"{sib.path.name} passes it here"))
        msg = (
            f"the header says every engine flag equals {sib.path.name}'s (line {line}), but {len(keys)} "
            f"{'is' if len(keys) == 1 else 'are'} written differently: {shown}{more}; make them equal or name the delta in the header"
        )
        yield ctx.finding(anchor, msg, points, related, key=f"claim|{sib.path.name}|{'|'.join(keys)}")

    # -- groups --------------------------------------------------------------------------------
    def _groups(self, result, cache: dict) -> dict:
        """(engine, shape) -> _Group over the benchmark points that reached a complete launch."""
        out = cache.get(id(result))
        if out is not None:
            return out
        out = cache[id(result)] = {}
        script = str(result.path.resolve())
        for pr in result.points:
            if str(pr.point.env.get("EVAL_ONLY", "false")).lower() == "true":
                continue
            for path in pr.paths:
                for lc in path.events:
                    if not hasattr(lc, "flags") or not lc.complete:
                        continue
                    g = out.setdefault((lc.engine, _shape(pr.point)), _Group())
                    g.uses.append((result, Use(lc, pr.point)))
                    if pr.point not in g.points:
                        g.points.append(pr.point)
                    for guard in path.guards:
                        if _same(guard.loc.real().source.path, script):
                            g.guards.setdefault(_normalise_guard(guard.text), guard)
        return out

    # -- flags ---------------------------------------------------------------------------------
    def _flag_value(self, result, group: _Group, key: str, spec: dict) -> _Value | None:
        """The effective values of ``key`` over the group's points in the flag's workloads (the
        value passed, else the engine's default at the point's release: ``Use.effective``); None
        when no point is in scope, or a value or the default it is judged against is not known."""
        values = set()
        rep = None
        defaulted, every = False, True
        for res, use in group.uses:
            if not _in_scope(spec, res, use.point):
                continue
            eff = use.effective(key)
            if eff.default is None:
                return None  # no default known at this release: nothing to compare against
            v = eff.value
            if spec.get("presence_only") and not eff.at_default and (v is not None or eff.source == "passed"):
                v = "set"
            if v is None:
                return None
            values.add(v)
            defaulted = defaulted or eff.at_default
            every = every and eff.at_default
            f = eff.flag
            if f is not None and (rep is None or (rep[3] and not eff.at_default)):
                rep = (v, f, use, eff.at_default, eff.default)
            elif rep is None:
                rep = (v, None, use, eff.at_default, eff.default)
        if not values or rep is None:
            return None
        f = rep[1]
        text = "" if f is None else (f.name if f.value is None else f"{f.name} {f.text}")
        if f is not None and "." in key and f.key != key:
            sub = key.partition(".")[2]
            text = f'{f.name} {{"{sub}": ...}}'
        return _Value(frozenset(values), f, None, rep[2], text, defaulted, every, rep[4])

    def _flag_findings(self, ctx, mine: dict, others: list):
        behaviour = self._spec()[0]
        # (feature, siblings) -> ({key: (key, spec, my value, [(sib, value)], group)}, points)
        merged: dict = {}
        for gkey, group in mine.items():
            for key, spec in behaviour.items():
                my = self._flag_value(ctx.result, group, key, spec)
                if my is None:
                    continue
                theirs = []
                for sib, groups in others:
                    g = groups.get(gkey)
                    if g is None:
                        continue
                    v = self._flag_value(sib, g, key, spec)
                    if v is not None:
                        theirs.append((sib, v))
                against = _odd_one_out(ctx.result, my, theirs)
                if against is None:
                    continue
                feature = spec.get("feature") or key
                names = tuple(sorted(s.path.name for s, _ in against))
                entry = merged.setdefault((feature, names), ({}, []))
                entry[0].setdefault(key, (key, spec, my, against, group))
                entry[1].extend(p for p in group.points if p not in entry[1])
        for (feature, names), (by_key, points) in merged.items():
            found = self._flag_finding(ctx, feature, names, list(by_key.values()), points)
            if found is not None:
                yield found

    def _flag_finding(self, ctx, feature, names, items, points):
        """One finding for one difference: the flags of one feature this recipe disagrees on
        with the same siblings.  A default is named with the releases it was judged at (this
        recipe's, or the siblings' when they are the ones left at it).  The headline says what
        differs and what to do; the notes, what the difference changes and the release judged."""
        spec, my = items[0][1], items[0][2]
        why = spec.get(f"why_{my.use.launch.engine}") or spec["why"]
        label = _sibling_label(names)
        theirs_text = ", ".join(f"`{i[3][0][1].text}`" for i in items if i[3][0][1].text)
        mine_text = ", ".join(f"`{i[2].text}`" for i in items if i[2].text and not _defaulted(i[2]))
        notes: list[str] = []
        fix = None
        defects: tuple = ()
        severity = None
        anchor = self._flag_anchor(items)
        if _defaulted(my):
            if not theirs_text:
                return None
            version = _labels(i[2].dflt for i in items)
            shown_default = ", ".join(f"`{_written(i)}` {i[2].dflt.shown}" for i in items)
            # "passes X, the default" only when X is the default at every point (not a value some points pass)
            spelled = [f"`{i[2].text}`" for i in items if i[2].flag is not None and i[2].all_default]
            if len(spelled) == len(items):
                msg = f"this recipe passes {', '.join(spelled)}, {version}'s default, but {label} {_verb(names)} {theirs_text}"
                msg += f": pass {theirs_text} as well, or name the difference in a comment"
            else:
                launch = my.use.launch
                absent = [i for i in items if i[2].flag is None and "." not in i[0]]  # (a JSON key: in its flag)
                texts = [flag_source(ctx.source_text, i[3][0][1].flag) for i in absent if i[3][0][1].flag is not None]
                edit, where = (None, "")
                whole = len(absent) == len(items)
                if whole and texts and all(texts) and not any("$" in t or "`" in t for t in texts) and len(texts) == len(absent):
                    edit, where = flag_insertion(ctx, launch, texts, self._neighbours(absent[0]))
                shown = " ".join(texts) if whole and texts and all(texts) else theirs_text.replace("`", "")
                them = "them" if len(items) > 1 else "it"
                msg = f"this recipe lacks `{shown}`, which {label} {_verb(names)}: add {them}" + (f" {where}" if where else "")
                if not absent and all("." in i[0] for i in items):  # keys inside a JSON flag it passes
                    keys = ", ".join(f"`{i[0].partition('.')[2]}`" for i in items)
                    base = items[0][0].partition(".")[0]
                    msg = f"this recipe's `{base}` lacks {keys}, which {label} {_verb(names, 'sets', 'set')}: add {them} to its JSON"
                if edit is not None:
                    fix = Fix(f"add `{shown}` {where}, as {names[0]} does", [edit], "unsafe", follows=names[0])
                if absent:
                    anchor = launch_home(launch)
                    defects = tuple(missing_defect(launch, i[0]) for i in absent)
                notes.append(f"{version} default: {shown_default}")
        elif all(_defaulted(i[3][0][1]) for i in items):
            version = _labels(i[3][0][1].dflt for i in items)
            shown_default = ", ".join(f"`{_written(i)}` {i[3][0][1].dflt.shown}" for i in items)
            msg = (
                f"this recipe passes {mine_text} but {label} {_verb(names, 'does', 'do')} not: "
                "make them agree, or name the difference in a comment"
            )
            notes.append(f"{version} default: {shown_default}")
        else:
            msg = f"this recipe passes {mine_text} but {label} {_verb(names)} {theirs_text}: make them agree, or name the difference in a comment"
            why = spec.get("why_value") or why
        claim = ctx.tools_claim(my.use) if feature == "tool calling" and _defaulted(my) else None
        if claim is not None and claim[2] is not None:
            who, sev, (does, provenance) = claim
            notes[:0] = [f"{who}; {does}"]
            notes.append(provenance)
            severity = "info" if sev == "info" else None
        else:
            notes[:0] = [" ".join(why.split())]
        related = []
        for k, _, _, against, _ in items:
            for sib, v in against:
                if v.flag is not None:
                    related.append((v.flag.word.loc, f"{sib.path.name} passes {v.text} here"))
                else:
                    related.append((v.use.launch.loc, f"{sib.path.name} launches without {k} here"))
        written = {i[0] for i in items}
        for i in items:
            for v in [i[2], *(a[1] for a in i[3])]:
                if v.flag is not None:
                    written.add(v.flag.name)
        documented = ctx.documented([anchor, my.use.launch.loc], [*sorted(written), *names])
        for i in items:
            for _sib, v in i[3]:
                if documented is None and v.flag is not None:
                    documented = ctx.documented([v.flag.word.loc], [*sorted(written), ctx.name])
        return ctx.finding(
            anchor,
            msg,
            points,
            related,
            key=f"flags|{feature}|{'|'.join(names)}",
            documented=documented,
            fix=fix,
            defects=defects,
            notes=notes,
            severity=severity,
        )

    @staticmethod
    def _neighbours(item) -> list:
        """The flags the sibling writes before the missing one, nearest first: where it goes."""
        v = item[3][0][1]
        if v.flag is None:
            return []
        sib_flags = v.use.launch.flags
        i = next((n for n, f in enumerate(sib_flags) if f is v.flag), None)
        return [] if i is None else [sib_flags[j].key for j in range(i - 1, -1, -1)]

    def _flag_anchor(self, items):
        """Where the fix goes: this recipe's flag when it passes one; else next to the flag the
        sibling writes just before (or after) the missing one, when this recipe passes that one
        too; else the launch."""
        for _, _, my, _, _ in items:
            if my.flag is not None:
                return my.flag.word.loc
        key, _, my, against, _ = items[0]
        v = against[0][1]
        launch = my.use.launch
        if "." in key:
            base = launch.get(key.partition(".")[0])  # the JSON flag the key goes in
            if base is not None:
                return base.value_loc or base.word.loc
        if v.flag is not None:
            sib_flags = v.use.launch.flags
            i = next((n for n, f in enumerate(sib_flags) if f is v.flag), None)
            if i is not None:
                home = main_list(launch)
                for j in [*range(i - 1, -1, -1), *range(i + 1, len(sib_flags))]:
                    mine = launch.get(sib_flags[j].key)
                    if mine is not None and same_source(mine.word.loc, launch.loc):
                        if mine.word.loc.real().span.line in home:
                            return mine.word.loc
        return launch.loc

    # -- engine variables ----------------------------------------------------------------------
    def _env_value(self, result, group: _Group, name: str, spec: dict, default: dict) -> _Value | None:
        values = set()
        rep = None
        for res, use in group.uses:
            if not _in_scope(spec, res, use.point):
                continue
            raw = use.launch.env.get(name)
            if raw is None:
                v = DEFAULT
            else:
                t = text_of(raw)
                if t is None:
                    return None
                v = _normal_value(t, default)
                if default.get("presence_only") and v != DEFAULT:
                    v = "set"
            values.add(v)
            if raw is not None and (rep is None or rep[1] is None):
                rep = (v, raw, use)
            elif rep is None:
                rep = (v, None, use)
        if not values or rep is None:
            return None
        raw = rep[1]
        loc = first_loc(raw) if raw is not None else None
        text = f"{name}={text_of(raw)}" if raw is not None else ""
        return _Value(frozenset(values), None, loc, rep[2], text)

    def _env_findings(self, ctx, mine: dict, others: list):
        _, _, behaviour_env, env_defaults = self._spec()
        found: dict = {}
        for gkey, group in mine.items():
            for name, spec in behaviour_env.items():
                default = env_defaults.get(name)
                if default is None:
                    continue
                if spec.get("presence_only"):
                    default = {**default, "presence_only": True}
                my = self._env_value(ctx.result, group, name, spec, default)
                if my is None:
                    continue
                theirs = []
                for sib, groups in others:
                    g = groups.get(gkey)
                    if g is not None:
                        v = self._env_value(sib, g, name, spec, default)
                        if v is not None:
                            theirs.append((sib, v))
                against = _odd_one_out(ctx.result, my, theirs)
                if against is None:
                    continue
                names = tuple(sorted(s.path.name for s, _ in against))
                label = _sibling_label(names)
                theirs_text = ", ".join(f"`{v.text}`" for _, v in against if v.text)
                shown = _show_default(default)
                if DEFAULT in my.values:
                    if not theirs_text:
                        continue
                    msg = f"{label} {_verb(names, 'sets', 'set')} {theirs_text} but this recipe does not (default: {shown})"
                elif all(DEFAULT in v.values for _, v in against):
                    msg = f"this recipe sets `{my.text}` but {label} {_verb(names, 'does', 'do')} not (default: {shown})"
                else:
                    msg = f"this recipe sets `{my.text}` but {label} {_verb(names, 'sets', 'set')} {theirs_text}"
                msg += f": {' '.join(spec['why'].split())}"
                anchor = my.loc if my.loc is not None and same_source(my.loc, my.use.launch.loc) else None
                if anchor is None:
                    anchor = self._env_anchor(my.use.launch) or my.use.launch.loc
                related = [
                    (
                        v.loc or v.use.launch.loc,
                        f"{s.path.name} sets {name} here" if v.loc else f"{s.path.name} launches without {name} here",
                    )
                    for s, v in against
                ]
                documented = ctx.documented([anchor, my.use.launch.loc], [name, *names])
                for _s, v in against:
                    if documented is None and v.loc is not None:
                        documented = ctx.documented([v.loc], [name, ctx.name])
                entry = found.setdefault((name, names), [anchor, msg, related, documented, []])
                entry[4].extend(p for p in group.points if p not in entry[4])
        for (name, names), (anchor, msg, related, documented, points) in found.items():
            yield ctx.finding(anchor, msg, points, related, key=f"env|{name}|{'|'.join(names)}", documented=documented)

    def _env_anchor(self, launch):
        """The last engine variable this recipe sets in its own file (where another one goes)."""
        spec = facts.load("engines").get("engine_env") or {}
        prefixes, single = tuple(spec.get("prefixes") or ()), set(spec.get("names") or ())
        best = None
        for name, value in launch.env.items():
            if name in single or name.startswith(prefixes):
                loc = first_loc(value)
                if loc is not None and same_source(loc, launch.loc):
                    if best is None or loc.real().span.line > best.real().span.line:
                        best = loc
        return best

    # -- exit guards ---------------------------------------------------------------------------
    def _guard_findings(self, ctx, mine: dict, others: list):
        """An exit guard siblings have and this recipe lacks: one finding per guard, naming every
        sibling that has it."""
        found: dict = {}  # normalised guard -> ({sibling name: (sibling, guard)}, a use, points)
        for sib, theirs in others:
            for gkey, group in mine.items():
                other = theirs.get(gkey)
                if other is None:
                    continue
                for norm, g in other.guards.items():
                    if norm in group.guards:
                        continue
                    entry = found.setdefault(norm, ({}, group.uses[0][1], []))
                    entry[0].setdefault(sib.path.name, (sib, g))
                    entry[2].extend(p for p in group.points if p not in entry[2])
        for norm, (by_sib, use, points) in found.items():
            names = tuple(sorted(by_sib))
            sib, g = by_sib[names[0]]
            lines = ", ".join(f"{n} line {by_sib[n][1].loc.real().span.line}" for n in names)
            where = f"line {g.loc.real().span.line}" if len(names) == 1 else lines
            fix = _guard_fix(ctx, sib, g, use.launch)
            msg = f"{_sibling_label(names)} {_verb(names, 'stops', 'stop')} the run when `{g.text}` ({where}), this recipe does not: "
            msg += fix.title if fix is not None else "add the same check before the launch"
            yield ctx.finding(
                use.launch.loc,
                msg,
                points,
                [(by_sib[n][1].loc, f"{n} guards with an exit here") for n in names],
                key=f"guard|{'|'.join(names)}|{norm}",
                documented=ctx.documented([use.launch.loc], list(names)),
                fix=fix,
            )


#: a guard that only tests and stops: `if [ … ]` / `[[ … ]]` / `(( … ))` whose body only says why
#: and exits (comments, echo, printf, exit, fi, else)
_GUARD_HEAD = re.compile(r"^\s*if\s+(\[\[?|\(\(|!\s*\[)")
_GUARD_BODY = re.compile(r"^\s*(#.*|echo\b.*|printf\b.*|exit\b.*|fi|else|then|)\s*$")


def _plain_guard(block: str) -> bool:
    lines = [ln for ln in block.splitlines() if ln.strip() and not ln.lstrip().startswith("#")]
    if not lines or not _GUARD_HEAD.match(lines[0]):
        return False
    return all(_GUARD_BODY.match(ln) for ln in lines[1:])


def _guard_fix(ctx, sib, guard, launch):
    """The sibling's guard statement (with the comment lines just above it) copied into this
    recipe, as an unsafe fix: before the line that follows it in the sibling when this recipe
    has that line too (the family's place for it), else before the launch's command; None when
    the guard is not a statement of the sibling's own file."""
    real = guard.loc.real()
    if getattr(real.source, "path", None) != getattr(getattr(sib, "source", None), "path", None):
        return None
    line = real.span.line
    enc = enclosing_statement(sib, line) or (line, line)
    src = sib.source
    first = enc[0]
    while first > 1 and src.line_text(first - 1).lstrip().startswith("#"):
        first -= 1
    block = statement_text(sib, first, enc[1])
    if not _plain_guard(block):
        return None  # (a block that does more than test and stop — a patch, a download — is not copied)
    mine = ctx.result.source
    after = next((src.line_text(n).strip() for n in range(enc[1] + 1, src.line_count + 1) if src.line_text(n).strip()), "")
    at = None
    if after and not after.startswith("#"):
        at = next((n for n in range(1, mine.line_count + 1) if mine.line_text(n).strip() == after), None)
    if at is None:
        lreal = launch_home(launch).real()
        if getattr(lreal.source, "path", None) != mine.path:
            return None
        home = enclosing_statement(ctx.result, lreal.span.line)
        at = home[0] if home else lreal.span.line
    start = mine.line_start(at)
    edit = ctx.replace(Loc(mine, start, start), block + "\n")
    if edit is None:
        return None
    return Fix(f"add the same check before line {at}", [edit], "unsafe", follows=sib.path.name)


# ---- helpers ------------------------------------------------------------------------------------

#: how a flag left out is shown in a claimed-parity finding, and how many differences are listed
ABSENT = "\0absent"
MAX_CLAIM_DIFFS = 4
#: a header sentence that says every engine flag equals a sibling's: `Identical to x.sh`, `Every
#: engine flag is the B300 script unchanged`, `all serve flags are the same as x.sh`
_CLAIM = re.compile(
    r"(?:^|[.;:]\s+|#\s*)(?:identical to (?:the )?(?P<a>[\w.+-]+\.sh)"
    r"|every (?:engine |serve |server |launch )?flag (?:is|equals|matches) (?:that of |those of )?(?:the )?(?P<b>[\w.+-]+?)(?:'s)?"
    r" (?:script|recipe|sibling)"
    r"|(?:all|every) (?:engine |serve |server )?(?:flags|args|arguments) (?:are )?(?:identical to|the same as) (?:the )?(?P<c>[\w.+-]+?)(?:'s)?"
    r"(?:\s+(?:script|recipe|sibling)|\s|[.,;:)]|$))",
    re.I,
)
_FLAG_WORD = re.compile(r"--[A-Za-z0-9][\w.-]*")


def _parity_claim(ctx, sibs):
    """(sibling, header line, flag keys the header names) when the recipe's header claims every
    engine flag equals one of ``sibs`` (named by file name or by its hardware token), else None."""
    header = ctx.header()
    if not header:
        return None
    text = " ".join(t for _, t in header)
    m = _CLAIM.search(text)
    if m is None:
        return None
    target = (m.group("a") or m.group("b") or m.group("c") or "").lower().removesuffix(".sh")
    found = None
    for sib in sibs:
        stem = sib.path.name.lower().removesuffix(".sh")
        if target == stem or (target and re.search(rf"(?:^|_){re.escape(target)}(?:_|$)", stem)):
            found = sib
            break
    if found is None:
        return None
    # the header line the claim starts on
    offset, line = m.start(), header[0][0]
    for ln, t in header:
        if offset <= len(t):
            line = ln
            break
        offset -= len(t) + 1
    named = {f.split("=")[0].rstrip(".,;:)").replace("_", "-") for f in _FLAG_WORD.findall(text)}
    return found, line, named


def _written_flags(group) -> dict:
    """flag key -> (how it is written over the group's uses — a literal value as written,
    COMPUTED for a value built from variables or commands, "" for a flag without a value, ABSENT
    when a use does not pass it —, a Flag that passes it)."""
    keys = {f.key for _, use in group.uses for f in use.launch.flags}
    out = {}
    for key in keys:
        values, rep = set(), None
        for _, use in group.uses:
            f = use.launch.get(key)
            if f is None:
                values.add(ABSENT)
            else:
                values.add(_literal(f))
                rep = rep or f
        out[key] = (values, rep)
    return out


def _literal(f) -> str:
    """A flag's value when the recipe writes it as one literal (`0.85`, `"fp8"`), else COMPUTED:
    a value built from variables, the sweep point or a command may differ between siblings by
    design (a hardware-specific budget, a staged checkpoint path), so only literals are compared."""
    if f.value is None:
        return ""
    locs = {(id(c.loc.real().source), c.loc.real().start, c.loc.real().end) for c in f.value.chunks if c.loc is not None}
    text = f.value.text
    if text is None or len(locs) != 1 or any(c.loc is None for c in f.value.chunks):
        return COMPUTED
    real = f.value.chunks[0].loc.real()
    src = real.source
    if type(src).__name__ != "SourceFile":
        return COMPUTED
    written = src.data[real.start : real.end].decode("utf-8", "replace").strip("'\"")
    return text if written == text else COMPUTED


def _claimed_differ(a: set, b: set) -> bool:
    """Whether two written forms differ under a parity claim: passed by one only, or literals
    that differ (computed values are not compared)."""
    if (a == {ABSENT}) != (b == {ABSENT}):
        return True
    if COMPUTED in a or COMPUTED in b or ABSENT in a or ABSENT in b:
        return False
    return a != b


#: a value built from variables or commands (not compared under a parity claim)
COMPUTED = "\0computed"


def _shown(values) -> str:
    def one(v: str) -> str:
        if v == ABSENT:
            return "left out"
        if v == "":
            return "passed"
        if v == COMPUTED:
            return "computed"
        text = " ".join(v.split())
        return f"`{text[:57]}…`" if len(text) > 60 else f"`{text}`"

    return " / ".join(one(v) for v in sorted(values))


def _in_scope(spec: dict, result, point) -> bool:
    wl = spec.get("workloads")
    if not wl:
        return True
    w = _workload(result, point)
    return w is None or w in wl


def _normal_value(text: str, default: dict) -> str:
    """A value as compared: the default sentinel when it is the default; booleans spelt one way."""
    d = default.get("default")
    t = text.strip()
    if isinstance(d, bool) or default.get("kind") == "bool":
        low = t.lower()
        b = True if low in _TRUE else False if low in _FALSE else None
        if b is None:
            return t
        return DEFAULT if b == bool(d) else str(b).lower()
    if d is None:
        return t
    return DEFAULT if t == str(d) else t


def _odd_one_out(me, my: _Value, theirs: list):
    """The siblings (with their values) this recipe is the odd one out against, or None.

    Recipes with the same effective values form a cluster.  This recipe is reported when a
    larger cluster disagrees with it (three siblings: the odd one out, once), or, in a tie (two
    siblings), when it is the one left at the default; when neither is at the default, the
    recipe whose name sorts first."""
    if not theirs:
        return None
    if any(v.values != my.values and v.values & my.values for _, v in theirs):
        return None  # the values overlap: some points agree, not judged
    differ = [(s, v) for s, v in theirs if v.values != my.values]
    if not differ:
        return None
    mine_size = 1 + sum(1 for _, v in theirs if v.values == my.values)
    clusters: dict = {}
    for s, v in differ:
        clusters.setdefault(v.values, []).append((s, v))
    biggest = max(len(c) for c in clusters.values())
    if biggest < mine_size:
        return None
    top = [c for c in clusters.values() if len(c) == biggest]
    if biggest > mine_size and len(top) == 1:
        return top[0]
    # a tie
    my_default = _defaulted(my)
    for c in top:
        their_default = _defaulted(c[0][1])
        if my_default and not their_default:
            return c
    if my_default:
        return None
    if any(_defaulted(c[0][1]) for c in top):
        return None  # the others are at the default: they are the ones reported
    first = min([me.path.name, *(s.path.name for c in top for s, _ in c)])
    return top[0] if first == me.path.name else None


def _written(item) -> str:
    """A flag's name as the recipes write it: this recipe's spelling, else the sibling's."""
    key, _, my, against, _ = item
    for v in [my, *(a[1] for a in against)]:
        if v.flag is not None:
            if "." in key and "." not in v.flag.name:
                return f"{v.flag.name}.{key.partition('.')[2]}"  # a key inside the flag's JSON
            return v.flag.name
    return key


def _sibling_label(names) -> str:
    if len(names) == 1:
        return f"sibling {names[0]}"
    return f"siblings {', '.join(names[:-1])} and {names[-1]}"


def _verb(names, one: str = "passes", many: str = "pass") -> str:
    return one if len(names) == 1 else many


def _show_default(default: dict) -> str:
    if default.get("same_as") == "model":
        return "the model's"
    d = default.get("default")
    if d is None or d == "":
        return "none"
    if d is True:
        return "on"
    if d is False:
        return "off"
    return f"`{d}`"


@functools.lru_cache(maxsize=4096)
def _same(a: str, b: str) -> bool:
    try:
        return Path(a).resolve() == Path(b)
    except OSError:
        return False
