"""Summaries of calls and statements (recipelint.evaluate.summaries): a replay gives exactly what evaluating
again gives.  Each case runs with summaries on and off and compares every path, event, text
and location; the cases are built so that a wrong replay would change a value."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest
from helpers import FIXTURES, dedent, dump

from recipelint.bash.parse import parse
from recipelint.bash.source import SourceFile
from recipelint.evaluate.evaluator import Evaluator
from recipelint.evaluate.state import Limits
from recipelint.evaluate.values import text_of
from recipelint.lint.analysis import Analyzer
from recipelint.lint.check import Options, lint


def run(src: str, env: dict | None = None, summaries: bool = True):
    """Paths of a snippet; events are the argv texts of `serve` commands."""
    parsed = parse(SourceFile("/virtual/m.sh", dedent(src).encode()))

    def hook(state, cmd):
        if cmd.argv and cmd.argv[0].text == "serve":
            return tuple(w.text for w in cmd.argv[1:])
        return None

    ev = Evaluator(Path("/virtual/m.sh"), hook, Limits(summaries=summaries))
    return ev.run(parsed, env or {}), ev


def both(src: str, env: dict | None = None):
    """Paths with summaries, after checking they equal the paths without, and how many
    replays there were."""
    on, ev = run(src, env, True)
    off, _ = run(src, env, False)
    assert dump(on) == dump(off)
    return on, ev.replays


def on_and_off(src: str, envs: list[dict]):
    """The paths of each environment, run one after the other by one evaluator (so later points
    can replay earlier ones), after checking they equal the paths without summaries; and how
    many replays there were."""
    parsed = parse(SourceFile("/virtual/m.sh", dedent(src).encode()))
    results = {}
    for summaries in (True, False):
        ev = Evaluator(
            Path("/virtual/m.sh"),
            lambda st, c: tuple(w.text for w in c.argv[1:]) if c.argv[0].text == "serve" else None,
            Limits(summaries=summaries),
        )
        results[summaries] = ([ev.run(parsed, env) for env in envs], ev.replays)
    assert dump(results[True][0]) == dump(results[False][0])
    return results[True]


def served(paths) -> list[tuple]:
    return [e for p in paths for e in p.events]


def test_a_global_read_by_the_function_is_part_of_the_summary():
    paths, replays = both("""
        f() { OUT="x$X"; }
        X=1; f; A=$OUT
        f; B=$OUT
        X=2; f; C=$OUT
        serve "$A" "$B" "$C"
    """)
    assert served(paths) == [("x1", "x1", "x2")]
    assert replays == 1  # the second call only (X=1 again on another line would be another value:
    #                      values remember where they were written)


def test_a_callers_local_is_read_through_dynamic_scoping():
    paths, replays = both("""
        g() { R="$L"; }
        f() { local L=$1; g; }
        for i in 1 2; do f a; A="$A$R"; done
        f b; C=$R
        serve "$A" "$C"
    """)
    assert served(paths) == [("aa", "b")]
    assert replays >= 1


def test_a_join_depends_on_the_value_the_function_did_not_change():
    # both branches leave Y=1 the first time (known); the second time Y=2 and one branch sets 1
    paths, _ = both("""
        f() { if [[ -f /nonexistent/flag ]]; then Y=1; fi; }
        Y=1; f; A=$Y
        Y=2; f; B=$Y
        serve "$A" "$B"
    """)
    ((a, b),) = served(paths)
    assert a == "1" and b is None


def test_output_arguments_exit_and_stack_are_replayed_per_call():
    paths, replays = both("""
        f() { [[ "$1" == bad ]] && exit 3; echo "v=$1"; }
        for i in 1 2; do A="$A$(f 1)"; done
        C=$(f 2)
        serve "$A" "$C"
        for i in 1 2; do f bad; done
        serve after
    """)
    assert served(paths) == [("v=1v=1", "v=2")]
    ex = paths[0].exit
    assert ex is not None and ex.code == 3 and [c[0] for c in ex.stack] == ["f"]
    assert replays >= 1


def test_a_call_under_callers_with_other_arguments_is_replayed_with_their_stack():
    # the key holds only the callers' names: `inner` under `outer 1` is replayed under `outer 2`,
    # `outer 3` ..., and an exit reports the arguments of the callers it was replayed under
    on, replays = on_and_off(
        """
        inner() { [[ "$MODE" == bad ]] && exit 4; echo "i=$MODE"; }
        outer() { inner; echo "o=$1"; }
        A=$(outer 1)
        B=$(outer 2)
        serve "$A" "$B"
        outer "$CONC"
        serve after
    """,
        [{"MODE": "ok", "CONC": "1"}, {"MODE": "bad", "CONC": "2"}, {"MODE": "bad", "CONC": "3"}],
    )
    assert replays >= 2
    first, second, third = on
    assert served(first) == [("i=ok\no=1", "i=ok\no=2"), ("after",)]
    for paths, conc in ((second, "2"), (third, "3")):
        ex = paths[0].exit
        assert ex is not None and ex.code == 4
        assert [(c[0], c[1]) for c in ex.stack] == [("outer", (conc,)), ("inner", ())]
    # the exits in `$(outer 1)` and `$(outer 2)` end only their subshells
    assert served(second) == served(third) == [("", "")]


def test_functions_defined_by_a_function_and_nested_calls():
    paths, replays = both("""
        h() { H="$X"; }
        f() { g() { G="$1"; }; h; }
        X=1
        for i in 1 2; do f; done
        g 5; A="$G$H"
        X=2
        for i in 1 2; do f; done
        B="$H"
        serve "$A" "$B"
    """)
    assert served(paths) == [("51", "2")]
    assert replays >= 1


def test_shell_options_set_by_a_replayed_function():
    paths, _ = both("""
        strict() { set -e; }
        strict
        false
        serve never
    """)
    assert served(paths) == [] and paths[0].exit is not None


def test_a_statement_is_replayed_for_every_path_and_point_that_reads_the_same():
    src = """
        if [[ -d /nonexistent ]]; then MODE=a; else MODE=b; fi
        for i in 1 2 3 4 5 6 7 8 9 10 11 12; do
          case "$i" in 3) T=three ;; *) T="$T.$i" ;; esac
        done
        serve "$MODE" "$T" "$CONC"
    """
    results, replays = on_and_off(src, [{"CONC": str(c)} for c in (4, 8, 4)])
    assert replays > 0
    assert sorted(served(results[1])) == [("a", "three.4.5.6.7.8.9.10.11.12", "8"), ("b", "three.4.5.6.7.8.9.10.11.12", "8")]


@pytest.mark.parametrize(
    "src",
    [
        # a replay wrote the very Var object an earlier replay had written: the enclosing loop being
        # recorded saw no write to A, and later points kept their own A
        'f1() { A=1; }\nf2() { f1 && A=ok; }\nfor i in 1 2 3; do for i in 1 2 3; do f2 1; done; done\nserve "$A" end\n',
        # the last stderr line (an exit's message) written again with an equal, shared string
        'f3() { echo 1 >&2; unset B; }\nset -u\nfor i in 1 2 3; do f3 1; done\nserve "$A" "$B" end\n',
        # an exit inside a function replayed at another call site reported the first site's stack
        'f1() { exit 3; }\nif [[ "$A" == 1 ]]; then A=1; else A=1; f1 && A=ok; fi\nf1 && A=ok\nserve "$A" end\n',
        # the same for a guard (a known condition before an exit), the other way round
        'f2() { A=2; f3 1; }\nf3() { R=C; if [[ -z "$C" ]]; then [[ $A == 2 ]] && return 3; else A=1; fi; '
        'if [[ "$A" == 1 ]]; then A=1; else exit 3; fi; }\nf3 1\nC=$(cat /tmp/m)\nf2 1\nserve "$A" "$B" "$C" end\n',
        # a join dropped a note equal to one from before the call; the replay appended it again
        'f3() { readonly C; if [[ -f /nonexistent/$B ]]; then if [[ "$A" == 1 ]]; then A=1; else return; fi; fi; C=1; }\n'
        'for i in 1 2 3; do C=$(f3 1); done\nserve "$A" "$B" "$C" end\n',
        # `set -e` set by the function on one of its paths: the call's failure was checked against
        # the option before the call (live: the last path's state happened to be the caller's)
        'f3() { for i in 1 2 3; do A=1; A=1; if [[ -f /nonexistent/$B ]]; then A=1; set -e; return 1; fi; done; '
        'serve "$A" "$B" "$C" "$1"; }\nf3 1\nserve "$A" "$B" "$C" end\n',
    ],
)
def test_programs_the_generated_test_found(src):
    on, _ = _run_points(src, True)
    off, _ = _run_points(src, False)
    assert dump(on) == dump(off)


def test_shift_inside_a_replayed_statement_is_replayed():
    # found by the generated-program test: a summarised loop that shifts the positional
    # parameters replayed without the shift, so "$1" afterwards kept its old value
    src = """
        f() { for i in 1 2 3 4 5 6; do A=1; shift; if [[ -z "$A" ]]; then A=2; else A=1; A=1; fi; done; serve "$1"; }
        f a b c d e f g h
    """
    results, replays = on_and_off(src, [{"A": a} for a in ("1", "2", "1")])
    assert replays > 0
    assert [served(r) for r in results] == [[("g",)]] * 3


@pytest.mark.parametrize("test", ['[[ -z "${!v:-}" ]]', '[ -z "${!v:-}" ]'])
def test_an_emptiness_test_reads_only_whether_the_value_is_empty(test):
    # check_env_vars-style: `-z "${!name:-}"` depends on emptiness alone, so the call replays
    # for every concurrency; a value that becomes empty (or unknown) is evaluated again
    src = """
        need() { local v; for v in "$@"; do if TEST; then echo "missing $v"; exit 1; fi; done; }
        need MODEL CONC
        [ -n "$CONC" ] && OK=yes
        serve "$OK"
    """
    parsed = parse(SourceFile("/virtual/m.sh", dedent(src).replace("TEST", test).encode()))
    envs = [{"MODEL": "m", "CONC": c} for c in ("4", "8", "16", "", "32")]
    results = {}
    for summaries in (True, False):
        ev = Evaluator(
            Path("/virtual/m.sh"),
            lambda st, c: tuple(w.text for w in c.argv[1:]) if c.argv[0].text == "serve" else None,
            Limits(summaries=summaries),
        )
        results[summaries] = []
        for env in envs:
            before = ev.replays
            results[summaries].append(ev.run(parsed, env))
            if summaries:
                # the whole script replays once CONC's emptiness was seen before
                assert (ev.replays > before) == (env["CONC"] in ("8", "16", "32")), env
    assert dump(results[True]) == dump(results[False])
    assert [served(r) for r in results[True]] == [[("yes",)]] * 3 + [[]] + [[("yes",)]]
    assert results[True][3][0].exit.code == 1  # CONC empty: the check exits


def test_engine_changes_of_a_replayed_call_belong_to_the_point_evaluated():
    with tempfile.TemporaryDirectory() as d:
        p = Path(d) / "recipe.sh"
        p.write_text(
            dedent("""
            setup() { pip install "vllm==0.9.2"; }
            setup
            vllm serve "$MODEL" --tensor-parallel-size "$TP"
        """)
        )
        from recipelint.lint.settings import Settings

        # (the default matrix's points: a script that reads no InferenceX variable would get one point)
        opts = Options(use_configs=False, jobs=1, cache=False, settings=Settings(profile="inferencex"))
        res = lint([p], analyzer=Analyzer(), options=opts)
    changes = [
        (pr.point, e.point)
        for fr in res.files
        for pr in fr.points
        for path in pr.paths
        for e in path.events
        if type(e).__name__ == "EngineChange"
    ]
    assert len(changes) == len(res.files[0].points) > 1
    assert all(mine is theirs for mine, theirs in changes)


def test_points_with_the_same_environment_share_one_evaluation():
    # the same job on two clusters: equal environments, one evaluation, events bound to each point
    from recipelint.sweep.points import SweepPoint

    with tempfile.TemporaryDirectory() as d:
        p = Path(d) / "recipe.sh"
        p.write_text(
            dedent("""
            pip install "vllm==0.9.2"
            if [ "$CONC" -gt 8 ]; then EXTRA=--enforce-eager; fi
            vllm serve "$MODEL" --tensor-parallel-size "$TP" $EXTRA
        """)
        )
        env = {"TP": "8", "CONC": "16", "MODEL": "org/m"}
        pts = [
            SweepPoint("a", dict(env)),
            SweepPoint("b", dict(env)),
            SweepPoint("c", {"TP": "8", "CONC": "4", "MODEL": "org/m"}),
        ]
        an = Analyzer()
        evaluated = []
        real = an.evaluate
        an.evaluate = lambda *a, **k: evaluated.append(a[2]) or real(*a, **k)
        res = an.analyze(p, "recipe.sh", pts)
    assert evaluated == [pts[0], pts[2]]
    a, b, c = res.points
    assert [pr.point for pr in res.points] == pts
    for pr in (a, b, c):
        assert all(e.point is pr.point for path in pr.paths for e in path.events)

    def argv(pr):
        return [[w.text for w in lc.argv] for lc in pr.launches]

    assert argv(a) == argv(b) == [["vllm", "serve", "org/m", "--tensor-parallel-size", "8", "--enforce-eager"]]
    assert argv(c) == [["vllm", "serve", "org/m", "--tensor-parallel-size", "8"]]  # evaluated on its own
    assert b.launches[0] is not a.launches[0] and b.launches[0].argv == a.launches[0].argv


def _fixture_dirs():
    return sorted({p.parent for p in FIXTURES.rglob("*.sh")})


@pytest.mark.parametrize("where", _fixture_dirs(), ids=lambda p: str(p.relative_to(FIXTURES)))
def test_every_fixture_gives_the_same_results_with_and_without_summaries(where):
    out = []
    for summaries in (True, False):
        res = lint([where], analyzer=Analyzer(Limits(summaries=summaries)), options=Options(jobs=1, cache=False))
        out.append(
            (
                dump([(fr.display, fr.points) for fr in res.files]),
                [(f.code, f.span.path, f.span.line, f.span.col, f.message) for f in res.findings],
            )
        )
    assert out[0] == out[1]


def test_unknown_text_helpers_still_agree():
    # a replayed value is the same object graph shape: unknown chunks stay unknown
    paths, _ = both("""
        f() { V=$(nvidia-smi --query); }
        f; A=$V; f; B=$V
        serve "$A" "$B"
    """)
    ((a, b),) = served(paths)
    assert a is None and b is None
    assert text_of(()) == ""


def test_a_function_reading_its_callers_stdin_is_keyed_by_it():
    # f has no redirection of its own: it reads what g was given (a bug once: replayed "a1a1")
    paths, _ = both("""
        f() { V=$(cat); }
        g() { f; }
        for i in 1 2; do g <<< "a$i"; A="$A$V"; done
        serve "$A"
    """)
    assert served(paths) == [("a1a2",)]


# -- generated programs ---------------------------------------------------------------------
# Small programs built from the constructs summaries must get right (dynamic scoping, locals,
# forks on unknown values, loops, pipes and here-strings into functions, output capture, files,
# options, exits and returns, functions defined by functions), evaluated for several sweep
# points on one evaluator: with summaries and without, every path, event and value is equal.

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as hs  # noqa: E402

_VARS = ["A", "B", "C"]
_VALUES = ['1', '2', '"$A"', '"$B$C"', '"$1"', '$(f1 v)', '$((A + 1))', '"${B:-d}"', '$(cat /tmp/m)', '"$(cat)"', '"${#C}"']


@hs.composite
def _stmt(draw, depth, in_func):
    kinds = ["assign", "assign", "call", "serve", "echo", "misc"]
    if depth < 3:
        kinds += ["if_known", "if_unknown", "if_empty", "for", "case"]
    if in_func:
        kinds += ["local", "return"]
    kind = draw(hs.sampled_from(kinds))
    var = draw(hs.sampled_from(_VARS))
    val = draw(hs.sampled_from(_VALUES))
    body = lambda: "; ".join(draw(hs.lists(_stmt(depth + 1, in_func), min_size=1, max_size=3)))
    if kind == "assign":
        return f"{var}={val}"
    if kind == "local":  # with a value, or declared unset (a local of an exported name is exported)
        return draw(hs.sampled_from([f"local {var}={val}", f"local {var}"]))
    if kind == "return":
        return draw(hs.sampled_from(["return", "return 1", "[[ $A == 2 ]] && return 3"]))
    if kind == "call":
        f = draw(hs.sampled_from(["f1", "f2", "f3"]))
        how = draw(
            hs.sampled_from(
                [
                    "{f} {v}",
                    "{f} x",
                    "{f} <<< {v}",
                    "echo {v} | {f}",
                    "{var}=$({f} {v})",
                    "{f} {v} > /tmp/m",
                    "({f} y)",
                    "{f} && {var}=ok",
                ]
            )
        )
        return how.format(f=f, v=val, var=var)
    if kind == "serve":
        return 'serve "$A" "$B" "$C" "$1"'
    if kind == "echo":
        return draw(hs.sampled_from([f"echo {val}", f"echo {val} >&2", f"echo {val} > /tmp/m", f"echo {val} >> /tmp/m"]))
    if kind == "misc":
        return draw(
            hs.sampled_from(
                [
                    "export A",
                    "unset B",
                    "set -e",
                    "set +e",
                    "set -u",
                    "set +u",
                    "false || true",
                    "shift",
                    "f2() { C=redefined; }",
                    "readonly C",
                    "declare -i B",
                    "exit 3",
                    # a new process: exported variables and functions only
                    """bash -c 'serve "$A" "$B" "$C" child'""",
                    "export -f f1",
                    "bash -c 'f1 z'",
                    # name references: writes and reads go to their target
                    "declare -n N=A",
                    "N=via-ref",
                    "unset -n N",
                    "f3() { local -n o=$1; o=r$2; }",
                    "f3 B x",
                    "f3 N y",
                    "set -o pipefail",
                    "false | true || C=pf",
                    # expansion errors drop the rest of the line (hard: up to the script's)
                    "C=$(( 6 / ${B:-0} ))",
                    "declare -i D; D=1/${#A}",
                ]
            )
        )
    if kind == "if_known":
        return f'if [[ "$A" == 1 ]]; then {body()}; else {body()}; fi'
    if kind == "if_unknown":
        return f"if [[ -f /nonexistent/$B ]]; then {body()}; fi"
    if kind == "if_empty":  # tests that read only whether a value is empty (memo.EMPTY)
        test = draw(hs.sampled_from(['-z "${var}"', '-n "${{{var}:-}}"', '-z "${{!R:-}}"', '-n "${{!R}}"', '-z "${{{var}-}}"']))
        return f"R={var}; if [[ {test.format(var=var)} ]]; then {body()}; else {body()}; fi"
    if kind == "for":
        return f"for i in 1 2 3; do {body()}; done"
    return f'case "$B" in 1) {body()} ;; *) {body()} ;; esac'


@hs.composite
def _program(draw):
    funcs = [f"f{i}() {{ " + "; ".join(draw(hs.lists(_stmt(1, True), min_size=1, max_size=4))) + "; }" for i in (1, 2, 3)]
    main = draw(hs.lists(_stmt(0, False), min_size=1, max_size=8))
    return "\n".join(funcs + main + ['serve "$A" "$B" "$C" end']) + "\n"


def _run_points(src: str, summaries: bool):
    parsed = parse(SourceFile("/virtual/g.sh", src.encode()))

    def hook(state, cmd):
        if cmd.argv and cmd.argv[0].text == "serve":
            return tuple(w.text for w in cmd.argv[1:])
        return None

    ev = Evaluator(Path("/virtual/g.sh"), hook, Limits(summaries=summaries, max_paths=16, soft_paths=8))
    envs = [{"A": "1", "B": "2"}, {"A": "2", "B": "2"}, {"A": "1", "B": "2"}, {"A": "1"}, {"A": "", "B": "3"}]
    return [ev.run(parsed, env) for env in envs], ev.replays


def _generated(share: int = 1):
    """The settings of a generated test: ``RECIPELINT_MEMO_EXAMPLES`` examples (divided by
    ``share``), derandomized unless ``RECIPELINT_FUZZ_RANDOM`` is set."""
    return settings(
        max_examples=int(os.environ.get("RECIPELINT_MEMO_EXAMPLES", "150")) // share,
        deadline=None,
        database=None,
        derandomize=not os.environ.get("RECIPELINT_FUZZ_RANDOM"),
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )


@_generated()
@given(_program())
def test_generated_programs_give_the_same_results_with_and_without_summaries(src):
    on, _ = _run_points(src, True)
    off, _ = _run_points(src, False)
    assert dump(on) == dump(off), src


@hs.composite
def _library_and_recipes(draw):
    funcs = [f"f{i}() {{ " + "; ".join(draw(hs.lists(_stmt(1, True), min_size=1, max_size=4))) + "; }" for i in (1, 2, 3)]
    lib = "\n".join(funcs + ['who() { C="$(basename "$0")"; }']) + "\n"
    mains = [
        "\n".join(draw(hs.lists(_stmt(0, False), min_size=1, max_size=6)) + ["who", 'serve "$A" "$B" "$C" end']) + "\n"
        for _ in range(2)
    ]
    return lib, mains


def _run_recipes(root: Path, summaries: bool) -> list:
    """The recipes under ``root`` source its library and are evaluated by evaluators sharing it
    (as the recipes of one run are), for several sweep points each."""
    from recipelint.evaluate.library import Library

    library, limits = Library(), Limits(summaries=summaries, max_paths=16, soft_paths=8)
    out = []
    for p in sorted(root.glob("r*.sh")):
        ev = Evaluator(p, _serve_hook, limits, library)
        parsed = parse(SourceFile(str(p), p.read_bytes()))
        out.append([ev.run(parsed, env) for env in ({"A": "1", "B": "2"}, {"A": "2", "B": "2"}, {"A": "1"})])
    return [dump(x) for x in out]


def _serve_hook(state, cmd):
    if cmd.argv and cmd.argv[0].text == "serve":
        return tuple(w.text for w in cmd.argv[1:])
    return None


@_generated(3)
@given(_library_and_recipes())
def test_generated_recipes_sharing_a_library_give_the_same_results_with_and_without_summaries(case):
    lib, mains = case
    with tempfile.TemporaryDirectory() as d:
        root = Path(d)
        (root / "lib.sh").write_text(lib)
        for i, main in enumerate(mains):
            (root / f"r{i}.sh").write_text('source "$(dirname "$0")/lib.sh"\n' + main)
        assert _run_recipes(root, True) == _run_recipes(root, False), (lib, mains)


def test_library_helpers_are_replayed_across_recipes(tmp_path):
    # a helper of the sourced library, called the same way by two recipes, is evaluated for the
    # first and replayed for the second (one Analyzer: one library); a helper reading `$0` is
    # not shared, and both recipes get exactly what evaluating them alone gives
    from recipelint.engines.launches import Launch
    from recipelint.sweep.points import SweepPoint

    (tmp_path / "lib.sh").write_text(
        dedent("""
        helper() { local out=x i; for i in 1 2 3 4 5 6 7 8 9 10 11 12; do out="$out$i"; done; HELPED="$out-$MODE"; }
        who() { ME="$(basename "$0")"; }
    """)
    )
    recipes = []
    for name in ("a.sh", "b.sh"):
        p = tmp_path / name
        p.write_text('source "$(dirname "$0")/lib.sh"\nhelper\nwho\nvllm serve m --served-model-name "$HELPED" --api-key "$ME"\n')
        recipes.append(p)
    point = SweepPoint("p", {"MODEL": "m", "MODE": "k"})

    def run_all(summaries):
        an = Analyzer(Limits(summaries=summaries))
        out, replays = [], []
        for p in recipes:
            res, parsed = an.load(p, p.name)
            ev = an.evaluator(p)
            out.append(an.evaluate(parsed, p, point, ev).paths)
            replays.append(ev.replays)
        return out, replays, an

    on, replays, an = run_all(True)
    off, _, _ = run_all(False)
    assert dump(on) == dump(off)
    assert replays[0] == 0 and replays[1] >= 1  # `helper` replayed from a.sh's run
    for paths, name in zip(on, ("a.sh", "b.sh")):
        (launch,) = [e for p in paths for e in p.events if isinstance(e, Launch)]
        assert [w.text for w in launch.argv[-4:]] == ["--served-model-name", "x123456789101112-k", "--api-key", name]
    assert an.library.memo  # the shared summaries


def test_what_a_replayed_call_read_of_stdin_is_gone():
    # `g` takes the first line of the here-document; the `read` after it takes the second — also
    # when the second call of `g` is replayed (the summary records what stdin is left)
    src = 'g() { read -r x; }\nfor i in 1 2; do\n  { :; g; read -r y; R="$R $i:$x:$y"; } <<EOF\n1\n2\nEOF\ndone\nserve $R\n'
    paths, replays = both(src)
    assert served(paths) == [("1:1:2", "2:1:2")]
    assert replays == 1


# -- an evaluator replaying its peer's summaries (Evaluator.share) -------------------------------
# The analysis evaluates a recipe's first sweep point following the benchmark clients and the
# later points with an evaluator that stops at the launch; the second replays what the first
# recorded where the run never asked what may launch (a summary's ``watch_free``).


class _Client(tuple):
    """A benchmark client call: an event, not a launch."""


def _client_hook(state, cmd):
    name = cmd.argv[0].text if cmd.argv else None
    if name == "serve":
        return tuple(w.text for w in cmd.argv[1:])
    if name == "client":
        return _Client(w.text for w in cmd.argv[1:])
    return None


def _peers(path: Path, summaries: bool = True):
    """(the evaluator following clients, the one stopping at the launch), as the analysis makes
    them: one library, one set of limits."""
    from recipelint.evaluate.library import Library

    limits = Limits(summaries=summaries, max_paths=16, soft_paths=8)
    library = Library()

    def make(watch):
        return Evaluator(
            path,
            _client_hook,
            limits,
            library,
            watch=watch,
            launch_watch=watch,
            is_launch=lambda e: not isinstance(e, _Client),
            # (a replayed event is a new one, as the analysis's are: bound to the point evaluated)
            rebind=lambda e: _Client(e) if isinstance(e, _Client) else e,
        )

    return make({"serve": None, "client": None}), make({"serve": None})


def _first_then_lean(src: str, envs: list[dict], share: bool):
    parsed = parse(SourceFile("/virtual/p.sh", src.encode()))
    full, lean = _peers(Path("/virtual/p.sh"), summaries=True)
    if share:
        lean.share(full)
    first = full.run(parsed, envs[0])
    rest = [lean.run(parsed, env) for env in envs[1:]]
    return dump([first, *rest]), lean.replays


def _alone(src: str, envs: list[dict]):
    """The same points, each evaluator with summaries off (nothing replayed)."""
    parsed = parse(SourceFile("/virtual/p.sh", src.encode()))
    full, lean = _peers(Path("/virtual/p.sh"), summaries=False)
    return dump([full.run(parsed, envs[0]), *[lean.run(parsed, env) for env in envs[1:]]])


def test_the_lean_evaluator_replays_what_its_peer_recorded():
    src = dedent("""
        prep() { for i in 1 2 3 4 5 6; do X="$X-$i"; done; Y=$1; }
        prep a
        prep a
        serve "$X" "$Y" "$CONC"
        client "$CONC"
    """)
    envs = [{"CONC": "4"}, {"CONC": "8"}]
    shared, replays = _first_then_lean(src, envs, True)
    unshared, alone = _first_then_lean(src, envs, False)
    assert shared == unshared == _alone(src, envs)
    # (without its peer, the lean evaluator's first run records `prep` and replays it at the second call)
    assert replays > alone


def test_a_summary_that_asked_what_may_launch_is_not_replayed_by_the_peer():
    # the loop asks whether its body may launch (a quiet poll is cut short, one that may launch
    # is followed): the answer differs between a watch with `client` and one without, so the
    # call's summary holds only for the evaluator that recorded it
    src = dedent("""
        poll() { while [[ -f /nonexistent/$1 ]]; do client "$1"; done; Z=$1; }
        poll a
        poll a
        serve "$Z" "$CONC"
    """)
    envs = [{"CONC": "4"}, {"CONC": "8"}]
    parsed = parse(SourceFile("/virtual/p.sh", src.encode()))
    full, lean = _peers(Path("/virtual/p.sh"))
    lean.share(full)
    full.run(parsed, envs[0])
    recorded = [s for entries in full._memo.values() for s in entries]
    assert recorded and not any(s.watch_free for s in recorded)
    assert _first_then_lean(src, envs, True)[0] == _alone(src, envs)


@hs.composite
def _program_with_clients(draw):
    src = draw(_program())
    # some commands become benchmark client calls: watched by one peer only
    if draw(hs.booleans()):
        src = src.replace("echo ", "client ", draw(hs.integers(1, 4)))
    if draw(hs.booleans()):
        src = src.replace("f2() { ", "f2() { while [[ -f /nonexistent/$B ]]; do client x; done; ", 1)
    return src


@_generated()
@given(_program_with_clients())
def test_generated_programs_give_the_same_results_with_a_peer(src):
    envs = [{"A": "1", "B": "2"}, {"A": "2", "B": "2"}, {"A": "1", "B": "2"}, {"A": "1"}, {"A": "", "B": "3"}]
    shared = _first_then_lean(src, envs, True)[0]
    assert shared == _first_then_lean(src, envs, False)[0] == _alone(src, envs), src


# Found by the generator above: a function runs itself through `$(...)`, where its `serve`
# launches count toward ``Limits.max_launches`` but are not the caller's events; a statement
# around such a call was replayed without counting them, so the limit (512 per sweep point) was
# reached later than evaluation reaches it (at the third run: points 1, 2, 2).  A summary now
# carries the launches it counted (``Summary.launches``) and is not replayed past the limit.
_RECURSIVE_UNDER_BUDGET = (
    'f1() { if [[ "$A" == 1 ]]; then local B="$(cat)"; for i in 1 2 3; do set -e; done; else A=$(f1 "$1"); '
    'B=$(f1 v); fi; if [[ "$A" == 1 ]]; then A=$(f1 v); else if [[ -f /nonexistent/$B ]]; then [[ $A == 2 ]] '
    '&& return 3; fi; for i in 1 2 3; do serve "$A" "$B" "$C" "$1"; serve "$A" "$B" "$C" "$1"; done; '
    'if [[ -f /nonexistent/$B ]]; then local C=$(f1 v); fi; fi; case "$B" in 1) declare -i B ;; *) C=$(f1 v) ;; esac; }\n'
    'if [[ -f /nonexistent/$B ]]; then echo 1 | f1; if [[ "$A" == 1 ]]; then case "$B" in 1) f2 1 > /tmp/m ;; esac; '
    "f3 <<< $(f1 v); fi; fi\n"
)


def test_launches_counted_inside_a_replayed_statement_are_counted_again():
    parsed = parse(SourceFile("/virtual/p.sh", _RECURSIVE_UNDER_BUDGET.encode()))
    envs = [{"A": "1", "B": "2"}, {"A": "2", "B": "2"}, {"A": "2", "B": "2"}]
    out = []
    for summaries in (True, False):
        _, lean = _peers(Path("/virtual/p.sh"), summaries=summaries)
        out.append(dump([lean.run(parsed, env) for env in envs]))
    assert out[0] == out[1]


# Found by the generator above: a replayed summary with several outcomes bound each outcome's
# events anew, so an event the recorded run made before it forked was one object per path after
# the replay, where evaluation shares it; a later join (which keeps an event both paths hold
# once, by identity) then kept every copy: 9 client calls for 3.  A replay now rebinds each
# recorded event once for all its outcomes.  (f1's loop forks at `return 3` after each client
# call; the poll loop and the file written in a loop make the program reach f1's summary.)
_CLIENT_STDIN_LOOPS = (
    'f1() { A=1; for i in 1 2 3; do client "$(cat)" >&2; A=$(cat /tmp/m); [[ $A == 2 ]] && return 3; done; }'
    "\n"
    'f2() { while [[ -f /nonexistent/$B ]]; do client x; done; for i in 1 2 3; do f3 && C=ok; done; case "$B" in 1) A=$(f1 v) ;; *) case "$B" in 1) A=1; esac ;; esac; case "$B" in 1) if [[ "$A" == 1 ]]; then serve "$A" "$B" "$C" "$1"; fi ;; *) for i in 1 2 3; do A="${B:-d}"; done; esac; case "$B" in 1) local B; for i in 1 2 3; do A="${#C}"; done ;; *) if [[ "$A" == 1 ]]; then client $((A + 1)); fi; for i in 1 2 3; do f3 && A=ok; done ;; esac; }'
    "\n"
    'for i in 1 2 3; do if [[ -f /nonexistent/$B ]]; then case "$B" in 1) (f3 y) ;; esac; if [[ -z "${!R:-}" ]]; then serve "$A" "$B" "$C" "$1"; fi; fi; done'
    "\n"
    'A=$(f1 v)'
    "\n"
    'if [[ -z "$B" ]]; then for i in 1 2 3; do R=C; if [[ -n "${!R}" ]]; then echo $(cat /tmp/m) >&2; echo "$1" | f2; fi; if [[ -n "${C:-}" ]]; then echo "$1" >> /tmp/m; fi; done; else case "$B" in 1) B=1 ;; esac; fi'
    "\n"
)


def test_events_before_a_fork_stay_one_object_per_path_when_replayed():
    parsed = parse(SourceFile("/virtual/p.sh", _CLIENT_STDIN_LOOPS.encode()))
    envs = [{"A": "1", "B": "2"}, {"A": "2", "B": "2"}]
    out = []
    for summaries in (True, False):
        full, _ = _peers(Path("/virtual/p.sh"), summaries=summaries)
        out.append(dump([full.run(parsed, env) for env in envs]))
    assert out[0] == out[1]
