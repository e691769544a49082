"""Spreadsheets in a notes folder (XLSX, ODS): every sheet's values, however far apart.

kreuzberg 4.10 gave no text at all for a sheet whose values lie a few hundred thousand rows
apart (a note typed far below the data), and wrote each empty cell of a sparse sheet as
spaces; the sheets are read by memtrails' own readers (``documents._xlsx``, ``_odf``).
"""

from __future__ import annotations

import datetime
import io
import zipfile
from pathlib import Path
from typing import Any

from helpers import benchmark, collect

from memtrails.importers.documents import DocumentReader, Extracted
from memtrails.importers.files import from_files
from memtrails.records import MemoryRecord

samples = benchmark("documents_samples")


async def _records(folder: Path) -> dict[str, MemoryRecord]:
    items = await collect(from_files(folder))
    return {item.id: item for item in items if isinstance(item, MemoryRecord)}


def _workbook(path: Path, cells: dict[str, dict[str, Any]]) -> None:
    import openpyxl

    wb = openpyxl.Workbook()
    assert wb.active is not None
    wb.remove(wb.active)
    for title, values in cells.items():
        sheet = wb.create_sheet(title)
        for ref, value in values.items():
            sheet[ref] = value
    wb.save(str(path))


def _ods(path: Path, rows: str) -> None:
    samples._odf(
        path,
        "application/vnd.oasis.opendocument.spreadsheet",
        f'<office:spreadsheet><table:table table:name="Rentals">{rows}</table:table>'
        '<table:table table:name="Empty"/></office:spreadsheet>',
    )


def _ods_row(text: str, repeated: int = 1) -> str:
    cell = (
        f'<table:table-cell office:value-type="string"><text:p>{text}</text:p></table:table-cell>'
    )
    return f'<table:table-row table:number-rows-repeated="{repeated}">{cell}</table:table-row>'


async def test_values_far_apart_are_all_read(tmp_path: Path) -> None:
    """A note 300,000 rows below the data: the data, the note and the other sheets are read."""
    _workbook(
        tmp_path / "budget.xlsx",
        {
            "Budget": {"A1": "quarterly zebra budget", "B1": 1200},
            "Log": {"A1": "log opened by Ada", "A300000": "closing note from Babbage"},
            "Later": {"A1": "third sheet text"},
        },
    )
    empty_rows = (
        '<table:table-row table:number-rows-repeated="300000"><table:table-cell/></table:table-row>'
    )
    _ods(
        tmp_path / "rentals.ods",
        _ods_row("canoe rental desk") + empty_rows + _ods_row("final tally"),
    )
    records = await _records(tmp_path)
    text = records["budget.xlsx"].text
    for value in ("quarterly zebra budget 1200", "log opened by Ada", "closing note from Babbage"):
        assert value in text
    # Each sheet under its name, in the workbook's order.
    assert text.index("Budget") < text.index("Log\n\nlog opened") < text.index("Later\n\nthird")
    assert records["budget.xlsx"].meta["document"]["pages"] == 3
    assert records["rentals.ods"].text == "Rentals\n\ncanoe rental desk\nfinal tally"
    assert records["rentals.ods"].meta["document"]["pages"] == 2  # "Empty" is a sheet too


async def test_a_sparse_sheet_is_not_padded_with_spaces(tmp_path: Path) -> None:
    _workbook(tmp_path / "sparse.xlsx", {"Grid": {"A1": "corner", "Z100000": "far cell"}})
    # A cell said to repeat a thousand times across a million rows is one value, once.
    _ods(
        tmp_path / "repeated.ods",
        _ods_row("x", repeated=1_000_000).replace(
            "<table:table-cell ", '<table:table-cell table:number-columns-repeated="1000" '
        ),
    )
    records = await _records(tmp_path)
    assert records["sparse.xlsx"].text == "Grid\n\ncorner\nfar cell"
    assert records["repeated.ods"].text == "Rentals\n\nx"


def test_cells_read_as_a_spreadsheet_shows_them(tmp_path: Path) -> None:
    """Shared and inline strings, numbers, booleans, dates and times."""
    from memtrails.importers.documents._xlsx import read_xlsx

    path = tmp_path / "types.xlsx"
    _workbook(
        path,
        {
            "Data": {
                "A1": "Zoë",
                "B1": datetime.datetime(2024, 1, 15, 13, 30),
                "C1": 3.25,
                "D1": True,
                "E1": datetime.date(1999, 12, 31),
                "F1": 1e20,
                "G1": 42,
                "H1": datetime.time(8, 15),
            }
        },
    )
    text, _ = read_xlsx(path.read_bytes())
    assert (
        text
        == "Data\n\nZoë 2024-01-15 13:30:00 3.25 true 1999-12-31 100000000000000000000 42 08:15:00"
    )


def test_a_damaged_workbook_is_a_named_error() -> None:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as z:
        z.writestr("[Content_Types].xml", "<Types/>")
        z.writestr("xl/workbook.xml", "<workbook><sheets><sheet name='S' r:id=")
    with DocumentReader() as reader:
        got = reader.read(buffer.getvalue(), ".xlsx")
        assert isinstance(got, str) and got.startswith("corrupt or unreadable document")
        # The worker goes on with the next file.
        assert isinstance(reader.read(b"<p>fine</p>", ".html"), Extracted)


def test_the_workbook_part_is_found_where_the_package_names_it(tmp_path: Path) -> None:
    """Not every writer calls it xl/workbook.xml: the package's _rels/.rels names it."""
    from memtrails.importers.documents._xlsx import read_xlsx

    _workbook(tmp_path / "a.xlsx", {"Stock": {"A1": "walnut crates", "B1": 7}})
    buffer = io.BytesIO()
    with zipfile.ZipFile(tmp_path / "a.xlsx") as src, zipfile.ZipFile(buffer, "w") as out:
        for info in src.infolist():
            data = src.read(info.filename).replace(b"xl/workbook.xml", b"xl/book.xml")
            name = info.filename.replace("workbook.xml", "book.xml")
            out.writestr(name, data)
    text, meta = read_xlsx(buffer.getvalue())
    assert text == "Stock\n\nwalnut crates 7"
    assert meta["sheet_count"] == 1
