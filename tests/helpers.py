"""Small helpers several test modules share: draining importers, picking items, a time zone."""

from __future__ import annotations

import os
import time
from collections.abc import AsyncGenerator, Iterator
from contextlib import aclosing, contextmanager
from typing import Any

from memtrails.records import MemoryRecord, RecordError


async def collect(items: AsyncGenerator[Any, None]) -> list[Any]:
    """Drain an importer, closing it even when a test fails half-way."""
    async with aclosing(items) as it:
        return [item async for item in it]


def records(items: list[Any]) -> list[MemoryRecord]:
    return [i for i in items if isinstance(i, MemoryRecord)]


def errors(items: list[Any]) -> list[RecordError]:
    return [i for i in items if isinstance(i, RecordError)]


@contextmanager
def in_tz(name: str) -> Iterator[None]:
    """Run in the time zone ``name`` (TZ + tzset), restoring the caller's zone afterwards."""
    before = os.environ.get("TZ")
    os.environ["TZ"] = name
    time.tzset()
    try:
        yield
    finally:
        if before is None:
            del os.environ["TZ"]
        else:
            os.environ["TZ"] = before
        time.tzset()
