"""Progress of a long run on stderr: ``checked 120/243 files`` (``(base tree, 1a2b3c4d5e6f)`` in
diff mode's run of the base), rewritten in place and cleared at
the end — only on a terminal, and only once the run has taken ``delay`` seconds (a quick run, a
pipe, a CI log or a test's captured output never see it)."""

from __future__ import annotations

import time
from typing import IO


class Progress:
    """A ``progress(done, total)`` callback for ``lint.check.Options``; a context manager that
    clears the line it wrote when the run ends (or fails)."""

    def __init__(self, stream: IO, delay: float = 2.0, interval: float = 0.1, clock=time.monotonic):
        self.stream = stream
        self.delay, self.interval, self.clock = delay, interval, clock
        try:
            self.enabled = bool(stream.isatty())
        except (AttributeError, ValueError, OSError):
            self.enabled = False
        self.start = clock()
        self.last = float("-inf")
        self.shown = 0  # the width of the text on the terminal now

    def __call__(self, done: int, total: int, what: str | None = None) -> None:
        if not self.enabled:
            return
        now = self.clock()
        if now - self.start < self.delay or (done < total and now - self.last < self.interval):
            return
        text = f"checked {done}/{total} files" + (f" ({what})" if what else "")
        self._write("\r" + text + " " * max(0, self.shown - len(text)))
        self.shown, self.last = len(text), now

    def close(self) -> None:
        if self.shown:
            self._write("\r" + " " * self.shown + "\r")
            self.shown = 0

    def _write(self, s: str) -> None:
        try:
            self.stream.write(s)
            self.stream.flush()
        except (OSError, ValueError):  # stderr closed under us: no progress, the run goes on
            self.enabled = False

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *exc) -> None:
        self.close()
