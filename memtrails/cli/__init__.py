"""The ``memtrails`` command: a thin layer over :class:`memtrails.Memory` and the importers.

One module per group of commands; importing one registers its commands on :data:`main`,
which imports the module of the command given when it runs (``_group.COMMANDS``).
"""

from __future__ import annotations

from ._group import main

__all__ = ["main"]
