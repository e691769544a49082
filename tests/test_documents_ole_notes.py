"""A Word 97-2003 document's footnotes, endnotes, comments, headers and footers, and a
PowerPoint 97-2003 file's comments: kreuzberg 4.10 gives a .doc's body alone and no .ppt
comment, so a word in any of them did not find the file. They follow the body under the
headings a .docx's have. Apache POI's test documents (tests/data/documents/README.md)."""

from __future__ import annotations

import struct
from pathlib import Path

import pytest

from memtrails.importers.documents._extract import extract
from memtrails.importers.documents._oleguard import layout
from memtrails.importers.documents._olenotes import doc_notes

DATA = Path(__file__).parent / "data" / "documents"


@pytest.mark.parametrize(
    ("name", "body", "notes"),
    [
        (
            "footnote.doc",
            "Test text",
            "[footnotes]\nTestFootnote\n\n[endnotes]\nTestEndnote\n\n[comments]\nTestComment",
        ),
        (
            "ThreeColHeadFoot.doc",
            "It has two pages.",
            "[headers and footers]\nFirst header column! Mid header Right header!\n"
            "Footer Left Footer Middle Footer Right",
        ),
        (
            "WithComments.ppt",
            "With a comment on it",
            "[comments]\nAdministrator: This is a test comment It is on the first, only slide",
        ),
    ],
    ids=["doc-notes-and-comment", "doc-headers-and-footers", "ppt-comment"],
)
def test_office_97_notes_and_comments_follow_the_body(name: str, body: str, notes: str) -> None:
    got = extract((DATA / name).read_bytes(), name[name.rindex(".") :], 512 << 20)
    text = got["text"]
    assert body in text
    assert text.endswith("\n\n" + notes)
    assert text.index(body) < text.index(notes)


def test_damaged_note_counts_cost_the_notes_not_the_body() -> None:
    """The FIB's count of footnote characters is negative (damage): the body is still read
    (by kreuzberg), the notes are left out, nothing raises."""
    data = bytearray((DATA / "footnote.doc").read_bytes())
    stream = data.find(b"\xec\xa5")  # the WordDocument stream's FIB
    (csw,) = struct.unpack_from("<H", data, stream + 32)
    counts = stream + 34 + 2 * csw + 2
    struct.pack_into("<i", data, counts + 4 * 4, -5)  # ccpFtn
    assert doc_notes(layout(bytes(data))) == ""
    assert extract(bytes(data), ".doc", 512 << 20)["text"] == "Test text"
