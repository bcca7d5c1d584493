"""What a flag's value is in one launch: the value passed, else the engine's default at the
release the sweep point's image runs — one query for every rule that compares flags or tests
their presence, so that a flag passed at its default equals the flag left out.

Defaults come from two places, in this order:

* ``rules/data/engine_defaults.yaml`` (``parity``): facts the engine histories cannot express,
  each with the file it was read from and the releases it was read at — ``same_as: model`` (the
  tokenizer is the model's when none is given) and ``none: [null, ""]`` (the values that mean
  "no parser / no template": an absent ``--tool-call-parser`` is no parser, not a run-time
  choice).  A ``none`` entry holds at a release only when the history's literal there (if it read
  one) is among those values: a release that starts defaulting to something is judged by it.
  A default is claimed for the judged releases that have the flag (the message names them), also
  beyond the releases a hand entry was read at, as the history's ``null`` there agrees.
* the engine history's literal default (``rules/data/catalogs/<engine>-history.json``,
  ``defaults``), when every judged release has the same non-null literal.  ``null`` (the engine
  decides at run time), a default the releases disagree on, or no reading: unknown — no claim.

vLLM's ``--max-num-seqs`` (resolved at run time from the GPU) has its own version-scoped table
(``vllm.max_num_seqs`` in engine_defaults.yaml), read by :func:`max_num_seqs_default`.
"""

from __future__ import annotations

import functools
import json
import re
from dataclasses import dataclass

from recipelint.engines import facts
from recipelint.engines.catalog import ENGINE_NAMES, NOT_READ, histories, version_key

#: the value of a flag left at "none" (no parser, no template): what ``none`` entries resolve to
NONE = "\0none"
_TRUE = ("true", "1", "yes", "on")
_FALSE = ("false", "0", "no", "off")


@dataclass(frozen=True, slots=True)
class Default:
    """An engine default judged for some releases."""

    engine: str
    value: object  # a JSON literal; NONE; or "same_as:model"
    versions: tuple[str, ...]  # the judged releases it holds at
    read_from: str  # the file (and field) it was read from

    @property
    def label(self) -> str:
        """``vLLM 0.25.1``, ``SGLang 0.5.12–0.5.23``, or the engine alone (no release known)."""
        name = ENGINE_NAMES.get(self.engine, self.engine)
        v = self.versions
        if not v:
            return name
        return f"{name} {v[0]}" if len(v) == 1 else f"{name} {v[0]}–{v[-1]}"

    @property
    def shown(self) -> str:
        d = self.value
        if d == "same_as:model":
            return "the model's"
        if d is NONE or d is None or d == "":
            return "none"
        if d is True:
            return "on"
        if d is False:
            return "off"
        return f"`{d}`"


@dataclass(frozen=True, slots=True)
class Effective:
    """A flag's effective value in one launch.

    ``value``: the value compared — ``"true"``/``"false"`` for booleans, the text otherwise,
    ``NONE`` for "none"; None when it is not known.  ``source``: ``passed`` (the recipe passes
    it — with ``value`` None when the value it passes is not known), ``default`` (it does not),
    ``unknown`` (not passed, and the default is not known; or a JSON flag that cannot be read).
    ``at_default``: the value is the engine's default at the judged releases (passed spelled out
    at it, or left out).  ``flag``: the occurrence that sets it."""

    value: str | None
    source: str
    at_default: bool
    flag: object = None
    default: Default | None = None

    @property
    def known(self) -> bool:
        return self.value is not None

    @property
    def where(self) -> str:
        """Where the value comes from, for messages: ``passed``, ``default at vLLM 0.25.1``, ``unknown``."""
        if self.source == "default" and self.default is not None:
            return f"default at {self.default.label}"
        return self.source


def _hand(engine: str, key: str) -> dict | None:
    spec = ((facts.load("engine_defaults").get("parity") or {}).get(engine) or {}).get(key)
    return spec if isinstance(spec, dict) else None


@functools.lru_cache(maxsize=4096)
def default_of(engine: str, key: str, releases: tuple[str, ...]) -> Default | None:
    """The default of ``key`` at every one of ``releases``, or None when it is not known there."""
    spec = _hand(engine, key)
    where = str((spec or {}).get("read_from", ""))
    h = histories().get(engine)
    literals: list = []
    if h is not None and releases:
        from recipelint.engines.catalog import default

        # only the releases that have the flag: where it does not exist, no recipe passes it
        # (RL601) and leaving it out is what every release without it does
        base = key.partition(".")[0]
        having = tuple(v for v in releases if v in h.pos and h.has("flags", base, h.pos[v]))
        releases = having or releases
        literals = [default(engine, key, v) for v in releases]
    if spec is not None and spec.get("same_as"):
        return Default(engine, f"same_as:{spec['same_as']}", releases, where)
    if spec is not None and "none" in spec:
        none = spec["none"]
        if all(d is NOT_READ or d in none for d in literals):
            return Default(engine, NONE, releases, where)
    if not literals or any(d is NOT_READ or d is None for d in literals):
        return None
    first = json.dumps(literals[0])
    if any(json.dumps(d) != first for d in literals[1:]):
        return None  # the releases disagree: not judged
    return Default(engine, literals[0], releases, f"{engine}-history.json")


def _bool(text: str) -> bool | None:
    low = text.strip().lower()
    return True if low in _TRUE else False if low in _FALSE else None


def normal(text: str, default: Default | None) -> tuple[str, bool]:
    """(the value as compared, whether it is the default) of a passed text."""
    t = text.strip()
    d = None if default is None else default.value
    if isinstance(d, bool):
        b = _bool(t)
        return (t, False) if b is None else (str(b).lower(), b == d)
    if d is NONE:
        return (NONE, True) if t == "" else (t, False)  # an empty value is none too
    if isinstance(d, (int, float)) and not isinstance(d, bool):
        try:
            return t, float(t) == float(d)
        except ValueError:
            return t, False
    if isinstance(d, str) and not d.startswith("same_as:"):
        return t, t == d
    return t, False


def effective(launch, key: str, releases: tuple[str, ...] | None) -> Effective:
    """The effective value of ``key`` (a canonical flag, or ``--flag.subkey`` for a key of a JSON
    flag) in ``launch`` for the judged ``releases`` (None: no release known)."""
    releases = tuple(releases or ())
    engine = launch.engine
    dflt = default_of(engine, key, releases) if releases else _default_unversioned(engine, key)
    if "." in key:
        return _json_key(launch, key, dflt)
    f = launch.get(key)
    neg = launch.get("--no-" + key[2:]) if key.startswith("--") else None
    if neg is not None and (f is None or neg.index > f.index):
        if dflt is None:
            return Effective("false", "passed", False, neg, None)
        return Effective("false", "passed", dflt.value is False, neg, dflt)
    if f is None:
        if dflt is None or str(dflt.value).startswith("same_as:"):
            if dflt is not None:
                return Effective(NONE, "default", True, None, dflt)  # the model's: the default
            return Effective(None, "unknown", False, None, None)
        return Effective(_shown_value(dflt.value), "default", True, None, dflt)
    if f.value is None:
        t = "true"
    else:
        t = f.text
        if t is None:
            return Effective(None, "passed", False, f, dflt)  # passed, its value not known
    if dflt is not None and dflt.value == "same_as:model":
        m = launch.model
        mt = m.text if m is not None else None
        if mt is None:
            return Effective(None, "unknown", False, f, dflt)
        same = t.rstrip("/") == mt.rstrip("/")
        return Effective(NONE if same else t, "passed", same, f, dflt)
    v, at = normal(t, dflt)
    if at:
        v = _shown_value(dflt.value) if dflt is not None else v
    return Effective(v, "passed", at, f, dflt)


def _default_unversioned(engine: str, key: str) -> Default | None:
    """Without a release: only hand entries that say what the default is by nature."""
    spec = _hand(engine, key)
    if spec is None:
        return None
    where = str(spec.get("read_from", ""))
    if spec.get("same_as"):
        return Default(engine, f"same_as:{spec['same_as']}", (), where)
    if "none" in spec:
        return Default(engine, NONE, (), where)
    return None


def _shown_value(d) -> str:
    if d is NONE:
        return NONE
    if isinstance(d, bool):
        return str(d).lower()
    if isinstance(d, float) and d.is_integer():
        return str(int(d))
    return str(d)


def _json_key(launch, key: str, dflt: Default | None) -> Effective:
    """A key inside a JSON flag (``--speculative-config.synthetic_acceptance_length``): written
    dotted, or inside the flag's JSON object."""
    base, _, sub = key.partition(".")
    dotted = launch.get(key)
    f = launch.get(base)
    absent = (
        Effective(_shown_value(dflt.value), "default", True, None, dflt)
        if dflt is not None
        else Effective(None, "unknown", False)
    )
    if dotted is not None and (f is None or dotted.index > f.index):
        t = dotted.text
        if t is None:
            return Effective(None, "passed", False, dotted, dflt)
        v, at = normal(t, dflt)
        return Effective(_shown_value(dflt.value) if at and dflt else v, "passed", at, dotted, dflt)
    if f is None:
        return absent
    if f.json is None:
        if f.text is None or f.text.lstrip().startswith("{"):
            return Effective(None, "unknown", False, f, dflt)
        return absent
    if f.json.kind != "object":
        return Effective(None, "unknown", False, f, dflt)
    node = f.json.get(sub)
    if node is None:
        keys_known = all(k.kind == "string" and k.value is not None for k, _ in f.json.items)
        return absent if keys_known else Effective(None, "unknown", False, f, dflt)
    if node.kind == "null":
        return absent
    if node.kind == "unknown" or node.value is None:
        return Effective(None, "passed", False, f, dflt)  # passed, its value not known
    v, at = normal(str(node.value), dflt)
    return Effective(_shown_value(dflt.value) if at and dflt else v, "passed", at, f, dflt)


# ---- vLLM --max-num-seqs: resolved at run time from the GPU --------------------------------------


@dataclass(frozen=True, slots=True)
class SeqsDefault:
    """vLLM's ``max_num_seqs`` when ``--max-num-seqs`` is not given, per engine."""

    value: int  # the cap, after what other flags do to it
    versions: tuple[str, ...]
    base: int  # the release's default on this GPU class
    gpu: str  # "on this GPU (70 GiB or more, not an A100)"
    note: str  # ", capped at 512 by `--max-num-batched-tokens 512`", or ""
    read_from: str

    @property
    def why(self) -> str:
        """``vLLM 0.25.1 defaults it to 1024 on this GPU (...), capped at 512 by ... (file)``."""
        return f"{self.label} defaults it to {self.base} {self.gpu}{self.note} ({self.read_from.split(' ')[0]})"

    @property
    def label(self) -> str:
        v = self.versions
        return f"vLLM {v[0]}" if len(v) == 1 else f"vLLM {v[0]}–{v[-1]}"


def _in(version: str, span: str) -> bool:
    lo, _, hi = str(span).partition("..")
    return version_key(lo) <= version_key(version) <= version_key(hi or lo)


def _gpu_class(spec: dict, gpu_tokens) -> str | None:
    tokens = {str(t).lower() for t in gpu_tokens or ()}
    for cls, names in (spec.get("gpu_classes") or {}).items():
        if tokens & {str(n) for n in names}:
            return str(cls)
    return None


_INT = re.compile(r"\s*\d{1,18}\s*$")  # (a longer number is not judged: int() refuses > 4300 digits)


def max_num_seqs_default(launch, releases: tuple[str, ...] | None, gpu_tokens) -> SeqsDefault | None:
    """vLLM's per-engine ``max_num_seqs`` for a launch without ``--max-num-seqs``, at every one of
    ``releases`` on the GPU the recipe's name says (``gpu_tokens``), or None when it is not known:
    the releases or the GPU class disagree, or a flag that changes it has an unknown value."""
    spec = facts.load("engine_defaults")["vllm"]["max_num_seqs"]
    cls = _gpu_class(spec, gpu_tokens)
    if cls is None or not releases:
        return None
    values: set[tuple[int, int]] = set()
    why = ""
    reads: list[str] = []
    for v in releases:
        row = next((r for r in spec["by_release"] if _in(v, r["versions"])), None)
        if row is None or row.get(cls) is None:
            return None
        reads.append(str(row["read_from"]))
        got, note = _seqs_modifiers(launch, v, int(row[cls]), spec)
        if got is None:
            return None
        values.add((int(row[cls]), got))
        why = note or why
    if len(values) != 1:
        return None
    where = {"large": "on this GPU (70 GiB or more, not an A100)", "small": "on this GPU (under 70 GiB)", "a100": "on an A100"}
    base, value = values.pop()
    return SeqsDefault(value, tuple(releases), base, where.get(cls, ""), why, reads[-1])


def _seqs_modifiers(launch, version: str, n: int, spec: dict) -> tuple[int | None, str]:
    """What other flags do to the default at ``version``: ``--performance-mode throughput``
    doubles it; a passed ``--max-num-batched-tokens`` (and the batched DP-MoE token default) caps it."""
    note = ""
    for mod in spec.get("modifiers") or ():
        if not _in(version, mod["versions"]):
            continue
        kind = mod["kind"]
        f = launch.get(mod["flag"]) if mod.get("flag") else None
        if kind == "doubled_by" and f is not None:
            t = f.text
            if t is None:
                return None, ""
            if t.strip() == mod["value"]:
                n *= 2
                note = f", doubled to {n} by `{mod['flag']} {mod['value']}`"
        elif kind == "capped_by" and f is not None:
            t = f.text
            if t is None or not _INT.match(t):
                return None, ""
            if int(t) < n:
                n, note = int(t), f", capped at {int(t)} by `{mod['flag']} {int(t)}`"
        elif kind == "batched_dp_moe" and launch.get("--max-num-batched-tokens") is None:
            backend = launch.get("--all2all-backend")
            if backend is None:
                continue
            if backend.text is None:
                return None, ""
            if backend.text.strip() in mod["backends"] and launch.has("--enable-expert-parallel"):
                dp = launch.get("--data-parallel-size")
                if dp is None:
                    continue
                if dp.text is None or not _INT.match(dp.text):
                    return None, ""
                if int(dp.text) > 1 and int(mod["tokens"]) < n:
                    n = int(mod["tokens"])
                    note = f", capped at {n} (the batched-token default of `--all2all-backend {backend.text.strip()}` with expert and data parallelism)"
    return n, note


__all__ = ["NONE", "Default", "Effective", "SeqsDefault", "default_of", "effective", "max_num_seqs_default", "normal"]
