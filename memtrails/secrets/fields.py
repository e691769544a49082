"""Scrubbing every string an item carries: a record's fields, an error's reason, a position."""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Mapping
from typing import Any

from ..records import MemoryRecord, RecordError, SourceState
from .copies import Values, values_of
from .engine import KEY_NAME, inner_spans, replace_spans, scrub_found, scrub_text
from .keys import accept_keyed

__all__ = ["scrub_error", "scrub_record", "scrub_state"]


class _Scrub:
    """One record's scrub: the replacements per kind and the secrets found so far."""

    __slots__ = ("counts", "known", "values")

    def __init__(self, known: Values | None = None) -> None:
        self.counts: Counter[str] = Counter()
        self.values: Values = {}  # found in this record's strings
        self.known = known  # found before (the first pass): every copy of them goes too

    def text(self, text: str) -> str:
        """Scrub ``text``; return the scrubbed text."""
        clean, found, values = scrub_found(text, self.known)
        self.counts.update(found)
        self.values.update(values)
        return clean

    def optional(self, text: str | None) -> str | None:
        return self.text(text) if text else text

    def secret_value(self, text: str, key: str) -> str:
        """Scrub a string stored under a key named like a secret (``{"password": "..."}``)."""
        if not accept_keyed(key, text, True):
            return self.text(text)
        buf = text.encode("utf-8", "surrogatepass")
        stripped = text.strip()
        start = len(text[: len(text) - len(text.lstrip())].encode("utf-8", "surrogatepass"))
        end = start + len(stripped.encode("utf-8", "surrogatepass"))
        spans = inner_spans(buf, start, end, "password")
        self.values.update(values_of(buf, spans))
        out = replace_spans(buf, iter(spans), self.counts)
        return text if out is None else out.decode("utf-8", "surrogatepass")

    def meta(self, value: Any, secret_key: str | None = None) -> Any:
        """Scrub every string inside ``value``, keys too; return ``value`` itself when unchanged."""
        if isinstance(value, str):
            if secret_key:
                return self.secret_value(value, secret_key)
            return self.text(value) if value else value
        if isinstance(value, Mapping):
            changed = False
            out: dict[Any, Any] = {}
            for k, v in value.items():
                named = k if isinstance(k, str) and _secret_name(k) else None
                new = self.meta(v, named)
                key = self.text(k) if isinstance(k, str) and k else k
                changed = changed or new is not v or key is not k
                out[key] = new
            return out if changed else value
        if isinstance(value, list | tuple):
            items = [self.meta(v, secret_key) for v in value]
            if all(a is b for a, b in zip(items, value, strict=True)):
                return value
            return type(value)(items) if isinstance(value, tuple) else items
        return value


def _secret_name(key: str) -> bool:
    """Tell whether a mapping key names a secret (``password``, ``api_key``, ...)."""
    try:
        return KEY_NAME.fullmatch(key) is not None
    except UnicodeEncodeError:  # a lone surrogate (a file name that is not UTF-8): no key word
        return False


def _fields(record: MemoryRecord, scrub: _Scrub) -> MemoryRecord:
    """Return ``record`` with every string it carries scrubbed by ``scrub``."""
    return dataclasses.replace(
        record,
        id=scrub.text(record.id),
        title=scrub.optional(record.title),
        text=scrub.text(record.text),
        author=scrub.optional(record.author),
        thread=scrub.optional(record.thread),
        meta=scrub.meta(record.meta),
    )


def scrub_record(record: MemoryRecord) -> tuple[MemoryRecord, Counter[str]]:
    """Return ``record`` with the secrets in every string it carries replaced.

    That is ``id``, ``title``, ``text``, ``author``, ``thread`` and every string inside
    ``meta`` (keys too). ``source`` and ``kind`` are left alone: the caller names them. The
    record's uid is the caller's to compute from the raw id before scrubbing (see
    ``conformance/README.md``), so that a re-import finds the record again. A value found as
    a secret in one string is replaced wherever else it stands in the record (a token in the
    text and again in the title, the id or a meta field).

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
    first = _Scrub()
    scrubbed = _fields(record, first)
    if not first.counts:
        return record, first.counts
    if not first.values:
        return scrubbed, first.counts
    # A second pass over the first's output: the copies of what any string gave away.
    second = _Scrub(first.values)
    again = _fields(scrubbed, second)
    return again, first.counts + second.counts


def scrub_error(error: RecordError) -> RecordError:
    """Return ``error`` with the secrets in its place and reason replaced.

    A reason often quotes the input (``not a date: 'ghp_...'``), and the place may be a file
    or record name. ``id`` is kept as it is: it is never written or printed, only used to
    compute the uid that keeps the folder's record when its source could not be read.

    Returns:
        A new error, or ``error`` itself when it held no secret.

    Example:

        >>> from memtrails import RecordError
        >>> from memtrails.secrets import scrub_error
        >>> print(scrub_error(RecordError("feed", "https://ada:pw42@example.com/", "HTTP 500")))
        feed (https://ada:[secret:url-password]@example.com/): HTTP 500
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

    Returns:
        A new position, or ``state`` itself when it held no secret.

    Example:

        >>> from memtrails import SourceState
        >>> from memtrails.secrets import scrub_state
        >>> scrub_state(SourceState("feed", {"url": "https://ada:pw42@example.com/", "n": 3})).state
        {'url': 'https://ada:[secret:url-password]@example.com/', 'n': 3}
    """
    scrub = _Scrub()
    position = scrub.meta(state.state)
    why = scrub.optional(state.why)
    if not scrub.counts:
        return state
    return dataclasses.replace(state, state=position, why=why)
