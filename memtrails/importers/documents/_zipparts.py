"""An Office document (a zip of XML parts) with some of its parts rewritten: what ``_docx``
and ``_pptx`` do to the XML kreuzberg is given. Stdlib only: the child process runs it."""

from __future__ import annotations

import io
import zipfile
import zlib
from collections.abc import Callable

__all__ = ["ZIP_READ_ERRORS", "rewrite_parts"]

#: What reading a damaged zip's part raises: its directory, its flags (an encrypted or
#: unknown method), its deflate data cut or corrupt, a name it lacks.
ZIP_READ_ERRORS = (
    zipfile.BadZipFile,
    OSError,
    ValueError,
    EOFError,
    RuntimeError,
    NotImplementedError,
    KeyError,
    zlib.error,
)


def rewrite_parts(
    data: bytes, wanted: Callable[[str], object], rewrite: Callable[[str, bytes], bytes | None]
) -> bytes:
    """Return ``data`` (a zip) with each part whose name is ``wanted`` and that
    ``rewrite(name, xml)`` gives new bytes for replaced by them; ``data`` itself when it gives
    none, or the zip cannot be read (the reader then says why). Only the wanted parts are
    read for it, one at a time, each kept only when rewritten."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as z:
            changed: dict[str, bytes] = {}
            for info in z.infolist():
                if not wanted(info.filename):
                    continue
                if (body := rewrite(info.filename, z.read(info))) is not None:
                    changed[info.filename] = body
            if not changed:
                return data
            out = io.BytesIO()
            with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as new:
                for info in z.infolist():
                    body = changed.get(info.filename)
                    new.writestr(info, body if body is not None else z.read(info))
            return out.getvalue()
    except ZIP_READ_ERRORS:
        return data
