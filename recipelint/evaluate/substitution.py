"""Command substitution and here-documents: ``$(...)`` and backquotes run in a child state whose
output becomes the value; a here-document's text is expanded as bash does."""

from __future__ import annotations

import re

from recipelint.bash.convert import escaped
from recipelint.bash.parse import parse
from recipelint.bash.source import Loc
from recipelint.bash.tree import Node
from recipelint.evaluate.builtins import _virtual_source, _without_final_newlines
from recipelint.evaluate.joins import _merge_outputs
from recipelint.evaluate.quoting import (
    _BACKQUOTE_ESCAPE,
    _BACKQUOTE_ESCAPE_DQ,
    _HEREDOC_ESCAPE,
    _IN_HEREDOC,
    _TEXT_EXPANSION,
    _strip_tabs,
    _text_name,
)
from recipelint.evaluate.state import State
from recipelint.evaluate.support import EXPANSION_TYPES, _join_segs, _short
from recipelint.evaluate.values import EMPTY, Chunk, file_key, text_of, unknown

_BACKTICK = re.compile(r"(?<!\\)(?:\\\\)*`")  # an unescaped backquote


class Substitutions:
    """Command substitution and here-documents (see the module docstring)."""

    def command_substitution(self, node: Node, st: State, dq: bool = False):
        body = [c for c in node.children if c.named]
        if node.src.data[node.start : node.start + 1] == b"`":
            parsed = self._backquoted(node, dq)
            if parsed is not None:
                body = [c for c in parsed.root.children if c.named]
        if len(body) == 1 and body[0].type in ("file_redirect", "redirected_statement") and body[0].field("body") is None:
            # `$(< file)`: the file's content, when this run wrote it
            r = (
                body[0]
                if body[0].type == "file_redirect"
                else next((c for c in body[0].children if c.type == "file_redirect"), None)
            )
            dest = r.field("destination") if r is not None else None
            path = file_key(text_of(self.expand_scalar(dest, st))) if dest is not None else None
            content = st.files.get(path) if path is not None else None
            return _without_final_newlines(content) if content is not None else unknown(node.text, node.loc)
        if not body:
            return EMPTY
        data = self._output(body, node, st)
        if data is None:
            return unknown(_short(node.text, 48), node.loc)
        return _without_final_newlines(data)

    def _backquoted(self, node: Node, dq: bool):
        """A backquoted command whose text holds a backslash bash removes before it parses the
        command (``\\$``, ``\\```, ``\\\\``; ``\\"`` inside double quotes: `` `echo \\$X` `` expands
        ``$X``): parsed again without those backslashes (kept per node).  None: nothing to
        remove, or the command does not parse so (its tree is used as it is)."""
        key = (id(node), dq)
        hit = self._backquote_cache.get(key)
        if hit is not None and hit[0] is node:
            return hit[1]
        data = node.src.data
        a, b = node.start + 1, node.end - 1
        parsed = None
        if b > a and data[b : b + 1] == b"`" and b"\\" in data[a:b]:
            chunks, pos = [], a
            for m in (_BACKQUOTE_ESCAPE_DQ if dq else _BACKQUOTE_ESCAPE).finditer(data, a, b):
                if m.start() > pos:
                    chunks.append(Chunk(data[pos : m.start()].decode("utf-8", "replace"), Loc(node.src, pos, m.start())))
                pos = m.start(1)
            if pos > a:
                chunks.append(Chunk(data[pos:b].decode("utf-8", "replace"), Loc(node.src, pos, b)))
                src = _virtual_source([tuple(chunks)], node.loc)
                if not isinstance(src, Chunk):
                    p = parse(src)
                    parsed = p if not p.problems and not p.too_large else None
        self._backquote_cache[key] = (node, parsed)
        return parsed

    def _output(self, body, node, st):
        """What the statements ``body`` write to stdout, run in a subshell (``$(...)``,
        ``<(...)``); None when not known.  Their events and notes are kept in ``st``."""

        def run(child):
            child.errexit = False  # bash runs `$(...)` without `set -e` (`inherit_errexit` is off)
            return self.run_seq(body, child)

        states, raw = self._in_subshell(run, st, capture=True)
        # keep side effects in st from the first resulting state (events/notes)
        first = states[0]
        st.events = first.events
        st.notes = first.notes
        st.truncated = first.truncated
        st.status = first.status
        return _merge_outputs([r.out for r in raw], node.loc)

    def heredoc_value(self, redirect: Node, st: State):
        start = None
        body = None
        dash = False
        for c in redirect.children:
            if c.type == "heredoc_start":
                start = c
            elif c.type == "heredoc_body":
                body = c
            elif c.type == "<<-":
                dash = True
        if body is None:
            return EMPTY
        quoted = start is not None and any(q in start.text for q in ("'", '"', "\\"))
        segs: list = []
        if quoted:
            text = body.text
            if dash:
                text = _strip_tabs(text, at_start=True)
            segs.append(("t", (Chunk(text, body.loc),), True, False))
        else:
            pos = body.start
            first = True
            for c in body.children:
                if c.start > pos:
                    self._heredoc_literal(body, pos, c.start, segs, dash, first, st)
                    first = False
                if c.type in EXPANSION_TYPES:  # (`$((...))` too: parse.py makes it arithmetic)
                    self._expansion(c, st, segs, quoted=_IN_HEREDOC, scalar=True)
                elif c.type == "heredoc_content" or c.type == "string_content":
                    self._heredoc_literal(body, c.start, c.end, segs, dash, first, st)
                pos = max(pos, c.end)
                first = False
            if body.end > pos:
                self._heredoc_literal(body, pos, body.end, segs, dash, first, st)
        return _join_segs(segs)

    def _heredoc_literal(self, body, a, b, segs, dash, at_start, st=None):
        raw = body.src.data[a:b].decode("utf-8", "replace")
        if st is not None and "$" in raw:
            # tree-sitter-bash leaves `$1`, `$@`, `$#`, `$?` ... in a here-document as text (and
            # every expansion after a backslash-newline)
            pos = 0
            for m in _TEXT_EXPANSION.finditer(raw):
                if m.group(1) is None:
                    continue  # (an escaped character)
                start = a + len(raw[: m.start(1)].encode("utf-8"))
                self._heredoc_literal(body, a + len(raw[:pos].encode("utf-8")), start, segs, dash, at_start and pos == 0)
                node = Node("simple_expansion", start, start + len(m.group(1).encode("utf-8")), True, body.src)
                self._param(_text_name(m), None, node, st, segs, quoted=True, scalar=True)
                pos = m.end(1)
            if pos:
                self._heredoc_literal(body, a + len(raw[:pos].encode("utf-8")), b, segs, dash, False)
                return
        if _BACKTICK.search(raw):
            # tree-sitter-bash leaves `cmd` in a here-document as text: its output is unknown
            segs.append(("t", unknown(raw.strip()[:40], body.loc), True, False))
            return
        txt = _HEREDOC_ESCAPE.sub(lambda m: "" if m.group(1) == "\n" else m.group(1), raw)
        if dash:
            # (a piece the grammar cut after a newline starts a line: not after a backslash-newline)
            txt = _strip_tabs(txt, at_start or (a > 0 and body.src.data[a - 1] == 10 and not escaped(body.src.data, a - 1)))
        if txt:
            segs.append(("t", self._lit_range(txt, body.src, a, b), True, False))
