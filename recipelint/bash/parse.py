"""Parse bash with tree-sitter-bash into a light, immutable node tree.

The tree-sitter tree is converted once into :class:`Node` objects (plain Python, cheap to
walk many times: a recipe is evaluated once per sweep point).  Parse problems become
:class:`ParseProblem` records: ERROR and MISSING nodes, and the token-gap check for
tokens the grammar drops silently (the ``-`` of ``python3 - <<'PY'``), which are also
recovered as literal words so the evaluator sees them.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass

import tree_sitter
import tree_sitter_bash

from recipelint.bash.source import Loc

_PARSER: tree_sitter.Parser | None = None

#: Deeper trees are not evaluated (they are reported instead): bash recipes nest a few levels.
MAX_DEPTH = 256
#: A file with more lines, or more syntax nodes, is not analysed (a finding says so): InferenceX's
#: largest recipe has ~1,300 lines and ~10,000 nodes; two million one-word statements took 50 s and
#: 4 GB before these bounds (tree-sitter's own tree of them takes 1 GB, hence the line count first)
MAX_LINES = 200_000
MAX_NODES = 500_000


def _parser() -> tree_sitter.Parser:
    global _PARSER
    if _PARSER is None:
        _PARSER = tree_sitter.Parser(tree_sitter.Language(tree_sitter_bash.language()))
    return _PARSER


class Node:
    """A syntax node.  Nodes are immutable once the tree is built, so their text, location and
    field lookups are computed once (the evaluator asks for them for every sweep point)."""

    __slots__ = ("type", "start", "end", "children", "fields", "named", "src", "extra", "_text", "_loc", "_fmap")

    def __init__(self, type_, start, end, named, src):
        self.type = type_
        self.start = start
        self.end = end
        self.named = named
        self.src = src
        self.children: tuple[Node, ...] = ()
        self.fields: tuple[str | None, ...] = ()
        #: tokens recovered by the token-gap check (literal words the grammar dropped)
        self.extra: tuple[Node, ...] = ()
        self._text = None
        self._loc = None
        self._fmap = None

    @property
    def text(self) -> str:
        t = self._text
        if t is None:
            t = self._text = self.src.data[self.start : self.end].decode("utf-8", "replace")
        return t

    @property
    def loc(self) -> Loc:
        loc = self._loc
        if loc is None:
            loc = self._loc = Loc(self.src, self.start, self.end)
        return loc

    def field(self, name: str) -> Node | None:
        m = self._fmap
        if m is None:
            m = {}
            for f, c in zip(self.fields, self.children):
                if f is not None and f not in m:
                    m[f] = c
            self._fmap = m
        return m.get(name)

    def fields_all(self, name: str) -> list[Node]:
        return [c for f, c in zip(self.fields, self.children) if f == name]

    @property
    def named_children(self) -> list[Node]:
        return [c for c in self.children if c.named]

    def __repr__(self) -> str:
        return f"Node({self.type} {self.text[:30]!r})"


@dataclass(frozen=True, slots=True)
class ParseProblem:
    loc: Loc
    message: str


@dataclass(slots=True)
class Parsed:
    root: Node
    problems: list[ParseProblem]
    depth: int
    #: why the text was not parsed or converted (beyond ``MAX_LINES`` or ``MAX_NODES``): the tree
    #: is then left empty
    too_large: str = ""


# Node types whose byte range is covered by literal text between children (strings,
# heredocs, expansions): gaps there are content, not dropped tokens.
_GAP_IS_CONTENT = frozenset(
    {
        "string", "heredoc_body", "expansion", "raw_string", "ansi_c_string", "translated_string",
        "word", "concatenation", "regex", "extglob_pattern", "heredoc_content", "string_content",
        "arithmetic_expansion", "command_substitution", "comment", "subscript", "test_command",
        "binary_expression", "unary_expression", "ternary_expression", "parenthesized_expression",
        "postfix_expression", "compound_statement", "heredoc_redirect", "herestring_redirect",
        "case_item", "array", "process_substitution", "brace_expression", "number",
        "simple_expansion", "c_style_for_statement", "for_statement",
    }
)


def parse(src) -> Parsed:
    """Parse ``src`` (a SourceFile or VirtualSource)."""
    data = src.data
    lines = data.count(b"\n")
    if lines > MAX_LINES:
        return _not_parsed(src, f"{lines:,} lines, more than the {MAX_LINES:,}")
    body = data[:-1] if data.endswith(b"\\\n") else data
    if escaped(body, len(body)):
        # a backslash ending the file (alone, or continuing a line into the end) is dropped by
        # bash; tree-sitter-bash calls it a syntax error (InferenceX's history: a recipe ending in
        # `rm -rf ./utils/bench_serving\` and a newline)
        data = body[:-1]
    tree = _parser().parse(data)
    problems: list[ParseProblem] = []
    count = tree.root_node.descendant_count
    if count > MAX_NODES:  # not converted: our tree of it would take gigabytes
        return _not_parsed(src, f"{count:,} syntax nodes, more than the {MAX_NODES:,}")
    joins = []
    if _JOIN_HINT.search(data):
        # (on the tree of the text with the repairs that change where words end; the pairs'
        # bytes are the same in both)
        joins = _word_joins(_substitution_arithmetic(tree, data)[0].root_node, data)
    if joins:
        # bash removes a backslash-newline before it splits words, so `'{'\<newline>'"a": 1}'`
        # is one word; tree-sitter-bash splits there.  Parse without those pairs, then map every
        # position back to the file (the pairs stay in the text of the nodes that span them)
        data = b"".join(data[a:b] for a, b in zip([0] + [j + 2 for j in joins], joins + [len(data)]))
        tree = _parser().parse(data)
    root, depth, redirected, documents = _repaired(tree, src, problems, data)
    if joins:
        problems[:], documents = _remap(root, problems, joins, data, documents)
    if _CONTINUED_NAME.search(src.data):  # (after `_remap`: the names' texts are set from the file)
        stack = [root]
        while stack:
            n = stack.pop()
            stack.extend(n.children)
            if n.type in ("string", "heredoc_body"):
                _continued_names(n, src.data)
    _gap_check(root, src, problems, documents)
    for node in redirected:  # after the gap check: the moved words leave gaps in their command
        _words_after_redirects(node)
    if _NAMED_FD.search(data):
        _named_descriptors(root)
    problems.sort(key=lambda p: p.loc.start)
    return Parsed(root, problems, depth)


def _repaired(tree, src, problems: list, text: bytes, brackets: bool = False) -> tuple[Node, int, list[Node], list]:
    """Our tree of ``text`` (tree-sitter's ``tree`` of it), with every repair of a place where
    tree-sitter-bash and bash disagree.  The repairs that parse again replace bytes one for one,
    so positions stay ``text``'s, and texts and messages are read from ``text`` as it was.
    ``brackets``: look for every misread ``[ ]`` (``_bracket_commands``), not only where a cheap
    test of the text points.  Last: the spans of here-documents that now lie between two parts
    of a statement (``_join_line_ops``), which the gap check takes for text."""
    first, parsed = tree, text
    widen: frozenset = frozenset()
    dollars: list[int] = []
    bangs: list = []
    moved: list = []
    operands: dict = {}
    line_ops: list = []
    line_rests: list = []
    semis: list[int] = []
    for _ in range(3):  # a misread statement may hide another one's (`2>/dev/null X=1` then `for x do`)
        before = parsed
        # (first: the body of such a here-document is read as commands, which the passes below would repair)
        tree, parsed, more = _heredoc_line_ops(tree, parsed)
        line_ops += [op for op in more if op not in line_ops]
        tree, parsed, more = _heredoc_line_rests(tree, parsed)
        line_rests += [r for r in more if r not in line_rests]
        tree, parsed, more = _backquote_blanks(tree, parsed)
        semis += more
        tree, parsed = _double_bracket_equals(*_for_without_in(*_read_write(*_escaped_line_starts(*_arithmetic_commas(tree, parsed)))))
        tree, parsed, more = _test_operands(*_lone_dollars(*_test_tildes(*_lone_operators(*_unsetenv(*_substitution_arithmetic(*_expansion_operators(tree, parsed)))))), text)
        operands.update(more)
        tree, parsed, more = _substring_offsets(tree, parsed)
        widen |= more
        tree, parsed, more = _split_dollars(tree, parsed)
        dollars = sorted(dollars + more)
        tree, parsed, more = _negated_groups(tree, parsed)
        bangs += more
        tree, parsed, more = _redirected_assignments(*_bracket_commands(tree, parsed, brackets))
        moved += more
        tree, parsed = _end_lines(tree, parsed)
        if parsed == before:
            break
    known = len(problems)
    root, depth, redirected, fixes, links = _convert(tree.root_node, src, problems, parsed, text, widen, dollars, operands)
    if semis:  # (the `;`s `_backquote_blanks` put in are errors to the grammar, blanks to bash)
        put = set(semis)
        problems[known:] = [p for p in problems[known:] if not (p.loc.start in put and p.loc.end == p.loc.start + 1)]
    if "brackets" in fixes and not brackets:
        # a `[ ]` holding statements (`[ $? -ne 0 ]` newline `then ...` up to a later `]`)
        del problems[known:]
        return _repaired(first, src, problems, text, True)
    if "words" in fixes:
        _rejoin_words(root, parsed)
    if "backquotes" in fixes:
        _operand_backquotes(root, src, problems, text)
    if "patterns" in fixes:
        _case_patterns(root, src, problems, text)
    if "chains" in fixes:
        _chains(root, redirected, links if links is not None and not {"words", "backquotes", "patterns"} & fixes else None)
    documents: list = []
    if line_ops:  # (after: a statement holding one is then whole, and is taken apart again)
        documents = _join_line_ops(root, line_ops, problems)
    if line_rests:
        _insert_line_rests(root, line_rests, src, problems, text)
        # (the rests were parsed apart, with every repair: what an earlier round recorded in
        # them is not put back again — a `!` would negate twice)
        bangs = [x for x in bangs if not any(a <= x[0] < b for a, b in line_rests)]
        moved = [x for x in moved if not any(a <= x[0] < b for a, b in line_rests)]
    # the two passes below need the parents of a few kinds of node: ``links`` has them, unless a
    # pass above made new nodes (then they are found again, in one walk of the tree)
    fresh = links is not None and not ({"words", "backquotes", "patterns", "chains"} & fixes) and not line_ops and not line_rests
    if not fresh and {"regex", "redirects"} & fixes:
        links = _links(root)
    if "regex" in fixes:
        _regex_operands(root, links)
    if "redirects" in fixes:
        _relocate_redirects(root, redirected, links)
    _attach_negations(root, bangs)
    if "negations" in fixes:
        _negated_redirects(root)
    _attach_redirects(root, moved, src, problems, parsed, text)
    _based_numbers(root, problems, text)
    if b"<<" in text:
        _heredoc_bodies(root, src, text, problems)
    return root, depth, redirected, documents


def _links(root: Node) -> list[tuple[Node, Node, int]]:
    """``(node, parent, depth)`` for every node of a type in ``_LINKED``, in the order
    ``_convert`` lists them (a node after its ancestors): for a tree passes have changed."""
    out = []
    stack = [(root, 0)]
    while stack:
        n, d = stack.pop()
        for c in n.children:
            if c.type in _LINKED:
                out.append((c, n, d + 1))
            if c.children:
                stack.append((c, d + 1))
    return out


def _nodes_of(root: Node, kind: str):
    """Every node of type ``kind`` under ``root`` (the tree may be changed below a node given)."""
    stack = [root]
    while stack:
        n = stack.pop()
        stack.extend(n.children)
        if n.type == kind:
            yield n


def _not_parsed(src, why: str) -> Parsed:
    return Parsed(Node("program", 0, len(src.data), True, src), [], 0, too_large=f"{why} recipelint analyses")


#: a backslash-newline with a token character on each side, an escaped backslash being one (cheap
#: test before walking the tree: there the gaps between tokens tell)
_JOIN_HINT = re.compile(rb"[^\s]\\\n[^\s]")


def _word_joins(ts_root, data: bytes) -> list[int]:
    """Offsets of the backslash-newlines that tree-sitter took for a word break but bash
    removes inside a word: the two bytes between two sibling tokens, with nothing else around;
    and those the grammar took into a name."""
    out = []
    stack = [ts_root]
    while stack:
        n = stack.pop()
        k = n.child_count
        if not k:
            if n.type == "variable_name" and b"\\\n" in data[n.start_byte : n.end_byte]:
                # (`"q"x=$X`, backslash-newline, `"b"`: the grammar's name is `X`, backslash, newline)
                at = data.find(b"\\\n", n.start_byte, n.end_byte)
                while at >= 0:
                    out.append(at)
                    at = data.find(b"\\\n", at + 2, n.end_byte)
            continue
        if n.type == "heredoc_redirect" and any(n.child(i).type in ("word", "concatenation")
                                                and data[n.child(i).start_byte] == 10 for i in range(k)):
            # (a here-document's first line that starts with a backslash, misread as words of its
            # command — `_escaped_line_starts` makes it body again: its backslash-newlines are text)
            continue
        prev = None
        for i in range(k):
            c = n.child(i)
            if prev is not None and c.start_byte - prev.end_byte == 2 and data[prev.end_byte : c.start_byte] == b"\\\n":
                out.append(prev.end_byte)
            prev = c
            stack.append(c)
    return sorted(set(out))


def _remap(root: Node, problems: list, joins: list[int], shown: bytes, spans: list = ()) -> tuple[list, list]:
    """Move the nodes and problems (and ``spans``) of a parse of ``shown`` (the text without
    ``joins``) to the file's positions (a node's text stays the parsed one, which has no
    backslash-newline pairs)."""

    at = [j - 2 * i for i, j in enumerate(joins)]  # where each removed pair was, in the parsed text

    def start(p: int) -> int:
        return p + 2 * bisect.bisect_right(at, p)

    def end(p: int) -> int:
        return p + 2 * bisect.bisect_left(at, p)

    src = root.src
    stack = [root]
    while stack:
        n = stack.pop()
        a, b = n.start, n.end
        # a node that spans a removed pair keeps the text bash reads (without it)
        n._text = shown[a:b].decode("utf-8", "replace") if bisect.bisect_right(at, a) < bisect.bisect_left(at, b) else None
        n.start, n.end, n._loc = start(a), end(b), None
        stack.extend(n.children)
        stack.extend(n.extra)
    return ([ParseProblem(Loc(src, start(p.loc.start), max(start(p.loc.start), end(p.loc.end))), p.message) for p in problems],
            [(start(a), end(b)) for a, b in spans])


#: the expansions (tree-sitter-bash may start one in a string at the blank before it)
_EXPANSIONS = frozenset({"simple_expansion", "expansion", "command_substitution", "arithmetic_expansion"})
_BLANKS = b" \t\n"


def _convert(ts_root, src, problems, data: bytes, text: bytes, widen: frozenset = frozenset(),
             dollars: list[int] | None = None, operands: dict | None = None) -> tuple[Node, int, list[Node], set[str], list]:
    """Our tree of tree-sitter's, which parsed ``data`` (the file's text, or the text ``parse``
    rewrote: positions are then ``data``'s until ``_remap``), and the redirected commands whose
    redirections hold words (for ``_words_after_redirects``).  ``text`` is ``data`` before the
    repairs that replaced bytes (what messages quote); a node starting at a position in ``widen``
    starts a byte earlier (the ``$`` that ``_substring_offsets`` blanked); a word holding a
    position in ``dollars`` holds the expansion ``_split_dollars`` hid there; a word at a span of
    ``operands`` is the operand ``_test_operands`` parsed alone.  Last: ``(node, parent, depth)`` for
    every node of a type in ``_LINKED``, in the order a depth-first walk that takes the children
    last to first finds them (so a node after its ancestors); None when the tree holds subtrees
    made apart (then only a walk of the tree finds them all)."""
    root = Node(ts_root.type, ts_root.start_byte, ts_root.end_byte, True, src)
    # iterative conversion: (ts_node, node, depth)
    stack = [(ts_root, root, 0)]
    max_depth = 0
    redirected: list[Node] = []  # redirected commands whose redirections may hold their words
    fixes: set[str] = set()  # the post-passes the tree needs (see _repaired)
    links: list[tuple[Node, Node, int]] | None = []
    heredoc_lines: set[int] | None = set()  # where the lines holding here-document starts begin
    rare = bool(widen or dollars or operands)  # (every child then takes the full path below)
    while stack:
        ts_node, node, depth = stack.pop()
        if depth > max_depth:
            max_depth = depth
        if ts_node.is_error:
            problems.append(_error_problem(ts_node, src, text))
        elif ts_node.is_missing:
            problems.append(ParseProblem(node.loc, f"syntax error: missing '{ts_node.type}'"))
        n = ts_node.child_count
        if not n:
            continue
        kids = []
        fields = []
        ntype = node.type
        holder = ntype in _WORD_HOLDERS
        slow = _CONVERT_ALL if rare else _CONVERT_SLOW_UNDER.get(ntype, _CONVERT_SLOW)
        nstart = node.start
        for i in range(n):
            c = ts_node.child(i)
            ctype = c.type
            if ctype not in slow:
                # the common child, which none of the cases below concerns (same result, fewer tests)
                start = c.start_byte
                if start >= nstart:
                    child = Node(ctype, start, c.end_byte, c.is_named, src)
                    if holder and kids and kids[-1].end == start and ctype in _JOINS_SECOND and kids[-1].type in _JOINS_FIRST:
                        fixes.add("words")
                    kids.append(child)
                    fields.append(ts_node.field_name_for_child(i))
                    if c.child_count or c.is_missing:
                        stack.append((c, child, depth + 1))
                    continue
            if c.is_error and ts_node.type == "for_statement" and data[c.start_byte : c.end_byte].rstrip(b"; \t") == b"in":
                # `for x in; do`: a loop over no words (the grammar wants one after `in`)
                kids.append(Node("in", c.start_byte, c.start_byte + 2, False, src))
                fields.append(None)
                continue
            if c.is_error and ts_node.type == "heredoc_redirect" and _line_end_terminator(data, c.start_byte, c.end_byte):
                # `python3 - <<EOF &`, `cat <<EOF ;`: the grammar wants no `&` or `;` after a
                # here-document's start; ending the line, it ends the statement (as `cmd &` does)
                continue
            if ctype == "comment" and ntype in _CHAINS:
                continue  # (`a &&`, a comment line, `b`: the list's parts are `a` and `b`)
            start = c.start_byte
            if (ctype in _EXPANSIONS or ctype == "$") and (data[start] in _BLANKS or data[start : start + 2] == b"\\\n") \
                    and node.type in ("string", "heredoc_body"):
                # tree-sitter-bash starts an expansion after another at the blank between them
                # (`"$A $B"`: ` $B`; `"$A \`, newline, `  $B"`), and one (or a `$` that is text:
                # `"$A \`, newline, `$'x'"`) at a backslash-newline before it: the string's text
                ws = start
                while ws < c.end_byte and (data[ws] in _BLANKS or data[ws : ws + 2] == b"\\\n"):
                    ws += 2 if data[ws] == 92 else 1
                kids.append(Node("string_content" if node.type == "string" else "heredoc_content", start, ws, True, src))
                fields.append(None)
                start = ws
            elif start < node.start:  # a token of such an expansion (` $`)
                start = node.start
            end = c.end_byte
            if ctype == "command_substitution" and _arithmetic_substitution(c):
                ctype = "arithmetic_expansion"
            elif ctype == "==" and text[start + 1] != 61:  # a `=` read as `==` (_double_bracket_equals)
                end = start + 1
            elif ctype == "<" and text[end : end + 1] == b">":  # `<>` (_read_write)
                end += 1
            if widen and start in widen:  # (`${X:$o-1}`: the offset, and its first token `$o`)
                start -= 1
                if not c.child_count:
                    kids.append(_dollar_name(start, end, src))
                    fields.append(ts_node.field_name_for_child(i))
                    continue
            if ctype == "simple_expansion" and c.child_count and end - (d := c.child(0).end_byte) > 1 \
                    and (48 <= text[d] <= 57 or text[d] in b"@*#?-!"):
                # `$10`, `$1x`: bash reads one digit (`${1}0`); tree-sitter-bash the whole name
                # (and `$@x` starting a here-document's line: the name `@x`).  (`d`: after the `$`,
                # whose token may hold a backslash-newline before it: see above)
                rest = Node({"string": "string_content", "heredoc_body": "heredoc_content"}.get(node.type, "word"), d + 1, end,
                            True, src)
                _add_parts(node, [_dollar_name(d - 1, d + 1, src), rest], start, end, kids, fields,
                           ts_node.field_name_for_child(i))
                continue
            if operands and (start, end) in operands and not c.child_count:
                kids.append(_shifted(*operands[start, end], start, src))
                links = None  # (a subtree not walked here)
                fields.append(ts_node.field_name_for_child(i))
                continue
            if dollars and ctype == "word" and _holds(dollars, start, end):
                _add_parts(node, _dollar_parts(dollars, start, end, src, text), start, end, kids, fields,
                           ts_node.field_name_for_child(i))
                continue
            named = c.is_named
            if (ctype == "==" or ctype == "=~") and ntype == "command":
                # `emit =="a b"`: the grammar's operator token, a word (joined to the next) to bash
                ctype, named = "word", True
                if kids and kids[-1].end == start and kids[-1].type in _JOINS_FIRST \
                        or i + 1 < n and ts_node.child(i + 1).start_byte == end and ts_node.child(i + 1).type in _JOINS_SECOND:
                    fixes.add("words")
            child = Node(ctype, start, end, named, src)
            kids.append(child)
            fields.append(ts_node.field_name_for_child(i))
            if ctype in _SPECIAL_KIDS:
                if ctype == "heredoc_start":
                    heredoc_lines = _heredoc_start_checks(child, data, text, heredoc_lines, problems)
                elif ntype == "heredoc_redirect" and ctype in _HEREDOC_TAIL or ctype == "list" and ntype == "pipeline":
                    fixes.add("chains")
                if ctype in _LINKED and links is not None:
                    links.append((child, node, depth + 1))
            if (ctype == "list" or ctype == "pipeline") and node.type == "redirected_statement":
                fixes.add("redirects")
            elif ctype == "negated_command" and ntype == "redirected_statement":
                fixes.add("negations")
            elif ctype in _NOT_IN_TEST and node.type == "test_command":
                fixes.add("brackets")
            elif ctype == "word" and node.type == "expansion" and b"`" in data[start:end]:
                fixes.add("backquotes")
            elif ctype == "$" and node.type != "simple_expansion" or holder and len(kids) > 1 and kids[-2].end == start \
                    and ctype in _JOINS_SECOND and kids[-2].type in _JOINS_FIRST:
                fixes.add("words")
            if c.child_count or c.is_error or c.is_missing:
                stack.append((c, child, depth + 1))
                if ctype in ("file_redirect", "heredoc_redirect") and node.type == "redirected_statement" \
                        and c.named_child_count > 1 and (not redirected or redirected[-1] is not node):
                    redirected.append(node)
        if ntype == "concatenation" and any(a.end < b.start for a, b in zip(kids, kids[1:])):
            # text the grammar leaves between a concatenation's parts is the word's (the blanks of
            # `${X:+--limit "$X"}` and `"${X:-\"a b\" c}"`: 223 in InferenceX's history, all blanks)
            _fill_gaps(kids, fields, src)
        node.children = tuple(kids)
        node.fields = tuple(fields)
        if node.type == "binary_expression" and len(kids) > 2 and kids[1].type == "=~" \
                and (kids[0].type in ("binary_expression", "unary_expression") or kids[2].type == "binary_expression"):
            fixes.add("regex")
        if node.type == "case_item" and _split_pattern(kids, data) or node.type == "case_statement" and _pattern_errors(kids):
            fixes.add("patterns")
    return root, max_depth, redirected, fixes, links


def _fill_gaps(kids: list, fields: list, src) -> None:
    """Put a word over each gap between the parts ``kids`` of a concatenation."""
    i = 1
    while i < len(kids):
        if kids[i - 1].end < kids[i].start:
            kids.insert(i, Node("word", kids[i - 1].end, kids[i].start, True, src))
            fields.insert(i, None)
            i += 1
        i += 1


#: an unquoted here-document delimiter with an operator glued to it (``<<EOF;``, ``<<EOF>f``,
#: ``<<EOF|grep x``): tree-sitter-bash takes the operator into the delimiter, so the document
#: never ends
_HEREDOC_GLUED = re.compile(rb"-?\s*[A-Za-z0-9_.-]+[;&|<>()]")


def _line_end_terminator(data: bytes, a: int, b: int) -> bool:
    """Whether ``data[a:b]`` is a lone ``&`` or ``;`` with nothing but blanks after it on its
    line (with a comment after it, tree-sitter-bash's tree is another, an error still)."""
    if data[a:b].strip(b" \t") not in (b"&", b";"):
        return False
    nl = data.find(b"\n", b)
    return not data[b : nl if nl >= 0 else len(data)].strip(b" \t\r")


#: what tree-sitter-bash puts into a here-document's node when a pipe or `&&`/`||` follows its
#: start on the line (``_chains``)
_HEREDOC_TAIL = frozenset({"pipeline", "list", "&&", "||"})
_CHAIN_OPS = frozenset({"|", "|&", "&&", "||"})
#: statements joined by operators: a comment between their parts is not one of them
_CHAINS = frozenset({"list", "pipeline", "negated_command"})
_HEREDOC_OWN = frozenset({"<<", "<<-", "heredoc_start", "heredoc_body", "heredoc_end", "file_redirect", "herestring_redirect"})


def _chains(root: Node, redirected: list, links: list | None = None) -> None:
    """Statements of pipes and ``&&``/``||`` that tree-sitter-bash nests with no regard to
    bash's precedence, rebuilt from their parts in order (pipes bind tightest, then ``&&`` and
    ``||`` from the left; a ``!`` goes to the first pipeline):

    * a pipeline of three or more commands before ``&&``/``||`` (``a | b | c || d`` as
      ``a | ((b | c) || d)``: ``d`` ran in a pipeline's subshell, an ``exit`` there ended nothing);
    * what follows a here-document's start on its line, which it reads as part of the
      here-document (``cat <<EOF | tr a b`` as ``cat`` with a here-document holding ``| tr a b``,
      never run; ``python3 - <<EOF || exit 1`` likewise); the redirections go to the command
      they follow.  A tail holding anything else (an error, ``;``, ``&``) is left as it is.

    ``links``: the (node, parent, depth) triples of the tree (``_links``), else it is walked."""
    if links is None:
        links = _links(root)
    parent: dict[int, Node] = {}
    found = []
    for c, n, _ in links:
        parent[id(c)] = n
        if c.type == "pipeline" and any(k.type == "list" for k in c.children) or c.type == "redirected_statement" and any(
                h.type == "heredoc_redirect" and any(k.type in _HEREDOC_TAIL for k in h.children) for h in c.children):
            found.append(c)
    for r in reversed(found):  # (inner statements first)
        # `! cat <<EOF | grep -q x && y`: the `!` is the first pipeline's (tree-sitter-bash: the whole)
        neg = parent[id(r)] if parent[id(r)].type == "negated_command" else None
        if neg is not None and [c.type for c in neg.children] != ["!", r.type]:
            continue
        new = _heredoc_statement(r, redirected, neg) if r.type == "redirected_statement" else _rebuilt([r], neg)
        if new is None:
            continue
        old = r if neg is None else neg
        up = parent[id(old)]
        up.children = tuple(new if c is old else c for c in up.children)
        up._fmap = None
        parent[id(new)] = up


def _heredoc_statement(r: Node, redirected: list, neg: Node | None) -> Node | None:
    """The statement ``r`` (a redirected statement whose here-document holds a tail) is;
    ``neg``: the ``!`` statement ``r`` is the body of."""
    h = next(c for c in r.children if c.type == "heredoc_redirect" and any(k.type in _HEREDOC_TAIL for k in c.children))
    tail = [c for c in h.children if c.type not in _HEREDOC_OWN]
    body = r.children[0] if r.fields[0] == "body" else None
    if body is None:
        return None
    if neg is None and body.type == "negated_command" and [c.type for c in body.children][:1] == ["!"] \
            and len(body.children) == 2:
        neg, body = body, body.children[1]  # (`! cat <<EOF | ...` read as `(! cat) <<EOF ...`)
    head: list[Node] = []
    if not _chain_parts(body, head):
        return None
    last = head[-1]
    stmt = Node("redirected_statement", last.start, r.end, True, r.src)
    stmt.children, stmt.fields = (last, *r.children[1:]), ("body", *r.fields[1:])
    new = _rebuilt(head[:-1] + [stmt] + tail, neg)
    if new is None:
        return None
    keep = [(c, f) for c, f in zip(h.children, h.fields) if c.type in _HEREDOC_OWN]
    h.children, h.fields, h._fmap = tuple(c for c, _ in keep), tuple(f for _, f in keep), None
    if r in redirected:
        redirected[redirected.index(r)] = stmt
    return new


def _rebuilt(items: list[Node], neg: Node | None) -> Node | None:
    """The statement the commands and operators under ``items`` make, in bash's precedence;
    None when they do not alternate command, operator, command ..."""
    parts: list[Node] = []
    for t in items:
        if not _chain_parts(t, parts):
            return None
    if not parts or any((i % 2 == 1) != (x.type in _CHAIN_OPS) for i, x in enumerate(parts)) or len(parts) % 2 == 0:
        return None
    groups: list[list[Node]] = [[parts[0]]]
    joins: list[Node] = []
    for op, atom in zip(parts[1::2], parts[2::2]):
        if op.type in ("|", "|&"):
            groups[-1] += [op, atom]
        else:
            joins.append(op)
            groups.append([atom])
    units = [g[0] if len(g) == 1 else _chain_node("pipeline", g) for g in groups]
    if neg is not None:
        units[0] = _chain_node("negated_command", [neg.children[0], units[0]])
    out = units[0]
    for op, unit in zip(joins, units[1:]):
        out = _chain_node("list", [out, op, unit])
    return out


#: a line holding a here-document's start and ending in a pipe, `&&` or `||` (the cheap test)
_HEREDOC_LINE_OP = re.compile(rb"<<-?[ \t]*[^\s<].*(?:&&|\|)[ \t]*\r?\n")
_LINE_OP_TYPES = {b"&&": "&&", b"||": "||", b"|&": "|&", b"|": "|"}
_LINE_END_OP = re.compile(rb"(?:&&|\|\||\|&|\|)$")
#: nodes whose children are statements run in order
_STATEMENT_HOLDERS = frozenset({"program", "compound_statement", "subshell", "do_group", "if_statement", "elif_clause",
                                "else_clause", "case_item", "command_substitution"})


def _heredoc_line_ops(tree, data: bytes):
    """``cat <<EOF &&`` (or ``|``, ``||``) ending its line: bash runs the document's body as
    text and takes the statement after the document's end for the other operand;
    tree-sitter-bash takes the body's first line for that operand (``cat <<EOF |`` newline ``ab``
    newline ``EOF`` newline ``tr a b``: ``cat | ab``, and ``tr a b`` alone).  The operator is
    parsed again as blanks, one byte for one (``_join_line_ops`` joins the statements again).
    Returns the tree, the text it parsed and the operators blanked: (type, start, end)."""
    if not _HEREDOC_LINE_OP.search(data):
        return tree, data, []
    found = []
    for n, end in _heredoc_lines(tree, data):
        m = _LINE_END_OP.search(data[n.end_byte : end].rstrip(b" \t\r"))
        if m is not None:  # (a token of the statement, not the end of a comment)
            a, b = n.end_byte + m.start(), n.end_byte + m.end()
            if _token_at(tree.root_node, a, b, _LINE_OP_TYPES[m.group()]):
                found.append((_LINE_OP_TYPES[m.group()], a, b))
    if not found:
        return tree, data, []
    return (*_reparse(data, [i for _, a, b in found for i in range(a, b)], b" "), found)


def _heredoc_lines(tree, data: bytes):
    """Each here-document start (tree-sitter's node) and where its line ends — but for a
    ``<<`` inside a ``((`` its line has not closed, a shift tree-sitter-bash took for a
    here-document (``(( 0 + !((a, b)) << n ))``, which ``_arithmetic_commas`` repairs)."""
    for n in tree_sitter.QueryCursor(_query("heredoc_starts", "(heredoc_start) @s")).captures(tree.root_node).get("s", []):
        before = data[data.rfind(b"\n", 0, n.start_byte) + 1 : n.start_byte]
        if b"((" in before and before.count(b"(") > before.count(b")"):
            continue
        nl = data.find(b"\n", n.end_byte)
        yield n, nl if nl >= 0 else len(data)


def _token_at(root, a: int, b: int, kind: str) -> bool:
    """Whether the bytes from ``a`` are a token of type ``kind`` (not part of a word or comment)."""
    tok = root.descendant_for_byte_range(a, b)
    return tok is not None and tok.type == kind and tok.start_byte == a


_SEPARATOR = re.compile(rb"(?<![&;|<>])[;&](?![&;>])")
_GLUED_SEPARATOR = re.compile(rb"-?\s*[A-Za-z0-9_.-]+([;&])(?!&)")
#: a line with a here-document's start and a `;` or `&` after it (the cheap test)
_REST_HINT = re.compile(rb"<<-?[ \t]*[^\s<;&|][^\n]*?(?<![&|<>])[;&](?![&>])")


def _backquote_blanks(tree, data: bytes):
    """After a backquoted command, tree-sitter-bash pairs backquotes wrongly where one that opens
    a command is followed by a blank (``x="`a`"`` … ``y="` b`"``: the second nests in the first's
    closing backquote; unquoted, an error).  Where the tree shows it (a backquoted command inside
    another, or an error holding a backquote), each backquote followed by a blank is tried with a
    `;` for the blank, one byte for one, and kept where the new tree opens a command there (the
    grammar pairs that right; the error it makes of the `;` is not reported; to bash the blank
    and the `;` are the same there).  Returns the tree, the text it parsed and where the `;`s are."""
    if data.count(b"`") < 4 or not _backquote_symptom(tree.root_node, data):
        return tree, data, []
    keep = [m.start() for m in _BACKQUOTE_BLANK.finditer(data) if data[m.start() - 1 : m.start()] != b"\\"]
    for _ in range(4):  # all at once (they depend on each other), then without those that open nothing
        if not keep:
            return tree, data, []
        new_tree, new = _reparse(data, [at + 1 for at in keep], b";")
        opens = [at for at in keep if _opens_command(new_tree.root_node, at)]
        if opens == keep:
            return new_tree, new, [at + 1 for at in keep]
        keep = opens
    return tree, data, []


def _opens_command(root, at: int) -> bool:
    """Whether the backquote at ``at`` opens a command substitution in the tree."""
    tok = root.descendant_for_byte_range(at, at + 1)
    return tok is not None and tok.type == "`" and tok.parent is not None and tok.parent.type == "command_substitution" \
        and tok.parent.start_byte == at


_BACKQUOTE_BLANK = re.compile(rb"`[ \t\n]")


def _backquote_symptom(root, data: bytes) -> bool:
    """Whether tree-sitter's tree has a backquoted command inside another (unescaped: bash
    cannot nest them so) or an error holding a backquote."""
    for c in tree_sitter.QueryCursor(_query("substitutions", "(command_substitution) @c")).captures(root).get("c", []):
        if data[c.start_byte : c.start_byte + 1] != b"`" or data[c.start_byte - 1 : c.start_byte] == b"\\":
            continue
        up = c.parent
        while up is not None:
            if up.type == "command_substitution" and data[up.start_byte : up.start_byte + 1] == b"`":
                return True
            up = up.parent
    return any(any(k.type == "`" for k in e.children)
               for e in tree_sitter.QueryCursor(_query("errors", "(ERROR) @e")).captures(root).get("e", []))


def _heredoc_line_rests(tree, data: bytes):
    """``cat <<EOF > f; chmod +x f``: statements after a ``;`` or ``&`` on a here-document's
    start line, which tree-sitter-bash drops (a syntax error).  The rest of the line is parsed
    again as blanks, one byte for one (``_insert_line_rests`` parses it apart and puts its
    statements after the here-document's).  Returns the tree, the text it parsed and the spans
    blanked (from the ``;`` or ``&`` to the line's end)."""
    if not _REST_HINT.search(data):
        return tree, data, []
    found = []
    for start, end in _heredoc_lines(tree, data):
        at = None
        glued = _GLUED_SEPARATOR.match(data, start.start_byte, start.end_byte)  # (`<<EOF;`: read into the delimiter)
        if glued is not None:
            at = glued.start(1)
        outer = _compounds_around(start)
        if any(pos > data.rfind(b"\n", 0, start.start_byte) for _, pos in outer):
            continue  # (a loop or group opened on this line may close in the rest: `if x; then cat <<EOF; y; fi`)
        for m in _SEPARATOR.finditer(data, start.end_byte, end) if at is None else ():
            # the first that is a token (not in a word) of the here-document's statement (not in
            # a loop, group, ... after it: `cat <<EOF | while read -r l; do`; nor in a group after
            # a `!`, which the grammar reads as a command named `{`: `cat <<EOF && ! { a; }`)
            if _token_at(tree.root_node, m.start(), m.end(), m.group().decode()) \
                    and _compounds_around(tree.root_node.descendant_for_byte_range(m.start(), m.end())) <= outer \
                    and not _braces_open(tree.root_node, data, start.end_byte, m.start()):
                at = m.start()
                break
        if at is None:
            continue
        rest = data[at + 1 : end].strip(b" \t\r")
        # (left as it is: nothing after it, a here-document or an operator going on to the next line)
        if (rest or glued) and b"<<" not in rest and not _LINE_END_OP.search(rest):
            found.append((at, end))
    if not found:
        return tree, data, []
    return (*_reparse(data, [i for a, b in found for i in range(a, b)], b" "), found)


def _braces_open(root, data: bytes, a: int, b: int) -> bool:
    """Whether a group opened between ``a`` and ``b`` is still open at ``b``: each ``{`` and
    ``}`` where bash reserves it — after ``!``, an operator or another ``{`` (a ``}`` after a
    ``;`` or ``&``) — and not in a string (the grammar reads ``! {`` as a command named ``{``)."""
    depth = 0
    for m in _BRACE.finditer(data, a, b):
        before = data[a : m.start()].rstrip(b" \t")[-1:]
        if before not in ((b"!", b";", b"&", b"|", b"{", b"(") if m.group() == b"{" else (b";", b"&")):
            continue
        n = root.descendant_for_byte_range(m.start(), m.end())
        if n is None or n.type not in ("word", "{", "}"):
            continue
        depth += 1 if m.group() == b"{" else -1 if depth else 0
    return depth > 0


_BRACE = re.compile(rb"(?<![^\s;&|!(])[{}](?=[\s;&|)]|$)")
_COMPOUNDS = frozenset({"while_statement", "for_statement", "c_style_for_statement", "if_statement", "case_statement",
                        "compound_statement", "subshell", "do_group", "function_definition", "command_substitution",
                        "process_substitution", "test_command"})


def _compounds_around(n) -> set:
    """The compound statements (tree-sitter nodes) a node is in, by their start."""
    out = set()
    n = n.parent
    while n is not None:
        if n.type in _COMPOUNDS:
            out.add((n.type, n.start_byte))
        n = n.parent
    return out


def _insert_line_rests(root: Node, rests: list, src, problems: list, text: bytes) -> None:
    """Parse each rest of a line ``_heredoc_line_rests`` blanked and put its statements after
    the statement holding the here-document (in order: bash runs that one first)."""
    for a, b in sorted(rests, key=lambda x: -x[0]):
        holder, found = _statement_at(root, a)
        if holder is None:  # (not after a statement holding a here-document: never seen)
            problems.append(ParseProblem(Loc(src, a, b), "statements after a here-document's start: not understood"))
            continue
        buf = b" " * (a + 1) + text[a + 1 : b] + b"\n"  # (positions stay the file's)
        mini = _repaired(_parser().parse(buf), src, problems, buf)[0]  # (every repair: `! { a; }` there too)
        more = [c for c in mini.children if c.named and c.type != "comment"]
        kids = list(holder.children)
        i = next(k for k, c in enumerate(kids) if c is found) + 1
        holder.children = tuple(kids[:i] + more + kids[i:])
        holder.fields = holder.fields[:i] + (None,) * len(more) + holder.fields[i:]
        holder._fmap = None


def _statement_at(root: Node, at: int):
    """The innermost node holding statements in order, and its statement that holds the byte
    ``at`` (None, None when there is none)."""
    holder, found, stmt = None, None, root
    while True:
        inner = next((c for c in stmt.children if c.start <= at < c.end), None)
        if inner is None:
            return holder, found
        if stmt.type in _STATEMENT_HOLDERS and inner.named:
            holder, found = stmt, inner
        stmt = inner


def _join_line_ops(root: Node, ops: list, problems: list) -> list:
    """Join the statement holding each operator ``_heredoc_line_ops`` blanked with the
    statement after it (after the here-document), in bash's precedence.  Returns the spans
    from each operator to that statement (here-documents: text)."""
    documents = []
    for kind, a, b in sorted(ops, key=lambda x: -x[1]):  # (the later ones first: they may be operands)
        holder, found = _statement_at(root, a)
        if holder is None:  # (not after a statement holding a here-document: never seen)
            problems.append(ParseProblem(Loc(root.src, a, b), f"'{kind}' after a here-document's start: not understood"))
            continue
        kids = list(holder.children)
        i = next(k for k, c in enumerate(kids) if c is found)
        j = next((k for k in range(i + 1, len(kids)) if kids[k].named and kids[k].type not in ("comment", "heredoc_body")), None)
        if j is None:
            problems.append(ParseProblem(Loc(root.src, a, b), f"syntax error: nothing after '{kind}'"))
            continue
        op = Node(kind, a, b, False, root.src)
        new = _rebuilt([found, op, kids[j]], None)
        if new is None:
            problems.append(ParseProblem(Loc(root.src, a, b), f"'{kind}' after a here-document's start: not understood"))
            continue
        fields = list(holder.fields)
        documents.append((b, kids[j].start))
        kids[i] = new
        del kids[j], fields[j]
        holder.children, holder.fields, holder._fmap = tuple(kids), tuple(fields), None
    return documents


def _chain_parts(n: Node, out: list) -> bool:
    """Append the commands of ``n`` and the operators between them (pipes, ``&&``, ``||``) in
    the order written; False when ``n`` joins statements otherwise."""
    if n.type in ("pipeline", "list"):
        for c in n.children:
            if c.type == "comment":
                continue
            if c.named:
                if not _chain_parts(c, out):
                    return False
            elif c.type in _CHAIN_OPS:
                out.append(c)
            else:
                return False
        return True
    if n.type in ("&&", "||", "|", "|&"):
        out.append(n)
        return True
    if n.type == "comment":
        return True
    if not n.named or n.type == "ERROR":
        return False
    if n.type == "redirected_statement" and n.fields[:1] == ("body",) and n.children[0].type in ("list", "pipeline") \
            and all(c.type in ("file_redirect", "herestring_redirect") for c in n.children[1:]):
        # `(a && ! b) > f` (the grammar gives the redirections after a list's last command to the
        # list; bash to that command: `a && ! (b > f)`): the list's parts, the last one redirected
        if not _chain_parts(n.children[0], out):
            return False
        last = out[-1]
        target = last.children[1] if last.type == "negated_command" and len(last.children) == 2 else last
        stmt = Node("redirected_statement", target.start, n.end, True, n.src)
        stmt.children, stmt.fields = (target, *n.children[1:]), ("body", *n.fields[1:])
        if target is not last:
            stmt = _chain_node("negated_command", [last.children[0], stmt])
        out[-1] = stmt
        return True
    out.append(n)
    return True


def _chain_node(kind: str, kids: list[Node]) -> Node:
    n = Node(kind, min(k.start for k in kids), max(k.end for k in kids), True, kids[0].src)
    n.children, n.fields = tuple(kids), (None,) * len(kids)
    return n


def _heredoc_start_checks(start: Node, data: bytes, text: bytes, lines: set | None, problems: list) -> set | None:
    """Report the here-document starts tree-sitter-bash misreads: a second one on a line (the
    bodies go to the wrong ones) and an operator glued to the delimiter (taken into it: the
    document never ends).  ``lines``: where the lines of the starts seen begin (None: a second
    one was reported already); returned updated."""
    if lines is not None:
        line_at = data.rfind(b"\n", 0, start.start)
        if line_at in lines:
            problems.append(ParseProblem(start.loc, "a second here-document begins on this line: recipelint's "
                                         "parser gives the bodies to the wrong ones (start each on its own line)"))
            lines = None  # (once)
        else:
            lines.add(line_at)
    if _HEREDOC_GLUED.match(data, start.start, start.end):
        problems.append(ParseProblem(start.loc, f"here-document delimiter '{text[start.start:start.end].decode('utf-8', 'replace')[:40]}': "
                                     "recipelint's parser takes the operator glued to it for part of the "
                                     "delimiter, so what follows is read as the here-document; put a blank "
                                     "before the operator"))
    return lines


#: the nodes whose parents ``_convert`` lists: for ``_chains``, ``_regex_operands`` and ``_relocate_redirects``
_LINKED = frozenset({"binary_expression", "redirected_statement", "pipeline", "negated_command"})
#: the children ``_convert`` looks at again: ``_LINKED``, here-document starts, what ``_chains`` rebuilds
_SPECIAL_KIDS = _LINKED | {"heredoc_start", "list", "&&", "||"}


#: ``$name`` inside a word, after a literal character and before one (``$D/$N.log``,
#: ``[k]=$a/b``), or ``$1`` after one: where tree-sitter-bash may split the word (the cheap test;
#: group 1: the `$`)
_DOLLAR_SPLIT_HINT = re.compile(rb"(?<=[^\s\"'`;&|()<>\\$])(\$)(?:[A-Za-z_][A-Za-z0-9_]*(?=[^\sA-Za-z0-9_\"'`;&|()<>$}\\])|[0-9])")


def _split_dollars(tree, data: bytes):
    """tree-sitter-bash splits some unquoted words at a ``$name`` that follows a literal and is
    followed by ``/``, ``.``, ``-`` or more (``$D/$N.log`` as ``$D/$`` and ``N.log`` — in an
    assignment, ``X=$D/$N.log`` runs ``N.log``; ``([k]=$a/b)`` as ``[k]=$`` and ``a/b``): a
    lone ``$`` token.  Each such ``$`` is parsed again as ``_`` (one byte for one: the word is
    whole), and ``_convert`` puts the expansion back into the word.  Returns the tree, the text
    it parsed and the positions of those ``$``."""
    if b"$" not in data:
        return tree, data, []
    done: list[int] = []
    for _ in range(8):  # a repaired `$` may show the next one in the word (`$a/$b/$c/`)
        at = []
        for m in _DOLLAR_SPLIT_HINT.finditer(data):
            i = m.start(1)
            n = tree.root_node.descendant_for_byte_range(i, i + 1)
            if n is not None and n.type == "$" and n.parent is not None and n.parent.type not in ("simple_expansion", "expansion"):
                prev = tree.root_node.descendant_for_byte_range(i - 1, i)
                if prev is None or prev.type != "variable_name":  # (`$X$1`: a `_` would go on with the name X)
                    at.append(i)
        if not at:
            break
        tree, data = _reparse(data, at, b"_")
        done += at
    return tree, data, sorted(done)


def _dollar_name(start: int, end: int, src) -> Node:
    """The expansion ``$name`` at ``start``-``end``, as tree-sitter-bash makes it."""
    exp = Node("simple_expansion", start, end, True, src)
    exp.children = (Node("$", start, start + 1, False, src), Node("variable_name", start + 1, end, True, src))
    exp.fields = (None, None)
    return exp


def _add_parts(parent: Node, parts: list, start: int, end: int, kids: list, fields: list, field) -> None:
    """Add the pieces of one word to ``parent``'s children: among a concatenation's or a
    string's own, or as a concatenation of their own."""
    if parent.type in ("concatenation", "string", "heredoc_body"):
        kids.extend(parts)
        fields.extend([None] * len(parts))
        return
    word = Node("concatenation", start, end, True, parent.src)
    word.children, word.fields = tuple(parts), (None,) * len(parts)
    kids.append(word)
    fields.append(field)


def _blanked(text: bytes) -> bytearray:
    """``text`` with every byte but its newlines a blank: a copy to parse pieces of the file in,
    at the file's positions."""
    return bytearray(b if b == 10 else 32 for b in text)


def _holds(positions: list[int], start: int, end: int) -> bool:
    k = bisect.bisect_left(positions, start)
    return k < len(positions) and positions[k] < end


def _dollar_parts(dollars: list[int], start: int, end: int, src, text: bytes) -> list[Node]:
    """The word ``start``-``end`` as literals and the ``$name`` expansions at ``dollars``."""
    parts = []
    at = start
    for q in dollars[bisect.bisect_left(dollars, start) :]:
        if q >= end:
            break
        m = _NAME_START.match(text[q + 1 : end].decode("latin-1"))
        if m is None:
            continue
        if q > at:
            parts.append(Node("word", at, q, True, src))
        at = q + 1 + m.end()
        parts.append(_dollar_name(q, at, src))
    if at < end:
        parts.append(Node("word", at, end, True, src))
    return parts


#: nodes whose children are words side by side, and the nodes a word is made of
_WORD_HOLDERS = frozenset({"command", "declaration_command", "for_statement", "file_redirect", "array"})
_WORDISH = frozenset({"word", "concatenation", "simple_expansion", "expansion", "string", "raw_string", "number",
                      "command_substitution", "arithmetic_expansion", "ansi_c_string", "translated_string", "$"})
_NAME_START = re.compile(r"[A-Za-z_][A-Za-z0-9_]*|[0-9]")
#: what a `$` takes of the word after it (a name, one digit, a special parameter)
_NAME_START_BYTES = re.compile(rb"[A-Za-z_][A-Za-z0-9_]*|[0-9@*#?!-]")
#: a word side by side with the one before it (``_rejoin_words``): what the second may be, and
#: the first
_JOINS_SECOND = _WORDISH | {"command_name"}
_JOINS_FIRST = _WORDISH | {"variable_assignment"}


def _regex_operands(root: Node, links: list) -> None:
    """tree-sitter-bash gives ``=~`` in ``[[ ]]`` a lower precedence than ``&&``, ``||`` and
    ``!``: ``[[ a && $x =~ re ]]`` as ``(a && $x) =~ re``, ``[[ ! $x =~ re ]]`` as
    ``(! $x) =~ re``, ``[[ $x =~ "re" || b ]]`` as ``$x =~ ("re" || b)`` (bash: ``a && ($x =~ re)``,
    ``! ($x =~ re)``, ``($x =~ "re") || b``).  Each ``=~`` takes the operands just around it,
    inner ones first.  ``links``: the (node, parent, depth) triples of the tree (``_links``)."""
    # the parents of `=~` expressions, each after its ancestors
    order = list({id(up): up for n, up, _ in links if _is_match(n)}.values())
    for node in reversed(order):  # (children before their parents)
        if any(_is_match(c) for c in node.children):
            node.children = tuple(_regex_fix(c) if _is_match(c) else c for c in node.children)
            node._fmap = None


def _is_match(n: Node) -> bool:
    return n.type == "binary_expression" and len(n.children) > 2 and n.children[1].type == "=~"


def _chain(n: Node) -> bool:
    return n.type == "binary_expression" and len(n.children) > 2 and n.children[1].type in ("&&", "||")


def _regex_left(n: Node) -> bool:
    """Whether ``n``, the left side of a ``=~``, holds an operator that binds less tightly."""
    return _chain(n) or n.type == "unary_expression" and bool(n.children) and n.children[0].type == "!"


def _regex_fix(match: Node) -> Node:
    """The expression ``match`` (``left =~ right``) is, each operand cut to the one next to the
    ``=~``."""
    top, holder = match, None
    right = match.children[2]
    if _chain(right):  # `$x =~ ("re" || b)`: the `=~` takes the chain's first operand
        path = [right]
        while _chain(path[-1].children[0]):
            path.append(path[-1].children[0])
        holder = path[-1]
        leaf = holder.children[0]
        match.children = match.children[:2] + (leaf,) + match.children[3:]
        match.end, match._loc, match._fmap = leaf.end, None, None
        holder.children = (match,) + holder.children[1:]
        for n in path:
            n.start, n._loc, n._fmap = match.start, None, None
        top = right
    if _regex_left(match.children[0]):
        low = _regex_down(match.children[0], match)
        if holder is None:
            top = low
        else:
            holder.children = (low,) + holder.children[1:]
    return top


def _regex_down(left: Node, match: Node) -> Node:
    """``left =~ ...`` (``match``) with the ``=~`` taking the last operand of ``left``."""
    if not _regex_left(left):
        match.children = (left,) + match.children[1:]
        match.start, match._loc, match._fmap = left.start, None, None
        return match
    last = len(left.children) - 1
    left.children = left.children[:last] + (_regex_down(left.children[last], match),)
    left.end, left._loc, left._fmap = match.end, None, None
    return left


def _split_pattern(kids, data: bytes | None = None) -> bool:
    """Whether a case item's patterns hold two pieces with nothing between them (one pattern
    tree-sitter-bash split: see ``_case_patterns``), or a piece holding a ``|`` that ends a
    pattern (``data``: the text the pieces' positions are in)."""
    prev = None
    for c in kids:
        if c.type == ")":
            return False
        if c.type == "extglob_pattern" and data is not None and b"|" in data[c.start : c.end] \
                and _bars(data[c.start : c.end]):
            return True
        if prev is not None and prev.end == c.start and c.type not in _PATTERN_SEPARATORS \
                and prev.type not in _PATTERN_SEPARATORS:
            return True
        if data is not None and c.type == "|" and escaped(data, c.start):
            return True
        prev = c
    return False


def escaped(text: bytes, at: int) -> bool:
    """Whether the byte at ``at`` follows an odd number of backslashes."""
    k = at
    while k > 0 and text[k - 1] == 92:
        k -= 1
    return (at - k) % 2 == 1


def _bars(text: bytes) -> list[int]:
    """Where, in the text of a pattern, a ``|`` ends a pattern: outside parentheses (``@(a|b)``)
    and not escaped."""
    out, depth, i = [], 0, 0
    while i < len(text):
        ch = text[i]
        if ch == 92:  # backslash
            i += 1
        elif ch == 40:
            depth += 1
        elif ch == 41:
            depth = max(depth - 1, 0)
        elif ch == 124 and not depth:
            out.append(i)
        i += 1
    return out


def _pattern_errors(kids) -> list[int]:
    """Where, among a case statement's children, an ERROR ends where a case item starts (the
    first item's pattern cut before a literal after a ``${...}``: ``x${n}`` an ERROR, the item
    ``y) ...``)."""
    return [i for i in range(len(kids) - 1) if kids[i].type == "ERROR" and kids[i + 1].type == "case_item"
            and kids[i].end == kids[i + 1].start]


_PATTERN_SEPARATORS = frozenset({"|", "("})
#: what the pieces of a case pattern are (before an item's `)`)
_PATTERN_PIECES = frozenset({"extglob_pattern", "word", "expansion", "simple_expansion", "string", "raw_string",
                             "ansi_c_string", "concatenation", "command_substitution", "number"}) | _PATTERN_SEPARATORS


def _case_patterns(root: Node, src, problems: list, text: bytes) -> None:
    """tree-sitter-bash cuts a case pattern that starts with a literal before a quoted part or
    a ``${...}`` into several patterns (``*" -S "*)`` as ``*``, ``" -S "`` and ``*``, which match
    any word; ``-${opts}s)`` as ``-`` and ``${opts}``), and makes an ERROR of a literal after the
    ``${...}`` (``x${n}y)``).  The pieces between two ``|`` are one pattern: they become one
    concatenation, each ERROR piece the word it is, parsed alone (left as it is, with its
    syntax error, when it is not one word)."""
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type == "case_statement":
            kids, fields = list(node.children), list(node.fields)
            for i in reversed(_pattern_errors(kids)):
                err, item = kids[i], kids[i + 1]
                if all(c.type in _PATTERN_PIECES for c in err.children):
                    # the ERROR holds the item's first pieces
                    item.children, item.fields = err.children + item.children, ("value",) * len(err.children) + item.fields
                    item.start, item._loc, item._fmap = err.start, None, None
                    problems[:] = [p for p in problems if not err.start <= p.loc.start < err.end]
                    del kids[i], fields[i]
            node.children, node.fields, node._fmap = tuple(kids), tuple(fields), None
        stack.extend(node.children)
        if node.type != "case_item" or not _split_pattern(node.children, text):
            continue
        kids, fields = [], []
        for c, f in zip(node.children, node.fields):
            cut = _bars(text[c.start : c.end]) if c.type == "extglob_pattern" and not kids.count(")") else []
            at = c.start
            for b in cut:  # `-[n|d|s]`: three patterns (a `|` ends one but inside parentheses)
                kids += [Node("extglob_pattern", at, c.start + b, True, src), Node("|", c.start + b, c.start + b + 1, False, src)]
                fields += ["value", None]
                at = c.start + b + 1
            kids.append(c if not cut else Node("extglob_pattern", at, c.end, True, src))
            fields.append(f)
        at = next(i for i, c in enumerate(kids) if c.type == ")")
        out, out_fields, group = [], [], []

        def close():
            if len(group) == 1 and group[0].type != "ERROR":
                out.append(group[0])
                out_fields.append("value")
            elif group:
                pieces = [_word_alone(c, src, problems, text) if c.type == "ERROR" else c for c in group]
                if any(p is None for p in pieces):
                    out.extend(group)
                    out_fields.extend(["value"] * len(group))
                else:
                    word = Node("concatenation", group[0].start, group[-1].end, True, src)
                    word.children, word.fields = tuple(pieces), (None,) * len(pieces)
                    out.append(word)
                    out_fields.append("value")
            group.clear()

        for c, f in zip(kids[:at], fields[:at]):
            if c.type == "|" and group and group[-1].end == c.start and escaped(text, c.start):
                group.append(Node("word", c.start, c.end, True, src))  # `a\|b`: one pattern
                continue
            if c.type in _PATTERN_SEPARATORS or group and group[-1].end != c.start:
                close()
            if c.type in _PATTERN_SEPARATORS:
                out.append(c)
                out_fields.append(f)
            else:
                group.append(c)
        close()
        node.children, node.fields, node._fmap = tuple(out) + tuple(kids[at:]), tuple(out_fields) + tuple(fields[at:]), None


def _word_alone(err: Node, src, problems: list, text: bytes) -> Node | None:
    """The word that the text of the ERROR node ``err`` is, parsed on its own (its syntax error
    dropped); None when it is not one word."""
    found = _first_word(text[err.start : err.end])
    if found is None or found[0].end_byte != 2 + err.end - err.start:
        return None
    problems[:] = [p for p in problems if not err.start <= p.loc.start < err.end]
    return _shifted(*found, err.start, src)


def _first_word(piece: bytes):
    """tree-sitter's tree of the first word of ``piece``, parsed as a command's argument (``: ``
    before it), and the text parsed; None when that word has an error in it."""
    line = b": " + piece + b"\n"
    ts_root = _parser().parse(line).root_node
    cmd = ts_root.child(0) if ts_root.child_count else None
    while cmd is not None and cmd.type in ("list", "pipeline", "redirected_statement") and cmd.child_count:
        cmd = cmd.child(0)  # (`x${o}y && ...`)
    if cmd is None or cmd.type != "command" or cmd.child_count < 2 or cmd.child(0).type != "command_name":
        return None
    arg = cmd.child(1)
    if arg.start_byte != 2 or arg.has_error or arg.type in ("file_redirect", "heredoc_redirect", "herestring_redirect"):
        return None
    return arg, line


def _shifted(arg, line: bytes, at: int, src) -> Node:
    """Our tree of ``arg`` (from ``_first_word``), moved to the file's position ``at``."""
    word = _convert(arg, src, [], line, line)[0]
    shift = at - 2
    stack = [word]
    while stack:
        n = stack.pop()
        n.start, n.end, n._loc = n.start + shift, n.end + shift, None
        stack.extend(n.children)
    return word


def _rejoin_words(root: Node, data: bytes) -> None:
    """tree-sitter-bash splits some unquoted words in two where bash has one (besides
    ``_split_dollars``'s): a word before a backquoted command (```/usr/`cmd`/x```; in an
    assignment, ```X=/d/`cmd` ``` runs the command's output), and ``$"..."`` (a ``$`` word, then
    the string).  Side-by-side words with no blank between them are joined again; a ``$`` before
    a string is dropped, as bash does outside a translation locale."""
    stack = [root]
    while stack:
        node = stack.pop()
        stack.extend(node.children)
        if node.type in _WORD_HOLDERS:
            _rejoin_children(node, data)
        elif node.type == "concatenation":
            kids = node.children
            drop = [i for i in range(len(kids) - 1) if kids[i].type == "$" and kids[i + 1].type == "string"]
            if drop:  # `a$"b"c`
                node.children = tuple(k for i, k in enumerate(kids) if i not in drop)
                node.fields = tuple(f for i, f in enumerate(node.fields) if i not in drop)
                node._fmap = None


def _rejoin_children(node: Node, data: bytes) -> None:
    kids, fields = list(node.children), list(node.fields)
    i = 0
    changed = False
    while i < len(kids) - 1:
        a, b = kids[i], kids[i + 1]
        inner = b.children[0] if b.type == "command_name" and b.children else b
        if a.end != b.start or inner.type not in _WORDISH:
            i += 1
            continue
        if a.type in _WORDISH:
            joined = _joined(a, inner, data)
        elif a.type == "variable_assignment" and a.children and a.children[-1].type in _WORDISH:
            # `X=$D/$N.log`: the value ran short, the rest is the next word (the command's name)
            value = _joined(a.children[-1], inner, data)
            if value is None:
                i += 1
                continue
            a.children = a.children[:-1] + (value,)
            a.end, a._fmap = value.end, None
            joined = a
        else:
            joined = None
        if joined is None:
            i += 1
            continue
        kids[i : i + 2] = [joined]
        if joined is not a:
            fields[i] = fields[i] or fields[i + 1]  # (`$"x"`: the `$` has no field)
        del fields[i + 1]
        changed = True
    if not changed:
        return
    if node.type == "command" and "name" not in fields:
        # the name was taken into an assignment's value: the first argument is the name
        for j, f in enumerate(fields):
            if f == "argument":
                name = Node("command_name", kids[j].start, kids[j].end, True, kids[j].src)
                name.children, name.fields = (kids[j],), (None,)
                kids[j], fields[j] = name, "name"
                break
    node.children, node.fields, node._fmap = tuple(kids), tuple(fields), None
    if node.type == "command" and "name" not in fields and all(k.type == "variable_assignment" for k in kids):
        # nothing but assignments left: a statement of assignments
        node.type = "variable_assignment" if len(kids) == 1 else "variable_assignments"
        if len(kids) == 1:
            only = kids[0]
            node.children, node.fields = only.children, only.fields


def _joined(a: Node, b: Node, data: bytes) -> Node | None:
    """One word of the words ``a`` and ``b`` (side by side, in the text ``data`` that was parsed), or None."""
    left = list(a.children) if a.type == "concatenation" else [a]
    right = list(b.children) if b.type == "concatenation" else [b]
    if left[-1].type == "$":
        first = right[0]
        m = _NAME_START_BYTES.match(data, first.start, first.end) if first.type in ("word", "number") and not first.children else None
        if m:  # `text"a"$X/q`, `t$(f)$1`: the grammar ended the word at the `$`, the name begins the next
            dollar = left.pop()
            cut = m.end()
            right[:1] = [_dollar_name(dollar.start, cut, a.src)] + ([Node(first.type, cut, first.end, True, a.src)]
                                                                   if cut < first.end else [])
        elif first.type != "string":
            return None
        else:
            left.pop()  # `$"..."`: the string
    parts = left + right
    if len(parts) == 1 and parts[0].start == a.start:
        return parts[0]
    word = Node("concatenation", a.start, parts[-1].end, True, a.src)
    word.children, word.fields = tuple(parts), (None,) * len(parts)
    return word


_BACKQUOTED = re.compile(rb"`((?:[^`\\]|\\.)*)`", re.S)


def _operand_backquotes(root: Node, src, problems: list, text: bytes) -> None:
    """tree-sitter-bash takes a backquoted command in the word of ``${X:-word}`` (``${H:-`cmd`}``)
    for text.  Each is parsed (one parse of the file's text with everything else blanked, so
    positions stay the file's) and put in the word as the command substitution it is."""
    found = []  # (expansion, word, [(start, end) of each backquoted command's text])
    for n in _nodes_of(root, "expansion"):
        for c in n.children:
            if c.type == "word":
                spans = [(m.start(1), m.end(1)) for m in _BACKQUOTED.finditer(text, c.start, c.end)]
                if spans:
                    found.append((n, c, spans))
    if not found:
        return
    buf = _blanked(text)
    for _, _, spans in found:
        for a, b in spans:
            buf[a:b] = text[a:b]
            buf[b] = ord(";")  # (the closing backquote: ends the command there)
    buf = bytes(buf)
    tops = [c for c in _parser().parse(buf).root_node.children if c.type != ";"]
    starts = [c.start_byte for c in tops]
    for exp, word, spans in found:
        parts, at = [], word.start
        for a, b in spans:
            if a - 1 > at:
                parts.append(Node("word", at, a - 1, True, src))
            sub = Node("command_substitution", a - 1, b + 1, True, src)
            inner = []
            for c in tops[bisect.bisect_left(starts, a) :]:
                if c.start_byte >= b:
                    break
                inner.append(_convert(c, src, problems, buf, text)[0])
            sub.children = (Node("`", a - 1, a, False, src), *inner, Node("`", b, b + 1, False, src))
            sub.fields = (None,) * len(sub.children)
            parts.append(sub)
            at = b + 1
        if at < word.end:
            parts.append(Node("word", at, word.end, True, src))
        i = exp.children.index(word)
        exp.children = exp.children[:i] + tuple(parts) + exp.children[i + 1 :]
        exp.fields = exp.fields[:i] + (exp.fields[i],) * len(parts) + exp.fields[i + 1 :]
        exp._fmap = None


class _Edits:
    """Children of tree nodes replaced one for one, and found by position, in time that does not
    grow with their number of siblings (a file of 20,000 repaired statements); ``done`` writes
    the new children into the nodes."""

    def __init__(self):
        self._lists: dict[int, tuple[Node, list, dict, list]] = {}

    def _of(self, n: Node):
        e = self._lists.get(id(n))
        if e is None:
            kids = list(n.children)
            e = self._lists[id(n)] = (n, kids, {id(c): i for i, c in enumerate(kids)}, [c.start for c in kids])
        return e

    def children(self, n: Node):
        e = self._lists.get(id(n))
        return n.children if e is None else e[1]

    def replace(self, parent: Node, old: Node, new: Node) -> None:
        _, kids, index, starts = self._of(parent)
        i = index.pop(id(old))
        kids[i], index[id(new)], starts[i] = new, i, new.start

    def set(self, n: Node, kids: list, fields: tuple) -> None:
        """Give ``n`` new children (any number)."""
        self._lists.pop(id(n), None)
        n.children, n.fields, n._fmap = tuple(kids), fields, None

    def at(self, n: Node, pos: int) -> Node | None:
        """The child of ``n`` that holds the byte ``pos``."""
        _, kids, _, starts = self._of(n)
        i = bisect.bisect_right(starts, pos) - 1
        return kids[i] if i >= 0 and kids[i].end > pos else None

    def done(self) -> None:
        for n, kids, _, _ in self._lists.values():
            n.children, n._fmap = tuple(kids), None


def _relocate_redirects(root: Node, redirected: list, links: list) -> None:
    """tree-sitter-bash gives the redirections after the last command of a list or pipeline to
    the whole list (``a && b > f`` as ``(a && b) > f``; ``a && b 2>&1 | c`` as
    ``((a && b) 2>&1) | c``), where bash gives them to that command (``a && (b > f)``,
    ``a && ((b 2>&1) | c)``).  Each such redirection is moved to the command it follows, and a
    pipeline that took a list for its first part takes that list's last part.  ``links``:
    the (node, parent, depth) triples of the tree (``_links``: they hold every redirected
    statement and pipeline, the only nodes whose parents are asked for).  (``_regex_operands``
    may have moved nodes since: only inside ``[[ ]]``, where a statement is always under a
    command substitution, so the depths of two statements whose edits touch the same nodes keep
    their order.)"""
    parent: dict[int, Node] = {}
    found = []
    for c, n, d in links:
        parent[id(c)] = n
        if c.type == "redirected_statement" and c.children and c.fields[0] == "body" \
                and c.children[0].type in ("list", "pipeline"):
            found.append((d, c))

    edits = _Edits()

    def put(up: Node, old: Node, new: Node) -> None:
        edits.replace(up, old, new)
        parent[id(new)] = up

    where = {id(n): i for i, n in enumerate(redirected)}
    for _, r in sorted(found, key=lambda x: -x[0]):  # the innermost first
        kids = edits.children(r)  # (an inner statement's move may have replaced its body)
        body, redirects, rfields = kids[0], tuple(kids[1:]), r.fields[1:]
        path = [body]  # down to the last command of the body
        while path[-1].type in ("list", "pipeline", "negated_command"):
            path.append([c for c in edits.children(path[-1]) if c.named][-1])
        last = path[-1]
        if last.type == "redirected_statement":
            last.children, last.fields, last._fmap = tuple(edits.children(last)) + redirects, last.fields + rfields, None
            last.end = r.end
            held = last
        else:
            held = Node("redirected_statement", last.start, r.end, True, root.src)
            held.children, held.fields = (last, *redirects), ("body", *rfields)
            put(path[-2], last, held)
        for n in path[:-1]:
            n.end = max(n.end, r.end)
        if id(r) in where:
            redirected[where[id(r)]] = held
        up = parent[id(r)]
        put(up, r, body)
        if up.type != "pipeline" or next((c for c in edits.children(up) if c.named), None) is not body:
            continue
        # `a && b 2>&1 | c`: the pipeline is `b 2>&1 | c`
        kids = list(edits.children(up))
        at = kids.index(body)
        rest, rest_fields = kids[at + 1 :], up.fields[at + 1 :]
        if body.type == "pipeline":
            edits.set(up, list(edits.children(body)) + rest, body.fields + rest_fields)
            continue
        edits.set(up, kids, up.fields)
        tail = [c for c in edits.children(body) if c.named][-1]
        pipe = Node("pipeline", tail.start, up.end, True, root.src)
        if tail.type == "pipeline":  # (`a || b | c > f | d`: one pipeline `b | c > f | d`)
            pipe.children, pipe.fields = (*edits.children(tail), *rest), (*tail.fields, *rest_fields)
        else:
            pipe.children, pipe.fields = (tail, *rest), (None, *rest_fields)
        put(body, tail, pipe)
        body.end = up.end
        put(parent[id(up)], up, body)
    edits.done()


_BASE_PREFIX = re.compile(rb"-?[0-9]+#")


def _heredoc_bodies(root: Node, src, text: bytes, problems: list) -> None:
    """A here-document's body starts at its first line (tree-sitter-bash: after that line's
    blanks, which were lost).  And tree-sitter-bash leaves some expansions of a here-document
    (unquoted delimiter) as its text — ``${A[@]}`` or ``${X:-d}`` starting a line, every
    expansion after a backslash-newline — which bash expands.  A body that holds an unescaped
    ``${``, ``$(`` or backquote outside the expansions the grammar found is parsed again as the
    text of a double-quoted string (what it is to bash, but that a ``"`` outside expansions is
    text: it is parsed as a ``.``, which ends a name), one byte for one, and its parts are the
    expansions and the text of that string."""
    for h in _nodes_of(root, "heredoc_redirect"):
        start = next((c for c in h.children if c.type == "heredoc_start"), None)
        body = next((c for c in h.children if c.type == "heredoc_body"), None)
        if start is None or body is None:
            continue
        end = h.children[-1]
        if end.type == "heredoc_end" and end.end > end.start \
                and text[end.start : end.end].strip(b" \t\n") != re.sub(rb"['\"\\\\]", b"", text[start.start : start.end]):
            # (tree-sitter-bash took a backslash before the delimiter's line for a line continuation)
            problems.append(ParseProblem(end.loc, "recipelint cannot tell where this here-document ends: not its "
                                                  "delimiter (tree-sitter-bash)"))
        line = text.find(b"\n", start.end) + 1
        if 0 < line < body.start and not text[line : body.start].strip(b" \t\n"):
            body.start, body._loc, body._text = line, None, None  # (the grammar starts it after its first line's blanks)
        if body.start < 3 or body.end >= len(text) or any(q in start.text for q in "'\"\\"):
            continue
        a, b = body.start, body.end
        covered = [(c.start, c.end) for c in body.children if c.type in _EXPANSIONS]
        if not any(not any(x <= m.start(1) < y for x, y in covered) for m in _HEREDOC_DOLLAR.finditer(text, a, b)):
            continue
        buf = bytearray(b" " * len(text))
        buf[a - 3 : a] = b'x="'
        buf[a:b] = text[a:b]
        for i in _heredoc_text_quotes(text, a, b):
            buf[i] = ord(".")
        buf[b] = ord('"')
        tree = _parser().parse(bytes(buf))
        string = tree.root_node.descendant_for_byte_range(a - 1, b + 1)
        if string is None or string.type != "string" or string.start_byte != a - 1 or string.end_byte != b + 1 \
                or string.has_error:
            continue
        parts = _convert(string, src, [], bytes(buf), text)[0].children[1:-1]
        body.children = tuple(Node("heredoc_content", c.start, c.end, True, src) if c.type == "string_content" else c
                              for c in parts)
        body.fields, body._fmap = (None,) * len(body.children), None


#: an unescaped `${`, `$(` or backquote (group 1)
_HEREDOC_DOLLAR = re.compile(rb"\\.|(\$[{(]|`)", re.S)


def _heredoc_text_quotes(text: bytes, a: int, b: int) -> list[int]:
    """Offsets of the ``"`` in a here-document's body ``text[a:b]`` that are its text: not inside
    an expansion (``${U:-"d"}``, where bash removes them as in ``"${U:-"d"}"``), a command
    substitution or backquotes (``$(echo "a  b")``, where they quote)."""
    out: list[int] = []
    stack: list[bytes] = []  # the constructs open: `{` ${...}, `(` $(...) or (, `` ` ``, `"`, `'`
    i = a
    while i < b:
        ch = text[i : i + 1]
        top = stack[-1] if stack else b""
        if top == b"'":
            if ch == b"'":
                stack.pop()
        elif ch == b"\\":
            i += 1
        elif ch == b"$" and text[i + 1 : i + 2] in (b"{", b"("):
            stack.append(text[i + 1 : i + 2])
            i += 1
        elif ch == b"`":
            if top == b"`":
                stack.pop()
            else:
                stack.append(ch)
        elif ch == b'"':
            if not stack:
                out.append(i)
            elif top == b'"':
                stack.pop()
            else:
                stack.append(ch)
        elif top in (b"(", b"`") and ch == b"'":
            stack.append(ch)  # (in a command: a single-quoted string; in `${...}` and `"..."`: text)
        elif top == b"(" and ch == b"(":
            stack.append(ch)
        elif (top == b"(" and ch == b")") or (top == b"{" and ch == b"}"):
            stack.pop()
        i += 1
    return out


_NAME_FIRST = re.compile(rb"[A-Za-z_]")
#: backslash-newlines, then characters that go on with a name (group 1)
_NAME_GOES_ON = re.compile(rb"(?:\\\n)+([A-Za-z0-9_]+)")
#: `$name`, backslash-newlines, a name character (the cheap test)
_CONTINUED_NAME = re.compile(rb"\$[A-Za-z_][A-Za-z0-9_]*(?:\\\n)+[A-Za-z0-9_]")


def _continued_names(body: Node, text: bytes) -> None:
    """``$X``, a backslash-newline, ``t`` in a here-document or a double-quoted string is ``$Xt``
    (bash removes the backslash-newline before it reads the name; tree-sitter-bash ends the
    name): the name takes the characters after it, and its text is what bash reads."""
    kids = list(body.children)
    changed = False
    for i in range(len(kids) - 1):
        exp, nxt = kids[i], kids[i + 1]
        if exp.type != "simple_expansion" or nxt.type not in ("heredoc_content", "string_content") or nxt.start != exp.end \
                or len(exp.children) != 2 or exp.children[1].type != "variable_name" \
                or not _NAME_FIRST.match(text, exp.children[1].start):
            continue  # (`$1`, newline-joined to `0`, is `${1}0`)
        at = nxt.start
        while m := _NAME_GOES_ON.match(text, at, nxt.end):
            at = m.end()
        if at == nxt.start:
            continue
        name = exp.children[1]
        name._text = text[name.start : at].replace(b"\\\n", b"").decode("utf-8", "replace")
        name.end = exp.end = nxt.start = at
        name._loc = exp._loc = exp._text = nxt._loc = nxt._text = None
        changed = True
    if changed:
        keep = [k.end > k.start or k.type not in ("heredoc_content", "string_content") for k in kids]
        body.children = tuple(k for k, y in zip(kids, keep) if y)
        body.fields, body._fmap = tuple(f for f, y in zip(body.fields, keep) if y), None


def _based_numbers(root: Node, problems: list, data: bytes) -> None:
    """tree-sitter-bash parses ``10#${x}`` (a number in base 10 whatever leading zeros ``x``
    has: ``$((10#$HOUR))``) as a number around the expansion, but makes an ERROR of the ``10#``
    of ``10#$x`` (or drops it: ``declare -i N=10#$x``).  Give ``10#$x`` the tree of ``10#${x}``:
    the prefix and the expansion after it (the first token of the next node: in ``10#$x > 5``
    the comparison starts with ``$x``) become one number, and the error is no error."""
    if b"#$" not in data:
        return
    fixed: set[int] = set()  # where the ERRORs made no error start
    stack = [root]
    while stack:
        node = stack.pop()
        kids, fields = list(node.children), list(node.fields)
        out, out_fields = [], []
        for c, f in zip(kids, fields):
            prev = out[-1] if out else None
            error = prev is not None and prev.type == "ERROR" and prev.end == c.start
            if error:
                start = prev.start
                ok = _BASE_PREFIX.fullmatch(data, prev.start, prev.end)
            elif node.type in _GAP_IS_CONTENT or node.type == "number":  # (there a gap is text)
                ok = None
            else:
                start = c.start - 1
                while start > 0 and 48 <= data[start - 1] <= 57:  # the digits before the `#`
                    start -= 1
                if start > 0 and data[start - 1] == 45:
                    start -= 1
                ok = _BASE_PREFIX.fullmatch(data, start, c.start) and start >= (prev.end if prev else node.start)
            if ok:
                chain = [c]
                while chain[-1].type != "simple_expansion" and chain[-1].children and chain[-1].children[0].start == c.start:
                    chain.append(chain[-1].children[0])
                x = chain[-1]
                if x.type == "simple_expansion" and x.start == c.start:
                    num = Node("number", start, x.end, True, node.src)
                    num.children, num.fields = (x,), (None,)
                    if len(chain) == 1:
                        c = num
                    else:
                        holder = chain[-2]
                        holder.children = tuple(num if k is x else k for k in holder.children)
                        holder._fmap = None
                        for n in chain[:-1]:
                            n.start = start
                    if error:
                        fixed.update(range(prev.start, prev.end))
                        out.pop()
                        out_fields.pop()
            out.append(c)
            out_fields.append(f)
        if len(out) != len(kids) or any(a is not b for a, b in zip(out, kids)):
            node.children, node.fields, node._fmap = tuple(out), tuple(out_fields), None
        stack.extend(node.children)
    if fixed:
        problems[:] = [p for p in problems if p.loc.start not in fixed]


def _words_after_redirects(stmt: Node) -> None:
    """bash passes the words after a redirection's target to the command (``cmd a > f b``
    runs ``cmd a b``; so do ``cmd <<EOF b`` and ``[ x > f ]``'s ``]``); tree-sitter-bash makes
    them more targets of the redirection (or arguments of the here-document).  Move them to the
    command, after its own words."""
    body = stmt.field("body")
    if body is None or body.type != "command":
        return
    moved: list[Node] = []
    for r in stmt.children:
        if r.type == "file_redirect":
            moved += _take_fields(r, "destination", 1)
        elif r.type == "heredoc_redirect":
            moved += _take_fields(r, "argument", 0)
            for c in r.children:  # (`cmd <<EOF > out b`: the file redirection is the here-document's)
                if c.type == "file_redirect":
                    moved += _take_fields(c, "destination", 1)
    if moved:
        moved.sort(key=lambda n: n.start)
        body.children = body.children + tuple(moved)
        body.fields = body.fields + ("argument",) * len(moved)
        body.end = max(body.end, moved[-1].end)


#: ``{name}`` glued to a redirection operator (the cheap test before ``_named_descriptors``)
_NAMED_FD = re.compile(rb"\{[A-Za-z_][A-Za-z0-9_]*\}[<>]")


def _named_descriptors(root: Node) -> None:
    """``exec {fd}>file``: bash opens a new file descriptor and sets ``fd`` to its number;
    tree-sitter-bash reads ``{fd}`` as a word of the command (``exec`` then ran a command named
    ``{fd}``, replacing the shell).  Such a word, glued to the redirection after it, becomes that
    redirection's descriptor (a ``file_descriptor`` holding ``{fd}``)."""
    for n in _nodes_of(root, "redirected_statement"):
        body = n.field("body")
        if body is None or body.type != "command":
            continue
        words = {c.end: c for c, f in zip(body.children, body.fields) if f == "argument" and _NAME_FD_WORD.fullmatch(c.text)}
        if not words:
            continue
        taken = set()
        for r in n.children:
            w = words.get(r.start)
            if r.type != "file_redirect" or w is None or r.field("descriptor") is not None:
                continue
            fd = Node("file_descriptor", w.start, w.end, True, root.src)
            r.children, r.fields, r.start, r._loc, r._fmap = (fd,) + r.children, ("descriptor",) + r.fields, w.start, None, None
            taken.add(id(w))
        if taken:
            kept = [(c, f) for c, f in zip(body.children, body.fields) if id(c) not in taken]
            body.children, body.fields, body._fmap = tuple(c for c, _ in kept), tuple(f for _, f in kept), None
            body.end, body._loc = max(c.end for c, _ in kept), None


_NAME_FD_WORD = re.compile(r"\{[A-Za-z_][A-Za-z0-9_]*\}")


def _take_fields(node: Node, name: str, keep: int) -> list[Node]:
    """Remove from ``node`` its children of field ``name`` after the first ``keep``; return them."""
    at = [i for i, f in enumerate(node.fields) if f == name][keep:]
    if not at:
        return []
    taken = [node.children[i] for i in at]
    drop = set(at)
    node.children = tuple(c for i, c in enumerate(node.children) if i not in drop)
    node.fields = tuple(f for i, f in enumerate(node.fields) if i not in drop)
    if node.children:
        node.end = node.children[-1].end
    return taken


#: a line that starts with two assignments (``A=1 B="x y"``), and two pipes in the text: the cheap
#: tests before ``_end_lines`` asks tree-sitter for commands that may run on past a line's end
_ASSIGNED_VALUE = rb"""(?:"(?:[^"\\\n]|\\.)*"|'[^'\n]*'|\$\(\([^\n]*?\)\)|\$\([^()\n]*\)|\$\{[^}\n]*\}|\([^()\n]*\)|`[^`\n]*`|\\.|[^\s"'`$()\\;&|<>]|\$)*+"""
_ASSIGNED_NAME = rb"[A-Za-z_][A-Za-z0-9_]*(?:\[[^\]\n]*\])?\+?="
_ASSIGN_LINE = re.compile(rb"(?m)^[ \t]*" + _ASSIGNED_NAME + _ASSIGNED_VALUE + rb"[ \t]+" + _ASSIGNED_NAME)
#: two assignments after an operator or keyword (`cmd; A=1 B=2`, `then A=1 B=2`; a word ending in
#: `o`, `e` or `n` too: a hint only)
_ASSIGN_MID = re.compile(rb"[;&|{(oen][ \t]*" + _ASSIGNED_NAME + _ASSIGNED_VALUE + rb"[ \t]+" + _ASSIGNED_NAME)
#: the same after a `;` ``_end_lines`` wrote (slower: a line start is no longer its anchor)
_ASSIGN_AFTER = re.compile(rb"(?m)(?:^|;)[ \t]*" + _ASSIGNED_NAME + _ASSIGNED_VALUE + rb"[ \t]+" + _ASSIGNED_NAME)


def _end_lines(tree, data: bytes):
    """tree-sitter-bash 0.25 lets a command run on past the end of its line in two shapes, where
    bash ends the statement at the newline:

    * a line of several assignments (``A=1 B=2``) and the statement on the next line become one
      command with an environment prefix (``A=1 B=2 echo x``; a ``{`` on the next line even
      becomes a command name);
    * a pipeline of three or more commands followed, on any later line, by ``&&``, ``||`` or a
      redirection: the pipeline's last command takes the words of the lines after it as
      arguments (``a | b | c`` newline ``d || e`` is read as ``a | (b | c d || e)``).

    Such a line is parsed again with a ``;`` in place of the blank (or newline) that ends its last
    word — one byte for one, so every position stays the file's.  Returns the tree and the text
    it parsed."""
    for round_ in range(8):  # each round ends every such line found; a new parse may show more
        assigns = (_ASSIGN_AFTER if round_ else _ASSIGN_LINE).search(data) is not None \
            or (not round_ and _ASSIGN_MID.search(data) is not None)
        pipes = data.count(b"|") - 2 * data.count(b"||") >= 2
        if not (assigns or pipes):
            return tree, data
        ends = []
        for n in _run_on_commands(tree.root_node, assigns, pipes):
            at = _line_end(n, data)
            if at is not None:
                ends.append(at)
        if not ends:
            return tree, data
        tree, data = _reparse(data, ends, b";")
    return tree, data


_REDIRECT = rb"""(?:[0-9]*(?:>>|>&|>\||>|<|&>>|&>)[ \t]*(?:&?[0-9]+-?|&-|"(?:[^"\\\n]|\\.)*"|'[^'\n]*'|[^\s;&|()<>'"]+))"""
_STATEMENT_START = rb"(?m)(?:^|;|&&|\|\||\bthen|\bdo|\belse|[{(])[ \t]*"
_ASSIGNMENTS = rb"(" + _ASSIGNED_NAME + _ASSIGNED_VALUE + rb"(?:[ \t]+" + _ASSIGNED_NAME + _ASSIGNED_VALUE + rb")*)"
_REDIRECTS = rb"(" + _REDIRECT + rb"(?:[ \t]*" + _REDIRECT + rb")*)"
_STATEMENT_END = rb"(?=[ \t]*(?:$|;|&|\||\)|\}|#))"
#: a statement of assignments and redirections, no command (``X=$(cmd) 2>/dev/null || true``):
#: assignments and redirections in groups 1 and 2, or (``2>/dev/null X=1``) 4 and 3
_ASSIGN_REDIRECT = re.compile(
    _STATEMENT_START + rb"(?:" + _ASSIGNMENTS + rb"[ \t]+" + _REDIRECTS + rb"|" + _REDIRECTS + rb"[ \t]*" + _ASSIGNMENTS
    + rb")" + _STATEMENT_END)
#: the cheap test before it: an assignment starting a statement, and a `<` or `>` later on its
#: line; or a statement starting with a redirection
_ASSIGN_REDIRECT_HINT = re.compile(rb"(?m)(?:^|[;&|{(]|then|do|else)[ \t]*(?:" + _ASSIGNED_NAME
                                   + rb"[^\n]*[ \t][0-9&]*[<>]|[0-9&]*[<>][^\n]*=)")
#: where a match is text, not a statement
_NOT_CODE = frozenset({"heredoc_body", "heredoc_content", "string", "raw_string", "comment", "ansi_c_string"})


def _redirected_assignments(tree, data: bytes):
    """tree-sitter-bash has no statement of assignments with a redirection and no command
    (``X=$(cmd) 2>/dev/null``): it takes the next token for the command's name — the next
    line's command (``echo`` of the line after, the ``fi`` closing an ``if``: no error shown),
    an operator (``|| true``: an ERROR), or nothing (a MISSING name).  Such redirections are
    blanked, the text parsed again (one byte for one: positions stay the file's), and
    ``_attach_redirects`` puts them back around the assignments.  Returns the tree, the text it
    parsed and, for each such statement, (assignments' start and end, redirections' start and
    end)."""
    moved, blank, done = [], [], -1
    for hint in _ASSIGN_REDIRECT_HINT.finditer(data):
        if hint.start() < done:
            continue
        done = data.find(b"\n", hint.end())
        done = len(data) if done < 0 else done
        for m in _ASSIGN_REDIRECT.finditer(data, data.rfind(b"\n", 0, hint.start()) + 1, done):
            _redirected_statement(tree, m, moved, blank)
    if not moved:
        return tree, data, []
    tree, data = _reparse(data, blank, b" ")
    return tree, data, moved


def _redirected_statement(tree, m, moved: list, blank: list) -> None:
    """Note the statement ``m`` matched unless it lies in text (a here-document, a string)."""
    a, r = (1, 2) if m.start(1) >= 0 else (4, 3)
    at = tree.root_node.descendant_for_byte_range(m.start(a), m.start(a))
    while at is not None and at.type not in _NOT_CODE:
        at = at.parent
    if at is None:
        moved.append((m.start(a), m.end(a), m.start(r), m.end(r)))
        blank += range(m.start(r), m.end(r))


def _attach_redirects(root: Node, moved: list, src, problems: list, data: bytes, text: bytes) -> None:
    """Put each redirection ``_redirected_assignments`` blanked back, after the assignments
    it belongs to: ``redirected_statement(body: variable_assignment(s), redirect: ...)``."""
    if not moved:
        return
    # the redirections alone, each after a `:` where its assignments were (one parse for all;
    # a `;` before a `:` that shares its line with the one before)
    buf = _blanked(text)
    last = -1
    for a, _, c, d in sorted(moved):
        buf[a] = ord(":")
        first = min(a, c)
        if last > text.rfind(b"\n", 0, first):
            buf[first - 1] = ord(";")
        buf[c:d] = text[c:d]
        last = max(a + 1, d)
    buf = bytes(buf)
    redirs = _parser().parse(buf).root_node
    want = {(a, b): (c, d) for a, b, c, d in moved}
    stack = [(root, None)]
    while stack and want:
        node, up = stack.pop()
        kids = list(node.children)
        changed = False
        for i, c in enumerate(kids):
            span = want.pop((c.start, c.end), None) if c.type in ("variable_assignment", "variable_assignments") else None
            if span is None:
                continue
            # `: 2>f` is a redirected statement, `2>f :` a command with a redirection
            stmt = redirs.descendant_for_byte_range(c.start, c.start)
            while stmt is not None and stmt.type != "redirected_statement" \
                    and not (stmt.type == "command" and stmt.child(0).type == "file_redirect"):
                stmt = stmt.parent
            if stmt is None or stmt.has_error:
                problems.append(ParseProblem(Loc(src, span[0], span[1]), "syntax error in a redirection"))
                continue
            redirects = [_convert(r, src, problems, buf, text)[0] for r in stmt.children if r.type == "file_redirect"]
            parts = sorted([(c.start, "body", c)] + [(r.start, "redirect", r) for r in redirects], key=lambda x: x[0])
            wrap = Node("redirected_statement", parts[0][0], max(p[2].end for p in parts), True, src)
            wrap.children = tuple(p[2] for p in parts)
            wrap.fields = tuple(p[1] for p in parts)
            kids[i] = wrap
            changed = True
            at = (node, up)
            while at is not None:  # (`a && X=1 2>f`: the list ended before the redirection)
                at[0].start, at[0].end = min(at[0].start, wrap.start), max(at[0].end, wrap.end)
                at = at[1]
        if changed:
            node.children, node._fmap = tuple(kids), None
        stack.extend((c, (node, up)) for c in node.children)


def _arithmetic_commas(tree, data: bytes):
    """tree-sitter-bash has no comma operator inside parentheses in arithmetic
    (``$(( (a=1, b=2) + 1 ))``): an ERROR, and often the lines after it.  When the parse has an
    error, each such comma is parsed again as a ``+`` (one byte for one; the evaluator reads the
    expression's text from the file, commas and all).  Returns the tree and the text it parsed."""
    if not tree.root_node.has_error or b"((" not in data or b"," not in data:
        return tree, data
    at, i, n = [], 0, len(data)
    while True:
        i = data.find(b"((", i)
        if i < 0:
            break
        level, j = 2, i + 2
        while j < n and level and j - i < 4000:
            ch = data[j]
            if ch == 40:  # (
                level += 1
            elif ch == 41:  # )
                level -= 1
            elif ch == 44 and level > 2:  # , inside parentheses of its own
                at.append(j)
            j += 1
        i = j
    return _reparse(data, at, b"+") if at else (tree, data)


#: a line that starts with a backslash-escaped character (`\cp a b`, `\. lib.sh`, `\$HOME/x`)
_ESCAPED_LINE_START = re.compile(rb"\n(\\)[^\n]")


def _escaped_line_starts(tree, data: bytes):
    """tree-sitter-bash joins a line that starts (at its first column) with a backslash-escaped
    character to the statement before it (``x=1`` newline ``\\cp a b`` is one command: ``cp a b``
    with ``x=1`` in its environment; ``emit a`` newline ``\\$x b`` runs ``emit a $x b``, and
    ``\\ b`` ``emit a b``) — a here-document's first line too (``cat <<EOF`` newline
    ``\\$HOME/bin`` runs ``cat $HOME/bin``, and the body starts at the next line) —, with no
    error shown.  Each such backslash inside a
    word that began on an earlier line is parsed again as a letter, and the character it escapes
    (ASCII: a multi-byte character is a letter already) too, so that it is text (one byte for
    one: the word's text, read from the file, keeps both).  Returns the tree and the text it
    parsed."""
    if b"\n\\" not in data:
        return tree, data
    at = []
    for m in _ESCAPED_LINE_START.finditer(data):
        i = m.start(1)
        n = tree.root_node.descendant_for_byte_range(i, i + 1)
        if n is None or n.start_byte >= i:
            continue
        # (an escaped blank is no token to it: the line's words go to the statement before)
        if n.type == "word" or (data[i + 1] in b" \t" and n.type not in _NOT_CODE and n.type != "string_content"):
            at += (i, i + 1) if data[i + 1] < 0x80 else (i,)
    return _reparse(data, at, b"x") if at else (tree, data)


_READ_WRITE = re.compile(rb"(?<![<])<>(?![>])")


def _read_write(tree, data: bytes):
    """tree-sitter-bash has no ``<>`` (open read-write: ``exec 3<>/dev/tcp/$h/$p``): an ERROR, of
    a shape that changes with what is around it.  When the parse has an error, each ``>`` of a
    ``<>`` is parsed again as a blank (one byte for one; in a string or comment that changes
    nothing), and ``_convert`` gives the ``<`` both bytes: the evaluator reads the file as it
    does for ``<``.  Returns the tree and the text it parsed."""
    if not tree.root_node.has_error or b"<>" not in data:
        return tree, data
    at = [m.start() + 1 for m in _READ_WRITE.finditer(data)]
    return _reparse(data, at, b" ") if at else (tree, data)


_FOR_DO = re.compile(rb"\bfor[ \t]+[A-Za-z_][A-Za-z0-9_]*[ \t]+do\b")


def _for_without_in(tree, data: bytes):
    """tree-sitter-bash has no ``for x do`` (bash: ``for x; do``, a loop over ``"$@"``): an
    ERROR.  When the parse has an error, the blank before each such ``do`` whose ``for`` is a
    keyword is parsed again as a ``;`` (one byte for one).  Returns the tree and the text it
    parsed."""
    if not tree.root_node.has_error or b"do" not in data:
        return tree, data
    at = []
    for m in _FOR_DO.finditer(data):
        if tree.root_node.descendant_for_byte_range(m.start(), m.start() + 3).type == "for":
            at.append(m.end() - 3)
    return _reparse(data, at, b";") if at else (tree, data)


#: a `[[` and, later on its line (or the lines it continues onto), a `=` between blanks
_DOUBLE_BRACKET_EQUALS = re.compile(rb"\[\[(?:[^\n]|\\\n)*?[ \t]=[ \t]")
#: a `=` between blanks (in `[[ ]]`, the pattern comparison `==`)
_SINGLE_EQUALS = re.compile(rb"(?<=[ \t])=(?=[ \t])")
_TEST_EXPRESSIONS = frozenset({"binary_expression", "parenthesized_expression", "unary_expression"})


def _double_bracket_equals(tree, data: bytes):
    """tree-sitter-bash reads ``=`` in ``[[ ]]`` (bash: ``==``) with the precedence of an
    assignment and its right side as a regex token: ``[[ $A = x && $B = y ]]`` becomes
    ``$A = (x && $B) = y`` (no error shown), ``[[ $A = x* && $B = y ]]`` an error.  Each such
    ``=`` is parsed again as ``==`` (the blank after it becomes the second ``=``, one byte for one;
    ``_convert`` gives the token its one byte back), round after round, as a repaired ``=`` may
    show one the bad parse had hidden in a token.  Returns the tree and the text it parsed."""
    if b"[[" not in data or not _DOUBLE_BRACKET_EQUALS.search(data):
        return tree, data
    for _ in range(8):
        eqs = [m.start() for m in _SINGLE_EQUALS.finditer(data)]
        at = []
        # down from the root, into the nodes that hold such a `=` only (a node's parent is not
        # stored: walking up costs its depth)
        stack = [(tree.root_node, False)]
        while stack and eqs:
            node, in_test = stack.pop()
            for i in range(node.child_count):
                c = node.child(i)
                k = bisect.bisect_left(eqs, c.start_byte)
                if k == len(eqs) or eqs[k] >= c.end_byte:
                    continue
                t = c.type
                if t == "=":
                    if in_test:
                        at.append(c.start_byte + 1)
                elif t == "test_command":
                    stack.append((c, c.child(0).type == "[["))
                else:
                    stack.append((c, in_test and t in _TEST_EXPRESSIONS))
        if not at:
            break
        tree, data = _reparse(data, at, b"=")
    return tree, data


#: a `~` starting a word after a blank or `(`, `!` (in `[[ ]]`, `[ ]`: the cheap test)
_TEST_TILDE = re.compile(rb"(?<=[\s(!])~")


def _test_tildes(tree, data: bytes):
    """tree-sitter-bash reads a `~` starting an operand of ``[[ ]]`` or ``[ ]`` as arithmetic's
    bitwise not: ``[[ -d ~/x ]]`` as ``-d (~ /x)``, ``[[ ~ == $H ]]`` as ``~ (== $H)`` (no error
    shown).  Each such `~` is parsed again as ``_`` (one byte for one: the word reads its text,
    ``~/x``, from the file, and its tilde-prefix is expanded as bash does).  Returns the tree and
    the text it parsed."""
    if b"~" not in data:
        return tree, data
    tildes = [m.start() for m in _TEST_TILDE.finditer(data)]
    if not tildes:
        return tree, data
    at = []
    stack = [(tree.root_node, False)]
    while stack:
        node, in_test = stack.pop()
        for i in range(node.child_count):
            c = node.child(i)
            k = bisect.bisect_left(tildes, c.start_byte)
            if k == len(tildes) or tildes[k] >= c.end_byte:
                continue
            t = c.type
            if t == "~":
                if in_test and node.type == "unary_expression":
                    at.append(c.start_byte)
            elif t == "test_command":
                stack.append((c, True))
            else:
                stack.append((c, in_test and t in _TEST_EXPRESSIONS))
    return _reparse(data, at, b"_") if at else (tree, data)


_LONE_DOLLAR = re.compile(rb"(?<!\\)\$(?=[ \t])")


def _lone_dollars(tree, data: bytes):
    """A ``$`` before a blank is text to bash; tree-sitter-bash expands it in a string, with the
    blank and what follows for the name: ``"a $ b"`` as ``"a ${ b}"``, ``"$ ${n}"`` as ``"$$"``
    then the text ``{n}``.  So is a ``$`` ending a word before an operator, a ``)`` or a
    backquote (``grep "so"$)``, ``echo a$;``), which tree-sitter-bash takes for an error.  Each
    such ``$`` is parsed again as ``_`` (one byte for one: nodes read their text from the file,
    so the word keeps its ``$``).  Returns the tree and the text it parsed."""
    blank = b"$ " in data or b"$\t" in data
    ending = _WORD_END_DOLLAR_HINT.search(data) is not None
    if not blank and not ending:
        return tree, data
    at = []
    for m in _LONE_DOLLAR.finditer(data) if blank else ():
        n = tree.root_node.descendant_for_byte_range(m.start(), m.start() + 1)
        if n is not None and n.type == "$" and n.parent is not None and n.parent.type == "simple_expansion":
            at.append(m.start())
    for m in _WORD_END_DOLLAR.finditer(data) if ending else ():
        n = tree.root_node.descendant_for_byte_range(m.start(), m.start() + 1)
        if n is not None and n.type in ("$", "$`"):  # (not text already: a string's, a comment's)
            at.append(m.start())
    return _reparse(data, sorted(at), b"_") if at else (tree, data)


def _unsetenv(tree, data: bytes):
    """tree-sitter-bash knows csh's ``unsetenv`` as a keyword, a second ``unset``: bash has no
    such builtin, so ``unsetenv X`` runs a command (a function the script defines), and
    ``unsetenv() { ...; }`` is a syntax error to the grammar.  Each such keyword is parsed again
    as a word (its last letter upper-case: one byte for one; the word reads ``unsetenv`` from
    the file).  Returns the tree and the text it parsed."""
    if b"unsetenv" not in data:
        return tree, data
    at = []
    for m in re.finditer(rb"unsetenv", data):
        n = tree.root_node.descendant_for_byte_range(m.start(), m.end())
        if n is not None and n.type == "unsetenv":
            at.append(m.end() - 1)
    return _reparse(data, at, b"V") if at else (tree, data)


def _error_over(tree, a: int, b: int) -> bool:
    """Whether tree-sitter's tree has an error in the smallest node over bytes ``a``..``b``."""
    n = tree.root_node.descendant_for_byte_range(a, b)
    return n is not None and (n.has_error or n.type == "ERROR")


_EXPANSION_OPERATOR = re.compile(rb"\$\{[#!]?(?:[A-Za-z_][A-Za-z0-9_]*|[0-9@*#?$!-])(?:\[[^\]\n]*\])?(?::?[-=+?])")


def _expansion_operators(tree, data: bytes):
    """``"${TARGETS:-AMDGPU;X86}"``: to bash the word after ``:-`` (``=``, ``+``, ``?``) runs to
    the closing brace, ``;``, ``&``, ``|``, ``<``, ``>`` and parentheses being text;
    tree-sitter-bash ends it there and calls the line a syntax error.  So does a ``{`` before a
    quote (``"${CFG:-{\"name\": \"$K\"}}"``, a JSON default: to bash a ``{`` there is text, and
    the first ``}`` ends the expansion).  Where the tree has an error over such an expansion,
    those characters in its word are parsed again as ``_`` (one byte for one: the word reads
    them from the file).  A word holding a single quote, a backquote or a command substitution
    is left as it is; in one holding double quotes, a backslash or a nested ``${``, only a ``{``
    before a quote is parsed again.  Returns the tree and the text it parsed."""
    if b"${" not in data:
        return tree, data
    at = []
    for m in _EXPANSION_OPERATOR.finditer(data):
        end = _expansion_end(data, m.end())
        if end is None:
            continue
        word = data[m.end() : end]
        if re.search(rb"['`]|\$\(", word):
            continue
        if re.search(rb"[\"\\]|\$\{", word):
            # (quotes: the first `}` may be quoted, so that the word runs on; the `{`s before it
            # are the word's all the same)
            blank = [m.end() + i.start() for i in _BRACE_BEFORE_QUOTE.finditer(word)]
        else:
            blank = [m.end() + i for i, ch in enumerate(word) if ch in b";&|<>(){"]
        if blank and _error_over(tree, m.start(), end + 1):
            at += blank
    return _reparse(data, at, b"_") if at else (tree, data)


#: a ``{`` that tree-sitter-bash cannot take in an expansion's word: before a quote
_BRACE_BEFORE_QUOTE = re.compile(rb'\{(?=\\?")')


def _expansion_end(data: bytes, i: int) -> int | None:
    """Where the ``}`` closing an expansion whose word starts at ``i`` is: the first one not
    escaped nor closing a ``${...}`` in the word; None when the line ends first."""
    depth = 0
    n = len(data)
    while i < n:
        ch = data[i]
        if ch == 92:  # `\`: the next byte is escaped
            i += 2
            continue
        if ch == 10:
            return None
        if ch == 36 and data[i + 1 : i + 2] == b"{":
            depth += 1
            i += 2
            continue
        if ch == 125:
            if not depth:
                return i
            depth -= 1
        i += 1
    return None


def _substitution_arithmetic(tree, data: bytes):
    """``${X:-$((1 << 30))}``: tree-sitter-bash reads ``$((`` inside an expansion as a command
    substitution running a subshell (which ``_arithmetic_substitution`` takes back) — so a
    ``<<`` in it starts a here-document (the delimiter ``30))}``) that swallows the lines
    after it, and parentheses in it (``$(( (a+1) * 2 ))``) nest subshells the grammar rejects.
    Where the tree there has an error, the arithmetic's operators and parentheses are parsed
    again as ``_`` (one byte for one: the arithmetic reads its text from the file).  Returns
    the tree and the text it parsed."""
    if b"$((" not in data or b"${" not in data:
        return tree, data
    at = []
    for m in re.finditer(rb"\$\(\(", data):
        k = m.start()
        line = data.rfind(b"\n", 0, k) + 1
        if data[line:k].count(b"${") <= data[line:k].count(b"}"):
            continue  # (not inside a `${`)
        depth, end = 0, None
        for i in range(k + 1, min(len(data), k + 4096)):
            ch = data[i]
            if ch == 40:
                depth += 1
            elif ch == 41:
                depth -= 1
                if depth == 0:
                    end = i
                    break
            elif ch == 10:
                break
        if end is None or data[end - 1 : end] != b")":
            continue
        inner = data[k + 3 : end - 1]
        if re.search(rb"\$\((?!\()|`|\$\(\(", inner):
            continue  # (a command substitution in it; one arithmetic in another: the next match)
        if not _error_over(tree, k, end + 1):
            continue
        at += [k + 3 + i for i, ch in enumerate(inner) if ch in b"()<>|&;"]
    return _reparse(data, at, b"_") if at else (tree, data)


#: `==` or `=~` alone before a blank, an operator or a line's end (a word to bash)
_LONE_OPERATOR = re.compile(rb"(?<=[ \t])(?:==|=~)(?=[\s;&|)<>]|$)")
#: nodes and tokens that make a lone `==` (or the ERROR around it) a test's or an arithmetic's
_TESTS_OPEN = frozenset({"[[", "[", "((", "$((", "test_command", "arithmetic_expansion"})


def _lone_operators(tree, data: bytes):
    """``echo a ==``: to bash the ``==`` is a word like any other; tree-sitter-bash has it only
    as a test's operator — at a line's end or before an operator (``==;``, ``=~ &&``) it calls
    the line a syntax error, before a newline it takes the next line's first word for its
    operand, before ``2>/dev/null`` the descriptor, and after ``=~`` it reads a regex token that
    runs on over ``;`` and newlines.  Each such ``==`` or ``=~`` of a command (or of an ERROR
    outside any test or arithmetic) is parsed again as ``__`` (byte for byte: the word reads
    ``==`` from the file).  (Joined to a word, ``emit =="a b"``, ``_convert`` makes it one.)
    Returns the tree and the text it parsed."""
    if b"==" not in data and b"=~" not in data:
        return tree, data
    at = []
    for m in _LONE_OPERATOR.finditer(data):
        n = tree.root_node.descendant_for_byte_range(m.start(), m.end())
        if n is None or n.type not in ("==", "=~") or n.parent is None:
            continue
        if n.parent.type not in ("ERROR", "command"):
            continue  # (a command's: `echo a ==;`, `== 2>/dev/null`, `=~` then a regex token running on)
        up = n.parent
        if up.type == "ERROR" and any(up.child(i).type in _TESTS_OPEN for i in range(up.child_count)):
            continue  # (`[[ a == ]]`, `(( a == ))`: a test's or arithmetic's error)
        while up is not None and up.type not in _TESTS_OPEN:
            up = up.parent
        if up is None:
            at += [m.start(), m.start() + 1]
    return _reparse(data, at, b"_") if at else (tree, data)


#: a `$` ending a word (after a word character, a quote or a closing brace) before an operator,
#: a `)` or a backquote: text to bash (not after `+`, `(` ...: `$((1+$))` stays an error)
_WORD_END_DOLLAR = re.compile(rb"(?<=[A-Za-z0-9_.\"'}\]/@])(?<!\\)\$(?=[;)&|<>`])")
_WORD_END_DOLLAR_HINT = re.compile(rb"\$[;)&|<>`]")


#: the right operand of `==`, `!=` or `=` when it starts with literal text before a quote, an
#: expansion or a command substitution (`*" -S "*`, `x${o}y`), or with `-$` (the cheap test; a
#: `=` that ``_double_bracket_equals`` made `==` has no blank after it)
_TEST_OPERAND = re.compile(rb"(?:(?:==|!=)[ \t]*|(?<![=!<>])=[ \t]+)((?:[^\s\"'`$;&|()<>\\]|\\.)+[\"'`$]|-\$)")


def _test_operands(tree, data: bytes, text: bytes):
    """tree-sitter-bash cuts the pattern after ``==`` in ``[[ ]]`` where it starts with a
    literal: ``*" -S "*`` into the patterns ``*``, ``" -S "`` and ``*`` (one of which, ``*``,
    matches any word), ``*-${o}`` into two; it reads ``-$o`` and ``-${o}x`` as a negative number,
    and ``x${o}y`` as an error.  Each such operand is parsed alone, as a command's argument,
    and the text again with underscores in its place (one byte for one: a plain word there);
    ``_convert`` puts the operand's tree in the word's place.  Returns the tree, the text it
    parsed and, by (start, end), each operand's tree-sitter tree and the text it is of."""
    if b"[[" not in data:
        return tree, data, {}
    found: dict = {}
    for m in _TEST_OPERAND.finditer(data):
        a = m.start(1)
        n = tree.root_node.descendant_for_byte_range(m.start(), m.start() + 1)
        if n is None or n.type not in ("==", "!=", "="):
            continue
        while n is not None and n.type != "test_command":
            n = n.parent
        if n is None or n.child(0).type != "[[":
            continue
        if not n.has_error and n.child(n.child_count - 1).type == "]]":
            end = n.end_byte
        else:  # (with `x${o}y` the test may have no end: its `]]` is the next one on the line)
            opened = data.rfind(b"[[", 0, m.start())
            end = data.find(b"]]", a) + 2
            if opened < n.start_byte or end < 2 or b"]]" in data[opened : m.start()] or b"\n" in data[opened:end]:
                continue
        word = _first_word(text[a:end])
        if word is not None:
            b = a + word[0].end_byte - 2
            if b <= end - 2 and text[b : b + 1] in (b" ", b"\t", b"\n", b"\\"):
                found[a, b] = word
    if not found:
        return tree, data, {}
    tree, data = _reparse(data, [i for a, b in found for i in range(a, b)], b"_")
    return tree, data, found


#: a substring expansion whose offset or length starts with a variable (`${X:$o}`,
#: `${A[@]:$1:2}`, `${X:0:$n+1}`; not `${X:-$d}`, `${X:=...}`, ...)
_SUBSTRING_OFFSET = re.compile(rb"\$\{(?:[A-Za-z_][A-Za-z0-9_]*(?:\[[^\]\n]*\])?|[@*0-9]):(?![-=+?])[ \t]*"
                               rb"(\$(?=[A-Za-z_0-9]))?[^:}\n]*(?::[ \t]*(\$)(?=[A-Za-z_0-9]))?")


_NEGATIVE_OFFSET = re.compile(rb"\$\{(?:[A-Za-z_][A-Za-z0-9_]*(?:\[[^\]\n]*\])?|[@*0-9]):(?:[^:}\n]*:)?[ \t]*([ \t])-[ \t]*"
                              rb"(?:(\$)(?=[A-Za-z_0-9])|\$\{)")


def _substring_offsets(tree, data: bytes):
    """tree-sitter-bash has no substring expansion whose offset starts with ``$name`` or ``$1``
    (``${X:$o}``, ``${X:$o:$n}``), nor a length of more than such a variable (``${X:0:$n+1}``):
    an ERROR.  When the parse has an error, such a ``$`` is parsed again as a blank (one byte for
    one: the offset reads ``o``); ``_convert`` starts the nodes of the offset at the ``$`` again
    and makes its first token the expansion ``$o``.  Returns the tree, the text it parsed and the
    positions after the blanked bytes."""
    if not tree.root_node.has_error or b"${" not in data:
        return tree, data, frozenset()
    at = [m.start(g) for m in _SUBSTRING_OFFSET.finditer(data) for g in (1, 2) if m.start(g) >= 0]
    # `${X: -$o}`: the blank before the `-` is parsed as `0` (`0- o` is an expression to the grammar)
    negative = [(m.start(1), m.start(2)) for m in _NEGATIVE_OFFSET.finditer(data)]
    if negative:
        buf = bytearray(data)
        for blank, dollar in negative:
            buf[blank] = 48
            if dollar >= 0:  # (`${o}`: an expansion to the grammar already)
                at.append(dollar)
        data = bytes(buf)
    if not at:
        return tree, data, frozenset()
    tree, data = _reparse(data, sorted(set(at)), b" ")
    return tree, data, frozenset(i + 1 for i in at)


#: `!` before a word that starts a statement other than a simple command
_BANG_GROUP = re.compile(rb"![ \t]+(\{|\(\(|(?:if|for|while|until|case|select|declare|local|export|readonly|typeset|unset)"
                         rb"(?=[ \t\n;&|)<>]))")
#: what a `!` put back by ``_attach_negations`` negates (or the redirected statement or pipeline
#: it starts)
_NEGATED = frozenset({"compound_statement", "if_statement", "for_statement", "c_style_for_statement", "while_statement",
                      "case_statement", "declaration_command", "unset_command"})


def _negated_groups(tree, data: bytes):
    """tree-sitter-bash reads the word after ``!`` as a command's name: ``! { a; }`` as the
    command ``{ a;`` negated, then a command ``}``; ``! if ...``, ``! while ...``, ``! local x``
    (no local made), ``! declare -F f`` as commands named ``if``, ``while``, ``local``,
    ``declare``; ``! (( x ))`` as subshells (no error shown).  Each such ``!`` is parsed again as
    a blank (one byte for one), and ``_attach_negations`` puts it back around the statement (or
    the pipeline it starts).  Returns the tree, the text it parsed and the (``!``, statement)
    positions."""
    if b"!" not in data:
        return tree, data, []
    bangs = []
    for m in _BANG_GROUP.finditer(data):
        i = m.start()
        n = tree.root_node.descendant_for_byte_range(i, i + 1)
        if n is None or n.type != "!" or n.parent is None or n.parent.type != "negated_command":
            continue
        cmd = n.next_named_sibling
        name = cmd.child_by_field_name("name") if cmd is not None and cmd.type == "command" else cmd \
            if cmd is not None and cmd.type == "subshell" and data[m.start(1) : m.end(1)] == b"((" else None
        if name is not None and name.start_byte == m.start(1):
            bangs.append((i, m.start(1)))
    if not bangs:
        return tree, data, []
    tree, data = _reparse(data, [b for b, _ in bangs], b" ")
    return tree, data, bangs


def _attach_negations(root: Node, bangs: list) -> None:
    """Put each ``!`` ``_negated_groups`` blanked back: a ``negated_command`` around the
    statement that starts after it — or around the redirected statement or pipeline that
    statement starts."""
    edits = _Edits()
    for bang, brace in bangs:
        chain = []  # (node, parent) for the nodes that start at the brace, outermost first
        node = root
        while True:
            nxt = edits.at(node, brace)
            if nxt is None:
                break
            if nxt.start == brace:
                chain.append((nxt, node))
            node = nxt
            if nxt.type in _NEGATED and nxt.start == brace:
                break
        if not chain or chain[-1][0].type not in _NEGATED:
            continue
        k = len(chain) - 1
        while k > 0 and chain[k - 1][0].type in ("redirected_statement", "pipeline"):
            k -= 1
            if chain[k][0].type == "pipeline":
                break
        target, up = chain[k]
        neg = Node("negated_command", bang, target.end, True, root.src)
        neg.children = (Node("!", bang, bang + 1, False, root.src), target)
        neg.fields = (None, None)
        for outer, above in chain[:k]:  # (these start at the `!` now)
            outer.start = bang
            edits.replace(above, outer, outer)
        edits.replace(up, target, neg)
        if up.start > bang:
            up.start = bang
    edits.done()


def _negated_redirects(root: Node) -> None:
    """``! a > f | b``: tree-sitter-bash gives the ``!`` to ``a`` inside its redirection
    (``((! a) > f) | b``), so only ``a``'s status was negated; bash negates the pipeline.  The
    ``!`` is moved out to the shape ``! a | b`` is read in (``(! (a > f)) | b``, which the
    evaluator takes for the whole pipeline negated)."""
    for n in _nodes_of(root, "pipeline"):
        r = n.children[0] if n.children else n
        if r.type != "redirected_statement" or not r.children or r.fields[0] != "body" \
                or r.children[0].type != "negated_command" or [c.type for c in r.children[0].children][:1] != ["!"] \
                or len(r.children[0].children) != 2:
            continue
        neg = r.children[0]
        bang, body = neg.children
        r.children = (body,) + r.children[1:]
        r.start, r._loc, r._fmap = body.start, None, None
        new = Node("negated_command", bang.start, r.end, True, root.src)
        new.children, new.fields = (bang, r), (None, None)
        n.children = (new,) + n.children[1:]
        n._fmap = None


def _reparse(data: bytes, at: list[int], byte: bytes):
    """Parse ``data`` again with ``byte`` at the offsets ``at`` (one byte for one: positions
    stay the file's)."""
    buf = bytearray(data)
    for i in at:
        buf[i] = byte[0]
    data = bytes(buf)
    return _parser().parse(data), data


_QUERIES: dict = {}


def _query(name: str, text: str):
    q = _QUERIES.get(name)
    if q is None:
        q = _QUERIES[name] = tree_sitter.Query(_parser().language, text)
    return q


def _bracket_commands(tree, data: bytes, every: bool = False):
    """tree-sitter-bash reads ``[ ... ]`` as a test expression and fails on words its grammar
    has no place for — any escaped word (``[ "$a" \\< "$b" ]``, ``[ \\( x \\) ]``) and a lone
    ``!`` or ``=`` (``[ ! = x ]``) — with an ERROR around the statement and often the lines after
    it; a ``]`` left out makes it read the next lines as operands.  To bash ``[`` is a command
    like ``test``, never a syntax error: such a ``[`` (a token inside an ERROR or before a
    missing ``]``, followed by a blank) is parsed again as a command name — a letter in its
    place, one byte for one, so the command's name still reads ``[`` from the file and the
    evaluator runs it as ``test`` does.  So is a ``[`` whose expression the grammar took a ``<``
    or ``>`` into: in ``[ ]`` they are redirections (``[ "$N" > 8 ]`` tests that ``$N`` is not
    empty and writes a file named ``8``).  ``every``: look for the second kind everywhere, not
    only where a cheap test of the text points.  Returns the tree and the text it parsed."""
    for _ in range(8):  # a repaired statement may show the next one
        ats = _misread_brackets(tree.root_node) if every or _BRACKET_HINT.search(data) else []
        if tree.root_node.has_error:
            q = _query("brackets", '(ERROR "[" @b) (test_command "[" @b (MISSING "]"))')
            ats += [n.start_byte for n in tree_sitter.QueryCursor(q).captures(tree.root_node).get("b", [])
                    if data[n.end_byte:n.end_byte + 1] in (b" ", b"\t")]
        if not ats:
            return tree, data
        tree, data = _reparse(data, ats, b"t")
    return tree, data


#: a `[ ` with, later on its line, a blank and a `<` or `>`, or a backslash (the cheap test
#: before the query: the grammar misreads the first, and escaped words)
_BRACKET_HINT = re.compile(rb"\[[ \t][^\n\]]*?(?:[ \t][<>][ \t]|\\)")
#: where a `<`/`>` in a test expression is not one of its operators
_OPAQUE_IN_TEST = frozenset({"string", "raw_string", "expansion", "command_substitution", "arithmetic_expansion",
                             "process_substitution", "ansi_c_string", "simple_expansion"})
#: statements: never inside a test expression (the grammar read the next lines into one)
_NOT_IN_TEST = frozenset({"command", "list", "pipeline", "redirected_statement"})

#: the children for which ``_convert`` tests the cases it repairs, by the parent's type (any other
#: child is made as it is)
_CONVERT_SLOW = _SPECIAL_KIDS | {"ERROR", "==", "=~", "<", "$", "file_redirect", "heredoc_redirect", "list", "pipeline",
                                 "command_substitution", "simple_expansion"}
_CONVERT_SLOW_UNDER = {
    "simple_expansion": _CONVERT_SLOW - {"$"},
    "string": _CONVERT_SLOW | _EXPANSIONS,
    "heredoc_body": _CONVERT_SLOW | _EXPANSIONS,
    "expansion": _CONVERT_SLOW | {"word"},
    "test_command": _CONVERT_SLOW | _NOT_IN_TEST,
    **{t: _CONVERT_SLOW | {"comment"} for t in _CHAINS},
}


class _Everything:
    def __contains__(self, _) -> bool:
        return True


_CONVERT_ALL = _Everything()  # (a text ``_convert`` has extra repairs for: every child is tested)


def _misread_brackets(root) -> list[int]:
    """Where the ``[`` of each ``[ ]`` the grammar read wrongly is: one with a ``<``/``>``
    operator (a redirection to bash), or one holding statements — ``[ "$a" \\< "$b" ] && x``
    on one line and ``[ ... > f ]`` on the next are read as one test up to the second ``]``."""
    out = []
    for b in tree_sitter.QueryCursor(_query("tests", '(test_command "[" @b)')).captures(root).get("b", []):
        stack = [b.parent]
        while stack:
            n = stack.pop()
            if n.type in _NOT_IN_TEST or n.type in ("<", ">") and n.parent is not None and n.parent.type == "binary_expression":
                out.append(b.start_byte)
                break
            stack.extend(c for c in n.children if c.type not in _OPAQUE_IN_TEST)
    return out


def _run_on_commands(root, assigns: bool, pipes: bool) -> list:
    """The commands that may run past their line (found by tree-sitter queries, not walked):
    those with an assignment before their name, and the commands spanning several lines in a
    list or redirection (spanning several lines) that is part of a pipeline — where the bug
    puts them: ``(pipeline a (list (pipeline b (command c d)) e))``."""
    out = []
    for on, name, text in ((assigns, "assigns", "(command (variable_assignment)) @cmd"),
                           (pipes, "pipes", "(pipeline [(list) (redirected_statement)] @cmd)")):
        if not on:
            continue
        for n in tree_sitter.QueryCursor(_query(name, text)).captures(root).get("cmd", []):
            if n.type == "command":
                out.append(n)
            elif n.start_point[0] != n.end_point[0]:
                stack = [n]
                while stack:
                    x = stack.pop()
                    if x.start_point[0] == x.end_point[0]:
                        continue
                    if x.type == "command" or x.type == "variable_assignments":  # (`a | b | X=1` newline `Y=2 && c`)
                        out.append(x)
                    elif x.type in ("list", "redirected_statement", "pipeline"):
                        stack.extend(x.named_children)
    return out


def _line_end(cmd, data: bytes) -> int | None:
    """Where the word that ends a command's line ends: a newline (not a backslash-newline) or a
    comment follows it among the command's parts.  None when there is none, or when no blank
    follows that word (then it is left alone)."""
    last = None
    for i in range(cmd.child_count):
        c = cmd.child(i)
        if last is not None:
            gap = data[last.end_byte:c.start_byte]
            at = gap.find(b"\n")
            while at > 0 and gap[at - 1:at] == b"\\" and b"#" not in gap[:at]:  # a line continued
                at = gap.find(b"\n", at + 1)
            if at >= 0 or c.type == "comment":
                return last.end_byte if data[last.end_byte:last.end_byte + 1] in (b" ", b"\t", b"\n") else None
        if c.type in ("heredoc_redirect", "heredoc_body"):
            return None
        last = c
    return None



def _arithmetic_substitution(c) -> bool:
    """Whether command substitution ``c`` is ``$((...))``, an arithmetic expansion (tree-sitter-bash
    parses one inside another, `$(( $((a+b)) * 2 ))`, as a command substitution running a
    subshell; bash reads ``$((`` as arithmetic when the ``(`` after ``$(`` closes just before
    the final ``)``).  Its text and the expansions in it are what the evaluator reads."""
    if c.child_count != 3:
        return False
    inner = c.child(1)
    return inner.type == "subshell" and inner.start_byte == c.start_byte + 2 and inner.end_byte == c.end_byte - 1


_STRUCTURAL = frozenset({"if", "then", "for", "while", "until", "do", "case", "function", "select", ";", "&", "\n", "elif", "else"})
_STATEMENTS = frozenset({
    "command", "redirected_statement", "variable_assignment", "declaration_command", "if_statement", "for_statement",
    "c_style_for_statement", "while_statement", "case_statement", "function_definition", "list", "pipeline",
    "subshell", "compound_statement", "test_command", "negated_command", "unset_command", "comment", "ERROR",
})


def _error_problem(ts_node, src, data: bytes) -> ParseProblem:
    """tree-sitter's ERROR node often wraps far more than the mistake: point at the first
    token inside it that cannot start or continue a statement."""
    target = None
    for i in range(ts_node.child_count):
        c = ts_node.child(i)
        if not c.is_named and c.type not in _STRUCTURAL:
            target = c
            break
    if target is None:
        for i in range(ts_node.child_count):
            c = ts_node.child(i)
            if c.is_named and c.type not in _STATEMENTS:
                target = c
                break
    if target is None:
        target = ts_node
    text = data[target.start_byte : target.end_byte].decode("utf-8", "replace")
    first = text.strip().split("\n", 1)[0][:40]
    msg = f"syntax error near '{first}'" if first else "syntax error"
    return ParseProblem(Loc(src, target.start_byte, target.end_byte), msg)


def _gap_check(root: Node, src, problems: list[ParseProblem], documents: list = ()) -> None:
    """Find source tokens that no node covers inside command-like nodes (and a ``!`` after a
    ``|``, a syntax error to bash; and backquoted commands side by side or empty, which are
    misread).

    tree-sitter-bash drops some tokens without an ERROR node (``python3 - <<'PY'`` loses the
    ``-``).  A dropped token inside a command is recovered as a literal word attached to the
    command (``Node.extra``); anything else becomes a parse problem.  ``documents``: spans
    that are here-documents' text wherever they lie.
    """
    data = src.data
    stack = [root]
    while stack:
        node = stack.pop()
        kids = node.children
        if not kids:
            if node.type == "``":
                # tree-sitter-bash reads `a` `b` (blanks between) and `a``b` as one command
                # holding an empty substitution (bash runs a and b); elsewhere `` is one
                problems.append(ParseProblem(node.loc, "two backquoted commands side by side, or an empty one: "
                                                       "recipelint misreads them (tree-sitter-bash); write $(...)"))
            continue
        stack.extend(kids)
        if node.type == "pipeline":  # (and, while here: `a | ! b`, which the grammar takes and bash does not)
            for c in [k for k in kids if k.named][1:]:
                if c.type == "negated_command":
                    problems.append(ParseProblem(Loc(src, c.start, c.start + 1),
                                                 "syntax error: bash takes '!' only before a whole pipeline, not after '|'"))
        if node.type in _GAP_IS_CONTENT or node.type == "ERROR":
            continue
        prev_end = kids[0].start if node.type != "program" else node.start
        prev = None
        for child in kids:
            if child.start > prev_end and not any(a <= prev_end and child.start <= b for a, b in documents):
                _check_gap(node, prev, prev_end, child.start, data, src, problems)
            prev_end = max(prev_end, child.end)
            prev = child


def _command_of(node: Node | None) -> Node | None:
    if node is None:
        return None
    if node.type == "command":
        return node
    if node.type == "redirected_statement":
        body = node.field("body")
        if body is not None and body.type in ("command", "negated_command"):
            return _command_of(body)
    if node.type in ("list", "pipeline", "negated_command") and node.children:
        # (`! python3 - <<'PY'`: the `-` the grammar drops is the negated command's)
        return _command_of(node.children[-1])
    return None


def _check_gap(node: Node, prev: Node | None, a: int, b: int, data: bytes, src, problems) -> None:
    gap = data[a:b]
    i = 0
    n = len(gap)
    tokens: list[tuple[int, int]] = []
    while i < n:
        ch = gap[i : i + 1]
        if ch in (b" ", b"\t", b"\n", b"\r", b";"):
            i += 1
            continue
        if gap[i : i + 2] == b"\\\n":
            i += 2
            continue
        if ch == b"#":  # comment up to end of line
            j = gap.find(b"\n", i)
            i = n if j < 0 else j
            continue
        j = i
        while j < n and gap[j : j + 1] not in (b" ", b"\t", b"\n", b"\r", b";"):
            j += 1
        tokens.append((a + i, a + j))
        i = j
    if not tokens:
        return
    cmd = node if node.type == "command" else _command_of(node) if node.type == "redirected_statement" else None
    if cmd is None:
        cmd = _command_of(prev)
    if cmd is not None:
        words = [(s, e) for s, e in tokens if data[s:e] not in (b"&", b"&&", b"||", b"|")]
        cmd.extra = cmd.extra + tuple(Node("word", s, e, True, src) for s, e in words)
        return
    for s, e in tokens:
        text = data[s:e].decode("utf-8", "replace")
        if text in ("&", "&&", "||", "|", "(", ")", "{", "}", "!", "fi", "done", "esac", "then", "do", "else"):
            continue
        problems.append(ParseProblem(Loc(src, s, e), f"token '{text[:40]}' is not part of any command (parser dropped it)"))
