"""Findings: what a rule reports, grouped across sweep points."""

from __future__ import annotations

from dataclasses import dataclass, field

from recipelint.bash.source import Loc, Span

SEVERITIES = ("info", "warning", "error")
SEVERITY_RANK = {s: i for i, s in enumerate(SEVERITIES)}


@dataclass(slots=True)
class Related:
    span: Span
    message: str

    def to_dict(self) -> dict:
        return dict(self.span.to_dict(), message=self.message)


@dataclass(slots=True, frozen=True)
class Edit:
    """One replacement in one file: the bytes ``start:end`` of ``path``, which must still read
    ``old`` when the fix is applied (else the file changed since it was checked: not applied),
    become ``new``.  ``span`` is where it is, for people and editors (1-based, characters)."""

    path: str
    start: int
    end: int
    old: str
    new: str
    span: Span

    def to_dict(self) -> dict:
        return {"location": self.span.to_dict(), "start": self.start, "end": self.end, "old": self.old, "new": self.new}

    @classmethod
    def from_dict(cls, d: dict, path: str) -> Edit:
        loc = dict(d["location"], path=path)
        return cls(path, int(d["start"]), int(d["end"]), str(d["old"]), str(d["new"]), Span(**loc))


#: how sure a fix is (ruff's applicability): ``safe`` fixes have one right result (a byte unit, a
#: JSON boolean) and ``--fix`` applies them; ``unsafe`` ones choose a value (a flag the sibling
#: passes, the family's per-rank sizing) and need ``--unsafe-fixes`` as well
APPLICABILITY = ("safe", "unsafe")


@dataclass(slots=True)
class Fix:
    """What would remove a finding: ``title`` says it in a few words (the command line's
    ``--diff`` and an editor's code action show it), ``edits`` do it."""

    title: str
    edits: list[Edit]
    applicability: str = "safe"

    def to_dict(self) -> dict:
        return {"title": self.title, "applicability": self.applicability, "edits": [e.to_dict() for e in self.edits]}

    @classmethod
    def from_dict(cls, d: dict, path_of) -> Fix:
        """``path_of``: a stored edit's path (relative in the cache) → the path the run uses."""
        edits = [Edit.from_dict(e, path_of(e["location"]["path"])) for e in d["edits"]]
        return cls(str(d["title"]), edits, str(d.get("applicability", "safe")))


@dataclass(slots=True)
class Finding:
    code: str
    name: str
    severity: str
    message: str
    span: Span
    points: list[str] = field(default_factory=list)
    related: list[Related] = field(default_factory=list)
    #: what makes two findings "the same" across sweep points (defaults to the message); it feeds the
    #: fingerprints (SARIF, --diff-base, baselines), so it holds what the finding is about — a flag,
    #: a key, a condition's text — never a line number, an offset or the engine releases judged
    key: str = ""
    #: what else keeps two findings with one key apart at one place (the release a flag was judged
    #: against, when sweep points run different images): grouping only, not the fingerprints
    variant: str = ""
    #: the comment that documents the choice the finding is about (``FileContext.documented``):
    #: such a finding is not reported unless ``--show-documented``, and then as info
    documented: str = ""
    #: the edits that remove it, when recipelint knows them (``--fix``, an editor's code action)
    fix: Fix | None = None

    def __post_init__(self):
        # one line per finding in every format: values quoted from a recipe may hold newlines
        if "\n" in self.message or "\r" in self.message:
            self.message = self.message.replace("\r\n", "\n").replace("\r", "\n").strip("\n").replace("\n", "\\n")

    @property
    def path(self) -> str:
        return self.span.path

    def sort_key(self):
        return (self.span.path, self.span.line, self.span.col, self.code, self.message)

    def to_dict(self) -> dict:
        d = {
            "code": self.code,
            "name": self.name,
            "severity": self.severity,
            "message": self.message,
            "location": self.span.to_dict(),
            "points": list(self.points),
            "related": [r.to_dict() for r in self.related],
        }
        if self.documented:
            d["documented"] = self.documented
        if self.fix is not None:
            d["fix"] = self.fix.to_dict()
        return d


def span_of(loc: Loc | Span | None) -> Span | None:
    if loc is None:
        return None
    if isinstance(loc, Span):
        return loc
    return loc.real().span


def group(findings: list[Finding]) -> list[Finding]:
    """One finding per (code, location, key): the sweep points it holds for are merged."""
    out: dict[tuple, Finding] = {}
    for f in findings:
        k = (f.code, f.span.path, f.span.line, f.span.col, f.key or f.message, f.variant)
        have = out.get(k)
        if have is None:
            out[k] = f
            continue
        for p in f.points:
            if p not in have.points:
                have.points.append(p)
        for r in f.related:
            if all((r.span, r.message) != (x.span, x.message) for x in have.related):
                have.related.append(r)
    return sorted(out.values(), key=Finding.sort_key)
