"""Benchmark client calls: recognise a benchmark client (``vllm bench serve``, ``python -m
sglang.bench_serving``, ``python3 .../benchmark_serving.py``, ``aiperf profile``) in an expanded
argv, with the options that name the server it talks to.

The evaluator hands every external command to the analysis' hook; a command that is not a serve
launch comes here (:func:`detect`).  The clients and the helper-library functions that run one
are data (``rules/data/clients.yaml``); :func:`client_words` gives them to the evaluator's watch,
so that the statements after the launch are followed up to the last client call."""

from __future__ import annotations

import functools
import os
from dataclasses import dataclass, field

from recipelint.bash.source import Loc
from recipelint.engines import facts
from recipelint.engines.launches import _PY, after_python, strip_launchers
from recipelint.evaluate.values import Word


@dataclass(slots=True)
class ClientCall:
    """A benchmark client run on a path (an event, as a :class:`~recipelint.engines.launches.Launch`)."""

    client: str  # the clients.yaml name: vllm-bench-serve, benchmark-serving-py, ...
    argv: tuple[Word, ...]
    start: int  # index in argv where the client command starts (after launchers)
    #: role (port, base_url, model, served_model, concurrency) -> (option word, value word), the
    #: last occurrence
    options: dict = field(default_factory=dict)
    loc: Loc | None = None  # the command that ran it
    #: the function calls it ran in, outermost first: (name, argv texts, call Loc)
    stack: tuple = ()
    complete: bool = True  # False when an unknown splice may hide arguments
    #: a router or proxy (clients.yaml `proxies`), not a client: what starts it serves clients
    proxy: bool = False
    point: object = None

    def value(self, role: str) -> str | None:
        got = self.options.get(role)
        return got[1].text if got is not None and got[1] is not None else None


@dataclass(frozen=True, slots=True)
class _Client:
    name: str
    entries: tuple[tuple[str, ...], ...]
    roles: tuple[tuple[str, str], ...]  # (option, role)
    proxy: bool = False
    opaque: bool = False


@functools.lru_cache(maxsize=1)
def _clients() -> tuple[_Client, ...]:
    data = facts.load("clients")
    out = []
    for kind in ("clients", "proxies"):
        for name, spec in (data.get(kind) or {}).items():
            roles = tuple((opt, role) for role, opts in (spec.get("options") or {}).items() for opt in opts)
            entries = tuple(tuple(e) for e in spec["entries"])
            out.append(_Client(name, entries, roles, kind == "proxies", bool(spec.get("opaque"))))
    return tuple(out)


@functools.lru_cache(maxsize=1)
def _starts() -> frozenset:
    return frozenset(e[0] for c in _clients() for e in c.entries)


def opaque_functions() -> frozenset:
    """Helper-library functions whose call is a client call, their body not evaluated
    (``opaque`` clients in clients.yaml)."""
    return frozenset(e[0] for c in _clients() if c.opaque for e in c.entries)


def tools_mode(client: str) -> str | None:
    """Whether ``client``'s requests carry tool definitions: ``never``, ``trace`` (only requests
    whose dataset turn carries them), ``always``, or None (not known): clients.yaml ``tools``."""
    data = facts.load("clients")
    spec = (data.get("clients") or {}).get(client) or {}
    mode = spec.get("tools")
    return mode if mode in ("never", "trace", "always") else None


def answers_used(client: str) -> bool | None:
    """Whether ``client`` uses the answer's text (threads it back, scores it): clients.yaml
    ``answers``; None when not known."""
    spec = (facts.load("clients").get("clients") or {}).get(client) or {}
    got = spec.get("answers")
    return True if got == "used" else False if got == "unused" else None


def functions() -> frozenset:
    """The helper-library functions that run a client."""
    return frozenset(facts.load("clients").get("functions") or ())


def client_words() -> dict:
    """The clients for the evaluator's watch: name -> the argv prefixes that make it one
    (``vllm`` with ``bench``, ``python`` with ``-m sglang.bench_serving``; a function with any
    arguments: the empty prefix)."""
    out: dict = {}
    for c in _clients():
        if c.proxy:
            continue  # (started before the client: followed anyway)
        for e in c.entries:
            prefix = tuple(e[1:3]) if e[0] == "python" else tuple(e[1:2])
            out.setdefault(e[0], []).append(prefix)
    for name in sorted(functions()):
        out[name] = [()]
    return out


def detect(argv: list[Word], loc: Loc, stack: tuple = ()) -> ClientCall | None:
    """The client call ``argv`` makes, or None."""
    if not argv:
        return None
    first = argv[0].text
    if first is not None and not _could_start(os.path.basename(first), _starts()):
        from recipelint.engines.launches import catalog

        if os.path.basename(first) not in catalog().launchers:
            return None
    stripped = strip_launchers(argv)
    if stripped is None:
        return None
    i = stripped[0]
    texts = [w.text for w in argv]
    # a script path's file name is known when its directory is not (`"$(pwd)/utils/x.py"`)
    tails = [_known_suffix(w) for w in argv]
    for c in _clients():
        for e in c.entries:
            j = _match(e, texts, tails, i)
            if j is not None:
                return _build(c, argv, i, j, loc, stack)
    return None


def _could_start(base: str, starts) -> bool:
    return base in starts or bool(_PY.match(base))


def _known_suffix(w: Word) -> str | None:
    """The known text at the end of a word, from its last `/` (None: not known)."""
    out = []
    for ch in reversed(w.chunks):
        if ch.text is None:
            break
        out.append(ch.text)
        if "/" in ch.text:
            break
    tail = "".join(reversed(out))
    return tail if "/" in tail or len(out) == len(w.chunks) else None


def _match(entry: tuple[str, ...], texts, tails, i: int) -> int | None:
    j = i
    for k, want in enumerate(entry):
        if j < len(texts) and texts[j] is None and want.startswith("*/") and tails[j] is not None:
            if os.path.basename(tails[j]) != want[2:]:
                return None
            j += 1
            continue
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
        elif want.startswith("*/"):
            if os.path.basename(got) != want[2:]:
                return None
        elif got != want:
            return None
        j += 1
    return j


def _build(c: _Client, argv: list[Word], i: int, j: int, loc: Loc, stack: tuple) -> ClientCall:
    roles = dict(c.roles)
    options: dict = {}
    words = argv[j:]
    k = 0
    while k < len(words):
        w = words[k]
        t = w.text
        if t is not None and t.startswith("-"):
            name = t.partition("=")[0]
            role = roles.get(name)
            if role is not None:
                if "=" in t:
                    from recipelint.evaluate.values import slice_str

                    options[role] = (w, Word(slice_str(w.chunks, len(name) + 1), w.loc))
                elif k + 1 < len(words):
                    options[role] = (w, words[k + 1])
                    k += 1
        k += 1
    complete = not any(ch.multi for w in argv for ch in w.chunks)
    return ClientCall(c.name, tuple(argv), i, options, loc, stack, complete, c.proxy)
