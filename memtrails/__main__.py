"""``python -m memtrails``: the ``memtrails`` command."""

from .cli import main

main(prog_name="memtrails")
