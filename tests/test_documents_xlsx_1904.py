"""A workbook saved in the 1904 date system (Mac Excel: ``<workbookPr date1904="1"/>``)
gives its dates as the sheet shows them, not 4 years and a day early; one in the 1900
system likewise."""

from __future__ import annotations

import datetime
import io

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
