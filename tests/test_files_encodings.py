"""Notes in the encodings Windows tools write: UTF-16 without a byte order mark."""

from __future__ import annotations

from pathlib import Path

from helpers import collect

from memtrails.importers.files import from_files
from memtrails.records import MemoryRecord, RecordError


async def test_utf16_without_a_byte_order_mark_is_text(tmp_path: Path) -> None:
    (tmp_path / "le.txt").write_bytes(
        "Meeting notes: café budget\r\nline two\r\n".encode("utf-16-le")
    )
    (tmp_path / "be.md").write_bytes("# Grüße\n\nfrom Köln\n".encode("utf-16-be"))
    # Binary data with zeros in every other place is still binary.
    (tmp_path / "data.md").write_bytes(b"\x00\x01\x00\x02" * 500)
    (tmp_path / "odd.txt").write_bytes(b"A\x00\x01\x00\x02\x00" * 300)
    items = await collect(from_files(tmp_path))
    recs = {r.id: r for r in items if isinstance(r, MemoryRecord)}
    errs = {e.id: e.reason for e in items if isinstance(e, RecordError)}
    assert recs["le.txt"].text.startswith("Meeting notes: café budget")
    assert recs["le.txt"].meta["encoding"] == "utf-16-le"
    assert recs["be.md"].title == "Grüße" and "from Köln" in recs["be.md"].text
    assert errs == {"data.md": "binary file", "odd.txt": "binary file"}
