"""The token-gap check: text between two tokens that tree-sitter-bash dropped silently (the
``-`` of ``python3 - <<'PY'``) is a parse problem, and where it is a word it is recovered as one."""

from __future__ import annotations

from recipelint.bash.source import Loc
from recipelint.bash.tree import Node, ParseProblem

# Node types whose byte range is covered by literal text between children (strings,
# heredocs, expansions): gaps there are content, not dropped tokens.
_GAP_IS_CONTENT = frozenset(
    {
        "string",
        "heredoc_body",
        "expansion",
        "raw_string",
        "ansi_c_string",
        "translated_string",
        "word",
        "concatenation",
        "regex",
        "extglob_pattern",
        "heredoc_content",
        "string_content",
        "arithmetic_expansion",
        "command_substitution",
        "comment",
        "subscript",
        "test_command",
        "binary_expression",
        "unary_expression",
        "ternary_expression",
        "parenthesized_expression",
        "postfix_expression",
        "compound_statement",
        "heredoc_redirect",
        "herestring_redirect",
        "case_item",
        "array",
        "process_substitution",
        "brace_expression",
        "number",
        "simple_expansion",
        "c_style_for_statement",
        "for_statement",
    }
)


def _gap_check(root: Node, src, problems: list[ParseProblem], documents: list = (), blanks: list = ()) -> None:
    """Find source tokens that no node covers inside command-like nodes (and a ``!`` after a
    ``|``, a syntax error to bash; and backquoted commands side by side or empty, which are
    misread).

    tree-sitter-bash drops some tokens without an ERROR node (``python3 - <<'PY'`` loses the
    ``-``).  A dropped token inside a command is recovered as a literal word attached to the
    command (``Node.extra``); anything else becomes a parse problem.  ``documents``: spans
    that are here-documents' text wherever they lie; ``blanks``: spans that are blanks to bash
    (the inline-comment idiom `` `# why` ``).
    """
    data = src.data
    if blanks:
        buf = bytearray(data)
        for a, b in blanks:
            buf[a:b] = b" " * (b - a)
        data = bytes(buf)
    stack = [root]
    while stack:
        node = stack.pop()
        kids = node.children
        if not kids:
            if node.type == "``":
                # tree-sitter-bash reads `a` `b` (blanks between) and `a``b` as one command
                # holding an empty substitution (bash runs a and b); elsewhere `` is one
                problems.append(
                    ParseProblem(
                        node.loc,
                        "two backquoted commands side by side, or an empty one: "
                        "recipelint misreads them (tree-sitter-bash); write $(...)",
                    )
                )
            continue
        stack.extend(kids)
        if node.type == "pipeline":  # (and, while here: `a | ! b`, which the grammar takes and bash does not)
            for c in [k for k in kids if k.named][1:]:
                if c.type == "negated_command":
                    problems.append(
                        ParseProblem(
                            Loc(src, c.start, c.start + 1),
                            "syntax error: bash takes '!' only before a whole pipeline, not after '|'",
                        )
                    )
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
