"""Guess the charset of a mail whose text declares none (a list archive's copy, an old
mailer's Latin-1, KOI8-R or Windows-1251), from its words as a notes folder's legacy text is.
"""

from __future__ import annotations

import itertools
from email.message import Message

from .charsets import decode_bytes, python_codec
from .parts import charset, content_type, payload

__all__ = ["decode_undeclared", "undeclared_charset"]

_SAMPLE = 256 * 1024  # bytes of text looked at, as _legacy_text looks at
# Words holding 8-bit bytes read: only they tell charsets apart, and each costs a reading in
# some twenty code pages (a mail of 1,000 such words took 170 ms, 128 of them 40 ms).
_WORDS = 128
_PARTS = 64  # leaves looked at: a mail's text comes before its many attachments


def undeclared_charset(msg: Message, head: bytes) -> str | None:
    """Return the codec the 8-bit text of ``msg`` that declares no charset (or ``us-ascii``,
    or a label no codec has) is most likely in; None where it is ASCII or valid UTF-8.

    Its text parts (decoded from quoted-printable or base64, where charset-normalizer, given
    the raw message, saw escapes only) and ``head``, the raw header block (a name or a
    subject in the same charset), are read word by word as
    :func:`~memtrails.importers._legacy_text.decode_legacy` reads a note: the charset whose
    reading has the fewest signs of a wrong one (a capital after a small letter, a symbol
    inside a word, two scripts in one word) and the most words of its language. A guess
    from the whole message's bytes read KOI8-R as half-width katakana and Windows-1254's dotless
    i as y with an acute.
    """
    sample = bytearray(head[:_SAMPLE])
    for part in itertools.islice(msg.walk(), _PARTS):
        if len(sample) >= _SAMPLE:
            break
        if part.is_multipart() or not content_type(part).startswith("text/"):
            continue
        if python_codec(charset(part)) not in (None, "ascii"):
            continue  # text that says its charset is read in it
        sample += b"\n" + payload(part)[:_SAMPLE]
    data = bytes(sample)
    if data.isascii():
        return None
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        pass
    else:
        return None
    return _words_charset(data)


def decode_undeclared(data: bytes, declared: str | None) -> str:
    """Decode a text (an attached file's) as :func:`~.charsets.decode_bytes` does, but 8-bit
    text that is not UTF-8 and declares no charset (or ``us-ascii``, or an unknown label)
    in the charset its first words read in, as a mail's own text is
    (:func:`undeclared_charset`): charset-normalizer read Turkish dotless i as y-acute."""
    if python_codec(declared) not in (None, "ascii") or data.isascii():
        return decode_bytes(data, declared)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        pass
    from .._legacy_text import decode_as  # see _words_charset

    return decode_as(data, _words_charset(data[:_SAMPLE]))


def _words_charset(data: bytes) -> str:
    """The code page the first :data:`_WORDS` words of ``data`` holding 8-bit bytes read in,
    by :func:`~memtrails.importers._legacy_text.decode_legacy`."""
    words = [word for word in data.split() if not word.isascii()][:_WORDS]
    # Imported here: _legacy_text reads charset-normalizer's guess through this package,
    # which imports this module on its way.
    from .._legacy_text import decode_legacy

    return decode_legacy(b"\n".join(words))[1]
