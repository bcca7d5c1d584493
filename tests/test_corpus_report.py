"""tools/corpus_report.py on a synthetic corpus: resolved, explained and silent launch scripts."""

from __future__ import annotations

import importlib.util
import shutil
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _tool():
    spec = importlib.util.spec_from_file_location("corpus_report", ROOT / "tools" / "corpus_report.py")
    mod = importlib.util.module_from_spec(spec)
    assert spec.loader is not None
    sys.modules["corpus_report"] = mod
    spec.loader.exec_module(mod)
    return mod


def _write(p: Path, text: str) -> None:
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text, encoding="utf-8")


@pytest.fixture
def corpus(tmp_path):
    repo = tmp_path / "corpus" / "acme+bench"
    # reaches its launch
    _write(repo / "serve.sh", '#!/bin/bash\nMODEL="${MODEL:-org/model}"\nvllm serve "$MODEL" --port 8000\n')
    # every path stops before the launch: RL006 says why
    _write(repo / "stops.sh", '#!/bin/bash\nexit 1\nvllm serve org/model --port 8000\n')
    # launches a server, but recipelint never looks (a folder no walk enters): silent
    _write(repo / "node_modules" / "hidden.sh", "#!/bin/bash\nvllm serve org/model\n")
    # names a serve command it does not launch (a pkill pattern): kept out on purpose
    _write(repo / "stop.sh", '#!/bin/bash\npkill -f "vllm serve org/model" || true\n')
    # not a launch (a client): not a script of the manifest, and no site
    _write(repo / "client.sh", "#!/bin/bash\ncurl -s localhost:8000/health\n")
    manifest = tmp_path / "corpus.yaml"
    manifest.write_text(
        "repos:\n"
        "  - repo: acme/bench\n"
        "    commit: null\n"
        "    scripts:\n"
        "      - path: serve.sh\n"
        "      - path: stops.sh\n"
        "      - path: node_modules/hidden.sh\n"
        "      - path: gone.sh\n"
        "    not_scripts: [stop.sh]\n",
        encoding="utf-8",
    )
    return tmp_path / "corpus", manifest


def _recipelint() -> str:
    exe = Path(sys.executable).parent / "recipelint"
    return str(exe) if exe.exists() else (shutil.which("recipelint") or "recipelint")


def test_classifies_each_launch_script(corpus, tmp_path):
    tool = _tool()
    root, manifest = corpus
    out = tmp_path / "report.json"
    rc = tool.main([str(root), "--manifest", str(manifest), "--recipelint", _recipelint(), "--json", str(out)])
    import json

    (repo,) = json.loads(out.read_text())
    status = {s["path"]: s["status"] for s in repo["scripts"]}
    assert status == {"serve.sh": "RESOLVED", "stops.sh": "EXPLAINED", "node_modules/hidden.sh": "SILENT", "gone.sh": "MISSING"}
    why = {s["path"]: s["why"] for s in repo["scripts"]}
    assert any("RL006" in w for w in why["stops.sh"])
    assert any("skips the folder `node_modules`" in w for w in why["node_modules/hidden.sh"])
    assert repo["crashes"] == []
    assert repo["unlisted"] == []  # stop.sh is a not_script
    assert any(f["code"] == "RL006" for f in repo["findings"])
    assert rc == 1  # a silent script fails the run


def test_without_manifest_scripts_are_the_files_with_a_serve_command(corpus, tmp_path):
    tool = _tool()
    root, _ = corpus
    repos = tool._repos(root, None)
    assert [r.name for r in repos] == ["acme/bench"]
    tool.run_repo(repos[0], _recipelint(), sys.executable)
    tool.classify(repos[0])
    status = {s.path: s.status for s in repos[0].scripts}
    # (stop.sh's pkill pattern reads as a serve command: without a manifest it is listed too)
    assert status["serve.sh"] == "RESOLVED" and status["stops.sh"] == "EXPLAINED"
    assert "client.sh" not in status and "node_modules/hidden.sh" not in status
    text = tool.render(repos, verbose=True)
    assert "RESOLVED  serve.sh" in text and "EXPLAINED stops.sh" in text


def test_a_crash_is_reported(tmp_path):
    tool = _tool()
    fake = tmp_path / "bin" / "recipelint"
    fake.parent.mkdir()
    fake.write_text("#!/bin/sh\necho 'Traceback (most recent call last):' >&2\nexit 2\n", encoding="utf-8")
    fake.chmod(0o755)
    repo = tool.Repo("acme/x", tmp_path)
    tool.run_repo(repo, str(fake), sys.executable)
    assert repo.crashes and "exit 2" in repo.crashes[0]
