"""``python -m recipelint``: the same as the ``recipelint`` command."""

from recipelint.cli import main

main()
