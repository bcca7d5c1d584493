"""Output of ``recipelint render``: launches per sweep point, as text (rich) or JSON."""

from __future__ import annotations

from recipelint.lint.analysis import FileResult
from recipelint.report.style import printable


def _groups(res: FileResult):
    """Identical launches (same command line and lines) across points are shown once."""
    groups: dict[tuple, dict] = {}
    for pr in res.points:
        for lc in pr.launches:
            key = (lc.command_line(), tuple(f.to_dict()["line"] for f in lc.flags))
            g = groups.setdefault(key, {"launch": lc, "points": []})
            if pr.point.label not in g["points"]:
                g["points"].append(pr.point.label)
    return list(groups.values())


def _exits(res: FileResult):
    out = []
    for pr in res.points:
        for p in pr.paths:
            if p.exit is not None and p.exit.code not in (0,) and not p.cond:
                sp = p.exit.loc.real().span
                out.append({"point": pr.point.label, "line": sp.line, "code": p.exit.code, "reason": p.exit.reason})
    return out


def render_json(res: FileResult) -> dict:
    return {
        "file": res.display,
        "parse_problems": [{"line": p.loc.span.line, "col": p.loc.span.col, "message": p.message} for p in res.problems],
        "points": [pr.point.to_dict() for pr in res.points],
        "launches": [dict(g["launch"].to_dict(), points=g["points"]) for g in _groups(res)],
        "exits": _exits(res),
    }


def render_text(res: FileResult, color: bool = False) -> None:
    """Launches as text on stdout; ``color``: with styles (``--color``, decided by the caller)."""
    import shutil

    from rich.console import Console
    from rich.table import Table
    from rich.text import Text as RichText

    def Text(text="", *args, **kw):  # (a recipe's text as escaped text: never a terminal control)
        return RichText(printable(text), *args, **kw)

    con = Console(
        highlight=False,
        soft_wrap=True,
        width=max(shutil.get_terminal_size((160, 24)).columns, 120),
        force_terminal=color,
        no_color=not color,
        color_system="standard" if color else None,
    )
    for p in res.problems:
        sp = p.loc.span
        con.print(Text(f"{res.display}:{sp.line}:{sp.col}: parse: {p.message}", style="yellow"))
    groups = _groups(res)
    for g in groups:
        lc = g["launch"]
        sp = lc.loc.real().span
        con.print(RichText.assemble((printable(f"{res.display}:{sp.line}"), "bold"), printable(f"  {lc.engine} ({lc.entry})")))
        con.print(Text("  points: " + ", ".join(g["points"]), style="dim"))
        if lc.cond:
            con.print(Text("  assuming: " + "; ".join(d.describe() for d in lc.cond), style="dim"))
        if not lc.complete:
            con.print(Text("  note: an argument list could not be computed; some flags may be missing", style="yellow"))
        con.print(Text("  " + lc.command_line()))
        table = Table(show_edge=False, pad_edge=False, box=None, padding=(0, 2))
        table.add_column("flag", no_wrap=True)
        table.add_column("value", no_wrap=True, max_width=90)
        table.add_column("line", justify="right", no_wrap=True)
        for w in lc.positionals:
            ln = w.value_loc.real().span.line if w.value_loc is not None else ""
            table.add_row("(positional)", Text(w.shown), str(ln))  # (Text: a value is never markup)
        for f in lc.flags:
            d = f.to_dict()
            line = str(d["line"])
            if "value_path" in d:
                line += f" (value: {_rel(d['value_path'], res)}:{d['value_line']})"
            elif d["value_line"] not in (None, d["line"]):
                line += f" (value: {d['value_line']})"
            table.add_row(Text(f.name), Text("" if f.value is None else _short(f.value.shown)), Text(line))
        con.print(table)
        con.print()
    for ex in _exits(res):
        con.print(
            Text(
                f"{res.display}:{ex['line']}: point {ex['point']} exits with status {ex['code']}"
                + (f" ({ex['reason']})" if ex["reason"] else ""),
                style="dim",
            )
        )


def _rel(path: str, res: FileResult) -> str:
    import os

    try:
        return os.path.relpath(path)
    except ValueError:
        return path


def _short(s: str, n: int = 160) -> str:
    s = " ".join(s.split())
    return s if len(s) <= n else s[: n - 1] + "…"
