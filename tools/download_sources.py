"""Download the release archives a committed engine history was generated from, and check them.

    python tools/download_sources.py vllm sglang --dest DIR [--versions 0.10.2 0.25.1]
    python tools/download_sources.py ai-dynamo --dest DIR   # the Dynamo wrappers' wheels

For each engine, ``rules/data/catalogs/<engine>-history.json`` names, per release, the archive it
was read from and its SHA-256 (``sources``).  This fetches each archive from PyPI's simple index
(``https://pypi.org/simple/<engine>/``: the link whose file name is the recorded one) into DIR,
checks its SHA-256 against the history, and leaves a file already in DIR with the right digest
alone.  Then the history can be regenerated and compared, byte for byte:

    python tools/gen_catalogs.py --history vllm sglang --sources DIR --out /tmp/out
    cmp /tmp/out/vllm-history.json rules/data/catalogs/vllm-history.json

and the opt-in tests that read the archives run (``RECIPELINT_SOURCES=DIR pytest
tests/test_catalogs.py``).  Nothing downloaded is unpacked, built or run; an archive whose digest
differs is deleted and reported (exit status 1).  This is a development tool: recipelint itself
never downloads anything.
"""

from __future__ import annotations

import argparse
import hashlib
import html.parser
import json
import sys
import urllib.parse
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
INDEX = "https://pypi.org/simple/{name}/"


class _Links(html.parser.HTMLParser):
    """The ``<a href>`` targets of a PEP 503 simple page, by file name."""

    def __init__(self, base: str):
        super().__init__()
        self.base = base
        self.by_name: dict[str, str] = {}

    def handle_starttag(self, tag, attrs):
        if tag != "a":
            return
        href = dict(attrs).get("href")
        if href:
            url = urllib.parse.urljoin(self.base, href)
            name = urllib.parse.unquote(urllib.parse.urlsplit(url).path.rsplit("/", 1)[-1])
            self.by_name[name] = url.split("#", 1)[0]


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def links(engine: str) -> dict[str, str]:
    url = INDEX.format(name=engine)
    with urllib.request.urlopen(url, timeout=60) as r:
        page = r.read().decode("utf-8", "replace")
    parser = _Links(url)
    parser.feed(page)
    return parser.by_name


#: histories that are not ``<engine>-history.json``: the PyPI project -> the history file
#: (the two Dynamo wrapper histories are read from the same ai-dynamo wheels)
HISTORY_FILES = {"ai-dynamo": "wrappers/dynamo.vllm-history.json"}


def download(engine: str, dest: Path, only: set[str] | None = None) -> int:
    name = HISTORY_FILES.get(engine, f"{engine}-history.json")
    hist = json.loads((ROOT / "rules" / "data" / "catalogs" / name).read_text())
    wanted = {v: src for v, src in hist["sources"].items() if only is None or v in only}
    missing = sorted((only or set()) - set(hist["sources"]))
    for v in missing:
        print(f"{engine} {v}: not a release of the history", file=sys.stderr)
    urls = links(engine)
    bad = len(missing)
    for version, (name, digest) in wanted.items():
        path = dest / name
        if path.is_file() and _sha256(path) == digest:
            continue
        url = urls.get(name)
        if url is None:
            print(f"{engine} {version}: {name} is not on {INDEX.format(name=engine)}", file=sys.stderr)
            bad += 1
            continue
        tmp = path.with_suffix(path.suffix + ".part")
        with urllib.request.urlopen(url, timeout=600) as r, tmp.open("wb") as f:
            while block := r.read(1 << 20):
                f.write(block)
        got = _sha256(tmp)
        if got != digest:
            tmp.unlink()
            print(f"{engine} {version}: {name} has SHA-256 {got}, the history says {digest}", file=sys.stderr)
            bad += 1
            continue
        tmp.replace(path)
        print(f"{engine} {version}: {name}")
    return 1 if bad else 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("engines", nargs="+")
    ap.add_argument("--dest", type=Path, required=True)
    ap.add_argument("--versions", nargs="*", help="only these releases (default: every one in the history)")
    a = ap.parse_args(argv)
    a.dest.mkdir(parents=True, exist_ok=True)
    only = set(a.versions) if a.versions else None
    return max(download(e, a.dest, only) for e in a.engines)


if __name__ == "__main__":
    sys.exit(main())
