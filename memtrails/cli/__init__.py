"""The ``memtrails`` command: a thin layer over :class:`memtrails.Memory` and the importers.

One module per group of commands; importing them registers the commands on :data:`main`.
"""

from __future__ import annotations

from . import _add, _maintain, _mcp, _move, _read, _serve, _sources, _watch  # noqa: F401  (registers the commands)
from ._group import main

__all__ = ["main"]
