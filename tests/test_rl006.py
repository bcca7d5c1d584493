"""RL006 names the real stops (issue 47): one stop for every path, or each of several with its
count, and an info — not a defect — when the stops hang on arguments no sweep point gives."""

from __future__ import annotations

import json

from helpers import FIXTURES
from typer.testing import CliRunner

from recipelint.cli import app

runner = CliRunner()
RL006 = FIXTURES / "rules" / "RL006"


def _rl006(path) -> list[dict]:
    res = runner.invoke(app, ["check", str(path), "--no-cache", "-o", "json"])
    assert res.exit_code in (0, 1), res.output
    return [f for f in json.loads(res.stdout) if f["code"] == "RL006"]


def test_stops_on_unknown_arguments_are_each_named_as_an_info():
    (f,) = _rl006(RL006 / "argument_stops.sh")
    assert f["severity"] == "info"
    assert "every path stops first, at 5 places: `exit 2` (line 8, 1 path)" in f["message"]
    assert "args = [" in f["message"]  # the fix: the settings' environments


def test_one_stop_for_every_path_is_a_warning_naming_it(tmp_path):
    p = tmp_path / "disabled.sh"
    p.write_text('#!/usr/bin/env bash\necho "this recipe is disabled"\nexit 1\nvllm serve org/m --tensor-parallel-size 8\n')
    (f,) = _rl006(p)
    assert f["severity"] == "warning"
    assert "every path stops first: `exit 1` (line 3)" in f["message"]
    assert "args = [" not in f["message"]  # (no argument is read: nothing to give)


def _string_launch(tmp_path, after: str, nics: str = "") -> dict:
    """A serve command kept in a string, then ``after``; before it, a sourced helper whose check
    stops every path when it finds no device (``nics`` empty)."""
    (tmp_path / "helpers").mkdir()
    (tmp_path / "helpers" / "nic_env.sh").write_text(
        f'# sourced: the RDMA devices, or stop\nNICS="{nics}"\nif [[ -z "$NICS" ]]; then\n  echo "no RDMA device" >&2\n  exit 1\nfi\n'
    )
    p = tmp_path / "server.sh"
    p.write_text(
        "#!/usr/bin/env bash\n"
        'HERE="$(dirname "$0")"\n'
        'if [[ "${NODE_ROLE:-prefill}" == decode ]]; then exit 2; fi\n'
        'source "$HERE/helpers/nic_env.sh"\n'
        'SERVE_CMD="vllm serve org/m --tensor-parallel-size $TP"\n' + after
    )
    (f,) = _rl006(p)
    return f


def test_a_string_no_path_reaches_names_the_stops_with_their_files(tmp_path):
    # (InferenceX PR 999's server.sh: the stops were in a sourced helper; the finding said the
    # string was "passed to another program?" and put the helper's exit at this file's line)
    f = _string_launch(tmp_path, 'eval "$SERVE_CMD"\n')
    assert f["location"]["line"] == 5
    assert "every path stops first: `exit 1` after `[[ -z \"$NICS\" ]]` (line 5 of `helpers/nic_env.sh`)" in f["message"], f[
        "message"
    ]
    assert "string the script assigns" not in f["message"] and "(an array)" not in f["message"]


def test_a_string_assigned_before_the_stop_is_still_said_to_be_run_by_no_path(tmp_path):
    f = _string_launch(tmp_path, 'echo "$SERVE_CMD" > cmd.txt\nexit 1\n', nics="mlx5_0")
    assert "it is a string the script assigns; recipelint saw no path run it" in f["message"], f["message"]


def test_a_source_that_finds_no_file_is_named_beside_the_stops(tmp_path):
    # (InferenceX's amd_utils/server_vllm.sh: `source $WS_PATH/env.sh` with WS_PATH not set, then
    # the check of a variable env.sh would set stops every path)
    p = tmp_path / "server.sh"
    p.write_text(
        "#!/usr/bin/env bash\n"
        "NICS=\n"
        "source $WS_PATH/env.sh\n"
        'if [[ -z "$NICS" ]]; then exit 1; fi\n'
        "vllm serve org/m --tensor-parallel-size 8\n"
    )
    (f,) = _rl006(p)
    assert "every path stops first: `exit 1` after `[[ -z \"$NICS\" ]]` (line 4)" in f["message"], f["message"]
    assert f["notes"] == [
        "`source $WS_PATH/env.sh` (line 3) names a file whose path is not known here (`⟨$WS_PATH⟩/env.sh`): what it "
        "would set is not seen"
    ], f["notes"]
