"""Recognise what a path holds (mbox, mail, Maildir, Slack export, JSON Lines, notes) and open it."""

from __future__ import annotations

import re
import zipfile
from collections.abc import AsyncGenerator, Mapping, Sequence
from contextlib import aclosing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .._exceptions import SourceError
from ..limits import Limits
from ..records import Item, MemoryRecord, RecordError, Seen
from ._input import Input, open_input, strip_compression
from ._shared import as_generator, default_source
from .files._entries import file_id
from .files._ignore import kept_tree

__all__ = ["KINDS", "Part", "close_parts", "detect_kind", "open_path", "plan"]

#: The kinds ``memtrails add --kind`` accepts.
KINDS = ("jsonl", "mbox", "eml", "maildir", "slack", "files")

_JSONL = {".jsonl", ".ndjson", ".jsonlines"}
_MBOX = {".mbox", ".mbx"}
_BOM = b"\xef\xbb\xbf"
_EXPECTED = (
    "expected .jsonl, an mbox file, .eml, a Maildir, a Slack export (folder or .zip), or a "
    "folder of notes (compressed .gz/.bz2/.xz mbox and JSON Lines too); --kind says which"
)


def _is_slack_folder(path: Path) -> bool:
    try:
        return (path / "users.json").is_file() or (path / "channels.json").is_file()
    except OSError:  # a folder it may list but not enter: the notes walk names the error
        return False


def _is_slack_zip(path: Path) -> bool:
    try:
        with zipfile.ZipFile(path) as z:
            return any(Path(n).name in ("users.json", "channels.json") for n in z.namelist())
    except (zipfile.BadZipFile, OSError):
        # A damaged or truncated .zip: the Slack importer says what is wrong with it, which
        # "not a kind memtrails reads" would not.
        return True


def _is_maildir(path: Path) -> bool:
    try:
        return (path / "cur").is_dir() or (path / "new").is_dir()
    except OSError:
        return False


def sniff(head: bytes, name: str) -> str | None:
    """Return the kind of a file's content from its name and first bytes, or None.

    Args:
        head: the first bytes of the (decompressed) content.
        name: the file name, without a compression ending.
    """
    from .mbox import is_separator

    suffix = Path(name).suffix.lower()
    if suffix in _JSONL:
        return "jsonl"
    if suffix in _MBOX:
        return "mbox"
    if suffix == ".eml":
        return "eml"
    text = head.removeprefix(_BOM)
    first = text.split(b"\n", 1)[0] + b"\n"
    if first.startswith(b"From ") and is_separator(first):
        return "mbox"
    if text.lstrip().startswith(b"{"):
        return "jsonl"
    return None


def _sniff_input(stream: Input) -> str | None:
    try:
        head = stream.head()
    except (OSError, EOFError, ValueError) as exc:
        raise SourceError(stream.given, f"cannot read: {exc}") from exc
    name = strip_compression(Path(stream.given).name)
    kind = sniff(head, name)
    first = head.split(b"\n", 1)[0]
    if kind is None and not stream.regular and b":" in first and not first.startswith(b"{"):
        return "eml"  # one message on a pipe: ``memtrails add - < message.eml``
    return kind


def detect_kind(path: Path | Input) -> str:
    """Return the kind of a path (one of :data:`KINDS`), looking at its first bytes if needed.

    An opened :class:`~memtrails.importers._input.Input` (a pipe) is looked at without
    taking any byte from the importer that reads it next.

    Raises:
        SourceError: the path is missing or of no kind memtrails reads.
    """
    if isinstance(path, Input):
        kind = _sniff_input(path)
        if kind is None:
            raise SourceError(path.given, f"not a kind memtrails reads: {_EXPECTED}")
        return kind
    if not path.exists():
        raise SourceError(str(path), "no such file or folder")
    if path.is_dir():
        if _is_slack_folder(path):
            return "slack"
        if _is_maildir(path):
            return "maildir"
        return "files"
    if path.suffix.lower() == ".zip" and _is_slack_zip(path):
        return "slack"
    if path.suffix.lower() == ".eml":
        return "eml"
    with open_input(path) as stream:
        kind = _sniff_input(stream)
    if kind is None:
        raise SourceError(str(path), f"not a kind memtrails reads: {_EXPECTED}")
    return kind


@dataclass
class Part:
    """One import that ``memtrails add PATH`` runs: an input, its kind and its source name.

    A mixed folder gives several parts (its notes, its mail, each archive in it); a notes
    part then leaves out (``claimed``) the files and folders another part reads.
    """

    label: str
    kind: str
    target: Path | Input
    source: str
    size: int | None = None
    claimed: frozenset[str] = frozenset()
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (where, why)
    opened: Input | None = None  # the file being read, once its import started
    names: tuple[str, ...] | None = None  # the mail files of a folder, when not all *.eml

    def position(self) -> int:
        """Return the bytes of this part's file read so far (0 before its import starts)."""
        return self.opened.position() if self.opened is not None else 0


def _size(path: Path) -> int | None:
    try:
        return path.stat().st_size
    except OSError:
        return None


def close_parts(parts: list[Part]) -> None:
    """Close the inputs that planning opened (a pipe, standard input), read or not."""
    for part in parts:
        if isinstance(part.target, Input):
            part.target.close()


def plan(path: Path | str, *, kind: str | None = None, name: str | None = None) -> list[Part]:
    """Return the imports a path needs: one for a file or a folder of one kind, several for a mixed folder.

    ``-`` is standard input; a pipe (``<(zcat a.mbox.gz)``) is opened here, once, and its
    kind read from its first bytes without taking them from the importer.

    Args:
        path: the input.
        kind: one of :data:`KINDS` to use instead of detection.
        name: the source name (default: the resolved path; ``stdin`` for ``-``).

    Raises:
        SourceError: the path is missing or of no kind memtrails reads.
        ValueError: ``kind`` is not one of :data:`KINDS`.
    """
    if kind is not None and kind not in KINDS:
        raise ValueError(f"`kind` must be one of {', '.join(KINDS)}, got {kind!r}")
    given = str(path)
    p = Path(given).expanduser()
    if given == "-" or (p.exists() and not p.is_dir() and not p.is_file()):
        stream = open_input(given)  # a pipe or standard input: opened once, here
        try:
            found = kind or detect_kind(stream)
            if found not in ("mbox", "jsonl", "eml"):
                raise SourceError(
                    given, f"a pipe can hold an mbox, JSON Lines or one message, not {found}"
                )
        except BaseException:
            stream.close()
            raise
        source = name or default_source(given)
        return [Part(given, found, stream, source)]
    found = kind or detect_kind(p)
    source = name or default_source(p)
    if found != "files" or kind == "files":
        return [Part(given, found, p, source, size=_size(p) if p.is_file() else None)]
    return _plan_folder(p, given, source)


def _plan_folder(root: Path, given: str, source: str) -> list[Part]:
    """Split a folder by kind: its notes, its .eml mail, each archive and Maildir in it."""
    parts: list[Part] = []
    claimed: set[str] = set()
    mails: list[str] = []
    skipped: list[tuple[str, str]] = []
    left_out: list[tuple[str, str]] = []  # links, FIFOs, memory folders, unreadable folders
    for here, rel_dir, dirs, files in kept_tree(root, left_out):
        keep = []
        for d in dirs:
            sub = here / d
            rel = f"{rel_dir}/{d}" if rel_dir else d
            if _is_maildir(sub):
                parts.append(Part(f"{given}/{rel}", "maildir", sub, default_source(sub)))
                claimed.add(rel + "/")
            elif _is_slack_folder(sub):
                parts.append(Part(f"{given}/{rel}", "slack", sub, default_source(sub)))
                claimed.add(rel + "/")
            else:
                keep.append(d)
        dirs[:] = keep
        for f in files:
            file = here / f
            rel = f"{rel_dir}/{f}" if rel_dir else f
            what = _file_kind(file)
            if what in ("files", None):
                continue
            claimed.add(file_id(rel))
            if what == "eml":
                mails.append(rel)
            elif what.startswith("skip:"):
                skipped.append((rel, what[len("skip:") :]))
            else:
                parts.append(Part(f"{given}/{rel}", what, file, default_source(file), _size(file)))
    notes = _has_notes(root, claimed)
    if not parts and not mails and not skipped:  # one kind: the notes walk says what it left out
        return [Part(given, "files", root, source)]
    # Said once, by the notes part (its walk's own word on them is left out as claimed).
    skipped += [(file_id(where), why) for where, why in left_out]
    claimed.update(file_id(where) for where, _ in left_out)
    out: list[Part] = []
    if notes or skipped:
        out.append(Part(given, "files", root, source, claimed=frozenset(claimed), skipped=skipped))
    if mails:
        mail_source = source if not notes else source + "/*.eml"
        # The messages found, not every *.eml below: hidden and ignored ones are left out.
        out.append(Part(f"{given} (.eml)", "eml", root, mail_source, names=tuple(mails)))
    return out + parts


def _file_kind(file: Path) -> str | None:
    """Return the kind of one file in a folder: ``files`` for a note, ``skip:why``, or None."""
    suffix = file.suffix.lower()
    name = file.name.lower()
    if suffix == ".eml":
        return "eml"
    if suffix in _JSONL:
        return "jsonl"
    if suffix in _MBOX:
        return "mbox"
    if suffix == ".zip" and _is_slack_zip(file):
        return "slack"
    compressed = strip_compression(name) != name
    if not compressed and suffix not in ("", ".txt"):
        return "files"
    try:
        with open_input(file) as stream:
            head = stream.head(4096) if stream.regular else b""
            kind = sniff(head, strip_compression(name)) if head else None
            actually_compressed = stream.compression is not None
    except (SourceError, OSError, EOFError, ValueError) as exc:
        return f"skip:cannot read it: {exc}" if compressed else "files"
    if kind in ("mbox", "jsonl"):
        return kind
    if kind is None and not compressed and suffix == "" and _looks_like_message(head):
        return "eml"  # a message saved without an ending (``01:2,``, MH's ``1234``)
    if compressed or actually_compressed:
        return "skip:compressed, and what it holds is neither an mbox nor JSON Lines"
    return "files"


_HEADER = re.compile(rb"^([A-Za-z][A-Za-z0-9-]*):[ \t]", re.MULTILINE)
_MAIL_HEADERS = {b"from", b"date", b"subject", b"message-id", b"to", b"received", b"return-path"}


def _looks_like_message(head: bytes) -> bool:
    """Tell whether a file starts with a mail header block (three or more known headers)."""
    block = head.replace(b"\r\n", b"\n").split(b"\n\n", 1)[0]
    if not _HEADER.match(block):
        return False
    names = {m.group(1).lower() for m in _HEADER.finditer(block)}
    return len(names & _MAIL_HEADERS) >= 3


def _has_notes(root: Path, claimed: set[str]) -> bool:
    for _, rel_dir, dirs, files in kept_tree(root):
        prefix = f"{rel_dir}/" if rel_dir else ""
        dirs[:] = [d for d in dirs if f"{prefix}{d}/" not in claimed]
        if any(prefix + f not in claimed for f in files):
            return True
    return False


def open_path(
    path: Path | Input,
    kind: str | None = None,
    *,
    state: Mapping[str, Any] | None = None,
    source: str | None = None,
    limits: Limits | None = None,
    names: Sequence[str] | None = None,
) -> AsyncGenerator[Item, None]:
    """Return the importer for ``path`` (its kind detected unless given).

    ``state`` is the position the importer reported at the end of the last run; importers
    that can resume use it to read only what is new. ``limits`` bounds what the JSON Lines
    reader holds (``max_line_bytes``, ``max_depth``).
    """
    kind = kind or detect_kind(path)
    if kind == "jsonl":
        from .jsonl import from_jsonl

        return as_generator(from_jsonl(path, state=state, source=source, limits=limits))
    if kind == "mbox":
        from .mbox import from_mbox

        return as_generator(from_mbox(path, state=state, source=source))
    if kind == "eml":
        from .eml import from_eml

        return as_generator(
            from_eml(path, source=source, names=names)
        )  # read in full: dedup keeps it cheap
    if isinstance(path, Input):
        raise SourceError(path.given, f"a pipe cannot hold a {kind}")
    if kind == "maildir":
        from .maildir import from_maildir

        return as_generator(from_maildir(path, state=state, source=source))
    if kind == "slack":
        from .slack import from_slack_export

        return as_generator(from_slack_export(path, state=state, source=source))
    if kind == "files":
        from .files import from_files

        return as_generator(from_files(path, state=state, source=source))
    raise ValueError(f"unknown source kind {kind!r}")


async def open_part(
    part: Part,
    *,
    state: Mapping[str, Any] | None = None,
    target: Input | None = None,
    limits: Limits | None = None,
) -> AsyncGenerator[Item, None]:
    """Yield the items of one planned import: its importer's, less what another part reads.

    Args:
        part: the planned import.
        state: the position its source reported at the end of the last run.
        target: the part's file, already opened (to follow its progress).
        limits: how large and deep a record may be (the JSON Lines reader applies them).
    """
    for where, why in part.skipped:
        yield RecordError(part.source, where, f"skipped: {why}", id=where)
    items = open_path(
        target or part.target,
        part.kind,
        state=state,
        source=part.source,
        limits=limits,
        names=part.names,
    )
    async with aclosing(items) as it:
        async for item in it:
            if part.claimed and _is_claimed(item, part.claimed):
                continue
            yield item


def _is_claimed(item: Item, claimed: frozenset[str]) -> bool:
    """Tell whether a notes folder's item is a file another part of the folder reads."""
    if isinstance(item, RecordError):
        key = item.id or item.where
    elif isinstance(item, Seen | MemoryRecord):
        key = item.id
    else:
        return False
    return key in claimed or any(c.endswith("/") and key.startswith(c) for c in claimed)
