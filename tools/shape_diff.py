"""Compare the shape of recipelint's syntax trees with shfmt's, file by file (a second,
independent bash parser as an oracle for tree-sitter-bash's silent misreadings).

    python tools/shape_diff.py FILE.sh ...        (needs `shfmt` on PATH: Debian package `shfmt`)

For each file that shfmt parses and recipelint parses without a problem, both trees are reduced
to the same facts — every simple command (its first word's offset, its last word's end, its word
count), every statement of assignments, the command each redirection belongs to, every
case pattern, for-loop word, array element, declared name, `[[ ]]` operator with its operands, `${...}` name
and words, every `|`, `&&`, `||` with where its operands' first commands start (precedence), and
the line that ends each here-document, how many parts of a pipeline each `!` negates, and where each compound statement (`if`, loops, `case`,
groups, subshells, functions) starts and ends, and what each redirection names — and the facts only one side has are printed with their line.  A difference is a lead, not a verdict:
reduce it and ask real bash (shfmt itself misreads a `#` inside a word, and attaches a
function's redirections elsewhere).  Development tool: it runs shfmt, never the recipes.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from recipelint.bash.parse import parse
from recipelint.bash.source import SourceFile

#: commands the two parsers shape differently on purpose (test, declarations, `unset`, `let`)
SKIP_FIRST = {"unset", "[", "test", "declare", "local", "export", "readonly", "typeset", "let", "eval"}
REDIRECTS = ("file_redirect", "heredoc_redirect", "herestring_redirect")


def shfmt_facts(data: bytes) -> set | None:
    r = subprocess.run(["shfmt", "-ln", "bash", "--to-json"], input=data, capture_output=True)
    if r.returncode:
        return None
    out: set = set()
    bodies: set[int] = set()  # where function bodies start
    stack = [(json.loads(r.stdout), False)]
    while stack:
        n, arith = stack.pop()
        if isinstance(n, list):
            stack.extend((x, arith) for x in n)
            continue
        if not isinstance(n, dict):
            continue
        if n.get("Type") in ("ParamExp", "CmdSubst", "ArithmExp") and (not arith or n["Type"] == "CmdSubst"):  # every expansion
            out.add(("expansion", n["Pos"]["Offset"], n["End"]["Offset"]))
        if n.get("Type") in ("ArithmExp", "ArithmCmd", "CStyleLoop", "LetClause"):
            arith = True  # (recipelint reads arithmetic from its text: no `${...}` facts there)
        elif n.get("Type") == "CmdSubst":
            arith = False
        if n.get("Type") in _COMPOUND and not arith:  # where each compound statement starts and ends
            end = n["End"]["Offset"]
            if n["Type"] == "FuncDecl":  # (`f() { ...; } && g`: shfmt's body is `{ ...; } && g`)
                body = (n.get("Body") or {}).get("Cmd") or {}
                while body.get("Type") == "BinaryCmd":
                    body = body["X"].get("Cmd") or {}
                end = body.get("End", n["End"])["Offset"]
            out.add(("compound", n["Pos"]["Offset"], end, _COMPOUND[n["Type"]]))
        if n.get("Hdoc") and n["Hdoc"]["End"]["Offset"] > n["Hdoc"]["Pos"]["Offset"]:  # the line ending each document
            at = n["Word"]["Pos"]["Offset"]
            out.add(("heredoc", at, at + 1, data.count(b"\n", 0, n["Hdoc"]["End"]["Offset"]) + 1))
        if n.get("Redirs") and n.get("Cmd"):
            out.update(("redirect", r["OpPos"]["Offset"], n["Cmd"]["Pos"]["Offset"]) for r in n["Redirs"])
        for r in n.get("Redirs") or []:  # what each redirection names (not a here-document's delimiter)
            at, word = r["OpPos"]["Offset"], r.get("Word")
            if word is None or data[at:].startswith(b"<<") and not data[at:].startswith(b"<<<"):
                continue
            if data[word["Pos"]["Offset"] : word["End"]["Offset"]] == b"-" and data[at + 1 : at + 2] == b"&":
                continue  # (`>&-`: one operator to tree-sitter-bash)
            out.add(("redirect-target", word["Pos"]["Offset"], word["End"]["Offset"]))
        # a case item's patterns, a for loop's words, an array's elements (from the `[` of an index)
        out.update(("pattern", w["Pos"]["Offset"], w["End"]["Offset"]) for w in n.get("Patterns") or [])
        if n.get("Type") == "WordIter":
            out.update(("for-word", w["Pos"]["Offset"], w["End"]["Offset"]) for w in n.get("Items") or [])
        for e in n.get("Elems") or []:
            if "Pos" in e and "End" in e:
                out.add(
                    ("element", e["Index"]["Pos"]["Offset"] - 1 if e.get("Index") else e["Pos"]["Offset"], e["End"]["Offset"])
                )
        if n.get("Type") == "ParamExp" and not n.get("Short") and n.get("Param") and not arith:  # `${...}`: the name, the words
            at = n["Dollar"]["Offset"]
            out.add(("parameter", at, n["Param"]["Pos"]["Offset"], n["Param"]["End"]["Offset"]))
            words = [(n.get("Exp") or {}).get("Word"), (n.get("Repl") or {}).get("Orig"), (n.get("Repl") or {}).get("With")]
            out.update(
                ("parameter-word", w["Pos"]["Offset"], w["End"]["Offset"], at)
                for w in words
                if w and w["End"]["Offset"] > w["Pos"]["Offset"]
            )
        if n.get("Type") == "TestClause":  # in `[[ ]]`: each operator and its operands' span
            out.update(_test_facts(_bash_logic(_bash_not(_test_tree(n["X"], data)))))
        if n.get("Type") == "DeclClause":
            out.update(("declared", w["Pos"]["Offset"], w["End"]["Offset"]) for w in n.get("Args") or [])
        if n.get("Type") == "FuncDecl" and (n.get("Body") or {}).get("Pos"):
            bodies.add(n["Body"]["Pos"]["Offset"])
        # `|`, `|&`, `&&`, `||`: where each operand's first command starts (shfmt reads `f() { ...; } && g`
        # as a function whose body is `{ ...; } && g`, bash as a definition and `g`: not compared)
        if n.get("Type") == "BinaryCmd" and _shfmt_first(n["X"]) not in bodies:
            at = n["OpPos"]["Offset"]
            out.add(("binary", at, at + len(_op_text(data, at)), _shfmt_first(n["X"]), _shfmt_first(n["Y"])))
        if n.get("Negated") and n.get("Cmd"):  # what a `!` negates: how many parts of a pipeline
            out.add(("negated", n["Pos"]["Offset"], _shfmt_pipe_parts(n["Cmd"], data)))
        if n.get("Type") == "CallExpr":
            args, assigns = n.get("Args") or [], n.get("Assigns") or []
            if args:
                first = "".join(p.get("Value", "?") for p in args[0].get("Parts", []) if p.get("Type") == "Lit")
                if first not in SKIP_FIRST:
                    out.add(("command", args[0]["Pos"]["Offset"], args[-1]["End"]["Offset"], len(args)))
            elif assigns:
                out.add(("assignments", assigns[0]["Pos"]["Offset"], assigns[-1]["End"]["Offset"], len(assigns)))
        stack.extend((v, arith) for k, v in n.items() if k not in ("Pos", "End"))
    return out


#: shfmt's compound statements and recipelint's names for them
_COMPOUND = {
    "IfClause": "if",
    "WhileClause": "while",
    "ForClause": "for",
    "CaseClause": "case",
    "Block": "group",
    "Subshell": "subshell",
    "FuncDecl": "function",
}
_OUR_COMPOUND = {
    "if_statement": "if",
    "while_statement": "while",
    "for_statement": "for",
    "c_style_for_statement": "for",
    "case_statement": "case",
    "subshell": "subshell",
    "function_definition": "function",
}


def _op_text(data: bytes, at: int) -> str:
    two = data[at : at + 2]
    return two.decode() if two in (b"&&", b"||", b"|&") else data[at : at + 1].decode()


def _shfmt_pipe_parts(cmd, data: bytes) -> int:
    if cmd.get("Type") == "BinaryCmd" and _op_text(data, cmd["OpPos"]["Offset"]) in ("|", "|&"):
        return sum(_shfmt_pipe_parts(x.get("Cmd") or {}, data) for x in (cmd["X"], cmd["Y"]))
    return 1


def _shfmt_first(stmt) -> int:
    """Where the first command of a statement starts (past a `!`)."""
    cmd = stmt.get("Cmd") or {}
    while cmd.get("Type") == "BinaryCmd":
        cmd = cmd["X"].get("Cmd") or {}
    return cmd.get("Pos", stmt.get("Pos", {})).get("Offset", -1)


_AND, _OR, _NOT = 10, 11, 34  # shfmt's codes of `&&`, `||` and `!` in `[[ ]]`
_CODES = {_AND: "&&", _OR: "||", _NOT: "!"}


def _test_tree(x, data: bytes):
    """shfmt's test expression as (operator, operator offset, start, end, operands)."""
    t = x.get("Type")
    if t in ("BinaryTest", "UnaryTest"):
        at = x["OpPos"]["Offset"]
        op = _CODES.get(x["Op"]) or data[at:].split(None, 1)[0].decode("utf-8", "replace")
        kids = [x["X"], x["Y"]] if t == "BinaryTest" else [x["X"]]
        return (op, at, x["Pos"]["Offset"], x["End"]["Offset"], [_test_tree(k, data) for k in kids])
    if t == "ParenTest":
        return ("()", None, x["Pos"]["Offset"], x["End"]["Offset"], [_test_tree(x["X"], data)])
    return (None, None, x["Pos"]["Offset"], x["End"]["Offset"], [])


def _bash_not(e):
    """shfmt gives `!` the rest of the expression (`! a && b` as `!(a && b)`); bash, the operand
    after it (`(! a) && b`)."""
    op, at, a, b, kids = e
    kids = [_bash_not(k) for k in kids]
    if op == "!" and kids[0][0] in ("&&", "||"):
        inner = kids[0]
        left = _bash_not(("!", at, a, inner[4][0][3], [inner[4][0]]))
        return _bash_not((inner[0], inner[1], a, b, [left, inner[4][1]]))
    return (op, at, a, b, kids)


def _bash_logic(e):
    """shfmt nests `&&` and `||` to the right with one precedence (`a && b || c` as
    `a && (b || c)`); bash binds `&&` tighter, both to the left (`(a && b) || c`)."""
    op, at, a, b, kids = e
    if op not in ("&&", "||"):
        return (op, at, a, b, [_bash_logic(k) for k in kids])
    seq, todo = [], [e]  # operands and operators in text order
    while todo:
        x = todo.pop()
        if len(x) == 2:  # an operator
            seq.append(x)
        elif x[0] in ("&&", "||"):
            todo += [x[4][1], (x[0], x[1]), x[4][0]]
        else:
            seq.append(_bash_logic(x))

    def join(items, ops):
        out = items[0]
        for (o, where), nxt in zip(ops, items[1:]):
            out = (o, where, out[2], nxt[3], [out, nxt])
        return out

    groups, ops_or, cur, ops_and = [], [], [seq[0]], []
    for i in range(1, len(seq), 2):
        o, nxt = seq[i], seq[i + 1]
        if o[0] == "&&":
            cur.append(nxt)
            ops_and.append(o)
        else:
            groups.append(join(cur, ops_and))
            ops_or.append(o)
            cur, ops_and = [nxt], []
    groups.append(join(cur, ops_and))
    return join(groups, ops_or)


def _test_facts(e) -> set:
    """Each operator with its operands' span; a chain of one logical operator as one fact (shfmt
    nests `a && b && c` to the right, tree-sitter-bash to the left)."""
    op, at, a, b, kids = e
    if op in ("&&", "||"):
        ops, operands, todo = [], [], [e]
        while todo:
            x = todo.pop()
            if x[0] == op:
                ops.append(x[1])
                todo.extend(x[4])
            else:
                operands.append(x)
        out = {("test", a, b, op, tuple(sorted(ops)))}
        for k in operands:
            out |= _test_facts(k)
        return out
    out = {("test", a, b, op, at)} if at is not None else set()
    for k in kids:
        out |= _test_facts(k)
        if op not in (None, "()"):  # (an operand cut in two is two)
            out.add(("operand", k[2], k[3]))
    return out


#: the operators after which an expansion's word comes (one word), or its pattern (then `/` and
#: the replacement)
_WORD_OPERATORS = {":-", "-", ":=", "=", ":+", "+", ":?", "?", "#", "##", "%", "%%", ",", ",,", "^", "^^"}
_REPLACE_OPERATORS = {"/", "//", "/#", "/%"}


def _our_parameter(n) -> set:
    """``${...}``'s name and words, as ``shfmt_facts`` has them."""
    kids = list(n.children)
    if not kids or kids[0].type != "${":
        return set()
    k = 1
    if k < len(kids) and kids[k].type in ("!", "#") and k + 1 < len(kids) and kids[k + 1].named:
        k += 1  # `${!p}`, `${#X}`
    if k >= len(kids) or not kids[k].named:
        return set()
    name = kids[k].field("name") if kids[k].type == "subscript" else kids[k]
    if name is None:
        return set()
    out = {("parameter", n.start, name.start, name.end)}
    rest = [c for c in kids[k + 1 :] if c.type != "}"]
    if not rest or rest[0].named:
        return out
    op, words = rest[0], [[]]
    for c in rest[1:]:
        if c.type == "/" and op.type in _REPLACE_OPERATORS and len(words) == 1:
            words.append([])
        else:
            words[-1].append(c)
    if op.type not in _WORD_OPERATORS | _REPLACE_OPERATORS:
        return out
    if op.type in _REPLACE_OPERATORS and "\\" in n.text:  # (`${M//\//_}`: the evaluator splits the text)
        data, end = n.src.data, n.end - 1
        i = op.end
        while i < end and data[i : i + 1] != b"/":
            i += 2 if data[i : i + 1] == b"\\" else 1
        start = op.end - 1 if op.type in ("/#", "/%") else op.end
        if i > start:
            out.add(("parameter-word", start, min(i, end), n.start))
        if i + 1 < end:
            out.add(("parameter-word", i + 1, end, n.start))
        return out
    for i, w in enumerate(words):
        if w:
            # (shfmt: the anchor is the pattern's; the evaluator reads blanks after the operator)
            start = op.end - 1 if i == 0 and op.type in ("/#", "/%") else op.end if i == 0 else w[0].start
            out.add(("parameter-word", start, w[-1].end, n.start))
    return out


def _our_test(n):
    """recipelint's test expression in ``_test_tree``'s shape."""
    if n.type == "binary_expression":
        op = next((c for c, f in zip(n.children, n.fields) if f == "operator"), None)
        kids = [c for c, f in zip(n.children, n.fields) if f in ("left", "right")]
        return (
            op.text if op is not None else "?",
            op.start if op is not None else None,
            n.start,
            n.end,
            [_our_test(k) for k in kids],
        )
    if n.type == "unary_expression" and n.children:
        return (n.children[0].text, n.children[0].start, n.start, n.end, [_our_test(k) for k in n.children[1:] if k.named])
    if n.type == "parenthesized_expression":
        return ("()", None, n.start, n.end, [_our_test(k) for k in n.children if k.named])
    return (None, None, n.start, n.end, [])


def _children(n):
    """What to walk under ``n``: in `$(( ))` and `(( ))` only its command substitutions, in a C-style `for`
    only its body (shfmt keeps arithmetic out of commands)."""
    if n.type == "arithmetic_expansion" or n.type == "compound_statement" and n.children and n.children[0].type == "((":
        out, stack = [], list(n.children)
        while stack:
            x = stack.pop()
            if x.type == "command_substitution":
                out.append(x)
            else:
                stack.extend(x.children)
        return out
    if n.type == "c_style_for_statement":
        return [c for c, f in zip(n.children, n.fields) if f == "body" or c.type in ("do_group", "compound_statement")]
    return list(n.children)


def _operator(r) -> int:
    return next((c.start for c in r.children if c.type != "file_descriptor"), r.start)


def _body_start(b) -> int:
    while b.type == "negated_command":
        b = [c for c in b.children if c.named][0]
    if b.type == "command":
        return next((c.start for c in b.children if c.type not in REDIRECTS), b.start)
    return b.start


def _first_node(n):
    while n.type in ("list", "pipeline", "negated_command", "redirected_statement"):
        n = (
            n.field("body")
            if n.type == "redirected_statement" and n.field("body") is not None
            else [c for c in n.children if c.named][0]
        )
    return n


def _first(n) -> int:
    """Where the first command of a statement starts (past a `!`, before its redirections)."""
    n = _first_node(n)
    if n.type == "command":
        return min((c.start for c in n.children if c.type not in REDIRECTS), default=n.start)
    return n.start


def recipelint_facts(data: bytes) -> set | None:
    parsed = parse(SourceFile(Path("x.sh"), data))
    if parsed.problems:
        return None
    out: set = set()
    negated: set[int] = set()  # the `!`s of pipelines (`(! a) | b`): counted there
    stack = [parsed.root]
    while stack:
        n = stack.pop()
        kids = _children(n)
        stack.extend(kids)
        if n.type == "command":
            words = sorted(
                [c for c, f in zip(n.children, n.fields) if f in ("name", "argument")] + list(n.extra), key=lambda c: c.start
            )
            if words and words[0].text not in SKIP_FIRST:
                out.add(("command", words[0].start, words[-1].end, len(words)))
            if any(c.type == "command_name" for c in n.children):
                out.update(("redirect", _operator(c), _body_start(n)) for c in n.children if c.type in REDIRECTS)
        elif n.type == "redirected_statement" and n.field("body") is not None:
            body = n.field("body")
            for c in n.children:
                if c.type in REDIRECTS:
                    out.add(("redirect", _operator(c), _body_start(body)))
                    out.update(("redirect", _operator(cc), _body_start(body)) for cc in c.children if cc.type in REDIRECTS)
        if n.type == "negated_command":  # what a `!` negates: how many parts of a pipeline (`(! a) | b`: the whole)
            first = n.children[0].start
            if first not in negated:
                inner = [c for c in n.children if c.named]
                out.add(
                    (
                        "negated",
                        first,
                        len([c for c in inner[0].children if c.named]) if inner and inner[0].type == "pipeline" else 1,
                    )
                )
        if n.type == "pipeline" and n.children and n.children[0].type == "negated_command":
            negated.add(n.children[0].children[0].start)
            out.add(("negated", n.start, len([c for c in n.children if c.named])))
        if n.type in ("list", "pipeline"):  # operators, each with its operands' first commands (left-nested, as bash)
            parts = [c for c in n.children if c.named]
            ops = [c for c in n.children if not c.named and c.type in ("|", "|&", "&&", "||")]
            if len(parts) == len(ops) + 1:
                if _first_node(parts[0]).type != "function_definition":
                    out.update(("binary", op.start, op.end, _first(parts[0]), _first(parts[i + 1])) for i, op in enumerate(ops))
        kind = _OUR_COMPOUND.get(n.type) or (
            "group" if n.type == "compound_statement" and n.children and n.children[0].type == "{" else None
        )
        if kind is not None:
            out.add(("compound", n.start, n.end, kind))
        if n.type in ("file_redirect", "herestring_redirect"):
            target = next((c for c in n.children if c.named and c.type != "file_descriptor"), None)
            if target is not None:
                out.add(("redirect-target", target.start, target.end))
        if n.type == "heredoc_redirect":
            start = next((c for c in n.children if c.type == "heredoc_start"), None)
            body = next((c for c in n.children if c.type == "heredoc_body"), None)
            end = next((c for c in n.children if c.type == "heredoc_end"), None)
            if start is not None and body is not None and end is not None and body.end > body.start:
                out.add(("heredoc", start.start, start.start + 1, data.count(b"\n", 0, end.start) + 1))
        if n.type == "for_statement":
            out.update(("for-word", c.start, c.end) for c in n.fields_all("value"))
        elif n.type == "variable_assignment" and n.field("value") is not None and n.field("value").type == "array":
            # (an array in `${X:+(a b)}` is text)
            out.update(("element", c.start, c.end) for c in n.field("value").children if c.named and c.type != "comment")
        elif n.type == "declaration_command":
            out.update(("declared", c.start, c.end) for c in n.children[1:] if c.named and c.type != "comment")
        if n.type in ("simple_expansion", "expansion", "command_substitution", "arithmetic_expansion"):
            out.add(("expansion", n.start, n.end))
        if n.type == "expansion":
            out.update(_our_parameter(n))
        if n.type == "test_command" and n.children and n.children[0].type == "[[":
            for t in n.children:
                if t.named:
                    out.update(_test_facts(_our_test(t)))
        if n.type == "case_item":
            paren = next((c.start for c in n.children if c.type == ")"), n.end)
            out.update(("pattern", c.start, c.end) for c in n.children if c.named and c.end <= paren)
        for c in kids:
            assigns = (
                [c]
                if c.type == "variable_assignment"
                else [x for x in c.children if x.type == "variable_assignment"]
                if c.type == "variable_assignments"
                else []
            )
            if assigns and n.type not in ("command", "variable_assignments", "declaration_command"):
                out.add(("assignments", assigns[0].start, assigns[-1].end, len(assigns)))
    return out


def main(paths: list[str]) -> int:
    compared = differ = 0
    for path in paths:
        data = Path(path).read_bytes()
        theirs = shfmt_facts(data)
        ours = recipelint_facts(data) if theirs is not None else None
        if ours is None:
            continue
        compared += 1
        if ours == theirs:
            continue
        differ += 1
        print(f"== {path}")
        for who, facts in (("shfmt", theirs - ours), ("recipelint", ours - theirs)):
            for f in sorted(facts, key=lambda x: x[1])[:3]:
                line = data.count(b"\n", 0, f[1]) + 1
                print(f"  {who:10s} line {line}: {f} {data[f[1] : f[2]][:80]!r}")
    print(f"files compared: {compared}, differing: {differ}")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
