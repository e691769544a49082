"""``python -m memtrails.cli``: the ``memtrails`` command."""

from . import main

main(prog_name="memtrails")
