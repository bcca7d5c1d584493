"""TensorRT-LLM's LLM-API options: the YAML file a ``trtllm-serve`` launch passes with
``--config FILE`` / ``--extra_llm_api_options FILE``, found and decoded with positions.

Where the file comes from, in order:

* **written by the script** before the launch (``cat > cfg.yml <<EOF``, ``echo … >> cfg.yml``,
  ``printf``): the evaluator's record of files written (``Launch.files``), so its values are the
  ones of this sweep point and each key points at the heredoc line it was written on;
* **a file in the checked tree** (``--config configs/x.yaml``): read through ``recipelint.files``
  (inside the run's roots, regular, bounded) relative to the recipe's folder or the repository
  root — the launch's working directory is not known, so both are tried and the first that
  exists is taken;
* otherwise **unseen**: the reason is kept so that a rule says so (never silent).

Then :func:`resolve` merges what the server validates: the CLI flags that map to LLM-API fields
(``--max_batch_size``, ``--tp_size`` …, from ``rules/data/trtllm_llm_args.yaml``) with the YAML
over them, as ``trtllm-serve`` does (``update_llm_args_with_extra_dict``: the file wins).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from recipelint.engines import facts
from recipelint.engines.jsonpos import JNode, JsonError
from recipelint.engines.launches import Flag, Launch
from recipelint.evaluate.values import Word, file_key

#: the largest options file read from the tree
MAX_BYTES = 1 << 20


@dataclass(slots=True)
class OptionsFile:
    flag: Flag  # `--config FILE` as passed
    name: str | None  # the path as the launch names it (None: not known)
    origin: str  # "written" (by the script) | "tree" | "unseen"
    root: JNode | None = None  # the decoded document (an object when judged)
    error: JsonError | None = None  # the document does not load
    why: str = ""  # unseen: why
    path: Path | None = None  # tree: the file read

    @property
    def judged(self) -> bool:
        return self.root is not None and self.root.kind == "object"


def spec() -> dict:
    return facts.load("trtllm_llm_args")


def options_flag(lc: Launch) -> Flag | None:
    """The flag naming the options file (the last one wins, as click keeps it)."""
    names = spec()["options_file_flags"]
    found = [f for f in lc.flags if f.name.split("=", 1)[0] in names]
    return found[-1] if found else None


def options_file(lc: Launch, recipe: Path | None = None, roots=()) -> OptionsFile | None:
    """The options file of a TensorRT-LLM launch, or None when it passes none."""
    if lc.engine != "trtllm":
        return None
    f = options_flag(lc)
    if f is None:
        return None
    value: Word | None = f.value
    name = value.text if value is not None else None
    if name is None:
        return OptionsFile(f, None, "unseen", why="its path is not known at this sweep point")
    written = lc.files.get(file_key(name))
    if written is not None:
        return _decoded(OptionsFile(f, name, "written"), written)
    if recipe is not None:
        got = _from_tree(name, recipe, roots)
        if isinstance(got, str):
            return OptionsFile(f, name, "unseen", why=got)
        path, text = got
        from recipelint.bash.source import Loc, SourceFile
        from recipelint.evaluate.values import Chunk

        data = text.encode("utf-8")
        src = SourceFile(str(path), data)  # (findings point into the file, line and column)
        out = OptionsFile(f, name, "tree", path=path)
        return _decoded(out, (Chunk(text, Loc(src, 0, len(data))),))
    return OptionsFile(f, name, "unseen", why="the script does not write it before the launch")


def _decoded(out: OptionsFile, chunks) -> OptionsFile:
    from recipelint.engines.yamlchunks import decode

    got = decode(chunks)
    if isinstance(got, JsonError):
        out.error = got
    else:
        out.root = got
    return out


def _from_tree(name: str, recipe: Path, roots) -> tuple[Path, str] | str:
    """(path, text) of the file ``name`` in the checked tree, or why it is not read."""
    from recipelint.files import Refused, read_text, repository_root

    p = Path(name)
    if p.is_absolute():
        candidates = [p]
    else:
        # (beside the script; from the repository's top and the run's roots, where the script
        # is started from: `--config ./configs/x.yaml`)
        repo = repository_root(recipe)
        candidates = [recipe.parent / p] + ([repo / p] if repo is not None else [])
        candidates += [Path(r) / p for r in roots if Path(r) / p not in candidates]
    refused = None
    for c in candidates:
        try:
            return c, read_text(c, MAX_BYTES, list(roots) or [recipe.parent])
        except Refused as e:
            if e.kind != "missing":
                refused = refused or e
    if refused is not None:
        return _REFUSED.get(refused.kind, "it cannot be read")
    return "the script does not write it before the launch and there is no such file beside it or at the project's top"


_REFUSED = {
    "outside": "it is outside the checked tree (not read)",
    "system": "it is a system file (not read)",
    "special": "it is not a regular file (not read)",
    "too-large": f"it is over {MAX_BYTES >> 20} MiB (not read)",
    "not-utf8": "it is not UTF-8 text",
}


# ---- the merged view: CLI flags, then the file over them -----------------------------------


@dataclass(slots=True)
class Setting:
    """One LLM-API field's value as the server gets it."""

    name: str
    value: object  # the decoded value (None: unknown)
    node: JNode | None  # from the file
    flag: Flag | None  # from the command line
    known: bool

    @property
    def loc(self):
        if self.node is not None:
            return self.node.loc
        if self.flag is not None:
            return self.flag.value_loc or self.flag.word.loc
        return None

    @property
    def integer(self) -> int | None:
        v = self.value
        if isinstance(v, bool) or not self.known:
            return None
        if isinstance(v, int):
            return v
        if isinstance(v, str):
            try:
                return int(v.strip())
            except ValueError:
                return None
        return None


@dataclass(slots=True)
class Resolved:
    options: OptionsFile | None
    settings: dict = field(default_factory=dict)  # field name -> Setting

    def get(self, name: str) -> Setting | None:
        return self.settings.get(name)

    def node(self, *path: str) -> JNode | None:
        """A nested value of the file (``node("cuda_graph_config", "max_batch_size")``)."""
        o = self.options
        n = o.root if o is not None and o.judged else None
        for k in path:
            if n is None or n.kind != "object":
                return None
            n = n.get(k)
        return n

    def flag_or_file(self, name: str) -> bool:
        return name in self.settings


def resolve_mapping(root: JNode) -> Resolved:
    """The merged view of an LLM-API mapping alone (a multi-node engine configuration's role)."""
    out = Resolved(OptionsFile(None, None, "tree", root=root))  # type: ignore[arg-type]
    _over(out, root)
    return out


def _over(out: Resolved, root: JNode | None) -> None:
    """The keys of an options mapping over what ``out`` holds (the file wins over the flags)."""
    for k, v in root.items if root is not None else ():
        if isinstance(k.value, str):
            value = v.value if v.kind not in ("object", "array") else v.to_python()
            out.settings[k.value] = Setting(k.value, value, v, None, v.known)


def resolve(lc: Launch, options: OptionsFile | None) -> Resolved:
    out = Resolved(options)
    cli = spec()["cli_fields"]
    for f in lc.flags:
        fld = cli.get(f.name.split("=", 1)[0])
        if fld is None:
            continue
        if f.value is None:  # a switch (`--trust_remote_code`, `--enable_chunked_prefill`)
            out.settings[fld] = Setting(fld, True, None, f, True)
        else:
            t = f.value.text
            out.settings[fld] = Setting(fld, t, None, f, t is not None)
    _over(out, options.root if options is not None and options.judged else None)
    return out


# ---- the catalog: which keys each model has, what each value may be ------------------------


@dataclass(slots=True)
class Problem:
    """Something the server's validation stops on (or, for ``renamed``, may stop on)."""

    kind: str  # "unknown" | "renamed" | "type" | "ignored" | "deprecated"
    path: str  # dotted: "speculative_config.num_nextn_predict_layers"
    node: JNode  # the key (unknown, renamed, ignored) or the value (type)
    models: tuple[str, ...]  # the model classes the mapping was judged against
    allowed: frozenset = frozenset()  # the keys those models have
    expected: str = ""  # type: what the field takes
    rename: dict | None = None  # renamed: the entry of `renames`


class Catalog:
    def __init__(self, data: dict):
        self.classes: dict = data.get("classes") or {}
        self.root = data.get("root", "TorchLlmArgs")
        self.renames = {r["old"]: r for r in data.get("renames") or []}
        self.free = set(data.get("free_form_fields") or [])
        self.strict_bases = set(data.get("strict_bases") or ["StrictBaseModel"])
        srcs = data.get("sources") or [{}]
        #: where the models were read: "llm_args.py at 0004396720054"
        self.source = " and ".join(
            f"{str(x.get('file', '?')).rsplit('/', 1)[-1]} at {str(x.get('commit', '?'))[:12]}" for x in srcs
        )
        self._keys: dict = {}
        self._extra: dict = {}
        self._places: dict | None = None

    def fields(self, cls: str) -> dict:
        """Every field of ``cls`` with its bases' (a subclass's own spec wins), aliases as keys too."""
        got = self._keys.get(cls)
        if got is None:
            got = {}
            c = self.classes.get(cls) or {}
            for b in reversed(c.get("bases") or []):
                if b in self.classes and b != cls:
                    got.update(self.fields(b))
            for name, spec in (c.get("fields") or {}).items():
                got[name] = spec
                for alias in spec.get("aliases") or ():
                    got[str(alias)] = spec
            self._keys[cls] = got
        return got

    def extra(self, cls: str) -> str:
        """What the model does with a key it does not have: forbid (stop), ignore, allow."""
        got = self._extra.get(cls)
        if got is None:
            c = self.classes.get(cls) or {}
            got = c.get("extra")
            if got is None:
                bases = c.get("bases") or []
                if any(b in self.strict_bases for b in bases):
                    got = "forbid"
                else:
                    inherited = [self.extra(b) for b in bases if b in self.classes and b != cls]
                    got = "forbid" if "forbid" in inherited else (inherited[0] if inherited else "ignore")
            self._extra[cls] = got
        return got

    def places(self, name: str) -> list[str]:
        """Where a key ``name`` is a field, as dotted paths from the root model ("" for the top
        level, "kv_cache_config" …): a key written in the wrong mapping is found there."""
        index = self._places
        if index is None:
            index = {}
            todo = [(self.root, "", 0)]
            seen = set()
            while todo:
                cls, prefix, depth = todo.pop()
                if (cls, prefix) in seen or depth > 4:
                    continue
                seen.add((cls, prefix))
                for fname, spec in self.fields(cls).items():
                    index.setdefault(fname, []).append(prefix.rstrip("."))
                    for sub in spec.get("classes") or ():
                        todo.append((sub, f"{prefix}{fname}.", depth + 1))
            self._places = index
        return sorted(set(index.get(name, [])))

    def pick(self, models: list[str], value: JNode) -> list[str]:
        """The members of a union a mapping selects by a literal field it sets
        (``decoding_type: MTP`` → ``MTPDecodingConfig``); all of them when none is selected."""
        chosen = []
        for m in models:
            ok = True
            for k, v in value.items:
                spec = self.fields(m).get(k.value) if k.value is not None else None
                if spec is not None and spec.get("choices") and not spec.get("scalars") and v.kind == "string":
                    if v.value not in [str(c) for c in spec["choices"]]:
                        ok = False
                        break
            if ok:
                chosen.append(m)
        return chosen or models

    def check(self, root: JNode) -> list[Problem]:
        out: list[Problem] = []
        self._walk(root, [self.root], "", out, 0)
        return out

    def _walk(self, node: JNode, models: list[str], prefix: str, out: list, depth: int) -> None:
        if depth > 16 or node.kind != "object":
            return
        models = self.pick(models, node)
        fields: dict = {}
        for m in models:
            for k, v in self.fields(m).items():
                fields.setdefault(k, v)
        strict = any(self.extra(m) == "forbid" for m in models)
        loose = any(self.extra(m) == "allow" for m in models)
        for key, value in node.items:
            if key.value is None:
                continue
            path = f"{prefix}{key.value}"
            spec = fields.get(key.value)
            if spec is None:
                if loose:
                    continue
                ren = self.renames.get(path)
                kind = "renamed" if ren is not None else ("unknown" if strict else "ignored")
                out.append(Problem(kind, path, key, tuple(models), frozenset(fields), rename=ren))
                continue
            if spec.get("deprecated"):
                out.append(
                    Problem(
                        "deprecated",
                        path,
                        key,
                        tuple(models),
                        rename=self.renames.get(path),
                        expected=str(spec.get("note") or ""),
                    )
                )
            if path in self.free or spec.get("any"):
                continue
            self._value(value, spec, path, out, depth)

    def _value(self, value: JNode, spec: dict, path: str, out: list, depth: int) -> None:
        if not value.known and value.kind not in ("object", "array"):
            return
        if value.kind == "null":
            if spec.get("null") or spec.get("any"):
                return
            out.append(Problem("type", path, value, (), expected=describe(spec)))
            return
        if value.kind == "object":
            if spec.get("classes"):
                self._walk(value, list(spec["classes"]), path + ".", out, depth + 1)
            elif not (spec.get("mapping") or spec.get("any")):
                out.append(Problem("type", path, value, (), expected=describe(spec)))
            return
        if value.kind == "array":
            item = spec.get("list")
            if item is None:
                if not spec.get("any"):
                    out.append(Problem("type", path, value, (), expected=describe(spec)))
                return
            for e in value.elements:
                self._value(e, item, path + "[]", out, depth + 1)
            return
        if not accepts(spec, value):
            out.append(Problem("type", path, value, (), expected=describe(spec)))


_BOOL_WORDS = {"0", "1", "true", "false", "t", "f", "yes", "no", "y", "n", "on", "off"}


def accepts(spec: dict, v: JNode) -> bool:
    """Whether pydantic (lax mode) takes the scalar ``v`` for a field of this spec."""
    if spec.get("any") or spec.get("mapping") and v.kind == "string":
        return True
    for c in spec.get("choices") or ():
        if str(c) == str(v.value) or (v.kind == "bool" and str(c).lower() == str(v.value).lower()):
            return True
    for s in spec.get("scalars") or ():
        x = v.value
        if s == "str" and v.kind == "string":
            return True
        if s == "int":
            if v.kind == "number" and (isinstance(x, int) or (isinstance(x, float) and x.is_integer())):
                return True
            if v.kind == "bool":
                return True
            if v.kind == "string" and re.fullmatch(r"\s*[-+]?\d+\s*", str(x)):
                return True
        if s == "float":
            if v.kind in ("number", "bool"):
                return True
            if v.kind == "string":
                try:
                    float(str(x))
                    return True
                except ValueError:
                    pass
        if s == "bool":
            if v.kind == "bool" or (v.kind == "number" and x in (0, 1)):
                return True
            if v.kind == "string" and str(x).strip().lower() in _BOOL_WORDS:
                return True
    if spec.get("classes") and not (spec.get("scalars") or spec.get("choices")):
        return False
    return not (spec.get("scalars") or spec.get("choices"))


def describe(spec: dict) -> str:
    parts = []
    if spec.get("classes"):
        parts.append("a mapping (" + " / ".join(spec["classes"]) + ")")
    if spec.get("mapping"):
        parts.append("a mapping")
    if spec.get("list"):
        parts.append("a list")
    choices = [str(c) for c in spec.get("choices") or ()]
    if choices:
        shown = ", ".join(choices[:12]) + (", …" if len(choices) > 12 else "")
        parts.append(f"one of {shown}")
    for s in spec.get("scalars") or ():
        parts.append({"int": "an integer", "float": "a number", "bool": "true or false", "str": "a string"}[s])
    if spec.get("null"):
        parts.append("null")
    return " or ".join(parts) or "a value"


def catalog() -> Catalog:
    data = spec()
    global _CATALOG
    if _CATALOG is None or _CATALOG[0] is not data:
        _CATALOG = (data, Catalog(data))
    return _CATALOG[1]


_CATALOG: tuple | None = None


def image_release(point) -> str | None:
    """The TensorRT-LLM release a sweep point's image names (``nvcr.io/nvidia/tensorrt-llm/release:
    1.3.0rc23.post1`` → ``1.3.0rc23.post1``), or None (no image, another repository, a tag that is
    no release: feature builds, ``latest``)."""
    image = point.env.get("IMAGE") if point is not None else None
    return release_of_image(image)


def release_of_image(image) -> str | None:
    """The TensorRT-LLM release an image reference names (see :func:`image_release`)."""
    from recipelint.engines.versions import parse_image

    if not isinstance(image, str) or not image:
        return None
    tag = parse_image(image)
    if tag.repository not in (spec().get("images") or ()):
        return None
    m = re.fullmatch(r"v?(\d+\.\d+\.\d+(?:(?:rc|a|b)\d+)?(?:\.post\d+)?)", tag.tag)
    return m.group(1) if m else None


def at_or_after(release: str, first: str) -> bool:
    from recipelint.engines.catalog import version_key

    return version_key(release) >= version_key(first)


def engine_config(root: Path, name: str, roots) -> tuple[Path, dict, str | None] | str | None:
    """A multi-node engine configuration file of the checked tree (an srt-slurm recipe:
    ``backend: {type: trtllm, trtllm_config: {prefill: {…}, decode: {…}}}``): (its path, the
    LLM-API mapping of each role, the image it names), None when its backend is not TensorRT-LLM,
    or why it is not read.  ``name`` is relative to ``root``; ``file.yaml:section`` (an override
    inside the file) is not followed."""
    from recipelint.bash.source import Loc, SourceFile
    from recipelint.engines.yamlchunks import decode
    from recipelint.evaluate.values import Chunk
    from recipelint.files import Refused, read_text

    if ":" in name:
        return "it names a section inside a file (`file.yaml:section`), which recipelint does not follow"
    path = root / name
    try:
        text = read_text(path, MAX_BYTES, roots)
    except Refused as e:
        if e.kind == "missing":
            return "it is not in the checked tree (the orchestrator's own recipe checkout)"
        return _REFUSED.get(e.kind, "it cannot be read")
    if "trtllm_config" not in text:
        return None  # (another engine's: not decoded)
    data = text.encode("utf-8")
    doc = decode((Chunk(text, Loc(SourceFile(str(path), data), 0, len(data))),))
    if not isinstance(doc, JNode) or doc.kind != "object":
        return None  # (not a mapping: not an engine configuration recipelint knows)
    backend = doc.get("backend")
    if backend is None or backend.kind != "object":
        return None
    kind = backend.get("type")
    conf = backend.get("trtllm_config")
    if kind is None or kind.value != "trtllm" or conf is None or conf.kind != "object":
        return None
    roles = {k.value: v for k, v in conf.items if isinstance(k.value, str) and v.kind == "object"}
    image = None
    ident = doc.get("identity")
    cont = ident.get("container") if ident is not None and ident.kind == "object" else None
    img = cont.get("image") if cont is not None and cont.kind == "object" else None
    if img is not None and img.kind == "string" and isinstance(img.value, str):
        image = img.value
    return path, roles, image
