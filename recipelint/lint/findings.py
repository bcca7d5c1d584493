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
    #: the sibling recipe whose form it follows ("" for none): of two fixes for one defect, the
    #: family's own form wins
    follows: str = ""

    def to_dict(self) -> dict:
        d = {"title": self.title, "applicability": self.applicability, "edits": [e.to_dict() for e in self.edits]}
        if self.follows:
            d["follows"] = self.follows
        return d

    @classmethod
    def from_dict(cls, d: dict, path_of) -> Fix:
        """``path_of``: a stored edit's path (relative in the cache) → the path the run uses."""
        edits = [Edit.from_dict(e, path_of(e["location"]["path"])) for e in d["edits"]]
        return cls(str(d["title"]), edits, str(d.get("applicability", "safe")), str(d.get("follows", "")))


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
    #: what follows the headline (``message``: what is wrong and what to do): the consequence in
    #: full, the engine version judged and where it comes from, the evidence — a line each
    notes: list[str] = field(default_factory=list)
    #: the defects it is evidence of (``missing|<launch>|--flag``): findings of one file that share
    #: one are one defect, reported once (``merge_defects``)
    defects: tuple[str, ...] = ()
    #: the (code, line) of the findings ``merge_defects`` made notes of (a suppression of one of
    #: them suppresses this one)
    merged: tuple[tuple[str, int], ...] = ()

    def __post_init__(self):
        # one line per finding in every format: values quoted from a recipe may hold newlines
        if "\n" in self.message or "\r" in self.message:
            self.message = _one_line(self.message)
        if any("\n" in n or "\r" in n for n in self.notes):
            self.notes = [_one_line(n) for n in self.notes]

    @property
    def path(self) -> str:
        return self.span.path

    @property
    def text(self) -> str:
        """The headline and its notes as one text (formats with one message field: the github
        annotation, SARIF's ``message.text``)."""
        return "; ".join([self.message, *self.notes]) if self.notes else self.message

    def record(self, path_out=str) -> dict:
        """The finding as the caches keep it (every field; ``path_out``: a path as stored, e.g.
        relative to the project root).  ``from_record`` reads it back."""

        def span(s: Span) -> dict:
            return {"path": path_out(s.path), "line": s.line, "col": s.col, "end_line": s.end_line, "end_col": s.end_col}

        fix = None
        if self.fix is not None:
            fix = dict(self.fix.to_dict(), edits=[dict(e.to_dict(), location=span(e.span)) for e in self.fix.edits])
        return {
            "code": self.code,
            "name": self.name,
            "severity": self.severity,
            "message": self.message,
            "span": span(self.span),
            "points": list(self.points),
            "key": self.key,
            "variant": self.variant,
            "documented": self.documented,
            "related": [{"span": span(r.span), "message": r.message} for r in self.related],
            "defects": list(self.defects),
            "notes": list(self.notes),
            "fix": fix,
        }

    @classmethod
    def from_record(cls, d: dict, path_in=str) -> Finding:
        """A finding ``record`` wrote (``path_in``: a stored path back to the run's)."""

        def span(x: dict) -> Span:
            return Span(path_in(x["path"]), x["line"], x["col"], x["end_line"], x["end_col"])

        return cls(
            d["code"],
            d["name"],
            d["severity"],
            d["message"],
            span(d["span"]),
            list(d["points"]),
            [Related(span(r["span"]), r["message"]) for r in d["related"]],
            d.get("key", ""),
            d.get("variant", ""),
            d.get("documented", ""),
            None if not d.get("fix") else Fix.from_dict(d["fix"], path_in),
            list(d.get("notes", ())),
            tuple(d.get("defects", ())),
        )

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
        if self.notes:
            d["notes"] = list(self.notes)
        if self.documented:
            d["documented"] = self.documented
        if self.fix is not None:
            d["fix"] = self.fix.to_dict()
        return d


def _one_line(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\r", "\n").strip("\n").replace("\n", "\\n")


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


def merge_defects(findings: list[Finding]) -> list[Finding]:
    """One finding per defect: findings of one file that name a common defect (two rules that see
    one dropped flag) become one — the highest severity (the strongest consequence that holds),
    then the one whose fix follows a sibling's form (the family's own), then one with a fix,
    then the lower code — and the others become its notes (their code, name and headline, at
    their place); the sweep points are merged."""
    by_defect: dict[tuple[str, str], int] = {}
    parent = list(range(len(findings)))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for i, f in enumerate(findings):
        for d in f.defects:
            j = by_defect.setdefault((f.span.path, d), i)
            if j != i:
                parent[root(i)] = root(j)
    groups: dict[int, list[Finding]] = {}
    for i, f in enumerate(findings):
        groups.setdefault(root(i), []).append(f)
    out = []
    for members in groups.values():
        if len(members) == 1:
            out.append(members[0])
            continue
        members.sort(
            key=lambda f: (
                -SEVERITY_RANK.get(f.severity, 0),
                f.fix is None or not f.fix.follows,
                f.fix is None,
                f.code,
                f.sort_key(),
            )
        )
        first = members[0]
        for other in members[1:]:
            first.related.append(Related(other.span, f"also {other.code} {other.name}: {other.message}"))
            first.merged = (*first.merged, (other.code, other.span.line), *other.merged)
            for p in other.points:
                if p not in first.points:
                    first.points.append(p)
            if first.fix is None:
                first.fix = other.fix
            first.defects = tuple(dict.fromkeys((*first.defects, *other.defects)))
        out.append(first)
    return sorted(out, key=Finding.sort_key)
