"""``python -m recipelint``: the same as the ``recipelint`` command."""

from recipelint.entry import main

main()
