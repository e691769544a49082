"""Read an Excel 2007+ workbook (XLSX, XLSM) with the standard library: its cells' text and
what ``docProps/core.xml`` says (title, author, created, modified).

kreuzberg 4.10 gives no text at all for a sheet whose used range spans a few hundred
thousand rows but holds few values (a note typed far below the data: both the data and the
note were lost, with no error), and writes each empty cell of a sparse sheet as spaces (a
value in Z100000 gave 2.6 MB of them). This reader streams each sheet's XML and keeps only
the cells that hold something: one line per row, its cells joined by a space, each sheet
under its name, as kreuzberg lays them out. Dates (a number in a date format) read as
``YYYY-MM-DD`` or ``YYYY-MM-DD HH:MM:SS`` (a time alone as ``HH:MM:SS``), booleans as
``true``/``false``, a formula as its last computed value.
"""

from __future__ import annotations

import io
import posixpath
import re
import zipfile
from collections.abc import Iterator
from datetime import datetime, timedelta
from typing import Any
from xml.etree import ElementTree

__all__ = ["read_xlsx"]

_REL = "{http://schemas.openxmlformats.org/officeDocument/2006/relationships}id"
_STRICT_REL = "{http://purl.oclc.org/ooxml/officeDocument/relationships}id"
_CORE = {"title": "title", "creator": "author", "created": "created", "modified": "modified"}
# Excel's built-in number formats that show a date or a time.
_DATE_IDS = frozenset([*range(14, 23), *range(27, 37), *range(45, 48), *range(50, 59)])
# What a format code shows literally: quoted text, [colour] or [$-locale] tags, \x escapes.
_LITERAL = re.compile(r'"[^"]*"|\[(?![hms]+\])[^\]]*\]|\\.|_.|\*.')
_DATE_CODE = re.compile(r"[ymdhs]", re.IGNORECASE)
_LAST_SERIAL = 2_958_465  # 9999-12-31, the last day Excel holds
# A document gives at most this much text (``_extract.MAX_TEXT_CHARS``): reading stops just
# past it, for a dense sheet of millions of cells would otherwise outlast the worker's time.
TEXT_LIMIT = 16 << 20


def _local(tag: str) -> str:
    """A tag without its namespace: transitional and strict OOXML name the same elements."""
    return tag.rpartition("}")[2]


def _texts(element: ElementTree.Element) -> str:
    """The text of a shared or inline string: its ``<t>`` runs, not its phonetic guides."""
    parts: list[str] = []
    for child in element:
        name = _local(child.tag)
        if name == "t":
            parts.append(child.text or "")
        elif name == "r":
            parts.extend(t.text or "" for t in child if _local(t.tag) == "t")
    return "".join(parts)


def _elements(z: zipfile.ZipFile, name: str, tag: str) -> Iterator[ElementTree.Element]:
    """Yield each ``tag`` element of a part as it is parsed, cleared once used."""
    if name not in z.NameToInfo:
        return
    with z.open(name) as part:
        for _, element in ElementTree.iterparse(part, events=("end",)):
            if _local(element.tag) == tag:
                yield element
                element.clear()


def _shared_strings(z: zipfile.ZipFile, names: dict[str, str]) -> list[str]:
    part = names.get("sharedStrings", "xl/sharedStrings.xml")
    return [_texts(si) for si in _elements(z, part, "si")]


def _date_styles(z: zipfile.ZipFile, part: str) -> list[bool]:
    """Tell, for each cell style (``s``), whether it shows its number as a date."""
    if part not in z.NameToInfo:
        return []
    root = ElementTree.fromstring(z.read(part))
    codes: dict[int, str] = {}
    dates: list[bool] = []
    for element in root:
        name = _local(element.tag)
        if name == "numFmts":
            for fmt in element:
                number = fmt.get("numFmtId", "")
                if number.isdigit():
                    codes[int(number)] = fmt.get("formatCode", "")
        elif name == "cellXfs":
            for xf in element:
                number = xf.get("numFmtId", "0")
                n = int(number) if number.isdigit() else 0
                code = codes.get(n)
                is_date = (
                    bool(_DATE_CODE.search(_LITERAL.sub("", code))) if code else n in _DATE_IDS
                )
                dates.append(is_date)
    return dates


def _number(value: str) -> str:
    """A number as a spreadsheet shows it in General: ``12``, ``3.25``."""
    try:
        number = float(value)
    except ValueError:
        return value
    if number.is_integer() and abs(number) < 1e21:
        return str(int(number))
    return repr(number)


def _date(value: str, epoch: datetime) -> str:
    """A date serial as ``YYYY-MM-DD`` (and the time of day when it has one); a time alone
    (under one day: a time format) as ``HH:MM:SS``."""
    try:
        serial = float(value)
    except ValueError:
        return value
    if not 0 <= serial <= _LAST_SERIAL:
        return _number(value)
    moment = epoch + timedelta(seconds=round(serial * 86_400))
    if serial < 1:
        return f"{moment:%H:%M:%S}"
    return moment.strftime("%Y-%m-%d") if serial.is_integer() else f"{moment:%Y-%m-%d %H:%M:%S}"


class _Book:
    """What every sheet's cells need to be read: shared strings, date styles, epoch."""

    def __init__(self, z: zipfile.ZipFile, names: dict[str, str], date1904: bool) -> None:
        self.strings = _shared_strings(z, names)
        self.dates = _date_styles(z, names.get("styles", "xl/styles.xml"))
        self.epoch = datetime(1904, 1, 1) if date1904 else datetime(1899, 12, 30)
        self.lost = 0  # cells of text whose shared string is not there

    def cell(self, c: ElementTree.Element) -> str:
        kind = c.get("t", "n")
        value: str | None = None
        inline = ""
        for child in c:
            name = _local(child.tag)
            if name == "v":
                value = child.text
            elif name == "is":
                inline = _texts(child)
        if kind == "inlineStr":
            return inline
        if value is None:
            return ""
        if kind == "s":
            index = int(value) if value.strip().isdigit() else -1
            if 0 <= index < len(self.strings):
                return self.strings[index]
            self.lost += 1
            return ""
        if kind == "b":
            return "true" if value.strip() == "1" else "false"
        if kind in ("str", "e", "d"):
            return value
        style = c.get("s", "0")
        s = int(style) if style.isdigit() else 0
        if s < len(self.dates) and self.dates[s]:
            return _date(value, self.epoch)
        return _number(value)

    def rows(self, z: zipfile.ZipFile, part: str) -> Iterator[str]:
        """Yield each row of a sheet that holds something, its cells joined by a space."""
        if part not in z.NameToInfo:
            return
        cells: list[str] = []
        with z.open(part) as xml:
            for _, element in ElementTree.iterparse(xml, events=("end",)):
                name = _local(element.tag)
                if name == "c":
                    text = self.cell(element).strip()
                    if text:
                        cells.append(text)
                    element.clear()
                elif name == "row":
                    if cells:
                        yield " ".join(cells)
                        cells = []
                    element.clear()
        if cells:
            yield " ".join(cells)


def _targets(z: zipfile.ZipFile, rels: str, folder: str) -> Iterator[tuple[str, str, str]]:
    """Yield each relationship of a part as (id, kind, the part it names)."""
    for rel in _elements(z, rels, "Relationship"):
        target = rel.get("Target", "")
        path = target.lstrip("/") if target.startswith("/") else posixpath.join(folder, target)
        yield rel.get("Id", ""), rel.get("Type", "").rpartition("/")[2], posixpath.normpath(path)


def _workbook(z: zipfile.ZipFile) -> str:
    """The workbook part the package names (``xl/workbook.xml`` in every file Excel writes)."""
    for _, kind, path in _targets(z, "_rels/.rels", ""):
        if kind == "officeDocument" and path in z.NameToInfo:
            return path
    return "xl/workbook.xml"


def _parts(z: zipfile.ZipFile) -> tuple[list[tuple[str, str]], dict[str, str], bool]:
    """Return the sheets in workbook order (name, part), other parts by kind, and whether
    the workbook counts dates from 1904.

    Raises:
        ValueError: there is no workbook part.
    """
    workbook = _workbook(z)
    if workbook not in z.NameToInfo:
        raise ValueError(f"not an Excel workbook (no {workbook})")
    folder, _, name = workbook.rpartition("/")
    targets: dict[str, str] = {}
    kinds: dict[str, str] = {}
    for rid, kind, path in _targets(z, posixpath.join(folder, "_rels", name + ".rels"), folder):
        targets[rid] = path
        kinds.setdefault(kind, path)
    sheets: list[tuple[str, str]] = []
    date1904 = False
    for element in _elements(z, workbook, "workbook"):
        for child in element.iter():
            tag = _local(child.tag)
            if tag == "workbookPr":
                date1904 = child.get("date1904", "").lower() in ("1", "true")
            elif tag == "sheet":
                rid = child.get(_REL) or child.get(_STRICT_REL) or ""
                if rid in targets:
                    sheets.append((child.get("name", ""), targets[rid]))
    return sheets, kinds, date1904


def _core(z: zipfile.ZipFile) -> dict[str, Any]:
    meta: dict[str, Any] = {}
    if "docProps/core.xml" not in z.NameToInfo:
        return meta
    for element in ElementTree.fromstring(z.read("docProps/core.xml")):
        key = _CORE.get(_local(element.tag))
        if key and element.text and element.text.strip():
            meta[key] = element.text.strip()
    return meta


def read_xlsx(data: bytes) -> tuple[str, dict[str, Any]]:
    """Return a workbook's text (each sheet's name, a blank line, its rows) and metadata."""
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        sheets, kinds, date1904 = _parts(z)
        book = _Book(z, kinds, date1904)
        blocks: list[str] = []
        size = 0
        for name, part in sheets:
            lines: list[str] = []
            for line in book.rows(z, part):
                lines.append(line)
                size += len(line) + 1
                if size > TEXT_LIMIT:
                    break
            if lines:
                blocks.append("\n".join([name, "", *lines]) if name else "\n".join(lines))
            if size > TEXT_LIMIT:
                break
        meta = _core(z)
    if book.lost and not book.strings:
        # A writer (or a copy) that lost the part: the words are gone, the numbers are not
        # the sheet; said, not given as a sheet of numbers alone.
        raise ValueError(
            f"its shared strings part is missing: the text of {book.lost} cell(s) is not in "
            "the file (a damaged or incompletely written workbook)"
        )
    if sheets:
        meta["sheet_count"] = len(sheets)
    return "\n\n".join(blocks), meta
