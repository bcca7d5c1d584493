"""The one mechanism for a documented choice (``FileContext.documented``): where a comment must
stand to document a finding's subject, and what the driver does with a documented finding."""

from __future__ import annotations

from recipelint.bash.source import Loc, SourceFile, Span
from recipelint.lint.check import _documented
from recipelint.lint.findings import Finding
from recipelint.lint.rulebase import FileContext

RECIPE = """#!/usr/bin/env bash
# Recipe header: MTP drafting is off above CONC 64 on purpose (SPEC_DECODING).
set -euo pipefail

# Per-rank cap kept at CONC: the router pins sessions to rank 0 (max-num-seqs).
if [ "$DP_ATTENTION" = "true" ]; then
    MAX_NUM_SEQS="$CONC"
fi

vllm serve m \\
    --gpu-memory-utilization 0.85 \\
    --block-size 64 `# needed by the fp8 kv path` \\
    --port 8000

OTHER=1
ARGS=(
    # tokenizer-path spelled out for the b300 sibling
    --tokenizer-path m
    --enable-eplb
)
"""


def _ctx_and_loc(line: int):
    src = SourceFile("r.sh", RECIPE.encode())
    start = src._starts[line - 1]
    ctx = FileContext.__new__(FileContext)
    return ctx, Loc(src, start, start + 1)


def test_a_comment_above_the_enclosing_block_documents_its_statements():
    ctx, loc = _ctx_and_loc(7)  # MAX_NUM_SEQS="$CONC"
    assert "router pins" in ctx.documented(loc, ["--max-num-seqs"])
    assert "router pins" in ctx.documented(loc, ["MAX_NUM_SEQS"])  # the variable, `_` or `-`
    assert ctx.documented(loc, ["--enable-eplb"]) is None  # a comment that names something else


def test_the_lines_of_a_continued_command_and_the_header():
    ctx, loc = _ctx_and_loc(10)  # vllm serve m \
    assert "fp8 kv path" in ctx.documented(loc, ["fp8"])  # a `# ...` comment inside the command
    assert "drafting is off" in ctx.documented(loc, ["SPEC_DECODING"])  # the recipe's header
    assert ctx.documented(loc, ["--tokenizer-path"]) is None  # that comment is in another statement


def test_comments_between_array_elements_document_the_next_element_only():
    ctx, loc = _ctx_and_loc(18)  # --tokenizer-path m
    assert "b300 sibling" in ctx.documented(loc, ["--tokenizer-path"])
    ctx, loc = _ctx_and_loc(19)  # --enable-eplb: the comment above belongs to another element
    assert ctx.documented(loc, ["tokenizer-path"]) is None


def test_short_and_empty_names_do_not_match_everything():
    ctx, loc = _ctx_and_loc(7)
    assert ctx.documented(loc, ["", "  "]) is None
    assert ctx.documented(loc, ["--tp"]) is None  # "tp" alone is not searched without its dashes


def _finding(documented: str) -> Finding:
    return Finding("RL101", "n", "warning", "m", Span("r.sh", 7, 5, 7, 9), documented=documented)


def test_documented_findings_are_dropped_or_shown_as_info():
    plain, doc = _finding(""), _finding("kept at CONC: the router pins `sessions`")
    kept, n = _documented([plain, doc], show=False)
    assert kept == [plain] and n == 1
    shown, n = _documented([plain, doc], show=True)
    assert n == 0 and shown[1].severity == "info" and shown[0].severity == "warning"
    assert shown[1].text == "m (documented: `kept at CONC: the router pins 'sessions'`)"
    assert shown[1].to_dict()["documented"] == doc.documented and "documented" not in plain.to_dict()


def test_a_header_naming_a_sibling_documents_nothing_in_particular():
    src_text = "#!/usr/bin/env bash\nset -eo pipefail\n# The B300 sibling of x_b200.sh.\n\nA=1\nvllm serve m \\\n    --port 1\n"
    src = SourceFile("r.sh", src_text.encode())
    ctx = FileContext.__new__(FileContext)
    loc = Loc(src, src._starts[6], src._starts[6] + 1)
    assert ctx.documented(loc, ["x_b200.sh"]) is None  # the header only says whose sibling it is
    assert "B300 sibling" in ctx.documented(loc, ["b300"])  # (after `set` lines: still the header)
