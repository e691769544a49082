"""Office files whose name says one format and whose bytes another: a .doc saved as .docx,
and a password-protected .docx/.xlsx (Office writes it as an OLE compound file holding
``EncryptionInfo`` and ``EncryptedPackage``, MS-OFFCRYPTO), made here from the Apache POI
fixtures (tests/data/documents/README.md)."""

from __future__ import annotations

from pathlib import Path

from helpers import collect

from memtrails.importers.files import from_files
from memtrails.records import MemoryRecord, RecordError

DATA = Path(__file__).parent / "data" / "documents"


def _rename_stream(data: bytes, old: str, new: str) -> bytes:
    """Rename a directory entry of an OLE file (a 64-byte UTF-16 name, then its length)."""
    at = data.index(old.encode("utf-16-le") + b"\0\0")
    assert at % 128 == 0  # the start of a directory entry
    name = new.encode("utf-16-le") + b"\0\0"
    entry = name.ljust(64, b"\0") + len(name).to_bytes(2, "little")
    return data[:at] + entry + data[at + 66 :]


async def test_office_files_under_a_newer_name(tmp_path: Path) -> None:
    doc = (DATA / "SampleDoc.doc").read_bytes()
    (tmp_path / "renamed.docx").write_bytes(doc)  # a Word 97 file under the newer name
    locked = _rename_stream(
        _rename_stream(doc, "WordDocument", "EncryptedPackage"), "Data", "EncryptionInfo"
    )
    (tmp_path / "locked.docx").write_bytes(locked)
    (tmp_path / "locked.xlsx").write_bytes(locked)
    items = await collect(from_files(tmp_path))
    errors = {e.id: e.reason for e in items if isinstance(e, RecordError)}
    recs = {r.id: r for r in items if isinstance(r, MemoryRecord)}
    assert set(errors) == {"locked.docx", "locked.xlsx"}
    assert all(reason.startswith("encrypted document") for reason in errors.values())
    renamed = recs["renamed.docx"]
    assert renamed.meta["document"]["read_as"] == "doc"
    assert renamed.meta["document"]["format"] == "docx"
    assert "I am a test document" in renamed.text


async def test_an_empty_document_file_says_it_is_empty(tmp_path: Path) -> None:
    """Windows' New > Microsoft Word Document makes a 0-byte .docx: not a corrupt file."""
    for name in ("New Microsoft Word Document.docx", "report.pdf", "page.html", "old.xls"):
        (tmp_path / name).write_bytes(b"")
    items = await collect(from_files(tmp_path))
    reasons = {e.id: e.reason for e in items if isinstance(e, RecordError)}
    assert len(reasons) == 4
    assert set(reasons.values()) == {"empty file (0 bytes): there is no document in it"}


async def test_a_text_table_named_xls_is_read_as_text(tmp_path: Path) -> None:
    """Banks and web apps export tab- or comma-separated text as statement.xls."""
    table = "Date\tAmount\tPayee\r\n2024-01-02\t12.50\tBäckerei Müller\r\n"
    (tmp_path / "statement.xls").write_bytes(table.encode("cp1252"))
    (tmp_path / "export.xls").write_text("id,name\n1,walnut crates\n", encoding="utf-8")
    (tmp_path / "junk.xls").write_bytes(b"\x01\x02 not a table \x03" * 20)
    items = await collect(from_files(tmp_path))
    recs = {r.id: r for r in items if isinstance(r, MemoryRecord)}
    errors = {e.id: e.reason for e in items if isinstance(e, RecordError)}
    assert "12.50\tBäckerei Müller" in recs["statement.xls"].text
    assert recs["statement.xls"].meta["document"]["read_as"] == "txt"
    assert "1,walnut crates" in recs["export.xls"].text
    assert errors["junk.xls"].startswith("corrupt file: not an Office 97-2003 file")
