"""Compare recipelint's expansion of real words with bash's, fragment by fragment (a corpus of
scripts as the source of shapes the generated tests do not draw).

    python tools/word_diff.py [--seed N] [--limit N] FILE.sh ...

From every file recipelint parses without a problem it takes the fragments that run no command —
command arguments holding an expansion, assignment values, array assignments, ``[[ ]]`` and ``[ ]``
tests — leaving out any with a command or process substitution, a backquote, a file test or a
name bash sets itself (``$0``, ``$$``, ``RANDOM``, ``PWD``...).  Each fragment runs in a small
program under three settings of the names it reads (each set to a value with a blank, to a small
number, unset) and what it passes to a stub command (``emit``) is compared with what real bash
passes (the ground-truth tests' harness, stubs first on ``PATH``).  Differences are printed with
the file they came from.  A difference is a lead, not a verdict: pathname expansion and a few
names bash gives values to are not modelled (README), and an unset name used as an associative
array is an indexed one to bash.  Development tool: it runs bash on the fragments, never the
scripts.

The fragments come from files that may be anyone's, and bash's arithmetic (``-eq``, a subscript,
a substring offset) runs a command substitution it finds in a *value*: ``$'a[\\x24(cmd)]' -eq 0``
runs ``cmd``.  So a fragment is refused (``unsafe``) when its text could produce a ``$`` or a
backquote that is not an expansion written as such — ANSI-C or locale quoting (``$'...'``,
``$"..."``), an escaped or quoted ``$``, the ``@E``/``@P`` transformations — and bash runs the
programs under a guard (``GUARD``: a DEBUG trap, inherited by subshells, that ends any subshell
before its first command), so that nothing the fragments hold can run a command.
"""

from __future__ import annotations

import argparse
import random
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from helpers import bash_emits  # noqa: E402
from test_ground_truth import _agrees, _evaluated_emits  # noqa: E402

from recipelint.bash.parse import parse  # noqa: E402
from recipelint.bash.source import InputError, read_source  # noqa: E402

#: fragments holding one of these are left out: commands, and what the harness cannot reproduce
LEFT_OUT = (
    "$(",
    "`",
    "<(",
    ">(",
    "\n",
    "$RANDOM",
    "$$",
    "BASH",
    "$!",
    "PWD",
    "HOME",
    "USER",
    "HOSTNAME",
    "SECONDS",
    "PPID",
    "UID",
    "$0",
    "PIPESTATUS",
    "$?",
    "$-",
    "${!",
)
#: what can make a ``$`` or a backquote out of text: ANSI-C and locale quoting, a ``$`` that
#: does not start an expansion (escaped, quoted, alone), prompt and escape transformations
UNSAFE = re.compile(r"\$['\"]|\$(?![{A-Za-z0-9_@*#?!$-])|@[EP]\}")
#: before the programs bash runs: a command in any subshell (a command substitution an arithmetic
#: evaluation found in a value) ends that subshell before it runs (``set -T``: subshells inherit it)
GUARD = "set -T; trap '(( BASH_SUBSHELL == 0 )) || exit 97' DEBUG\n"
FILE_TESTS = re.compile(r"\s-(?:[abcdefghkprstuwxGLNOSv]|nt|ot|ef)\s")
ARGUMENTS = frozenset({"word", "string", "concatenation", "expansion", "simple_expansion"})
NAMES = re.compile(r"\$\{?#?([A-Za-z_][A-Za-z0-9_]*)")


def unsafe(text: str) -> bool:
    """Whether ``text`` could make bash run a command through a value (see the module's
    docstring): such fragments are never run."""
    return UNSAFE.search(text) is not None or any(b in text for b in ("$(", "`"))


def fragments(paths: list[str]) -> dict[tuple[str, str], str]:
    """(kind, text) -> the first file it was found in."""
    out: dict[tuple[str, str], str] = {}
    for path in paths:
        try:
            parsed = parse(read_source(Path(path), path))
        except InputError:
            continue
        if parsed.problems:
            continue
        stack = [parsed.root]
        while stack:
            n = stack.pop()
            stack.extend(n.children)
            t = n.text
            if "$" not in t or len(t) > 200 or any(b in t for b in LEFT_OUT) or unsafe(t):
                continue
            if n.type == "command":
                for c, f in zip(n.children, n.fields):
                    if f == "argument" and c.type in ARGUMENTS and "$" in c.text and not any(b in c.text for b in LEFT_OUT):
                        # (the command's text passed `unsafe`, so its arguments do)
                        out.setdefault(("arg", c.text), path)
            elif (
                n.type == "variable_assignment"
                and n.field("name") is not None
                and n.field("name").type == "variable_name"
                and n.field("value") is not None
            ):
                out.setdefault(("value", n.field("value").text), path)
            elif n.type == "test_command" and not FILE_TESTS.search(t):
                out.setdefault(("test", t), path)
    return out


def statement(kind: str, text: str) -> str:
    if kind == "arg":
        return f"emit {text}"
    if kind == "value":
        return f'RL_V={text}; emit "${{#RL_V[@]}}" "${{RL_V[@]}}"'
    return f"if {text}; then emit t; else emit f $?; fi"


def settings(names: list[str]) -> list[str]:
    return [
        "".join(f"{n}='v{k} w'\n" for k, n in enumerate(names)),
        "".join(f"{n}={k % 7}\n" for k, n in enumerate(names)),
        "".join(f"unset {n}\n" for n in names),
    ]


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("files", nargs="+")
    ap.add_argument("--seed", type=int, default=0, help="the order fragments are tried in")
    ap.add_argument("--limit", type=int, default=0, help="try at most this many fragments (0: all)")
    args = ap.parse_args(argv)
    found = fragments(args.files)
    keys = sorted(found)
    random.Random(args.seed).shuffle(keys)
    if args.limit:
        keys = keys[: args.limit]
    differ = 0
    for i in range(0, len(keys), 25):  # a batch a program: each fragment in a function of its own
        batch = keys[i : i + 25]
        names = sorted({m.group(1) for _, t in batch for m in NAMES.finditer(t)} - {"IFS", "PATH"})
        for pre in settings(names):
            head = "set -- 'p 1' q\n" + pre
            src = head + "".join(f"g{j}() {{ {statement(k, t)}; }}\ng{j}\n" for j, (k, t) in enumerate(batch))
            if _agrees(_evaluated_emits(src), bash_emits(GUARD + src)):
                continue
            for k, t in batch:  # which of them
                one = head + statement(k, t) + "\n"
                got, want = _evaluated_emits(one), bash_emits(GUARD + one)
                if not _agrees(got, want):
                    differ += 1
                    print(f"== {found[k, t]}: {k} {t}")
                    print(f"  setting:    {pre.strip().splitlines()[0] if pre.strip() else '(none)'} ...")
                    print(f"  recipelint: {got}\n  bash:       {want}")
    print(f"fragments compared: {len(keys)} (x3 settings), differing: {differ}")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
