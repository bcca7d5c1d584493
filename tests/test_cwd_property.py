"""`cd` and `pwd` (recipelint.evaluate.builtins: `_b_cd`, `_b_pwd`) against real bash on random
sequences of directory changes: whatever recipelint says `$PWD`, `$OLDPWD`, `pwd`, `pwd -P`,
`cd -` and `$(cd DIR && pwd)` are, real bash says the same; what it does not know it leaves
unknown.  The directories are real ones without symbolic links in their paths (recipelint
resolves `..` in the text, as bash's logical `cd` does, and reads no file system), and `.`/`..`,
which exist wherever the script is."""

from __future__ import annotations

import os

from helpers import bash_emits, emits
from hypothesis import given
from hypothesis import strategies as st
from test_fuzz import FUZZED

DIRS = [
    d
    for d in ("/", "/usr", "/usr/bin", "/usr/share", "/usr/lib", "/etc", "/usr/share/..", "/usr//bin/", "/usr/./lib/../bin")
    if not os.path.islink(d.rstrip("/") or "/")
]
TARGETS = DIRS + [".", "..", "./.."]
STATEMENTS = st.one_of(
    st.sampled_from(TARGETS).map(lambda d: f"cd {d}"),
    st.sampled_from(TARGETS).map(lambda d: f'emit "$(cd {d} && pwd)" "$PWD"'),
    st.just('emit "$PWD" "$OLDPWD"'),
    st.just('emit "$(pwd)" "$(pwd -P)" "$(pwd -L)"'),
    st.just('if [ -n "$OLDPWD" ]; then emit "$(cd - )"; fi'),
)


@FUZZED
@given(st.lists(STATEMENTS, min_size=1, max_size=12))
def test_what_recipelint_knows_of_the_directory_bash_agrees_with(statements):
    # (each `emit` tagged with its statement's number: a branch recipelint does not follow records
    # nothing, so the records are matched by tag)
    src = "".join(s.replace("emit ", f"emit {i} ") + "\n" for i, s in enumerate(statements))
    theirs = {r[0]: r[1:] for r in bash_emits(src)}
    for tag, *values in emits(src):
        assert tag in theirs and len(values) == len(theirs[tag]), (src, tag, values, theirs)
        for x, y in zip(values, theirs[tag]):
            assert x is None or x == y, (src, tag, values, theirs[tag])
