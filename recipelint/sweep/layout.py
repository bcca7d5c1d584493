"""Where a matrix row's recipe lives, read from the checked tree at its commit.

InferenceX runs a master-config row through its workflow template, which exports the row's
variables (``SCENARIO_SUBDIR`` among them, an expression on the template's inputs) and runs
``bash ./runners/launch_${RUNNER_NAME%%_*}.sh``; that launcher composes the recipe's path
(scenario folder, framework / precision / spec-decoding suffixes, a framework-tagged name tried
first) and runs it under srun or docker.  How it does so changed over the repository's history
and differs between launchers, so the layout is not a constant: :class:`Layout` evaluates each
launcher with recipelint's own evaluator (nothing is executed) under the row's environment, file
tests (``[[ -f "$BENCH_SCRIPT" ]]``) answered from the tree, and takes the recipes its commands
run.  :func:`template_subdir` reads ``SCENARIO_SUBDIR`` from the template the same way.

Where a launcher cannot be read (absent, unparsable, or no command of it runs a recipe) the
caller falls back to the description in ``rules/data/inferencex.yaml`` and says so."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from recipelint.evaluate.values import Opaque

#: a launcher is read at most this much (bytes), and evaluated at most this many steps
MAX_LAUNCHER_BYTES = 1 << 20
MAX_LAUNCHER_STEPS = 20_000
#: distinct evaluations per run (a config with many distinct rows): beyond, the table is used
MAX_EVALUATIONS = 2048

_NAME = re.compile(r"\$\{?#?!?([A-Za-z_][A-Za-z0-9_]*)")
#: a row's sizes: the recipe a launcher runs is taken not to depend on them (rows that differ only
#: in these share one evaluation of the launcher, with the first row's values)
SIZES = frozenset(
    {
        "CONC", "TP", "EP_SIZE", "DP_ATTENTION", "PP_SIZE", "DCP_SIZE", "PCP_SIZE", "GPU_COUNT", "ISL", "OSL",
        "MAX_MODEL_LEN", "RANDOM_RANGE_RATIO", "DURATION", "TOTAL_CPU_DRAM_GB", "KV_OFFLOAD_BACKEND_METADATA",
        "ROUTER_METADATA", "KV_P2P_TRANSFER",
    }
)  # fmt: skip
#: commands that run a script file: in a launcher, the recipe's run
_RUNS_SCRIPT = frozenset({"bash", "sh"})


@dataclass
class Resolved:
    """The recipes a launcher runs for a row: ``scripts`` (paths relative to the root that exist,
    in the order the launcher tries them), or ``missing`` (the paths it would run, none of which
    exists); ``launcher`` is the file read."""

    launcher: str
    scripts: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)


class Layout:
    """The launchers of one tree, read once and evaluated per distinct row environment."""

    def __init__(self, root: Path, spec: dict, roots=None, cache_dir=None):
        self.root = root
        self.cache_dir = cache_dir  # where parsed launchers are kept (None: parsed every run)
        self.spec = spec
        self.roots = roots if roots is not None else [root]
        self._parsed: dict[str, object] = {}  # launcher path -> (Parsed, names read) or None
        self._memo: dict[tuple, Resolved | None] = {}
        self.unreadable: dict[str, str] = {}  # launcher path -> why it could not be read
        self._evaluators: dict[str, tuple] = {}
        self._texts: dict[str, str] = {}  # launcher path -> its text (the kept readings' key)
        self._queries: dict[str, bool | None] = {}  # the file tests of the evaluation under way
        self._pruned = False
        self.evaluations = 0

    # -- the launcher ---------------------------------------------------------------------------
    def launcher_path(self, prefix: str) -> str:
        pattern = self.spec.get("launcher_pattern") or "runners/launch_{node}.sh"
        return pattern.format(node=prefix)

    def _load(self, rel: str):
        if rel in self._parsed:
            return self._parsed[rel]
        from recipelint.bash.parse import parse
        from recipelint.bash.source import SourceFile
        from recipelint.files import Refused, confine, read_regular

        got = None
        path = self.root / rel
        try:
            if not path.is_file():
                self.unreadable[rel] = "not in the tree"
            else:
                confine(path, self.roots)
                data = read_regular(path, MAX_LAUNCHER_BYTES)
                text = data.decode("utf-8", "replace")
                src = SourceFile(str(path), data)
                if self.cache_dir is not None:
                    from recipelint.cache.trees import parse_cached

                    parsed = parse_cached(src, text, self.cache_dir)
                else:
                    parsed = parse(src)
                names = frozenset(_NAME.findall(text))
                self._texts[rel] = text
                got = (parsed, names)
        except Refused as e:
            self.unreadable[rel] = str(e)
        except (OSError, ValueError, RecursionError) as e:
            self.unreadable[rel] = f"cannot be read ({type(e).__name__})"
        self._parsed[rel] = got
        return got

    # -- a row's recipes ------------------------------------------------------------------------
    def resolve(self, prefix: str, node: str, env: dict) -> Resolved | None:
        """The recipes ``runners/launch_<prefix>.sh`` runs on node ``node`` for a row whose
        environment is ``env``; None when the launcher cannot be read or runs no recipe."""
        rel = self.launcher_path(prefix)
        got = self._load(rel)
        if got is None:
            return None
        parsed, names = got
        run_env = {k: v for k, v in env.items() if k in names}
        run_env["RUNNER_NAME"] = node
        if "EXP_NAME" in run_env and isinstance(run_env["EXP_NAME"], str):
            # launchers read the row's model prefix from it (`${EXP_NAME%%_*}`); the rest names the
            # sweep point (its concurrency), not the recipe
            run_env["EXP_NAME"] = run_env["EXP_NAME"].split("_", 1)[0] + "_row"
        # rows that differ only in sizes share one reading (the first row's sizes are used)
        key = (rel, tuple(sorted((k, v if isinstance(v, str) else "\0opaque") for k, v in run_env.items() if k not in SIZES)))
        if key in self._memo:
            return self._memo[key]
        found = self._remembered(rel, key)
        if found is None:
            if self.evaluations >= MAX_EVALUATIONS:
                return None
            self.evaluations += 1
            found = self._evaluate(rel, parsed, run_env)
            self._remember(rel, key, found)
        found = found or None
        self._memo[key] = found
        return found

    # -- kept between runs ------------------------------------------------------------------------
    def _entry(self, rel: str, key: tuple):
        """The cache file of one reading: keyed by the launcher's text and the row's environment;
        None without a cache."""
        if self.cache_dir is None or rel not in self._texts:
            return None
        import hashlib
        import json

        from recipelint.cache.store import code_fingerprint

        h = hashlib.sha256(f"layout {code_fingerprint()}\0".encode())
        h.update(self._texts[rel].encode("utf-8", "surrogatepass"))
        h.update(json.dumps(key[1]).encode())
        return Path(self.cache_dir) / "layout" / f"{h.hexdigest()}.json"

    def _remembered(self, rel: str, key: tuple):
        """A reading kept by an earlier run, when every file test it answered gives the same answer
        in this tree; else None."""
        path = self._entry(rel, key)
        if path is None:
            return None
        from recipelint.cache.store import BAD_ENTRY, read_entry

        try:
            data = read_entry(path)
            if any(self._exists(q) != a for q, a in data["queries"]):
                return None
            if data["result"] is None:
                return False  # (a launcher that runs no recipe: remembered as such)
            return Resolved(rel, list(data["result"]["scripts"]), list(data["result"]["missing"]))
        except BAD_ENTRY:
            return None

    def _remember(self, rel: str, key: tuple, found: Resolved | None) -> None:
        path = self._entry(rel, key)
        if path is None:
            return
        from recipelint.cache.store import prune, write_entry

        result = None if found is None else {"scripts": found.scripts, "missing": found.missing}
        queries = [[q, a] for q, a in self._queries.items()]
        if write_entry(path, {"queries": queries, "result": result}) and not self._pruned:
            self._pruned = True  # (once per run: the folder keeps the readings of a few trees)
            prune(path.parent, keep=4 * MAX_EVALUATIONS)

    def _evaluator(self, rel: str):
        """One evaluator per launcher (its caches, keyed by tree nodes, serve every row), and the
        list its hook fills with the recipes the commands run."""
        got = self._evaluators.get(rel)
        if got is None:
            from recipelint.evaluate.evaluator import Evaluator
            from recipelint.evaluate.state import Limits

            candidates: list[str] = []

            def hook(_state, cmd):
                for w in cmd.argv:
                    p = _recipe_word(w)
                    if p is not None and p not in candidates:
                        candidates.append(p)
                return None

            # `bash "$BENCH_SCRIPT"` is the recipe's run: seen by the hook, not evaluated
            ev = Evaluator(
                self.root / rel, hook, Limits(max_steps=MAX_LAUNCHER_STEPS), opaque=_RUNS_SCRIPT, file_exists=self._asked
            )
            got = self._evaluators[rel] = (ev, candidates)
        return got

    def _evaluate(self, rel: str, parsed, env: dict) -> Resolved | None:
        ev, candidates = self._evaluator(rel)
        candidates.clear()
        self._queries = {}
        ev.steps = 0
        full = {k: v for k, v in env.items()}
        for k, v in full.items():
            if not isinstance(v, (str, Opaque)):
                full[k] = str(v)
        try:
            ev.run(parsed, full)
        except RecursionError:
            self.unreadable[rel] = "too deeply nested to evaluate"
            return None
        if not candidates:
            return None
        existing = [c for c in candidates if self._asked(c)]
        return Resolved(rel, scripts=existing) if existing else Resolved(rel, missing=list(candidates))

    def _asked(self, text: str) -> bool | None:
        """A file test of the launcher: answered, and recorded (a kept reading holds only while
        every answer it depended on is the same)."""
        got = self._exists(text)
        self._queries[text] = got
        return got

    def _exists(self, text: str) -> bool | None:
        """A relative path's existence in the tree (a file, inside the run's roots); None for an
        absolute path or one that leaves the tree."""
        if not text or text.startswith("/") or "\0" in text or ".." in text.split("/") or len(text) > 4096:
            return None  # (nothing outside the tree is looked at, not even its existence)
        from recipelint.files import Refused, confine

        p = self.root / text
        try:
            if not p.is_file():
                return False
            confine(p, self.roots)
        except (Refused, OSError, ValueError):
            return None
        return True


def _recipe_word(w) -> str | None:
    """The recipe a command word names: a path to a ``.sh`` file below a ``benchmarks/`` folder,
    relative to the tree (``benchmarks/single_node/x.sh``, ``$GITHUB_WORKSPACE/benchmarks/x.sh``,
    ``--script=benchmarks/x.sh``)."""
    tail = []
    for ch in reversed(w.chunks):
        if ch.text is None:
            break
        tail.append(ch.text)
    text = "".join(reversed(tail))
    if not text.endswith(".sh"):
        return None
    i = text.find("benchmarks/")
    if i < 0 or (i > 0 and text[i - 1] not in "/=:"):
        return None
    path = text[i:]
    if ".." in path.split("/") or any(c.isspace() for c in path):
        return None
    return path


# ---- the workflow template's expressions -------------------------------------------------------------


def tree_text(root: Path, name: str | None, roots, limit: int) -> str | None:
    """The text of the file ``name`` (relative to ``root``) of the checked tree, read through
    ``recipelint.files`` (regular, inside the run's roots, at most ``limit`` bytes); None when it
    is not there or may not be read."""
    if not name:
        return None
    p = root / name
    from recipelint.files import Refused, confine, read_regular

    try:
        if not p.is_file():
            return None
        confine(p, roots if roots is not None else [root])
        return read_regular(p, limit).decode("utf-8", errors="replace")
    except (Refused, OSError):
        return None


_TOKEN = re.compile(r"\s*(?:(\(|\)|&&|\|\||==|!=|!)|'((?:[^']|'')*)'|(inputs\.[A-Za-z_][A-Za-z0-9_-]*)|(true|false|null))")


def gh_eval(expr: str, inputs: dict) -> str | bool | None:
    """A GitHub Actions expression over ``inputs`` (``inputs.x == 'a' && 'b' || 'c'``): string
    literals, ``inputs.NAME``, ``==``/``!=``, ``!``, ``&&``/``||`` (which return an operand, as in
    GitHub), parentheses.  Anything else: None (not known)."""
    toks = []
    pos = 0
    while pos < len(expr):
        m = _TOKEN.match(expr, pos)
        if m is None or m.end() == pos:
            if expr[pos:].strip() == "":
                break
            return None
        op, lit, ref, const = m.groups()
        if op is not None:
            toks.append(("op", op))
        elif lit is not None:
            toks.append(("val", lit.replace("''", "'")))
        elif ref is not None:
            v = inputs.get(ref.split(".", 1)[1])
            toks.append(("val", v if v is not None else ""))
        else:
            toks.append(("val", {"true": True, "false": False, "null": None}[const]))
        pos = m.end()
    i = 0

    def peek():
        return toks[i] if i < len(toks) else (None, None)

    def primary():
        nonlocal i
        kind, v = peek()
        if kind == "op" and v == "(":
            i += 1
            r = or_()
            if peek() != ("op", ")"):
                raise ValueError
            i += 1
            return r
        if kind == "op" and v == "!":
            i += 1
            return not primary()
        if kind == "val":
            i += 1
            return v
        raise ValueError

    def cmp_():
        nonlocal i
        left = primary()
        while peek() in (("op", "=="), ("op", "!=")):
            op = peek()[1]
            i += 1
            right = primary()
            same = str(left).lower() == str(right).lower() if isinstance(left, str) and isinstance(right, str) else left == right
            left = same if op == "==" else not same
        return left

    def chain(op, operand, when_true_left: bool):
        """``a op b op ...`` where the result is an operand, as in GitHub: ``&&`` gives the right
        one when the left is truthy, ``||`` the left one when it is."""
        nonlocal i
        left = operand()
        while peek() == ("op", op):
            i += 1
            right = operand()
            left = (right if left else left) if when_true_left else (left if left else right)
        return left

    def and_():
        return chain("&&", cmp_, True)

    def or_():
        return chain("||", and_, False)

    try:
        out = or_()
    except (ValueError, IndexError, RecursionError):  # (a hostile template: parentheses nested deep)
        return None
    return out if i == len(toks) else None


_ENV_BLOCK = re.compile(r"^env:[ \t]*\n((?:[ \t]+.*\n|[ \t]*\n)*)", re.M)
_EXPR = re.compile(r"^\$\{\{\s*(.*?)\s*\}\}$")
_INPUT_NAME = re.compile(r"^      ([A-Za-z_][A-Za-z0-9_-]*):[ \t]*$")
_INPUT_DEFAULT = re.compile(r"^        default:[ \t]*(.*?)[ \t]*$")


@dataclass
class Template:
    """The workflow template of the checked tree: its top-level ``env:`` (name -> value as
    written) and its inputs' defaults (``on.workflow_call.inputs.<name>.default``)."""

    env: dict[str, str]
    defaults: dict[str, str]

    def value(self, name: str, inputs: dict | None = None) -> str | None:
        """The value the template gives ``name`` for a job whose inputs are ``inputs`` (the
        others at their defaults): a string, or None when the template does not set it or its
        expression is not understood."""
        raw = self.env.get(name)
        if raw is None:
            return None
        m = _EXPR.match(raw)
        if m is None:
            return raw
        v = gh_eval(m.group(1), {**self.defaults, **(inputs or {})})
        if v is None or isinstance(v, bool):
            return None
        return str(v)


def _unquote(value: str) -> str:
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
        return value[1:-1]
    return value


def template(root: Path, spec: dict, roots=None) -> Template | None:
    """The tree's workflow template (``template_workflow``), read as text, bounded; None when
    it has none."""
    text = tree_text(root, spec.get("template_workflow"), roots, 1 << 20)
    if text is None:
        return None
    env: dict[str, str] = {}
    m = _ENV_BLOCK.search(text)
    if m is not None:
        for line in m.group(1).splitlines():
            km = re.match(r"^  ([A-Z][A-Z0-9_]*):[ \t]*(.*?)[ \t]*$", line)
            if km:
                env[km.group(1)] = _unquote(km.group(2))
    defaults: dict[str, str] = {}
    current = None
    for line in text.split("\n", 4000)[:4000]:
        nm = _INPUT_NAME.match(line)
        if nm:
            current = nm.group(1)
            continue
        dm = _INPUT_DEFAULT.match(line)
        if dm and current is not None and current not in defaults:
            v = _unquote(dm.group(1))
            defaults[current] = v.lower() if v in ("true", "false", "True", "False") else v
        if line.startswith("env:") or line.startswith("jobs:"):
            break
    return Template(env, defaults)


def template_subdir(tpl: Template | None, scenario: str) -> str | None:
    """``SCENARIO_SUBDIR`` as the template sets it for a row of ``scenario`` (its input
    ``scenario-type``): a string, "" when the template does not set it, None when there is no
    template or its expression is not understood."""
    if tpl is None:
        return None
    if "SCENARIO_SUBDIR" not in tpl.env:
        return ""
    return tpl.value("SCENARIO_SUBDIR", {"scenario-type": scenario})


_CONTEXT = re.compile(r"MAX_MODEL_LEN[^\n]{0,40}?:\s*isl\s*\+\s*osl\s*\+\s*(\d{1,6})\b")


def context_offset(root: Path, spec: dict, roots=None) -> int | None:
    """The sweep generator's ``MAX_MODEL_LEN = isl + osl + N`` of the checked tree (N: 200 until
    InferenceX f34a83b25, 256 after), or None when the generator is not there or says otherwise."""
    text = tree_text(root, spec.get("generator"), roots, 4 << 20)
    if text is None:
        return None
    found = {int(m.group(1)) for m in _CONTEXT.finditer(text)}
    return found.pop() if len(found) == 1 else None


#: ``cp -r[T] "$GITHUB_WORKSPACE/SRC" DEST`` in a runner launcher (continued lines joined): the
#: launcher copies the tree's engine recipes into the orchestrator's checkout
_COPY = re.compile(r"""\bcp\s+-[a-zA-Z]*r[a-zA-Z]*\s+["']?\$\{?GITHUB_WORKSPACE\}?/([^"'\s]+)["']?\s+["']?([^"'\s;|&]+)""")


def recipe_copies(root: Path, roots=None, limit: int = 1 << 20) -> list[tuple[str, str]]:
    """(destination, source) folder pairs, longest destination first: where a runner launcher
    (``runners/*.sh``) copies a folder of the checked tree (``$GITHUB_WORKSPACE/…``) into the
    working directory of a multi-node orchestrator, so that a master config's
    ``CONFIG_FILE=recipes/trtllm/glm5/x.yaml`` is the tree's
    ``benchmarks/multi_node/srt-slurm-recipes/trtllm/glm5/x.yaml``.  Read from the launchers' text
    (not evaluated: the copies sit in branches the sweep does not take), bounded."""
    pairs: dict[str, str] = {}
    d = root / "runners"
    try:
        names = sorted(p.name for p in d.glob("*.sh")) if d.is_dir() else []
    except OSError:
        names = []
    for name in names:
        text = tree_text(root, f"runners/{name}", roots, limit)
        if not text:
            continue
        joined = re.sub(r"\\\n\s*", " ", text)
        for m in _COPY.finditer(joined):
            src, dest = m.group(1).rstrip("/"), m.group(2).rstrip("/")
            if dest and not dest.startswith(("$", "/")) and ".." not in dest.split("/"):
                pairs.setdefault(dest, src)
    return sorted(pairs.items(), key=lambda kv: -len(kv[0]))


def tree_path(name: str, copies: list[tuple[str, str]]) -> str:
    """The tree's path of an orchestrator path through the launchers' copies (else ``name``)."""
    for dest, src in copies:
        if name == dest or name.startswith(dest + "/"):
            return src + name[len(dest) :]
    return name
