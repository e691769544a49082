"""A workbook saved in the 1904 date system (Mac Excel: ``<workbookPr date1904="1"/>``, an
.xls's DATEMODE record) gives its dates as the sheet shows them, not 4 years and a day
early; one in the 1900 system likewise. Both readers had the date systems right; an .xls's
date cells came with a time of day they do not show (``1904-01-02 00:00:00``)."""

from __future__ import annotations

import datetime
import io
import re
import struct
from pathlib import Path

import openpyxl
import pytest
from openpyxl.utils.datetime import CALENDAR_MAC_1904, CALENDAR_WINDOWS_1900

from memtrails.importers.documents._extract import extract


@pytest.mark.parametrize("epoch", [CALENDAR_MAC_1904, CALENDAR_WINDOWS_1900], ids=["1904", "1900"])
def test_dates_read_as_shown_in_either_date_system(epoch: datetime.datetime) -> None:
    book = openpyxl.Workbook()
    book.epoch = epoch
    sheet = book.active
    assert sheet is not None
    sheet["A1"] = "Delivered"
    sheet["B1"] = datetime.date(2024, 3, 15)
    sheet["B1"].number_format = "yyyy-mm-dd"
    sheet["C1"] = datetime.datetime(1999, 12, 31, 18, 30)
    sheet["C1"].number_format = "yyyy-mm-dd hh:mm"
    out = io.BytesIO()
    book.save(out)
    text = str(extract(out.getvalue(), ".xlsx", 100 << 20)["text"])
    assert "Delivered 2024-03-15 1999-12-31 18:30:00" in text


def _xls_of_dates(date1904: bool) -> bytes:
    """SampleSS.xls (Apache POI's), its numbers' cell format made a date (built-in format
    14) and its DATEMODE record set to the 1904 system or not; both edits in place."""
    data = bytearray((Path(__file__).parent / "data" / "documents" / "SampleSS.xls").read_bytes())
    xf = [m.start() for m in re.finditer(rb"\xe0\x00\x14\x00", data)][15]  # the cells' XF
    data[xf + 6 : xf + 8] = struct.pack("<H", 14)
    mode = data.index(b"\x22\x00\x02\x00")
    data[mode + 4 : mode + 6] = struct.pack("<H", int(date1904))
    return bytes(data)


@pytest.mark.parametrize(
    ("date1904", "shown"),
    [(True, "1904-01-02 1904-01-11 1904-01-03 1904-01-14"), (False, "1900-01-01 1900-01-10")],
    ids=["1904", "1900"],
)
def test_xls_dates_read_in_its_date_system(date1904: bool, shown: str) -> None:
    """An Excel 97-2003 workbook in either date system: its date cells (serials 1, 10, 2,
    13) as dates, without a time of day the cells do not show."""
    text = str(extract(_xls_of_dates(date1904), ".xls", 100 << 20)["text"])
    assert shown in text


def test_xls_empty_rows_are_no_blank_lines() -> None:
    """kreuzberg wrote a row of empty cells as an empty line: SharedFormulaTest.xls's text
    ended in some 700 of them."""
    data = (Path(__file__).parent / "data" / "documents" / "SharedFormulaTest.xls").read_bytes()
    text = str(extract(data, ".xls", 100 << 20)["text"])
    assert "\n\n\n" not in text
    assert "8 2 16 8" in text
