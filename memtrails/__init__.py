"""memtrails: stream mail, chat, Git history, notes and any cursor into a searchable memory folder."""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

from ._exceptions import (
    EmbeddingError,
    FolderFormatError,
    IndexBackendError,
    MemoryClosedError,
    MemoryLockedError,
    MemtrailsError,
    ModelMismatchError,
    SourceError,
)
from .importers.eml import from_eml
from .importers.files import from_files
from .importers.git import from_git
from .importers.iterables import from_iterable
from .importers.jsonl import from_jsonl
from .importers.mbox import from_mbox
from .importers.slack import from_slack_export
from .memory import Memory, MemoryStatus, SearchHit, in_flight_bound
from .pipeline.batch import batch, prefetch
from .pipeline.dedup import dedup
from .pipeline.embed import embed
from .pipeline.normalise import normalise
from .pipeline.scrub import scrub
from .records import At, ImportReport, MemoryRecord, RecordError, SourceReport

if TYPE_CHECKING:
    from .embedding import OnnxEmbedder, OpenAIEmbedder, default_embedder
    from .folder.index import EdgeIndex, ServerIndex

__all__ = [
    "At",
    "EdgeIndex",
    "EmbeddingError",
    "FolderFormatError",
    "ImportReport",
    "IndexBackendError",
    "Memory",
    "MemoryClosedError",
    "MemoryLockedError",
    "MemoryRecord",
    "MemoryStatus",
    "MemtrailsError",
    "ModelMismatchError",
    "OnnxEmbedder",
    "OpenAIEmbedder",
    "RecordError",
    "SearchHit",
    "ServerIndex",
    "SourceError",
    "SourceReport",
    "batch",
    "dedup",
    "default_embedder",
    "embed",
    "from_eml",
    "from_files",
    "from_git",
    "from_iterable",
    "from_jsonl",
    "from_mbox",
    "from_slack_export",
    "in_flight_bound",
    "normalise",
    "prefetch",
    "scrub",
]

# The model runtime and the Qdrant clients are heavy to import; load them on first use.
_LAZY = {
    "OnnxEmbedder": ".embedding",
    "OpenAIEmbedder": ".embedding",
    "default_embedder": ".embedding",
    "EdgeIndex": ".folder.index",
    "ServerIndex": ".folder.index",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'memtrails' has no attribute {name!r}")
    value = getattr(import_module(module, __name__), name)
    globals()[name] = value
    return value
