"""Hostile cache directories and projects (issue 33 item 3): every cache failure is a miss, never
an error or a hang; the cache never opens a FIFO or a device; an entry is served only while every
file its analysis read is unchanged; entries are sealed, temp files cleaned, the index bounded.

Runs that may hang or race are real `recipelint` processes with a generous timeout and a memory
limit; each asserts that the run ENDS with the report a run without the cache gives."""

from __future__ import annotations

import hashlib
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

import pytest
from helpers import HANG_S

from recipelint.cache import store

TIMEOUT = HANG_S  # a hang guard only: each run takes ~1 s here
BAD_FLAG = 'ARGS="--max-modle-len 4"\n'  # (RL601: vLLM has no such flag)
GOOD_FLAG = 'ARGS="--max-model-len 4"\n'


def _limit():
    resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))


def run(cwd: Path, cache: Path, *args: str, env: dict | None = None, **kw) -> subprocess.CompletedProcess:
    """`recipelint check -o concise ARGS` in ``cwd`` with the cache in ``cache``; it must end
    (timeout), with a report (exit 0/1), never an internal error or a traceback."""
    e = {**os.environ, "RECIPELINT_CACHE_DIR": str(cache), **(env or {})}
    r = subprocess.run(
        [sys.executable, "-m", "recipelint", "check", "-o", "concise", *args],
        cwd=cwd,
        env=e,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        preexec_fn=_limit,
        **kw,
    )
    assert "Traceback" not in r.stderr + r.stdout, r.stderr
    assert "internal error" not in r.stderr + r.stdout, r.stderr
    assert r.returncode in (0, 1), r.stderr + r.stdout
    return r


def fresh(cwd: Path, *args: str) -> str:
    """The report without the cache (what a cached run must give)."""
    return run(cwd, cwd / "unused-cache", "--no-cache", *args).stdout


@pytest.fixture
def project(tmp_path):
    """A project (a `.git` folder marks its root) whose recipe sources `vars.env`."""
    root = tmp_path / "proj"
    (root / ".git").mkdir(parents=True)
    (root / "run.sh").write_text("#!/bin/bash\nsource ./vars.env\nvllm serve m $ARGS\n")
    (root / "vars.env").write_text(BAD_FLAG)
    (root / "other.sh").write_text("#!/bin/bash\nvllm serve m --max-num-seqs 8\n")
    return root, tmp_path / "cache"


def entries(cache: Path) -> list[Path]:
    return sorted(cache.glob("*.json"))


# ---------------------------------------------------------------- every failure is "no cache"


def test_prune_survives_a_parallel_run_with_more_libraries_than_kept(tmp_path):
    """200 sourced libraries over 48 recipes, checked by 2 workers that write and prune the same
    tree folder: a tree another worker removed between listing and stat was an internal error
    (FileNotFoundError) on every run."""
    root = tmp_path / "many"
    (root / ".git").mkdir(parents=True)
    for i in range(200):
        (root / f"lib{i}.sh").write_text(f"F{i}={i}\nf{i}() {{ echo {i}; }}\n")
    for j in range(48):
        libs = "".join(f"source ./lib{(j * 5 + k) % 200}.sh\n" for k in range(5))
        (root / f"r{j}.sh").write_text(f"#!/bin/bash\n{libs}vllm serve m --max-num-seqs {j + 1}\n")
    want = fresh(root, "-j", "2", ".")
    for i in range(3):
        cache = tmp_path / f"cache{i}"
        assert run(root, cache, "-j", "2", ".").stdout == want
        assert len(list((cache / "trees").glob("*.json"))) <= store.KEEP


def test_concurrent_runs_on_one_cache(project):
    root, cache = project
    want = fresh(root, ".")
    for _ in range(3):
        e = {**os.environ, "RECIPELINT_CACHE_DIR": str(cache)}
        procs = [
            subprocess.Popen(
                [sys.executable, "-m", "recipelint", "check", "-o", "concise", "."],
                cwd=root,
                env=e,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                preexec_fn=_limit,
            )
            for _ in range(3)
        ]
        for p in procs:
            out, err = p.communicate(timeout=TIMEOUT)
            assert p.returncode in (0, 1) and "Traceback" not in err and "internal error" not in err, err
            assert out == want
        (root / "vars.env").write_text((root / "vars.env").read_text() + "# edited\n")  # (a miss next round)


def test_a_dangling_link_in_the_cache_dir(project):
    root, cache = project
    want = fresh(root, ".")
    cache.mkdir()
    os.symlink("/nonexistent/target", cache / ("a" * 64 + ".json"))
    os.symlink("/nonexistent/target", cache / "trees")  # (a whole kind's folder dangling)
    assert run(root, cache, ".").stdout == want
    (root / "other.sh").write_text((root / "other.sh").read_text() + "# edited\n")
    assert run(root, cache, ".").stdout == want  # (a write, so a prune, with the link there)
    assert not (cache / ("a" * 64 + ".json")).is_symlink()  # (not an entry: removed by the prune)


@pytest.mark.parametrize("where", ["a file in the way", "below a file", "read-only"])
def test_an_unwritable_cache_dir_is_no_cache(project, where):
    root, cache = project
    want = fresh(root, ".")
    if where == "a file in the way":
        cache.write_text("not a folder\n")
    elif where == "below a file":
        cache.write_text("not a folder\n")
        cache = cache / "sub"
    else:
        cache.mkdir()
        (cache / "trees").write_text("")  # (root ignores permission bits: a file where a folder must go)
        (cache / "yaml").write_text("")
        (cache / "facts").write_text("")
        os.chmod(cache, 0o500)
    try:
        assert run(root, cache, ".").stdout == want
        assert run(root, cache, ".").stdout == want
    finally:
        if cache.is_dir():
            os.chmod(cache, 0o700)


def _only_entry(cache: Path) -> Path:
    (e,) = entries(cache)
    return e


@pytest.mark.parametrize("what", ["fifo", "dev-zero", "dev-zero-index", "fifo-index", "fifo-tree", "dev-zero-tree"])
def test_a_cache_file_that_is_a_fifo_or_a_device(project, what):
    """A FIFO as an entry hung the run (open blocks); a link to /dev/zero read without end."""
    root, cache = project
    want = run(root, cache, ".").stdout
    if what in ("fifo", "dev-zero"):
        target = _only_entry(cache)
    elif what.endswith("-index"):
        target = cache / "files.idx"
    else:  # a kept tree: read when the run misses (the result entry removed)
        (target,) = (cache / "trees").glob("*.json")
        _only_entry(cache).unlink()
    target.unlink()
    if what.startswith("fifo"):
        os.mkfifo(target)
    else:
        os.symlink("/dev/zero", target)
    assert run(root, cache, ".").stdout == want
    assert run(root, cache, ".").stdout == want


def _seal_raw(body: str) -> str:
    import hashlib
    import hmac

    check = hmac.new(store._seal_key(), body.encode(), hashlib.sha256).hexdigest()
    return f'{{"check": "{check}", "data": {body}}}'


@pytest.mark.parametrize(
    "damage", ["truncated", "garbage", "empty", "binary", "not sealed", "sealed list", "sealed deep", "huge"]
)
def test_truncated_or_garbage_entries_are_misses(project, damage):
    root, cache = project
    want = run(root, cache, ".").stdout
    files = [_only_entry(cache), *(cache / "trees").glob("*.json"), cache / "files.idx"]
    for f in files:
        text = f.read_text()
        f.write_bytes(
            {
                "truncated": text[: len(text) // 2].encode(),
                "garbage": b"{not json at all",
                "empty": b"",
                "binary": bytes(range(256)) * 4,
                "not sealed": json.dumps(json.loads(text)["data"]).encode(),
                "sealed list": _seal_raw("[1, 2, 3]").encode(),
                "sealed deep": _seal_raw("[" * 200_000 + "]" * 200_000).encode(),  # (RecursionError in json)
                "huge": b" " * (store.MAX_ENTRY + 10),
            }[damage]
        )
    assert run(root, cache, ".").stdout == want
    assert run(root, cache, ".").stdout == want


def test_an_edited_or_foreign_version_entry_is_a_miss(project, monkeypatch):
    root, cache = project
    want = run(root, cache, ".").stdout
    assert "RL601" in want
    entry = _only_entry(cache)
    sealed = json.loads(entry.read_text())
    data = sealed["data"]
    data["findings"] = []  # the check digest kept: an edit it does not match
    entry.write_text(json.dumps({"check": sealed["check"], "data": data}))
    assert run(root, cache, ".").stdout == want
    # the same entry sealed by another version of recipelint: not read
    monkeypatch.setattr(store, "_SEAL_KEY", b"recipelint 0.0.0 cache 2")
    entry.write_text(store.seal(data))
    monkeypatch.setattr(store, "_SEAL_KEY", None)
    with pytest.raises(ValueError):
        store.unseal(entry.read_bytes())
    assert run(root, cache, ".").stdout == want
    assert store.unseal(entry.read_bytes())["findings"]  # (analysed again, and written again)


# ------------------------------------------------------- never digest a FIFO or a device


@pytest.mark.parametrize("name", ["pipe.sh", "docs/pipe.md", "conf/pipe.yaml", "pyproject.toml"])
@pytest.mark.parametrize("kind", ["fifo", "dev-zero", "dev-urandom"])
def test_a_fifo_or_device_under_the_root_never_hangs_the_key(project, name, kind):
    """A FIFO (or a link to /dev/zero) anywhere under the root with a name the cache digests hung
    the run (or read without end) even when an unrelated recipe is checked."""
    root, cache = project
    p = root / name
    p.parent.mkdir(parents=True, exist_ok=True)
    if kind == "fifo":
        os.mkfifo(p)
    else:
        os.symlink(f"/dev/{kind.split('-')[1]}", p)
    want = fresh(root, "other.sh")
    assert run(root, cache, "other.sh").stdout == want
    assert run(root, cache, "other.sh").stdout == want
    assert len(entries(cache)) == 1  # (cached: the special file is part of the key by name, never read)


def test_a_file_swapped_for_a_fifo_after_its_stat_is_not_opened_blocking(tmp_path):
    """The digest checks what it opened (fstat on the descriptor), not a stat taken before: a
    regular file replaced by a FIFO between the two would block the open forever."""
    fifo = tmp_path / "lib.sh"
    os.mkfifo(fifo)
    regular = tmp_path / "regular"
    regular.write_text("x\n")
    code = (
        "import os, sys\n"
        "from recipelint.cache import store\n"
        "real = os.stat\n"
        "store.os.stat = lambda p, *a, **k: real(sys.argv[2]) if p == sys.argv[1] else real(p, *a, **k)\n"
        "try:\n"
        "    store._StatIndex().digest(sys.argv[1])\n"
        "except OSError as e:\n"
        "    print('refused', e)\n"
    )
    r = subprocess.run(
        [sys.executable, "-c", code, str(fifo), str(regular)],
        env={**os.environ, "RECIPELINT_CACHE_DIR": str(tmp_path / "c")},
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        preexec_fn=_limit,
    )
    assert r.stdout.startswith("refused") and "not a regular file" in r.stdout, r.stderr


def test_a_link_out_of_the_root_is_not_digested(project, tmp_path):
    root, cache = project
    secret = tmp_path / "outside" / "secret.md"
    secret.parent.mkdir()
    secret.write_text("token=abc\n")
    os.symlink(secret, root / "notes.md")
    os.symlink(root / "vars.env", root / "inside.md")  # (a link inside the root is followed)
    run(root, cache, "other.sh")
    index = json.loads((cache / "files.idx").read_text())["data"]["files"]
    assert str(secret) not in index and not any("outside" in p for p in index)
    assert str(root / "vars.env") in index
    # the key still changes when the link is pointed elsewhere (the report could name where it leads)
    (root / "notes.md").unlink()
    os.symlink(tmp_path / "outside" / "other.md", root / "notes.md")
    run(root, cache, "other.sh")
    assert len(entries(cache)) == 2


# ------------------------------------------------ the key covers every file the analysis read


def test_editing_a_sourced_env_file_is_seen(project):
    root, cache = project
    first = run(root, cache, "run.sh").stdout
    assert "RL601" in first
    (root / "vars.env").write_text(GOOD_FLAG)  # (`.env`: not a suffix the tree walk digests)
    second = run(root, cache, "run.sh").stdout
    assert "RL601" not in second and second == fresh(root, "run.sh")
    (root / "vars.env").write_text(BAD_FLAG)
    assert run(root, cache, "run.sh").stdout == first


@pytest.mark.parametrize("folder", [".hidden", ".cache", ".venv", "node_modules"])
def test_editing_a_sourced_file_under_a_dot_or_skipped_folder_is_seen(project, folder):
    root, cache = project
    (root / folder).mkdir()
    (root / folder / "vars").write_text(BAD_FLAG)
    (root / folder / "lib.sh").write_text(BAD_FLAG)
    (root / "run.sh").write_text(f"#!/bin/bash\nsource ./{folder}/vars\nsource ./{folder}/lib.sh\nvllm serve m $ARGS\n")
    assert "RL601" in run(root, cache, "run.sh").stdout
    (root / folder / "vars").write_text(GOOD_FLAG)
    (root / folder / "lib.sh").write_text(GOOD_FLAG)
    second = run(root, cache, "run.sh").stdout
    assert "RL601" not in second and second == fresh(root, "run.sh")


def test_a_sourced_file_that_appears_is_seen(project):
    """`source ./vars.env` not found, then created: the path it was looked for at is kept."""
    root, cache = project
    (root / "vars.env").unlink()
    first = run(root, cache, "run.sh").stdout
    assert "RL601" not in first
    (root / "vars.env").write_text(BAD_FLAG)
    assert "RL601" in run(root, cache, "run.sh").stdout


def test_a_sourced_file_that_goes_is_seen(project):
    root, cache = project
    assert "RL601" in run(root, cache, "run.sh").stdout
    (root / "vars.env").unlink()
    assert run(root, cache, "run.sh").stdout == fresh(root, "run.sh")


def test_a_file_read_outside_the_root_is_never_stale(project, tmp_path):
    """A sourced file outside the project root: the run is not cached (or the file not read at all
    when confined), so an edit to it is never hidden by a stale entry."""
    root, cache = project
    out = tmp_path / "elsewhere.env"
    out.write_text(BAD_FLAG)
    (root / "run.sh").write_text(f"#!/bin/bash\nsource {out}\nvllm serve m $ARGS\n")
    assert run(root, cache, "run.sh").stdout == fresh(root, "run.sh")
    out.write_text(GOOD_FLAG)
    assert run(root, cache, "run.sh").stdout == fresh(root, "run.sh")


def test_the_reads_of_parallel_workers_are_kept(tmp_path):
    """With workers, the files each worker's library read come back to the entry."""
    root = tmp_path / "par"
    (root / ".git").mkdir(parents=True)
    (root / "vars.env").write_text(BAD_FLAG)
    for j in range(48):
        (root / f"r{j}.sh").write_text(f"#!/bin/bash\nsource ./vars.env\nvllm serve m $ARGS --max-num-seqs {j + 1}\n")
    cache = tmp_path / "cache"
    assert "RL601" in run(root, cache, "-j", "2", ".").stdout
    (entry,) = entries(cache)
    assert str(root / "vars.env") in json.loads(entry.read_text())["data"]["reads"]
    (root / "vars.env").write_text(GOOD_FLAG)
    assert "RL601" not in run(root, cache, "-j", "2", ".").stdout


# ----------------------------------------------- temp files, the index, the cache's place


def test_a_failed_write_leaves_no_temp_file(tmp_path, monkeypatch):
    def fail(*a):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", fail)
    assert store.write_atomic(tmp_path / "c" / "x.json", "{}") is False
    assert not list((tmp_path / "c").iterdir())
    monkeypatch.undo()
    assert store.write_entry(tmp_path / "c" / "y.json", {"a": object()}) is False  # (not JSON: nothing written)
    assert not list((tmp_path / "c").iterdir())


def test_a_prune_removes_old_temp_files_and_non_entries(tmp_path):
    d = tmp_path / "c"
    d.mkdir()
    for i in range(store.KEEP + 6):
        p = d / f"{i:064x}.json"
        p.write_text("{}")
        os.utime(p, ns=(i * 10**9, i * 10**9))
    old = d / ".tmp-dead.part"
    old.write_text("half")
    os.utime(old, (time.time() - 2 * store.STALE_TMP_S,) * 2)
    live = d / ".tmp-writing.part"  # (another run writing now: kept)
    live.write_text("half")
    os.symlink("/nonexistent", d / ("b" * 64 + ".json"))
    os.mkfifo(d / ("c" * 64 + ".json"))
    (d / ("d" * 64 + ".json")).mkdir()  # (a folder: not ours to remove)
    (d / "files.idx").write_text("{}")
    store.prune(d)
    kept = sorted(p.name for p in d.glob("*.json") if p.is_file())
    assert kept == [f"{i:064x}.json" for i in range(6, store.KEEP + 6)]
    assert not old.exists() and live.exists() and (d / "files.idx").exists() and (d / ("d" * 64 + ".json")).is_dir()
    assert not os.path.lexists(d / ("b" * 64 + ".json")) and not os.path.lexists(d / ("c" * 64 + ".json"))
    store.prune(tmp_path / "absent")  # (no folder: nothing to do, no error)


def test_the_stat_index_is_capped_and_compacted(tmp_path, monkeypatch):
    monkeypatch.setenv("RECIPELINT_CACHE_DIR", str(tmp_path / "c"))
    monkeypatch.setattr(store, "MAX_INDEX", 10)
    idx = store._StatIndex()
    idx.files = {f"/gone/{i}": [1, 1, 1, i, "0" * 64] for i in range(30)}
    files = []
    for i in range(5):
        f = tmp_path / f"f{i}.sh"
        f.write_text(f"{i}\n")
        files.append(str(f))
        idx.digest(str(f))
    idx.save()
    again = store._StatIndex()
    assert len(again.files) == 10
    assert set(files) <= set(again.files)  # (this run's files first, then the most recently hashed)
    assert {f"/gone/{i}" for i in range(25, 30)} <= set(again.files)


def test_an_oversized_or_invalid_index_is_dropped(project, monkeypatch):
    """A 500,000-entry index made each warm run ~1 s and 400 MB: beyond the cap it is not read
    (and is rewritten at the cap); entries of the wrong shape are dropped one by one."""
    root, cache = project
    want = run(root, cache, ".").stdout
    big = {f"/x/{i:07d}/a-long-enough-path/lib.sh": [100, 1, i, 2, "ab" * 32] for i in range(500_000)}
    (cache / "files.idx").write_text(store.seal({"format": store.FORMAT, "files": big}))
    assert (cache / "files.idx").stat().st_size > 400 * store.MAX_INDEX
    (root / "other.sh").write_text((root / "other.sh").read_text() + "# edited\n")  # (a miss: index rewritten)
    assert run(root, cache, ".").stdout == fresh(root, ".")
    assert len(json.loads((cache / "files.idx").read_text())["data"]["files"]) <= store.MAX_INDEX
    monkeypatch.setenv("RECIPELINT_CACHE_DIR", str(cache))
    lib = str((root / "other.sh").resolve())
    (cache / "files.idx").write_text(
        store.seal({"format": store.FORMAT, "files": {lib: [1, "x"], "/b": "y", "/c": [1, 2, 3, 4, "0" * 64]}})
    )
    idx = store._StatIndex()
    data = (root / "other.sh").read_bytes()
    assert idx.digest(lib) == (len(data), hashlib.sha256(data).digest())  # (the bad entry is not used)
    idx.save()  # (dirty: the digest was recomputed) — the entries of the wrong shape are not kept
    assert set(store._StatIndex().files) == {lib, "/c"}
    del want


def test_a_relative_xdg_cache_home_is_ignored(tmp_path, monkeypatch):
    monkeypatch.delenv("RECIPELINT_CACHE_DIR", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("XDG_CACHE_HOME", "relative/cache")
    assert store.cache_dir() == tmp_path / ".cache" / "recipelint"
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert store.cache_dir() == tmp_path / "xdg" / "recipelint"
    monkeypatch.setenv("XDG_CACHE_HOME", "")
    assert store.cache_dir() == tmp_path / ".cache" / "recipelint"


def test_a_relative_xdg_cache_home_writes_nothing_in_the_project(project):
    root, _ = project
    env = {k: v for k, v in os.environ.items() if k != "RECIPELINT_CACHE_DIR"}
    env.update(XDG_CACHE_HOME="xdg", HOME=str(root.parent / "home"))
    r = subprocess.run(
        [sys.executable, "-m", "recipelint", "check", "-o", "concise", "."],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        preexec_fn=_limit,
    )
    assert r.returncode in (0, 1), r.stderr
    assert not (root / "xdg").exists()
    assert list((root.parent / "home" / ".cache" / "recipelint").glob("*.json"))
