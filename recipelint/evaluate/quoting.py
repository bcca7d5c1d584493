"""Quote removal and escapes: backslashes in double quotes, here-documents and backquotes,
``$'...'`` (ANSI-C) strings, `<<-` tab stripping."""

from __future__ import annotations

import re

from recipelint.evaluate.values import Chunk

#: quoting and expansions: a pattern token holding any is a word to expand
_QUOTING = re.compile(r"[$'\"\\`]")


#: a special parameter in here-document text (`$1`, `$@`, `$#`, `$?`), or an escaped character
#: expansions tree-sitter-bash leaves as text: in a here-document `$1`, `$@`, `$#`, `$?` ..., and
#: any `$name` or `${name}` after a backslash-newline; `$#`, `$$`, `$?` ... in the word of
#: `${X:-word}` (group 1: the expansion, none for an escaped character; 2 or 3: the name, see
#: ``_text_name``)
_TEXT_EXPANSION = re.compile(
    r"\\.|(\$(?:([A-Za-z_](?:[A-Za-z0-9_]|\\\n(?=[A-Za-z0-9_]))*)|\{([A-Za-z_][A-Za-z0-9_]*)\}"
    r"|[0-9@#?$*!_-]))",
    re.S,
)


def _text_name(m) -> str:
    """The name of a ``_TEXT_EXPANSION`` match (a backslash-newline inside a name is none of it:
    bash removes it before it reads the name)."""
    return (m.group(2) or "").replace("\\\n", "") or m.group(3) or m.group(1)[1]


#: ``quoted`` of what is inside double quotes, and of a here-document's body: true, and telling
#: ``${X:-'d'}`` to keep its single quotes (both) and a backquoted command that ``\"`` is ``"`` (double
#: quotes only)
_IN_DQ = 2


_IN_HEREDOC = 3


#: what a backslash escapes in a backquoted command (bash removes that backslash before it parses
#: the command): always, and inside double quotes
_BACKQUOTE_ESCAPE = re.compile(rb"\\([$`\\])")


_BACKQUOTE_ESCAPE_DQ = re.compile(rb'\\([$`\\"])')


#: what a backslash escapes in a here-document's text (left to right: `\\` then a newline is a
#: backslash and a newline; `\` then a newline joins the lines)
_HEREDOC_ESCAPE = re.compile(r"\\([$`\\\n])")


_ESCAPED_END = re.compile(r"(?<!\\)(?:\\\\)*\\$")  # text ending in an escaping backslash


_DQ_ESC = re.compile(r"\\([$`\"\\\n])")


def _unescape_dq(text: str) -> str:
    if "\\" not in text:
        return text
    return _DQ_ESC.sub(lambda m: "" if m.group(1) == "\n" else m.group(1), text)


def _unescape_unquoted(text: str) -> str:
    if "\\" not in text and "'" not in text and '"' not in text:
        return text
    out = []
    i = 0
    n = len(text)
    while i < n:
        ch = text[i]
        if ch == "\\" and i + 1 < n:
            if text[i + 1] != "\n":
                out.append(text[i + 1])
            i += 2
            continue
        out.append(ch)
        i += 1
    return "".join(out)


_ANSI = {
    "n": "\n",
    "t": "\t",
    "r": "\r",
    "a": "\a",
    "b": "\b",
    "e": "\x1b",
    "E": "\x1b",
    "f": "\f",
    "v": "\v",
    "\\": "\\",
    "'": "'",
    '"': '"',
    "?": "?",
}


def _ansi_c(text: str | None) -> str | None:
    if text is None or "\\" not in text:
        return text
    out = []
    i = 0
    n = len(text)
    while i < n:
        ch = text[i]
        if ch == "\\" and i + 1 < n:
            nx = text[i + 1]
            if nx in _ANSI:
                out.append(_ANSI[nx])
                i += 2
                continue
            if nx == "x":
                m = re.match(r"[0-9a-fA-F]{1,2}", text[i + 2 :])
                if m:
                    out.append(chr(int(m.group(0), 16)))
                    i += 2 + len(m.group(0))
                    continue
            if nx in "01234567":
                m = re.match(r"[0-7]{1,3}", text[i + 1 :])
                out.append(chr(int(m.group(0), 8)))
                i += 1 + len(m.group(0))
                continue
            out.append(ch)
            i += 1
            continue
        out.append(ch)
        i += 1
    return "".join(out)


def _strip_tabs(text: str, at_start: bool) -> str:
    lines = text.split("\n")
    return "\n".join((ln.lstrip("\t") if (k > 0 or at_start) else ln) for k, ln in enumerate(lines))


def _unmark(text: str, node):
    """Literal text from an eval string with unknown placeholders put back as unknown chunks."""
    out = []
    pos = 0
    for m in re.finditer(r"__RLUNK\d+__", text):
        if m.start() > pos:
            out.append(Chunk(text[pos : m.start()], node.loc))
        c = (getattr(node.src, "unknowns", None) or {}).get(m.group(0))
        out.append(c if c is not None else Chunk(None, node.loc, "eval"))
        pos = m.end()
    if pos < len(text):
        out.append(Chunk(text[pos:], node.loc))
    return tuple(out)
