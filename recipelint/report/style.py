"""Colour for the terminal formats (full, concise, the ``render`` command's text): when to use it,
and lines of styled pieces written plain or through rich."""

from __future__ import annotations

import os
import re
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


#: characters a terminal (or a log viewer) acts on instead of showing: C0 controls but tab and
#: newline, DEL, C1 controls (``\x9b`` is a CSI on some terminals), the line and paragraph
#: separators U+2028/U+2029 (a line break to many viewers), and the bidirectional
#: overrides and isolates ("Trojan Source": text shown in an order other than its own)
_UNPRINTABLE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def _escape(m: re.Match) -> str:
    c = ord(m.group())
    return f"\\x{c:02x}" if c < 0x100 else f"\\u{c:04x}"


def printable(text: str) -> str:
    """``text`` with the characters a terminal would act on written as escapes (``\\x1b``,
    ``\\x0d``, ``\\u202e``): a recipe's text in a message, a code frame or a value cannot
    move the cursor, hide the rest of the output or retitle the terminal.  Tab and newline
    stay (they are layout)."""
    return _UNPRINTABLE.sub(_escape, text) if _UNPRINTABLE.search(text) else text


def paint(lines: list[Segments], color: bool) -> str:
    """The lines as text: in colour through rich, or plain (tabs expanded) without importing it;
    control characters escaped (``printable``) either way."""
    if not color:
        return "".join(printable("".join(t for t, _ in segs)).expandtabs(8) + "\n" for segs in lines)
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
            console.print(Text.assemble(*((printable(t), s or "") for t, s in segs)))
    return cap.get()
