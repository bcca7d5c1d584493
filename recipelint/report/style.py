"""Colour for the terminal formats (full, concise, the ``render`` command's text): when to use it,
and lines of styled pieces written plain or through rich."""

from __future__ import annotations

import os
import sys
from typing import IO

#: the values of ``--color``
COLOR_MODES = ("auto", "always", "never")

#: the rich style of each severity (the `error[RL201]` tag, the caret under the span)
SEVERITY_STYLE = {"error": "bold red", "warning": "bold yellow", "info": "bold blue"}

#: a line of the output: (text, rich style or None) pieces
Segments = list[tuple[str, str | None]]


def use_color(mode: str, stream: IO | None = None, to_file: bool = False, environ=None) -> bool:
    """Whether to colour: ``always`` and ``never`` say so; ``auto`` colours a terminal (``stream``,
    stdout by default) and never a file (``--output-file``), and honours NO_COLOR (set and not
    empty: no colour; https://no-color.org) before FORCE_COLOR (set and not empty: colour even
    through a pipe; https://force-color.org)."""
    if mode == "always":
        return True
    if mode == "never" or to_file:
        return False
    env = os.environ if environ is None else environ
    if env.get("NO_COLOR", ""):
        return False
    if env.get("FORCE_COLOR", ""):
        return True
    stream = sys.stdout if stream is None else stream
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError, OSError):  # a closed or unusual stream
        return False


#: the control codes rich drops from text (bell, backspace, vertical tab, form feed, carriage return)
_CONTROL_CODES = {7: None, 8: None, 11: None, 12: None, 13: None}


def paint(lines: list[Segments], color: bool) -> str:
    """The lines as text: in colour through rich, or plain (what rich prints without colour:
    control codes dropped, tabs expanded) without importing it."""
    if not color:
        return "".join("".join(t for t, _ in segs).translate(_CONTROL_CODES).expandtabs(8) + "\n" for segs in lines)
    from rich.console import Console
    from rich.text import Text

    # colour as asked whatever the environment says (NO_COLOR, TERM=dumb were weighed by use_color)
    console = Console(
        file=sys.stdout,
        record=True,
        highlight=False,
        soft_wrap=True,
        force_terminal=True,
        no_color=False,
        color_system="standard",
        width=200,
    )
    with console.capture() as cap:
        for segs in lines:
            console.print(Text.assemble(*((t, s or "") for t, s in segs)))
    return cap.get()
