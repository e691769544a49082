"""Documents under a note's name in a notes folder (a PDF saved as notes.md, a Word file
as old.txt, an RTF letter as letter.txt): before, each was 'binary file (a PDF document
under the name ...)'; now each is read as the document its bytes are, read_as saying which.
A zip of other files under such a name stays a binary file, naming what it is."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

from helpers import collect, one_page_pdf

from memtrails.importers.detect import detect_kind
from memtrails.importers.documents import _NOTE_NAMES, is_document_file
from memtrails.importers.files import from_files
from memtrails.importers.files._text import NOTE_SUFFIXES
from memtrails.records import MemoryRecord, RecordError

DATA = Path(__file__).parent / "data" / "documents"


def _pdf() -> bytes:
    return one_page_pdf("minutes of the allotment society")


async def test_a_document_under_a_note_name_is_read_as_the_document(tmp_path: Path) -> None:
    (tmp_path / "notes.md").write_bytes(_pdf())
    (tmp_path / "old.txt").write_bytes((DATA / "SampleDoc.doc").read_bytes())
    (tmp_path / "letter.txt").write_bytes(
        rb"{\rtf1\ansi{\fonttbl\f0 Arial;}\f0 Dear neighbour,\par}"
    )
    archive = io.BytesIO()
    with zipfile.ZipFile(archive, "w") as z:
        z.writestr("a.txt", "holiday notes")
    (tmp_path / "photos.txt").write_bytes(archive.getvalue())
    items = await collect(from_files(tmp_path))
    records = {r.id: r for r in items if isinstance(r, MemoryRecord)}
    errors = {e.id: e.reason for e in items if isinstance(e, RecordError)}
    assert {name: r.meta["document"]["read_as"] for name, r in records.items()} == {
        "letter.txt": "rtf",
        "notes.md": "pdf",
        "old.txt": "doc",
    }
    assert records["notes.md"].text == "minutes of the allotment society"
    assert records["notes.md"].kind == "document"
    assert "I am a test document" in records["old.txt"].text
    assert "Dear neighbour," in records["letter.txt"].text
    assert errors == {"photos.txt": "binary file (a zip archive under the name 'photos.txt')"}


async def test_a_lone_note_that_is_a_document_is_read_as_the_document(tmp_path: Path) -> None:
    """``memtrails add notes.md`` where notes.md is a PDF (or a .doc): detection calls it a
    document, as a notes folder does, not 'text that starts as neither JSON Lines ...'."""
    (tmp_path / "notes.md").write_bytes(_pdf())
    (tmp_path / "old.txt").write_bytes((DATA / "SampleDoc.doc").read_bytes())
    (tmp_path / "plain.md").write_text("# just a note\n", encoding="utf-8")
    assert [detect_kind(tmp_path / n) for n in ("notes.md", "old.txt")] == ["files", "files"]
    assert not is_document_file(tmp_path / "plain.md")
    items = await collect(from_files(tmp_path / "notes.md"))
    records = [r for r in items if isinstance(r, MemoryRecord)]
    assert [(r.id, r.text, r.meta["document"]["read_as"]) for r in records] == [
        ("notes.md", "minutes of the allotment society", "pdf")
    ]


def test_the_note_endings_looked_at_are_the_notes_walks() -> None:
    assert _NOTE_NAMES == NOTE_SUFFIXES
