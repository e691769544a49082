"""One table of file signatures, one wording: a picture or an archive saved under a note's
name (photo.md) and under a document's name (photo.pdf) is named alike in the reason each
is not read."""

from __future__ import annotations

import asyncio

import pytest
from helpers import collect, errors

from memtrails.importers.files import from_files

# (signature bytes, what both reasons call them)
_FILES = [
    (b"\x89PNG\r\n\x1a\n", "a PNG image"),
    (b"\x1f\x8b\x08\x00", "gzip-compressed data"),
    (b"II*\x00", "a TIFF image"),
    (b"Rar!\x1a\x07\x00", "a RAR archive"),
    (b"SQLite format 3\x00", "an SQLite database"),
]


@pytest.fixture(scope="module")
def reasons(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    notes = tmp_path_factory.mktemp("notes")
    for k, (magic, _) in enumerate(_FILES):
        data = magic + bytes(range(256)) * 4
        (notes / f"f{k}.md").write_bytes(data)
        (notes / f"f{k}.pdf").write_bytes(data)
    items = asyncio.run(collect(from_files(notes)))
    return {e.where: e.reason for e in errors(items)}


@pytest.mark.parametrize(("k", "what"), [(k, what) for k, (_, what) in enumerate(_FILES)])
def test_a_note_and_a_document_name_the_same_bytes_alike(
    reasons: dict[str, str], k: int, what: str
) -> None:
    assert reasons[f"f{k}.md"] == f"binary file ({what} under the name 'f{k}.md')"
    assert reasons[f"f{k}.pdf"].endswith(f": its bytes are {what}")
