"""A document that holds no text (a new .docx never filled in, slides of pictures, an empty
sheet, a scanned PDF) is skipped with a reason, counted in the import, not stored empty."""

from __future__ import annotations

from contextlib import aclosing
from pathlib import Path
from typing import Any

from helpers import benchmark

from memtrails.importers.files import from_files
from memtrails.records import MemoryRecord, RecordError

samples = benchmark("documents_samples")


def _write_empty(folder: Path) -> None:
    import docx
    import openpyxl
    from pptx import Presentation

    folder.mkdir()
    docx.Document().save(str(folder / "new.docx"))
    Presentation().save(str(folder / "deck.pptx"))
    openpyxl.Workbook().save(str(folder / "sheet.xlsx"))
    formulas = openpyxl.Workbook()  # formulas saved by a writer that does not calculate
    for row in range(1, 20):
        formulas.active.cell(row=row, column=1, value=f"=SUM(B{row}:C{row})")  # type: ignore[union-attr]
    formulas.save(str(folder / "formulas.xlsx"))
    body = "<office:text><text:p/></office:text>"
    samples._odf(folder / "blank.odt", "application/vnd.oasis.opendocument.text", body)
    (folder / "blank.rtf").write_text("{\\rtf1\\ansi \\par }")
    (folder / "blank.html").write_text("<html><head></head><body>\n</body></html>")
    samples.write_scanned_pdf(folder / "scan.pdf")


async def test_documents_without_text_are_skipped_with_a_reason(tmp_path: Path) -> None:
    _write_empty(tmp_path / "notes")
    async with aclosing(from_files(tmp_path / "notes")) as items:
        got: list[Any] = [item async for item in items]
    records = [i.id for i in got if isinstance(i, MemoryRecord)]
    errors = {e.id: e.reason for e in got if isinstance(e, RecordError)}
    assert records == []
    names = ("new.docx", "deck.pptx", "sheet.xlsx", "formulas.xlsx", "blank.odt", "blank.rtf")
    names += ("blank.html",)
    for name in names:
        assert errors[name].startswith("no text: "), (name, errors.get(name))
    assert errors["scan.pdf"].startswith("no text layer (scanned?)")


async def test_a_document_with_text_is_still_a_record(tmp_path: Path) -> None:
    import docx

    (tmp_path / "notes").mkdir()
    d = docx.Document()
    d.add_paragraph("One line of minutes.")
    d.save(str(tmp_path / "notes" / "minutes.docx"))
    async with aclosing(from_files(tmp_path / "notes")) as items:
        got = [item async for item in items if isinstance(item, MemoryRecord | RecordError)]
    assert [(type(i).__name__, getattr(i, "text", None)) for i in got] == [
        ("MemoryRecord", "One line of minutes.")
    ]
