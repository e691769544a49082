"""Read an S/MIME ``application/pkcs7-mime`` part: the message a signed one carries inside
its signature (opaque signing: no text outside it), and what an encrypted one is.

The part is CMS (RFC 5652) in BER, as mailers write it: lengths left open (``0x80``, ended by
two zero bytes) and the signed content cut into chunks. Only the path to that content is
walked; nothing is verified or decrypted.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["ENCRYPTED_NOTE", "SMIME_TYPES", "Smime", "read_smime"]

#: The content types an S/MIME message or part is sent as.
SMIME_TYPES = frozenset({"application/pkcs7-mime", "application/x-pkcs7-mime"})
#: What an encrypted S/MIME message's record says in place of its text.
ENCRYPTED_NOTE = (
    "(S/MIME-encrypted message: its text can be read only with the recipient's private key)"
)

# Object identifiers, as their DER bytes: pkcs7-signedData, envelopedData, and
# authEnvelopedData and compressedData (id-smime-ct-*).
_SIGNED = bytes.fromhex("2a864886f70d010702")
_ENVELOPED = bytes.fromhex("2a864886f70d010703")
_AUTH_ENVELOPED = bytes.fromhex("2a864886f70d0109100117")
_COMPRESSED = bytes.fromhex("2a864886f70d0109100109")
_MAX_DEPTH = 16  # the content sits 5 levels down; more is damage or a trap


class _Damaged(ValueError):
    pass


@dataclass(frozen=True)
class Smime:
    """What a pkcs7-mime part holds: ``kind`` (``signed``, ``encrypted``, ``compressed``,
    ``damaged``) and, for a signed one, the message signed (MIME entity bytes)."""

    kind: str
    content: bytes | None = None


@dataclass(frozen=True)
class _Element:
    tag: int
    start: int  # where its content starts
    end: int  # where its content ends (before the two zero bytes of an open length)
    after: int  # where the next element starts


def _element(data: bytes, at: int, depth: int = 0) -> _Element:
    if depth > _MAX_DEPTH or at + 2 > len(data):
        raise _Damaged
    tag, first = data[at], data[at + 1]
    if tag & 0x1F == 0x1F:
        raise _Damaged  # a tag number over 30: not in CMS's path
    start = at + 2
    if first == 0x80:  # an open length: children up to two zero bytes
        if not tag & 0x20:
            raise _Damaged
        pos = start
        while data[pos : pos + 2] != b"\x00\x00":
            pos = _element(data, pos, depth + 1).after
        return _Element(tag, start, pos, pos + 2)
    if first & 0x80:
        size = first & 0x7F
        if size > 4 or start + size > len(data):
            raise _Damaged
        length = int.from_bytes(data[start : start + size], "big")
        start += size
    else:
        length = first
    if start + length > len(data):
        raise _Damaged
    return _Element(tag, start, start + length, start + length)


def _children(data: bytes, parent: _Element, depth: int) -> list[_Element]:
    found: list[_Element] = []
    pos = parent.start
    while pos < parent.end and len(found) < 8:  # the fields wanted are among the first
        child = _element(data, pos, depth)
        found.append(child)
        pos = child.after
    return found


def _octets(data: bytes, element: _Element, depth: int) -> bytes:
    """The bytes of an OCTET STRING, whole (0x04) or in chunks (0x24)."""
    if element.tag == 0x04:
        return data[element.start : element.end]
    if element.tag != 0x24 or depth > _MAX_DEPTH:
        raise _Damaged
    return b"".join(_octets(data, c, depth + 1) for c in _children_all(data, element, depth))


def _children_all(data: bytes, parent: _Element, depth: int) -> list[_Element]:
    found: list[_Element] = []
    pos = parent.start
    while pos < parent.end:
        child = _element(data, pos, depth + 1)
        found.append(child)
        pos = child.after
    return found


def read_smime(data: bytes) -> Smime:
    """Say what a pkcs7-mime part (its decoded bytes) is, with a signed one's content."""
    try:
        root = _element(data, 0)
        oid, wrapped = _children(data, root, 1)[:2]
        kind = data[oid.start : oid.end]
        if kind in (_ENVELOPED, _AUTH_ENVELOPED):
            return Smime("encrypted")
        if kind == _COMPRESSED:
            return Smime("compressed")
        if kind != _SIGNED or wrapped.tag != 0xA0:
            return Smime("damaged")
        signed = _children(data, wrapped, 2)[0]
        encapsulated = _children(data, signed, 3)[2]
        content = _children(data, encapsulated, 4)[1]
        if content.tag != 0xA0:
            return Smime("signed")  # detached: the text is beside it, not in it
        return Smime("signed", _octets(data, _children(data, content, 5)[0], 6))
    except (_Damaged, IndexError, ValueError):
        return Smime("damaged")
