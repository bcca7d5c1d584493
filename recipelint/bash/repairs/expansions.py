"""Repairs of expansions: the word of ``${X:-word}`` (operators, braces, parentheses and shifts
that are text there), ``$(( ))`` inside it, substring offsets, lone ``$``, based numbers
(``16#ff``) and commas in arithmetic."""

from __future__ import annotations

import re

from recipelint.bash.gaps import _GAP_IS_CONTENT
from recipelint.bash.repairs.common import _error_over, _reparse
from recipelint.bash.repairs.heredocs import _BASE_PREFIX
from recipelint.bash.repairs.tests import _WORD_END_DOLLAR, _WORD_END_DOLLAR_HINT
from recipelint.bash.tree import Node


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
    matches = list(_EXPANSION_OPERATOR.finditer(data))
    ends = _expansion_ends(data, [m.end() for m in matches])
    # the bytes the scans of nested words may read in all: each expansion's word holds the ones
    # nested in it, so `${A:-${A:-…}}` n deep would scan n²/2 bytes; past the budget the words
    # left are not mended (bash's reading of them is then not known: a syntax finding at worst)
    budget = 8 * len(data) + (1 << 20)
    for m in matches:
        end = ends[m.end()]
        if end is None:
            continue
        word = data[m.end() : end]
        if b"'" in word:
            continue
        if re.search(rb"`|\$\(", word):
            # (`"${P:-a=${PORT};b=$(f)}"`: the operators outside the substitutions and nested
            # expansions; a word that also holds quotes or escapes is left as it is)
            if re.search(rb"[\"\\]", word):
                continue
            budget -= len(word)
            blank = [m.end() + i for i in _outside_nested(word, b";&|<>")] if budget >= 0 else []
        elif re.search(rb"[\"\\]", word):
            # (quotes: the first `}` may be quoted, so that the word runs on; the `{`s before it
            # are the word's all the same)
            blank = [m.end() + i.start() for i in _BRACE_BEFORE_QUOTE.finditer(word)]
        elif b"${" in word:  # (`${A:-${B:-x};y}`: the operators outside the nested expansions)
            if _OPERATOR_CHAR.search(word) is None:
                continue  # (none anywhere in it: nothing to mend, and no scan)
            budget -= len(word)
            blank = [m.end() + i for i in _outside_nested(word, b";&|<>()")] if budget >= 0 else []
        else:
            blank = [m.end() + i for i, ch in enumerate(word) if ch in b";&|<>(){"]
        if blank and _error_over(tree, m.start(), end + 1):
            at += blank
    return _reparse(data, at, b"_") if at else (tree, data)


_OPERATOR_CHAR = re.compile(rb"[;&|<>()]")


def _outside_nested(word: bytes, chars: bytes) -> list[int]:
    """Offsets in ``word`` of the bytes of ``chars`` that are not inside a nested ``${...}``, a
    command or arithmetic substitution ``$(...)`` / ``$((...))`` or a backquoted one."""
    out, depth, parens, i = [], 0, 0, 0
    n = len(word)
    while i < n:
        ch = word[i]
        if ch == 96:  # `...`: to the closing backquote
            j = word.find(b"`", i + 1)
            i = n if j < 0 else j + 1
            continue
        if word[i : i + 2] == b"$(":
            parens += 1
            i += 2
            continue
        if parens:
            if ch == 40:
                parens += 1
            elif ch == 41:
                parens -= 1
            i += 1
            continue
        if word[i : i + 2] == b"${":
            depth += 1
            i += 2
            continue
        if ch == 125 and depth:
            depth -= 1
        elif not depth and ch in chars:
            out.append(i)
        i += 1
    return out


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


def _expansion_ends(data: bytes, starts: list[int]) -> dict[int, int | None]:
    """``_expansion_end`` of each of ``starts`` (ascending, each after an operator ``[-=+?]``)
    in one pass per line — linear in the text, where one scan per start is quadratic in a line
    of nested ``${A:-${A:-...`` without a ``}``.  A start waits on a stack at the ``${`` depth
    the pass has there; a ``}`` ends every start waiting at the current depth, then closes one
    level.  (The pass is at each start exactly, as its own scan would be: a start follows an
    operator byte, never a backslash or a ``$``.)"""
    out: dict[int, int | None] = {}
    n = len(data)
    k = 0
    while k < len(starts):
        i = starts[k]
        depth = 0
        waiting: list[tuple[int, int]] = []  # (depth, start)
        while i < n:
            while k < len(starts) and starts[k] <= i:
                if starts[k] == i:
                    waiting.append((depth, i))
                else:  # (not met by the pass: scanned on its own)
                    out[starts[k]] = _expansion_end(data, starts[k])
                k += 1
            ch = data[i]
            if ch == 92:
                i += 2
                continue
            if ch == 10:
                break
            if ch == 36 and data[i + 1 : i + 2] == b"{":
                depth += 1
                i += 2
                continue
            if ch == 125:
                while waiting and waiting[-1][0] == depth:
                    out[waiting.pop()[1]] = i
                if depth:
                    depth -= 1
            i += 1
        for _, a in waiting:
            out[a] = None
        while k < len(starts) and starts[k] <= i:  # (at the line's end)
            out.setdefault(starts[k], None)
            k += 1
    return out


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
    pos = opens = closes = 0  # the `${` and `}` from the line's start to `pos` (kept as it goes: linear)
    for m in re.finditer(rb"\$\(\(", data):
        k = m.start()
        nl = data.rfind(b"\n", pos, k)
        if nl >= 0:
            pos, opens, closes = nl + 1, 0, 0
        opens += data.count(b"${", pos, k)
        closes += data.count(b"}", pos, k)
        pos = k
        if opens <= closes:
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


#: a substring expansion whose offset or length starts with a variable (`${X:$o}`,
#: `${A[@]:$1:2}`, `${X:0:$n+1}`; not `${X:-$d}`, `${X:=...}`, ...)
_SUBSTRING_OFFSET = re.compile(
    rb"\$\{(?:[A-Za-z_][A-Za-z0-9_]*(?:\[[^\]\n]*\])?|[@*0-9]):(?![-=+?])[ \t]*"
    rb"(\$(?=[A-Za-z_0-9]))?[^:}\n]*(?::[ \t]*(\$)(?=[A-Za-z_0-9]))?"
)


_NEGATIVE_OFFSET = re.compile(
    rb"\$\{(?:[A-Za-z_][A-Za-z0-9_]*(?:\[[^\]\n]*\])?|[@*0-9]):(?:[^:}\n]*:)?[ \t]*([ \t])-[ \t]*"
    rb"(?:(\$)(?=[A-Za-z_0-9])|\$\{)"
)


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
