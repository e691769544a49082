"""What code that extends memtrails builds on: the protocols it implements, the plumbing it composes.

- An embedding model implements :class:`Embedder` (returning :class:`Passage` lists).
- An index backend implements :class:`IndexBackend` over :class:`IndexPoint`,
  :class:`SparseVector`, :class:`SearchFilter` and :class:`Hit`.
- A pipeline of your own composes the stages in ``memtrails`` (``normalise``, ``scrub``,
  ``dedup``, ``embed``) with :data:`batch` and :data:`prefetch`, and holds at most
  :func:`in_flight_bound` records at once.
- A new kind of input is an :class:`Importer` (how it is recognised and opened, with an
  :class:`Opening`), declared in the ``memtrails.importers`` entry point group; its
  ``from_<kind>`` function is decorated with :func:`resumable_importer` so that
  ``Memory.ingest`` hands it its saved position, one of the ``*State`` dicts for the
  built-in kinds.

What is not here, in ``memtrails``, ``memtrails.testing`` or ``memtrails.secrets`` is internal:
it may change in any release.

Example: the stages an import runs before the model, composed by hand (docs/pipeline.md)::

    from aiostream import stream
    from memtrails import from_jsonl, normalise, scrub
    from memtrails.extend import batch

    items = stream.iterate(from_jsonl("notes.jsonl")) | normalise.pipe("notes") | scrub.pipe()
    async with (items | batch.pipe(64, 1.0)).stream() as batches:
        async for group in batches:  # at most 64 at a time, or what came within 1 s
            print(len(group))

The smallest :class:`Embedder` is ``memtrails.testing.HashingEmbedder``'s source; pass one
as ``Memory.open(path, embedder=...)``, an index backend as ``index=``.
"""

from .embedding._base import Embedder, Passage, Vector
from .folder.index._base import Hit, IndexBackend, IndexPoint, SearchFilter, SparseVector
from .importers.contract import (
    FilesState,
    GitState,
    Importer,
    JsonlState,
    MaildirState,
    MboxState,
    Opening,
    SlackState,
    resumable_importer,
)
from .importers.registry import ENTRY_POINTS
from .ingest import in_flight_bound
from .pipeline.batch import batch, prefetch

__all__ = [
    "ENTRY_POINTS",
    "Embedder",
    "FilesState",
    "GitState",
    "Hit",
    "Importer",
    "IndexBackend",
    "IndexPoint",
    "JsonlState",
    "MaildirState",
    "MboxState",
    "Opening",
    "Passage",
    "SearchFilter",
    "SlackState",
    "SparseVector",
    "Vector",
    "batch",
    "in_flight_bound",
    "prefetch",
    "resumable_importer",
]
