"""Hostile documents: markup that makes a parser rescan, amplifying XML, names that are not UTF-8.

Each file is built here, small: the damage is in its shape, not its size.
"""

from __future__ import annotations

import io
import os
import zipfile
from contextlib import aclosing
from pathlib import Path
from typing import Any

import pytest

from memtrails.importers.documents import DocumentReader, Extracted, _extract
from memtrails.importers.documents._html import html_to_text, read_html
from memtrails.importers.files import from_files
from memtrails.records import MemoryRecord, RecordError

_ODF_NS = (
    'xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" '
    'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0"'
)


async def _items(folder: Path) -> list[Any]:
    async with aclosing(from_files(folder)) as items:
        return [item async for item in items]


def _odp(paragraph: str) -> bytes:
    """An OpenDocument presentation whose one paragraph holds ``paragraph`` (ODF markup)."""
    content = (
        f"<office:document-content {_ODF_NS}><office:body>"
        f"<text:p>{paragraph}</text:p></office:body></office:document-content>"
    )
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("mimetype", "application/vnd.oasis.opendocument.presentation")
        z.writestr("content.xml", content)
    return buf.getvalue()


# Each tail is never closed, so html.parser (before Python 3.13.5) read it by scanning to the
# end of the input once for every "<" in it: ~400 KB of this took hours, and a mail's HTML
# body is read in the importing process itself, with no worker time limit to stop it.
_OPEN_TAILS = {
    "tags": "<a" * 200_000,
    "end tags": "</" * 200_000,
    "instructions": "<?" * 200_000,
    "comments in a marked section": "<![CDATA[" + "<!--" * 100_000,
}


@pytest.mark.timeout(60)  # hours before; a fail, not a hung suite
@pytest.mark.parametrize("tail", _OPEN_TAILS.values(), ids=list(_OPEN_TAILS))
def test_html_left_open_at_its_end_is_read_in_one_pass(tail: str) -> None:
    text = html_to_text("<p>The invoice is attached.</p><script>x()</script>" + tail)
    assert text.startswith("The invoice is attached.")
    assert "x()" not in text


def test_a_short_open_tail_is_still_read_as_html_parser_reads_it() -> None:
    # A few words after a "<" a page written by hand leaves open stay text; a tag cut
    # inside its attributes shows nothing, as in a browser.
    assert html_to_text("<p>a &amp; b</p><b class='x' bold") == "a & b"
    assert html_to_text("<p>Hi</p>if a<b then c") == "Hi\n\nif a<b then c"
    assert html_to_text("<p>Hi</p>x<y and more text follows") == "Hi\n\nx<y and more text follows"


def test_a_hostile_html_head_is_read_within_the_time_limit() -> None:
    # The author and title patterns backtracked over the page's first 64 KiB: cubic for
    # <meta> tags that never give a content, so a 64 KiB page ran into the worker's time limit
    # (and was lost as "took longer than 30 s"); now each tag is looked at once.
    head = "<meta name=author content=" * 1_500 + "<title>" * 2_000 + "<title>Real title</title>"
    page = f"<html><head>{head}</head><body><p>Body text.</p></body></html>"
    with DocumentReader(timeout_s=30) as reader:
        got = reader.read(page.encode(), ".html")
    assert isinstance(got, Extracted), got
    assert "Body text." in got.text


def test_html_title_and_author_are_found_in_any_attribute_order() -> None:
    page = (
        "<html><HEAD><Title lang='en'>Q3 &amp; Q4</TITLE>"
        "<meta content='Ada Example' name='author'></head><body>x</body></html>"
    )
    _, meta = read_html(page.encode())
    assert meta == {"title": "Q3 & Q4", "author": "Ada Example"}


@pytest.mark.parametrize("label", ["idna", "punycode", "utf-7", "base64", "no-such-codec"])
def test_an_html_page_naming_an_odd_charset_is_read_as_windows_1252(label: str) -> None:
    # "idna" and "punycode" are codecs, but not ones that decode a page: the page was lost
    # whole ("corrupt or unreadable document (UnicodeError: ...)").
    page = f"<meta charset='{label}'><p>caf\xe9 +AGEAYgBj- menu</p>".encode("latin-1")
    text, _ = read_html(page)
    assert text == "café +AGEAYgBj- menu"


def test_odf_space_runs_cannot_amplify_a_small_file() -> None:
    # <text:s text:c="N"/> is N spaces: a 300-byte presentation became 50 million characters
    # (and 2e9 a MemoryError); a count that is not a number lost the document.
    with DocumentReader() as reader:
        got = reader.read(_odp('a<text:s text:c="50000000"/>b'), ".odp")
        assert isinstance(got, Extracted), got
        assert got.text.startswith("a ") and got.text.endswith("b") and len(got.text) < 1000
        got = reader.read(_odp('a<text:s text:c="two"/>b<text:s text:c="-3"/>c'), ".odp")
        assert isinstance(got, Extracted), got
        assert got.text == "a bc"


def test_extracted_text_is_cut_at_a_bound(monkeypatch: pytest.MonkeyPatch) -> None:
    # What the worker sends back is held whole by the importing process: a document that
    # unpacks to hundreds of millions of characters must not be.
    monkeypatch.setattr(_extract, "MAX_TEXT_CHARS", 1000)
    got = _extract.extract(b"<p>" + b"word " * 1000 + b"</p>", ".html", 1 << 20)
    assert len(got["text"]) <= 1000
    assert got["meta"]["cut_from_chars"] == len("word " * 1000) - 1


async def test_a_document_whose_name_is_not_utf8_is_read_as_a_document(tmp_path: Path) -> None:
    # Its file id ends in "//" and the name's bytes in hex, so its ending was not ".html":
    # the page was read as a text file, tags and all, with the hex as its title.
    name = os.fsdecode(b"menu \xff.html")
    try:
        (tmp_path / name).write_bytes(b"<title>Lunch</title><p>Soup of the day</p>")
    except OSError:
        pytest.skip("this file system refuses names that are not UTF-8")
    (item,) = [i for i in await _items(tmp_path) if isinstance(i, (MemoryRecord, RecordError))]
    assert isinstance(item, MemoryRecord), item
    assert item.kind == "document" and item.title == "Lunch"
    assert item.text == "Soup of the day"
    assert item.id.startswith("menu \ufffd.html//")


async def test_an_untitled_document_with_a_name_that_is_not_utf8_keeps_its_shown_name(
    tmp_path: Path,
) -> None:
    (tmp_path / os.fsdecode(b"r\xe9sum\xe9.htm")).write_bytes(b"<p>Ten years of sailing</p>")
    (item,) = [i for i in await _items(tmp_path) if isinstance(i, MemoryRecord)]
    assert item.kind == "document" and item.title == "r\ufffdsum\ufffd.htm"


def test_a_damaged_pdf_says_why_once() -> None:
    # PDFium's reason came through twice: "(Invalid PDF: PdfiumLibraryInternalError:
    # FormatError: Invalid PDF: PdfiumLibraryInternalError: FormatError)".
    with DocumentReader() as reader:
        got = reader.read(b"%PDF-1.7\n", ".pdf")
    assert isinstance(got, str) and got.startswith("corrupt or unreadable document")
    # One reason, said once: a file this short is a PDF cut before its end.
    assert got.count("truncated PDF") == 1 and "Invalid PDF" not in got, got
    with DocumentReader() as reader:
        got = reader.read(b"%PDF-1.4\n%" + b"x" * 5000 + b"\n%%EOF\n", ".pdf")
    assert isinstance(got, str) and got.count("Invalid PDF") == 1, got  # whole, but damaged
