"""Dates in a row's, a dict's or a JSON Lines line's date field that an earlier reading got
wrong, each beside the instant it stands for (so the tests hold in any ``TZ``)."""

from __future__ import annotations

import pytest
from helpers import in_tz

from memtrails import At, MemoryRecord
from memtrails.importers._jsonl_dates import record_time
from memtrails.pipeline.normalise import normalise_item


def _readings(written: str, key: str = "date") -> list[At | None]:
    """The time of ``written`` as each value reader reads it: At.of, MemoryRecord's ``at``,
    a row's ``at`` and a JSON Lines field under ``key``."""
    row = normalise_item({"id": "r", "text": "t", "at": written}, source="s", position=1)
    assert isinstance(row, MemoryRecord), row
    return [
        At.of(written),
        MemoryRecord(id="r", text="t", at=written).at,
        row.at,
        record_time({key: written}, None)[1],
    ]


# An epoch stamp in exponent notation, as a spreadsheet writes a big number, and GNU date's
# "@seconds": each was "not a date", the row skipped.
_STAMPS = {
    "excel-seconds": ("1.71473E+09", 1_714_730_000_000),
    "lower-e": ("1.71473e9", 1_714_730_000_000),
    "decimal-comma": ("1,71473E+09", 1_714_730_000_000),
    "exponent-ms": ("1.71473232E+12", 1_714_732_320_000),
    "exponent-us": ("1.71473232E+15", 1_714_732_320_000),
    "at-seconds": ("@1714732320", 1_714_732_320_000),
    "at-fraction": ("@1714732320.250", 1_714_732_320_250),
    "at-small": ("@86400", 86_400_000),  # "@" names the unit: seconds, whatever the size
    "at-negative": ("@-86400", -86_400_000),
}


@pytest.mark.parametrize("name", sorted(_STAMPS))
def test_an_epoch_stamp_in_exponent_or_at_form_is_that_time(name: str) -> None:
    written, ms = _STAMPS[name]
    with in_tz("Asia/Kolkata"):
        assert _readings(written) == [At(ms)] * 4
        assert record_time({"created_at": written}, None)[1] == At(ms)


@pytest.mark.parametrize(
    "written", ["1E+400", "1e-5", "@", "@0", "@99999999999999", "1.5E", "E+09", "@1e9"]
)
def test_numbers_in_those_forms_that_are_no_time_are_no_date(written: str) -> None:
    with pytest.raises(ValueError, match="not a date"):
        At.of(written)
