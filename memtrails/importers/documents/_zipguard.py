"""Refuse a zip container (DOCX, PPTX, XLSX, OpenDocument, EPUB) whose unpacked size is hostile."""

from __future__ import annotations

import io
import posixpath
import zipfile
from xml.etree import ElementTree

from ._zipparts import ZIP_READ_ERRORS
from ._zipsalvage import inflated_over

__all__ = ["NOT_A_ZIP", "NO_BODY", "ZIP_SUFFIXES", "check_zip"]

#: How the reason :func:`check_zip` gives for bytes no zip reader opens starts.
NOT_A_ZIP = "corrupt file: not a readable zip container"

#: The formats that are zip files inside.
ZIP_SUFFIXES = frozenset(
    {".docx", ".docm", ".pptx", ".pptm", ".xlsx", ".xlsm", ".odt", ".ods", ".odp", ".epub"}
)
_MAX_ENTRIES = 20_000
# An EPUB's spine lists each chapter once (epubcheck's OPF-034); what it lists again, a
# reader reads again: one 100 KB chapter listed 5,000 times gave 512 MB of text.
_MAX_REPEATED = 16 << 20
_MAX_RATIO = 200  # real XML packs 5-20x; a zip bomb packs thousands of times
_ODF = frozenset({".odt", ".ods", ".odp"})
# The part that holds each zip format's text (or leads to it): a zip without it is another
# zip under the format's name (an archive of files) or one damaged past reading.
_BODIES = {".odt": "content.xml", ".ods": "content.xml", ".odp": "content.xml"}
_BODIES |= {".docx": "word/document.xml", ".docm": "word/document.xml"}
_BODIES |= {".xlsx": "xl/workbook.xml", ".xlsm": "xl/workbook.xml"}
_BODIES |= {".pptx": "ppt/presentation.xml", ".pptm": "ppt/presentation.xml"}
_BODIES |= {".epub": "META-INF/container.xml"}
#: How the reason :func:`check_zip` gives for a zip without its format's body starts.
NO_BODY = "corrupt file: a zip with no "
_NO_BODY = (
    NO_BODY + "{part}, which holds a {suffix} file's text (damaged, or another zip given "
    "that name: an archive of files is read once unpacked into a folder)"
)
_OOXML_TYPES = (
    "[Content_Types].xml"  # an Office Open XML package's: its parts may be named otherwise
)


def check_zip(data: bytes, max_unpacked: int, suffix: str = "") -> str | None:
    """Return why a zip container must not be opened (a zip bomb, not a zip, an OpenDocument
    file with no body), or None.

    Reads the central directory (the sizes it declares, and for an EPUB its spine), then
    inflates each deflated part only as far as one byte past its declared size: a
    container that declares small sizes and unpacks to gigabytes is named, not read.
    """
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as z:
            infos = z.infolist()
            why = _sizes(infos, max_unpacked) or _lies(data, infos)
            body = _BODIES.get(suffix)
            names = z.NameToInfo
            # an Office Open XML package (its content types listed) may name its body otherwise
            unlisted = suffix.startswith(".o") or _OOXML_TYPES not in names
            if why is None and body is not None and body not in names and unlisted:
                why = _NO_BODY.format(part=body, suffix=suffix)
            if why is None:
                why = _locked(z, suffix)
            # The spine is read only from a container whose sizes are sane.
            again = _spine_repeats(z) if suffix == ".epub" and why is None else 0
    except (zipfile.BadZipFile, ValueError, OSError) as exc:
        return f"{NOT_A_ZIP} ({exc})"
    except ZIP_READ_ERRORS as exc:
        # a part damaged inside (its deflate data, its flags, its method)
        return f"corrupt file: a damaged zip container ({type(exc).__name__}: {exc})"
    if why is None and again > _MAX_REPEATED:
        why = (
            f"zip bomb: its spine lists the same chapters again and again ({again:,} bytes "
            f"read again; at most {_MAX_REPEATED:,})"
        )
    return why


def _sizes(infos: list[zipfile.ZipInfo], max_unpacked: int) -> str | None:
    """Say why the sizes a central directory declares are a zip bomb's, or None."""
    if len(infos) > _MAX_ENTRIES:
        return f"zip bomb: {len(infos):,} entries in the container (at most {_MAX_ENTRIES:,})"
    total = sum(i.file_size for i in infos)
    if total > max_unpacked:
        return f"zip bomb: unpacks to {total:,} bytes (more than {max_unpacked:,})"
    for info in infos:
        if info.file_size > 1_000_000 and info.file_size > _MAX_RATIO * max(info.compress_size, 1):
            return (
                f"zip bomb: {info.filename} unpacks {info.file_size // max(info.compress_size, 1)}"
                f" times its packed size"
            )
    return None


def _lies(data: bytes, infos: list[zipfile.ZipInfo]) -> str | None:
    """Say which deflated part unpacks to more than its declared size, or None."""
    for info in infos:
        if info.compress_type == zipfile.ZIP_DEFLATED and inflated_over(
            data, info.header_offset, info.compress_size, info.file_size
        ):
            return (
                f"zip bomb: {info.filename} unpacks to more than the {info.file_size:,} "
                "bytes its zip directory declares"
            )
    return None


_PASSWORD = "encrypted document: it opens only with its password (save a copy without one)"
_ZIP_PASSWORD = (
    "encrypted document: its zip's parts are encrypted (zipped with a password, then given "
    "a document's name): unzip it with the password, then import what it holds"
)
_DRM = (
    "encrypted document: its chapters are locked by DRM (an e-book store's copy "
    "protection), which only the store's reader app opens"
)
# How an EPUB hides its fonts (IDPF's and Adobe's obfuscation): not its text.
_FONT_OBFUSCATION = (b"http://www.idpf.org/2008/embedding", b"http://ns.adobe.com/pdf/enc#RC")
_SMALL_PART = 1 << 20  # a manifest or an encryption list: read whole only under this


def _small(z: zipfile.ZipFile, name: str) -> bytes:
    info = z.NameToInfo.get(name)
    if info is None or info.file_size > _SMALL_PART:
        return b""
    try:
        return z.read(name)
    except ZIP_READ_ERRORS:
        return b""  # damaged: the reader says so if it needs the part


def _locked(z: zipfile.ZipFile, suffix: str) -> str | None:
    """Say why a zip container's text cannot be read without a key, or None: a zip whose
    parts are encrypted (a password-protected zip under a document's name), an
    OpenDocument file saved with a password (its manifest gives content.xml encryption
    data), an EPUB whose chapters are encrypted (DRM: ``META-INF/encryption.xml`` naming
    more than obfuscated fonts, or Adobe's ``META-INF/rights.xml``)."""
    if any(info.flag_bits & 1 for info in z.infolist()):
        return _ZIP_PASSWORD
    if suffix in _ODF:
        manifest = _small(z, "META-INF/manifest.xml")
        return _PASSWORD if b"encryption-data" in manifest else None
    if suffix == ".epub":
        if "META-INF/rights.xml" in z.NameToInfo:
            return _DRM
        listed = _small(z, "META-INF/encryption.xml")
        methods = listed.count(b"EncryptionMethod")
        fonts = sum(listed.count(method) for method in _FONT_OBFUSCATION)
        return _DRM if methods > fonts else None
    return None


def _local(tag: str) -> str:
    return tag.rpartition("}")[2]


def _spine_repeats(z: zipfile.ZipFile) -> int:
    """The bytes an EPUB's spine makes a reader unpack again: each chapter it lists more
    than once, counted each time after the first. 0 when the package cannot be found."""
    try:
        container = ElementTree.fromstring(z.read("META-INF/container.xml"))
        opf_path = next(
            (e.get("full-path", "") for e in container.iter() if _local(e.tag) == "rootfile"), ""
        )
        package = ElementTree.fromstring(z.read(opf_path))
    except (*ZIP_READ_ERRORS, ElementTree.ParseError):
        return 0  # no package to follow: the reader says what is wrong
    folder = posixpath.dirname(opf_path)
    sizes = {info.filename: info.file_size for info in z.infolist()}
    items: dict[str, int] = {}
    seen: set[str] = set()
    again = 0
    for element in package.iter():
        name = _local(element.tag)
        if name == "item":
            href = posixpath.normpath(posixpath.join(folder, element.get("href", "")))
            items[element.get("id", "")] = sizes.get(href, 0)
        elif name == "itemref":
            idref = element.get("idref", "")
            if idref in seen:
                again += items.get(idref, 0)
            seen.add(idref)
    return again
