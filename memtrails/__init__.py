"""memtrails: stream mail, chat, Git history, notes and any cursor into a searchable memory folder.

What a user imports is here. Beside it, a few named namespaces: ``memtrails.extend`` (the
protocols an embedder or index backend implements, and the plumbing a pipeline of your own
composes), ``memtrails.testing`` (test doubles) and ``memtrails.secrets`` (the secret rule
set). Every other module is internal.

The layers, lowest first (``tests/test_layers.py`` holds every module to them): the base
(records, keys, portable, dates, words), models and rules (embedding, secrets, items), the
three stages of the data flow, which never import one another (importers -> pipeline ->
folder), and the modules that compose them (ingest, memory, add, cli). Public names live in
those modules and are re-exported here; their ``__module__`` says ``memtrails``.
"""

import contextlib as _contextlib
import typing as _typing

from ._exceptions import (
    DiskFullError,
    EmbeddingError,
    FolderAccessError,
    FolderBusyError,
    FolderFormatError,
    IndexBackendError,
    JobConflictError,
    MemoryClosedError,
    MemoryLockedError,
    MemtrailsError,
    ModelMismatchError,
    NoMemoryFolderError,
    ServiceError,
    ServiceFileError,
    SourceError,
    ToolInputError,
)
from ._lazy import lazy_names as _lazy_names

if _typing.TYPE_CHECKING:
    from .add import add_git, add_path
    from .embedding import OnnxEmbedder, OpenAIEmbedder, default_embedder
    from .folder.hits import SearchHit
    from .folder.index import EdgeIndex, ServerIndex
    from .folder.ranking import CONFIDENT_COSINE
    from .importers.cursor import from_cursor
    from .importers.eml import from_eml
    from .importers.files import from_files
    from .importers.git import from_git
    from .importers.iterables import from_iterable
    from .importers.json_doc import from_json
    from .importers.jsonl import from_jsonl
    from .importers.maildir import from_maildir
    from .importers.mbox import from_mbox
    from .importers.slack import from_slack_export
    from .importers.transcripts import from_agent_transcripts
    from .limits import Limits
    from .memory import Memory, MemoryStatus
    from .pipeline.dedup import dedup
    from .pipeline.embed import embed
    from .pipeline.normalise import normalise
    from .pipeline.scrub import scrub
    from .records import (
        At,
        ImportReport,
        MemoryRecord,
        RecordError,
        Seen,
        SourceReport,
        SourceState,
    )

__all__ = [
    "CONFIDENT_COSINE",
    "At",
    "DiskFullError",
    "EdgeIndex",
    "EmbeddingError",
    "FolderAccessError",
    "FolderBusyError",
    "FolderFormatError",
    "ImportReport",
    "IndexBackendError",
    "JobConflictError",
    "Limits",
    "Memory",
    "MemoryClosedError",
    "MemoryLockedError",
    "MemoryRecord",
    "MemoryStatus",
    "MemtrailsError",
    "ModelMismatchError",
    "NoMemoryFolderError",
    "OnnxEmbedder",
    "OpenAIEmbedder",
    "RecordError",
    "SearchHit",
    "Seen",
    "ServerIndex",
    "ServiceError",
    "ServiceFileError",
    "SourceError",
    "SourceReport",
    "SourceState",
    "ToolInputError",
    "add_git",
    "add_path",
    "dedup",
    "default_embedder",
    "embed",
    "from_agent_transcripts",
    "from_cursor",
    "from_eml",
    "from_files",
    "from_git",
    "from_iterable",
    "from_json",
    "from_jsonl",
    "from_maildir",
    "from_mbox",
    "from_slack_export",
    "normalise",
    "scrub",
]

# Every public name but the exceptions is loaded on first use: `import memtrails` (which
# every `memtrails` command does first) then costs the exceptions alone, so that a command
# such as `memtrails status` imports what it needs and not the model runtime, the Qdrant
# clients, the importers and the secret rules (2-3 s at load 8, most of its time).
_LAZY = {
    "CONFIDENT_COSINE": ".folder.ranking",
    "At": ".records",
    "EdgeIndex": ".folder.index",
    "ImportReport": ".records",
    "Limits": ".limits",
    "Memory": ".memory",
    "MemoryRecord": ".records",
    "MemoryStatus": ".memory",
    "OnnxEmbedder": ".embedding",
    "OpenAIEmbedder": ".embedding",
    "RecordError": ".records",
    "SearchHit": ".folder.hits",
    "Seen": ".records",
    "ServerIndex": ".folder.index",
    "SourceReport": ".records",
    "SourceState": ".records",
    "add_git": ".add",
    "add_path": ".add",
    "dedup": ".pipeline.dedup",
    "default_embedder": ".embedding",
    "embed": ".pipeline.embed",
    "from_agent_transcripts": ".importers.transcripts",
    "from_cursor": ".importers.cursor",
    "from_eml": ".importers.eml",
    "from_files": ".importers.files",
    "from_git": ".importers.git",
    "from_iterable": ".importers.iterables",
    "from_json": ".importers.json_doc",
    "from_jsonl": ".importers.jsonl",
    "from_maildir": ".importers.maildir",
    "from_mbox": ".importers.mbox",
    "from_slack_export": ".importers.slack",
    "normalise": ".pipeline.normalise",
    "scrub": ".pipeline.scrub",
}


def _public(value: _typing.Any) -> _typing.Any:
    # As httpx does: show and pickle public names as memtrails.X, wherever they are defined.
    if isinstance(value, type) or callable(value):
        with _contextlib.suppress(AttributeError, TypeError):
            value.__module__ = __name__
    return value


__getattr__ = _lazy_names(__name__, _LAZY, globals(), _public)


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})


for _name in __all__:
    if _name not in _LAZY:
        _public(globals()[_name])
del _name
