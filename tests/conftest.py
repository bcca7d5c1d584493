import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import pytest


@pytest.fixture(autouse=True, scope="session")
def _private_cache_dir(tmp_path_factory):
    """Runs of `recipelint check` in tests cache into a temporary folder, not the user's."""
    import os

    old = os.environ.get("RECIPELINT_CACHE_DIR")
    os.environ["RECIPELINT_CACHE_DIR"] = str(tmp_path_factory.mktemp("recipelint-cache"))
    yield
    if old is None:
        os.environ.pop("RECIPELINT_CACHE_DIR", None)
    else:
        os.environ["RECIPELINT_CACHE_DIR"] = old


@pytest.fixture(autouse=True)
def _no_colour_settings_from_the_caller(monkeypatch):
    """NO_COLOR / FORCE_COLOR of the shell running the tests do not change the outputs they check."""
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.delenv("FORCE_COLOR", raising=False)


@pytest.fixture
def seed_tree(tmp_path, monkeypatch):
    """A copy of fixtures/seed as the working directory, with its own cache folder."""
    import shutil

    shutil.copytree(Path(__file__).resolve().parent.parent / "fixtures" / "seed", tmp_path / "seed")
    monkeypatch.chdir(tmp_path / "seed")
    monkeypatch.setenv("RECIPELINT_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "seed"
