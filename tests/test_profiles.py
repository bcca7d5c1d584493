"""Scripts outside a benchmark repository are evaluated in their caller's environment (issue 32):
no InferenceX variables injected, the script's own defaults apply, variables it requires are set
(not known), positional parameters are not known unless given."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from recipelint.cli import app

runner = CliRunner()

SERVE = """#!/usr/bin/env bash
set -euo pipefail
MODEL=${MODEL:-meta-llama/Llama-3.1-8B}
MAX_LEN=${MAX_MODEL_LEN:-8192}
: "${HF_HOME:?set HF_HOME}"
case "$ISL" in
  64k|128k) CHUNK=16384 ;;
  *) CHUNK=8192 ;;
esac
vllm serve "$MODEL" --max-model-len "$MAX_LEN" --tensor-parallel-size "$TP" --max-num-batched-tokens "$CHUNK" &
"""

POSITIONAL = """#!/usr/bin/env bash
if [[ $# -lt 1 ]]; then
  echo "usage: $0 MODEL [PORT] [DP]" >&2
  exit 1
fi
python3 -m sglang.launch_server --model-path "$1" --port "${2:-30000}" --dp-size "${3:-1}" &
"""


def _launches(tmp_path, monkeypatch, name: str, text: str, *args: str) -> list[str]:
    (tmp_path / ".git").mkdir(exist_ok=True)
    (tmp_path / name).write_text(text)
    monkeypatch.chdir(tmp_path)
    r = runner.invoke(app, ["render", name, "--format", "json", *args])
    assert r.exit_code == 0, r.output
    return [" ".join(w["word"] for w in lc["argv"]) for lc in json.loads(r.stdout)["launches"]]


def test_the_scripts_own_defaults_apply_and_required_variables_are_set(tmp_path, monkeypatch):
    got = _launches(tmp_path, monkeypatch, "serve.sh", SERVE)
    # one point; MODEL and MAX_MODEL_LEN take the script's defaults (not InferenceX's 2248 or an
    # unknown model), HF_HOME is required so set; TP and ISL are the caller's: not known
    assert {a.replace("⟨$TP⟩", "TP") for a in got} == {
        "vllm serve meta-llama/Llama-3.1-8B --max-model-len 8192 --tensor-parallel-size TP --max-num-batched-tokens 16384",
        "vllm serve meta-llama/Llama-3.1-8B --max-model-len 8192 --tensor-parallel-size TP --max-num-batched-tokens 8192",
    }, got
    r = runner.invoke(app, ["check", "serve.sh", "-o", "concise", "--no-cache"])
    assert r.exit_code == 0 and "All checks passed" in r.stdout, r.output  # reached and checked


def test_positional_parameters_are_unknown_unless_given(tmp_path, monkeypatch):
    got = _launches(tmp_path, monkeypatch, "launch.sh", POSITIONAL)
    assert len(got) == 1 and got[0].startswith("python3 -m sglang.launch_server --model-path ⟨$1⟩ --port"), got
    got = _launches(tmp_path, monkeypatch, "launch.sh", POSITIONAL, "--arg", "org/m", "--arg", "9000")
    assert got == ["python3 -m sglang.launch_server --model-path org/m --port 9000 --dp-size 1"]


def test_an_unset_lower_case_variable_stays_unset(tmp_path, monkeypatch):
    got = _launches(tmp_path, monkeypatch, "p.sh", "#!/usr/bin/env bash\nvllm serve org/m --port=$port --seed $SEED &\n")
    assert got == ["vllm serve org/m --port= --seed ⟨$SEED⟩"], got


def test_a_script_on_inferencex_variables_keeps_the_default_matrix(tmp_path, monkeypatch):
    text = '#!/usr/bin/env bash\nvllm serve org/m --tensor-parallel-size "$TP" --max-num-seqs "$((2 * CONC))" &\n'
    (tmp_path / ".git").mkdir()
    (tmp_path / "ix.sh").write_text(text)
    monkeypatch.chdir(tmp_path)
    r = runner.invoke(app, ["render", "ix.sh", "--format", "json"])
    points = [p["label"] for p in json.loads(r.stdout)["points"]]
    assert len(points) == 6 and "tp8-ep1-dpafalse-conc64" in points, points


def test_settings_choose_the_profile_and_give_callers_values(tmp_path, monkeypatch):
    (tmp_path / ".git").mkdir()
    (tmp_path / "scripts").mkdir()
    (tmp_path / "scripts" / "serve.sh").write_text(SERVE)
    (tmp_path / "pyproject.toml").write_text(
        '[tool.recipelint]\nenvironments = [{ files = "scripts/*.sh", env = { TP = "3", ISL = "64k" } }]\n'
    )
    monkeypatch.chdir(tmp_path)
    from pathlib import Path

    from recipelint.lint.check import Options, lint
    from recipelint.lint.settings import find, load

    st = load(find(Path("scripts")))
    res = lint([Path("scripts")], options=Options(settings=st, jobs=1))
    argv = [" ".join(w.shown for w in lc.argv) for f in res.files for lc in f.launches]
    # TP=3 from the settings; ISL=64k takes the 64k arm only
    assert argv == [
        "vllm serve meta-llama/Llama-3.1-8B --max-model-len 8192 --tensor-parallel-size 3 --max-num-batched-tokens 16384"
    ]
    (tmp_path / "pyproject.toml").write_text('[tool.recipelint]\nprofile = "inferencex"\n')
    res = lint([Path("scripts")], options=Options(settings=load(find(Path("scripts"))), jobs=1))
    assert len(res.files[0].points) == 6  # the default matrix
    (tmp_path / "pyproject.toml").write_text('[tool.recipelint]\nprofile = "other"\n')
    r = runner.invoke(app, ["check", "scripts"])
    assert r.exit_code == 2 and "`profile` must be one of" in r.stderr


def test_a_launch_in_a_loop_over_values_not_known_is_followed_once(tmp_path, monkeypatch):
    # bash runs the body when there is data; recipelint follows one iteration on an assumption
    # (and none): the launch is reached and checked, not reported as never reached
    c_for = "#!/usr/bin/env bash\nN=$1\nfor ((i=1; i<=N; i++)); do\n  vllm serve org/m --port $((8000 + i)) &\ndone\n"
    assert _launches(tmp_path, monkeypatch, "c.sh", c_for) == ["vllm serve org/m --port 8001"]
    piped = '#!/usr/bin/env bash\njq -c ".[]" t.json | while read -r t; do\n  vllm serve org/m --port 8000 &\ndone\n'
    assert _launches(tmp_path, monkeypatch, "w.sh", piped) == ["vllm serve org/m --port 8000"]
    # given the arguments, the loop is known: as many launches as bash starts
    assert _launches(tmp_path, monkeypatch, "c.sh", c_for, "--arg", "2") == [
        "vllm serve org/m --port 8001",
        "vllm serve org/m --port 8002",
    ]


def test_an_empty_default_is_a_read_not_a_default(tmp_path, monkeypatch):
    text = '#!/usr/bin/env bash\nset -u\n[[ -z "${WORKERS:-}" ]] && { echo "set WORKERS"; exit 1; }\nvllm serve org/m --port "${PORT:-8000}" &\n'
    assert _launches(tmp_path, monkeypatch, "e.sh", text) == ["vllm serve org/m --port 8000"]


def test_arithmetic_on_a_callers_variable_under_set_u_is_not_an_unbound_exit(tmp_path, monkeypatch):
    """`$((DECODE_TP - 1))` under `set -u` with DECODE_TP from the caller (ATOM's start_decode.sh,
    held-out sample): not known, as `$DECODE_TP` is — not "unbound variable"; a lower-case name
    the script never sets still is."""
    text = (
        "#!/usr/bin/env bash\nset -euo pipefail\n"
        'GPU_IDS=$(seq -s, 0 $((DECODE_TP - 1)))\nvllm serve org/m --tensor-parallel-size "$DECODE_TP" &\n'
    )
    got = _launches(tmp_path, monkeypatch, "d.sh", text)
    assert got == ["vllm serve org/m --tensor-parallel-size ⟨$DECODE_TP⟩"], got
    (tmp_path / "e.sh").write_text("#!/usr/bin/env bash\nset -u\nN=$((count - 1))\nvllm serve org/m &\n")
    r = runner.invoke(app, ["check", "e.sh", "-o", "concise", "--no-cache"])
    assert "RL006" in r.stdout and "`count`" in r.stdout, r.output  # (bash: count: unbound variable)
