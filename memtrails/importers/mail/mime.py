"""Walk a parsed message's MIME tree, collecting its text, attachments and defects."""

from __future__ import annotations

import email.errors
import email.feedparser
import quopri
import re
from dataclasses import dataclass, field
from email.message import Message
from typing import Any

from ..documents._html import html_to_text, tidy
from .armor import unarmored
from .blobs import guess_type, lift_blobs
from .charsets import decode_bytes, python_codec, to_bytes
from .enclosed import headless_mail, mended
from .flowed import unflow
from .headers import (
    FOLD,
    addresses,
    b64,
    decode_header,
    plain_not_base64,
    raw_header,
    raw_headers,
)
from .html import enriched_to_text
from .parts import (
    charset,
    content_type,
    cte,
    disposition,
    filename,
    is_utf8,
    param,
    payload,
    payload_size,
    raw_payload,
)
from .smime import ENCRYPTED_NOTE, SMIME_TYPES, read_smime
from .tnef import read_tnef

__all__ = ["Collected", "parse", "walk"]

_MAX_DEPTH = 32  # MIME nesting deeper than this is hostile or broken; stop descending


@dataclass
class Collected:
    """What a walk of a MIME tree found: text pieces (plain ones apart), attachments, defects.

    ``hint``: the mail's charset, for raw 8-bit bytes in its parts' file names and for its
    text parts that declare none.
    """

    hint: str | None = None
    plain: list[str] = field(default_factory=list)
    texts: list[str] = field(default_factory=list)  # every text piece, in order
    attachments: list[dict[str, Any]] = field(default_factory=list)
    defects: set[str] = field(default_factory=set)
    # files lifted out of text (uuencoded), with their bytes: read as attachments are
    files: list[tuple[dict[str, Any], bytes]] = field(default_factory=list)

    def add_text(self, text: str, *, is_plain: bool) -> None:
        if text.strip():
            self.texts.append(text)
            if is_plain:
                self.plain.append(text)

    def merge(self, other: Collected, *, text: bool = True) -> None:
        if text:
            self.plain.extend(other.plain)
            self.texts.extend(other.texts)
        self.attachments.extend(other.attachments)
        self.files.extend(other.files)
        self.defects |= other.defects


def walk(part: Message, out: Collected, depth: int, *, framed: bool = False) -> None:
    """Collect the text, attachments and defects of a part and its children into ``out``.

    ``framed``: the part is an enclosed mail already shown with its headers.
    """
    if depth > _MAX_DEPTH:
        out.defects.add("TooDeeplyNestedDefect")
        return
    out.defects.update(type(d).__name__ for d in getattr(part, "defects", ()))
    ctype = content_type(part)
    maintype, subtype = ctype.split("/", 1)
    if part.is_multipart():
        children = [c for c in part.get_payload() if isinstance(c, Message)]
        if ctype == "message/rfc822" or (maintype == "message" and subtype in ("global", "news")):
            for inner in children[:1]:
                fixed = mended(part, inner)  # an encoded mail, or part headers gone missing
                _nested(inner if fixed is None else parse(fixed), out, depth)
            return
        if (
            maintype == "message"
            and subtype in _REPORTS
            and (subtype.startswith("global-") or cte(part) in ("base64", "quoted-printable"))
        ):
            _report(part, children, out)  # the parser's blocks are wrong: read them again
            return
        if maintype == "message":  # other header blocks, each with the text after it
            blocks = []
            for child in children:
                # message/partial's first part is a mail's headers and the start of its text
                sub = Collected(hint=out.hint)
                walk(child, sub, depth + 1, framed=True)
                head = "\n".join(f"{k}: {decode_header(v)}" for k, v in child.raw_items())
                blocks.append("\n\n".join(b for b in (head, *sub.texts) if b))
                out.merge(sub, text=False)
            out.add_text("\n\n".join(b for b in blocks if b), is_plain=False)
            return
        if subtype == "alternative":
            _alternative(children, out, depth)
            return
        for child in children:
            walk(child, out, depth + 1)
        return
    if maintype == "message" and subtype in _REPORTS:
        _report(part, [], out)
        return
    if (
        not framed
        and depth > 0
        and ctype == "text/plain"
        and disposition(part) != "attachment"
        and headless_mail(part)
    ):
        _nested(part, out, depth)  # a mail whose part headers went missing
        return
    _leaf(part, ctype, out, depth)


# Reports made of header blocks (RFC 3464 bounces, RFC 6533 their UTF-8 form, read receipts,
# abuse reports): who could not be reached and why is their point.
_REPORTS = frozenset(
    {
        "delivery-status",
        "global-delivery-status",
        "disposition-notification",
        "global-disposition-notification",
        "feedback-report",
    }
)
_REPORT_CHARS = 20_000


def _report(part: Message, blocks: list[Message], out: Collected) -> None:
    """Add a report's header blocks as text: as the parser split them (``blocks``), or its
    payload whole; decoded from base64 or quoted-printable, which the parser leaves as
    they are (it split the encoded lines into blocks of no headers), and with each block's
    lines kept (the parser reads a report it does not know as one mail: one block's headers
    and the rest as its body)."""
    if blocks:
        data = b"\n\n".join(
            b"".join(to_bytes(f"{k}: {v}\n") for k, v in c.raw_items())
            + b"\n"
            + (raw_payload(c) or b"")
            for c in blocks
        )
    else:
        data = raw_payload(part) or b""
    encoding = cte(part)
    if encoding == "base64":
        data = data if plain_not_base64(data) else b64(data)
    elif encoding == "quoted-printable":
        data = quopri.decodestring(data)
    text = decode_bytes(data[: 4 * _REPORT_CHARS], "utf-8").replace("\r\n", "\n")
    out.add_text(re.sub(r"\n{3,}", "\n\n", text)[:_REPORT_CHARS].strip(), is_plain=False)


def _alternative(children: list[Message], out: Collected, depth: int) -> None:
    """Keep the text/plain alternative if there is one, else the richest one that has text."""
    subs = []
    for child in children:
        sub = Collected(hint=out.hint)
        walk(child, sub, depth + 1)
        subs.append(sub)
    chosen = next((s for s in subs if s.plain), None)
    if chosen is None:
        chosen = next((s for s in reversed(subs) if s.texts), None)
    for sub in subs:
        out.merge(sub, text=sub is chosen)


# text/* that are data files mail clients show as attachments; other text/* subtypes, even
# unknown ones, are read as plain text (RFC 2046 4.1.4).
_DATA_TEXT = {
    "calendar",
    "x-vcalendar",
    "vcard",
    "x-vcard",
    "directory",
    "rtf",
    "csv",
    "x-csv",
    "comma-separated-values",
    "tab-separated-values",
}


_CONTROL = bytes(b for b in range(32) if b not in (9, 10, 12, 13))


def _binary(data: bytes) -> bool:
    """Tell whether decoded bytes are not text: a NUL, or many control bytes, near the start."""
    head = data[:4096]
    if not head:
        return False
    if b"\x00" in head:
        return True
    control = len(head) - len(head.translate(None, _CONTROL))
    return control * 10 > len(head)


_TNEF = {"application/ms-tnef", "application/vnd.ms-tnef"}
_WIDE_BOMS = (
    (b"\xff\xfe\x00\x00", "utf-32"),
    (b"\x00\x00\xfe\xff", "utf-32"),
    (b"\xff\xfe", "utf-16"),
    (b"\xfe\xff", "utf-16"),
)


def _wide(data: bytes, declared: str | None) -> str | None:
    """Return the codec of a UTF-16 or UTF-32 body (declared, or by its byte order mark),
    whose NULs are no sign of binary data; None for any other."""
    codec = python_codec(declared) or ""
    if codec.startswith(("utf-16", "utf-32")):
        return codec
    return next((name for bom, name in _WIDE_BOMS if data.startswith(bom)), None)


def _leaf(part: Message, ctype: str, out: Collected, depth: int) -> None:
    maintype, subtype = ctype.split("/", 1)
    if maintype == "multipart":
        # Declared multipart, but the parser found no usable boundary.
        out.defects.add("MissingBoundaryDefect")
        if _recover_multipart(part, out, depth):
            return
        maintype, subtype, ctype = "text", "plain", "text/plain"
    name = filename(part, out.hint or charset(part))
    how = disposition(part)
    is_attachment = (
        how == "attachment"
        # a named text part is a file, unless it is the whole message (a mailer that names
        # the body, with no Content-Disposition): then it is the text
        or (
            maintype == "text"
            and name is not None
            and how != "inline"
            and (how, depth) != (None, 0)
        )
        or maintype not in ("text", "message")
        or (maintype == "text" and subtype in _DATA_TEXT)
    )
    if is_attachment:
        entry: dict[str, Any] = {"name": name, "type": ctype, "size": payload_size(part)}
        out.attachments.append(entry)
        if ctype in _TNEF or (name or "").lower() == "winmail.dat":
            _unwrap_tnef(payload(part), entry, out)
        elif ctype in SMIME_TYPES or (name or "").lower().endswith(".p7m"):
            _unwrap_smime(payload(part), entry, out, depth)
        return
    data = payload(part)
    if maintype == "message":
        if subtype in ("rfc822", "global", "news") and data.strip():
            _nested(parse(data.replace(b"\r\n", b"\n")), out, depth)
        else:
            out.add_text(decode_bytes(data, charset(part)), is_plain=False)
        return
    declared = charset(part)
    wide = _wide(data, declared)
    if wide is not None:  # UTF-16 or UTF-32 text (by its charset or byte order mark)
        declared = wide
    elif cte(part) == "base64" and _binary(data):
        # Base64 that does not decode to text (a mislabelled file, or damage): name it.
        out.attachments.append({"name": name, "type": ctype, "size": len(data)})
        out.defects.add("UndecodableBase64")
        return
    if python_codec(declared) in (None, "ascii") and out.hint and not is_utf8(data):
        # 8-bit text that declares no charset (or us-ascii, or a label no codec has) is in
        # the mail's (guessed from the whole mail, whose headers and other parts say more
        # than a short text alone)
        declared = out.hint
    text = decode_bytes(data, declared)
    if subtype == "html":
        out.add_text(html_to_text(text), is_plain=False)
        return
    if subtype in ("enriched", "richtext"):  # RFC 1896 / RFC 1341 markup: <bold>, <nl>
        out.add_text(tidy(enriched_to_text(text, rich=subtype == "richtext")), is_plain=True)
        return
    text, lifted = lift_blobs(text.replace("\r\n", "\n"), out.files)
    if lifted:  # uuencoded files, or base64 that a broken boundary left in the text
        out.attachments.extend(lifted)
        out.defects.add("EncodedAttachmentInText")
    if subtype == "plain" and (param(part, "format") or "").lower() == "flowed":
        # lines a mailer wrapped (RFC 3676), cut inside a word where it says delsp=yes
        text = unflow(text, delsp=(param(part, "delsp") or "").lower() == "yes")
    out.add_text(tidy(unarmored(text)), is_plain=subtype == "plain")


def _unwrap_tnef(data: bytes, entry: dict[str, Any], out: Collected) -> None:
    """Read Outlook's TNEF wrapping (winmail.dat): its body is the mail's text where the
    mail has none of its own (else it is the same text again), its compressed RTF body a
    file ``NAME (body).rtf`` read as a document is; each file inside becomes an attachment
    of the mail (``in``: the wrapping's name), read as one attached is. Damage is said in
    the wrapping's entry; what came before it is kept."""
    got = read_tnef(data)
    shown = entry.get("name") or "winmail.dat"
    files = [(f.name, f.mime, f.data) for f in got.files]
    if got.plain.strip():
        if not out.texts:
            out.add_text(tidy(got.plain.replace("\r\n", "\n")), is_plain=True)
    elif got.html:
        if not out.texts:
            out.add_text(html_to_text(decode_bytes(got.html, None)), is_plain=False)
    elif got.rtf and not out.texts:
        files.insert(0, (f"{shown} (body).rtf", "application/rtf", got.rtf))
    for name, mime, content in files:
        inner = {"name": name, "type": mime or guess_type(name), "size": len(content)}
        inner["in"] = shown
        out.attachments.append(inner)
        out.files.append((inner, content))
    if got.error:
        entry["error"] = f"Outlook's TNEF wrapping is {got.error}; what came before is read"


def _unwrap_smime(data: bytes, entry: dict[str, Any], out: Collected, depth: int) -> None:
    """Read an S/MIME part: a message signed inside it (opaque signing) is the mail's text
    and attachments, the signature no file of its own; an encrypted one is a note that
    says so, where its text would be."""
    got = read_smime(data)
    if got.content is not None and got.content.strip():
        out.attachments.remove(entry)
        walk(parse(got.content.replace(b"\r\n", b"\n")), out, depth + 1)
    elif got.kind == "encrypted":
        entry["encrypted"] = True
        out.add_text(ENCRYPTED_NOTE, is_plain=False)
    elif got.kind == "damaged":
        entry["error"] = "S/MIME data that cannot be read (damaged or cut short)"


_BOUNDARY_PARAM = re.compile(r"""boundary\s*=\s*(?:"([^"]+)"|([^\s;"]+))""", re.IGNORECASE)
_DASH_LINE = re.compile(rb"^--([^\s]{1,200}?)(--)?[ \t]*$", re.MULTILINE)


def _recover_multipart(part: Message, out: Collected, depth: int) -> bool:
    """Split a multipart whose boundary the parser could not use, if one can be found.

    The boundary is taken from the raw Content-Type header if present, else from the first
    ``--token`` line in the body that occurs at least twice.
    """
    body = raw_payload(part)
    if body is None:
        return False
    boundary: bytes | None = None
    m = _BOUNDARY_PARAM.search(FOLD.sub("", raw_header(part, "content-type") or ""))
    if m:
        boundary = to_bytes(m.group(1) or m.group(2))
    if boundary is None or body.count(b"--" + boundary) == 0:
        lines = [d.group(1) for d in _DASH_LINE.finditer(body)]
        boundary = next((b for b in lines if lines.count(b) >= 2), None)
    if not boundary:
        return False
    delimiter = re.compile(rb"^--" + re.escape(boundary) + rb"(--)?[ \t]*\r?$", re.MULTILINE)
    marks = list(delimiter.finditer(body))
    if not marks:
        return False
    out.defects.add("BoundaryRecovered")
    for start, end in zip(marks, [*marks[1:], None], strict=True):
        if start.group(1):  # the closing delimiter: what follows is the epilogue
            break
        chunk = body[start.end() : end.start() if end else len(body)]
        chunk = chunk[1:] if chunk.startswith(b"\n") else chunk
        if chunk.strip():
            walk(parse(chunk), out, depth + 1)
    return True


_FORWARD_HEADERS = ("From", "Date", "Subject", "To", "Cc")


def _nested(inner: Message, out: Collected, depth: int) -> None:
    """Append an enclosed message: its main headers, then its text, like a forward."""
    hint = charset(inner) or out.hint
    sub = Collected(hint=hint)
    walk(inner, sub, depth + 1, framed=True)
    lines = ["---------- Forwarded message ----------"]
    for name in _FORWARD_HEADERS:
        values = raw_headers(inner, name)
        if not values:
            continue
        if name in ("From", "To", "Cc"):
            shown = ", ".join(addresses(values, hint))
        else:
            shown = decode_header(values[0], hint)
        if shown:
            lines.append(f"{name}: {shown}")
    body = "\n\n".join(sub.texts)
    text = "\n".join(lines) + ("\n\n" + body if body else "")
    out.texts.append(text)
    out.plain.append(text)
    out.merge(sub, text=False)


def parse(data: bytes) -> Message:
    """Parse a message like ``email.message_from_bytes`` (compat32), in 64 KiB pieces.

    message_from_bytes wraps the whole text in a StringIO, whose buffer takes 4 bytes per
    character: 4x the message's size, on top of the parse itself.
    """
    parser = email.feedparser.BytesFeedParser()
    view = memoryview(data)
    for at in range(0, len(data), 1 << 16):
        parser.feed(bytes(view[at : at + (1 << 16)]))
    msg = parser.close()
    if any(
        isinstance(d, email.errors.CloseBoundaryNotFoundDefect)
        for part in msg.walk()
        for d in part.defects
    ):
        _mend_closes(msg, (), 0)
    return msg


def _mend_closes(part: Message, bounds: tuple[str, ...], depth: int) -> None:
    """Cut a close delimiter written wrong (``--B`` with another ending than ``--``, or cut
    short), and the epilogue after it, off the last part of a multipart the parser found
    unclosed: else that part's text ends with the line (and the epilogue), or its base64
    decodes them as bytes of the file.

    ``bounds``: the boundaries of the unclosed multiparts this part ends (itself, or as
    their last part): what the parser could not see closed spills into their last leaf.
    """
    if depth > _MAX_DEPTH:
        return
    if part.is_multipart():
        children = [c for c in part.get_payload() if isinstance(c, Message)]
        unclosed = any(
            isinstance(d, email.errors.CloseBoundaryNotFoundDefect) for d in part.defects
        )
        boundary = part.get_boundary()
        inner = (*bounds, boundary) if unclosed and boundary else ()
        for n, child in enumerate(children):
            _mend_closes(child, inner if n == len(children) - 1 else (), depth + 1)
        return
    value = part.get_payload()
    if not bounds or not isinstance(value, str):
        return
    alternatives = "|".join(re.escape(b) for b in bounds)
    found = re.search(rf"(?m)^--(?:{alternatives})", value)
    if found is not None:
        end = found.start()
    else:  # a delimiter cut short: the last line, a start of one (6 characters or more)
        kept = value.rstrip()
        end = kept.rfind("\n") + 1
        last = kept[end:]
        if not last.startswith("--") or not any(
            b.startswith(last[2:]) and len(last) - 2 >= min(len(b), 6) for b in bounds
        ):
            return
    part.set_payload(value[:end].rstrip("\r\n") + "\n")
