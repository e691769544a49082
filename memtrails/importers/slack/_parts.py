"""The parts of a Slack message beside its text: attachments and shared files."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from ._blocks import blocks_text
from ._names import Names, unescape

__all__ = ["OddValue", "attachment_text", "files_of", "json_kind", "objects"]

_MAIN_KEYS = ("title", "text")
_WORD = re.compile(r"\w+")
_MAX_PREVIEW = 4000  # characters of a file's preview kept (Slack's are a few lines)


class OddValue(Exception):
    """A value that carries a message's text is of a type that cannot be read as text.

    Importing the message without that text would lose it silently, so the message becomes
    an error naming the value instead; values that carry no text (reactions, profiles, ids)
    of an odd type are ignored.
    """


def _string(value: Any, what: str) -> str | None:
    """Return a text-bearing string value, None when null or absent, else raise OddValue."""
    if value is None or isinstance(value, str):
        return value
    raise OddValue(f"{what} must be a string, got {json_kind(value)}")


def objects(value: Any, what: str, each: str) -> list[Mapping[str, Any]]:
    """Return a text-bearing list of objects (null or absent: none), else raise OddValue.

    One object where the list belongs is read as a list of one, as exports before 2018 hold
    one ``file``: nothing else could be meant.
    """
    if value is None:
        return []
    if isinstance(value, Mapping):
        return [value]
    if not isinstance(value, list):
        raise OddValue(f"{what} must be an array of objects, got {json_kind(value)}")
    for n, entry in enumerate(value, 1):
        if not isinstance(entry, Mapping):
            raise OddValue(f"{each} {n} must be an object, got {json_kind(entry)}")
    return value


def attachment_text(reader: Names, attachment: Mapping[str, Any], context: str, number: int) -> str:
    """Return an attachment's readable text; ``context`` is the message text so far."""
    place = f"attachment {number}"
    texts = {
        key: _string(attachment.get(key), f"{place}: `{key}`")
        for key in ("pretext", "author_name", "title", "text", "fallback")
    }
    lines: list[str] = []
    for key in ("pretext", "author_name", "title", "text"):
        value = texts[key]
        if value and value.strip():
            lines.append(reader.readable(value.strip()))
    fields = objects(attachment.get("fields"), f"{place}: `fields`", f"{place}, field")
    field_lines: list[str] = []
    for n, field in enumerate(fields, 1):
        parts = [
            reader.readable(_field_text(field.get(key), f"{place}, field {n}: `{key}`"))
            for key in ("title", "value")
            if field.get(key)
        ]
        if parts:
            field_lines.append(": ".join(parts))
    if not any((texts[k] or "").strip() for k in _MAIN_KEYS):
        # Its blocks, else `fallback` (the plain-text summary): when it has no title nor text
        # of its own, and it says words its pretext, author and fields do not (a bot's
        # attachment of a pretext and fields alone: its summary says what happened).
        blocks, fallback = blocks_text(reader, attachment.get("blocks")), texts["fallback"]
        body = blocks.strip() or reader.readable((fallback or "").strip())
        if body and _says_more(body, [context, *lines, *field_lines]):
            lines.insert(1 if (texts["pretext"] or "").strip() else 0, body)
    title_link = attachment.get("title_link")
    # Slack escapes &, < and > in every string it exports, links too (``?a=1&amp;b=2``).
    link = unescape(title_link) if isinstance(title_link, str) else ""
    if link and lines and link not in context:
        lines.append(link)
    lines.extend(field_lines)
    return "\n".join(lines)


def _says_more(text: str, said: list[str]) -> bool:
    """Whether ``text`` holds a word (case aside) that none of ``said`` holds; one of no
    words (emoji alone) whether none of them holds it."""
    words = _WORD.findall(text)
    if not words:
        return not any(text in line for line in said)
    known = {w.casefold() for line in said for w in _WORD.findall(line)}
    return any(w.casefold() not in known for w in words)


def _field_text(value: Any, what: str) -> str:
    """Return an attachment field's title or value as text: integrations post numbers too."""
    if isinstance(value, str):
        return value
    if isinstance(value, int | float) and not isinstance(value, bool):
        return str(value)
    raise OddValue(f"{what} must be a string or a number, got {json_kind(value)}")


def files_of(message: Mapping[str, Any]) -> list[dict[str, Any]]:
    found = list(objects(message.get("files"), "`files`", "file"))
    if isinstance(message.get("file"), Mapping):  # exports before 2018 hold one `file`
        found.append(message["file"])
    files: list[dict[str, Any]] = []
    for n, f in enumerate(found, 1):
        if not any(
            v is not None and not (isinstance(v, str) and not v.strip()) for v in f.values()
        ):
            continue  # an empty entry ({}, or ids of null): no file anyone could name
        name = _string(f.get("name"), f"file {n}: `name`")
        title = _string(f.get("title"), f"file {n}: `title`")
        mimetype = f.get("mimetype") if isinstance(f.get("mimetype"), str) else None
        files.append(
            {"name": _file_name(f, name, title, mimetype), "title": title, "mimetype": mimetype}
        )
        # A text snippet's or post's first lines, as Slack shows them under its name; a
        # mail sent to Slack has an HTML `preview`, its words in `preview_plain_text`.
        email = f.get("mode") == "email"
        preview = f.get("preview_plain_text") or f.get("plain_text") if email else f.get("preview")
        if isinstance(preview, str) and preview.strip():
            more = f.get("has_more") if email else f.get("preview_is_truncated")
            cut = len(preview) > _MAX_PREVIEW or more is True
            files[-1]["preview"] = preview[:_MAX_PREVIEW].strip() + (" …" if cut else "")
    return files


# Files an export holds no name for, by their `mode`: removed, or past a free plan's limit.
_NAMELESS_MODES = {"tombstone": "deleted", "hidden_by_limit": "hidden by the plan's limit"}
# ... or by its `file_access`: a file of another organization's in a Slack Connect channel
# (its details are another call away, never exported), one not shared, one gone.
_FILE_ACCESS = {
    "check_file_info": "shared from another organization",
    "access_denied": "not accessible",
    "file_not_found": "deleted",
}


def _file_name(
    f: Mapping[str, Any], name: str | None, title: str | None, mimetype: str | None
) -> str:
    """Return what a shared file is called: its name or title, else what kind of file it is
    (``PNG``, ``image/png``) or what became of it (deleted); never its bare id (``F0123``),
    which tells a reader nothing."""
    for value in (name, title):
        if value and value.strip():
            return value.strip()
    mode, access = f.get("mode"), f.get("file_access")
    if isinstance(mode, str) and mode in _NAMELESS_MODES:
        return _NAMELESS_MODES[mode]
    if isinstance(access, str) and access in _FILE_ACCESS:
        return _FILE_ACCESS[access]
    pretty, filetype = f.get("pretty_type"), f.get("filetype")
    for value in (pretty, filetype.upper() if isinstance(filetype, str) else None, mimetype):
        if isinstance(value, str) and value.strip():
            return f"unnamed {value.strip()}"
    return "unnamed"


def json_kind(value: Any) -> str:
    """Name a JSON value's type as the export's JSON writes it, not as Python holds it."""
    if isinstance(value, str):
        return "a string"
    if isinstance(value, bool):
        return "true or false"
    if isinstance(value, int | float):
        return "a number"
    return "an array" if isinstance(value, list) else "an object"
