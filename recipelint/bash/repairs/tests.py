"""Repairs of ``[ ]`` and ``[[ ]]``: regex operands of ``=~`` (which tree-sitter-bash ends at
blanks and parentheses), ``==``/``=`` with a pattern, tildes, lone operators and operands, and
``[`` commands it parsed as a test expression."""

from __future__ import annotations

import bisect
import re

import tree_sitter

from recipelint.bash.convert import _NOT_IN_TEST
from recipelint.bash.repairs.common import _hint, _query, _reparse
from recipelint.bash.repairs.words import _first_word
from recipelint.bash.tree import Node


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


#: a `[[` and, later on its line (or the lines it continues onto), a `=` between blanks
#: (``common._hint``: linear in the line, as the regex ``\[\[(?:[^\n]|\\\n)*?[ \t]=[ \t]`` is not)
_DOUBLE_BRACKET = re.compile(rb"\[\[")
_BLANK_EQUALS = re.compile(rb"[ \t]=[ \t]")


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
    if b"[[" not in data or not _hint(data, _DOUBLE_BRACKET, _BLANK_EQUALS, continued=True):
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
        if _in_misread_arithmetic(n, data):
            continue  # (`! (( (a == 3) ))` read as subshells: `_negated_groups` mends it)
        while up is not None and up.type not in _TESTS_OPEN:
            up = up.parent
        if up is None:
            at += [m.start(), m.start() + 1]
    return _reparse(data, at, b"_") if at else (tree, data)


def _in_misread_arithmetic(node, data: bytes) -> bool:
    """Whether ``node`` lies in subshells that are ``((`` to bash (after a ``!``)."""
    up = node.parent
    while up is not None:
        if up.type == "subshell" and data[up.start_byte : up.start_byte + 2] == b"((":
            return True
        up = up.parent
    return False


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
        ats = _misread_brackets(tree.root_node) if every or _hint(data, _BRACKET, _BRACKET_LATER, b"\n]") else []
        if tree.root_node.has_error:
            ats += [n.start_byte for n in _stray_brackets(tree.root_node) if data[n.end_byte : n.end_byte + 1] in (b" ", b"\t")]
        if not ats:
            return tree, data
        tree, data = _reparse(data, ats, b"t")
    return tree, data


def _stray_brackets(root) -> list:
    """The ``[`` tokens in an ERROR, or before a missing ``]`` in a test: what the query
    ``(ERROR "[" @b) (test_command "[" @b (MISSING "]"))`` captures, in one walk down the tree
    (the query takes time quadratic in a line of 50,000 of them)."""
    out = []
    stack = [root]
    while stack:
        n = stack.pop()
        kids = n.children
        if n.type == "ERROR":
            out.extend(k for k in kids if k.type == "[")
        elif n.type == "test_command":
            last = max((i for i, k in enumerate(kids) if k.is_missing and k.type == "]"), default=-1)
            out.extend(k for k in kids[:last] if k.type == "[")
        stack.extend(k for k in kids if k.child_count)
    return sorted(out, key=lambda k: k.start_byte)


#: a `[ ` with, later on its line, a blank and a `<` or `>`, or a backslash (the cheap test
#: before the query: the grammar misreads the first, and escaped words); ``common._hint``, linear
#: in the line as the regex ``\[[ \t][^\n\]]*?(?:[ \t][<>][ \t]|\\)`` is not
_BRACKET = re.compile(rb"\[[ \t]")
_BRACKET_LATER = re.compile(rb"[ \t][<>][ \t]|\\")


#: where a `<`/`>` in a test expression is not one of its operators
_OPAQUE_IN_TEST = frozenset(
    {
        "string",
        "raw_string",
        "expansion",
        "command_substitution",
        "arithmetic_expansion",
        "process_substitution",
        "ansi_c_string",
        "simple_expansion",
    }
)


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
    for on, name, text in (
        (assigns, "assigns", "(command (variable_assignment)) @cmd"),
        (pipes, "pipes", "(pipeline [(list) (redirected_statement)] @cmd)"),
    ):
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
            gap = data[last.end_byte : c.start_byte]
            at = gap.find(b"\n")
            while at > 0 and gap[at - 1 : at] == b"\\" and b"#" not in gap[:at]:  # a line continued
                at = gap.find(b"\n", at + 1)
            if at >= 0 or c.type == "comment":
                return last.end_byte if data[last.end_byte : last.end_byte + 1] in (b" ", b"\t", b"\n") else None
        if c.type in ("heredoc_redirect", "heredoc_body"):
            return None
        last = c
    return None
