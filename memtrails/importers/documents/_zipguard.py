"""Refuse a zip container (DOCX, PPTX, XLSX, OpenDocument, EPUB) whose unpacked size is hostile."""

from __future__ import annotations

import io
import zipfile

__all__ = ["ZIP_SUFFIXES", "check_zip"]

#: The formats that are zip files inside.
ZIP_SUFFIXES = frozenset(
    {".docx", ".docm", ".pptx", ".pptm", ".xlsx", ".xlsm", ".odt", ".ods", ".odp", ".epub"}
)
_MAX_ENTRIES = 20_000
_MAX_RATIO = 200  # real XML packs 5-20x; a zip bomb packs thousands of times


def check_zip(data: bytes, max_unpacked: int) -> str | None:
    """Return why a zip container must not be opened (a zip bomb, not a zip), or None.

    Reads only the central directory: the sizes it declares. A container that lies about
    them is stopped by the worker's memory limit instead.
    """
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as z:
            infos = z.infolist()
    except (zipfile.BadZipFile, ValueError, OSError) as exc:
        return f"corrupt file: not a readable zip container ({exc})"
    if len(infos) > _MAX_ENTRIES:
        return f"zip bomb: {len(infos)} entries in the container (at most {_MAX_ENTRIES})"
    total = sum(i.file_size for i in infos)
    if total > max_unpacked:
        return f"zip bomb: unpacks to {total} bytes (more than {max_unpacked})"
    for info in infos:
        if info.file_size > 1_000_000 and info.file_size > _MAX_RATIO * max(info.compress_size, 1):
            return (
                f"zip bomb: {info.filename} unpacks {info.file_size // max(info.compress_size, 1)}"
                f" times its packed size"
            )
    return None
