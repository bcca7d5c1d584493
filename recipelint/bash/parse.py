"""Parse bash with tree-sitter-bash into a light, immutable node tree.

The tree-sitter tree is converted once into :class:`Node` objects (plain Python, cheap to
walk many times: a recipe is evaluated once per sweep point).  Parse problems become
:class:`ParseProblem` records: ERROR and MISSING nodes, and the token-gap check for
tokens the grammar drops silently (the ``-`` of ``python3 - <<'PY'``), which are also
recovered as literal words so the evaluator sees them.

The conversion is in :mod:`recipelint.bash.convert`, the node types in :mod:`recipelint.bash.tree`,
the repairs of tree-sitter-bash's misreadings in :mod:`recipelint.bash.repairs`, the gap check in
:mod:`recipelint.bash.gaps`."""

from __future__ import annotations

from recipelint.bash.convert import _JOIN_HINT, _convert, _remap, _word_joins, escaped
from recipelint.bash.gaps import _gap_check
from recipelint.bash.repairs.common import _links, _not_parsed, _parser
from recipelint.bash.repairs.expansions import (
    _arithmetic_commas,
    _based_numbers,
    _expansion_operators,
    _lone_dollars,
    _substitution_arithmetic,
    _substring_offsets,
    _unsetenv,
)
from recipelint.bash.repairs.heredocs import (
    _backquote_blanks,
    _chains,
    _heredoc_bodies,
    _heredoc_ends,
    _heredoc_line_ops,
    _heredoc_line_rests,
    _insert_line_rests,
    _join_line_ops,
)
from recipelint.bash.repairs.patterns import _case_patterns
from recipelint.bash.repairs.redirects import (
    _NAMED_FD,
    _attach_redirects,
    _end_lines,
    _herestrings_after_redirects,
    _named_descriptors,
    _redirected_assignments,
    _relocate_redirects,
    _words_after_redirects,
)
from recipelint.bash.repairs.statements import (
    _attach_negations,
    _escaped_line_starts,
    _for_without_in,
    _keyword_braces,
    _negated_groups,
    _negated_redirects,
    _read_write,
)
from recipelint.bash.repairs.tests import (
    _bracket_commands,
    _double_bracket_equals,
    _lone_operators,
    _regex_operands,
    _test_operands,
    _test_tildes,
)
from recipelint.bash.repairs.words import (
    _CONTINUED_NAME,
    _comment_substitutions,
    _continued_names,
    _operand_backquotes,
    _rejoin_words,
    _split_dollars,
)
from recipelint.bash.tree import MAX_LINES, MAX_NODES, Node, Parsed, ParseProblem


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
    # (first: the idiom hides the rest of its command from every pass below)
    tree, data, blanks = _comment_substitutions(tree, data)
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
    _gap_check(root, src, problems, documents, blanks)
    for node in redirected:  # after the gap check: the moved words leave gaps in their command
        _words_after_redirects(node)
    if _NAMED_FD.search(data):
        _named_descriptors(root)
    problems.sort(key=lambda p: p.loc.start)
    return Parsed(root, problems, depth)


_NO_END = "syntax error: missing 'heredoc_end'"


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
    ends: list[int] = []
    for _ in range(3):  # a misread statement may hide another one's (`2>/dev/null X=1` then `for x do`)
        before = parsed
        # (first: where a here-document ends decides what is text and what is code)
        tree, parsed, more = _heredoc_ends(tree, parsed)
        ends += more
        # (then: the body of such a here-document is read as commands, which the passes below would repair)
        tree, parsed, more = _heredoc_line_ops(tree, parsed)
        line_ops += [op for op in more if op not in line_ops]
        tree, parsed, more = _heredoc_line_rests(tree, parsed)
        line_rests += [r for r in more if r not in line_rests]
        tree, parsed, more = _backquote_blanks(tree, parsed)
        semis += more
        tree, parsed, more = _keyword_braces(tree, parsed)
        semis += [at for at in more if at not in semis]
        tree, parsed = _double_bracket_equals(
            *_for_without_in(*_read_write(*_escaped_line_starts(*_arithmetic_commas(tree, parsed))))
        )
        tree, parsed, more = _test_operands(
            *_lone_dollars(
                *_test_tildes(*_lone_operators(*_unsetenv(*_substitution_arithmetic(*_expansion_operators(tree, parsed)))))
            ),
            text,
        )
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
    if ends:  # a document bash reads to the end of the file: a warning to bash, not an error (RL010 reports it)
        problems[known:] = [
            p for p in problems[known:] if not (p.message == _NO_END and p.loc.start > min(ends) and p.loc.start >= len(text) - 1)
        ]
    if semis:  # (the `;`s `_backquote_blanks` and `_keyword_braces` put in are blanks to bash)
        put = set(semis)
        problems[known:] = [p for p in problems[known:] if not (p.loc.start in put and p.loc.end == p.loc.start + 1)]
    if b"<<<" in text:
        _herestrings_after_redirects(root, problems)
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
