"""Scrubbing every string an item carries: a record's fields, an error's reason, a position."""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Mapping
from typing import Any

from ..records import MemoryRecord, RecordError, SourceState
from .engine import KEY_NAME, inner_spans, replace_spans, scrub_text
from .values import accept_value

__all__ = ["scrub_error", "scrub_record", "scrub_state"]


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


def _secret_name(key: str) -> bool:
    """Tell whether a mapping key names a secret (``password``, ``api_key``, ...)."""
    try:
        return KEY_NAME.fullmatch(key) is not None
    except UnicodeEncodeError:  # a lone surrogate (a file name that is not UTF-8): no key word
        return False


def _scrub_meta(value: Any, counts: Counter[str], secret_key: str | None = None) -> Any:
    """Scrub every string inside ``value``, keys too; return ``value`` itself when unchanged."""
    if isinstance(value, str):
        if secret_key:
            return _scrub_secret_value(value, secret_key, counts)
        return _scrub_into(value, counts) if value else value
    if isinstance(value, Mapping):
        changed = False
        out: dict[Any, Any] = {}
        for k, v in value.items():
            named = k if isinstance(k, str) and _secret_name(k) else None
            new = _scrub_meta(v, counts, named)
            key = _scrub_into(k, counts) if isinstance(k, str) and k else k
            changed = changed or new is not v or key is not k
            out[key] = new
        return out if changed else value
    if isinstance(value, list | tuple):
        items = [_scrub_meta(v, counts, secret_key) for v in value]
        if all(a is b for a, b in zip(items, value, strict=True)):
            return value
        return type(value)(items) if isinstance(value, tuple) else items
    return value


def _scrub_optional(text: str | None, counts: Counter[str]) -> str | None:
    return _scrub_into(text, counts) if text else text


def scrub_record(record: MemoryRecord) -> tuple[MemoryRecord, Counter[str]]:
    """Return ``record`` with the secrets in every string it carries replaced.

    That is ``id``, ``title``, ``text``, ``author``, ``thread`` and every string inside
    ``meta`` (keys too). ``source`` and ``kind`` are left alone: the caller names them. The
    record's uid is the caller's to compute from the raw id before scrubbing (see
    ``conformance/README.md``), so that a re-import finds the record again.

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
    id = _scrub_into(record.id, counts)
    title = _scrub_optional(record.title, counts)
    text = _scrub_into(record.text, counts)
    author = _scrub_optional(record.author, counts)
    thread = _scrub_optional(record.thread, counts)
    meta = _scrub_meta(record.meta, counts)
    if not counts:
        return record, counts
    return dataclasses.replace(
        record, id=id, title=title, text=text, author=author, thread=thread, meta=meta
    ), counts


def scrub_error(error: RecordError) -> RecordError:
    """Return ``error`` with the secrets in its place and reason replaced.

    A reason often quotes the input (``not a date: 'ghp_...'``), and the place may be a file
    or record name. ``id`` is kept as it is: it is never written or printed, only used to
    compute the uid that keeps the folder's record when its source could not be read.
    """
    where, _ = scrub_text(error.where)
    reason, _ = scrub_text(error.reason)
    if where is error.where and reason is error.reason:
        return error
    return dataclasses.replace(error, where=where, reason=reason)


def scrub_state(state: SourceState) -> SourceState:
    """Return ``state`` with the secrets in its position and reason replaced.

    A position may hold input strings (a notes folder's file names). The importer reads a
    scrubbed name back as unknown, so that one file is read again on the next run and found
    unchanged by its fingerprint: nothing is lost but a little work.
    """
    counts: Counter[str] = Counter()
    position = _scrub_meta(state.state, counts)
    why = _scrub_optional(state.why, counts)
    if not counts:
        return state
    return dataclasses.replace(state, state=position, why=why)
