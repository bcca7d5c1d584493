"""Repairs of redirections: redirects tree-sitter-bash attaches to the wrong statement or word
(after an assignment, before a word, ``{fd}>``-named descriptors, ``<>``), and words after them."""

from __future__ import annotations

import bisect
import re

from recipelint.bash.convert import _convert
from recipelint.bash.repairs.common import _nodes_of, _parser, _reparse
from recipelint.bash.repairs.tests import _line_end, _run_on_commands
from recipelint.bash.repairs.words import _blanked
from recipelint.bash.source import Loc
from recipelint.bash.tree import Node, ParseProblem


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
        if (
            c.type == "redirected_statement"
            and c.children
            and c.fields[0] == "body"
            and c.children[0].type in ("list", "pipeline")
        ):
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


#: a line longer than this is taken as holding the assignments (the tree walk then decides): the
#: hints' value pattern rescans a line from each place it may start, so a 100 KB line of `eA=`
#: took 46 s
_HINT_LINE = 2048


def _hint(rx, data: bytes) -> bool:
    """Whether ``rx`` (one of the assignment hints, which never span lines) matches some line of
    ``data``; True for a line longer than ``_HINT_LINE`` (a cheap test that may say yes)."""
    if b"=" not in data:
        return False
    for line in data.split(b"\n"):
        if b"=" not in line:
            continue
        if len(line) > _HINT_LINE or rx.search(line) is not None:
            return True
    return False


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
        assigns = _hint(_ASSIGN_AFTER if round_ else _ASSIGN_LINE, data) or (not round_ and _hint(_ASSIGN_MID, data))
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
    _STATEMENT_START
    + rb"(?:"
    + _ASSIGNMENTS
    + rb"[ \t]+"
    + _REDIRECTS
    + rb"|"
    + _REDIRECTS
    + rb"[ \t]*"
    + _ASSIGNMENTS
    + rb")"
    + _STATEMENT_END
)


#: the cheap test before it: an assignment starting a statement, and a `<` or `>` later on its
#: line; or a statement starting with a redirection
_ASSIGN_REDIRECT_HINT = re.compile(
    rb"(?m)(?:^|[;&|{(]|then|do|else)[ \t]*(?:" + _ASSIGNED_NAME + rb"[^\n]*[ \t][0-9&]*[<>]|[0-9&]*[<>][^\n]*=)"
)


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
            while (
                stmt is not None
                and stmt.type != "redirected_statement"
                and not (stmt.type == "command" and stmt.child(0).type == "file_redirect")
            ):
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


def _herestrings_after_redirects(root: Node, problems: list) -> None:
    """A here-string after a redirection of a statement (`cmd > /dev/null <<< "$X"`, `{ …; }
    <<< x`, a pipeline's last redirection): tree-sitter-bash reads `<<<` as an ERROR `<<` and a
    `<` redirection; bash reads a here-string.  The two become one ``herestring_redirect`` (same
    bytes) and the ERROR is no syntax problem."""
    fixed: set[int] = set()
    stack = [root]
    while stack:
        n = stack.pop()
        kids = list(n.children)
        i = 0
        changed = False
        while i + 1 < len(kids):
            err, red = kids[i], kids[i + 1]
            if (
                err.type == "ERROR"
                and err.end - err.start == 2
                and err.text == "<<"
                and red.type == "file_redirect"
                and red.start == err.end
                and red.children
                and red.children[0].type == "<"
                and len(red.children) == 2
            ):
                h = Node("herestring_redirect", err.start, red.end, True, n.src)
                h.children = (Node("<<<", err.start, err.start + 3, False, n.src), red.children[1])
                h.fields = (None, None)
                kids[i : i + 2] = [h]
                fields = list(n.fields)
                fields[i : i + 2] = ["redirect"]
                n.fields = tuple(fields)
                fixed.add(err.start)
                changed = True
            i += 1
        if changed:
            n.children = tuple(kids)
            n._fmap = None
        stack.extend(n.children)
    if fixed:
        problems[:] = [p for p in problems if not (p.loc.start in fixed and p.kind == "syntax")]
