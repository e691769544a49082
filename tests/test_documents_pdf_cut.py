"""A PDF cut short (a download or copy that stopped): its trailer is gone, which PDFium
refuses; the pages before the cut are read, and the record says it was truncated."""

from __future__ import annotations

from pathlib import Path

from helpers import benchmark, collect

from memtrails.importers.files import from_files
from memtrails.records import MemoryRecord, RecordError

samples = benchmark("documents_samples")


async def test_a_pdf_cut_short_is_read_as_far_as_it_goes(tmp_path: Path) -> None:
    samples.write_pdf(tmp_path / "whole.pdf", pages=3)
    data = (tmp_path / "whole.pdf").read_bytes()
    (tmp_path / "whole.pdf").unlink()
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "no-trailer.pdf").write_bytes(data[: data.rindex(b"trailer")])
    (notes / "half.pdf").write_bytes(data[: len(data) // 2])
    items = await collect(from_files(notes))
    recs = {r.id: r for r in items if isinstance(r, MemoryRecord)}
    errors = {e.id: e.reason for e in items if isinstance(e, RecordError)}
    record = recs["no-trailer.pdf"]
    assert "The lighthouse keeper counted seventeen herons" in " ".join(record.text.split())
    assert record.meta["document"]["truncated"] is True
    assert record.meta["document"]["pages"] == 3
    assert errors["half.pdf"].startswith("corrupt or unreadable document (a truncated PDF")
