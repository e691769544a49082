"""A JSON array read element by element from pieces of bytes: a large day file never whole.

``json.loads`` of a day file of 100 MiB holds its bytes, their text and every message's
objects at once (about seven times the file). Read so, only a piece of the file and one
message are held at a time. Each element is parsed by the standard library's own decoder
(``json.JSONDecoder.raw_decode``), so what is valid, and what each value becomes, is what
``json.loads`` says; an error says where in the whole file it is, as ``json.loads`` would.
"""

from __future__ import annotations

import codecs
import json
import re
from collections.abc import Iterator
from typing import Any

__all__ = ["STREAM_BYTES", "NotAnArray", "json_array", "unwrapped"]

# A day file or name file larger than this is never held whole: ``json.loads`` of it would
# hold its bytes, its text and all its objects at once (about seven times its size: a day
# file of 100 MiB took 700 MB).
STREAM_BYTES = 16 << 20

_SPACE = re.compile(r"[ \t\n\r]*")
_NUMBER_TAIL = re.compile(r"[0-9.eE+-]+")
_DECODER = json.JSONDecoder()
# The members that hold the array where a file is a Slack API response saved whole, as a
# script of one's own exports (``{"ok": true, "messages": [...], "has_more": false}``,
# ``{"ok": true, "members": [...]}``): the first of them that is an array is the file's.
WRAPPERS = frozenset(
    {"messages", "members", "users", "channels", "groups", "ims", "mpims", "dms", "logs"}
)


# Keys of an object that holds its entries by their id (``{"U1": {...}, "U2": {...}}``, as
# a script of one's own writes users or channels) or messages by their ts.
_ID_KEY = re.compile(r"[A-Z][A-Z0-9]+\Z")  # U0123ABCD, W..., C..., G..., D...
_TS_KEY = re.compile(r"[0-9]+\.[0-9]+\Z")
# A message of its own (a day file of one message, saved as an object): none of these keys
# is an id or a ts, so it holds no entries keyed so.
_MESSAGE_KEYS = frozenset({"ts", "type"})
_HELD_MEMBERS = 64  # members of an object held while it may turn out to be one message


def keyed_entry(key: str, value: Any) -> dict[str, Any] | None:
    """Return the entry one member of an object keyed by id or ts holds, its id (or ts) the
    key's where it names none itself; None if the member is no such entry."""
    if not isinstance(value, dict):
        return None
    if _ID_KEY.match(key):
        return value if "id" in value else {"id": key, **value}
    if _TS_KEY.match(key):
        return value if "ts" in value else {**value, "ts": key}
    return None


def _member_entries(key: str, value: Any, found: bool) -> tuple[list[Any], bool]:
    """Return the entries one member of a document's object holds, and whether a wrapper's
    array has been found (only the first one is the file's)."""
    if key in WRAPPERS and isinstance(value, list):
        return ([], True) if found else (value, True)
    if key in WRAPPERS and isinstance(value, dict):  # a wrapper holding entries by id
        entries = [e for k, v in value.items() if (e := keyed_entry(k, v)) is not None]
        return entries, found
    entry = keyed_entry(key, value)
    return ([entry] if entry is not None else []), found


def unwrapped(document: Any) -> list[Any] | None:
    """Return a whole document's array: itself, a Slack API response's (:data:`WRAPPERS`), the
    entries of an object keyed by id or ts (:func:`keyed_entry`), or one message saved as an
    object, as a list of one; None when it holds none of these."""
    if isinstance(document, list):
        return document
    if not isinstance(document, dict):
        return None
    entries: list[Any] = []
    found = any_found = False
    for key, value in document.items():
        more, found = _member_entries(key, value, found)
        entries.extend(more)
        any_found = any_found or found or bool(more)
    if any_found:
        return entries
    return [document] if document.keys() >= _MESSAGE_KEYS else None


class NotAnArray(Exception):
    """The document is not a JSON array (its first character is not ``[``)."""


class _Error(json.JSONDecodeError):
    """A JSONDecodeError placed in the whole document, of which only a piece is held."""

    def __init__(self, msg: str, lineno: int, colno: int, pos: int) -> None:
        ValueError.__init__(self, f"{msg}: line {lineno} column {colno} (char {pos})")
        self.msg, self.doc, self.pos, self.lineno, self.colno = msg, "", pos, lineno, colno


class _Text:
    """The part of the document not yet parsed, filled from the pieces as needed."""

    def __init__(self, pieces: Iterator[bytes]) -> None:
        # Its first bytes say its encoding, as json.loads reads bytes: UTF-8 (Slack's), or
        # UTF-16 or UTF-32 (a file an editor saved so), with or without a byte order mark.
        head = b""
        for piece in pieces:
            head += piece
            if len(head) >= 4:
                break
        self.pieces = pieces
        self.head: bytes | None = head  # read first, then let go (a piece is 1 MiB)
        encoding = json.detect_encoding(head)
        self.utf8 = codecs.getincrementaldecoder(encoding)("surrogatepass")
        self.buf = ""
        self.pos = 0  # where parsing is in buf
        self.eof = False
        self.dropped = 0  # characters dropped from the front of buf
        self.lines = 0  # newlines among them
        self.column = 0  # characters since the last of them
        self.first = True  # no text read yet

    def more(self) -> bool:
        """Read one more piece (dropping what was parsed); False at the end."""
        if self.eof:
            return False
        done = self.buf[: self.pos]
        newlines = done.count("\n")
        self.lines += newlines
        self.column = len(done) - done.rfind("\n") - 1 if newlines else self.column + len(done)
        self.dropped += self.pos
        piece = self.head if self.head is not None else next(self.pieces, None)
        self.head = None
        if piece is None:
            self.eof = True
            text = self.utf8.decode(b"", final=True)
        else:
            text = self.utf8.decode(piece)
        if self.first and text:
            self.first = False
            text = text.removeprefix("\ufeff")  # a byte-order mark: json.loads reads bytes so
        self.buf = self.buf[self.pos :] + text
        self.pos = 0
        return True

    def skip_space(self) -> str:
        """Move past white space; return the next character, '' at the end."""
        while True:
            self.pos = _SPACE.match(self.buf, self.pos).end()  # type: ignore[union-attr]
            if self.pos < len(self.buf) or not self.more():
                return self.buf[self.pos : self.pos + 1]

    def error(self, msg: str, at: int) -> _Error:
        before = self.buf[:at]
        newlines = before.count("\n")
        column = at - before.rfind("\n") if newlines else self.column + at + 1
        return _Error(msg, self.lines + newlines + 1, column, self.dropped + at)

    def value(self) -> Any:
        """Parse the value that starts here, reading more until it is whole."""
        while True:
            try:
                value, end = _DECODER.raw_decode(self.buf, self.pos)
            except json.JSONDecodeError as exc:
                if self.eof:
                    raise self.error(exc.msg, exc.pos) from None
                # Cut short, or wrong: read until twice as much is held, then try again
                # (a message of many pieces is parsed a few times, not once per piece).
                want = 2 * (len(self.buf) - self.pos) + 1
                while len(self.buf) - self.pos < want and self.more():
                    pass
                continue
            if _may_go_on(value, self.buf, end) and self.more():
                continue  # a number may go on in the next piece ("-1." of "-1.5")
            self.pos = end
            return value


def _may_go_on(value: Any, text: str, end: int) -> bool:
    """Whether a value parsed from the text held so far could be longer with more of it."""
    if end == len(text):
        return True
    number = isinstance(value, int | float) and not isinstance(value, bool)
    return number and _NUMBER_TAIL.fullmatch(text, end) is not None


def json_array(pieces: Iterator[bytes]) -> Iterator[Any]:
    """Yield the elements of the JSON array the pieces of bytes make, one at a time.

    The bytes are read as ``json.loads`` reads them: UTF-8, UTF-16 or UTF-32 as their first
    bytes say, a byte order mark left out.

    Raises:
        NotAnArray: the document is not an array, nor an object holding entries as
            :func:`unwrapped` reads them (nothing was yielded).
        json.JSONDecodeError: it is not valid JSON (or not UTF-8: UnicodeDecodeError), at the
            place named; elements before it were yielded.
        ValueError: a number has more digits than Python converts.
        RecursionError: arrays or objects are nested too deeply.
    """
    text = _Text(pieces)
    first = text.skip_space()
    if not first:  # as json.loads says of nothing
        raise text.error("Expecting value", text.pos)
    if first == "{":
        yield from _wrapped(text)
    elif first == "[":
        yield from _elements(text)
    else:
        raise NotAnArray
    if text.skip_space():
        raise text.error("Extra data", text.pos)


def _elements(text: _Text) -> Iterator[Any]:
    """Yield the elements of the array that starts here, and move past it."""
    text.pos += 1
    if text.skip_space() == "]":
        text.pos += 1
        return
    while True:
        yield text.value()
        after = text.skip_space()
        if after == "]":
            text.pos += 1
            return
        if after != ",":
            raise text.error("Expecting ',' delimiter", text.pos)
        text.pos += 1
        if text.skip_space() == "]":  # json.loads refuses a trailing comma too
            raise text.error("Expecting value", text.pos)


def _wrapped(text: _Text) -> Iterator[Any]:
    """Yield the entries of the object that starts here (:func:`unwrapped`), its members
    parsed one at a time and let go; raise NotAnArray if it holds none."""
    text.pos += 1
    found = any_found = False
    held: dict[str, Any] | None = {}  # its members, while it may be one message
    if text.skip_space() == "}":
        text.pos += 1
        raise NotAnArray
    while True:
        if text.skip_space() != '"':
            raise text.error("Expecting property name enclosed in double quotes", text.pos)
        key = text.value()
        if text.skip_space() != ":":
            raise text.error("Expecting ':' delimiter", text.pos)
        text.pos += 1
        if text.skip_space() == "[" and key in WRAPPERS and not found:
            found = any_found = True
            held = None
            yield from _elements(text)
        else:
            value = text.value()
            more, found = _member_entries(key, value, found)
            if more or found:
                any_found, held = True, None
            yield from more
            if held is not None:
                held[key] = value
                held = held if len(held) <= _HELD_MEMBERS else None
        after = text.skip_space()
        if after == "}":
            text.pos += 1
            break
        if after != ",":
            raise text.error("Expecting ',' delimiter", text.pos)
        text.pos += 1
    if not any_found:
        if held is not None and held.keys() >= _MESSAGE_KEYS:
            yield held
            return
        raise NotAnArray
