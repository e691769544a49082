"""Shape what kreuzberg reads from an Outlook ``.msg`` file as a mail: its fields, its body,
and the text of its attachments (runs inside the worker process: standard library only)."""

from __future__ import annotations

import email.utils
import re
from typing import Any

__all__ = ["ATTACHMENT_HEADING", "mail_of"]

#: Opens each attachment's text, as in a mail's record (``memtrails.items.ATTACHMENT_HEADING``:
#: a test holds the two equal), so a search says which attachment a passage lies in.
ATTACHMENT_HEADING = "\n[attachment: "
# kreuzberg 4.10 puts the headers it read above the body: "Subject: ...", "From: ...",
# "To: ...", "Cc: ...", "Date: ...", then a blank line. The record keeps them as fields.
_HEADER_LINE = re.compile(r"(?:Subject|From|To|Cc|Bcc|Date): .*")
_CONTROLS = re.compile(r"[\x00-\x1f\x7f]+")
# kreuzberg writes each address as "Name" <address>; an Exchange one holds parentheses and
# slashes (</O=ORG/OU=EXCHANGE ADMINISTRATIVE GROUP (FYDIBOHF23SPDLT)/CN=...>) that the
# standard library's parser reads as a comment.
_NAMED = re.compile(r'"?([^"<>]*)"?\s*<([^<>]*)>')
# An S/MIME signed mail keeps its whole MIME form as an attachment: the body again, and a
# signature in base64.
_SIGNED = re.compile(r"(?im)^content-type:\s*multipart/signed")


def _address(value: Any) -> str | None:
    """``"Name" <addr>`` as a mail record writes it (``Name <addr>``); an Exchange address
    (``/O=ORG/OU=.../CN=NAME``), which is no mail address, gives the name alone."""
    if not isinstance(value, str) or not value.strip():
        return None
    found = _NAMED.fullmatch(value.strip())
    name, addr = found.groups() if found else email.utils.parseaddr(value)
    name = name.strip().strip("'\"").strip()
    if not addr or "@" not in addr or addr.startswith("/"):
        return name or value.strip()
    return f"{name} <{addr}>" if name and name != addr else addr


def _body(content: str) -> str:
    lines = content.split("\n")
    n = 0
    while n < len(lines) and _HEADER_LINE.fullmatch(lines[n].rstrip("\r")):
        n += 1
    if n and (n == len(lines) or not lines[n].strip()):
        lines = lines[n:]
    return "\n".join(lines).strip()


def mail_of(
    content: str, meta: dict[str, Any], children: list[dict[str, Any]] | None
) -> tuple[str, dict[str, Any]]:
    """Return the mail's text (its body, then each attachment's text under a line
    ``[attachment: NAME]``) and its fields: ``subject``, ``from``, ``to``, ``cc``,
    ``message_id`` and ``attachments`` (``name``, ``type``, ``chars``), where it has them."""
    fields: dict[str, Any] = {}
    subject = meta.get("subject")
    if isinstance(subject, str) and subject.strip():
        fields["subject"] = subject.strip()
    sender = _address(meta.get("from_email")) or _address(meta.get("from_name"))
    if sender:
        fields["from"] = sender
    for key, name in (("to_emails", "to"), ("cc_emails", "cc")):
        found = list(dict.fromkeys(a for a in map(_address, meta.get(key) or []) if a))
        if found:
            fields[name] = found
    message_id = meta.get("message_id")
    if isinstance(message_id, str) and message_id.strip():
        fields["message_id"] = message_id.strip()
    sections = [_body(content)]
    attachments: list[dict[str, Any]] = []
    read: set[str] = set()
    for child in children or []:
        name = _CONTROLS.sub(" ", str(child.get("path") or "attachment")).strip()
        entry: dict[str, Any] = {"name": name}
        if isinstance(child.get("mime_type"), str):
            entry["type"] = child["mime_type"]
        result = child.get("result")
        text = str(getattr(result, "content", "") or "").replace("\r\n", "\n").strip()
        if _SIGNED.search(text[:2000]):
            entry["type"] = "multipart/signed"
            entry["error"] = "the signed form of this mail (its body and signature): not read again"
            text = ""
        else:
            entry["chars"] = len(text)
        if text:
            sections.append(f"{ATTACHMENT_HEADING}{name}]\n\n{text}")
        attachments.append(entry)
        read.add(name)
    # Attachments kreuzberg named but did not read (an attached message, a picture).
    for name in meta.get("attachments") or []:
        if isinstance(name, str) and name not in read:
            attachments.append({"name": _CONTROLS.sub(" ", name).strip()})
    if attachments:
        fields["attachments"] = attachments
    return "\n\n".join(s for s in sections if s), fields
