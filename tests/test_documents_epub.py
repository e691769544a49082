"""An EPUB whose spine lists one chapter thousands of times: a reader reads it each time,
so a file of kilobytes becomes hundreds of megabytes of text (a zip bomb by its spine)."""

from __future__ import annotations

import os
import zipfile
from pathlib import Path

from helpers import benchmark, collect

from memtrails.importers.files import from_files
from memtrails.records import MemoryRecord, RecordError

samples = benchmark("documents_samples")


def _spine_listing(base: Path, path: Path, times: int, chapter_bytes: int) -> None:
    """Copy the sample EPUB, its chapter grown to ``chapter_bytes`` and listed ``times``."""
    with zipfile.ZipFile(base) as src, zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for info in src.infolist():
            data = src.read(info.filename)
            if info.filename.endswith(".opf"):
                spine = b'<itemref idref="c1"/>' * times
                data = data.replace(b'<itemref idref="c1"/>', spine)
            elif info.filename.endswith("chapter1.xhtml"):
                filler = os.urandom(chapter_bytes // 2).hex().encode()
                data = data.replace(b"</body>", b"<p>" + filler + b"</p></body>")
            z.writestr(info.filename, data)


async def test_a_spine_listing_a_chapter_again_and_again_is_a_zip_bomb(tmp_path: Path) -> None:
    base = tmp_path / "base.epub"
    samples._epub(base)
    notes = tmp_path / "notes"
    notes.mkdir()
    _spine_listing(base, notes / "again.epub", times=400, chapter_bytes=50_000)  # 20 MB again
    _spine_listing(base, notes / "twice.epub", times=2, chapter_bytes=1000)  # small: read
    items = await collect(from_files(notes))
    errors = {e.id: e.reason for e in items if isinstance(e, RecordError)}
    recs = {r.id: r for r in items if isinstance(r, MemoryRecord)}
    assert set(errors) == {"again.epub"}
    assert errors["again.epub"].startswith("zip bomb: its spine lists the same chapters")
    assert "cartographer" in recs["twice.epub"].text
