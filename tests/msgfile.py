"""Write small OLE compound files ([MS-CFB], version 3) shaped as Outlook .msg files, for
tests that need a message no fixture has (an attached message, an HTML-only body).

A storage is a dict of name -> bytes (a stream) or dict (a storage). Streams under 4096
bytes go to the mini stream, as readers expect; every storage's children are chained as
right siblings in the order [MS-CFB] sorts names (length, then upper case).
"""

from __future__ import annotations

import itertools
import struct
from typing import Any

__all__ = ["msg_file", "prop", "write_cfb"]

_FREE, _END, _FAT = 0xFFFFFFFF, 0xFFFFFFFE, 0xFFFFFFFD
_NONE = 0xFFFFFFFF


def prop(tag: str, value: str | bytes) -> tuple[str, bytes]:
    """A property stream: ``tag`` is ``PPPP`` and the value's type is told by its Python
    type (str: PT_UNICODE ``001F``, bytes: PT_BINARY ``0102``)."""
    if isinstance(value, str):
        return f"__substg1.0_{tag}001F", value.encode("utf-16-le")
    return f"__substg1.0_{tag}0102", value


def _properties(top: bool) -> bytes:
    # [MS-OXMSG] 2.4: a header (32 bytes at the top, 24 in an attached message), no entries
    return b"\0" * (32 if top else 24)


def msg_file(
    props: dict[str, str | bytes], attachments: list[dict[str, Any]] | None = None
) -> bytes:
    """An Outlook message: ``props`` by tag (``0037``: subject, ``1000``: body, ``1013``:
    HTML, ``1009``: compressed RTF, binary), and attachments, each a dict of properties
    (``3707``: file name, ``3701``: data) or ``{"message": (props, attachments)}``."""
    return write_cfb(_message(props, attachments or [], top=True))


def _message(
    props: dict[str, str | bytes], attachments: list[dict[str, Any]], *, top: bool
) -> dict[str, Any]:
    tree: dict[str, Any] = {"__properties_version1.0": _properties(top)}
    tree.update(dict(prop(tag, value) for tag, value in props.items()))
    if top:
        tree["__nameid_version1.0"] = {
            "__substg1.0_00020102": b"",
            "__substg1.0_00030102": b"",
            "__substg1.0_00040102": b"",
        }
    for n, attachment in enumerate(attachments):
        storage: dict[str, Any] = {"__properties_version1.0": b"\0" * 8}
        if "message" in attachment:
            inner_props, inner_attachments = attachment["message"]
            storage["__substg1.0_3701000D"] = _message(inner_props, inner_attachments, top=False)
            storage.update(dict(prop(t, v) for t, v in attachment.items() if t != "message"))
        else:
            storage.update(dict(prop(t, v) for t, v in attachment.items()))
        tree[f"__attach_version1.0_#{n:08X}"] = storage
    return tree


def _order(name: str) -> tuple[int, str]:
    return len(name), name.upper()


def write_cfb(root: dict[str, Any]) -> bytes:
    """An OLE compound file (512-byte sectors) holding ``root``'s storages and streams."""
    entries: list[list[Any]] = []  # [name, kind, child, right, data or None]

    def add(name: str, value: Any) -> int:
        index = len(entries)
        kind = 1 if isinstance(value, dict) else 2
        entries.append([name, kind, _NONE, _NONE, None if kind == 1 else value])
        if kind == 1:
            _children(index, value)
        return index

    def _children(index: int, storage: dict[str, Any]) -> None:
        ids = [add(n, storage[n]) for n in sorted(storage, key=_order)]
        for before, after in itertools.pairwise(ids):
            entries[before][3] = after
        entries[index][2] = ids[0] if ids else _NONE

    entries.append(["Root Entry", 5, _NONE, _NONE, None])
    _children(0, root)
    # The mini stream: every stream under 4096 bytes, in 64-byte sectors.
    mini = bytearray()
    mini_fat: list[int] = []
    big: list[tuple[int, bytes]] = []
    starts: dict[int, tuple[int, int]] = {}
    for i, entry in enumerate(entries):
        data = entry[4]
        if data is None:
            continue
        if len(data) >= 4096:
            big.append((i, data))
            continue
        if not data:
            starts[i] = (_END, 0)
            continue
        first = len(mini) // 64
        count = (len(data) + 63) // 64
        mini += data.ljust(count * 64, b"\0")
        mini_fat += [*range(first + 1, first + count), _END]
        starts[i] = (first, len(data))
    # Regular sectors: the big streams, the mini stream, the mini FAT, the directory.
    sectors = bytearray()
    fat: list[int] = []

    def place(data: bytes) -> int:
        if not data:
            return _END
        first = len(sectors) // 512
        count = (len(data) + 511) // 512
        sectors.extend(data.ljust(count * 512, b"\0"))
        fat.extend([*range(first + 1, first + count), _END])
        return first

    for i, data in big:
        starts[i] = (place(data), len(data))
    root_start = place(bytes(mini))
    mini_fat_bytes = struct.pack(f"<{len(mini_fat)}I", *mini_fat) if mini_fat else b""
    mini_fat_start = place(mini_fat_bytes.ljust(-(-len(mini_fat_bytes) // 512) * 512, b"\xff"))
    directory = bytearray()
    for i, (name, kind, child, right, _) in enumerate(entries):
        encoded = (name + "\0").encode("utf-16-le")
        start, size = (root_start, len(mini)) if i == 0 else starts.get(i, (0, 0))
        record = encoded.ljust(64, b"\0") + struct.pack("<HBB", len(encoded), kind, 1)
        record += struct.pack("<III", _NONE, right, child) + b"\0" * 16 + b"\0" * 4 + b"\0" * 16
        record += struct.pack("<IQ", start, size)
        directory += record
    directory += b"\0" * (-len(directory) % 512)
    for at in range(len(entries) * 128, len(directory), 128):  # unused entries
        struct.pack_into("<III", directory, at + 0x44, _NONE, _NONE, _NONE)
    dir_start = place(bytes(directory))
    # The FAT itself: enough sectors to hold every entry, its own included.
    fat_count = 1
    while (len(fat) + fat_count) > fat_count * 128:
        fat_count += 1
    fat_first = len(sectors) // 512
    fat += [_FAT] * fat_count
    fat += [_FREE] * (fat_count * 128 - len(fat))
    sectors += struct.pack(f"<{len(fat)}I", *fat)
    header = bytearray(512)
    header[:8] = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
    struct.pack_into("<HHHHH", header, 0x18, 0x3E, 3, 0xFFFE, 9, 6)
    struct.pack_into("<I", header, 0x2C, fat_count)
    struct.pack_into("<I", header, 0x30, dir_start)
    struct.pack_into("<I", header, 0x38, 4096)
    struct.pack_into("<II", header, 0x3C, mini_fat_start, -(-len(mini_fat_bytes) // 512))
    struct.pack_into("<II", header, 0x44, _END, 0)
    difat = [fat_first + n for n in range(fat_count)] + [_FREE] * (109 - fat_count)
    struct.pack_into("<109I", header, 0x4C, *difat)
    return bytes(header) + bytes(sectors)
