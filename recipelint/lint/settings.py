"""Project settings: ``[tool.recipelint]`` in ``pyproject.toml`` or ``.recipelint.yaml`` (``.yml``).

Found by walking up from the first scanned path to the project root — the first directory holding
``.git``, else the folder with the master configs (``configs/*-master.yaml``), else the folder named
(a file's own folder); nothing above it is read, so a settings file in a shared parent (the system
temp dir, a home directory) never applies to a project below it (the nearest file wins; a ``pyproject.toml`` without a
``[tool.recipelint]`` table is skipped, one that holds the table but is not valid TOML is an error).
Command-line options override settings; ``recipelint check --show-settings`` prints what was
resolved and where each value came from.

Keys::

    select = ["RL"]                 # rule codes or prefixes to run (default: all)
    extend-select = ["RL6"]         # added to select
    ignore = ["RL401"]              # codes or prefixes to skip
    per-file-ignores = {"benchmarks/deprecated/*" = ["RL4"]}   # globs relative to the settings file
    severity = {RL401 = "info"}     # per-rule severity overrides (info, warning, error)
    exclude = ["benchmarks/multi_node/**"]  # globs relative to the settings file
    fail-on = "warning"             # lowest severity that makes `check` exit 1
    output-format = "full"
    configs = ["configs/nvidia-master.yaml"]   # master configs (default: configs/*-master.yaml)
    sibling-groups = [["b200", "b300"]]        # added to the built-in hardware groups
    hardware-specific-flags = ["--my-flag"]    # flags sibling recipes may differ in
    connector-keys = {MyConnector = ["key_a"]}  # extra kv_connector_extra_config keys a connector reads
    extra-flags = {vllm = ["--omni"]}          # flags a plugin or site build adds to an engine
    engine-trees = {sglang = "3rdparty/sglang/python"}  # the engine build the scripts run, as source
    extra-entry-points = {vllm = ["python -m my_site.serve"]}  # commands that take an engine's flags
    profile = "auto"                # auto, inferencex (the default matrix) or environment
    environments = [{files = "scripts/*.sh", env = {MODEL = "org/m"}, args = ["8000"]}]  # what callers give
    engine-versions = {vllm = "0.10.1"}   # the releases the scripts run (when no image says)

``engine-versions`` names, per engine with a release history (vllm, sglang, atom), the release the
repository's scripts run where no sweep point's image says (docs/engine-histories.md, "Declaring
the engine version").  An ``environments`` entry may hold its own ``engine-versions`` for the
files its glob matches (it wins over the top-level one).  A sweep point's image wins over both;
both win over the pins read from the repository (``requirements*.txt``, ``pyproject.toml``,
Dockerfiles: recipelint.engines.pins).

Unknown keys and bad values are errors (a one-line message, exit status 2).
"""

from __future__ import annotations

import fnmatch
import os
import re
from dataclasses import dataclass, field, fields
from pathlib import Path

from recipelint.bash.source import safe_resolve

SEVERITIES = ("info", "warning", "error")
#: the largest settings file read
MAX_BYTES = 4 * 1024 * 1024
FORMATS = ("full", "concise", "json", "json-lines", "github", "sarif")
CODE = re.compile(r"^(ALL|RL\d{0,3})$")
#: a `[tool.recipelint]` (or `[tool.recipelint.x]`) table header, in a file that may not parse
_TABLE = re.compile(rb"^[ \t]*\[[ \t]*tool[ \t]*\.[ \t]*[\"']?recipelint[\"']?[ \t]*[\].]", re.M)


class SettingsError(Exception):
    pass


@dataclass(slots=True)
class Settings:
    path: Path | None = None  # the settings file, when one was found
    select: list[str] = field(default_factory=list)
    extend_select: list[str] = field(default_factory=list)
    ignore: list[str] = field(default_factory=list)
    per_file_ignores: dict[str, list[str]] = field(default_factory=dict)
    severity: dict[str, str] = field(default_factory=dict)
    exclude: list[str] = field(default_factory=list)
    fail_on: str = "warning"
    output_format: str = "full"
    configs: list[str] = field(default_factory=list)
    sibling_groups: list[list[str]] = field(default_factory=list)
    hardware_specific_flags: list[str] = field(default_factory=list)
    connector_keys: dict[str, list[str]] = field(default_factory=dict)
    extra_flags: dict[str, list[str]] = field(default_factory=dict)
    extra_entry_points: dict[str, list[str]] = field(default_factory=dict)
    #: engine -> the folder (relative to the settings file) holding the source of the engine build
    #: the scripts run (a fork, a vendored checkout): its parser files define the flags
    engine_trees: dict[str, str] = field(default_factory=dict)
    #: how a script no master config reaches is evaluated (recipelint.sweep.points.PROFILES)
    profile: str = "auto"
    #: (glob relative to the settings file, env, args): what such a script's caller gives it
    environments: list = field(default_factory=list)
    #: engine -> release the scripts run (when no sweep point's image says)
    engine_versions: dict[str, str] = field(default_factory=dict)
    #: the keys the settings file set (the others are defaults), for --show-settings
    given: tuple[str, ...] = field(default=(), repr=False, compare=False)

    @property
    def base(self) -> Path:
        return self.path.parent if self.path is not None else Path.cwd()

    def _rel(self, path: Path) -> str | None:
        try:
            return safe_resolve(path).relative_to(safe_resolve(self.base)).as_posix()
        except (ValueError, OSError):
            return None

    def environment_for(self, path: Path) -> tuple[dict, list[str] | None]:
        """(env, args) the first ``environments`` entry whose glob matches ``path`` gives."""
        rel = self._rel(path) if self.environments else None
        if rel is not None:
            for glob, env, args, _ in self.environments:
                if _glob(rel, glob):
                    return dict(env), args
        return {}, None

    def engine_versions_for(self, path: Path) -> dict[str, tuple[str, str]]:
        """engine -> (release, where it is declared) for ``path``: the top-level
        ``engine-versions``, with those of the first ``environments`` entry whose glob matches."""
        where = self._where()
        out = {e: (v, f"declared in {where}") for e, v in self.engine_versions.items()}
        rel = self._rel(path) if any(e[3] for e in self.environments) else None
        if rel is not None:
            for glob, _, _, versions in self.environments:
                if _glob(rel, glob):
                    out.update({e: (v, f"declared in {where} for `{glob}`") for e, v in versions.items()})
                    break
        return out

    def _where(self) -> str:
        if self.path is None:
            return "the settings"
        name = self.path.name
        return f"{name} [tool.recipelint]" if name == "pyproject.toml" else name

    def excluded(self, path: Path) -> bool:
        if not self.exclude:  # (resolving every path of a big tree costs ~50 ms)
            return False
        rel = self._rel(path)
        if rel is None:
            return False
        return any(_glob(rel, g) for g in self.exclude)

    def ignored_codes(self, path: Path) -> list[str]:
        rel = self._rel(path)
        if rel is None:
            return []
        out: list[str] = []
        for g, codes in self.per_file_ignores.items():
            if _glob(rel, g):
                out.extend(codes)
        return out


def _glob(rel: str, pattern: str) -> bool:
    pattern = pattern.rstrip("/")
    if fnmatch.fnmatchcase(rel, pattern):
        return True
    # a directory pattern matches what is below it; `**/` matches any depth
    if fnmatch.fnmatchcase(rel, pattern + "/*") or fnmatch.fnmatchcase(rel, pattern.replace("**/", "")):
        return True
    parts = rel.split("/")
    return any(fnmatch.fnmatchcase("/".join(parts[:i]), pattern) for i in range(1, len(parts)))


def find(start: Path) -> Path | None:
    """The settings file for a run over ``start``: the nearest ``.recipelint.yaml`` (or
    ``.recipelint.yml``), or
    ``pyproject.toml`` with a ``[tool.recipelint]`` table, at or above it and not above the project
    root (the first directory holding ``.git``).  A ``pyproject.toml`` that holds the table but does
    not parse is a ``SettingsError`` (it used to be skipped, and its settings silently ignored)."""
    from recipelint.sweep.configs import project_root

    try:
        here = start if start.is_dir() and not start.is_symlink() else start.parent
        cur = Path(os.path.realpath(here))
        top = project_root(start)
    except (OSError, RuntimeError, ValueError):
        return None
    for d in [cur, *cur.parents]:
        # (`.recipelint.yml` is the same file under the other YAML suffix: read, not silently skipped)
        found = [
            y
            for y in (d / ".recipelint.yaml", d / ".recipelint.yml")
            if y.is_file() or (os.path.lexists(y) and not y.is_dir())  # (a FIFO or a dangling link: load says so)
        ]
        if len(found) > 1:
            raise SettingsError(f"{d}: both .recipelint.yaml and .recipelint.yml: keep one (which one applies is not clear)")
        if found:
            return _confined(found[0], top)
        t = d / "pyproject.toml"
        if t.is_file() and _has_table(_confined(t, top)):
            return t
        if d == top or not str(d).startswith(str(top)):  # the project root: settings above it belong to something else
            break
    return None


def _confined(path: Path, top: Path) -> Path:
    """``path`` when it resolves inside the project root ``top``; a ``SettingsError`` when it is
    a link out of it (its keys and values would be quoted by errors: it is not read)."""
    from recipelint.files import Refused, confine

    try:
        confine(path, [top])
    except Refused as e:
        raise SettingsError(f"{e.reason}: settings not read") from None
    return path


def _has_table(path: Path) -> bool:
    import tomllib

    from recipelint.files import Refused, read_regular

    try:
        raw = read_regular(path, MAX_BYTES)
    except Refused:
        return False
    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except (ValueError, UnicodeDecodeError, RecursionError) as e:
        if _TABLE.search(raw):
            why = (
                "not UTF-8"
                if isinstance(e, UnicodeDecodeError)
                else ("invalid TOML: nested too deeply" if isinstance(e, RecursionError) else f"invalid TOML: {e}")
            )
            raise SettingsError(f"{path}: {why} (it has a [tool.recipelint] table, which cannot be read)") from None
        return False
    return "recipelint" in (data.get("tool") or {})


def load(path: Path | None) -> Settings:
    if path is None:
        return Settings()
    name = str(path)
    from recipelint.files import Refused, read_text

    try:
        text = read_text(path, MAX_BYTES)
    except Refused as e:
        why = e.reason[len(name) + 2 :] if e.reason.startswith(f"{name}: ") else e.reason
        raise SettingsError(f"{name}: cannot read settings ({why})") from None
    if path.suffix == ".toml":
        import tomllib

        try:
            data = tomllib.loads(text)
        except ValueError as e:
            raise SettingsError(f"{name}: invalid TOML: {e}") from None
        except RecursionError:  # (tomllib recurses per nesting level)
            raise SettingsError(f"{name}: invalid TOML: nested too deeply") from None
        raw = (data.get("tool") or {}).get("recipelint")
        if raw is None:
            raise SettingsError(f"{name}: no [tool.recipelint] table")
        where = f"{name} [tool.recipelint]"
    else:
        from ruamel.yaml.error import YAMLError

        from recipelint.engines import yamlpos

        try:
            # (yamlpos: nesting checked before composing, aliases not expanded past a bound — a
            # 423-byte file of nested aliases took more than 3.7 GB with ruamel's loader)
            raw = yamlpos.load(text)
        except yamlpos.YAMLPosError as e:
            where = f"{name}:{(e.line or 0) + 1}:{(e.column or 0) + 1}" if e.line is not None else name
            raise SettingsError(f"{where}: invalid YAML: {e}") from None
        except (YAMLError, RecursionError) as e:
            raise SettingsError(yaml_error(name, e)) from None
        where = name
        if raw is None:
            raw = {}
    if not isinstance(raw, dict):
        raise SettingsError(f"{where}: settings must be a table of keys")
    return _validate(raw, where, path)


def yaml_error(name: str, e: Exception) -> str:
    """A YAML parser's error as one line: ``FILE:LINE:COL: invalid YAML: what``, without the
    parser's own advice (ruamel's duplicate-key message tells how to switch the check off)."""
    mark = getattr(e, "problem_mark", None) or getattr(e, "context_mark", None)
    problem = getattr(e, "problem", None) or str(e)
    problem = " ".join(str(problem).split()).split(" To suppress this check")[0]
    problem = re.sub(r' with value "[^"]*" \(original value: "[^"]*"\)', "", problem)
    where = f"{name}:{mark.line + 1}:{mark.column + 1}" if mark is not None else name
    return f"{where}: invalid YAML: {problem[:200]}"


def _codes(value, key, where) -> list[str]:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise SettingsError(f"{where}: `{key}` must be a list of rule codes")
    out = []
    for v in value:
        v = v.strip().upper()
        if not CODE.match(v):
            raise SettingsError(f"{where}: `{key}`: '{v}' is not a rule code or prefix (like RL101 or RL1)")
        out.append(v)
    return out


def _strings(value, key, where) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise SettingsError(f"{where}: `{key}` must be a list of strings")
    return list(value)


def _validate(raw: dict, where: str, path: Path) -> Settings:
    s = Settings(path=path)
    s.given = tuple(str(k).replace("_", "-") for k in raw)
    for key, value in raw.items():
        k = str(key).replace("_", "-")
        if k == "select":
            s.select = _codes(value, k, where)
        elif k == "extend-select":
            s.extend_select = _codes(value, k, where)
        elif k == "ignore":
            s.ignore = _codes(value, k, where)
        elif k == "per-file-ignores":
            if not isinstance(value, dict):
                raise SettingsError(f"{where}: `per-file-ignores` must be a table of glob = [codes]")
            s.per_file_ignores = {str(g): _codes(c, f"per-file-ignores.{g}", where) for g, c in value.items()}
        elif k == "severity":
            if not isinstance(value, dict):
                raise SettingsError(f"{where}: `severity` must be a table of code = severity")
            for code, sev in value.items():
                c = _codes(code, "severity", where)[0]
                if sev not in SEVERITIES:
                    raise SettingsError(f"{where}: `severity.{code}` must be one of {', '.join(SEVERITIES)}, got {sev!r}")
                s.severity[c] = sev
        elif k == "exclude":
            s.exclude = _strings(value, k, where)
        elif k == "fail-on":
            if value not in SEVERITIES:
                raise SettingsError(f"{where}: `fail-on` must be one of {', '.join(SEVERITIES)}, got {value!r}")
            s.fail_on = value
        elif k == "output-format":
            if value not in FORMATS:
                raise SettingsError(f"{where}: `output-format` must be one of {', '.join(FORMATS)}, got {value!r}")
            s.output_format = value
        elif k == "configs":
            s.configs = _strings(value, k, where)
        elif k == "sibling-groups":
            if not isinstance(value, list) or not all(isinstance(g, list) and all(isinstance(x, str) for x in g) for g in value):
                raise SettingsError(f"{where}: `sibling-groups` must be a list of lists of hardware names")
            s.sibling_groups = [[x.lower() for x in g] for g in value]
        elif k == "hardware-specific-flags":
            s.hardware_specific_flags = _strings(value, k, where)
        elif k == "connector-keys":
            if not isinstance(value, dict) or not all(isinstance(v, list) for v in value.values()):
                raise SettingsError(f"{where}: `connector-keys` must be a table of connector = [keys]")
            s.connector_keys = {str(c): [str(x) for x in v] for c, v in value.items()}
        elif k == "extra-flags":
            s.extra_flags = _extra_flags(value, where)
        elif k == "extra-entry-points":
            s.extra_entry_points = _extra_entry_points(value, where)
        elif k == "engine-trees":
            s.engine_trees = _engine_trees(value, where)
        elif k == "profile":
            from recipelint.sweep.points import PROFILES

            if value not in PROFILES:
                raise SettingsError(f"{where}: `profile` must be one of {', '.join(PROFILES)}, got {value!r}")
            s.profile = value
        elif k == "environments":
            s.environments = _environments(value, where)
        elif k == "engine-versions":
            s.engine_versions = _engine_versions(value, "engine-versions", where)
        else:
            raise SettingsError(f"{where}: unknown key `{key}`")
    return s


def _extra_flags(value, where) -> dict[str, list[str]]:
    if not isinstance(value, dict):
        raise SettingsError(f"{where}: `extra-flags` must be a table of engine = [flags]")
    from recipelint.engines.catalog import catalogs

    engines = sorted(catalogs())  # the catalogued engines
    out: dict[str, list[str]] = {}
    for engine, flags in value.items():
        if engine not in engines:
            raise SettingsError(f"{where}: `extra-flags.{engine}`: engine must be one of {', '.join(engines)}")
        flags = _strings(flags, f"extra-flags.{engine}", where)
        for f in flags:
            if not re.fullmatch(r"--[A-Za-z0-9][A-Za-z0-9_.-]*", f):
                raise SettingsError(f"{where}: `extra-flags.{engine}`: '{f}' is not a long option (like --my-flag)")
        out[engine] = flags
    return out


def _engine_trees(value, where) -> dict[str, str]:
    if not isinstance(value, dict):
        raise SettingsError(f"{where}: `engine-trees` must be a table of engine = \"folder\"")
    from recipelint.engines import facts

    engines = sorted(e for e, spec in facts.load("engines")["engines"].items() if (spec or {}).get("source_tree"))
    out: dict[str, str] = {}
    for engine, folder in value.items():
        if engine not in engines:
            raise SettingsError(f"{where}: `engine-trees.{engine}`: engine must be one of {', '.join(engines)}")
        if not isinstance(folder, str) or not folder.strip() or folder.startswith("/"):
            raise SettingsError(f"{where}: `engine-trees.{engine}` must be a folder relative to the settings file")
        out[engine] = folder
    return out


def _environments(value, where) -> list:
    """``environments = [{files = "scripts/*.sh", env = {MODEL = "org/m"}, args = ["org/m"]}]``."""
    if not isinstance(value, list) or not all(isinstance(e, dict) for e in value):
        raise SettingsError(f"{where}: `environments` must be a list of tables with `files`, `env` and `args`")
    out = []
    for e in value:
        e = {str(k).replace("_", "-"): v for k, v in e.items()}
        unknown_keys = set(e) - {"files", "env", "args", "engine-versions"}
        if unknown_keys or not isinstance(e.get("files"), str):
            raise SettingsError(
                f"{where}: `environments`: each entry has `files` (a glob) and may have `env`, `args`, `engine-versions`"
            )
        env = e.get("env") or {}
        if not isinstance(env, dict) or not all(re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", str(k)) for k in env):
            raise SettingsError(f"{where}: `environments`: `env` must be a table of NAME = value")
        args = e.get("args")
        if args is not None:
            args = _strings(args, "environments.args", where)
        versions = _engine_versions(e.get("engine-versions") or {}, "environments.engine-versions", where)
        out.append((e["files"], {str(k): str(v) for k, v in env.items()}, args, versions))
    return out


def _engine_versions(value, key: str, where: str) -> dict[str, str]:
    """``{vllm = "0.10.1"}``: engines with a release history, each a release of it."""
    from recipelint.engines.catalog import ENGINE_NAMES, version_key, versions
    from recipelint.engines.facts import load as load_facts

    if not isinstance(value, dict):
        raise SettingsError(f'{where}: `{key}` must be a table of engine = "release" (like {{vllm = "0.10.1"}})')
    known_engines = sorted(e for e in load_facts("engines")["engines"] if versions(e))
    out: dict[str, str] = {}
    for engine, version in value.items():
        engine = str(engine)
        if not versions(engine):
            if engine in load_facts("engines")["engines"]:
                raise SettingsError(
                    f"{where}: `{key}.{engine}`: recipelint has no release history of "
                    f"{ENGINE_NAMES.get(engine, engine)}, so its version would not be judged; "
                    f"engines with one: {', '.join(known_engines)}"
                )
            raise SettingsError(f"{where}: `{key}.{engine}`: engine must be one of {', '.join(known_engines)}")
        if not isinstance(version, str):
            raise SettingsError(f'{where}: `{key}.{engine}` must be a release as a string (like "0.10.1"), got {version!r}')
        v = version.strip().removeprefix("v")
        known = versions(engine)
        if v not in known:
            name = ENGINE_NAMES.get(engine, engine)
            older = [k for k in known if version_key(k) < version_key(v)]
            newer = [k for k in known if version_key(k) > version_key(v)]
            if not re.fullmatch(r"\d+(\.\d+)+((a|b|rc)\d+)?(\.post\d+)?", v):
                why = "is not a release number"
            elif older and newer:
                why = f"is not a {name} release recipelint knows (nearest: {older[-1]}, {newer[0]})"
            elif older:
                why = f"is newer than every {name} release recipelint knows (the newest is {known[-1]})"
            else:
                why = f"is older than every {name} release recipelint knows (the oldest is {known[0]})"
            raise SettingsError(f"{where}: `{key}.{engine}`: {version!r} {why}")
        out[engine] = v
    return out


def _extra_entry_points(value, where) -> dict[str, list[str]]:
    from recipelint.engines import facts

    engines = sorted(facts.load("engines")["engines"])
    if not isinstance(value, dict):
        raise SettingsError(f"{where}: `extra-entry-points` must be a table of engine = [commands]")
    out: dict[str, list[str]] = {}
    for engine, commands in value.items():
        if engine not in engines:
            raise SettingsError(f"{where}: `extra-entry-points.{engine}`: engine must be one of {', '.join(engines)}")
        commands = _strings(commands, f"extra-entry-points.{engine}", where)
        for c in commands:
            if not re.fullmatch(r"[A-Za-z0-9_./-]+(?: +[A-Za-z0-9_./:-]+)*", c.strip()) or c.strip().startswith("-"):
                raise SettingsError(
                    f"{where}: `extra-entry-points.{engine}`: '{c}' is not a command (words like `python -m my_site.serve`)"
                )
        out[engine] = [" ".join(c.split()) for c in commands]
    return out


def apply_facts(s: Settings) -> None:
    """Extend the engine facts the rules read with the settings' additions."""
    from recipelint.engines import facts
    from recipelint.engines.catalog import set_extra_flags

    set_extra_flags(s.extra_flags)
    if s.engine_trees:

        def declared(d):
            for engine, folder in s.engine_trees.items():
                d["engines"][engine]["source_tree"] = {**d["engines"][engine]["source_tree"], "declared": str(s.base / folder)}

        facts.extend("engines", declared)
    if s.extra_entry_points:

        def entries(d):
            for engine, commands in s.extra_entry_points.items():
                for c in commands:
                    words = c.split()
                    if re.fullmatch(r"python[0-9.]*", words[0].rsplit("/", 1)[-1]):
                        words[0] = "python"  # (any python, as the built-in entries)
                    d["engines"][engine].setdefault("entries", []).append({"argv": words, "positionals": 0})

        facts.extend("engines", entries)
    if s.sibling_groups:
        facts.extend("parity", lambda d: d["hardware_groups"].extend(s.sibling_groups))
    if s.hardware_specific_flags:
        facts.extend(
            "parity",
            lambda d: d["tuning_flags"].update(
                {f: "listed in the settings' hardware-specific-flags" for f in s.hardware_specific_flags}
            ),
        )
    if s.connector_keys:

        def add(d):
            for conn, keys in s.connector_keys.items():
                spec = d["vllm"].setdefault(conn, {"since": "0", "keys": {}})
                spec.setdefault("keys", {})
                for k in keys:
                    spec["keys"].setdefault(k, {"parse": "any"})

        facts.extend("connectors", add)


#: command-line options whose values are added to the settings' (the others replace them)
ADDED = ("ignore",)
#: the command-line option of a setting
OPTIONS = {
    "select": "--select",
    "ignore": "--ignore",
    "fail-on": "--fail-on",
    "output-format": "--output-format",
    "configs": "--master-config",
}


def resolved(s: Settings, cli: dict[str, object], notes: dict[str, str] | None = None) -> list[tuple[str, object, str]]:
    """(key, value, where it came from) for every setting: ``cli`` holds the values the command
    line gave (by settings key); the source is "command line", the settings file, or "default"
    (with ``notes[key]`` saying what the default means)."""
    out = []
    for f in fields(Settings):
        if f.name in ("path", "given"):
            continue
        key = f.name.replace("_", "-")
        value = getattr(s, f.name)
        source = str(s.path) if key in s.given and s.path is not None else "default"
        if source == "default" and notes and key in notes:
            source = f"default: {notes[key]}"
        if key in cli:
            opt = f"command line ({OPTIONS.get(key, key)})"
            if key in ADDED and value:
                value, source = [*cli[key], *value], f"{opt} + {source}"  # type: ignore[misc]
            else:
                value, source = cli[key], opt
        out.append((key, value, source))
    return out


def _toml(value) -> str:
    import json

    if isinstance(value, dict):
        return "{ " + ", ".join(f"{_toml_key(k)} = {_toml(v)}" for k, v in value.items()) + " }" if value else "{}"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    return json.dumps(value, ensure_ascii=False)


def _toml_key(k) -> str:
    import json

    k = str(k)
    return k if re.fullmatch(r"[A-Za-z0-9_-]+", k) else json.dumps(k, ensure_ascii=False)


def show(s: Settings, cli: dict[str, object], how: str, notes: dict[str, str] | None = None) -> str:
    """``--show-settings``: the resolved settings as TOML, each with where it came from.
    ``how``: how the settings file was found (or that none was)."""
    rows = [(f"{key} = {_toml(value)}", source) for key, value, source in resolved(s, cli, notes)]
    width = max(len(a) for a, _ in rows)
    head = f"# settings file: {s.path} ({how})" if s.path is not None else f"# settings file: none ({how})"
    return "\n".join([head, *(f"{a.ljust(width)}  # {src}" for a, src in rows)]) + "\n"
