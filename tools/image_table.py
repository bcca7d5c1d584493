"""Print, for every distinct image of a benchmark repository's master configs, the engine it runs
and the releases recipelint judges it against, and why — a markdown table.

    python tools/image_table.py [--repo /work/ix/git]

The configs are read with recipelint's own loader (``recipelint.sweep.configs.load``); the engine
of an entry is named by its ``framework:`` (``dynamo-vllm`` → vLLM, ``sglang-disagg`` → SGLang,
``trt``/``dynamo-trt`` → TensorRT-LLM, ``atom`` → ATOM).  Each image is resolved as the rules
resolve a point's ``IMAGE`` (``recipelint.engines.versions.resolve``).  Other ``*_IMAGE``
settings of the entries (``PREFILL_IMAGE``, ``CLIENT_IMAGE``) and ``IMAGE=`` literals in the
recipes are listed after the table: they do not feed ``IMAGE``, so no rule judges them.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from recipelint.engines.catalog import ENGINE_NAMES, versions
from recipelint.engines.versions import parse_image, release_in_tag, resolve
from recipelint.files import Refused, read_regular
from recipelint.sweep import configs

#: framework token → engine (the first that occurs in the framework's `-`-separated words)
FRAMEWORK_ENGINE = (("vllm", "vllm"), ("sglang", "sglang"), ("trt", "trtllm"), ("atom", "atom"), ("tilert", "tilert"))

#: why an engine has no catalog (what the rules then do: nothing version-dependent)
NO_CATALOG = {
    "trtllm": "no catalog: every tensorrt-llm release on PyPI (0.x to 1.4.0rc) is a stub sdist (no source: license and attribution files), "
    "the wheels are on pypi.nvidia.com (unreachable here) and the source repository is 2.5 GB",
    "tilert": "no catalog: TileRT's launcher is not one recipelint knows (rules/data/engines.yaml)",
}
MORE = {"tilert": "TileRT", "atom": "ATOM", "trtllm": "TensorRT-LLM"}


def engine_of(framework: str) -> str:
    words = re.split(r"[-_]", framework.lower())
    for tok, engine in FRAMEWORK_ENGINE:
        if any(w == tok or w.startswith(tok) for w in words):
            return engine
    return framework or "?"


def judged(engine: str, image: str) -> tuple[str, str]:
    """(judged against, why) for one image under one engine."""
    if engine == "trtllm":
        # no release catalog; judged against the sources read (docs/engine-histories.md, TensorRT-LLM)
        from recipelint.engines import llmapi

        release = llmapi.release_of_image(image)
        named = f"the tag names {release}; " if release else "the tag names no release; "
        return "sources read", (
            named + f"flags against serve.py, options files against {llmapi.catalog().source}, renames by release "
            "(" + NO_CATALOG["trtllm"] + ")"
        )
    if not versions(engine):
        note = NO_CATALOG.get(engine, "no catalog for this engine")
        tag = parse_image(image)
        for other in ("vllm", "sglang"):  # say when the tag's number is not the engine's
            found = release_in_tag(other, tag)
            if found:
                note += f" (the tag's {found[0]} reads as {ENGINE_NAMES[other]} only for {ENGINE_NAMES[other]} launches)"
        return "not judged", note
    ev = resolve(engine, image)
    span = (
        "not judged" if not ev.versions else (ev.versions[0] if len(ev.versions) == 1 else f"{ev.versions[0]}–{ev.versions[-1]}")
    )
    if ev.exact:
        return span, "the tag names this release"
    label = ev.label
    why = label[label.index("(") + 1 : -1] if "(" in label else label
    return span, why.replace(f"image `{image}` is ", "").replace(f"image `{image}` ", "")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repo", type=Path, default=Path("/work/ix/git"))
    a = ap.parse_args(argv)
    root = a.repo.resolve()
    cs = configs.load(root)
    if not cs.entries:
        print(f"{a.repo}: no master configs", file=sys.stderr)
        return 2
    # retired configs (InferenceX `configs/deprecated/`): not a sweep source of `recipelint
    # check`, listed so that every pinned image is in the table
    retired = sorted((root / "configs" / "deprecated").glob("*.yaml")) if (root / "configs").is_dir() else []
    old = configs.load(root, explicit=retired) if retired else None
    images: dict[str, dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))
    extra: dict[tuple[str, str], set[str]] = defaultdict(set)
    only_retired: set[str] = set()
    for ce in old.entries if old else []:
        if ce.image:
            images[ce.image][engine_of(ce.framework)].add(ce.framework)
            only_retired.add(ce.image)
    for ce in cs.entries:
        if ce.image:
            images[ce.image][engine_of(ce.framework)].add(ce.framework)
            only_retired.discard(ce.image)
    print("| image | engine (framework) | judged against | why |\n|---|---|---|---|")
    for image in sorted(images):
        for engine, fws in sorted(images[image].items()):
            span, why = judged(engine, image)
            name = ENGINE_NAMES.get(engine, MORE.get(engine, engine))
            mark = " †" if image in only_retired else ""
            print(f"| `{image}`{mark} | {name} ({', '.join(sorted(fws))}) | {span} | {why} |")
    for f in cs.files + (old.files if old else []):  # `PREFILL_IMAGE=...` in additional-settings
        try:
            text = read_regular(f, configs.MAX_CONFIG_BYTES).decode("utf-8", "replace")
        except (Refused, OSError):
            continue
        for m in re.finditer(r"\b([A-Z][A-Z0-9_]*_IMAGE)=([^\s\"']+)", text):
            extra[(m.group(1), m.group(2))].add(f.name)
    n_old = len(old.files) if old else 0
    print(
        f"\n{len(images)} distinct images: {len(images) - len(only_retired)} in {len(cs.files)} sweep sources "
        f"({len(cs.entries)} entries), {len(only_retired)} more (†) only in {n_old} retired configs "
        "(`configs/deprecated/`, which `recipelint check` does not run)."
    )
    if extra:
        print("\nOther images the entries set (not `IMAGE`: no rule judges them):\n")
        for (k, v), keys in sorted(extra.items()):
            print(f"- `{k}={v}` (in {', '.join(sorted(keys))})")
    lits = hard_coded(a.repo)
    print(
        "\nRecipes that set `IMAGE` to a literal: "
        + (", ".join(f"`{p}`: `{v}`" for p, v in lits) if lits else "none (they only pass `$IMAGE` on)")
    )
    return 0


_ASSIGN = re.compile(r"""^\s*(?:export\s+)?IMAGE=["']?([^\s"'$]+)|\$\{IMAGE:[-=]([^}$]+)\}""", re.M)


def hard_coded(repo: Path) -> list[tuple[str, str]]:
    out = []
    bench = repo / "benchmarks"
    for p in sorted(bench.rglob("*.sh")) if bench.is_dir() else []:
        try:
            text = read_regular(p, 4 * 1024 * 1024).decode("utf-8", "replace")
        except (Refused, OSError):
            continue
        for m in _ASSIGN.finditer(text):
            out.append((str(p.relative_to(repo)), m.group(1) or m.group(2)))
    return out


if __name__ == "__main__":
    raise SystemExit(main())
