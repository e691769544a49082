"""Scrubbing the strings a record carries: title, text and every string inside meta."""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Mapping
from typing import Any

from ..records import MemoryRecord
from .engine import KEY_NAME, inner_spans, replace_spans, scrub_text
from .values import accept_value

__all__ = ["scrub_record"]


def _scrub_secret_value(text: str, key: str, counts: Counter[str]) -> str:
    """Scrub a string stored under a key named like a secret (``{"password": "..."}``)."""
    buf = text.encode("utf-8", "surrogatepass")
    low = key.lower()
    if not accept_value(text, "pass" in low or "pw" in low, True):
        return _scrub_into(text, counts)
    stripped = text.strip()
    start = len(text[: len(text) - len(text.lstrip())].encode("utf-8", "surrogatepass"))
    end = start + len(stripped.encode("utf-8", "surrogatepass"))
    out = replace_spans(buf, iter(inner_spans(buf, start, end, "password")), counts)
    return text if out is None else out.decode("utf-8", "surrogatepass")


def _scrub_into(text: str, counts: Counter[str]) -> str:
    """Scrub ``text`` and add what was found to ``counts``; return the scrubbed text."""
    clean, found = scrub_text(text)
    counts.update(found)
    return clean


def _scrub_meta(value: Any, counts: Counter[str], secret_key: str | None = None) -> Any:
    """Scrub every string inside ``value``; return ``value`` itself when nothing changed."""
    if isinstance(value, str):
        if secret_key:
            return _scrub_secret_value(value, secret_key, counts)
        return _scrub_into(value, counts) if value else value
    if isinstance(value, Mapping):
        changed = False
        out: dict[Any, Any] = {}
        for k, v in value.items():
            named = k if isinstance(k, str) and KEY_NAME.fullmatch(k) is not None else None
            new = _scrub_meta(v, counts, named)
            changed = changed or new is not v
            out[k] = new
        return out if changed else value
    if isinstance(value, list | tuple):
        items = [_scrub_meta(v, counts, secret_key) for v in value]
        if all(a is b for a, b in zip(items, value, strict=True)):
            return value
        return type(value)(items) if isinstance(value, tuple) else items
    return value


def scrub_record(record: MemoryRecord) -> tuple[MemoryRecord, Counter[str]]:
    """Return ``record`` with the secrets in its title, text and meta replaced.

    Args:
        record: the record to scrub.

    Returns:
        The scrubbed record and the replacements per kind. When nothing was found the record
        returned *is* ``record`` (test with ``is``) and the counter is empty.

    Example:
        >>> r = MemoryRecord(id="1", text="db: postgres://app:s3cr3t-pw@db.local/app")
        >>> scrub_record(r)[0].text
        'db: postgres://app:[secret:url-password]@db.local/app'
    """
    counts: Counter[str] = Counter()
    title = _scrub_into(record.title, counts) if record.title else record.title
    text = _scrub_into(record.text, counts)
    meta = _scrub_meta(record.meta, counts)
    if not counts:
        return record, counts
    return dataclasses.replace(record, title=title, text=text, meta=meta), counts
