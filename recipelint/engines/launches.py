"""Serve launches: recognise an engine's serve command in an expanded argv and parse its flags.

The evaluator hands every external command here (:func:`detect`).  Launcher prefixes
(``mpirun``, ``numactl``, ``env``, ``timeout``...) are stripped using data from
``rules/data/engines.yaml``; what remains is matched against each engine's entry points.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field

from recipelint.bash.source import Loc
from recipelint.engines import facts
from recipelint.engines.jsonpos import JNode, JsonError, decode
from recipelint.evaluate.values import Word, text_of

_ASSIGN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")
_NEGATIVE = re.compile(r"-\d+(\.\d+)?")


@dataclass(slots=True)
class Flag:
    name: str  # as written: --max_num_seqs, --compilation-config.mode, -tp
    key: str  # normalised: --max-num-seqs, --compilation-config.mode
    base: str  # for a dotted flag, the flag it extends (--compilation-config); else key
    subkey: str | None
    word: Word  # the flag word as it stands in argv
    value: Word | None  # None for a flag without a value
    index: int
    inline: bool = False  # written --f=v
    json: JNode | None = None
    json_error: JsonError | None = None

    @property
    def text(self) -> str | None:
        if self.value is None:
            return None
        t = self.value.text
        if t is None:
            return None
        return t

    @property
    def loc(self) -> Loc | None:
        return self.word.value_loc

    @property
    def value_loc(self) -> Loc | None:
        if self.value is None:
            return self.loc
        return self.value.value_loc

    def to_dict(self) -> dict:
        d = {
            "flag": self.name,
            "key": self.key,
            "value": None if self.value is None else self.value.shown,
            "known": self.value is None or self.value.known,
            "line": _line(self.loc),
            "value_line": _line(self.value_loc),
            "written_line": _line(self.word.loc),
        }
        vp = _path(self.value_loc)
        if vp is not None and vp != _path(self.word.loc):
            d["value_path"] = vp
        if self.json is not None:
            d["json"] = self.json.to_python()
        if self.json_error is not None:
            d["json_error"] = self.json_error.message
        return d


def _line(loc):
    return loc.real().span.line if loc is not None else None


def _path(loc):
    return loc.real().span.path if loc is not None else None


@dataclass(slots=True)
class Launch:
    engine: str
    entry: str
    argv: tuple[Word, ...]
    start: int  # index in argv where the engine command starts (after launchers)
    launcher: tuple[str, ...]
    positionals: list[Word]
    flags: list[Flag]
    env: dict  # name -> Str: exported variables and the command's prefix assignments
    prefix_env: dict
    loc: Loc  # the command that ran it
    complete: bool  # False when an unknown splice may hide arguments
    cond: tuple = ()
    point: object = None  # the sweep point it was evaluated under (set by the driver)
    path_index: int = 0
    files: dict = field(default_factory=dict)  # files the script wrote before the launch: path -> Str
    # the entry point is a wrapper that adds its own flags to the engine's parser
    # (`python -m dynamo.vllm`: rules/data/catalogs/wrappers/dynamo.vllm-history.json)
    wrapper: str | None = None
    #: TensorRT-LLM: the LLM-API options as the server gets them (``engines.llmapi.Resolved``),
    #: computed once by the first rule that asks (``FileContext.llm_api``)
    llm_api: object = None
    #: `docker run IMAGE ARGS` of an image whose entrypoint is the server: the image (its tag names
    #: the release the launch runs, over the sweep point's)
    image: str | None = None
    #: the words after the first ``MAX_FLAGS`` flags, not read (the work budget: RL011)
    cut: int = 0

    # -- queries ---------------------------------------------------------------------------
    def all(self, key: str) -> list[Flag]:
        """Every occurrence of a flag (normalised key, or the base of dotted forms)."""
        return [f for f in self.flags if f.key == key or f.base == key]

    def get(self, key: str) -> Flag | None:
        """The occurrence that wins (the last one)."""
        found = [f for f in self.flags if f.key == key]
        return found[-1] if found else None

    def has(self, key: str) -> bool:
        return any(f.key == key or f.base == key for f in self.flags)

    def value(self, key: str) -> str | None:
        f = self.get(key)
        return f.text if f is not None else None

    @property
    def model(self) -> Word | None:
        if self.positionals:
            return self.positionals[0]
        for k in ("--model", "--model-path", "--model-name"):
            f = self.get(k)
            if f is not None and f.value is not None:
                return f.value
        return None

    def command_line(self) -> str:
        return " ".join(w.quoted() for w in self.argv)

    def to_dict(self) -> dict:
        return {
            "engine": self.engine,
            "entry": self.entry,
            "line": _line(self.loc),
            "command": self.command_line(),
            "argv": [
                {"word": w.shown, "known": w.known, "line": _line(w.value_loc), "written_line": _line(w.loc)} for w in self.argv
            ],
            "launcher": list(self.launcher),
            "model": self.model.shown if self.model is not None else None,
            "flags": [f.to_dict() for f in self.flags],
            "env": {k: _shown(v) for k, v in sorted(self.env.items())},
            "complete": self.complete,
            "conditions": [d.describe() for d in self.cond],
        } | ({"wrapper": self.wrapper} if self.wrapper else {})


def _shown(v):
    from recipelint.evaluate.values import display

    return display(v)


# ---------------------------------------------------------------------------------------------


@dataclass(slots=True)
class _Entry:
    engine: str
    argv: tuple[str, ...]
    positionals: int
    wrapper: str | None = None  # a module that adds its own flags to the engine's parser


@dataclass(slots=True)
class _Catalog:
    entries: list[_Entry] = field(default_factory=list)
    json_flags: dict = field(default_factory=dict)
    aliases: dict = field(default_factory=dict)
    launchers: dict = field(default_factory=dict)
    python_value_options: frozenset = frozenset()
    underscores: frozenset = frozenset()  # engines whose flags may be spelt with `_` for `-`
    starts: frozenset = frozenset()  # first words of the entry points
    images: dict = field(default_factory=dict)  # image repository -> its entrypoint (engine, argv)


_CAT: _Catalog | None = None


def catalog() -> _Catalog:
    """The entry points and launchers of this run's engine facts (settings may extend them:
    ``extra-entry-points``)."""
    global _CAT, _CAT_DATA
    data = facts.load("engines")
    if _CAT is None or _CAT_DATA is not data:
        _CAT_DATA = data
        cat = _Catalog()
        for eng, spec in data["engines"].items():
            for e in spec["entries"]:
                cat.entries.append(_Entry(eng, tuple(e["argv"]), int(e.get("positionals", 0)), e.get("wrapper")))
            cat.json_flags[eng] = frozenset(spec.get("json_flags", []))
            if spec.get("underscores_as_dashes"):
                cat.underscores |= {eng}
        cat.entries.sort(key=lambda e: -len(e.argv))
        cat.starts = frozenset(e.argv[0] for e in cat.entries)
        cat.launchers = data["launchers"]
        cat.images = dict(data.get("image_entrypoints") or {})
        cat.aliases = {eng: dict(m or {}) for eng, m in (data.get("aliases") or {}).items()}
        cat.python_value_options = frozenset(data.get("python_value_options", []))
        _CAT = cat
    return _CAT


_CAT_DATA = None


_PY = re.compile(r"^python(\d+(\.\d+)?)?$")


def launch_words() -> dict:
    """Commands that may start a launch, for the evaluator's branch pruning: name -> the argv
    prefixes that make it one (None: a launcher, which counts when what it runs may launch — a
    frozenset: one with these subcommand words, `docker run`; the empty prefix: an entry point any
    use of which launches, ``trtllm-serve MODEL``): ``vllm`` only
    with ``serve`` (not ``vllm bench``), ``python`` only with ``-m <entry module>``; an image whose
    entrypoint serves (``vllm/vllm-openai``) by its repository."""
    cat = catalog()
    out: dict = {name: _subcommand_names(spec) or None for name, spec in cat.launchers.items()}
    for e in cat.entries:
        prefix = tuple(e.argv[1:3]) if e.argv[0] == "python" else tuple(e.argv[1:2])
        if out.get(e.argv[0], []) is None:
            continue
        if not prefix:  # `trtllm-serve MODEL`: any use — an entry point, not a launcher (None:
            # after a launch a launcher counts only when the command it wraps may launch)
            out.setdefault(e.argv[0], []).append(())
        else:
            out.setdefault(e.argv[0], []).append(prefix)
    for repo in cat.images:  # (`docker run … vllm/vllm-openai:TAG …`: the image serves)
        out[repo] = [()]
    return out


def _subcommand_names(spec) -> frozenset[str]:
    """The subcommand words of a launcher that has them (`docker run`, `ray job submit`, `uv
    run`): a watch skips them to find the command it runs."""
    out: set[str] = set()
    stack = [spec]
    while stack:
        sp = stack.pop()
        subs = sp.get("subcommands") if isinstance(sp, dict) else None
        for name, sub in (subs or {}).items():
            out.add(str(name))
            stack.append(sub)
    return frozenset(out)


def strip_launchers(argv: list[Word], env: dict | None = None) -> tuple[int, list[str]] | None:
    """Index of the command a launcher prefix runs (``setsid nohup timeout 60 CMD``), with the
    launchers' names; ``env NAME=VALUE`` assignments go into ``env``.  None when unknown."""
    cat = catalog()
    first = argv[0].text if argv else None
    if first is not None and os.path.basename(first) not in cat.launchers:
        return 0, []  # no launcher in front (most commands: the other words are not looked at)
    texts = [w.text for w in argv]
    env = env if env is not None else {}
    i = 0
    launcher: list[str] = []
    for _ in range(8):
        if i < len(texts) and texts[i] is None and any(c.multi for c in argv[i].chunks):
            # an unknown splice in front (`"${PREFIX[@]}" vllm serve`): a launcher prefix we could not compute
            launcher.append(argv[i].shown)
            i += 1
            continue
        if i >= len(texts) or texts[i] is None:
            return None
        name = os.path.basename(texts[i])
        spec = cat.launchers.get(name)
        if spec is None:
            break
        launcher.append(name)
        i = _skip_launcher(spec or {}, texts, i + 1, argv, env)
        if i is None:
            return None
    if i >= len(texts) or texts[i] is None:
        return None
    return i, launcher


def detect(argv: list[Word], prefix_env: dict, exported, loc: Loc) -> Launch | None:
    """The launch ``argv`` makes, or None.  ``exported``: the exported environment, or a function
    that computes it (called only for a command that may be a launch)."""
    cat = catalog()
    first = argv[0].text if argv else None
    if first is not None and os.path.basename(first) not in cat.launchers and not _could_start(first, cat):
        return None  # neither a launcher nor an entry point in front: the other words do not matter
    texts = [w.text for w in argv]
    container = first is not None and os.path.basename(first) in _CONTAINERS and bool(cat.images)
    if not container and not any(t is None or _could_start(t, cat) for t in texts):
        return None
    assigned: dict = {}  # `env NAME=VALUE` launcher assignments
    if (
        first is None
        and len(texts) > 2
        and texts[1] == "-m"
        and texts[2] is not None
        and not any(c.multi for c in argv[0].chunks)
    ):
        # `"${PY}" -m sglang.launch_server …` with PY=$(command -v python3): an interpreter from a
        # variable, the module says what runs
        texts = ["python", *texts[1:]]
        stripped: tuple[int, list[str]] | None = (0, [])
    else:
        stripped = strip_launchers(argv, assigned)
    if stripped is None:
        return None
    i, launcher = stripped
    if (
        launcher
        and launcher[-1] in _CONTAINERS
        and 0 < i
        and _image_repository(argv[i - 1]) is not None
        and not any(t is not None and (t == "--entrypoint" or t.startswith("--entrypoint=")) for t in texts[:i])
    ):
        # `docker run … vllm/vllm-openai:v0.10.1 --model m …`: the image's entrypoint serves (a
        # tag that is not known — `vllm/vllm-openai:$tag` — names no release; `--entrypoint`
        # replaces it)
        found = _image_entry(_image_repository(argv[i - 1]) or "", cat)
        if found is not None and (i >= len(texts) or texts[i] is None or texts[i].startswith("-") or found.positionals):
            env = dict(exported() if callable(exported) else exported)
            env.update(prefix_env)
            env.update(assigned)
            lc = _build(found, argv, i, i, tuple(launcher), env, prefix_env, loc, cat)
            lc.image = texts[i - 1]  # (None with a tag not known: the point's image, pins, ... judge)
            return lc
    for entry in cat.entries:
        j = _match_entry(entry, texts, i, cat)
        if j is None:
            continue
        env = dict(exported() if callable(exported) else exported)
        env.update(prefix_env)
        env.update(assigned)
        return _build(entry, argv, i, j, tuple(launcher), env, prefix_env, loc, cat)
    return None


#: the launchers whose operand is an image
_CONTAINERS = frozenset({"docker", "podman"})


def _image_repository(w: Word) -> str | None:
    """The image a container launcher's operand names, when known up to its tag at least
    (``vllm/vllm-openai:v0.10.1``, or ``vllm/vllm-openai:`` then a variable); else None."""
    if w.text is not None:
        return w.text
    known = _known_prefix(w)
    return known[:-1] if known.endswith(":") and "/" in known else None


def _image_entry(image: str, cat) -> _Entry | None:
    """The entry point an image's ENTRYPOINT runs (``image_entrypoints`` in engines.yaml), or None."""
    from recipelint.engines.versions import parse_image

    repo = parse_image(image).repository
    spec = cat.images.get(repo)
    if spec is None:
        return None
    return _Entry(spec["engine"], tuple(spec["argv"]), int(spec.get("positionals", 0)))


def _could_start(text: str, cat) -> bool:
    """Whether a word could be the first word of a serve entry point (`vllm`, `python3`, ...)."""
    base = text.rsplit("/", 1)[-1]
    return base in cat.starts or bool(_PY.match(base))


def _skip_launcher(spec, texts, i, argv, env):
    while spec.get("subcommands") is not None:
        # `docker run ...`, `ray job submit ...`: the subcommand picks the options; another one runs nothing
        sub = spec["subcommands"].get(texts[i]) if i < len(texts) else None
        if sub is None:
            return None
        spec, i = sub, i + 1
    if spec.get("until"):
        # `ray job submit [OPTIONS] -- CMD`: the command is what follows the separator, whatever
        # the options before it
        sep = spec["until"]
        k = next((k for k in range(i, len(texts)) if texts[k] == sep), None)
        return None if k is None else k + 1
    values = set(spec.get("value_options", []))
    values2 = set(spec.get("value2_options", []))
    operands = int(spec.get("operands", 0))
    operands_unless = set(spec.get("operands_unless", []))
    saw_unless = False
    n = len(texts)
    while i < n:
        t = texts[i]
        if t is None:
            # `env A=$UNKNOWN cmd`: an assignment whose value is not known; any other unknown word
            # ends the options (an operand — `timeout "$T" cmd` — or the command)
            head = _known_prefix(argv[i])
            if not (spec.get("leading_assignments") and _ASSIGN.match(head)):
                break
            t = head
        if t == "--":
            i += 1
            break
        if spec.get("leading_assignments") and _ASSIGN.match(t):
            k, _, _ = t.partition("=")
            from recipelint.evaluate.values import slice_str

            env[k] = slice_str(argv[i].chunks, len(k) + 1)
            i += 1
            continue
        if t.startswith("-") and len(t) > 1:
            base = t.split("=", 1)[0]
            if base in operands_unless:
                saw_unless = True
            if base in values2 and "=" not in t:
                i += 3
            elif base in values and "=" not in t and not (len(base) == 2 and len(t) > 2 and not t.startswith("--")):
                i += 2
            else:
                i += 1
            continue
        break
    if operands and not saw_unless:
        i += operands
    return i


def after_python(texts, j: int) -> int:
    """The index after the interpreter options that follow a `python` word at ``j - 1``
    (`-u`, `-X dev`: those that take a value skip it too), up to `-m` or the script."""
    values = catalog().python_value_options
    while j < len(texts) and texts[j] is not None and texts[j].startswith("-") and texts[j] != "-m":
        if texts[j] in values:
            j += 1
        j += 1
    return j


def _match_entry(entry: _Entry, texts, i, cat) -> int | None:
    j = i
    for k, want in enumerate(entry.argv):
        if j >= len(texts) or texts[j] is None:
            return None
        got = texts[j]
        if k == 0:
            base = os.path.basename(got)
            if want == "python":
                if not _PY.match(base):
                    return None
                j = after_python(texts, j + 1)
                continue
            if base != want:
                return None
            j += 1
            continue
        if got != want:
            return None
        j += 1
    return j


#: the flags of one launch that are read (InferenceX's longest launch passes ~40; a launch of
#: 100,000 flags took 203 s of rule work): past them the launch is incomplete and RL011 says so
MAX_FLAGS = 4096


def _build(entry, argv, i, j, launcher, env, prefix_env, loc, cat) -> Launch:
    words = argv[j:]
    positionals: list[Word] = []
    flags: list[Flag] = []
    json_flags = cat.json_flags.get(entry.engine, frozenset())
    complete = not any(c.multi for w in argv for c in w.chunks)
    k = 0
    n = len(words)
    want_pos = entry.positionals
    cut = 0
    while k < n:
        if len(flags) >= MAX_FLAGS:  # (the work budget: the rest is not read, and said: RL011)
            cut, complete = n - k, False
            break
        w = words[k]
        t = w.text
        if t is None:
            head = _known_prefix(w)
            if head.startswith("--") and "=" in head:
                # `--model-path=$MODEL` with an unknown value: the flag is still known
                name = head.split("=", 1)[0]
                from recipelint.evaluate.values import slice_str

                value = Word(slice_str(w.chunks, len(name) + 1), w.loc)
                key, base, sub = _normalise(name, entry.engine in catalog().underscores)
                canon = cat.aliases.get(entry.engine, {}).get(base)
                if canon is not None:
                    key, base = (canon + "." + sub if sub else canon), canon
                flags.append(Flag(name, key, base, sub, w, value, j + k, True))
                k += 1
                continue
            # an unknown word: the expected positional (the model), or a bundle we could not compute
            if want_pos > 0 and not flags and not any(c.multi for c in w.chunks):
                positionals.append(w)
                want_pos -= 1
            k += 1
            continue
        if t.startswith("-") and len(t) > 1 and not _is_number(t):
            name, value, inline = t, None, False
            if t.startswith("--") and "=" in t:
                name = t.split("=", 1)[0]
                from recipelint.evaluate.values import slice_str

                value = Word(slice_str(w.chunks, len(name) + 1), w.loc)
                inline = True
            elif k + 1 < n and _takes_value(words[k + 1]):
                value = words[k + 1]
                k += 1
            key, base, sub = _normalise(name, entry.engine in catalog().underscores)
            canon = cat.aliases.get(entry.engine, {}).get(base)
            if canon is not None:
                key, base = (canon + "." + sub if sub else canon), canon
            f = Flag(name, key, base, sub, w, value, j + k - (0 if value is None or inline else 1), inline)
            if value is not None and (base in json_flags or key in json_flags or _looks_json(value)):
                if sub is None:
                    res = decode(value.chunks)
                    if isinstance(res, JsonError):
                        if base in json_flags or key in json_flags:
                            f.json_error = res
                    else:
                        f.json = res
            flags.append(f)
            k += 1
            continue
        if want_pos > 0 and not flags:
            positionals.append(w)
            want_pos -= 1
        else:
            positionals.append(w)
        k += 1
    return Launch(
        engine=entry.engine,
        entry=" ".join(entry.argv),
        argv=tuple(argv),
        start=i,
        launcher=launcher,
        positionals=positionals,
        flags=flags,
        env=env,
        prefix_env=dict(prefix_env),
        loc=loc,
        complete=complete,
        wrapper=entry.wrapper,
        cut=cut,
    )


def _known_prefix(w: Word) -> str:
    out = []
    for c in w.chunks:
        if c.text is None:
            break
        out.append(c.text)
    return "".join(out)


def _is_number(t: str) -> bool:
    return bool(_NEGATIVE.fullmatch(t))


def _takes_value(w: Word) -> bool:
    t = w.text
    if t is None:
        # an unknown word right after a flag is its value unless it may be several words
        return not any(c.multi for c in w.chunks) and not (
            w.chunks and w.chunks[0].text is not None and w.chunks[0].text.startswith("-")
        )
    if t.startswith("-") and len(t) > 1 and not _is_number(t):
        return False
    return True


def _looks_json(w: Word) -> bool:
    c = w.chunks
    if not c or c[0].text is None:
        return False
    s = c[0].text.lstrip()
    return s.startswith("{")


def _normalise(name: str, underscores: bool = True) -> tuple[str, str, str | None]:
    """``--max_num_seqs`` → ``--max-num-seqs`` (vLLM accepts both); ``--compilation-config.mode``
    → base + subkey."""
    if name.startswith("--"):
        head, dot, rest = name[2:].partition(".")
        if underscores:
            head = head.replace("_", "-")
        if dot:
            return f"--{head}.{rest}", f"--{head}", rest
        return f"--{head}", f"--{head}", None
    return name, name, None


def exported_env(state) -> dict:
    """Exported variables of an evaluator state (what a command started there gets): name → Str."""
    from recipelint.evaluate.builtins import exported_vars

    return {k: v.value for k, v in exported_vars(state).items()}


def text_or_none(s) -> str | None:
    return text_of(s) if s is not None else None
