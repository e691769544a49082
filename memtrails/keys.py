"""Record uid, point id and fingerprint: the keys every language must compute alike."""

from __future__ import annotations

from typing import Any

from .portable import js_stringify, sha256_hex
from .records import MemoryRecord

__all__ = ["fingerprint", "fingerprint_of", "point_id", "record_uid"]


def record_uid(source: str, id: str) -> str:
    """Return the record's uid: 32 hex digits of SHA-256 over ``JSON.stringify([source, id])``.

    Hashing the JSON array (not ``source + id``) keeps ``("a:", "b")`` and ``("a", ":b")`` apart.
    """
    return sha256_hex(js_stringify([source, id]))[:32]


def point_id(uid: str, passage: int) -> str:
    """Return the index point id of passage ``passage`` of a record: a UUID-shaped string.

    It is SHA-256 of ``f"{uid}:{passage}"``, first 32 hex digits grouped 8-4-4-4-12, so
    re-indexing a record upserts the same points instead of adding new ones.
    """
    h = sha256_hex(f"{uid}:{passage}")
    return f"{h[0:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:32]}"


def fingerprint_of(content: dict[str, Any]) -> str:
    """Return the SHA-256 hex of ``JSON.stringify(content)``: the fingerprint of a record's JSON form.

    ``content`` must be the record's JSON object with its keys in the order of
    :meth:`MemoryRecord.to_json` (``id, source, kind, title, author, at, thread, text, meta``).
    """
    return sha256_hex(js_stringify(content))


def fingerprint(record: MemoryRecord) -> str:
    """Return the SHA-256 hex of the record's content as ``JSON.stringify`` writes it."""
    return fingerprint_of(record.to_json())
