"""Parsing guards: syntax errors keep the rest analysable, dropped tokens are recovered,
and bad input of any kind gives a clear one-line diagnostic."""

from __future__ import annotations

import os

import pytest
from helpers import evaluate

from recipelint.bash.parse import parse
from recipelint.bash.source import InputError, SourceFile, read_source
from recipelint.bash.tree import MAX_DEPTH
from recipelint.lint.analysis import Analyzer
from recipelint.sweep.points import SweepPoint


def test_syntax_error_is_reported_and_the_rest_still_analysed():
    src = SourceFile("x.sh", b"echo ok\nif [ 1 = 1 ]; then\n  echo (\nfi\nvllm serve m --port 1\n")
    parsed = parse(src)
    assert parsed.problems
    p = parsed.problems[0]
    assert p.loc.span.line == 3 and "syntax error" in p.message


def test_launch_after_a_syntax_error_is_found(tmp_path):
    f = tmp_path / "r.sh"
    f.write_text("X=$(( 1 + ))\nfoo() {\n  echo )\n}\nvllm serve m --max-num-seqs 4\n")
    res = Analyzer().analyze(f, "r.sh", [SweepPoint("p", {})])
    assert res.problems
    assert [lc.value("--max-num-seqs") for lc in res.launches] == ["4"]


def test_missing_node_is_reported():
    parsed = parse(SourceFile("x.sh", b'if [ "$A" = 1 ]; then\n  echo x\n'))
    assert any("missing" in p.message or "syntax error" in p.message for p in parsed.problems)


def test_read_write_redirect_is_not_a_syntax_error():
    # tree-sitter-bash has no `<>`: it leaves half of it as an ERROR; both forms are recovered as
    # a `<` redirection spanning the two characters (InferenceX: `until (exec 3<>"/dev/tcp/$h/$p")`)
    data = b'until (exec 3<>"/dev/tcp/h/p") 2>/dev/null; do sleep 5; done\ncat <>f\nexec 3<> g\nexec 4<>/d/$h/$p\n'
    parsed = parse(SourceFile("x.sh", data))
    assert parsed.problems == []
    ops = []
    stack = [parsed.root]
    while stack:
        n = stack.pop()
        stack.extend(n.children)
        if n.type == "file_redirect":
            ops.append((n.text, [(c.type, c.text) for c in n.children if not c.named]))
    assert sorted(ops) == sorted(
        [
            ('3<>"/dev/tcp/h/p"', [("<", "<>")]),
            ("2>/dev/null", [(">", ">")]),
            ("<>f", [("<", "<>")]),
            ("3<> g", [("<", "<>")]),
            ("4<>/d/$h/$p", [("<", "<>")]),
        ]
    )  # (unquoted: a third shape of ERROR)
    bad = parse(SourceFile("y.sh", b"cat <<>f\n"))
    assert bad.problems  # not every stray `<`/`>` is taken for it


def test_a_backslash_ending_the_file_is_not_a_syntax_error():
    # bash drops a backslash at the very end of its input (no newline after it); seen in
    # InferenceX's history: `rm -rf ./utils/bench_serving\` as a recipe's last bytes
    parsed = parse(SourceFile("x.sh", b"vllm serve m --port 1 &\nrm -rf ./utils/bench_serving\\"))
    assert parsed.problems == []
    assert parsed.root.children[-1].text == "rm -rf ./utils/bench_serving"
    assert parse(SourceFile("w.sh", b"vllm serve m &\nrm -rf ./x\\\n")).problems == []  # continued into the end
    assert parse(SourceFile("y.sh", b"echo a\\\\")).problems == []  # an escaped backslash stays
    assert parse(SourceFile("z.sh", b"echo 'a\\")).problems  # an unterminated quote is still an error


def test_a_backslash_newline_inside_a_word_joins_it_and_positions_stay_exact(tmp_path):
    data = b"F='{'\\\n'\"a\": 1,'\\\n'\"b\": [2]'\\\n'}'\nvllm serve m --compilation-config \"$F\" --max-num-seqs 8\\\n4 &\n"
    parsed = parse(SourceFile("x.sh", data))
    assert parsed.problems == []
    assign = parsed.root.children[0]
    assert assign.type == "variable_assignment"
    pieces = [c for c in assign.field("value").children]
    assert [(c.text, c.loc.span.line, c.loc.span.col) for c in pieces] == [
        ("'{'", 1, 3),
        ("'\"a\": 1,'", 2, 1),
        ("'\"b\": [2]'", 3, 1),
        ("'}'", 4, 1),
    ]
    f = tmp_path / "r.sh"
    f.write_bytes(data)
    (lc,) = Analyzer().analyze(f, "r.sh", [SweepPoint("p", {})]).launches
    cfg = lc.get("--compilation-config")
    assert cfg.json is not None and [(k.value, k.loc.span.line) for k, _ in cfg.json.items] == [("a", 2), ("b", 3)]
    assert lc.value("--max-num-seqs") == "84"  # `8\<newline>4` is one word in bash


def test_the_blank_before_an_expansion_in_a_string_is_the_strings_text():
    # tree-sitter-bash 0.25 starts ` $B` (and ` ${B}`, ` $(b)`) at the blank after `$A`
    parsed = parse(SourceFile("x.sh", b'X="$A ${B}\t$(b)"\n'))
    string = parsed.root.children[0].field("value")
    assert [(c.type, c.text) for c in string.children if c.named] == [
        ("simple_expansion", "$A"),
        ("string_content", " "),
        ("expansion", "${B}"),
        ("string_content", "\t"),
        ("command_substitution", "$(b)"),
    ]
    assert all(k.start >= c.start for c in string.children for k in c.children)


def test_dash_before_heredoc_is_recovered_in_lists():
    _, commands = evaluate("[ 1 = 1 ] && emit - <<'PY' || true\nprint(1)\nPY\n")
    assert ["emit", "-"] in [c[0] for c in commands]


@pytest.mark.parametrize(
    "text",
    [
        "! emit - <<'PY'\nprint(1)\nPY\n",
        # (InferenceX's history: `if ! python3 - <<'PY'` patching ATOM, inside a function)
        "f() {\n    if ! emit - <<'PY'\nprint(1)\nPY\n    then\n        exit 1\n    fi\n}\nf\n",
    ],
)
def test_dash_before_heredoc_is_recovered_after_a_negation(text):
    assert parse(SourceFile("n.sh", text.encode())).problems == []
    _, commands = evaluate(text)
    assert ["emit", "-"] in [c[0] for c in commands]


def test_a_brace_before_a_quote_in_an_expansions_word_is_text():
    # a JSON default (InferenceX's history: `"${VLLM_SPEC_CONFIG:-{\"model\": ...}}"`, 18 blobs):
    # tree-sitter-bash calls the `{` an error; to bash it is text, and the first `}` ends the word
    text = (
        'K=kv; A="${X:-{\\"name\\":\\"$K\\"}}"; B="${X:-{\\"n\\":\\"${K}\\", \\"m\\": 3}}"\n'
        'emit "$A" "$B" ${X:-{\\"q\\"}} "${X:-a{\\"b}"\n'
    )
    assert parse(SourceFile("b.sh", text.encode())).problems == []
    _, commands = evaluate(text)
    assert [c[0] for c in commands if c[0][0] == "emit"] == [["emit", '{"name":"kv"}', '{"n":"kv", "m": 3}', '{"q"}', 'a{"b']]


@pytest.mark.parametrize(
    "data,needle",
    [
        (b"\x7fELF\x00\x00binary", "binary file"),
        (b"echo caf\xe9\n", "not valid UTF-8"),
    ],
)
def test_bad_bytes(tmp_path, data, needle):
    f = tmp_path / "bad.sh"
    f.write_bytes(data)
    with pytest.raises(InputError) as e:
        read_source(f, "bad.sh")
    assert needle in str(e.value) and str(e.value).startswith("bad.sh")
    res = Analyzer().analyze(f, "bad.sh", [SweepPoint("p", {})])
    assert res.error and needle in res.error


def test_empty_file(tmp_path):
    f = tmp_path / "empty.sh"
    f.write_text("  \n")
    res = Analyzer().analyze(f, "empty.sh", [SweepPoint("p", {})])
    assert res.error == "empty.sh: empty file"


def test_missing_and_directory(tmp_path):
    with pytest.raises(InputError, match="no such file"):
        read_source(tmp_path / "nope.sh", "nope.sh")
    with pytest.raises(InputError, match="is a directory"):
        read_source(tmp_path, "dir")


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads files regardless of mode")
def test_unreadable(tmp_path):
    f = tmp_path / "locked.sh"
    f.write_text("echo\n")
    f.chmod(0)
    with pytest.raises(InputError, match="permission denied"):
        read_source(f, "locked.sh")


def test_deep_nesting_is_not_evaluated_but_does_not_crash(tmp_path):
    depth = 2000
    src = "".join("if true; then\n" for _ in range(depth)) + "vllm serve m\n" + "fi\n" * depth
    f = tmp_path / "deep.sh"
    f.write_text(src)
    res = Analyzer().analyze(f, "deep.sh", [SweepPoint("p", {})])
    assert res.error is None
    notes = [msg for pr in res.points for p in pr.paths for _, msg in p.notes]
    assert any(f"deeper than {MAX_DEPTH}" in m for m in notes)


_RUN_ON_FIRST = [
    "a | b | c",
    "a | b | c x # note",
    "a |& b | c",
    "a |\n  b |\n  c",
    "a | \\\n  b | \\\n  c",
    "! a | b | c",
    "x && a | b | c",
    "A=1 B=2",
    "A=1 B='x y'  # note",
    "a | b | c | d",
    "f() {\n  a | b | c\n}",
    "X=$(a | b | c\nd || e)",
    "a | (b) | { c; }",
]
_RUN_ON_NEXT = [
    "d",
    "d || e",
    "d && e",
    "d > f",
    "d 2>&1",
    "d &> f",
    "d; e",
    "d | e | f",
    "",
    "# c",
    "x=1 y=2",
    "if d; then e; fi > f",
]


def _breaks(node, data: bytes) -> list:
    """Commands with a line break between two of their parts (bash ends a command there)."""
    out, stack = [], [node]
    while stack:
        n = stack.pop()
        if n.type == "command":
            for a, b in zip(n.children, n.children[1:]):
                gap = data[a.end : b.start].replace(b"\\\n", b"")
                if b"\n" in gap or a.type == "comment":
                    out.append(n.text)
                    break
        stack.extend(n.children)
    return out


@pytest.mark.parametrize("first", _RUN_ON_FIRST)
def test_no_command_runs_on_past_its_line(first):
    # tree-sitter-bash 0.25 reads `A=1 B=2` and the next line as one command, and `a | b | c`
    # and the lines up to a later `&&`, `||` or redirection as one pipeline whose last command
    # takes their words as arguments; parse ends those lines (positions stay the file's)
    for nxt in _RUN_ON_NEXT:
        for nxt2 in _RUN_ON_NEXT:
            data = "\n".join([first, nxt, nxt2, "g || h"]).encode() + b"\n"
            parsed = parse(SourceFile("x.sh", data))
            assert not parsed.problems, data
            assert _breaks(parsed.root, data) == [], data


def test_a_pipeline_ended_at_its_line_keeps_its_positions():
    data = b"a | b | c  # note\nd || e\n"
    parsed = parse(SourceFile("x.sh", data))
    pipeline, comment, lst = [c for c in parsed.root.children if c.named]
    assert (pipeline.type, pipeline.text, pipeline.loc.span.line) == ("pipeline", "a | b | c", 1)
    span = lst.loc.span
    assert (comment.type, lst.type, lst.text, span.line, span.col, span.end_col) == ("comment", "list", "d || e", 2, 1, 7)


_BRACKETS = [
    b'[ "$a" \\< "$b" ] && echo lt',
    b"if [ \\( x = x \\) -a ! -z y ]; then echo p; fi",
    b"[ ! = x ] || echo n",
    b"[ a \\= a ]\necho next",
    b"[ -z \"$x\" \necho next",
    b"[ a = b\necho next",
    b"x=1; [ \\! a ] || exit 1",
]


@pytest.mark.parametrize("data", _BRACKETS)
def test_a_bracket_test_the_grammar_rejects_is_the_command_bash_runs(data):
    # tree-sitter-bash has no place for an escaped word, a lone `!`/`=` or a missing `]` in
    # `[ ]` (ERROR, often over the lines after it); bash runs `[` as a command like `test`
    parsed = parse(SourceFile("x.sh", data + b"\n"))
    assert parsed.problems == []
    brackets, stack = [], [parsed.root]
    while stack:
        n = stack.pop()
        stack.extend(n.children)
        if n.type == "command" and n.field("name").text == "[":
            brackets.append(n)
    (cmd,) = brackets
    line = data.split(b"\n")[0]
    at = line.index(b"[ ")
    assert (cmd.loc.span.line, cmd.loc.span.col) == (1, at + 1)
    # the words are the file's, where the file has them
    assert all(w.text == data[w.start : w.end].decode() for w in cmd.children)


def test_a_bracket_test_the_grammar_reads_stays_a_test_expression():
    parsed = parse(SourceFile("x.sh", b'[ "$a" = b ] && [[ a < b ]]\n'))
    assert parsed.problems == []
    assert [c.type for c in parsed.root.children[0].children if c.named] == ["test_command", "test_command"]


def test_words_after_a_redirection_target_are_the_commands(tmp_path):
    # bash runs `cmd a > f b` as `cmd a b`; tree-sitter-bash makes `b` a second target of `> f`
    # (and `cmd <<EOF b` an argument of the here-document)
    f = tmp_path / "r.sh"
    f.write_text(
        "vllm serve m > server.log 2>&1 --max-num-seqs 8 \\\n  --port 1 &\n"
        "python3 -m sglang.launch_server <<EOF --model-path m\nEOF\n"
    )
    res = Analyzer().analyze(f, "r.sh", [SweepPoint("p", {})])
    assert res.problems == []
    vllm, sgl = res.launches
    assert vllm.value("--max-num-seqs") == "8" and vllm.value("--port") == "1"
    assert [vllm.get("--max-num-seqs").loc.span.line, vllm.get("--port").loc.span.line] == [1, 2]
    assert sgl.value("--model-path") == "m"
    _, commands = evaluate("emit a > /dev/null b 2>&1 c\n[ x > /dev/null ] && emit yes\n")
    assert [c[0] for c in commands] == [["emit", "a", "b", "c"], ["emit", "yes"]]


def test_syntax_error_messages_quote_the_file_not_the_repaired_text():
    # the repairs parse again with bytes replaced (`[` by a letter, a blank by `;`): a message
    # quoted `t` where the file has `[` (`a | b | c`, newline, `[ c \< d ] (`)
    firsts = ["[ a \\< b ]", "[ ! = x ]", "A=1 B=2", "a | b | c", "[ x = y"]
    mids = ["", " &&", " )", " (", " fi", " ;;"]
    nexts = ["d", "e || f", ")", "fi", "[ c \\< d ] (", "esac"]
    checked = 0
    for f in firsts:
        for m in mids:
            for x in nexts:
                for y in nexts:
                    data = f"{f}{m}\n{x}\n{y}\n".encode()
                    for p in parse(SourceFile("x.sh", data)).problems:
                        if "near '" in p.message:
                            quoted = p.message.split("near '", 1)[1].rsplit("'", 1)[0]
                            assert quoted == data[p.loc.start : p.loc.end].decode().strip().split("\n", 1)[0][:40], data
                            checked += 1
    assert checked > 100


@pytest.mark.parametrize("first", [True, False])
def test_a_case_pattern_is_one_pattern_between_bars(first):
    # tree-sitter-bash cuts `*" -S "*` into three patterns, `-${o}s` into two, and makes an ERROR of
    # the `y` of `x${n}y` (of the `x${n}` when it is the first item on the `case` line)
    items = ['x${n}y|*" -S "*', "-${o}s", "(v${A}.${B}|b", 'a$\'b\'" c"']
    head = "case $p in " if first else "case $p in\n  z) ;;\n  "
    data = (head + ") :;;\n  ".join(items) + ") :;;\nesac\n").encode()
    parsed = parse(SourceFile("x.sh", data))
    assert parsed.problems == []
    case = parsed.root.children[0]
    patterns = [
        [(c.type, c.text) for c in item.children[: [k.type for k in item.children].index(")")] if c.named]
        for item in case.children
        if item.type == "case_item"
    ]
    assert patterns[-4:] == [
        [("concatenation", "x${n}y"), ("concatenation", '*" -S "*')],
        [("concatenation", "-${o}s")],
        [("concatenation", "v${A}.${B}"), ("word", "b")],
        [("concatenation", 'a$\'b\'" c"')],
    ]
    stack = [case]  # every node's text is the file's at its position (the ERROR pieces parsed alone)
    while stack:
        n = stack.pop()
        stack.extend(n.children)
        assert n.text == data[n.start : n.end].decode() and (n.type != "variable_name" or n.text in ("p", "n", "o", "A", "B"))


def test_a_tilde_starting_a_test_operand_is_a_word():
    # tree-sitter-bash reads it as arithmetic's bitwise not: `-d (~ /x)`, `~ (== /h)`
    data = b'[[ -d ~/x ]]\n[[ ~ == /h && $a =~ b ]]\n[ ~/x = y ]\n[[ $((~1)) == -2 ]]\n'
    parsed = parse(SourceFile("x.sh", data))
    assert parsed.problems == []

    def shape(n):
        if n.type in ("binary_expression", "unary_expression"):
            return [shape(c) if c.named else c.text for c in n.children]
        return (n.type, n.text)

    assert [shape(t.children[1]) for t in parsed.root.children] == [
        [("test_operator", "-d"), ("word", "~/x")],
        [[("word", "~"), "==", ("word", "/h")], "&&", [("simple_expansion", "$a"), "=~", ("word", "b")]],
        [("word", "~/x"), "=", ("word", "y")],
        [("arithmetic_expansion", "$((~1))"), "==", [("-"), ("number", "2")]],
    ]


def test_double_bracket_operands_and_regex_matches_are_bashs():
    # the pattern after `==` is one word (positions the file's) and `=~` takes the operands next
    # to it: each test below is one comparison, joined by `&&` / `||` / `!` as bash joins them
    data = (
        b'[[ $p == x${o}y && -n a ]]\n[[ $p != *" -S "* ]]\n[[ $p == -${o}[abc] || $q = x$(echo q)y ]]\n'
        b'[[ -n a && ! $x =~ ^a$ ]]\n[[ $x =~ "re" || $y =~ b ]]\n'
    )
    parsed = parse(SourceFile("x.sh", data))
    assert parsed.problems == []

    def shape(n):
        if n.type in ("binary_expression", "unary_expression"):
            return [shape(c) if c.named else c.text for c in n.children]
        return n.text

    assert [shape(t.children[1]) for t in parsed.root.children if t.type == "test_command"] == [
        [["$p", "==", "x${o}y"], "&&", ["-n", "a"]],
        ["$p", "!=", '*" -S "*'],
        [["$p", "==", "-${o}[abc]"], "||", ["$q", "=", "x$(echo q)y"]],
        [["-n", "a"], "&&", ["!", ["$x", "=~", "^a$"]]],
        [["$x", "=~", '"re"'], "||", ["$y", "=~", "b"]],
    ]
    stack = [parsed.root]
    while stack:
        n = stack.pop()
        stack.extend(n.children)
        assert n.text == data[n.start : n.end].decode()


def _shape(parsed) -> list:
    out, stack = [], [(parsed.root, 0)]
    while stack:
        n, d = stack.pop()
        out.append((d, n.type, n.start, n.end, n.fields))
        stack.extend((c, d + 1) for c in reversed(n.children))
    return out + [(p.loc.start, p.message) for p in parsed.problems]


@pytest.mark.parametrize(
    "text",
    [
        "a && b > f\n",
        "a || b 2>&1 | c\n",
        "[[ a && $x =~ r ]] && b > f\n",
        "[[ $(x && y > f) && z =~ r ]] > g 2>&1 | h\n",
        "x=$( [[ ! $(p | q > g) =~ ^a ]] && c || d >> e ) && [[ $(a && b > c) =~ d || e ]] > f\n",
        "while [[ $(a && b >f) =~ x ]]; do c || d >> e; done 2>&1 | tee l\n",
        'case $x in *" a "*) a && b > f ;; esac\n',  # (a pass before them made nodes: the tree is walked)
        '[[ $x == *" $(a && b > f) "* ]] && c > g\n',  # (an operand parsed apart: the same)
    ],
)
def test_parent_lists_give_the_tree_a_walk_gives(text, monkeypatch):
    # `_regex_operands` and `_relocate_redirects` take the parents `_convert` listed instead of
    # walking the tree: the same tree either way
    import recipelint.bash.parse as P

    src = SourceFile("x.sh", text.encode())
    listed = _shape(parse(src))
    convert = P._convert
    monkeypatch.setattr(P, "_convert", lambda *a, **k: convert(*a, **k)[:4] + (None,))
    assert _shape(parse(src)) == listed


@pytest.mark.parametrize("text", ["python3 - <<EOF &\n", "cat <<EOF ;  \n", 'cat <<"EOF" | tr a b &\n', "cat <<-EOF > f;\n"])
def test_a_terminator_ending_a_here_document_line_is_no_error(text):
    parsed = parse(SourceFile("x.sh", (text + "body $X\nEOF\nvllm serve m\n").encode()))
    assert parsed.problems == []


@pytest.mark.parametrize(
    "line, col, delim",
    [("cat <<EOF&&echo hi", 7, "EOF&&echo"), ("cat << EOF>f", 8, "EOF>f"), ("cat <<-EOF|grep x", 8, "EOF|grep")],
)
def test_an_operator_glued_to_a_here_document_delimiter_is_reported(line, col, delim):
    # tree-sitter-bash takes `EOF;` for the delimiter: the document never ends, the rest of the
    # file would silently be its text
    parsed = parse(SourceFile("x.sh", (line + "\nbody\nEOF\nvllm serve m\n").encode()))
    assert [(p.loc.span.line, p.loc.span.col) for p in parsed.problems][0] == (1, col)  # (then: no end)
    assert f"here-document delimiter '{delim}'" in parsed.problems[0].message


@pytest.mark.parametrize(
    "text", ["cat <<EOF;echo hi\n", "cat <<EOF; echo hi; X=1\n", "cat <<EOF & echo hi\n", "cat <<EOF > f; chmod +x f\n"]
)
def test_statements_after_a_here_documents_start_are_read(text):
    # tree-sitter-bash drops them (`<<EOF;`: takes the `;` into the delimiter)
    parsed = parse(SourceFile("x.sh", (text + "body\nEOF\nvllm serve m\n").encode()))
    assert parsed.problems == []
    tops = [c for c in parsed.root.children if c.named]
    assert [c.text.split()[0] for c in tops][1:] == [w.split()[0] for w in text.replace("&", ";").split(";")[1:]] + ["vllm"]


_SHIFT_REST = b"(( 0 + !((0, 0)) << $d + 10#$d )); emit a\n"
_SHIFT_OR = b"(( 0 * !((0, 0)) << $d + 10#$d )) ||\nemit b\n"


def test_a_shift_in_arithmetic_is_no_here_document_start():
    # tree-sitter-bash reads `<< $d` after `((0, 0))` as a here-document until the `,` is repaired:
    # the rest of the line stays a statement, the `||` ending it an operator
    for text, shape in ((_SHIFT_REST, ["compound_statement", "command"]), (_SHIFT_OR, ["list"])):
        parsed = parse(SourceFile("x.sh", text))
        assert parsed.problems == []
        assert [c.type for c in parsed.root.children if c.named] == shape


def test_a_here_document_line_recipelint_cannot_rebuild_is_reported(monkeypatch):
    # were a `<<` read as a here-document's start that the other repairs then undo, the rest of
    # its line and an operator ending it would hold no statement to go to: reported, never dropped
    import recipelint.bash.repairs.heredocs as parse_mod

    def every_start(tree, data):
        for n in (
            parse_mod.tree_sitter.QueryCursor(parse_mod._query("heredoc_starts", "(heredoc_start) @s"))
            .captures(tree.root_node)
            .get("s", [])
        ):
            nl = data.find(b"\n", n.end_byte)
            yield n, nl if nl >= 0 else len(data)

    monkeypatch.setattr(parse_mod, "_heredoc_lines", every_start)
    for text, col, what in ((_SHIFT_REST, 34, "statements"), (_SHIFT_OR, 35, "'||'")):
        parsed = parse(SourceFile("x.sh", text))
        assert [(p.loc.span.line, p.loc.span.col, p.message) for p in parsed.problems] == [
            (1, col, f"{what} after a here-document's start: not understood")
        ]


def test_a_bang_after_a_pipe_is_a_syntax_error():
    # bash: "syntax error near unexpected token `!'"; the grammar takes it
    parsed = parse(SourceFile("x.sh", b"true | ! false\ncat <<EOF |\nbody\nEOF\n! true\n! a | b\na | { ! b; }\n"))
    assert [(p.loc.span.line, p.loc.span.col, p.message) for p in parsed.problems] == [
        (1, 8, "syntax error: bash takes '!' only before a whole pipeline, not after '|'"),
        (5, 1, "syntax error: bash takes '!' only before a whole pipeline, not after '|'"),
    ]


def test_backquoted_commands_side_by_side_are_reported():
    # tree-sitter-bash reads `a` `b` (and `a``b`) as one command holding an empty substitution:
    # never silent.  One backquoted command, or two with a word between, read right: no problem
    parsed = parse(SourceFile("x.sh", b'emit `echo a` `echo b`\nx="`date``id`"\ncat <<EOF\n`a`  `b`\nEOF\n'))
    assert [(p.loc.span.line, p.loc.span.col) for p in parsed.problems] == [(1, 13), (2, 9), (4, 3)]
    assert all("two backquoted commands side by side, or an empty one" in p.message for p in parsed.problems)
    assert parse(SourceFile("x.sh", b"emit `echo a` x `echo b`\ncat <<'EOF'\n`a` `b`\nEOF\n# `a` `b`\n")).problems == []


def test_a_here_document_end_that_is_not_its_delimiter_is_reported():
    # tree-sitter-bash takes `\\` ending the line before the delimiter, after a backslash-newline
    # that follows an expansion, for a line continuation: the document runs on over `EOF` to
    # `vllm serve m`, silently.  Reported; quoted and `<<-` delimiters are matched as bash does
    parsed = parse(SourceFile("x.sh", b"cat > f <<EOF\nt$X\\\n  \\\\\nEOF\nvllm serve m\n"))
    assert [(p.loc.span.line, p.loc.span.col) for p in parsed.problems] == [(5, 1)]
    assert "cannot tell where this here-document ends" in parsed.problems[0].message
    assert parse(SourceFile("x.sh", b"cat <<'E F'\nx\nE F\ncat <<-\"EOF\"\n\tx\n\tEOF\ncat <<\\EOF\nq\nEOF\n")).problems == []


def test_a_quoted_delimiter_may_hold_an_operator():
    assert parse(SourceFile("x.sh", b"cat <<'E;F'\nbody\nE;F\nvllm serve m\n")).problems == []


def test_two_here_documents_starting_on_one_line_are_reported():
    # tree-sitter-bash gives the first body to the second document and the rest of the file to
    # the first: reported, never silent
    parsed = parse(SourceFile("x.sh", b"read -r A <<EOF && read -r B <<EOF2\na\nEOF\nb\nEOF2\nvllm serve m\n"))
    assert [(p.loc.span.line, p.loc.span.col) for p in parsed.problems][0] == (1, 32)
    assert "second here-document" in parsed.problems[0].message
    assert parse(SourceFile("x.sh", b"cat <<A\na\nA\ncat <<B\nb\nB\n")).problems == []


def _structure(n):
    kids = [_structure(c) for c in n.children if c.named and c.type not in ("heredoc_redirect", "command_name", "word")]
    return (n.type, *kids) if kids else n.type


def test_a_here_document_tail_is_rebuilt_with_bash_precedence():
    stmt = parse(SourceFile("x.sh", b"! a <<EOF | b && c || d\nx\nEOF\n")).root.children[0]
    # ((! (a <<EOF | b)) && c) || d
    assert _structure(stmt) == (
        "list",
        ("list", ("negated_command", ("pipeline", ("redirected_statement", "command"), "command")), "command"),
        "command",
    )


@pytest.mark.parametrize(
    "text, shape",
    [
        # tree-sitter-bash: `a | ((b | c) || d)`
        ("a | b | c || d", ("list", ("pipeline", "command", "command", "command"), "command")),
        (
            "x=$(a | b | c && d || e)",
            (
                "variable_assignment",
                "variable_name",
                ("command_substitution", ("list", ("list", ("pipeline", "command", "command", "command"), "command"), "command")),
            ),
        ),
        (
            "a | b | c | d && e | f | g",
            ("list", ("pipeline", "command", "command", "command", "command"), ("pipeline", "command", "command", "command")),
        ),
        ("a | b || c", ("list", ("pipeline", "command", "command"), "command")),  # (read right already)
        # an operator ending a here-document's line: the operand is the statement after the document
        (
            "a && cat <<EOF ||\nx\nEOF\n# c\n\nb | c && d",
            (
                "list",
                ("list", ("list", "command", ("redirected_statement", "command")), ("pipeline", "command", "command")),
                "command",
            ),
        ),
        # comments between the parts of a list are not parts (`a &&`, a comment line, `b` ran `b` always)
        (
            "false &&\n  # c\n  b ||\n  # d\n  e | # f\n  g",
            ("list", ("list", "command", "command"), ("pipeline", "command", "command")),
        ),
        # redirections of two statements nested in each other, moved to their commands (the inner
        # move replaced the outer statement's body: the outer one moved a stale copy, `c` twice)
        (
            "{ a; } >/dev/null && b <f | c >g && d",
            (
                "list",
                (
                    "list",
                    ("redirected_statement", ("compound_statement", "command"), "file_redirect"),
                    (
                        "pipeline",
                        ("redirected_statement", "command", "file_redirect"),
                        ("redirected_statement", "command", "file_redirect"),
                    ),
                ),
                "command",
            ),
        ),
        # `! a >/dev/null | b`: the `!` negates the pipeline (tree-sitter-bash: `((! a) >/dev/null) | b`), in the
        # shape `! a | b` is read in
        (
            "! a >/dev/null | b && c",
            (
                "list",
                ("pipeline", ("negated_command", ("redirected_statement", "command", "file_redirect")), "command"),
                "command",
            ),
        ),
    ],
)
def test_pipelines_before_and_or_take_bash_precedence(text, shape):
    assert _structure(parse(SourceFile("x.sh", (text + "\n").encode())).root.children[0]) == shape
