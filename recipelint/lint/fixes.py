"""``check --fix`` / ``--unsafe-fixes`` / ``--diff``: apply the fixes findings carry (ruff's model).

A fix (``lint.findings.Fix``) is a list of byte-range edits, each of which must still read what
it replaces.  *Safe* fixes have one right result (a byte unit, a JSON boolean) and ``--fix``
applies them; *unsafe* ones choose a value (a flag the sibling passes, the family's per-rank
sizing) and need ``--unsafe-fixes`` too.  ``--diff`` shows the unified diff of what ``--fix``
would write and writes nothing.

A fix is kept only when

* every edit is in a regular file of the checked repository reached without a link outside it
  (a linked recipe's target is edited when it is a regular file of the same repository, the
  link kept: ``addsuppress.edit_target``), and still reads what the edit replaces;
* its edits overlap no edit of a fix kept before it (the findings' order);
* the file's new text passes ``bash -n`` (parsed by bash, nothing executed: ``--norc
  --noprofile``, an empty environment, the text on stdin);
* linting again, the finding it fixes is gone and no finding appeared that was not there.

The files are written (atomically, keeping their mode), linted again, and a file whose fixes
did not do exactly their job is put back as it was, fix by fix: the fixes that passed stay.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from recipelint.lint.findings import Edit, Finding, Fix


@dataclass(slots=True)
class Outcome:
    """What ``apply`` did: per file, the fixes kept; the fixes not applied and why."""

    applied: dict[str, list[Finding]] = field(default_factory=dict)  # path -> findings fixed
    skipped: list[tuple[Finding, str]] = field(default_factory=list)  # (finding, why not applied)
    needs_unsafe: int = 0  # fixes left out for want of --unsafe-fixes
    diffs: dict[str, str] = field(default_factory=dict)  # path -> unified diff (``--diff``)

    @property
    def fixed(self) -> int:
        return sum(len(v) for v in self.applied.values())


def _wanted(findings: list[Finding], unsafe: bool, out: Outcome) -> list[Finding]:
    keep = []
    for f in findings:
        if f.fix is None or not f.fix.edits:
            continue
        if f.fix.applicability == "unsafe" and not unsafe:
            out.needs_unsafe += 1
            continue
        keep.append(f)
    return keep


def _apply_edits(data: bytes, edits: list[Edit]) -> bytes | None:
    """``data`` with ``edits`` made (from the end, so offsets hold), or None when one of them no
    longer reads what it replaces."""
    # from the end; of two insertions at one place, the later first, so that the earlier's text
    # comes first (two fixes that add flags after the same flag keep the findings' order)
    for _, e in sorted(enumerate(edits), key=lambda ie: (ie[1].start, ie[1].end, ie[0]), reverse=True):
        if data[e.start : e.end] != e.old.encode("utf-8"):
            return None
        data = data[: e.start] + e.new.encode("utf-8") + data[e.end :]
    return data


def _overlaps(a: list[Edit], b: list[Edit]) -> bool:
    """Whether two fixes' edits touch the same text (insertions at one place do not: both are made)."""
    return any(x.start < y.end and y.start < x.end for x in a for y in b)


def bash_parses(data: bytes) -> bool:
    """Whether bash parses ``data`` (``bash -n``: syntax only, nothing executed); True when no
    bash is installed (nothing to ask: the re-lint's RL001 still checks the syntax)."""
    import shutil
    import subprocess

    bash = shutil.which("bash")
    if bash is None:
        return True
    try:
        p = subprocess.run(
            [bash, "--norc", "--noprofile", "-n"],
            input=data,
            capture_output=True,
            env={"PATH": "/usr/bin:/bin", "LC_ALL": "C"},
            timeout=30,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return False
    return p.returncode == 0


def plan(findings: list[Finding], unsafe: bool, out: Outcome) -> dict[Path, tuple[bytes, list[tuple[Finding, bytes]]]]:
    """Per file to write: (its text now, [(finding, the text with that fix and the ones before)]),
    the fixes in the findings' order, those that cannot be applied recorded in ``out.skipped``."""
    from recipelint.files import Refused, read_regular
    from recipelint.lint.addsuppress import edit_target

    files: dict[Path, tuple[bytes, list[tuple[Finding, bytes]]]] = {}
    taken: dict[Path, list[Edit]] = {}
    for f in _wanted(findings, unsafe, out):
        fix: Fix = f.fix  # type: ignore[assignment]
        paths = {e.path for e in fix.edits}
        if len(paths) != 1:
            out.skipped.append((f, "its edits are in more than one file"))
            continue
        target, why = edit_target(Path(next(iter(paths))))
        if target is None:
            out.skipped.append((f, why))
            continue
        if target not in files:
            try:
                files[target] = (read_regular(target, 16 << 20), [])
            except (Refused, OSError) as e:
                out.skipped.append((f, f"cannot be read ({e})"))
                continue
        if _overlaps(fix.edits, taken.get(target, [])):
            out.skipped.append((f, "another fix edits the same text"))
            continue
        # the fixes before this one changed the offsets after them: apply this one to the original
        # text together with the ones kept so far
        new = _apply_edits(files[target][0], [*taken.get(target, []), *fix.edits])
        if new is None:
            out.skipped.append((f, "the file changed since it was checked"))
            continue
        if not bash_parses(new):
            out.skipped.append((f, "bash -n rejects the result"))
            continue
        taken.setdefault(target, []).extend(fix.edits)
        files[target][1].append((f, new))
    return {p: v for p, v in files.items() if v[1]}


def diff_text(path: str, before: bytes, after: bytes) -> str:
    a = before.decode("utf-8", "replace").splitlines(keepends=True)
    b = after.decode("utf-8", "replace").splitlines(keepends=True)
    return "".join(difflib.unified_diff(a, b, f"a/{path}", f"b/{path}"))


def apply(
    findings: list[Finding],
    unsafe: bool,
    write: bool,
    relint: Callable[[list[Path]], list[Finding]],
) -> Outcome:
    """Apply the fixes of ``findings`` (``write``: to the files, verified by ``relint`` — the
    findings of a lint of the given files —; else only their diffs in ``Outcome.diffs``)."""
    from recipelint.lint.addsuppress import write_atomic
    from recipelint.lint.fingerprint import identity

    out = Outcome()
    planned = plan(findings, unsafe, out)
    for target, (orig, steps) in planned.items():
        shown = steps[0][0].span.path
        if not write:
            out.diffs[shown] = diff_text(shown, orig, steps[-1][1])
            out.applied[shown] = [f for f, _ in steps]
            continue
        # the longest prefix of the fixes that does its job: all of them, else fewer
        k = len(steps)
        while k > 0:
            write_atomic(target, steps[k - 1][1])
            after = relint([Path(shown)])
            was = {identity(f, shown) for f in findings if f.span.path == shown}
            now = {identity(f, shown) for f in after if f.span.path == shown}
            aimed = {identity(f, shown) for f, _ in steps[:k]}
            if not (now & aimed) and not (now - was):
                break
            failed = steps[k - 1][0]
            out.skipped.append((failed, "linting again, the finding is still there or another appeared"))
            k -= 1
        if k == 0:
            write_atomic(target, orig)
            continue
        out.applied[shown] = [f for f, _ in steps[:k]]
    return out
