"""A time with an IANA zone (Java's ``ZonedDateTime.toString()``, RFC 9557) or with an
offset and a zone's name after it (Go's ``time.String()``) in a row, a dict or
``MemoryRecord(at=...)`` is the time it names, as in a JSON Lines line; it was an error and
the row was skipped."""

from __future__ import annotations

import pytest
from helpers import in_tz

from memtrails import At, MemoryRecord
from memtrails.importers._jsonl_dates import record_time
from memtrails.pipeline.normalise import normalise_item

_WRITTEN = {
    "java": ("2024-05-03T10:00:00.000+02:00[Europe/Berlin]", "2024-05-03T08:00:00Z"),
    "java-no-offset": ("2024-05-03T10:00:00[Europe/Berlin]", "2024-05-03T08:00:00Z"),
    "temporal": ("2024-05-03T10:00[America/New_York][u-ca=iso8601]", "2024-05-03T14:00Z"),
    "space": ("2024-05-03 10:00 Asia/Kolkata", "2024-05-03T04:30:00Z"),
    "go": ("2024-05-03 10:00:00.000000000 +0200 CEST", "2024-05-03T08:00:00Z"),
    "go-utc": ("2024-05-03 10:00:00 +0000 UTC", "2024-05-03T10:00:00Z"),
    "winter": ("2024-01-03T10:00:00[Europe/Berlin]", "2024-01-03T09:00:00Z"),
}


@pytest.mark.parametrize("name", sorted(_WRITTEN))
def test_a_named_zone_in_a_row_is_the_time_it_names(name: str) -> None:
    written, meant = _WRITTEN[name]
    with in_tz("Pacific/Auckland"):  # the importing machine's zone plays no part
        assert At.of(written) == At.of(meant)
        assert MemoryRecord(id="r", text="t", at=written).at == At.of(meant)
        row = normalise_item({"id": "r", "text": "t", "at": written}, source="s", position=1)
        assert isinstance(row, MemoryRecord) and row.at == At.of(meant)
        assert record_time({"date": written}, None)[1] == At.of(meant)


@pytest.mark.parametrize(
    "written", ["2024-05-03 10:00 Mars/Olympus", "2024-05-03 10:00 XYZ"], ids=["zone", "word"]
)
def test_a_zone_no_list_names_is_still_no_date(written: str) -> None:
    with pytest.raises(ValueError, match="not a date"):
        At.of(written)
