"""A naive time is local time wherever it comes from: a ``datetime``, numpy's
``datetime64`` in any unit (``item()`` gives a naive datetime, or an int in nanoseconds),
an object with ``to_pydatetime()`` as pandas' ``Timestamp`` has (docs/python.md)."""

from __future__ import annotations

from datetime import datetime

import numpy as np
import pytest
from helpers import in_tz

from memtrails import At, MemoryRecord
from memtrails.pipeline.normalise import normalise_item


class _Stamp:
    """pandas' ``Timestamp`` as the reader sees it: ``to_pydatetime()``."""

    def __init__(self, value: datetime) -> None:
        self._value = value

    def to_pydatetime(self) -> datetime:
        return self._value


@pytest.mark.parametrize("unit", ["s", "ms", "us", "ns"])
def test_numpy_and_pandas_naive_times_are_local_as_a_datetime_is(unit: str) -> None:
    wall = datetime(2024, 5, 3, 10, 32)
    with in_tz("Asia/Kolkata"):
        expected = At.of("2024-05-03T05:02:00Z")  # 10:32 in India, UTC+05:30
        assert MemoryRecord(id="r", text="t", at=wall).at == expected
        for value in (np.datetime64("2024-05-03T10:32", unit), _Stamp(wall)):
            row = normalise_item({"id": "r", "text": "t", "at": value}, source="s", position=1)
            assert isinstance(row, MemoryRecord), row
            assert row.at == expected, value
