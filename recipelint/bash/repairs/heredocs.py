"""Repairs of here-documents: tree-sitter-bash misreads the statement a here-document starts
(a ``<<EOF`` inside a ``&&`` chain or a pipeline, text glued to the terminator, the line's rest
after the operator) and the quotes and ``$`` inside its body."""

from __future__ import annotations

import re

import tree_sitter

from recipelint.bash.convert import _EXPANSIONS, _HEREDOC_TAIL, _convert
from recipelint.bash.repairs.common import _hint, _links, _nodes_of, _parser, _query, _reparse
from recipelint.bash.source import Loc
from recipelint.bash.tree import Node, ParseProblem

_CHAIN_OPS = frozenset({"|", "|&", "&&", "||"})


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
        if (
            c.type == "pipeline"
            and any(k.type == "list" for k in c.children)
            or c.type == "redirected_statement"
            and any(h.type == "heredoc_redirect" and any(k.type in _HEREDOC_TAIL for k in h.children) for h in c.children)
        ):
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
    if (
        neg is None
        and body.type == "negated_command"
        and [c.type for c in body.children][:1] == ["!"]
        and len(body.children) == 2
    ):
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


#: a line holding a here-document's start and ending in a pipe, `&&` or `||` (the cheap test,
#: ``common._hint``: linear in the line, as the regex ``<<-?[ \t]*[^\s<].*(?:&&|\|)[ \t]*\r?\n`` is not)
_HEREDOC_START = re.compile(rb"<<-?[ \t]*[^\s<]")
_ENDS_IN_OP = re.compile(rb"(?:&&|\|)[ \t]*\r?$")


_LINE_OP_TYPES = {b"&&": "&&", b"||": "||", b"|&": "|&", b"|": "|"}


_LINE_END_OP = re.compile(rb"(?:&&|\|\||\|&|\|)$")


#: nodes whose children are statements run in order
_STATEMENT_HOLDERS = frozenset(
    {
        "program",
        "compound_statement",
        "subshell",
        "do_group",
        "if_statement",
        "elif_clause",
        "else_clause",
        "case_item",
        "command_substitution",
    }
)


def _heredoc_line_ops(tree, data: bytes):
    """``cat <<EOF &&`` (or ``|``, ``||``) ending its line: bash runs the document's body as
    text and takes the statement after the document's end for the other operand;
    tree-sitter-bash takes the body's first line for that operand (``cat <<EOF |`` newline ``ab``
    newline ``EOF`` newline ``tr a b``: ``cat | ab``, and ``tr a b`` alone).  The operator is
    parsed again as blanks, one byte for one (``_join_line_ops`` joins the statements again).
    Returns the tree, the text it parsed and the operators blanked: (type, start, end)."""
    if not _hint(data, _HEREDOC_START, _ENDS_IN_OP):
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


#: a line with a here-document's start and a `;` or `&` after it (the cheap test, ``common._hint``:
#: linear in the line, as the regex ``<<-?[ \t]*[^\s<;&|][^\n]*?(?<![&|<>])[;&](?![&>])`` is not)
_REST_START = re.compile(rb"<<-?[ \t]*[^\s<;&|]")
_REST_SEPARATOR = re.compile(rb"(?<![&|<>])[;&](?![&>])")


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
    return (
        tok is not None
        and tok.type == "`"
        and tok.parent is not None
        and tok.parent.type == "command_substitution"
        and tok.parent.start_byte == at
    )


_BACKQUOTE_BLANK = re.compile(rb"`[ \t\n]")


def _backquote_symptom(root, data: bytes) -> bool:
    """Whether tree-sitter's tree has a backquoted command inside another (unescaped: bash
    cannot nest them so) or an error holding a backquote.  One walk down the tree (a query's
    captures, and walking up from each, take time quadratic in a line of 50,000 backquotes)."""
    stack = [(root, False)]  # (node, whether it is inside a backquoted command)
    while stack:
        n, inside = stack.pop()
        kids = n.children
        if n.type == "ERROR" and any(k.type == "`" for k in kids):
            return True
        if n.type == "command_substitution" and data[n.start_byte : n.start_byte + 1] == b"`":
            if inside and data[n.start_byte - 1 : n.start_byte] != b"\\":
                return True
            inside = True
        stack.extend((k, inside) for k in kids if k.child_count)
    return False


def _heredoc_line_rests(tree, data: bytes):
    """``cat <<EOF > f; chmod +x f``: statements after a ``;`` or ``&`` on a here-document's
    start line, which tree-sitter-bash drops (a syntax error).  The rest of the line is parsed
    again as blanks, one byte for one (``_insert_line_rests`` parses it apart and puts its
    statements after the here-document's).  Returns the tree, the text it parsed and the spans
    blanked (from the ``;`` or ``&`` to the line's end)."""
    if not _hint(data, _REST_START, _REST_SEPARATOR):
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
            if (
                _token_at(tree.root_node, m.start(), m.end(), m.group().decode())
                and _compounds_around(tree.root_node.descendant_for_byte_range(m.start(), m.end())) <= outer
                and not _braces_open(tree.root_node, data, start.end_byte, m.start())
            ):
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


_COMPOUNDS = frozenset(
    {
        "while_statement",
        "for_statement",
        "c_style_for_statement",
        "if_statement",
        "case_statement",
        "compound_statement",
        "subshell",
        "do_group",
        "function_definition",
        "command_substitution",
        "process_substitution",
        "test_command",
    }
)


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
        from recipelint.bash.parse import (
            _repaired,  # (the whole pass list: parse.py imports this module)
        )

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
    if (
        n.type == "redirected_statement"
        and n.fields[:1] == ("body",)
        and n.children[0].type in ("list", "pipeline")
        and all(c.type in ("file_redirect", "herestring_redirect") for c in n.children[1:])
    ):
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
        if (
            end.type == "heredoc_end"
            and end.end > end.start
            and text[end.start : end.end].strip(b" \t\n") != re.sub(rb"['\"\\\\]", b"", text[start.start : start.end])
        ):
            # (tree-sitter-bash took a backslash before the delimiter's line for a line continuation)
            problems.append(
                ParseProblem(
                    end.loc, "recipelint cannot tell where this here-document ends: not its delimiter (tree-sitter-bash)"
                )
            )
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
        if (
            string is None
            or string.type != "string"
            or string.start_byte != a - 1
            or string.end_byte != b + 1
            or string.has_error
        ):
            continue
        parts = _convert(string, src, [], bytes(buf), text)[0].children[1:-1]
        body.children = tuple(
            Node("heredoc_content", c.start, c.end, True, src) if c.type == "string_content" else c for c in parts
        )
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


def heredoc_delimiter(data: bytes, start: int, end: int) -> bytes:
    """The line that ends a here-document whose start word is ``data[start:end]``, to bash: the
    word without its quotes, and with the carriage returns right after it (to bash a carriage
    return is part of a word, to tree-sitter-bash a blank: ``<<EOF`` then CR-LF wants ``EOF``
    then CR)."""
    while data[end : end + 1] == b"\r":
        end += 1
    return re.sub(rb"['\"\\\\]", b"", data[start:end])


def ends_heredoc(line: bytes, delimiter: bytes, dash: bool) -> bool:
    """Whether bash ends a here-document at ``line`` (without its newline): the line is the
    delimiter, after its leading tabs for ``<<-`` (tabs only, never spaces, and nothing after)."""
    return (line.lstrip(b"\t") if dash else line) == delimiter


def seems_to_end_heredoc(line: bytes, delimiter: bytes) -> bool:
    """Whether tree-sitter-bash ends a here-document at ``line``: the delimiter between any blanks
    (spaces, tabs, carriage returns), for ``<<`` as for ``<<-``."""
    plain = delimiter.rstrip(b"\r")
    return bool(plain) and line.strip(b" \t\r") == plain


def _heredoc_ends(tree, data: bytes):
    """A here-document's terminator with blanks bash does not strip (``<<-`` then a line
    ``  EOF`` indented with spaces; ``<<`` then an indented ``EOF``; ``EOF`` then blanks or a
    carriage return): tree-sitter-bash ends the document there, bash reads on to the first line
    that is exactly its delimiter, or to the end of the file (``warning: here-document
    delimited by end-of-file``), and what lies between is text of the document, never run.  Each
    line of that stretch tree-sitter-bash would end it at is parsed again with its delimiter's
    first byte changed, one byte for one, so that the document ends where bash ends it (RL010
    reports it).  Returns the tree, the text it parsed and the offsets changed."""
    if b"<<" not in data:
        return tree, data, []
    found: list[int] = []
    reach = 0  # (documents starting before it are text of an earlier one)
    heredocs = tree_sitter.QueryCursor(_query("heredoc_redirects", "(heredoc_redirect) @h")).captures(tree.root_node)
    for h in sorted(heredocs.get("h", []), key=lambda n: n.start_byte):
        if h.start_byte < reach:
            continue
        start = next((c for c in h.children if c.type == "heredoc_start"), None)
        end = next((c for c in h.children if c.type == "heredoc_end"), None)
        if start is None or end is None or end.is_missing or end.end_byte <= end.start_byte:
            continue
        dash = any(c.type == "<<-" for c in h.children)
        delimiter = heredoc_delimiter(data, start.start_byte, start.end_byte)
        a = data.rfind(b"\n", 0, end.start_byte) + 1
        b = data.find(b"\n", end.end_byte)
        if ends_heredoc(data[a : b if b >= 0 else len(data)], delimiter, dash):
            continue
        while a < len(data):  # bash reads on, line by line
            b = data.find(b"\n", a)
            b = len(data) if b < 0 else b
            line = data[a:b]
            if ends_heredoc(line, delimiter, dash):
                break
            if seems_to_end_heredoc(line, delimiter):
                found.append(a + len(line) - len(line.lstrip(b" \t\r")))
            a = b + 1
        reach = a
    if not found:
        return tree, data, []
    buf = bytearray(data)
    for i in found:
        buf[i] = ord("x") if buf[i] != ord("x") else ord("y")
    data = bytes(buf)
    return _parser().parse(data), data, found
