"""Decode what ``git log`` prints of a commit: UTF-8, or the legacy 8-bit text git passes on."""

from __future__ import annotations

from collections.abc import Sequence

from ..mail.charsets import DECODE_ERRORS, guess_charset, python_codec

__all__ = ["decode_commit", "decode_name"]

# Japanese codecs read nearly any 8-bit run as half-width katakana, which no one writes
# a commit in: KOI8-R Russian came out as "鰌ﾐﾒﾁﾗﾌﾅﾎﾁ". Such a guess is tried again without them.
_JAPANESE = ["cp932", "shift_jis", "shift_jis_2004", "shift_jisx0213", "euc_jp", "euc_jis_2004"]
_HALF_WIDTH_KANA = range(0xFF61, 0xFFA0)


def _kana_heavy(text: str) -> bool:
    wide = [c for c in text if ord(c) > 0x7F]
    kana = sum(1 for c in wide if ord(c) in _HALF_WIDTH_KANA)
    return bool(wide) and kana * 2 >= len(wide)


def _guess(sample: bytes) -> str | None:
    """Return the charset 8-bit text not in UTF-8 is most likely in (None: too little to tell)."""
    codec = guess_charset(sample)
    if codec is None or not _kana_heavy(sample.decode(codec, "replace")):
        return codec
    from charset_normalizer import from_bytes  # imported only for such text

    try:
        best = from_bytes(sample, cp_exclusion=_JAPANESE).best()
    except Exception:  # why: a detector error must not cost the commit; guessing is optional
        return None
    return python_codec(best.encoding) if best is not None else None


def _utf8(raw: bytes) -> str | None:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return None


def decode_name(raw: bytes) -> str:
    """Decode a short text with no charset of its own (a file name): UTF-8, else cp1252."""
    text = _utf8(raw)
    if text is not None:
        return text
    try:
        return raw.decode("cp1252")
    except UnicodeDecodeError:  # the five bytes cp1252 leaves out
        return raw.decode("latin-1")


def decode_commit(fields: Sequence[bytes]) -> list[str]:
    """Decode the fields of one commit (names, message) as ``git log`` printed them.

    git re-encodes a commit that names its encoding (an ``encoding`` header) to UTF-8; one
    that does not is printed as its bytes, in whatever charset its author's system used.
    Every field that is not valid UTF-8 is read in one charset, guessed from all of them
    together (a name alone is too short to tell): charset-normalizer's guess when there
    are enough 8-bit bytes to tell charsets apart, else cp1252 (the usual undeclared
    Western charset, as browsers read it). Never U+FFFD for a byte some charset reads.
    """
    texts = [_utf8(raw) for raw in fields]
    legacy = [raw for raw, text in zip(fields, texts, strict=True) if text is None]
    if not legacy:
        return [text or "" for text in texts]
    codec = _guess(b"\n".join(legacy))
    decoded: list[str] = []
    for raw, text in zip(fields, texts, strict=True):
        if text is None and codec is not None:
            try:
                text = raw.decode(codec)
            except DECODE_ERRORS:
                text = None
        decoded.append(text if text is not None else decode_name(raw))
    return decoded
