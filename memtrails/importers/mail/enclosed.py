"""Mend the frame of an enclosed mail: part headers that went missing, an encoded message."""

from __future__ import annotations

import quopri
from email.message import Message

from .charsets import to_bytes
from .headers import b64, plain_not_base64, raw_header
from .parts import cte, raw_payload

__all__ = ["headless_mail", "mended"]

# Headers a mail has and a MIME part does not: a part that holds one is a mail whose own
# part headers are missing (its headers took their place). Not Date: some generators
# (Ruby's mail, MIME::Lite) give every part one.
_MAIL_HEADERS = frozenset({"from", "sender", "subject", "message-id"})


def _names_a_mail(msg: Message) -> bool:
    return any(key.lower() in _MAIL_HEADERS for key in msg)


def headless_mail(part: Message) -> bool:
    """Tell whether a part's own headers are a mail's (``From``, ``Subject``, ``Message-ID``).

    So it is when a digest's part has no headers of its own and no blank line before the
    mail (RFC 2046 5.1.5 wants one), or when a ``message/rfc822`` part's headers run into
    the mail's. Not when the part repeats its mail's headers on purpose: the protected
    headers of a signed or encrypted mail (RFC 9788, ``protected-headers="v1"``).
    """
    if not _names_a_mail(part):
        return False
    return "protected-headers" not in (raw_header(part, "content-type") or "").lower()


def _header_lines(items: list[tuple[str, str]]) -> bytes:
    return b"".join(to_bytes(f"{name}: {value}\n") for name, value in items)


def mended(part: Message, inner: Message) -> bytes | None:
    """Return the bytes of the mail a ``message/*`` part holds, when the parser got it wrong.

    Two frames are mended: a part whose Content-Transfer-Encoding is base64 or
    quoted-printable (RFC 2046 5.2.1 forbids it; mailers do it), whose mail the parser read
    undecoded; and a part whose headers are the mail's (:func:`headless_mail`), where the
    parser took the mail's text for a mail with no headers. None: ``inner`` is the mail.
    """
    if inner.is_multipart():
        return None
    body = raw_payload(inner)
    if body is None:
        return None
    head = _header_lines([(k, str(v)) for k, v in inner.raw_items()])
    encoding = cte(part)
    data = head + b"\n" + body if head else body
    if encoding == "base64" and plain_not_base64(data):
        encoding = ""  # a mail as it is, the header a gateway kept: as the parser read it
    if encoding in ("base64", "quoted-printable"):
        data = b64(data) if encoding == "base64" else quopri.decodestring(data)
        return data.replace(b"\r\n", b"\n").lstrip(b"\n")
    if _names_a_mail(inner) or not headless_mail(part):
        return None
    # The part's headers are the mail's, less the part's own message/* Content-Type; what
    # the parser took for the headers of ``inner`` are the first lines of the mail's text
    # ("Note: tomorrow", "Subject to approval: ..."), kept as text.
    own = [
        (k, str(v))
        for k, v in part.raw_items()
        if not (k.lower() == "content-type" and str(v).strip().lower().startswith("message/"))
    ]
    return _header_lines(own) + b"\n" + head + body
