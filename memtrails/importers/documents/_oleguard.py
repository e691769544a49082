"""Check an OLE compound file (Office 97-2003 ``.doc``/``.xls``/``.ppt``, Outlook ``.msg``)
before a parser opens it, and tell an encrypted one from a damaged one.

An OLE file is a small file system: a header, a FAT (the chain of sectors each stream
takes), a directory of streams. A hostile one declares millions of FAT sectors, or chains
that loop, and a parser that trusts it allocates gigabytes or walks forever (kreuzberg
4.10's XLS reader died of 2 GiB on both). Walking every chain once, each sector at most
once, costs one pass over the file and refuses those as one named error. Standard library
only: it runs in the document worker.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

__all__ = ["OLE_MAGIC", "OLE_SUFFIXES", "Layout", "check_ole", "encrypted", "layout"]

OLE_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
#: The formats that are OLE compound files.
OLE_SUFFIXES = frozenset({".doc", ".dot", ".xls", ".xlt", ".ppt", ".pps", ".pot", ".msg"})
_FREE, _END, _FAT, _DIFAT = 0xFFFFFFFF, 0xFFFFFFFE, 0xFFFFFFFD, 0xFFFFFFFC
_MINI_CUTOFF = 4096
_DIR_ENTRY = 128


class _Bad(Exception):
    pass


def _fat(data: bytes, shift: int, count: int) -> list[int]:
    """The FAT as a list of next-sector numbers, read through the header's DIFAT and its
    chain of DIFAT sectors (each visited once)."""
    size = 1 << shift
    sectors = (len(data) - size + size - 1) // size
    if count > sectors:
        raise _Bad(f"it declares {count} FAT sectors in a file of {sectors}")
    where = list(struct.unpack_from("<109I", data, 0x4C))
    next_difat, difat_count = struct.unpack_from("<II", data, 0x44)
    seen: set[int] = set()
    while next_difat not in (_END, _FREE) and len(where) < count + 109:
        if next_difat >= sectors or next_difat in seen or len(seen) > difat_count:
            raise _Bad("its DIFAT chain loops or points past the end of the file")
        seen.add(next_difat)
        block = data[(next_difat + 1) * size : (next_difat + 2) * size]
        ids = struct.unpack(f"<{size // 4}I", block.ljust(size, b"\xff"))
        where.extend(ids[:-1])
        next_difat = ids[-1]
    fat: list[int] = []
    for sector in where[:count]:
        if sector >= sectors:
            raise _Bad(f"a FAT sector ({sector}) lies past the end of the file")
        block = data[(sector + 1) * size : (sector + 2) * size].ljust(size, b"\xff")
        fat.extend(struct.unpack(f"<{size // 4}I", block))
    return fat


class _Chains:
    """Follow the chains of one FAT, each sector at most once over all of them: a sector
    reached again from another chain (two entries sharing sectors, which readers allow)
    gives the length known from the first walk."""

    def __init__(self, fat: list[int], limit: int) -> None:
        self.fat = fat
        self.limit = min(limit, len(fat))
        self.left: dict[int, int] = {}  # sector -> sectors from it to the chain's end

    def length(self, start: int) -> int:
        path: list[int] = []
        on_path: set[int] = set()
        sector = start
        tail = 0
        while sector not in (_END, _FREE):
            if sector in self.left:
                tail = self.left[sector]
                break
            if sector >= self.limit:
                raise _Bad(f"a chain points past the end of the file (sector {sector})")
            if sector in on_path:
                raise _Bad(f"a sector chain loops (sector {sector})")
            path.append(sector)
            on_path.add(sector)
            sector = self.fat[sector]
        for i, at in enumerate(reversed(path), 1):
            self.left[at] = tail + i
        return tail + len(path)

    def sectors(self, start: int) -> list[int]:
        """The sectors of a chain already measured, in order."""
        out = []
        sector = start
        for _ in range(self.length(start)):
            out.append(sector)
            sector = self.fat[sector]
        return out


@dataclass(slots=True)
class Layout:
    """A checked OLE file: its sector size, chains, and directory entries
    ``(name, kind, start, length)`` (kind 2: a stream, 5: the root)."""

    data: bytes
    size: int
    chains: _Chains
    minis: _Chains
    root_start: int
    entries: list[tuple[str, int, int, int]]
    #: Every directory entry by its number: ``(name, kind, left, right, child, start,
    #: length)``; kind 1 is a storage (a folder), 2 a stream, 5 the root (entry 0).
    tree: list[tuple[str, int, int, int, int, int, int]]

    def stream(self, name: str, most: int) -> bytes | None:
        """Return the first ``most`` bytes of the stream called ``name``, or None."""
        for entry, kind, start, length in self.entries:
            if kind != 2 or entry != name or not length:
                continue
            return self.read(start, length, most)
        return None

    def read(self, start: int, length: int, most: int) -> bytes:
        """Return the first ``most`` bytes of a stream checked by :func:`layout`."""
        if not length:
            return b""
        if length >= _MINI_CUTOFF:
            blocks = [(s + 1) * self.size for s in self.chains.sectors(start)]
            step = self.size
            source = self.data
        else:  # in the mini stream: 64-byte sectors of the root's chain
            source = self.read_root()
            blocks = [s * 64 for s in self.minis.sectors(start)]
            step = 64
        out = bytearray()
        for at in blocks:
            out += source[at : at + step]
            if len(out) >= min(length, most):
                break
        return bytes(out[: min(length, most)])

    def children(self, index: int) -> list[int]:
        """Return the entries in the storage numbered ``index`` (0: the root): a walk of its
        tree of siblings, each entry at most once."""
        if not 0 <= index < len(self.tree):
            return []
        out: list[int] = []
        seen: set[int] = set()
        todo = [self.tree[index][4]]
        while todo:
            at = todo.pop()
            if not 0 <= at < len(self.tree) or at in seen:
                continue
            seen.add(at)
            out.append(at)
            _, _, left, right, _, _, _ = self.tree[at]
            todo += (right, left)
        return sorted(out)

    def read_root(self) -> bytes:
        return b"".join(
            self.data[(s + 1) * self.size : (s + 2) * self.size]
            for s in self.chains.sectors(self.root_start)
        )


def layout(data: bytes) -> Layout:
    """Check an OLE compound file and return its layout.

    Reads the header, the FAT, the directory and each stream's chain: one pass.

    Raises:
        ValueError: why it must not be opened (the message starts ``corrupt file:``).
    """
    if data[:8] != OLE_MAGIC:
        raise ValueError("corrupt file: not an Office 97-2003 file (no OLE compound file header)")
    if len(data) < 1024:
        raise ValueError(f"corrupt file: a truncated OLE compound file ({len(data)} bytes)")
    shift, mini_shift = struct.unpack_from("<HH", data, 0x1E)
    if shift not in (9, 12) or mini_shift != 6:
        raise ValueError(f"corrupt file: an OLE compound file with sectors of 2^{shift} bytes")
    size = 1 << shift
    sectors = (len(data) - size + size - 1) // size
    (fat_count,) = struct.unpack_from("<I", data, 0x2C)
    (dir_start,) = struct.unpack_from("<I", data, 0x30)
    try:
        fat = _fat(data, shift, fat_count)
        chains = _Chains(fat, sectors)
        directory = b"".join(
            data[(s + 1) * size : (s + 2) * size] for s in chains.sectors(dir_start)
        )
        mini_start, mini_count = struct.unpack_from("<II", data, 0x3C)
        if mini_count > sectors:
            raise _Bad(f"it declares {mini_count} mini FAT sectors in a file of {sectors}")
        mini_fat: list[int] = []
        if mini_count:
            for s in chains.sectors(mini_start)[:mini_count]:
                block = data[(s + 1) * size : (s + 2) * size].ljust(size, b"\xff")
                mini_fat.extend(struct.unpack(f"<{size // 4}I", block))
        mini_held = 0
        root_start = _END
        entries: list[tuple[str, int, int, int]] = []
        tree: list[tuple[str, int, int, int, int, int, int]] = []
        for at in range(0, len(directory) - _DIR_ENTRY + 1, _DIR_ENTRY):
            kind = directory[at + 0x42]
            start, length = struct.unpack_from("<IQ", directory, at + 0x74)
            if shift == 9:
                length &= 0xFFFFFFFF  # version 3 files leave the high half undefined
            (name_bytes,) = struct.unpack_from("<H", directory, at + 0x40)
            name = directory[at : at + min(name_bytes, 64)].decode("utf-16-le", "replace")
            name = name.rstrip("\0")
            left, right, child = struct.unpack_from("<III", directory, at + 0x44)
            tree.append((name, kind, left, right, child, start, length))
            if kind not in (2, 5):  # a stream, or the root (which holds the mini stream)
                continue
            entries.append((name, kind, start, length))
            if kind == 2 and length < _MINI_CUTOFF:
                continue  # in the mini stream, inside the root's chain: checked below
            held = chains.length(start) * size if length else 0
            if length > held:
                raise _Bad(f"a stream declares {length} bytes but its sectors hold {held}")
            if kind == 5:
                mini_held, root_start = held, start
        minis = _Chains(mini_fat, mini_held // 64)
        for _, kind, start, length in entries:
            if kind == 2 and length < _MINI_CUTOFF:
                held = minis.length(start) * 64 if length else 0
                if length > held:
                    raise _Bad(f"a small stream declares {length} bytes but holds {held}")
    except _Bad as exc:
        raise ValueError(f"corrupt file: a damaged OLE compound file ({exc})") from None
    except struct.error:
        raise ValueError("corrupt file: a truncated OLE compound file") from None
    return Layout(data, size, chains, minis, root_start, entries, tree)


def check_ole(data: bytes) -> str | None:
    """Return why an OLE compound file must not be opened (not one, truncated, a chain that
    loops, a size it cannot hold), or None."""
    try:
        layout(data)
    except ValueError as exc:
        return str(exc)
    return None


def _starts(data: bytes) -> range:
    """The offsets where a stream may begin: every 64 bytes past the header (a large stream
    starts on a sector, a small one on a mini sector of the mini stream, itself on one)."""
    return range(512, len(data) - 64, 64)


def encrypted(data: bytes, suffix: str) -> bool:
    """Tell whether an OLE Office file that gave an error or no text is encrypted.

    Word: its FIB (the ``WordDocument`` stream's start, ident 0xA5EC or Word 6's 0xA5DC)
    has ``fEncrypted``. Excel: a FILEPASS record among the first records after the
    workbook's BOF. PowerPoint: an ``EncryptedSummary`` stream.
    """
    if data[:8] != OLE_MAGIC:
        return False
    if suffix in (".doc", ".dot"):
        for at in _starts(data):
            if data[at : at + 2] in (b"\xec\xa5", b"\xdc\xa5"):
                (nfib,) = struct.unpack_from("<H", data, at + 2)
                if 0x65 <= nfib <= 0x200:
                    (flags,) = struct.unpack_from("<H", data, at + 0x0A)
                    return bool(flags & 0x0100)
        return False
    if suffix in (".xls", ".xlt"):
        for at in _starts(data):
            if data[at : at + 2] != b"\x09\x08":  # BIFF8 BOF
                continue
            pos = at
            for _ in range(32):  # FILEPASS follows BOF within the first few records
                if pos + 4 > len(data):
                    break
                kind, length = struct.unpack_from("<HH", data, pos)
                if kind == 0x002F:
                    return True
                if kind == 0x000A:  # EOF
                    break
                pos += 4 + length
            return False
        return False
    if suffix in (".ppt", ".pps", ".pot"):
        return "EncryptedSummary".encode("utf-16-le") in data
    return False
