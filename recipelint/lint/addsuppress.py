"""``check --add-suppressions``: write a suppression comment for every reported finding.

The way to adopt recipelint on a tree that has findings one by one, with the reasons in the
code (``--write-baseline`` is the other way, all in one file). Modelled on ruff's
``--add-noqa``; each comment carries a reason placeholder for a reviewer to fill in.

Where a comment goes, for a finding on line L of a recipe:

* at the end of L (``  # recipelint: ignore[RL401] TODO: reason``), merged into a directive
  already there, when the end of L is plain code: not inside a quoted string or a
  here-document, not a line continued with ``\\``, not a here-document's terminator;
* otherwise alone on a new line above the innermost statement that contains L and starts
  its own line after a line that is not continued (such a comment covers the whole statement,
  see :mod:`recipelint.lint.suppress`).

Findings in files that are not bash (master configs) or without such a place cannot take a
comment; they are returned, for ``--write-baseline``.  The caller lints again to verify.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from recipelint.bash.parse import parse
from recipelint.bash.source import SourceFile
from recipelint.bash.tree import STATEMENT_TYPES

#: the placeholder after the codes, for a reviewer to replace with the reason
REASON = "TODO: say why this is intended"
#: meta findings about suppressions themselves: fixed by editing the comment, never suppressed
NEVER = frozenset({"RL002", "RL004"})

#: tokens that can span lines, inside which a comment is text
_TOKENS = frozenset({"string", "raw_string", "ansi_c_string", "translated_string", "word", "concatenation", "expansion", "regex"})
_DIRECTIVE = re.compile(rb"#\s*recipelint:\s*ignore\[([^\]]*)\]")


@dataclass(slots=True)
class FileEdit:
    data: bytes  # the new text
    placed: dict[int, list[str]] = field(default_factory=dict)  # line -> codes suppressed there
    unplaced: list[int] = field(default_factory=list)  # lines no comment could cover
    added_lines: int = 0


def _unsafe_lines(root, source: SourceFile) -> set[int]:
    """Lines whose end is inside a token or a here-document (a comment there would be text)."""
    out: set[int] = set()
    stack = [root]
    while stack:
        n = stack.pop()
        if n.type in _TOKENS or n.type == "heredoc_body":
            a = source.point(n.start)[0]
            b = source.point(max(n.start, n.end - 1))[0]
            out.update(range(a, b))
        if n.type == "heredoc_redirect":
            body = [c for c in n.children if c.type == "heredoc_body"]
            if body:  # the body's lines and the terminator's
                a = source.point(body[0].start)[0]
                b = source.point(max(n.start, n.end - 1))[0]
                out.update(range(a, b + 1))
        stack.extend(n.children)
    return out


def _statements(root, source: SourceFile) -> list[tuple[int, int, int]]:
    """(first line, last line, column of the start) of every statement."""
    out = []
    stack = [root]
    while stack:
        n = stack.pop()
        if n.type in STATEMENT_TYPES:
            a, col = source.point(n.start)
            out.append((a, source.point(max(n.start, n.end - 1))[0], col))
        stack.extend(n.children)
    return out


def _comment(codes: list[str], reason: str) -> bytes:
    return f"# recipelint: ignore[{', '.join(codes)}] {reason}".encode()


def plan(data: bytes, targets: dict[int, set[str]], reason: str = REASON) -> FileEdit:
    """The text of one recipe with comments suppressing ``targets`` (line -> codes)."""
    source = SourceFile("<edit>", data)
    parsed = parse(source)
    lines = data.split(b"\n")
    unsafe = _unsafe_lines(parsed.root, source)

    def eol_ok(line: int) -> bool:
        text = lines[line - 1].rstrip()
        return line not in unsafe and not text.endswith(b"\\") and bool(text.strip())

    statements = _statements(parsed.root, source)
    edit = FileEdit(data)
    at_end: dict[int, list[str]] = {}
    above: dict[int, list[str]] = {}  # the line a new comment line goes above -> codes
    for line in sorted(targets):
        codes = sorted(targets[line])
        if 1 <= line <= len(lines) and eol_ok(line):
            at_end.setdefault(line, []).extend(codes)
            continue
        best = None
        for a, b, col in statements:
            if not a <= line <= b or lines[a - 1][: col - 1].strip():
                continue  # not around the line, or not the first thing on its line
            if a > 1 and (a - 1 in unsafe or lines[a - 2].rstrip().endswith(b"\\")):
                continue  # the line before continues into this one
            if best is None or a > best[0] or (a == best[0] and b < best[1]):
                best = (a, b, col)
        if best is None:
            edit.unplaced.append(line)
            continue
        above.setdefault(best[0], []).extend(codes)
        edit.placed.setdefault(line, []).extend(codes)
    for line, codes in at_end.items():
        edit.placed.setdefault(line, []).extend(codes)
    out: list[bytes] = []
    for i, text in enumerate(lines, 1):
        if i in above:
            indent = text[: len(text) - len(text.lstrip())]
            out.append(indent + _comment(sorted(set(above[i])), reason))
            edit.added_lines += 1
        if i in at_end:
            codes = sorted(set(at_end[i]))
            m = _DIRECTIVE.search(text)
            if m is not None:  # one directive per line: the codes join it
                have = [c.strip().decode() for c in m.group(1).split(b",") if c.strip()]
                merged = ", ".join(dict.fromkeys(have + codes)).encode()
                text = text[: m.start(1)] + merged + text[m.end(1) :]
            else:
                text = text.rstrip() + b"  " + _comment(codes, reason)
        out.append(text)
    edit.data = b"\n".join(out)
    return edit


@dataclass(slots=True)
class Outcome:
    #: path (as findings show it) -> (the text before, the edit written)
    edits: dict[str, tuple[bytes, FileEdit]] = field(default_factory=dict)
    #: findings no comment can suppress (not bash, no place, or unreadable)
    unplaced: list = field(default_factory=list)
    reverted: list[str] = field(default_factory=list)
    #: (path, why) of files not edited: a link whose target is outside the tree or not a regular file
    refused: list[tuple[str, str]] = field(default_factory=list)

    @property
    def comments(self) -> int:
        return sum(len(e.placed) for _, e in self.edits.values())


def _is_bash(path: str) -> bool:
    return not path.endswith((".yaml", ".yml", ".toml", ".json", ".md"))


def write_atomic(path: Path, data: bytes) -> None:
    """Replace ``path``'s text atomically, keeping its mode."""
    import os
    import tempfile

    mode = path.stat().st_mode & 0o7777
    fd, tmp = tempfile.mkstemp(prefix=".recipelint-", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def add(findings: list, reason: str = REASON) -> Outcome:
    """Write the comments for ``findings`` into their files (paths as the findings show them)."""
    from recipelint.bash.source import InputError, read_source

    out = Outcome()
    by_file: dict[str, list] = {}
    for f in findings:
        if f.code in NEVER:
            continue
        if not _is_bash(f.span.path) or f.span.line < 1:
            out.unplaced.append(f)
            continue
        by_file.setdefault(f.span.path, []).append(f)
    for path, fs in by_file.items():
        p = Path(path)
        target, why = edit_target(p)
        if target is None:
            out.refused.append((path, why))
            out.unplaced.extend(fs)
            continue
        try:
            data = read_source(p, path).data
        except InputError:
            out.unplaced.extend(fs)
            continue
        targets: dict[int, set[str]] = {}
        for f in fs:
            targets.setdefault(f.span.line, set()).add(f.code)
        edit = plan(data, targets, reason)
        out.unplaced.extend(f for f in fs if f.span.line in edit.unplaced)
        if edit.placed:
            write_atomic(target, edit.data)
            out.edits[path] = (data, edit)
    return out


def edit_target(p: Path) -> tuple[Path | None, str]:
    """The file to write a recipe's comments into: the recipe, or — for a link — the file it
    points to when that is a regular file inside the same repository (the link is kept: replacing
    it would turn it into a copy of its target); else None and why."""
    import os
    import stat

    from recipelint.files import Refused, confine, repository_root

    if not p.is_symlink():
        return p, ""
    top = repository_root(p)
    try:
        real = confine(p, [top] if top is not None else [])
        if not stat.S_ISREG(os.stat(real).st_mode):
            return None, "a link to something that is not a regular file"
    except Refused as r:
        return None, f"a link whose target is not edited ({r.reason})"
    except OSError as e:
        return None, f"a link whose target cannot be read ({e.strerror or e})"
    return real, ""


def verify(out: Outcome, before: list, after: list) -> None:
    """Put back the files where the comments did not do exactly their job: a finding they were
    to suppress is still reported, or the edit caused a finding that was not there."""
    from recipelint.lint.fingerprint import identity

    for path, (data, edit) in list(out.edits.items()):
        was = {identity(f, path) for f in before if f.span.path == path}
        aimed = {identity(f, path) for f in before if f.span.path == path and f.span.line in edit.placed}
        now = {identity(f, path) for f in after if f.span.path == path}
        if now & aimed or now - was:
            write_atomic(edit_target(Path(path))[0] or Path(path), data)
            out.reverted.append(path)
            out.unplaced.extend(f for f in before if f.span.path == path and f.code not in NEVER)
            del out.edits[path]
