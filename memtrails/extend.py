"""What code that extends memtrails builds on: the protocols it implements, the plumbing it composes.

- An embedding model implements :class:`Embedder` (returning :class:`Passage` lists).
- An index backend implements :class:`IndexBackend` over :class:`IndexPoint`,
  :class:`SparseVector`, :class:`SearchFilter` and :class:`Hit`.
- A pipeline of your own composes the stages in ``memtrails`` (``normalise``, ``scrub``,
  ``dedup``, ``embed``) with :data:`batch` and :data:`prefetch`, and holds at most
  :func:`in_flight_bound` records at once.
- The importer contract (what an importer declares to be found by ``memtrails add``) joins
  this namespace from ``memtrails.importers`` when it is declared there.

What is not here, in ``memtrails``, ``memtrails.testing`` or ``memtrails.secrets`` is internal:
it may change in any release.
"""

from .embedding._base import Embedder, Passage, Vector
from .folder.index._base import Hit, IndexBackend, IndexPoint, SearchFilter, SparseVector
from .ingest import in_flight_bound
from .pipeline.batch import batch, prefetch

__all__ = [
    "Embedder",
    "Hit",
    "IndexBackend",
    "IndexPoint",
    "Passage",
    "SearchFilter",
    "SparseVector",
    "Vector",
    "batch",
    "in_flight_bound",
    "prefetch",
]
