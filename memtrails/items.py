"""What flows between the stages once a record has been read."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from .embedding._base import Passage
from .js import js_well_formed
from .records import MemoryRecord, RecordError, SourceState

__all__ = ["StageItem", "Staged", "Unchanged", "embed_text"]


@dataclass(slots=True)
class Staged:
    """A record on its way to the sink, with the keys and work attached by each stage."""

    record: MemoryRecord
    secrets: Counter[str] | None = None
    uid: str = ""
    fp: str = ""
    update: bool = False
    passages: list[Passage] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class Unchanged:
    """A record the folder already holds with the same fingerprint: no further work."""

    uid: str
    source: str


StageItem = Staged | Unchanged | RecordError | SourceState


def embed_text(record: MemoryRecord) -> str:
    """Return the text the model sees for a record: its title, a blank line, its text.

    The title is left out when the text already starts with it (a commit message). Lone
    surrogates become U+FFFD, as ``TextEncoder`` hands text to the reference's tokenizer
    (normalisation has done it for every imported record; a record read back from an older
    folder may still hold them).
    """
    if record.title and record.text and not record.text.startswith(record.title):
        return js_well_formed(f"{record.title}\n\n{record.text}")
    return js_well_formed(record.text or record.title or "")
