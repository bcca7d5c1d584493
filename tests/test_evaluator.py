"""The abstract evaluator, construct by construct.

Each case states the exact argv the snippet's `emit` commands receive, and the same snippet
is run by real bash (with a stub `emit`) to confirm the expectation is bash's behaviour.
"""

from __future__ import annotations

from pathlib import Path
from textwrap import dedent

import pytest
from helpers import bash_emits, emits, evaluate, run_bash

from recipelint.evaluate.state import Limits
from recipelint.evaluate.values import Opaque

CASES = {
    "scalars": (
        """
        A=hello
        B="$A world"
        C=$B
        emit "$C" $A "${A}x"
        """,
        {},
        [["hello world", "hello", "hellox"]],
    ),
    "arrays": (
        """
        A=(one "two three")
        A+=(four)
        A[5]=six
        B=("${A[@]}" tail)
        emit "${A[@]}"
        emit "${A[*]}"
        emit "${#A[@]}" "${A[1]}" "${A[-1]}"
        emit ${A[@]}
        emit "${B[@]:1:2}"
        E=()
        emit x "${E[@]}" y
        """,
        {},
        [
            ["one", "two three", "four", "six"],
            ["one two three four six"],
            ["4", "two three", "six"],
            ["one", "two", "three", "four", "six"],
            ["two three", "four"],
            ["x", "y"],
        ],
    ),
    "assoc-arrays": (
        """
        declare -A M=([a]=1 [b]="two")
        M[c]=3
        emit "${M[a]}" "${M[b]}" "${M[c]}" "${#M[@]}"
        """,
        {},
        [["1", "two", "3", "3"]],
    ),
    "declarations": (
        """
        export E1=x
        declare -r R=ro
        readonly R2=ro2
        declare -i N=2*3
        declare -a L=(a b)
        f() { local X=inner; declare Y=fy; emit "$X" "$Y"; }
        X=outer
        f
        emit "$X" "${Y:-unset}" "$E1" "$R" "$R2" "$N" "${L[1]}"
        """,
        {},
        [["inner", "fy"], ["outer", "unset", "x", "ro", "ro2", "6", "b"]],
    ),
    "parameter-expansion": (
        """
        X=path/to/file.tar.gz
        U=
        emit "${X:-d}" "${NOPE:-d}" "${U:-d}" "${U-d}" "${X:+alt}" "${U:+alt}" "${NOPE+set}"
        emit "${X%.*}" "${X%%.*}" "${X#*/}" "${X##*/}" "${X/t/T}" "${X//t/T}" "${X/#path/P}" "${X/%gz/GZ}"
        emit "${X,,}" "${X^^}" "${#X}" "${X:5:2}" "${X: -2}"
        emit "${D:=assigned}" "$D"
        N=X
        emit "${!N}"
        """,
        {},
        [
            ["path/to/file.tar.gz", "d", "d", "", "alt", "", ""],
            [
                "path/to/file.tar",
                "path/to/file",
                "to/file.tar.gz",
                "file.tar.gz",
                "paTh/to/file.tar.gz",
                "paTh/To/file.Tar.gz",
                "P/to/file.tar.gz",
                "path/to/file.tar.GZ",
            ],
            ["path/to/file.tar.gz", "PATH/TO/FILE.TAR.GZ", "19", "to", "gz"],
            ["assigned", "assigned"],
            ["path/to/file.tar.gz"],
        ],
    ),
    "arithmetic": (
        """
        A=7; B=2
        emit $((A + B)) $((A - B)) $((A * B)) $((A / B)) $((A % B)) $((A ** B)) $((-A / B))
        emit $((A > B)) $((A == 7 && B == 3)) $((A < B || B == 2)) $((A > B ? A : B))
        C=$((A += 3, A * 2))
        emit "$C" "$A" $((0x10)) $((010)) $((2#101))
        ((A++))
        emit "$A"
        let "B = B * 10"
        emit "$B"
        emit $(( (B += (B = 1)) )) "$B"
        """,
        {},
        [
            ["9", "5", "14", "3", "1", "49", "-3"],
            ["1", "0", "1", "7"],
            ["20", "10", "16", "8", "5"],
            ["11"],
            ["20"],
            ["21", "21"],
        ],
    ),
    "tests": (
        """
        X=abc; N=5; E=
        [ "$X" = abc ] && emit eq
        [ "$X" != abc ] || emit ne
        [[ $X == a* ]] && emit glob
        [[ $X == "a*" ]] || emit quoted-glob
        [[ $X =~ ^a[b-c]+$ ]] && emit regex
        [ -n "$X" ] && [ -z "$E" ] && emit nz
        [ "$N" -eq 5 ] && [ "$N" -lt 10 ] && [ "$N" -ge 5 ] && emit ints
        [[ -n $X && ( $N -gt 10 || $N -le 5 ) ]] && emit compound
        (( N * 2 == 10 )) && emit arith
        [[ -v X ]] && emit set
        ! [ "$X" = nope ] && emit negated
        test "$N" -ne 4 && emit test-builtin
        """,
        {},
        [
            ["eq"],
            ["ne"],
            ["glob"],
            ["quoted-glob"],
            ["regex"],
            ["nz"],
            ["ints"],
            ["compound"],
            ["arith"],
            ["set"],
            ["negated"],
            ["test-builtin"],
        ],
    ),
    "if-elif-else": (
        """
        for v in 1 2 3; do
          if [ "$v" = 1 ]; then emit one
          elif [ "$v" = 2 ]; then emit two
          else emit other "$v"
          fi
        done
        """,
        {},
        [["one"], ["two"], ["other", "3"]],
    ),
    "case": (
        """
        for v in vllm-simple mooncake "" lmcache-mp weird; do
          case "$v" in
            vllm-simple|native) emit simple ;;
            moon*) emit glob "$v" ;;
            "") emit empty ;;
            lmcache-[mv][p1]) emit ext ;;
            *) emit default "$v" ;;
          esac
        done
        """,
        {},
        [["simple"], ["glob", "mooncake"], ["empty"], ["ext"], ["default", "weird"]],
    ),
    "loops": (
        """
        L=()
        for ((i = 0; i < 4; i++)); do L+=("$((i * i))"); done
        emit "${L[@]}"
        n=1
        while (( n < 100 )); do n=$((n * 3)); done
        emit "$n"
        k=0
        until [ "$k" -ge 3 ]; do k=$((k + 1)); done
        emit "$k"
        for w in a b c d; do
          [ "$w" = b ] && continue
          [ "$w" = d ] && break
          emit "$w"
        done
        """,
        {},
        [["0", "1", "4", "9"], ["243"], ["3"], ["a"], ["c"]],
    ),
    "functions": (
        """
        f() {
          emit "$#" "$1" "$2"
          emit "$@"
          shift
          emit "$*"
          return 3
        }
        f "a b" c d
        emit "$?"
        g() { local r; r=$(echo "$@" | tail -n 1); echo "[$r]"; }
        emit "$(g x y)"
        """,
        {},
        [["3", "a b", "c"], ["a b", "c", "d"], ["c d"], ["3"], ["[x y]"]],
    ),
    "heredoc-capture": (
        """
        V=42
        A=$(cat <<EOF
        {"v": $V, "s": "\\$HOME"}
        EOF
        )
        B=$(cat <<'EOF'
        {"v": $V}
        EOF
        )
        emit "$A" "$B"
        """,
        {},
        [['{"v": 42, "s": "$HOME"}', '{"v": $V}']],
    ),
    "virtual-files": (
        """
        F=/tmp/rl-test-config.yaml
        cat > "$F" <<EOF
        size: ${SIZE}
        EOF
        emit "$(cat "$F")"
        echo "more" >> "$F"
        emit "$(cat "$F")"
        """,
        {"SIZE": "12"},
        [["size: 12"], ["size: 12\nmore"]],
    ),
    "word-splitting": (
        """
        ARGS="--a 1  --b   two"
        EMPTY=""
        emit $ARGS "$ARGS" $EMPTY "$EMPTY" x${ARGS}y
        """,
        {},
        [["--a", "1", "--b", "two", "--a 1  --b   two", "", "x--a", "1", "--b", "twoy"]],
    ),
    "eval-and-bash-c": (
        """
        CMD="emit 'a b' \\"\\$X\\" c"
        X=xv
        eval "$CMD"
        S="emit from-string"
        eval $S tail
        bash -c 'emit "$0" "$1"' zero one
        """,
        {},
        [["a b", "xv", "c"], ["from-string", "tail"], ["zero", "one"]],
    ),
    "bash-c-is-a-new-process": (
        """
        PLAIN=p
        export EXP=e
        ARR=(1 2); export ARR
        f() { emit fn; }
        set -u
        bash -c 'emit "${PLAIN-unset}" "${EXP-unset}" "${ARR-unset}" "$NOPE"; f'
        X=pre bash -c 'emit "$X" "${PLAIN-unset}"'
        g() { local L=l; local EXP=local-exp; bash -c 'emit "${L-unset}" "$EXP"'; }
        g
        h() { local EXP; emit "${EXP-unset}"; bash -c 'emit "$EXP"'; EXP=5; bash -c 'emit "$EXP"'; }
        h
        """,
        {},
        [["unset", "e", "unset", ""], ["pre", "unset"], ["unset", "local-exp"], ["unset"], ["e"], ["5"]],
    ),
    "export-f-functions-reach-a-new-process": (
        """
        f() { emit f-exported "$1"; }
        g() { emit g-plain; }
        export -f f
        f() { emit f-redefined "$1"; }
        bash -c 'f one; g'
        export -nf f
        bash -c 'f two'
        declare -fx g
        bash -c 'g'
        unset -f g
        bash -c 'g'
        X=glob
        h() { declare -F X; emit "$X"; }
        h
        k() { local -i N; N=5+1; local -x L; L=l; bash -c 'emit "$L"'; emit "$N"; }
        k
        """,
        {},
        [["f-redefined", "one"], ["g-plain"], ["glob"], ["l"], ["6"]],
    ),
    "declare-with-attributes-in-a-function-is-local": (
        # `declare -x X` / `declare -i Y` inside a function make locals: the globals are kept
        """
        X=outer-x
        Y=7
        f() { declare -x X; declare -i Y; typeset -x Z; Y=2+3; emit "$Y"; }
        f
        emit "$X" "$Y" "${Z-unset}"
        """,
        {},
        [["5"], ["outer-x", "7", "unset"]],
    ),
    "line-continuation-inside-a-word": (
        # bash removes backslash-newline before splitting words: these are single words
        # (InferenceX, 2025: a JSON --compilation-config written as quoted pieces, one per line)
        """
        F='{'\\
        '"a": 1,'\\
        '"b": [2]'\\
        '}'
        G=x\\
        y
        emit "$F" "$G" pre\\
        fix --flag \\
        value
        """,
        {},
        [['{"a": 1,"b": [2]}', "xy", "prefix", "--flag", "value"]],
    ),
    "declare-p-tests-whether-a-name-is-set": (
        # a `set -u` guard seen in InferenceX recipes: `declare -p X` fails for an unset X, so the
        # `&&` never expands it; `declare -p` neither creates nor changes the variable
        """
        set -u
        if declare -p SLURM_JOB_ID >/dev/null 2>&1 && [ -n "$SLURM_JOB_ID" ]; then emit slurm; else emit local; fi
        declare -p NOPE >/dev/null 2>&1; emit "$?" "${NOPE-unset}"
        Y=1; declare -p Y >/dev/null; emit "$?"
        f() { local L=2; declare -p L >/dev/null; emit "$?"; declare -p G >/dev/null 2>&1 || emit no-G; }
        f
        """,
        {},
        [["local"], ["1", "unset"], ["0"], ["0"], ["no-G"]],
    ),
    "read-write-redirect": (  # `<>`, which tree-sitter-bash does not know (recovered by the parser)
        """
        echo hi > f
        X=$(cat <>f)
        exec 3<>f
        (exec 4<> "f") 2>/dev/null && emit "$X"
        """,
        {},
        [["hi"]],
    ),
    "command-substitution": (
        """
        D=$(dirname /a/b/c.sh)
        B=$(basename /a/b/c.sh .sh)
        R=$([[ "$ISL" == "1024" ]] && echo 0.5 || echo 0.1)
        L=$(printf '%s\\n' 3 1 2 1 | sort -n -u | paste -sd, -)
        U=$(echo Hello | tr a-z A-Z)
        emit "$D" "$B" "$R" "$L" "$U" "$(seq 2 4 | head -n 2)"
        """,
        {"ISL": "1024"},
        [["/a/b", "c", "0.5", "1,2,3", "HELLO", "2\n3"]],
    ),
    "exit": (
        """
        emit before
        if [ "$MODE" = bad ]; then
          echo "unsupported" >&2
          exit 3
        fi
        emit after
        """,
        {"MODE": "bad"},
        [["before"]],
    ),
    # tree-sitter-bash reads `A=1 B=2` and the next line's command as one command with an
    # environment prefix; bash sets both variables (parse splits the line off)
    "assignment-line-then-command": (
        """
        A=1 B="two words"  # two settings
        emit "$A" "$B"
        if true; then
          C=3 D=4
          true && emit "$C$D" | cat
        fi
        E=5 F=6 \\
          emit "$E$F"
        """,
        {},
        [["1", "two words"], ["34"], [""]],
    ),
    # `unset` of the running function's local leaves it unset; of a caller's local, it reveals
    # the value outside
    "unset-local": (
        """
        V=g
        f() { local V=loc; unset V; emit "${V-unset}"; }
        f
        h() { local V=loc; k; }
        k() { unset V; emit "${V-unset}"; }
        h
        """,
        {},
        [["unset"], ["g"]],
    ),
    # `+=` on an integer variable adds
    "integer-append": (
        """
        declare -i N=0
        N+=2
        f() { local -i K=2; K+="1+2"; emit "$N" "$K"; }
        f
        S=1
        S+=2
        emit "$S"
        """,
        {},
        [["2", "5"], ["12"]],
    ),
    # "${A[*]}" is always one word, even of an unset array; "${A[@]}" of one is none
    "star-of-unset-array": (
        """
        emit "${UNSET_A[*]}" "${UNSET_A[@]}" end
        B=()
        emit "${B[*]}" "${B[@]}" end
        """,
        {},
        [["", "end"], ["", "end"]],
    ),
    # tree-sitter-bash starts an expansion after another inside quotes at the blank between
    # them (`"$A $B"` has ` $B`): the blank is text of the string
    "blank-between-expansions": (
        """
        R=r; i=1
        X="$R $i"
        for k in 2 3; do X="$X $k"; done
        emit "$X" "${R}  ${i}" "$R $(echo a) `echo b` $((i + 1))" "$R	$i"
        emit $X
        """,
        {},
        [["r 1 2 3", "r  1", "r a b 2", "r\t1"], ["r", "1", "2", "3"]],
    ),
    # `${M//\//_}`: the grammar ends the pattern at the escaped slash; an empty anchored
    # pattern prepends or appends
    "replacement-patterns": (
        """
        M=org/a/b
        emit "${M//\\//_}" "${M/\\//--}" "${M//\\/}" "${M//a\\/b/X}" "models--${M//\\//--}"
        emit "${M/#/pre-}" "${M/%/-post}" "${M//}"
        """,
        {},
        [["org_a_b", "org--a/b", "orgab", "org/X", "models--org--a--b"], ["pre-org/a/b", "org/a/b-post", "org/a/b"]],
    ),
    "brace-expansion": (
        """
        emit {a,b}.yaml gpu{0..3} {08..12..2} {c..a} "{a,b}" a{b {c} {x,y{1,2}}z a\\{b,c\\} {a,}
        A=({p,q} r)
        for i in {1..2}; do emit "$i" "${A[@]}"; done
        X={a,b}
        emit "$X"
        """,
        {},
        [
            [
                "a.yaml",
                "b.yaml",
                "gpu0",
                "gpu1",
                "gpu2",
                "gpu3",
                "08",
                "10",
                "12",
                "c",
                "b",
                "a",
                "{a,b}",
                "a{b",
                "{c}",
                "xz",
                "y1z",
                "y2z",
                "a{b,c}",
                "a",
            ],
            ["1", "p", "q", "r"],
            ["2", "p", "q", "r"],
            ["{a,b}"],
        ],
    ),
    # word splitting at a changed IFS (bash starts with IFS set: saving and restoring it works)
    "ifs-splitting": (
        """
        OLD=$IFS
        IFS=:
        V="a::b:"
        emit $V x${V}y
        IFS=" ,"
        V=" a , b ,, c "
        emit $V
        IFS=
        emit $V
        IFS=$OLD
        emit $V
        """,
        {},
        [["a", "", "b", "xa", "", "b", "y"], ["a", "b", "", "c"], [" a , b ,, c "], ["a", ",", "b", ",,", "c"]],
    ),
    "parameter-transforms": (
        """
        V="it's a"
        emit "${V@Q}" "${V@U}" "${V@L}" "${V@u}"
        declare -A M=([b]=2 [a]=1 [c]=3 [zz]=4)
        emit "${!M[@]}" "${M[@]}"
        """,
        {},
        [["'it'\\''s a'", "IT'S A", "it's a", "It's a"], ["c", "b", "a", "zz", "3", "2", "1", "4"]],
    ),
    # substrings: an offset before the start or past the end gives nothing; `${@:N}` starts at
    # $N ($0 is index 0); a sparse array is sliced by index
    "substring-bounds": (
        """
        V=abc
        emit "${V: -2}" "${V: -4}" "${V:5}" "${V:1:-1}" "${V: -1:-1}"
        set -- x y z
        emit "${@:2}" "${@: -1}" "${@:2:1}"
        A=(a b c d); unset "A[1]"
        emit "${A[@]:1:2}" "${A[@]: -3}" "${#A[@]}"
        emit "${V:1:-3}" never
        """,
        {},
        [["bc", "", "", "b", ""], ["y", "z", "z", "y"], ["c", "d", "c", "d", "3"]],
    ),
    # `[[ ! A == B ]]` negates the comparison (tree-sitter-bash reads `(! A) == B`)
    "negated-comparison": (
        """
        V="b c"
        [[ ! "$V" =~ ^[0-9]+$ ]] && emit not-a-number
        [[ ! "$V" == b* ]] || emit starts-with-b
        [ ! "$V" = "b c" ] || emit equal
        """,
        {},
        [["not-a-number"], ["starts-with-b"], ["equal"]],
    ),
    "bash-rematch": (
        """
        V=192.168.3.7
        if [[ "$V" =~ ^192\\.168\\.([0-9]+)\\.([0-9]+)(x)?$ ]]; then emit "${BASH_REMATCH[@]}" "${#BASH_REMATCH[@]}"; fi
        [[ "$V" =~ ^10\\. ]] || emit "${#BASH_REMATCH[@]}"
        """,
        {},
        [["192.168.3.7", "3", "7", "", "4"], ["0"]],
    ),
    # `read` from a known here-string, here-document or pipe: IFS splitting as bash does it
    "read-known-stdin": (
        """
        IFS=, read -r a b <<< "x,y,"
        emit "$a" "$b"
        IFS=, read -r a b <<< "x,y,,"
        emit "$a" "$b"
        IFS=", " read -r a b <<< " x , y , z "
        emit "$a" "$b"
        IFS=, read -ra A <<< "x,,y,"
        emit "${#A[@]}" "${A[@]}"
        read -r -a C <<< "${CONC_LIST:-4 8}"
        emit "${C[@]}"
        IFS= read -r line <<< "  a  "
        emit "$line"
        while read -r k v; do emit "$k=$v"; done <<EOF
        one 1
        two 2 2
        EOF
        printf '%s\\n' p q | while read -r l; do emit "$l"; done
        """,
        {},
        [
            ["x", "y"],
            ["x", "y,,"],
            ["x", "y , z"],
            ["3", "x", "", "y"],
            ["4", "8"],
            ["  a  "],
            ["one=1"],
            ["two=2 2"],
            ["p"],
            ["q"],
        ],
    ),
    # tree-sitter-bash nests `> out` of `cat <<EOF > out` in the here-document and reads
    # `$(( ))` in one as a command substitution
    "heredoc-to-file": (
        """
        N=3
        cat <<EOF > /tmp/rl-heredoc-test.yaml
        batch: $(( N * 2 ))
        EOF
        cat << EOF >> /tmp/rl-heredoc-test.yaml
        n: $N
        EOF
        emit "$(cat /tmp/rl-heredoc-test.yaml)"
        """,
        {},
        [["batch: 6\nn: 3"]],
    ),
    "unset-elements-and-case-continue": (
        """
        A=(a b c)
        unset "A[0]" 'A[-1]'
        emit "${#A[@]}" "${A[@]}"
        N=A
        unset "$N"
        emit "${#A[@]}"
        case x.y in x*) emit first ;;& *.*) emit second ;; *) emit never ;; esac
        """,
        {},
        [["1", "b"], ["0"], ["first"], ["second"]],
    ),
    # a counting loop whose body ends in a command of unknown status still runs to its end
    "counting-loop": (
        """
        j=0
        until [ $j -ge 5 ]; do j=$((j+1)); emit "$j"; done
        """,
        {},
        [["1"], ["2"], ["3"], ["4"], ["5"]],
    ),
    # `set -e`: a compound statement ending non-zero because a failure in it was ignored does not
    # end the script; a subshell does; `$(...)` runs without `set -e`
    "errexit-compounds": (
        """
        set -e
        for i in 1; do ! true; done
        { false || ! true; }
        if true; then ! true; fi
        X=$(false; echo v)
        emit "$X"
        ( ! true )
        emit never
        """,
        {},
        [["v"]],
    ),
    "set-u-and-set-e": (
        """
        set -e
        emit one
        false || emit recovered
        X=${UNSET_VAR:-default}
        emit "$X"
        """,
        {},
        [["one"], ["recovered"], ["default"]],
    ),
    # `set -o pipefail`: a pipeline fails when any of its commands does; `! a | b` negates the
    # whole pipeline (tree-sitter-bash reads `(! a) | b`), and `set -e` does not end the script on it
    "pipefail-and-negated-pipelines": (
        """
        set -e
        false | true
        emit one
        if ! false | false; then emit negated; fi
        ! true | true
        emit two
        set -eo pipefail
        emit "$(false | true; echo $?)" "$(true | (exit 3) | true; echo $?)" "$(true | true; echo $?)"
        false | true || emit failed
        ( set +o pipefail; false | true ) && emit sub-off
        false | true
        emit never
        """,
        {},
        [["one"], ["negated"], ["two"], ["1", "3", "0"], ["failed"], ["sub-off"]],
    ),
    # name references: reads, writes, arrays, `unset`, `${!R}` go through to the target (they
    # read as the reference's own value, the target's name, before)
    "namerefs": (
        """
        A=1
        declare -n R=A
        emit "$R" "${!R}"
        R=5
        emit "$A"
        f() { local -n out=$1; out="v $2"; }
        f RES x
        emit "$RES"
        g() { local -n arr=$1; arr+=(c); emit "${#arr[@]}"; }
        L=(a b)
        g L
        emit "${L[@]}"
        declare -n S
        S=B
        B=4
        emit "$S"
        unset R
        emit "${A-unset}"
        """,
        {},
        [["1", "A"], ["5"], ["v x"], ["3"], ["a", "b", "c"], ["4"], ["unset"]],
    ),
    # `[ A -a B ]` / `-o`: bash's precedence (`-o` below `-a` below `!`), which tree-sitter-bash
    # gets wrong (`[ -z "" -a -n x ]` as `-z ("" -a -n x)`)
    "test-and-or": (
        """
        [ -z "" -a -n x ] && emit and
        [ -z x -o -n x ] && emit or
        [ ! -n x -a 1 -eq 2 ] || emit not-binds-tighter
        [ 1 -eq 2 -o 2 -eq 2 -a 3 -eq 4 ] || emit and-binds-tighter
        test x = x -a '(' y != z ')' && emit parens
        """,
        {},
        [["and"], ["or"], ["not-binds-tighter"], ["and-binds-tighter"], ["parens"]],
    ),
    # a pipeline of three commands followed (on any later line) by `&&`/`||`: tree-sitter-bash
    # gave the lines after it to its last command as arguments
    "three-command-pipeline-ends-at-its-line": (
        """
        echo a | tr a b | cat # note
        emit next

        false || emit or
        """,
        {},
        [["next"], ["or"]],
    ),
}


@pytest.mark.parametrize("name", list(CASES))
def test_construct(name):
    src, env, expected = CASES[name]
    assert emits(src, env) == expected


@pytest.mark.parametrize("name", list(CASES))
def test_construct_matches_bash(name):
    src, env, expected = CASES[name]
    assert bash_emits(src, env) == expected


def test_exit_is_recorded_with_its_line():
    paths, _ = evaluate(CASES["exit"][0], {"MODE": "bad"})
    (p,) = paths
    assert p.exit.code == 3 and p.exit.loc.span.line == 4


def test_set_u_unbound_variable_ends_the_path():
    paths, commands = evaluate("set -u\nemit a\nemit \"$MISSING\"\nemit b\n")
    (p,) = paths
    assert p.exit.code == 1 and "MISSING: unbound variable" in p.exit.reason
    assert [c[0] for c in commands] == [["emit", "a"]]


def test_set_u_exit_names_the_set_command():
    paths, _ = evaluate("set -eo pipefail\nset -o nounset\nemit \"$MISSING\"\n")
    (p,) = paths
    assert p.exit.nounset is not None and p.exit.nounset.span.line == 2


@pytest.mark.parametrize(
    "stmt",
    [
        'eval "$(make-env)"',  # an unknown string may assign anything
        'declare "$(key)=1"',
        "export $(cat /etc/job.env | xargs)",
        'printf -v "$(name)" %s 1',
        "source /run/generated.env",  # a file recipelint cannot find
        'while read -r k v; do declare "$k=$v"; done < /etc/job.env',  # (a loop whose body is not run)
    ],
)
def test_set_u_read_after_unknown_assignments_is_not_known_unset(stmt):
    paths, commands = evaluate(f"set -u\n{stmt}\nemit \"$MAYBE\"\nemit after\n")
    assert not any(p.exit is not None for p in paths)
    assert ["emit", "after"] in [c[0] for c in commands]


def test_set_u_names_the_environment_may_set_are_unknown():
    paths, commands = evaluate('set -u\nemit "$SLURM_JOB_ID" "${CUDA_VISIBLE_DEVICES}"\nemit "${SLURM_X:-d}"\nemit after\n')
    assert not any(p.exit is not None for p in paths)
    assert [c[0] for c in commands][0] == ["emit", None, None]
    # without `set -u` they read as empty, as before
    _, commands = evaluate('emit "[$SLURM_JOB_ID]"\n')
    assert [c[0] for c in commands] == [["emit", "[]"]]


def test_unknown_condition_forks_and_records_the_path_condition():
    src = """
    if [ -d /models/cache ]; then
      MODE=local
    else
      MODE=remote
    fi
    emit "$MODE"
    """
    paths, commands = evaluate(src)
    got = sorted((argv[1], [(d.text, d.taken) for d in cond]) for argv, cond, _ in commands)
    assert got == [
        ("local", [("[ -d /models/cache ]", True)]),
        ("remote", [("[ -d /models/cache ]", False)]),
    ]


def test_paths_without_events_are_joined_inside_functions():
    # inside a function (helper libraries) the branches set X differently and launch nothing:
    # one path continues, with X unknown; at top level the fork stays two paths
    body = "if [ -f /etc/marker ]; then X=a; else X=b; fi"
    paths, commands = evaluate(f"f() {{ {body}; }}\nf\nemit \"$X\"\n")
    assert len(paths) == 1
    assert commands[0][0] == ["emit", None]
    assert "one of 'a' | 'b'" in commands[0][2].argv[1].chunks[0].why
    paths, _ = evaluate(body + "\n")
    assert len(paths) == 2


def test_fork_cap_truncates_and_says_so():
    # each branch records an event, so paths cannot be joined: the cap must stop the forking
    from recipelint.bash.parse import parse
    from recipelint.bash.source import SourceFile
    from recipelint.evaluate.evaluator import Evaluator

    src = "\n".join(f"if [ -f /f{i} ]; then V{i}=1; emit {i}; fi" for i in range(10)) + "\n"
    ev = Evaluator(Path("/v.sh"), lambda st, c: object(), Limits(max_paths=8, soft_paths=4))
    paths = ev.run(parse(SourceFile("/v.sh", src.encode())), {})
    assert 8 <= len(paths) <= 9
    assert any(p.truncated for p in paths)
    assert any("more than 8 paths" in msg for p in paths for _, msg in p.notes)


def test_and_or_past_the_fork_cap_keeps_the_path():
    # a `[ -f X ] && echo a || echo b` on an unknown file once the cap is reached used to
    # drop the path altogether (and crash a command substitution around it)
    from recipelint.bash.parse import parse
    from recipelint.bash.source import SourceFile
    from recipelint.evaluate.evaluator import Evaluator

    src = "\n".join(f"if [ -f /f{i} ]; then V{i}=1; emit {i}; fi" for i in range(6))
    src += '\nV="$([ -f /x ] && echo yes || echo no)"\nemit end "$V"\n'
    ev = Evaluator(Path("/v.sh"), lambda st, c: c, Limits(max_paths=4, soft_paths=2))
    paths = ev.run(parse(SourceFile("/v.sh", src.encode())), {})
    assert paths
    ends = [p for p in paths if any([w.text for w in e.argv[:2]] == ["emit", "end"] for e in p.events)]
    assert len(ends) == len(paths), "every path past the cap must still reach `emit end`"


def test_unknown_values_stay_unknown():
    _, commands = evaluate('X=$(nvidia-smi --query)\nemit "$X" "${MODEL}"\n', {"MODEL": Opaque()})
    (argv, _, cmd) = [c for c in commands if c[0][0] == "emit"][0]
    assert argv[1:] == [None, None]
    assert cmd.argv[2].chunks[0].nonempty


def test_opaque_nonempty_values_decide_emptiness_tests():
    assert emits('[ -n "$MODEL" ] && emit set\n[ -z "$MODEL" ] && emit empty\n', {"MODEL": Opaque()}) == [["set"]]


def test_names_the_system_sets_are_unknown_and_not_empty():
    # bash or the login sets HOME, PATH, PWD, USER ... (they read as empty: `$HOME/.cache` was a
    # known, wrong `/.cache`, and `set -u` ended the script on them)
    src = (
        'set -u\nemit "$HOME/.cache" "${PWD:+set}" "${USER:-nobody}"\n[ -n "$PATH" ] && emit path\n'
        'emit "$(( UID + 0 ))"\nHOME=/x; emit "$HOME"\n'
    )
    assert emits(src) == [[None, "set", None], ["path"], [None], ["/x"]]
    assert emits('emit "$HOME"', {"HOME": "/home/ci"}) == [["/home/ci"]]


def test_loops_are_bounded():
    paths, _ = evaluate("i=0\nwhile true; do i=$((i+1)); done\nemit done\n", limits=Limits(max_loop=50))
    (p,) = paths
    assert p.truncated


def test_source_follows_a_library_file(tmp_path):
    lib = tmp_path / "lib.sh"
    lib.write_text('helper() { emit "helper:$1"; }\nLIB_VAR=from-lib\n')
    script = tmp_path / "s.sh"
    script.write_text('source "$(dirname "$0")/lib.sh"\nhelper x\nemit "$LIB_VAR"\n')
    from recipelint.bash.parse import parse
    from recipelint.bash.source import read_source
    from recipelint.evaluate.evaluator import Evaluator

    cmds = []
    ev = Evaluator(script, lambda st, c: cmds.append([w.text for w in c.argv]))
    ev.run(parse(read_source(script)), {})
    assert cmds == [["emit", "helper:x"], ["emit", "from-lib"]]


@pytest.mark.parametrize(
    "how", ['"$(dirname "$(readlink -f "$0")")"', "$(dirname $(readlink -f $0))", '"$(dirname "$(realpath "$0")")"/../d']
)
def test_source_through_the_canonical_script_path(tmp_path, how):
    # `SCRIPT_DIR=$(dirname "$(readlink -f "$0")")`: the commonest way other repositories find their
    # library (39 of the corpus's scripts); real bash finds the same file
    _sources_the_library(tmp_path, f"source {how}/lib.sh\n")


def _sources_the_library(tmp_path, how: str) -> None:
    """``how`` sources d/lib.sh from d/s.sh: recipelint reads it, and real bash the same file."""
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "lib.sh").write_text("LIB_VAR=from-lib\n")
    script = tmp_path / "d" / "s.sh"
    script.write_text(f'{how}emit "$LIB_VAR"\n')
    from recipelint.bash.parse import parse
    from recipelint.bash.source import read_source
    from recipelint.evaluate.evaluator import Evaluator

    cmds = []
    ev = Evaluator(script, lambda st, c: cmds.append([w.text for w in c.argv]))
    ev.run(parse(read_source(script)), {})
    assert cmds == [["emit", "from-lib"]]
    records, _ = run_bash(script=script, as_file=True)
    assert [a for a, _ in records if a[0] == "emit"] == cmds


@pytest.mark.parametrize(
    "how",
    [
        '"$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"',
        '"$(cd "$(dirname "$0")"; pwd)"',
        '"$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" >/dev/null 2>&1 && pwd -P)"',
        '"$(cd "$(dirname "$0")/.." && pwd)"/d',
    ],
)
def test_source_through_the_directory_cd_and_pwd_print(tmp_path, how):
    # `HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"`: `cd` and `pwd` were not modelled, so
    # a library sourced from there was not found (InferenceX's dsv4_fp4_mi355x_sglang-disagg.sh)
    _sources_the_library(tmp_path, f'HERE={how}\nsource "$HERE/lib.sh"\n')


def test_cd_pwd_and_their_variables_agree_with_bash():
    src = """
    cd /usr
    emit "$PWD" "$(pwd)" "$(pwd -P)" "$(pwd -L)"
    cd bin/..//bin/.
    emit "$PWD" "$OLDPWD"
    X=$(cd /; pwd)
    emit "$X" "$PWD" "$(cd -)" "$PWD"
    cd /usr/share && cd ..
    emit "$PWD" "$(cd -- /usr; pwd)"
    cd -
    emit "$PWD" "$OLDPWD"
    """
    got = emits(src)
    assert got == bash_emits(src)
    assert got[2] == ["/", "/usr/bin", "/usr", "/usr/bin"]


def test_a_directory_not_known_leaves_pwd_unknown():
    # (a dir the sweep point does not give; a relative one from an unknown start; `cd` alone;
    # `cd -P`, which resolves links; `pushd`): what `pwd` prints is not known, never made up
    src = """
    emit "$(pwd)"
    cd "$DIR"
    emit "$(pwd)" "$PWD"
    cd /usr
    cd "$DIR"
    emit "$(pwd)"
    cd /usr && cd
    emit "$(pwd)"
    cd /usr && cd -P bin
    emit "$(pwd)"
    cd /usr && pushd /tmp >/dev/null
    emit "$(pwd)"
    cd /usr && CDPATH=/opt && cd bin
    emit "$PWD"
    """
    assert emits(src) == [[None], [None, None], [None], [None], [None], [None], [None]]


def test_source_of_a_file_the_script_wrote_runs_what_it_wrote(tmp_path):
    # `cat > env.sh <<EOF ... EOF; source env.sh` (the file on disk does not exist, or is older)
    src = (
        'cat > /tmp/rl-not-there/env.sh <<EOF\nexport TP=$N\nEOF\n'
        'echo "vllm serve m --tensor-parallel-size \\$TP" >> /tmp/rl-not-there/env.sh\n'
        'source /tmp/rl-not-there/env.sh\nemit "$TP"\n'
    )
    _, commands = evaluate(src, {"N": "8"})
    assert [c[0] for c in commands] == [["vllm", "serve", "m", "--tensor-parallel-size", "8"], ["emit", "8"]]
    launch = commands[0][2]
    assert launch.argv[4].loc.span.line == 4  # the word's line: the echo that wrote it
    assert emits(src, {"N": "8"}) == bash_emits(src.replace("/tmp/rl-not-there", str(tmp_path)), {"N": "8"})[-1:]


@pytest.mark.parametrize(
    "src",
    [
        'printf "a b\\n\\n" > /tmp/rl-f1; V=$(< /tmp/rl-f1); emit "$V"; rm -f /tmp/rl-f1',
        'echo q > /tmp/rl-f2; V="$( < /tmp/rl-f2 )"; emit "$V"; rm -f /tmp/rl-f2',
    ],
)
def test_command_substitution_of_a_file_written_reads_it(src):
    assert emits(src) == bash_emits(src)


@pytest.mark.parametrize(
    "src",
    [
        'echo "X=in; emit \\$X \\$P \\$1" > /tmp/rl-s1.sh; P=p bash /tmp/rl-s1.sh a; emit "${X-unset}"; rm -f /tmp/rl-s1.sh',
        'printf "f() { emit f \\"\\$@\\"; }\\n" > /tmp/rl-s2.sh; . /tmp/rl-s2.sh x; f y; rm -f /tmp/rl-s2.sh',
    ],
)
def test_a_script_the_run_wrote_runs_as_written(src):
    assert emits(src) == bash_emits(src)


def test_command_substitution_of_a_file_not_written_is_unknown():
    # (it read as empty: a file on the cluster is not a file recipelint can see)
    assert emits('V=$(< /nowhere/model_path.txt); emit "$V"') == [[None]]


def test_source_of_a_missing_benchmark_lib_uses_the_model():
    src = """
    source "$(dirname "$0")/../../benchmark_lib.sh"
    check_env_vars MODEL TP
    emit ok
    """
    paths, commands = evaluate(src, {"MODEL": "m"}, path="/nowhere/benchmarks/x/y/script.sh")
    (p,) = paths
    assert p.exit is not None and p.exit.code == 1  # TP is not set
    paths, commands = evaluate(src, {"MODEL": "m", "TP": "8"}, path="/nowhere/benchmarks/x/y/script.sh")
    assert [c[0] for c in commands] == [["emit", "ok"]]


def test_values_keep_the_line_they_were_written_on():
    src = """
    N=$((2 * 8))
    ARGS=(
        --first
        --n "$N"
    )
    emit "${ARGS[@]}"
    """
    _, commands = evaluate(src)
    cmd = commands[0][2]
    lines = [(w.text, w.loc.span.line, w.value_loc.span.line) for w in cmd.argv[1:]]
    assert lines == [("--first", 3, 3), ("--n", 4, 4), ("16", 4, 1)]


def test_dropped_token_is_recovered():
    # tree-sitter-bash drops the `-` of `python3 - <<'PY'`; the token-gap check puts it back
    _, commands = evaluate("emit - <<'PY'\nprint(1)\nPY\n")
    assert commands[0][0] == ["emit", "-"]


def test_arithmetic_after_a_space_inside_a_string():
    # tree-sitter-bash starts this arithmetic_expansion node at the space before `$((`
    src = 'A=2; B=3\nemit "x $((A*B)) $((A+B)) y"\n'
    assert emits(src) == [["x 6 5 y"]] == bash_emits(src)


# --- bounded work on the shapes that made the real corpus slow ------------------------------


def _analyze(tmp_path, text, env=None):
    from recipelint.lint.analysis import Analyzer
    from recipelint.sweep.points import SweepPoint

    f = tmp_path / "r.sh"
    f.write_text(text)
    an = Analyzer()
    ev = an.evaluator(f)
    res, parsed = an.load(f, "r.sh")
    pr = an.evaluate(parsed, f, SweepPoint("p", dict(env or {})), ev)
    launches = [e for p in pr.paths for e in p.events]
    return pr, launches, ev


def test_a_poll_loop_that_cannot_launch_is_summarised(tmp_path):
    # a GPU-memory poll: 40 iterations, each forking on an unknown value
    src = """
    waited=0
    while [[ $waited -lt 120 ]]; do
        used=$(nvidia-smi --query-gpu=memory.used | sort -rn | head -1)
        if [[ -z "$used" || "$used" -lt 2000 ]]; then break; fi
        sleep 3; waited=$((waited + 3))
    done
    vllm serve m --port 8000
    """
    pr, launches, ev = _analyze(tmp_path, dedent(src))
    assert len(launches) == 1 and not any(p.truncated for p in pr.paths)
    assert ev.steps < 400


def test_a_counting_loop_still_runs_to_the_end():
    assert emits("n=1\nwhile (( n < 100 )); do n=$((n * 3)); done\nemit \"$n\"\n") == [["243"]]


def test_recursion_on_unknown_values_is_not_followed_to_the_depth_limit(tmp_path):
    src = """
    _descendants() {
        local pid="$1" child
        for child in $(pgrep -P "$pid" || true); do echo "$child"; _descendants "$child"; done
    }
    D=$(_descendants 1)
    vllm serve m --port 8000
    """
    pr, launches, ev = _analyze(tmp_path, dedent(src))
    assert len(launches) == 1
    assert not any("call depth" in msg for p in pr.paths for _, msg in p.notes)
    assert ev.steps < 300


def test_after_the_launch_only_statements_naming_a_launch_are_run():
    from recipelint.bash.parse import parse
    from recipelint.bash.source import SourceFile
    from recipelint.evaluate.evaluator import Evaluator

    src = dedent("""
    CLIENT=(python3 bench.py --port 8000)
    "${CLIENT[@]}" --warmup
    vllm serve m --port 8000 &
    timeout 60 curl -s localhost:8000/health
    "${CLIENT[@]}"
    """)
    ran = []

    def hook(st, cmd):
        words = [w.text for w in cmd.argv]
        ran.append(words[:2])
        return "launch" if words[0] == "vllm" else None

    watch = {"vllm": [("serve",)], "timeout": None}
    ev = Evaluator(Path("/v.sh"), hook, watch=watch, launch_watch=watch, is_launch=lambda e: e == "launch")
    ev.run(parse(SourceFile("/v.sh", src.encode())), {})
    # before the launch the client runs (it could have been the server); once the path has
    # launched and no later statement names a launch, the rest is not evaluated
    assert ran == [["python3", "bench.py"], ["vllm", "serve"]]
    # a later statement that names a launch keeps everything before it running
    ran.clear()
    ev = Evaluator(Path("/v.sh"), hook, watch=watch, launch_watch=watch, is_launch=lambda e: e == "launch")
    ev.run(parse(SourceFile("/v.sh", (src + "vllm serve m2\n").encode())), {})
    assert ran == [["python3", "bench.py"], ["vllm", "serve"], ["timeout", "60"], ["python3", "bench.py"], ["vllm", "serve"]]


def test_an_engine_patch_does_not_end_the_search_for_the_launch(tmp_path):
    src = """
    sed -i 's/a/b/' /usr/lib/python3/dist-packages/vllm/envs.py
    CMD=(vllm serve m --port 8000)
    "${CMD[@]}" &
    """
    pr, launches, ev = _analyze(tmp_path, dedent(src))
    assert [type(e).__name__ for e in launches] == ["EngineChange", "Launch"]


def test_local_outside_a_function_does_not_crash():
    # found by the fuzz suite: `local` at the top level of a sourced helper
    assert emits('local missing\nemit "x${missing}y"\n') == [["xy"]]


def test_a_loop_that_changes_nothing_is_stopped_and_said():
    # a real bug shape: the counter is never updated, so the launch is never reached
    paths, commands = evaluate("C=4\nwhile (( C < 64 )); do echo waiting; done\nemit after\n")
    assert len(paths) == 1 and paths[0].truncated
    assert any("loop never ends" in msg for _, msg in paths[0].notes)
    assert sum(1 for argv, _, _ in commands if argv[:1] == ["echo"]) < 5


def test_a_second_launch_through_an_array_is_still_found():
    # disaggregated shape: prefill and decode servers started from arrays, one after the other
    from recipelint.bash.parse import parse
    from recipelint.bash.source import SourceFile
    from recipelint.evaluate.evaluator import Evaluator

    src = dedent("""
    PREFILL=(vllm serve m --port 8001)
    DECODE=(vllm serve m --port 8002)
    CLIENT=(python3 bench.py)
    "${PREFILL[@]}" &
    sleep 5
    "${DECODE[@]}" &
    "${CLIENT[@]}"
    """)
    ran = []

    def hook(st, cmd):
        words = [w.text for w in cmd.argv]
        ran.append(words[:4])
        return "launch" if words[0] == "vllm" else None

    watch = {"vllm": [("serve",)]}
    ev = Evaluator(Path("/v.sh"), hook, watch=watch, launch_watch=watch, is_launch=lambda e: e == "launch")
    ev.run(parse(SourceFile("/v.sh", src.encode())), {})
    assert [w for w in ran if w[0] == "vllm"] == [["vllm", "serve", "m", "--port"]] * 2
    assert ["python3", "bench.py"] not in ran


def test_an_endless_counting_loop_next_to_a_huge_array_stays_cheap():
    # found by the fuzz suite (156 s): every iteration compared a 5,000-element array
    from recipelint.bash.parse import parse
    from recipelint.bash.source import SourceFile
    from recipelint.evaluate.evaluator import Evaluator

    src = "A=(" + " ".join(map(str, range(5000))) + ")\nwhile true; do X=$((X+1)); done\nemit end\n"
    ev = Evaluator(Path("/v.sh"), lambda st, c: None)
    paths = ev.run(parse(SourceFile("/v.sh", src.encode())), {})
    assert any("loop stopped after 1024 iterations" in m for p in paths for _, m in p.notes)
    assert ev.steps < 10_000


def test_an_unset_name_in_an_arithmetic_loop_condition_ends_the_path_under_set_u():
    # found by fuzzing: `(( TYPO < CONC ))` in a while condition let the exit escape
    paths, _ = evaluate("set -u\nCONC=8\nwhile (( TYPO < CONC )); do :; done\nemit never\n")
    assert [p.exit.reason for p in paths] == ["TYPO: unbound variable"]
    assert paths[0].exit.loc.real().span.line == 3


def test_bash_other_script_is_a_new_process(tmp_path):
    # `bash other.sh` sees exported variables and its own prefix only: no plain variables, no
    # functions, no `set -u` of its parent (checked against real bash)
    (tmp_path / "other.sh").write_text('emit "${PLAIN-unset}" "$EXP" "${PRE-unset}" "$1" "$NOPE"\nf\n')
    main = tmp_path / "main.sh"
    main.write_text(
        dedent("""
        PLAIN=p
        export EXP=e
        f() { emit fn; }
        set -u
        PRE=x bash "$(dirname "$0")/other.sh" arg
        """)
    )
    expected = [["unset", "e", "x", "arg", ""]]
    _, commands = evaluate(main.read_text(), path=str(main))
    assert [argv[1:] for argv, _, _ in commands if argv and argv[0] == "emit"] == expected
    records, _ = run_bash(script=main)
    assert [argv[1:] for argv, _ in records if argv and argv[0] == "emit"] == expected


def test_a_function_running_itself_through_bash_c_stops_at_the_nesting_limit():
    # found by the generated-program test: each new process starts without call frames, so the
    # call-depth limit never triggered (RecursionError); nesting of processes is bounded like `source`
    paths, commands = evaluate("f1() { bash -c 'f1 z'; }\nexport -f f1\nf1\nemit after\n")
    (p,) = paths
    assert any("f1: the function runs itself more than 8 deep" in m for _, m in p.notes)
    assert [c[0] for c in commands if c[0][0] == "emit"] == [["emit", "after"]]


def test_a_script_running_itself_with_bash_stops_at_the_nesting_limit(tmp_path):
    script = tmp_path / "self.sh"
    script.write_text('bash "$0"\nemit after\n')
    paths, commands = evaluate(script.read_text(), path=str(script))
    (p,) = paths
    assert any("bash processes nest more than 8 deep" in m for _, m in p.notes)
    assert [c[0] for c in commands if c[0][0] == "emit"] == [["emit", "after"]] * 9


def test_a_launching_function_running_itself_through_command_substitution_is_cut(tmp_path):
    # it nested Python frames past the interpreter's limit before the call-depth limit (48)
    # ended it: "internal error: input nested too deeply" for the whole run
    from recipelint.lint.analysis import Analyzer
    from recipelint.sweep.points import SweepPoint

    f = tmp_path / "r.sh"
    f.write_text('f1() { A=$(f1 v); vllm serve "m$1"; }\nf1 top\nvllm serve after --port 1\n')
    (pr,) = Analyzer().analyze(f, "r.sh", [SweepPoint("p", {})]).points
    notes = [m for path in pr.paths for _, m in path.notes]
    assert any("f1: the function runs itself more than 8 deep" in m for m in notes), notes
    assert "after" in [lc.model.text for lc in pr.launches]


def test_keyed_array_elements_keep_unknown_values():
    # `[k]=$X` with X set but not known: the element is that unknown (it was empty)
    from recipelint.evaluate.values import Opaque

    _, commands = evaluate('declare -A M=([a]=$X [b]=pre$X)\nrun "${M[a]}" "${M[b]}"\n', {"X": Opaque()})
    (argv, _, cmd) = commands[-1]
    assert [[c.text if c.text is not None else c.why for c in w.chunks] for w in cmd.argv[1:]] == [["$X"], ["pre", "$X"]]


def test_paths_that_differ_only_in_engine_changes_are_joined(tmp_path):
    # a marker-gated patch helper (`grep -q marker f || git apply d.diff`) forks on the unknown
    # grep: one branch applies the diff, the other does not.  The branches are joined with the
    # change recorded once, instead of doubling the paths at every call (six calls: 64 paths)
    from recipelint.engines.changes import EngineChange
    from recipelint.engines.launches import Launch
    from recipelint.lint.analysis import Analyzer
    from recipelint.sweep.points import SweepPoint

    script = tmp_path / "r.sh"
    script.write_text(
        dedent("""\
        apply_one() {
          if grep -qF "$2" "/opt/engine/$1" 2>/dev/null; then echo "skip $1"; return; fi
          git apply "/patches/$1.diff"
        }
        for f in a b c d e g; do apply_one "$f" MARKER; done
        if [[ -d /opt/engine/extra ]]; then vllm serve m --max-num-seqs 8; else vllm serve m --max-num-seqs 16; fi
        """)
    )
    an = Analyzer()
    res = an.analyze(script, "r.sh", [SweepPoint("p", {})])
    paths = res.points[0].paths
    # the fork around the launches still gives two paths (launching paths stay apart)
    assert len(paths) == 2
    for p in paths:
        changes = [e for e in p.events if isinstance(e, EngineChange)]
        assert [c.argv[2].text for c in changes] == [f"/patches/{f}.diff" for f in "abcdeg"]
        assert sum(isinstance(e, Launch) for e in p.events) == 1
    assert sorted(e.argv[-1].text for p in paths for e in p.events if isinstance(e, Launch)) == ["16", "8"]


def test_caches_keyed_by_node_id_do_not_answer_for_another_node_with_that_id():
    # `eval` text is parsed afresh and its nodes are freed after the evaluation, so a later
    # node can get the id of an earlier one: a cache keyed by id must keep its node and check it
    # (here the reuse is simulated by filing node a's answers under node b's id)
    from recipelint.bash.parse import parse
    from recipelint.bash.source import SourceFile
    from recipelint.evaluate.evaluator import Evaluator

    root = parse(SourceFile("/virtual/c.sh", b"A=1 B=2\nexit 3\n")).root
    a, b = [n for n in root.children if n.named]
    ev = Evaluator(Path("/virtual/c.sh"), None)
    assert ev._assigned(a) == {"A", "B"} and not ev._exits_in([[a]])
    ev._assign_cache[id(b)] = ev._assign_cache[id(a)]
    ev._exit_cache[id(b)] = ev._exit_cache[id(a)]
    assert ev._assigned(b) == frozenset() and ev._exits_in([[b]])


def test_expansions_recipelint_does_not_model_are_unknown():
    # the names of variables with a prefix include the environment's (not known in full);
    # `basename -a` and other options of a modelled filter are not modelled
    assert emits('V0=1\nemit "${!V@}" x\n') == [[None, "x"]]
    assert emits('emit "$(basename -s .sh /a/b.sh)" "$(basename -- -n)" "$(dirname -- /a/b)"\n') == [[None, "-n", "/a"]]


def test_read_with_bundled_options_fills_an_array():
    # `read -ra A` is `-r -a A`: A is an array (it was taken for a scalar `A`, whose `${#A[@]}`
    # is 1), split at the IFS of the command's prefix; the value word after `-t` is no name
    src = 'IFS=- read -ra A <<< "a-z"\nemit "${#A[@]}"\nread -t 5 -r Z <<< zz\nemit "${Z:-unset}" "$t"\n'
    assert emits(src) == bash_emits(src) == [["2"], ["zz", ""]]
    # from an unknown stdin the array is of unknown length
    assert emits('read -ra A < "$F"\nemit "${#A[@]}"\n') == [[None]]


def test_a_division_is_inexact_only_where_bash_truncated_it():
    # RL502's evidence: `$((CONC * 3 / 2))` at CONC=5 is 7, exactly 15/2.  Found by the fuzz
    # suite: past 64 bits (which bash wraps) the exact value grew without bound, and `%` on it
    # and RL502's message overflowed a float; a product past 64 bits now tells nothing
    big = " * ".join(["9223372036854775807"] * 20)
    src = f'X=$(( CONC * {big} % 7 / 2 )); Y=$(( CONC * 3 / 2 )); Z=$(( CONC * 4 / 2 )); W=$(( -CONC % 3 * 3 / 4 ))'
    paths, _ = evaluate(src, {"CONC": "5"})
    assert [(i.text, i.value, str(i.exact)) for i in paths[0].inexact] == [
        ("$(( CONC * 3 / 2 ))", 7, "15/2"),
        ("$(( -CONC % 3 * 3 / 4 ))", -1, "-3/2"),
    ]
    assert emits(src + '; emit "$Y" "$W"', {"CONC": "5"}) == bash_emits(src + '; emit "$Y" "$W"', {"CONC": "5"})


def test_a_loop_not_followed_through_makes_the_directory_it_may_change_unknown():
    # (a `while` whose condition is not known runs its body any number of times: the `cd` in it
    # may have run; what recipelint makes unknown for such a loop includes $PWD)
    src = """
    cd /usr
    while read -r d; do cd "$d"; done < "$LIST"
    emit "$(pwd)"
    """
    assert emits(src) == [[None]]
