"""An editor's hover over a recipe (``recipelint server``): the serve flags whose words are written
at the place pointed at — the flag itself, its value, or a word its value came from (a variable's
assignment, an array element, an arithmetic expansion) — with the value each flag has at every
sweep point, as ``recipelint render`` shows the launch per point, in Markdown; likewise a launch's
positional arguments (the model) and the variables of its environment (``export VLLM_...``).

Values are grouped: one line per value, with the sweep points that give it grouped as the
terminal formats group them (``report.points.compact_points``)."""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from recipelint.evaluate.values import display
from recipelint.lint.analysis import FileResult
from recipelint.report.points import compact_points

#: at most this many values of a flag are listed (the rest are counted)
VALUES_MAX = 12
#: at most this many flags are shown in one hover
FLAGS_MAX = 6
#: the longest value shown (longer ones are cut with an ellipsis)
VALUE_CHARS = 120


@dataclass(slots=True)
class FlagValues:
    name: str  # as written (the first occurrence met)
    line: int  # the line the flag word is written on (1-based)
    #: what it is when not a flag: "argument 1", "environment"
    kind: str = ""
    #: value shown → sweep point labels, in the order met
    values: dict[str, list[str]] = field(default_factory=dict)
    #: engines the launches holding it run
    engines: list[str] = field(default_factory=list)


def _covers(loc, offset: int, same) -> bool:
    if loc is None:
        return False
    r = loc.real()
    return same(r.source) and r.start <= offset <= max(r.end, r.start)


def flags_at(res: FileResult, offset: int) -> list[FlagValues]:
    """The serve flags of ``res``'s launches written at byte ``offset`` of its source (the flag, its
    value or a word of the value), with their values per sweep point."""
    if res.source is None:
        return []
    here = os.path.realpath(res.source.path)
    seen: dict[int, bool] = {}

    def same(src) -> bool:
        k = id(src)
        if k not in seen:
            seen[k] = src is res.source or os.path.realpath(getattr(src, "path", "") or "") == here
        return seen[k]

    found: dict[tuple[str, int], FlagValues] = {}

    def add(key: str, name: str, where, shown: str, label: str, engine: str, kind: str = "") -> None:
        written = where.real().span.line if where is not None else 0
        fv = found.setdefault((key, written), FlagValues(name, written, kind))
        labels = fv.values.setdefault(shown, [])
        if label not in labels:
            labels.append(label)
        if engine not in fv.engines:
            fv.engines.append(engine)

    def hit(words) -> bool:
        return any(_covers(w.loc, offset, same) or any(_covers(c.loc, offset, same) for c in w.chunks) for w in words)

    for pr in res.points:
        label = pr.point.label
        for lc in pr.launches:
            for f in lc.flags:
                if hit([f.word, *([f.value] if f.value is not None else [])]):
                    add(f.key, f.name, f.word.loc, "(no value)" if f.value is None else f.value.shown, label, lc.engine)
            for i, w in enumerate(lc.positionals, 1):
                if hit([w]):
                    add(f"#{i}", f"argument {i}", w.loc, w.shown, label, lc.engine)
            for name, value in lc.env.items():  # (the launch's environment: exported variables, prefix assignments)
                if isinstance(value, tuple) and any(_covers(getattr(c, "loc", None), offset, same) for c in value):
                    first = next((c.loc for c in value if getattr(c, "loc", None) is not None), None)
                    add(f"${name}", name, first, display(value), label, lc.engine, "environment")
    return list(found.values())


def _code(text: str) -> str:
    """``text`` as inline Markdown code (a backtick in it: a longer fence)."""
    text = " ".join(text.split())
    if len(text) > VALUE_CHARS:
        text = text[: VALUE_CHARS - 1] + "…"
    fence = "``" if "`" in text else "`"
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def hover_markdown(res: FileResult, offset: int) -> str | None:
    """The hover's Markdown for byte ``offset`` of ``res``'s source, or None when no serve flag
    is written there."""
    flags = flags_at(res, offset)
    if not flags:
        return None
    out: list[str] = []
    for fv in flags[:FLAGS_MAX]:
        n = sum(len(v) for v in fv.values.values())
        what = ", ".join([*([fv.kind] if fv.kind else []), *fv.engines, f"line {fv.line}"])
        head = f"{_code(fv.name)} ({what}): "
        if len(fv.values) == 1:
            (value, labels) = next(iter(fv.values.items()))
            out.append(f"{head}{_code(value)} at every sweep point that runs it ({n})")
            out.extend(f"- {_code(g)}" for g in compact_points(labels))
        else:
            out.append(f"{head}{len(fv.values)} values over {n} sweep points")
            values = list(fv.values.items())
            if all(v.lstrip("-").isdigit() for v, _ in values):  # (numbers in their order, else as met)
                values.sort(key=lambda kv: int(kv[0]))
            for value, labels in values[:VALUES_MAX]:
                groups = compact_points(labels)
                out.append(f"- {_code(value)} at " + ", ".join(_code(g) for g in groups))
            if len(fv.values) > VALUES_MAX:
                out.append(f"- … and {len(fv.values) - VALUES_MAX} more values")
        out.append("")
    if len(flags) > FLAGS_MAX:
        out.append(f"… and {len(flags) - FLAGS_MAX} more flags")
    return "\n".join(out).rstrip("\n") + "\n"
