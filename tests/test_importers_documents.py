"""Documents in a notes folder: PDF, Office, OpenDocument, RTF, HTML and EPUB as searchable text.

The files are written at test time by benchmarks/documents_samples.py (reportlab, python-docx,
python-pptx and openpyxl from the ``test`` extra; OpenDocument and EPUB as zips of their XML).
"""

from __future__ import annotations

import os
import signal
import zipfile
from contextlib import aclosing
from pathlib import Path
from typing import Any

import pytest
from helpers import benchmark

from memtrails import Memory
from memtrails.importers.documents import DocumentReader, Extracted
from memtrails.importers.files import from_files
from memtrails.records import MemoryRecord, RecordError, Seen, SourceState

samples = benchmark("documents_samples")


async def _items(folder: Path, state: Any = None) -> list[Any]:
    async with aclosing(from_files(folder, state=state)) as items:
        return [item async for item in items]


@pytest.mark.slow
async def test_every_format_is_imported_as_searchable_text(tmp_path: Path, embedder: Any) -> None:
    files = samples.write_all(tmp_path / "notes")
    async with Memory.open(tmp_path / "memory", embedder=embedder) as memory:
        report = await memory.ingest(from_files(tmp_path / "notes"))
        assert report.errors == []
        assert report.added == len(files)
        for fmt, sentence in samples.SENTENCES.items():
            hits = await memory.search(sentence, k=3)
            assert hits and hits[0].id == f"sample.{fmt}", (fmt, [h.id for h in hits])
            assert hits[0].kind == "document"
        record = await memory.get("sample.docx", source=str((tmp_path / "notes").resolve()))
    assert record is not None
    # Metadata the formats carry: title and author, the document's own date, its format.
    assert record.title == samples.TITLE and record.author == samples.AUTHOR
    assert record.meta["document"]["format"] == "docx"
    assert record.at is not None and record.at.iso().startswith("2013-12-23")  # not the mtime
    assert "Apples 120 crates" in record.text  # a table cell, row by row


async def test_pdf_text_metadata_and_reading_order(tmp_path: Path) -> None:
    samples.write_pdf(tmp_path / "report.pdf", pages=3)
    (record,) = [i for i in await _items(tmp_path) if isinstance(i, MemoryRecord)]
    doc = record.meta["document"]
    assert doc["pages"] == 3 and doc["authors"] == [samples.AUTHOR]
    assert record.title == samples.TITLE
    text = " ".join(record.text.split())
    assert "The lighthouse keeper counted seventeen herons" in text
    # The left column comes before the right one, not interleaved line by line.
    assert text.index("harbour") < text.index("Right column")
    assert "%PDF" not in record.text


async def test_bad_pdfs_are_named_errors(tmp_path: Path) -> None:
    samples.write_encrypted_pdf(tmp_path / "locked.pdf")
    samples.write_scanned_pdf(tmp_path / "scan.pdf")
    (tmp_path / "broken.pdf").write_bytes(b"%PDF-1.4\n1 0 obj << /Type /Catalog /Pages 2 0 R")
    (tmp_path / "fake.pdf").write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(range(256)))
    (tmp_path / "text.pdf").write_bytes(b"this is not a PDF at all\n" * 20)
    items = await _items(tmp_path)
    errors = {e.id: e.reason for e in items if isinstance(e, RecordError)}
    text = next(r for r in items if isinstance(r, MemoryRecord) and r.id == "text.pdf")
    assert text.meta["document"]["read_as"] == "txt"  # what it is: text, not a PDF
    assert errors["locked.pdf"].startswith("encrypted document")
    assert errors["scan.pdf"].startswith("no text layer")
    assert errors["broken.pdf"].startswith("corrupt or unreadable document")
    assert (
        errors["fake.pdf"] == "corrupt file: not a PDF (no %PDF- header): its bytes are a PNG image"
    )


def test_pathological_pdfs_are_errors_not_hangs() -> None:
    """Deeply nested objects, a page tree that loops, a page kilometres wide: each a reason."""
    pages = b"2 0 obj << /Type /Pages /Kids [3 0 R] /Count 1 >> endobj\n"
    page = b"3 0 obj << /Type /Page /Parent 2 0 R /MediaBox [0 0 %d %d] >> endobj\n"
    tail = b"trailer << /Root 1 0 R >>\n%%EOF\n"
    catalog = b"1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\n"
    deep = b"1 0 obj << /Type /Catalog /Pages 2 0 R /X " + b"[" * 200_000 + b"]" * 200_000
    cases = {
        "deep": b"%PDF-1.4\n" + deep + b" >> endobj\n" + pages + page % (612, 792) + tail,
        "huge": b"%PDF-1.4\n" + catalog + pages + page % (14_400_000, 14_400_000) + tail,
        "loop": b"%PDF-1.4\n" + catalog + pages.replace(b"[3 0 R]", b"[2 0 R]") + tail,
    }
    with DocumentReader(timeout_s=30) as reader:
        for name, data in cases.items():
            got = reader.read(data, ".pdf")
            assert isinstance(got, str), (name, got)


def _bomb(path: Path) -> None:
    """A DOCX whose document.xml unpacks to 400 MB from under 1 MB."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("[Content_Types].xml", "<Types/>")
        with z.open("word/document.xml", "w", force_zip64=True) as f:
            block = b" " * (1 << 20)
            for _ in range(400):
                f.write(block)


@pytest.mark.slow
async def test_zip_bomb_and_corrupt_zip_are_named_errors(tmp_path: Path) -> None:
    _bomb(tmp_path / "bomb.docx")
    (tmp_path / "cut.epub").write_bytes(b"PK\x03\x04" + os.urandom(300))
    errors = {e.id: e.reason for e in await _items(tmp_path) if isinstance(e, RecordError)}
    assert errors["bomb.docx"].startswith("zip bomb")
    assert errors["cut.epub"].startswith("corrupt file: a zip cut short")


@pytest.mark.slow
def test_the_worker_is_stopped_past_its_time_and_memory() -> None:
    """A document that hangs, balloons or kills the worker costs the worker, never the caller."""
    with DocumentReader(timeout_s=0.01) as reader:
        got = reader.read(b"%PDF-1.4\n" + b"0" * 1_000_000, ".pdf")
        assert isinstance(got, str) and "took longer than 0.01 s" in got
        reader.timeout_s = 60  # a new worker reads the next file
        assert isinstance(reader.read(b"<p>fine</p>", ".html"), Extracted)
        assert reader._proc is not None
        os.kill(reader._proc.pid, signal.SIGKILL)  # as the kernel does past the memory limit
        got = reader.read(b"<p>fine</p>", ".html")
        assert isinstance(got, str) and "died (SIGKILL)" in got
        assert isinstance(reader.read(b"<p>fine</p>", ".html"), Extracted)
        for size in (10, 1_000_000):  # dead before the request: it stays in the pipe's buffer
            assert reader._proc is not None
            os.kill(reader._proc.pid, signal.SIGKILL)
            reader._proc.wait()
            got = reader.read(b"<p>" + b"x" * size + b"</p>", ".html")
            assert isinstance(got, str) and "died (SIGKILL)" in got
            assert isinstance(reader.read(b"<p>fine</p>", ".html"), Extracted)
    with DocumentReader(memory_bytes=64 << 20) as reader:  # too small to load the reader
        got = reader.read(b"%PDF-1.4\n", ".pdf")
        assert isinstance(got, str) and "memory" in got


async def test_unchanged_documents_are_not_read_again(tmp_path: Path) -> None:
    samples.write_all(tmp_path)
    samples.write_encrypted_pdf(tmp_path / "locked.pdf")
    first = await _items(tmp_path)
    state = next(i for i in first if isinstance(i, SourceState)).state
    os.utime(tmp_path / "sample.odt")  # touched, same bytes: hashed, not extracted
    (tmp_path / "sample.html").write_text("<p>A new sentence about otters.</p>")

    def refuse(self: DocumentReader, data: bytes, suffix: str) -> Any:
        assert suffix == ".html", f"{suffix} was extracted again"
        return original(self, data, suffix)

    original = DocumentReader.read
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(DocumentReader, "read", refuse)
        second = await _items(tmp_path, state)
    kinds = {getattr(i, "id", None): type(i).__name__ for i in second}
    assert kinds["sample.odt"] == "Seen" and kinds["sample.pdf"] == "Seen"
    assert kinds["locked.pdf"] == "RecordError"  # the saved reason, not a second try
    (html,) = [i for i in second if isinstance(i, MemoryRecord)]
    assert "otters" in html.text
    assert sum(isinstance(i, Seen) for i in second) == len(samples.SENTENCES) - 1


@pytest.mark.slow
async def test_secrets_in_documents_are_scrubbed(tmp_path: Path, embedder: Any) -> None:
    token = "ghp_" + "Q8dLmW2xR5tY7uI9oP3aS6fG1hJ4kZ0cV2bN"
    (tmp_path / "notes").mkdir()
    samples.write_pdf(tmp_path / "notes" / "keys.pdf", f"The deploy token is {token} for now.")
    async with Memory.open(tmp_path / "memory", embedder=embedder) as memory:
        report = await memory.ingest(from_files(tmp_path / "notes"))
        assert report.added == 1 and report.secrets.get("github-token") == 1
        (hit,) = await memory.search("deploy token", k=1)
        record = await memory.get(hit.id, source=hit.source)
    assert record is not None and "[secret:github-token]" in record.text
    assert token not in (tmp_path / "memory" / "records.jsonl").read_text()


def test_one_document_is_added_by_itself(tmp_path: Path) -> None:
    """``memtrails add report.pdf``: one document, its own source, incremental like a folder."""
    from click.testing import CliRunner

    from memtrails.cli import main

    samples.write_pdf(tmp_path / "report.pdf")
    (tmp_path / "other.txt").write_text("not part of this import")
    home = str(tmp_path / "memory")
    result = CliRunner().invoke(main, ["add", str(tmp_path / "report.pdf"), "--home", home])
    assert result.exit_code == 0, result.output
    assert "added 1," in result.output, result.output
    result = CliRunner().invoke(main, ["search", "herons on the breakwater", "--home", home])
    assert "report.pdf" in result.output and "other.txt" not in result.output
    again = CliRunner().invoke(main, ["add", str(tmp_path / "report.pdf"), "--home", home])
    assert again.exit_code == 0 and "unchanged 1" in again.output, again.output
    assert "read incrementally" in again.output


def test_without_the_documents_extra_a_document_says_what_to_install(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """kreuzberg absent (memtrails installed without [documents]): the file's error names the extra."""
    import importlib.util
    import sys

    from memtrails.importers.documents import _extract

    samples.write_pdf(tmp_path / "a.pdf")
    monkeypatch.setitem(sys.modules, "kreuzberg", None)  # `import kreuzberg` raises ImportError
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None)
    with pytest.raises(_extract.Failed, match=r"pip install 'memtrails\[documents\]'"):
        _extract.extract((tmp_path / "a.pdf").read_bytes(), ".pdf", 1 << 30)


async def test_an_html_page_keeps_the_text_of_every_element(tmp_path: Path) -> None:
    # A page with a heading used to keep only its headings, paragraphs, lists and cells: the
    # text of its <div>, <span> and <section> elements, and bare text, was dropped unseen.
    notes = tmp_path / "notes"
    notes.mkdir()
    page = (
        "<html><head><meta charset='windows-1251'><title>Деплой &amp; откат</title>"
        "<meta name='author' content='Анна'><style>p { color: red }</style></head><body>"
        "<h1>Как выкатывать</h1><p>Из ветки main.</p><div>Откат: kubectl rollout undo</div>"
        "<span>Ночью не выкатываем</span> только днём<section>Спросить Бориса</section>"
        "<script>track('deploy')</script></body></html>"
    )
    (notes / "deploy.html").write_bytes(page.encode("cp1251"))
    (record,) = [i for i in await _items(notes) if isinstance(i, MemoryRecord)]
    for words in ("Из ветки main", "Откат: kubectl", "Ночью не", "только днём", "Бориса"):
        assert words in record.text
    assert "color" not in record.text and "track" not in record.text
    assert (record.title, record.author) == ("Деплой & откат", "Анна")
