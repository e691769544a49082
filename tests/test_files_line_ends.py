"""Line ends as notes carry them after transfers and old systems: CR CR LF (a Windows file
converted again in text mode), LF CR (RISC OS, some exports). Each was read as a blank
line after every line; now one line end, as CR alone (classic Mac OS) already was."""

from __future__ import annotations

import pytest

from memtrails.importers.files._text import decode


@pytest.mark.parametrize(
    ("data", "text"),
    [
        (b"Agenda\r\r\nbudget\r\r\nstaffing\r\r\n", "Agenda\r\nbudget\r\nstaffing\r\n"),
        (b"Agenda\n\rbudget\n\rstaffing\n\r", "Agenda\nbudget\nstaffing\n"),
        (b"Agenda\rbudget\r\rstaffing", "Agenda\nbudget\n\nstaffing"),
        (b"Agenda\r\n\r\nbudget\r\n", "Agenda\r\n\r\nbudget\r\n"),
    ],
    ids=["cr-cr-lf", "lf-cr", "cr-alone", "crlf-blank-line-kept"],
)
def test_each_line_end_is_one_line_end(data: bytes, text: str) -> None:
    assert decode(data) == (text, "utf-8")
