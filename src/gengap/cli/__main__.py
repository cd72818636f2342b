"""``python -m gengap.cli``: the same as the ``gengap`` command."""

from gengap.cli import main

main()
