"""Commands other than serve launches that rules care about: changes to the engine in the image
(patches, in-place edits of installed sources, engine packages installed over the image).

Classified from the expanded argv (and a heredoc on stdin), like launches; the facts are data
in ``rules/data/policy.yaml``.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass

from recipelint.bash.source import Loc
from recipelint.engines import facts
from recipelint.evaluate.values import Word, text_of


@dataclass(slots=True)
class EngineChange:
    kind: str  # patch | edit | install | script
    argv: tuple[Word, ...]
    loc: Loc
    detail: str
    point: object = None
    #: for an engine installed from a checkout or a git URL (not a release): where from
    source: str | None = None

    @property
    def command(self) -> str:
        return " ".join(w.shown for w in self.argv)


def change_words() -> dict:
    """Commands that may change the engine, for the evaluator's branch pruning (a branch that
    runs one must be followed): name -> argv prefixes (None: any use)."""
    pol = facts.load("policy")
    out: dict = {n: None for n in ("patch", "git", "pip", "pip3", "uv", *pol["writers"])}
    out["python"] = [("-",), ("-c",), ("-m", "pip")]
    return out


def _engine_path(text: str | None, paths) -> bool:
    return bool(text) and any(p in text for p in paths)


_PY_OR_PIP = re.compile(r"python[0-9.]*|pip[0-9.]*")


def classify(argv: list[Word], loc: Loc, stdin=None) -> EngineChange | None:
    first = argv[0].text if argv else None
    if first is None:
        return None
    pol = facts.load("policy")
    name = os.path.basename(first)
    if name not in ("patch", "git", "uv") and name not in pol["writers"] and not _PY_OR_PIP.fullmatch(name):
        return None  # (most commands: their words are not looked at)
    texts = [w.text for w in argv]
    paths = pol["engine_paths"]
    args = [t for t in texts[1:]]
    known = [t for t in args if t is not None]
    if name == "patch":
        return EngineChange("patch", tuple(argv), loc, "`patch` applies a diff")
    if name == "git" and known[:1] and known[0] in ("apply", "am"):
        return EngineChange("patch", tuple(argv), loc, f"`git {known[0]}` applies a diff")
    if name in pol["writers"]:
        in_place = name not in ("sed", "perl") or any(
            t == "-i" or re.match(r"^-[a-zA-Z]*i", t or "") or (t or "").startswith("--in-place") for t in args
        )
        targets = known[-1:] if name in ("cp", "mv", "install", "rsync", "ln") else known
        if in_place and any(_engine_path(t, paths) for t in targets):
            where = next(t for t in targets if _engine_path(t, paths))
            return EngineChange("edit", tuple(argv), loc, f"`{name}` changes `{where}` in the image")
    if re.fullmatch(r"python[0-9.]*", name) and "-" in known and stdin is not None:
        body = text_of(stdin) or ""
        if _engine_path(body, paths) and re.search(r"write_text|write_bytes|\.write\(|open\([^)]*['\"][wa]", body):
            return EngineChange("edit", tuple(argv), loc, "a Python heredoc rewrites files of the installed engine")
    if _is_pip_install(name, known):
        pkgs = _engine_packages(known, pol["engine_packages"])
        if pkgs:
            return EngineChange("install", tuple(argv), loc, f"installs {', '.join(pkgs)} over the image's engine")
        built = _engine_sources(known, pol["engine_packages"])
        if built:
            engine, where = built[0]
            return EngineChange(
                "install", tuple(argv), loc, f"installs {engine} from `{where}` over the image's engine", source=where
            )
    return None


def _is_pip_install(name: str, args: list[str]) -> bool:
    if name in ("pip", "pip3", "uv") or re.fullmatch(r"pip[0-9.]*", name):
        return "install" in args
    if re.fullmatch(r"python[0-9.]*", name):
        return args[:2] == ["-m", "pip"] and "install" in args
    return False


def _engine_sources(args: list[str], engine: list[str]) -> list[tuple[str, str]]:
    """(engine package, argument) for an engine installed from source rather than a release: a
    git URL (``git+https://github.com/org/sglang.git@branch#subdirectory=python``) or a local path
    (``-e ./vllm``, ``/workspace/sglang/python[all]``) that names the engine's package among its
    components."""
    norm = {e.lower().replace("_", "-"): e for e in engine}
    out = []
    for a in args[args.index("install") + 1 :]:
        if a.startswith("-"):
            continue
        if not (a.startswith(("git+", ".", "/", "~")) or "://" in a or "/" in a):
            continue  # (a release: `_engine_packages`)
        url = a.split("#", 1)[0]
        if "@" in url.rsplit("/", 1)[-1]:
            url = url.rsplit("@", 1)[0]
        for part in re.split(r"[/:]", url):
            name = re.sub(r"(\.git|\[.*\])$", "", part).lower().replace("_", "-")
            if name in norm:
                out.append((norm[name], a))
                break
    return out


def _engine_packages(args: list[str], engine: list[str]) -> list[str]:
    out = []
    skip_next = False
    for a in args[args.index("install") + 1 :]:
        if skip_next:
            skip_next = False
            continue
        if a in ("-r", "--requirement", "-c", "--constraint", "--extra-index-url", "--index-url", "-i", "--target", "-t"):
            skip_next = True
            continue
        if a.startswith("-"):
            continue
        base = re.split(r"[=<>!~\[@; ]", os.path.basename(a.rstrip("/")), maxsplit=1)[0].lower().replace("_", "-")
        if base.endswith(".whl"):
            base = base.split("-")[0]
        norm = {e.lower().replace("_", "-") for e in engine}
        if base in norm:
            out.append(base)
    return out
