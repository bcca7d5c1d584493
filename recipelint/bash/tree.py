"""The light, immutable tree the later stages walk: :class:`Node`, and what a parse returns
(:class:`Parsed`, :class:`ParseProblem`), with the bounds on what is parsed at all."""

from __future__ import annotations

from dataclasses import dataclass

from recipelint.bash.source import Loc, SourceFile

#: Deeper trees are not evaluated (they are reported instead): bash recipes nest a few levels.
MAX_DEPTH = 256


#: A file with more lines, or more syntax nodes, is not analysed (a finding says so): InferenceX's
#: largest recipe has ~1,300 lines and ~10,000 nodes; two million one-word statements took 50 s and
#: 4 GB before these bounds (tree-sitter's own tree of them takes 1 GB, hence the line count first)
MAX_LINES = 200_000


MAX_NODES = 500_000


#: the node types that are statements (a suppression comment above one covers all of it; a
#: token outside them is not part of any statement)
STATEMENT_TYPES = frozenset(
    {
        "command",
        "redirected_statement",
        "variable_assignment",
        "declaration_command",
        "if_statement",
        "for_statement",
        "c_style_for_statement",
        "while_statement",
        "case_statement",
        "function_definition",
        "list",
        "pipeline",
        "subshell",
        "compound_statement",
        "test_command",
        "negated_command",
    }
)


class Node:
    """A syntax node.  Nodes are immutable once the tree is built, so their text, location and
    field lookups are computed once (the evaluator asks for them for every sweep point)."""

    __slots__ = ("type", "start", "end", "children", "fields", "named", "src", "extra", "_text", "_loc", "_fmap")

    def __init__(self, type_: str, start: int, end: int, named: bool, src: SourceFile) -> None:
        self.type = type_
        self.start = start
        self.end = end
        self.named = named
        self.src = src
        self.children: tuple[Node, ...] = ()
        self.fields: tuple[str | None, ...] = ()
        #: tokens recovered by the token-gap check (literal words the grammar dropped)
        self.extra: tuple[Node, ...] = ()
        self._text: str | None = None
        self._loc: Loc | None = None
        self._fmap: dict[str, Node] | None = None

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
    #: "syntax" (bash refuses it: RL001), or "substring" (``${X:word}``: bash parses it as a
    #: substring expansion where ``${X:-word}`` was meant: RL005)
    kind: str = "syntax"
    #: the mend, when it is unambiguous: the byte range to replace and what to write there (a
    #: here-document terminator's indentation, deleted)
    mend: tuple[int, int, str] | None = None


@dataclass(slots=True)
class Parsed:
    root: Node
    problems: list[ParseProblem]
    depth: int
    #: why the text was not parsed or converted (beyond ``MAX_LINES`` or ``MAX_NODES``): the tree
    #: is then left empty
    too_large: str = ""
