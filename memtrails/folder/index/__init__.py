"""Index backends: Qdrant Edge (embedded default), a Qdrant server (scale-out), in memory (tests).

The backends import their Qdrant libraries, which are heavy: they load on first use.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

from ._base import Hit, IndexBackend, IndexPoint, SearchFilter, SparseVector
from .memory import MemoryIndex

if TYPE_CHECKING:
    from .edge import EdgeIndex
    from .server import ServerIndex

__all__ = [
    "EdgeIndex",
    "Hit",
    "IndexBackend",
    "IndexPoint",
    "MemoryIndex",
    "SearchFilter",
    "ServerIndex",
    "SparseVector",
]

_LAZY = {"EdgeIndex": ".edge", "ServerIndex": ".server"}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(module, __name__), name)
