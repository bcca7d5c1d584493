import re

from recipelint.engines import facts
from recipelint.engines.catalog import version_key
from recipelint.lint.rulebase import Rule, env_file_json, kv_connector


def key_ranges(spec: dict, connector_since: str) -> tuple[str, str | None]:
    return str(spec.get("since", connector_since)), (str(spec["until"]) if "until" in spec else None)


class UnknownConnectorKey(Rule):
    """
    ## What it does
    Reports a `kv_connector_extra_config` key that the named vLLM KV connector does not read.

    ## Why is this bad?
    `kv_connector_extra_config` is a free-form dict: vLLM ignores keys no connector reads,
    silently.  A misspelt or invented key (`cpu_byte_to_use`, `lazy_offloading`) therefore
    loses the setting without an error, and the benchmark runs with the connector's default
    (for SimpleCPUOffloadConnector, 8 GiB of CPU cache and eager offload).

    The key sets come from the connectors' own source in each vLLM release (see
    `rules/data/connectors.yaml`).  SimpleCPUOffloadConnector reads `cpu_bytes_to_use`,
    `cpu_bytes_to_use_per_rank` and `lazy_offload` in every release that has it (0.19.0 on):
    `cpu_bytes_to_use_per_rank` is a real key (a per-rank override of the server-wide
    `cpu_bytes_to_use`) and is not reported.

    A key of a connector's own config file (MooncakeStoreConnector's `MOONCAKE_CONFIG_PATH`
    JSON: `enable_offload`, `global_segment_size`, ...) written into the extra config is ignored
    there; the message says where it is read.

    The message offers a correction only when it is one: a key the connector reads at that
    release, of the same value type, whose name differs by a typo in one word (`cpu_byte_to_use`
    → `cpu_bytes_to_use`) or is a listed synonym — never a word's opposite (`sync`/`async`,
    `enable`/`disable`) and never a key whose wrong value does harm (`enable_lookup`).

    ## Example
    ```json
    {"kv_connector": "SimpleCPUOffloadConnector", "kv_role": "kv_both",
     "kv_connector_extra_config": {"cpu_byte_to_use": 400000000000}}
    ```

    ## Use instead
    ```json
    {"kv_connector": "SimpleCPUOffloadConnector", "kv_role": "kv_both",
     "kv_connector_extra_config": {"cpu_bytes_to_use": 400000000000}}
    ```

    ## Exceptions
    Connectors whose extra config belongs to another package (LMCacheConnectorV1,
    LMCacheMPConnector, NixlConnector) are only checked for the version of the keys vLLM itself
    defines; unknown connectors are not checked.  Keys vLLM reads from any connector's config
    (`enable_cross_layers_blocks`, 0.24.0–0.27.1) are accepted in those releases.  Keys that
    changed across releases are judged for the sweep point's release (from its image; a nightly
    is judged against the releases around it).  A config-file key that the script also wrote,
    with the same value, into the file the connector reads (the file's path in the launch's
    environment) is not reported: the setting takes effect there.
    """

    code = "RL302"
    name = "unknown-connector-key"
    severity = "warning"

    def check(self, ctx):
        data = facts.load("connectors")
        conns = data["vllm"]
        common = data.get("any_connector", {})
        for use in ctx.uses("vllm"):
            lc = use.launch
            name, extra, flag = kv_connector(lc)
            spec = conns.get(name) if name else None
            if spec is None or extra is None:
                continue
            ev = use.engine_version("vllm")
            if ev is None:
                continue
            since = str(spec.get("since", "0"))
            known = dict(spec["keys"])
            for k, v in common.items():
                known.setdefault(k, v)
            for key_node, value in extra.items:
                key = key_node.value
                if key is None:
                    continue
                kspec = known.get(key)
                if kspec is not None:
                    lo, hi = key_ranges(kspec, since)
                    if _reads(lo, hi, ev.versions):
                        continue
                    span = f"{lo}–{hi}" if hi else f"{lo} and later"
                    msg = (
                        f"{name} reads `{key}` only in vLLM {span}, not in {ev.short}: the setting has no effect; drop it "
                        f"or run a release that reads it"
                    )
                    yield ctx.finding(key_node.loc, msg, use.point, key=key, variant=ev.label)
                    continue
                cfile = spec.get("config_file")
                fspec = (cfile or {}).get("keys", {}).get(key)
                if fspec is not None and _reads(*key_ranges(fspec, since), ev.versions):
                    finding = _config_file_key(ctx, use, name, key_node, value, cfile, ev)
                    if finding is not None:
                        yield finding
                    continue
                if spec.get("open"):
                    continue
                readable = {k: v for k, v in known.items() if _reads(*key_ranges(v, since), ev.versions)}
                hint = suggestion(key, value, readable, data.get("suggestions", {}))
                msg = f"{name} does not read `{key}` from kv_connector_extra_config ({ev.short}): the setting has no effect" + (
                    f"; did you mean `{hint}`?" if hint else "; drop it"
                )
                yield ctx.finding(key_node.loc, msg, use.point, key=key)


def _config_file_key(ctx, use, name, key_node, value, cfile, ev):
    """A key of the connector's own config file, written into the extra config: no finding when
    the file the launch names holds it with the same value."""
    env = cfile["env"]
    key = key_node.value
    doc = env_file_json(use.launch, env)
    there = doc.get(key) if doc is not None else None
    if there is not None and there.known and value.known and _same(there, value):
        return None
    where = (
        f"the {env} file ({name} reads it with {cfile.get('loader', 'its config loader')}), not from kv_connector_extra_config"
    )
    if there is not None and there.known and value.known:
        msg = (
            f"`{key}` is read from {where} ({ev.label}): this value is ignored, and the file's "
            f"`{there.raw or there.value}` applies; remove it here or make the two agree"
        )
        related = [(there.loc, f"{env} sets `{key}` here")]
    else:
        msg = f"`{key}` is read from {where} ({ev.label}): vLLM ignores it here; set it in that file"
        related = []
    return ctx.finding(key_node.loc, msg, use.point, related, key=key, variant=ev.label)


def _same(a, b) -> bool:
    return a.kind == b.kind and a.value == b.value and type(a.value) is type(b.value)


# ---- corrections --------------------------------------------------------------------------

_WORD = re.compile(r"[_.\-]+")


def suggestion(key: str, value, candidates: dict, data: dict) -> str | None:
    """The one key ``key`` is a slip for, or None: a candidate of the same value type whose
    name is a listed synonym, or differs from ``key`` in one word by a typo (never a word and its
    opposite); candidates marked ``suggest: false`` are never offered."""
    offered = {k: v for k, v in candidates.items() if v.get("suggest", True) and _fits(v.get("parse", "any"), value)}
    syn = (data.get("synonyms") or {}).get(key)
    if syn in offered:
        return syn
    opposites = {frozenset(p) for p in data.get("opposites") or []}
    words = _WORD.split(key.lower())
    best: list[tuple[int, str]] = []
    for cand in sorted(offered):
        cw = _WORD.split(cand.lower())
        if len(cw) != len(words) or cand == key:
            continue
        diff = [(a, b) for a, b in zip(words, cw, strict=True) if a != b]
        if len(diff) != 1:
            continue
        a, b = diff[0]
        if frozenset((a, b)) in opposites or not _typo(a, b):
            continue
        best.append((_distance(a, b), cand))
    best.sort()
    if not best or (len(best) > 1 and best[0][0] == best[1][0]):
        return None  # none, or two equally close: no single correction
    return best[0][1]


def _fits(parse: str, value) -> bool:
    """Whether a JSON value is of the kind a key parsed with ``parse`` takes."""
    kind = getattr(value, "kind", "unknown")
    if kind == "unknown" or parse in ("any", "size"):
        return True
    if parse == "bool":
        return kind == "bool" or (kind == "number" and value.value in (0, 1))
    if parse == "int":
        return kind == "number" or (kind == "string" and str(value.value or "").strip().isdigit())
    if parse == "str-true":
        return kind in ("string", "bool")
    return True


def _typo(a: str, b: str) -> bool:
    """Two spellings of one word: an inflection (`byte`/`bytes`, `offload`/`offloading`) or a
    slip of one character (two in words of eight or more)."""
    short, long_ = sorted((a, b), key=len)
    if len(short) >= 4 and long_.startswith(short) and len(long_) - len(short) <= 3:
        return True
    return _distance(a, b) <= (2 if min(len(a), len(b)) >= 8 else 1)


def _distance(a: str, b: str) -> int:
    """Optimal-string-alignment distance (an adjacent swap counts once)."""
    prev2: list[int] = []
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i] + [0] * len(b)
        for j, cb in enumerate(b, 1):
            cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb))
            if i > 1 and j > 1 and ca == b[j - 2] and a[i - 2] == cb:
                cur[j] = min(cur[j], prev2[j - 2] + 1)
        prev2, prev = prev, cur
    return prev[-1]


def _reads(lo: str, hi: str | None, judged: tuple) -> bool:
    """Whether a key read from release ``lo`` (to ``hi``) is read by any release judged."""
    if not judged:
        return True
    return any(version_key(lo) <= version_key(v) and (hi is None or version_key(v) <= version_key(hi)) for v in judged)
