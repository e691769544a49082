"""Record uid, point id and fingerprint: the keys every language must compute alike."""

from __future__ import annotations

from typing import Any

from .js import js_stringify, sha256_hex
from .records import MemoryRecord

__all__ = ["fingerprint", "point_id", "record_uid"]


def record_uid(source: str, id: str) -> str:
    """Return the record's uid: 32 hex digits of SHA-256 over ``JSON.stringify([source, id])``."""
    return sha256_hex(js_stringify([source, id]))[:32]


def point_id(uid: str, passage: int) -> str:
    """Return the index point id of passage ``passage`` of a record: a UUID-shaped string."""
    h = sha256_hex(f"{uid}:{passage}")
    return f"{h[0:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:32]}"


def fingerprint_of(content: dict[str, Any]) -> str:
    return sha256_hex(js_stringify(content))


def fingerprint(record: MemoryRecord) -> str:
    """Return the SHA-256 hex of the record's content as ``JSON.stringify`` writes it."""
    return fingerprint_of(record.to_json())
