"""Word expansion: a word's parts expanded in bash's order (brace, tilde, parameter, command
and arithmetic substitution, field splitting), each resulting chunk keeping its source location."""

from __future__ import annotations

from recipelint.bash.source import Loc, VirtualSource
from recipelint.bash.tree import Node
from recipelint.evaluate.braces import _comma_braces, brace_expand
from recipelint.evaluate.fields import _fields, _is_at_expansion
from recipelint.evaluate.quoting import (
    _IN_DQ,
    _ansi_c,
    _unescape_dq,
    _unescape_unquoted,
    _unmark,
)
from recipelint.evaluate.state import State, unset_read
from recipelint.evaluate.support import EXPANSION_TYPES, _relocate
from recipelint.evaluate.tilde import (
    _LOGIN_NAME,
    _TILDE_ASSIGN_LIKE,
    _TILDE_BRACED,
    _TILDE_NAMES,
    _TILDE_WORD,
    _tilde_spans,
)
from recipelint.evaluate.values import EMPTY, Chunk, Word, text_of, unknown
from recipelint.evaluate.variables import Kind


class Words:
    """Expanding words (see the module docstring)."""

    def expand_word(self, node: Node, st: State, assign_like: bool = True) -> list[Word]:
        """Expand one word node into argv fields (with word splitting).  The words of a big
        expansion (`"${A[@]}"` of a big array, `{1..5000}`, `$(seq 5000)`) count as steps, each
        time it is expanded, so that the step limit bounds the work they make (as do the
        elements of an array assignment and the words of a long command)."""
        res = self._expand_word(node, st, assign_like)
        if len(res) > 64:
            self.steps += len(res)
        return res

    def _expand_word(self, node: Node, st: State, assign_like: bool = True) -> list[Word]:
        hit = self._static_words.get(id(node))
        if hit is not None:
            return list(hit)
        tilde = self._tilde_plan(node, _TILDE_ASSIGN_LIKE if assign_like else _TILDE_WORD)
        if node.type == "word" and tilde is None and not isinstance(node.src, VirtualSource):
            # a plain literal (`--port`, `serve`): one field, as the general path would make it
            text = _unescape_unquoted(node.text)
            if text:
                hit = self._static_words[id(node)] = (Word((Chunk(text, node.loc),), node.loc),)
                return list(hit)
        if node.type == "concatenation" or node.type == "brace_expression":
            braced = self._braces(node)
            if braced is not None:
                return list(braced) if tilde is None else [self._tilde_braced(w, node, st) for w in braced]
        segs: list = []
        if tilde is None:
            self._segments(node, st, segs, quoted=False)
        else:
            self._tilde_segments(node, tilde, st, segs, quoted=False, scalar=False)
        res = _fields(segs, node.loc, st)
        if len(res) > self.limits.max_words:
            st.notes.append((node.loc, f"expansion makes more than {self.limits.max_words} words: taken as unknown"))
            return [Word(unknown("an expansion too long to follow", node.loc, multi=True), node.loc)]
        cut = False
        for i, w in enumerate(res):
            if self._too_long(w.chunks):
                res[i] = Word(self._cut(node.loc, st), w.loc)
                cut = True
        # the same words every time (words are never changed once made); a cut one is not kept,
        # so that every evaluation notes the cut (nor one whose `~` is `$HOME`)
        if not cut and tilde is None and self._static(node):
            self._static_words[id(node)] = tuple(res)
        return res

    def _too_long(self, s) -> bool:
        """Whether a value is beyond ``Limits.max_output`` characters or ``max_words`` chunks.
        Every value made passes here: its size counts toward the step limit (a step per KiB), so
        that a script making ever larger values stops at ``max_steps`` as a long one does."""
        n = len(s)
        if n == 1:
            t = s[0].text
            if t is None:
                return False
            self.steps += len(t) >> 10
            return len(t) > self.limits.max_output
        if n > self.limits.max_words:
            return True
        total = 0
        for c in s:
            t = c.text
            if t is not None:
                total += len(t)
        # a step per KiB and per 64 chunks: a value doubled through `X="$X$X"` is 65,536 one-byte
        # chunks long before it is 64 KiB, and each pass over it costs its chunks (issue 49, N3)
        self.steps += (total >> 10) + (n >> 6)
        return total > self.limits.max_output

    def _bounded(self, s, loc, st):
        """``s``, or an unknown value (with a note) when it is too long to follow."""
        return self._cut(loc, st) if self._too_long(s) else s

    def _cut(self, loc, st):
        """The unknown value that stands for one too long to follow (with a note)."""
        st.notes.append((loc, f"value longer than {self.limits.max_output} characters: taken as unknown"))
        return unknown("a value too long to follow", loc, nonempty=True)

    def expand_scalar(self, node: Node, st: State, tilde_mode: int = 0):
        """Expand without word splitting (assignment right-hand sides, ``case`` words, ...).
        ``tilde_mode``: whether a tilde-prefix is expanded — at the start (``_TILDE_WORD``: a
        ``case`` word, a redirection's target, a ``[[ ]]`` operand) or also after each ``:``
        (``_TILDE_ASSIGN``: an assignment's value)."""
        if node is None:
            return EMPTY
        hit = self._static_scalars.get(id(node))
        if hit is not None:
            return hit
        tilde = self._tilde_plan(node, tilde_mode) if tilde_mode else None
        segs: list = []
        if tilde is None:
            self._segments(node, st, segs, quoted=True, scalar=True)
        else:
            self._tilde_segments(node, tilde, st, segs, quoted=True, scalar=True)
        out = []
        for s in segs:
            if s[0] == "sep":
                out.append(Chunk(" ", None))
            elif s[0] == "t":
                out.extend(s[1])
        res = tuple(c for c in out if c.text is None or c.text)
        if self._too_long(res):  # (not kept below: every evaluation notes the cut)
            return self._cut(node.loc, st)
        if tilde is None and self._static(node):
            self._static_scalars[id(node)] = res
        return res

    def _tilde_plan(self, node, mode: int):
        """Where a word (an assignment's value) has tilde-prefixes bash expands (see
        ``_tilde_spans``); None for none — the common case, answered without a cache by a
        look at the first part's text."""
        if "~" not in node.text:
            return None
        key = (id(node), mode)
        hit = self._tilde_cache.get(key)
        if hit is None or hit[1] is not node:
            hit = self._tilde_cache[key] = (_tilde_spans(node, mode), node)
        return hit[0]

    def _tilde_value(self, login: str, node, st):
        """What `~login` expands to: `$HOME` (`~`), `$PWD` (`~+`), `$OLDPWD` (`~-`) — unknown
        when unset (bash then asks the password database) —, a user's home directory otherwise
        (unknown)."""
        name = _TILDE_NAMES.get(login) if login is not None else None
        val = self.param_value(name, None, node, st) if name is not None else None
        if val is None or isinstance(val, list):
            return unknown(f"~{login or ''}", node.loc, nonempty=True)
        return _relocate(val, node)

    def _tilde_segments(self, node, plan, st, segs, quoted, scalar) -> None:
        """The segments of a word with tilde-prefixes: each `~login` its value (neither split
        nor matched as a pattern), the rest as ``_segments`` makes it."""
        if "unknown" in plan:
            segs.append(("t", unknown(node.text, node.loc), True, False))
            return
        parts = node.children if node.type == "concatenation" else (node,)
        through = plan.get("through")
        for k, c in enumerate(parts):
            spans = plan.get(k)
            if through is not None and k:  # (see _tilde_through)
                if c.end <= through[1]:
                    continue
                if c.start < through[1]:
                    if c.type != "word":  # the word's first `/` inside an expansion
                        segs.append(("t", unknown(node.text, node.loc), True, False))
                        continue
                    text = c.text
                    self._tilde_literal(
                        c, text, len(c.src.data[c.start : through[1]].decode("utf-8", "replace")), len(text), segs
                    )
                    continue
            if spans is None:
                self._segments(c, st, segs, quoted, scalar)
            else:
                self._tilde_part(c, spans, st, segs)
                if through is not None and k == 0 and through[0]:
                    segs.append(("t", (Chunk(through[0], c.loc),), True, False))

    def _tilde_part(self, c, spans, st, segs) -> None:
        """The segments of a literal part ``c`` with the tilde-prefixes ``spans``."""
        text = c.text
        pos = 0
        for i, j, login in spans:
            if i > pos:
                self._tilde_literal(c, text, pos, i, segs)
            segs.append(("t", self._tilde_value(login, c, st), True, False))
            segs.append(("exists",))
            pos = j
        if pos < len(text):
            self._tilde_literal(c, text, pos, len(text), segs)

    def _tilde_literal(self, c, text, i, j, segs) -> None:
        piece = _unescape_unquoted(text[i:j])
        if piece:
            a = c.start + len(text[:i].encode())
            segs.append(("t", self._lit_range(piece, c.src, a, a + len(text[i:j].encode())), True, False))

    def _tilde_braced(self, w: Word, node, st) -> Word:
        """A word of a brace expansion (`~/{a,b}`): bash expands its tilde-prefix after the
        braces (not in `x=~/{a,b}`'s words)."""
        text = text_of(w.chunks)
        m = _TILDE_BRACED.match(text) if text is not None else None
        if m is None or (m.group(1) not in _TILDE_NAMES and not _LOGIN_NAME.fullmatch(m.group(1))):
            return w
        tail = (Chunk(text[m.end() :], node.loc),) if m.end() < len(text) else ()
        return Word(self._tilde_value(m.group(1), node, st) + tail, w.loc)

    def _braces(self, node):
        """The words of a word with a brace expansion (`{a,b}.yaml`, `gpu{0..3}`): made from its
        text when it is all literal, one unknown word list otherwise; None without braces."""
        hit = self._brace_cache.get(id(node))
        if hit is not None and hit[1] is node:
            return hit[0]
        kids = node.children if node.type == "concatenation" else (node,)
        words = None
        if any(c.type == "brace_expression" for c in kids) or _comma_braces(kids):
            texts = None
            if all(c.type in ("word", "number", "brace_expression") for c in kids):
                texts = brace_expand(node.text, self.limits.max_words)
            if texts is None:
                words = (Word(unknown(node.text, node.loc, multi=True), node.loc),)
            else:
                words = tuple(Word((Chunk(t, node.loc),), node.loc) for t in map(_unescape_unquoted, texts) if t)
        self._brace_cache[id(node)] = (words, node)
        return words

    def _static(self, node) -> bool:
        """Whether a word's expansion cannot depend on the state: no parameter, command,
        arithmetic or process expansion in it (and not text built by ``eval``, whose nodes do
        not outlive the evaluation)."""
        if isinstance(node.src, VirtualSource):
            return False
        hit = self._static_nodes.get(id(node))
        if hit is None:
            hit = True
            stack = [node]
            while stack:
                n = stack.pop()
                if n.type in EXPANSION_TYPES:
                    hit = False
                    break
                stack.extend(n.children)
            self._static_nodes[id(node)] = hit
        return hit

    def _segments(self, node: Node, st: State, segs: list, quoted: bool, scalar: bool = False) -> None:
        t = node.type
        if t == "number" and node.children:  # `10#${x}`: the base, then the expansion
            pos = node.start
            for c in node.children:
                if c.start > pos:
                    self._gap_literal(node, pos, c.start, segs, dq=False)
                self._segments(c, st, segs, quoted, scalar)
                pos = max(pos, c.end)
            return
        if t == "word" or t == "number" or t == "variable_name" or t == "extglob_pattern" or t == "regex":
            text = node.text
            if t == "word" or t == "extglob_pattern":
                text = _unescape_unquoted(text)
            segs.append(("t", self._lit(text, node), True, False))
            if not text:
                segs.append(("exists",))
            return
        if t == "raw_string":
            segs.append(("t", self._lit(node.text[1:-1], node, 1, -1), True, False))
            segs.append(("exists",))
            return
        if t == "ansi_c_string":
            segs.append(("t", (Chunk(_ansi_c(node.text[2:-1]), node.loc),), True, False))
            segs.append(("exists",))
            return
        if t in ("string", "translated_string"):
            has_at = False
            start = node.start + (2 if t == "translated_string" else 1)
            end = node.end - 1
            pos = start
            for c in node.children:
                if c.type == '"' or c.type == '$"':
                    continue
                if c.start > pos:
                    self._gap_literal(node, pos, c.start, segs, dq=True)
                if c.type == "string_content":
                    txt = _unescape_dq(c.text)
                    segs.append(("t", self._lit(txt, c), True, False))
                elif c.type in EXPANSION_TYPES:
                    if c.type == "expansion" and _is_at_expansion(c):
                        has_at = True
                    if c.type == "simple_expansion" and c.text == "$@":
                        has_at = True
                    self._expansion(c, st, segs, quoted=_IN_DQ, scalar=scalar)
                else:
                    self._segments(c, st, segs, quoted=_IN_DQ, scalar=scalar)
                pos = max(pos, c.end)
            if end > pos:
                self._gap_literal(node, pos, end, segs, dq=True)
            if not has_at:
                segs.append(("exists",))
            return
        if t == "concatenation" or t == "command_name":
            for c in node.children:
                self._segments(c, st, segs, quoted, scalar)
            return
        if t == "$" and node.text == "$$":  # (`/tmp/f.$$`, `${t}$$`: a `$` token to tree-sitter-bash)
            self._param("$", None, node, st, segs, quoted, scalar)
            return
        if t in EXPANSION_TYPES:
            self._expansion(node, st, segs, quoted, scalar)
            return
        if t == "string_content":
            segs.append(("t", self._lit(_unescape_dq(node.text), node), True, False))
            return
        if t == "brace_expression":
            segs.append(("t", self._lit(node.text, node), True, False))
            return
        if t == "array":
            segs.append(("t", self._lit(node.text, node), True, False))
            return
        # anything else: its text, literally
        segs.append(("t", self._lit(node.text, node), True, False))

    def _lit(self, text: str, node: Node, a: int = 0, b: int = 0):
        if not text:
            return EMPTY
        src = node.src
        if isinstance(src, VirtualSource) and "__RLUNK" in text:
            return _unmark(text, node)
        if a or b:
            return (Chunk(text, Loc(src, node.start + a, node.end + b)),)
        return (Chunk(text, node.loc),)

    def _gap_literal(self, node, a, b, segs, dq: bool):
        raw = node.src.data[a:b].decode("utf-8", "replace")
        txt = _unescape_dq(raw) if dq else raw
        if txt:
            segs.append(("t", self._lit_range(txt, node.src, a, b), True, False))

    def _lit_range(self, text, src, a, b):
        if isinstance(src, VirtualSource) and "__RLUNK" in text:
            return _unmark(text, Node("word", a, b, True, src))
        return (Chunk(text, Loc(src, a, b)),)

    def _expansion(self, node: Node, st: State, segs: list, quoted: bool, scalar: bool) -> None:
        t = node.type
        if t == "simple_expansion":
            name_node = [c for c in node.children if c.named]
            name = name_node[0].text if name_node else node.text[1:]
            self._param(name, None, node, st, segs, quoted, scalar)
            return
        if t == "expansion":
            self._param_complex(node, st, segs, quoted, scalar)
            return
        if t == "command_substitution":
            val = self.command_substitution(node, st, dq=quoted == _IN_DQ)
            segs.append(("t", val, quoted, not quoted and not scalar, None, node.loc))
            return
        if t == "arithmetic_expansion":
            # tree-sitter-bash sometimes starts the node at whitespace before `$((`
            lead = len(node.text) - len(node.text.lstrip())
            if lead:
                segs.append(("t", (Chunk(node.text[:lead], node.loc),), True, False))
            v = self.arith_expansion(node, st)
            val = (Chunk(str(v), node.loc),) if v is not None else unknown(node.text, node.loc)
            segs.append(("t", val, quoted, not quoted and not scalar, None, node.loc))
            return
        if t == "process_substitution":
            segs.append(("t", unknown(node.text[:30], node.loc, nonempty=True), True, False))
            return

    def _param(self, name, index, node, st, segs, quoted, scalar):
        """``$name`` / ``${name}`` / ``${name[index]}``: append segments."""
        if name in ("@", "*"):
            self._positional_all(name, node, st, segs, quoted, scalar)
            return
        val = self.param_value(name, index, node, st)
        if val is None and st.nounset and index not in ("@", "*"):  # (`set -u` lets `${A[@]}` of an unset A be)
            val = unset_read(name, node.loc, st)
        if val is None:
            return
        if isinstance(val, list):  # ${A[@]}
            self._splice(val, segs, quoted, scalar, node, star=(index == "*"), st=st)
            return
        segs.append(("t", _relocate(val, node), quoted, not quoted and not scalar, None, node.loc))

    def _splice(self, words, segs, quoted, scalar, node, star=False, st=None):
        if star and (quoted or scalar):
            joined = []
            sep = " "
            if st is not None:
                ifs = st.lookup("IFS")
                if ifs is not None and ifs.kind == Kind.SCALAR:
                    t = text_of(ifs.value)
                    sep = t[:1] if t is not None else " "
            for i, w in enumerate(words):
                if i and sep:
                    joined.append(Chunk(sep, None))
                joined.extend(w.chunks)
            segs.append(("t", tuple(joined), True, False))
            segs.append(("exists",))
            return
        for i, w in enumerate(words):
            if i:
                segs.append(("sep",))
            segs.append(("t", w.chunks, quoted, not quoted and not scalar, w.loc, node.loc))
            if quoted:
                segs.append(("exists",))

    def _positional_all(self, name, node, st, segs, quoted, scalar):
        words = list(st.pos)
        if name == "*":
            self._splice(words, segs, quoted, scalar, node, star=True, st=st)
        else:
            self._splice(words, segs, quoted, scalar, node, st=st)
