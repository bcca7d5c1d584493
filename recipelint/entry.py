"""The ``recipelint`` console script and ``python -m recipelint``: a Ctrl-C ends the process quietly
with status 130 from this module's first line on — also while the command line's modules are
still being imported (an interrupt there used to print an import traceback).  Once they are
imported, the CLI's own handling takes over (``cli._run``: workers stopped, temporary trees
removed).  Only the interpreter's own start, before any recipelint code runs, is Python's."""

import os
import signal
import sys


def _quit(signum, frame) -> None:  # (a signal handler's signature)
    try:
        sys.stderr.flush()
    except (OSError, ValueError):
        pass
    os._exit(130)


#: (installed when the console script imports this module, before it imports anything else of recipelint)
_PREVIOUS = signal.signal(signal.SIGINT, _quit)


def main() -> None:
    from recipelint.cli import main as run

    signal.signal(signal.SIGINT, _PREVIOUS)  # (Python's KeyboardInterrupt from here: cli._run exits 130)
    run()
