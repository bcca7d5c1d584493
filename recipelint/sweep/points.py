"""Sweep points: the environments a recipe is evaluated under.

When no master config reaches a script, a *default environment matrix* stands in: the
variables a benchmark launcher always sets, plus a few topologies (pure TP, DEP with
DP-attention, a small TP) and concurrencies.  Values a launcher sets but that we cannot
know (``MODEL``, ``IMAGE``) are opaque: set and non-empty, value unknown.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from recipelint.evaluate.values import Opaque


@dataclass(slots=True)
class SweepPoint:
    label: str  # short, stable: "tp8-ep1-dpafalse-conc64" or "nvidia-master.yaml:1234#conc=72"
    env: dict
    origin: object = None  # a config location for points from a master config
    config_key: str | None = None
    extra: dict = field(default_factory=dict)

    def describe(self) -> str:
        keys = ("TP", "EP_SIZE", "DP_ATTENTION", "CONC", "KV_OFFLOADING", "KV_OFFLOAD_BACKEND", "SPEC_DECODING")
        parts = [
            f"{k}={self.env[k]}"
            for k in keys
            if k in self.env and not isinstance(self.env[k], Opaque) and self.env[k] not in ("", None)
        ]
        return " ".join(parts)

    def to_dict(self) -> dict:
        return {
            "label": self.label,
            "config_key": self.config_key,
            "env": {
                k: (None if isinstance(v, Opaque) else v)
                for k, v in sorted(self.env.items())
                if v is not None and not k.startswith("\0")  # (not the evaluation's own keys)
            },
        }


# (TP, EP_SIZE, DP_ATTENTION, CONC)
DEFAULT_TOPOLOGIES = (
    (8, 1, "false", 64),
    (8, 8, "true", 64),
    (4, 1, "false", 4),
    (8, 1, "false", 32),
    (8, 8, "true", 512),
    (1, 1, "false", 1),
)


def base_env(script_name: str, agentic: bool) -> dict:
    env = {
        "MODEL": Opaque(),
        "MODEL_PREFIX": Opaque(),
        "IMAGE": Opaque(),
        "EXP_NAME": Opaque(),
        "FRAMEWORK": Opaque(),
        "PRECISION": Opaque(),
        "RESULT_FILENAME": Opaque(),
        "HF_HUB_CACHE": "/mnt/hf_hub_cache/",
        "HF_TOKEN": Opaque(),
        "RANDOM_RANGE_RATIO": "0.8",
        "RESULT_DIR": "/workspace/results",
        "PP_SIZE": "1",
        "DCP_SIZE": "1",
        "PCP_SIZE": "1",
        "RUN_EVAL": "false",
        "EVAL_ONLY": "false",
        "DURATION": "3600",
        "DISAGG": "false",
        "SPEC_DECODING": "mtp" if "_mtp" in script_name else "none",
        "PYTHONDONTWRITEBYTECODE": "1",
    }
    if agentic:
        env.update(
            {
                "ISL": "0",
                "OSL": "0",
                "MAX_MODEL_LEN": "0",
                "SCENARIO_TYPE": "agentic-coding",
                "SCENARIO_SUBDIR": "agentic/",
                "IS_AGENTIC": "1",
                "KV_OFFLOADING": "none",
                "KV_OFFLOAD_BACKEND": "",
                "TOTAL_CPU_DRAM_GB": "0",
            }
        )
    else:
        env.update(
            {
                "ISL": "1024",
                "OSL": "1024",
                "MAX_MODEL_LEN": "2248",
                "SCENARIO_TYPE": "fixed-seq-len",
                "SCENARIO_SUBDIR": "fixed_seq_len/",
                "IS_AGENTIC": "0",
            }
        )
    return env


_BACKEND = re.compile(r"require_agentic_kv_offload_backend\s+[\"']?([A-Za-z0-9_.-]+)")
_DRAM_GB = {8: "2849", 4: "1424", 2: "712", 1: "356"}


def offload_backends(text: str) -> list[str]:
    """KV-offload backends a recipe accepts, read from its ``require_..._backend NAME`` calls."""
    return sorted(set(_BACKEND.findall(text or "")))


def default_points(path_text: str, text: str | None = None) -> list[SweepPoint]:
    """The default environment matrix for a recipe no master config reaches.  For agentic
    recipes, each KV-offload backend the recipe accepts is swept too (on the TP8 and DEP8
    topologies, with the DRAM budget a launcher would pass)."""
    name = path_text.rsplit("/", 1)[-1]
    agentic = "/agentic/" in f"/{path_text}" or "agentic" in name
    out = []
    for tp, ep, dpa, conc in DEFAULT_TOPOLOGIES:
        env = base_env(name, agentic)
        env.update({"TP": str(tp), "EP_SIZE": str(ep), "DP_ATTENTION": dpa, "CONC": str(conc), "GPU_COUNT": str(tp)})
        out.append(SweepPoint(f"tp{tp}-ep{ep}-dpa{dpa}-conc{conc}", env, origin="default matrix"))
    if agentic:
        for backend in offload_backends(text or ""):
            for tp, ep, dpa, conc in DEFAULT_TOPOLOGIES[:2]:
                env = base_env(name, agentic)
                env.update(
                    {
                        "TP": str(tp),
                        "EP_SIZE": str(ep),
                        "DP_ATTENTION": dpa,
                        "CONC": str(conc),
                        "GPU_COUNT": str(tp),
                        "KV_OFFLOADING": "dram",
                        "KV_OFFLOAD_BACKEND": backend,
                        "TOTAL_CPU_DRAM_GB": _DRAM_GB.get(tp, "2849"),
                    }
                )
                out.append(SweepPoint(f"tp{tp}-ep{ep}-dpa{dpa}-conc{conc}-{backend}", env, origin="default matrix"))
    return out


def point_from_overrides(path_text: str, overrides: dict[str, str]) -> SweepPoint:
    name = path_text.rsplit("/", 1)[-1]
    agentic = "/agentic/" in f"/{path_text}"
    env = base_env(name, agentic)
    env.update({"TP": "8", "EP_SIZE": "1", "DP_ATTENTION": "false", "CONC": "64", "GPU_COUNT": "8"})
    for k, v in overrides.items():
        env[k] = v
    if "TP" in overrides and "GPU_COUNT" not in overrides:
        env["GPU_COUNT"] = overrides["TP"]
    label = " ".join(f"{k}={v}" for k, v in overrides.items()) or "default"
    return SweepPoint(label, env, origin="--env")


#: the profiles: how a script no master config reaches is evaluated
PROFILES = ("auto", "inferencex", "environment")


def reads_sweep_variables(text: str | None) -> bool:
    """Whether a script is written against InferenceX's sweep interface: it reads one of the
    variables only that benchmark's workflow sets (``profile_variables`` in inferencex.yaml)."""
    from recipelint.engines import facts

    names = facts.load("inferencex").get("profile_variables") or []
    if not text or not names:
        return False
    # (a name, not only `$NAME`: arithmetic reads them bare, `$((2 * CONC / TP))`)
    return re.search(r"(?<![\w-])(?:" + "|".join(map(re.escape, names)) + r")(?![\w-])", text) is not None


def environment_point(env: dict | None = None, args: list[str] | None = None) -> SweepPoint:
    """The one point of a script outside a benchmark repository: its caller's environment
    (``values.AMBIENT``: variables it reads without setting are set, not known, unless it gives
    them a default) and positional parameters not known (or ``args``), plus ``env``."""
    from recipelint.evaluate.values import AMBIENT, ARGV

    point_env: dict = {AMBIENT: "1", ARGV: tuple(args) if args is not None else None}
    point_env.update(env or {})
    label = "caller-env" + "".join(f" {k}={v}" for k, v in (env or {}).items()) + (f" args: {' '.join(args)}" if args else "")
    return SweepPoint(label, point_env, origin="the caller's environment")


def unconfigured_points(path_text: str, text: str | None, profile: str = "auto", configs_found: bool = False, defaults=None):
    """The points of a script no master config reaches: the default matrix (InferenceX's
    variables, for a script in a repository with master configs or one that reads them), or its
    caller's environment (any other script).  ``defaults``: (env, args) the settings give it."""
    env, args = defaults if defaults is not None else ({}, None)
    if profile == "inferencex" or (profile == "auto" and (configs_found or reads_sweep_variables(text))):
        pts = default_points(path_text, text)
        if env:
            for p in pts:
                p.env.update(env)
        return pts
    return [environment_point(env, args)]
