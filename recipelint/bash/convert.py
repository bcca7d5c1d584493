"""Converting a tree-sitter tree into :class:`~recipelint.bash.tree.Node` objects once: words
joined as bash joins them (tree-sitter-bash leaves the blanks inside ``${X:+a "$X"}`` out of the
concatenation), gaps filled, subtrees that need no repair converted fast."""

from __future__ import annotations

import bisect
import re

from recipelint.bash.source import Loc
from recipelint.bash.tree import STATEMENT_TYPES, Node, ParseProblem

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
        if n.type == "heredoc_redirect" and any(
            c.type in ("word", "concatenation") and data[c.start_byte] == 10 for c in n.children
        ):
            # (a here-document's first line that starts with a backslash, misread as words of its
            # command — `_escaped_line_starts` makes it body again: its backslash-newlines are text)
            continue
        prev = None
        for c in n.children:
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
    return (
        [
            ParseProblem(Loc(src, start(p.loc.start), max(start(p.loc.start), end(p.loc.end))), p.message, p.kind)
            for p in problems
        ],
        [(start(a), end(b)) for a, b in spans],
    )


#: the expansions (tree-sitter-bash may start one in a string at the blank before it)
_EXPANSIONS = frozenset({"simple_expansion", "expansion", "command_substitution", "arithmetic_expansion"})


_BLANKS = b" \t\n"


def _children_fields(ts_node):
    """``child(i)`` and ``field_name_for_child(i)`` of a node with many children, in one walk."""
    fields = []
    cur = ts_node.walk()
    ok = cur.goto_first_child()
    while ok:
        fields.append(cur.field_name)
        ok = cur.goto_next_sibling()
    return ts_node.children.__getitem__, fields.__getitem__


def _convert(
    ts_root,
    src,
    problems,
    data: bytes,
    text: bytes,
    widen: frozenset = frozenset(),
    dollars: list[int] | None = None,
    operands: dict | None = None,
) -> tuple[Node, int, list[Node], set[str], list]:
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
            problems.append(_missing_problem(ts_node, node, src))
        n = ts_node.child_count
        if not n:
            continue
        kids = []
        fields = []
        ntype = node.type
        holder = ntype in _WORD_HOLDERS
        slow = _CONVERT_ALL if rare else _CONVERT_SLOW_UNDER.get(ntype, _CONVERT_SLOW)
        nstart = node.start
        if n > 64:  # (`child(i)` and `field_name_for_child(i)` walk the siblings before i: quadratic)
            child_at, field_at = _children_fields(ts_node)
        else:
            child_at, field_at = ts_node.child, ts_node.field_name_for_child
        for i in range(n):
            c = child_at(i)
            ctype = c.type
            if ctype not in slow:
                # the common child, which none of the cases below concerns (same result, fewer tests)
                start = c.start_byte
                if start >= nstart:
                    child = Node(ctype, start, c.end_byte, c.is_named, src)
                    if holder and kids and kids[-1].end == start and ctype in _JOINS_SECOND and kids[-1].type in _JOINS_FIRST:
                        fixes.add("words")
                    kids.append(child)
                    fields.append(field_at(i))
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
            if (
                (ctype in _EXPANSIONS or ctype == "$")
                and (data[start] in _BLANKS or data[start : start + 2] == b"\\\n")
                and node.type in ("string", "heredoc_body")
            ):
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
                    fields.append(field_at(i))
                    continue
            if (
                ctype == "simple_expansion"
                and c.child_count
                and end - (d := c.child(0).end_byte) > 1
                and (48 <= text[d] <= 57 or text[d] in b"@*#?-!")
            ):
                # `$10`, `$1x`: bash reads one digit (`${1}0`); tree-sitter-bash the whole name
                # (and `$@x` starting a here-document's line: the name `@x`).  (`d`: after the `$`,
                # whose token may hold a backslash-newline before it: see above)
                rest = Node(
                    {"string": "string_content", "heredoc_body": "heredoc_content"}.get(node.type, "word"), d + 1, end, True, src
                )
                _add_parts(node, [_dollar_name(d - 1, d + 1, src), rest], start, end, kids, fields, field_at(i))
                continue
            if operands and (start, end) in operands and not c.child_count:
                kids.append(_shifted(*operands[start, end], start, src))
                links = None  # (a subtree not walked here)
                fields.append(field_at(i))
                continue
            if dollars and ctype == "word" and _holds(dollars, start, end):
                _add_parts(node, _dollar_parts(dollars, start, end, src, text), start, end, kids, fields, field_at(i))
                continue
            named = c.is_named
            if (ctype == "==" or ctype == "=~") and ntype == "command":
                # `emit =="a b"`: the grammar's operator token, a word (joined to the next) to bash
                ctype, named = "word", True
                if (
                    kids
                    and kids[-1].end == start
                    and kids[-1].type in _JOINS_FIRST
                    or i + 1 < n
                    and child_at(i + 1).start_byte == end
                    and child_at(i + 1).type in _JOINS_SECOND
                ):
                    fixes.add("words")
            child = Node(ctype, start, end, named, src)
            kids.append(child)
            fields.append(field_at(i))
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
            elif (
                ctype == "$"
                and node.type != "simple_expansion"
                or holder
                and len(kids) > 1
                and kids[-2].end == start
                and ctype in _JOINS_SECOND
                and kids[-2].type in _JOINS_FIRST
            ):
                fixes.add("words")
            if c.child_count or c.is_error or c.is_missing:
                stack.append((c, child, depth + 1))
                if (
                    ctype in ("file_redirect", "heredoc_redirect")
                    and node.type == "redirected_statement"
                    and c.named_child_count > 1
                    and (not redirected or redirected[-1] is not node)
                ):
                    redirected.append(node)
        if ntype == "concatenation" and any(a.end < b.start for a, b in zip(kids, kids[1:])):
            # text the grammar leaves between a concatenation's parts is the word's (the blanks of
            # `${X:+--limit "$X"}` and `"${X:-\"a b\" c}"`: 223 in InferenceX's history, all blanks)
            _fill_gaps(kids, fields, src)
        node.children = tuple(kids)
        node.fields = tuple(fields)
        if (
            node.type == "binary_expression"
            and len(kids) > 2
            and kids[1].type == "=~"
            and (kids[0].type in ("binary_expression", "unary_expression") or kids[2].type == "binary_expression")
        ):
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


#: statements joined by operators: a comment between their parts is not one of them
_CHAINS = frozenset({"list", "pipeline", "negated_command"})


def _heredoc_start_checks(start: Node, data: bytes, text: bytes, lines: set | None, problems: list) -> set | None:
    """Report the here-document starts tree-sitter-bash misreads: a second one on a line (the
    bodies go to the wrong ones) and an operator glued to the delimiter (taken into it: the
    document never ends).  ``lines``: where the lines of the starts seen begin (None: a second
    one was reported already); returned updated."""
    if lines is not None:
        line_at = data.rfind(b"\n", 0, start.start)
        if line_at in lines:
            problems.append(
                ParseProblem(
                    start.loc,
                    "a second here-document begins on this line: recipelint's "
                    "parser gives the bodies to the wrong ones (start each on its own line)",
                )
            )
            lines = None  # (once)
        else:
            lines.add(line_at)
    if _HEREDOC_GLUED.match(data, start.start, start.end):
        problems.append(
            ParseProblem(
                start.loc,
                f"here-document delimiter '{text[start.start : start.end].decode('utf-8', 'replace')[:40]}': "
                "recipelint's parser takes the operator glued to it for part of the "
                "delimiter, so what follows is read as the here-document; put a blank "
                "before the operator",
            )
        )
    return lines


#: the nodes whose parents ``_convert`` lists: for ``_chains``, ``_regex_operands`` and ``_relocate_redirects``
_LINKED = frozenset({"binary_expression", "redirected_statement", "pipeline", "negated_command"})


#: the children ``_convert`` looks at again: ``_LINKED``, here-document starts, what ``_chains`` rebuilds
_SPECIAL_KIDS = _LINKED | {"heredoc_start", "list", "&&", "||"}


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


_WORDISH = frozenset(
    {
        "word",
        "concatenation",
        "simple_expansion",
        "expansion",
        "string",
        "raw_string",
        "number",
        "command_substitution",
        "arithmetic_expansion",
        "ansi_c_string",
        "translated_string",
        "$",
    }
)


_NAME_START = re.compile(r"[A-Za-z_][A-Za-z0-9_]*|[0-9]")


#: a word side by side with the one before it (``_rejoin_words``): what the second may be, and
#: the first
_JOINS_SECOND = _WORDISH | {"command_name"}


_JOINS_FIRST = _WORDISH | {"variable_assignment"}


def _split_pattern(kids, data: bytes | None = None) -> bool:
    """Whether a case item's patterns hold two pieces with nothing between them (one pattern
    tree-sitter-bash split: see ``_case_patterns``), or a piece holding a ``|`` that ends a
    pattern (``data``: the text the pieces' positions are in)."""
    prev = None
    for c in kids:
        if c.type == ")":
            return False
        if c.type == "extglob_pattern" and data is not None and b"|" in data[c.start : c.end] and _bars(data[c.start : c.end]):
            return True
        if (
            prev is not None
            and prev.end == c.start
            and c.type not in _PATTERN_SEPARATORS
            and prev.type not in _PATTERN_SEPARATORS
        ):
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
    return [
        i
        for i in range(len(kids) - 1)
        if kids[i].type == "ERROR" and kids[i + 1].type == "case_item" and kids[i].end == kids[i + 1].start
    ]


_PATTERN_SEPARATORS = frozenset({"|", "("})


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


#: statements: never inside a test expression (the grammar read the next lines into one)
_NOT_IN_TEST = frozenset({"command", "list", "pipeline", "redirected_statement"})


#: the children for which ``_convert`` tests the cases it repairs, by the parent's type (any other
#: child is made as it is)
_CONVERT_SLOW = _SPECIAL_KIDS | {
    "ERROR",
    "==",
    "=~",
    "<",
    "$",
    "file_redirect",
    "heredoc_redirect",
    "list",
    "pipeline",
    "command_substitution",
    "simple_expansion",
}


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


def _arithmetic_substitution(c) -> bool:
    """Whether command substitution ``c`` is ``$((...))``, an arithmetic expansion (tree-sitter-bash
    parses one inside another, `$(( $((a+b)) * 2 ))`, as a command substitution running a
    subshell; bash reads ``$((`` as arithmetic when the ``(`` after ``$(`` closes just before
    the final ``)``).  Its text and the expansions in it are what the evaluator reads."""
    if c.child_count != 3:
        return False
    inner = c.child(1)
    return inner.type == "subshell" and inner.start_byte == c.start_byte + 2 and inner.end_byte == c.end_byte - 1


_STRUCTURAL = frozenset(
    {"if", "then", "for", "while", "until", "do", "case", "function", "select", ";", "&", "\n", "elif", "else"}
)


_STATEMENTS = STATEMENT_TYPES | {"unset_command", "comment", "ERROR"}


def _missing_problem(ts_node, node: Node, src) -> ParseProblem:
    """A token tree-sitter found missing.  A closing quote is reported where its string opens (as
    bash does: `unexpected EOF while looking for matching `"'` names the line the quote opened
    on, and ShellCheck points there too), not at the end of the file where parsing gave up."""
    q = ts_node.type
    parent = ts_node.parent
    if q in ('"', "'", "`") and parent is not None and src.data[parent.start_byte : parent.start_byte + 1] == q.encode():
        at = parent.start_byte
        return ParseProblem(
            Loc(src, at, at + 1),
            f"syntax error: this `{q}` is never closed: bash reads on to the end of the file looking for its match; close it",
        )
    return ParseProblem(node.loc, f"syntax error: missing '{q}'")


def _error_problem(ts_node, src, data: bytes) -> ParseProblem:
    """tree-sitter's ERROR node often wraps far more than the mistake: point at the first
    token inside it that cannot start or continue a statement."""
    target = None
    kids = ts_node.children  # (not `child(i)`, which walks the siblings before i)
    for c in kids:
        if not c.is_named and c.type not in _STRUCTURAL:
            target = c
            break
    if target is None:
        for c in kids:
            if c.is_named and c.type not in _STATEMENTS:
                target = c
                break
    if target is None:
        target = ts_node
    text = data[target.start_byte : target.end_byte].decode("utf-8", "replace")
    first = text.strip().split("\n", 1)[0][:40]
    # `${NAME:word}`: where the error starts at its `${`, or the error node holds one that the
    # error token ends (`${X:org/Model-v0.1}` fails at its `}`)
    m = _SUBSTRING_DEFAULT.match(data, target.start_byte) if first == "${" else None
    if m is None and first in ("}", "${"):
        line_start = data.rfind(b"\n", 0, target.start_byte) + 1
        for cand in _SUBSTRING_DEFAULT.finditer(data, line_start, target.end_byte):
            if cand.start() <= target.start_byte < cand.end():
                m = cand
    if m is not None:
        name, word = m.group(1).decode(), m.group(2).decode("utf-8", "replace")
        msg = (
            f"`${{{name}:{word}}}` is a substring expansion, not a default: bash reads `{word}` as an "
            f"arithmetic offset — an error that stops the script when {name} is set, nothing when it is "
            f"unset; for a default write `${{{name}:-{word}}}`"
        )
        return ParseProblem(Loc(src, m.start(), m.end()), msg, "substring")
    msg = f"syntax error near '{first}'" if first else "syntax error"
    return ParseProblem(Loc(src, target.start_byte, target.end_byte), msg)


#: ``${NAME:word}`` whose word is no arithmetic the grammar takes (``${MODEL:org/model-7B}``)
_SUBSTRING_DEFAULT = re.compile(rb"\$\{([A-Za-z_][A-Za-z0-9_]*):([^-=+?\s}(][^}\s]*)\}")
