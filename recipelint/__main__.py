"""``python -m recipelint``: the same as the ``recipelint`` command."""

from .cli import main

main()
