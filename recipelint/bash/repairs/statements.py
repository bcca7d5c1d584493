"""Repairs of statements: a line starting with an escaped character, ``for x do`` without
``in``, ``!`` before a group or a redirected command."""

from __future__ import annotations

import re

from recipelint.bash.repairs.common import _nodes_of, _reparse
from recipelint.bash.repairs.redirects import _NOT_CODE, _Edits
from recipelint.bash.tree import Node

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


#: `!` before a word that starts a statement other than a simple command
_BANG_GROUP = re.compile(
    rb"![ \t]+(\{|\(\(|(?:if|for|while|until|case|select|declare|local|export|readonly|typeset|unset)"
    rb"(?=[ \t\n;&|)<>]))"
)


#: what a `!` put back by ``_attach_negations`` negates (or the redirected statement or pipeline
#: it starts)
_NEGATED = frozenset(
    {
        "compound_statement",
        "if_statement",
        "for_statement",
        "c_style_for_statement",
        "while_statement",
        "case_statement",
        "declaration_command",
        "unset_command",
    }
)


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
        name = (
            cmd.child_by_field_name("name")
            if cmd is not None and cmd.type == "command"
            else cmd
            if cmd is not None and cmd.type == "subshell" and data[m.start(1) : m.end(1)] == b"(("
            else None
        )
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
        if (
            r.type != "redirected_statement"
            or not r.children
            or r.fields[0] != "body"
            or r.children[0].type != "negated_command"
            or [c.type for c in r.children[0].children][:1] != ["!"]
            or len(r.children[0].children) != 2
        ):
            continue
        neg = r.children[0]
        bang, body = neg.children
        r.children = (body,) + r.children[1:]
        r.start, r._loc, r._fmap = body.start, None, None
        new = Node("negated_command", bang.start, r.end, True, root.src)
        new.children, new.fields = (bang, r), (None, None)
        n.children = (new,) + n.children[1:]
        n._fmap = None


#: `fi }`, `done }`, `esac }`: a compound command's last word, blanks, then the `}` closing a group
_KEYWORD_BRACE = re.compile(rb"(?<![\w$-])(?:fi|done|esac)([ \t]+)\}")


def _keyword_braces(tree, data: bytes):
    """bash closes a brace group right after a compound command's last word on the same line
    (`f() { if [[ $q -ne 1 ]]; then echo "$@"; fi }`, wait-for-it.sh's `echoerr`); tree-sitter-bash
    wants a `;` there ("missing ';'").  Where the tree has an error, each such blank before `}` is
    tried as a `;` (one byte for one; the same to bash there) and kept where the new tree closes a
    group with that `}`.  Returns the tree, the text it parsed and where the `;`s are."""
    if not tree.root_node.has_error or b"}" not in data:
        return tree, data, []
    root = tree.root_node
    # (the word must be the keyword that ends a compound command, not an argument: `echo fi }`)
    at = [m.end(1) - 1 for m in _KEYWORD_BRACE.finditer(data) if _keyword_at(root, m.start(), m.start(1))]
    if not at:
        return tree, data, []
    new_tree, new = _reparse(data, at, b";")
    keep = [i for i in at if _closes_group(new_tree.root_node, i + 1)]
    if not keep:
        return tree, data, []
    if keep != at:
        new_tree, new = _reparse(data, keep, b";")
    return new_tree, new, keep


def _keyword_at(root, start: int, end: int) -> bool:
    tok = root.descendant_for_byte_range(start, end)
    return tok is not None and tok.type in ("fi", "done", "esac") and tok.start_byte == start and tok.end_byte == end


def _closes_group(root, at: int) -> bool:
    tok = root.descendant_for_byte_range(at, at + 1)
    return tok is not None and tok.type == "}" and tok.parent is not None and tok.parent.type == "compound_statement"
