"""Recognise what a path holds and open it, from the importers the registry declares."""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import AsyncGenerator, AsyncIterator, Mapping, Sequence
from contextlib import aclosing
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from .._exceptions import SourceError
from ..limits import Limits
from ..records import Item, MemoryRecord, RecordError, Seen, SourceState
from ._input import Input, open_input, strip_compression
from ._shared import as_generator, default_source
from ._unknown import PACKED_SUFFIXES, missing_reason, unknown_content
from .contract import Opening, resumable
from .files._entries import file_id
from .files._ignore import UNREADABLE_FOLDER, kept_tree
from .mail.sniff import may_be_saved_message
from .registry import importer, importers, kinds

__all__ = ["Part", "close_parts", "detect_kind", "open_path", "plan", "sniff"]


def _expected() -> str:
    # The kinds one file can be read as (a Maildir is a folder).
    *most, last = [spec.kind for spec in importers() if spec.piped or spec.file is not None]
    return f"--kind reads it as {', '.join(most)} or {last}"


def _folder_kind(path: Path) -> str | None:
    """Return the kind of a folder whose shape names one (a Maildir, a Slack export), or None."""
    for spec in importers():
        try:
            if spec.folder is not None and spec.folder(path):
                return spec.kind
        except OSError:  # a folder it may list but not enter: the notes walk names the error
            return None
    return None


def sniff(head: bytes, name: str) -> str | None:
    """Return the kind of a file's content from its name and first bytes, or None.

    The name's ending decides first (``.jsonl``, ``.mbox``, ``.eml``, ...), then each
    importer's look at the first bytes, in the registry's order.

    Args:
        head: the first bytes of the (decompressed) content.
        name: the file name, without a compression ending.
    """
    suffix = Path(name).suffix.lower()
    specs = importers()
    for spec in specs:
        if suffix in spec.suffixes:
            return spec.kind
    for spec in specs:
        if spec.sniff is not None and head and spec.sniff(head):
            return spec.kind
    return None


def _sniff_input(stream: Input) -> str | None:
    try:
        head = stream.head()
    except (OSError, EOFError, ValueError) as exc:
        raise SourceError(stream.given, f"cannot read: {exc}") from exc
    name = strip_compression(Path(stream.given).name)
    kind = sniff(head, name)
    if kind is None and stream.damage is not None:  # damaged before its kind shows
        raise SourceError(stream.given, f"cannot read: {stream.damage}")
    first = head.split(b"\n", 1)[0]
    if kind is None and not stream.regular and b":" in first and not first.startswith(b"{"):
        return "eml"  # one message on a pipe: ``memtrails add - < message.eml``
    return kind


def _no_kind(stream: Input) -> SourceError:
    """Say that an input is of no kind: what it holds instead, and what reads it."""
    try:
        head = stream.head()
    except (OSError, EOFError, ValueError):
        head = b""
    what, kind_reads = unknown_content(head, stream.compression, Path(stream.given).name)
    then = f"; {_expected()}" if kind_reads else ""
    return SourceError(stream.given, f"not a kind memtrails reads: {what}{then}")


def detect_kind(path: Path | Input) -> str:
    """Return the kind of a path (one the registry knows), looking at its first bytes if needed.

    An opened :class:`~memtrails.importers._input.Input` (a pipe) is looked at without
    taking any byte from the importer that reads it next.

    Raises:
        SourceError: the path is missing or of no kind memtrails reads.
    """
    if isinstance(path, Input):
        kind = _sniff_input(path)
        if kind is None:
            raise _no_kind(path)
        return kind
    if not path.exists():
        raise SourceError(str(path), missing_reason(path))
    if path.is_dir():
        return _folder_kind(path) or "files"
    for spec in importers():
        if spec.file is not None and spec.file(path):
            return spec.kind
    with open_input(path) as stream:
        kind = _sniff_input(stream)
        if kind is None:
            raise _no_kind(stream)
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
    # Part of the folder could not be listed, so ``names`` may miss some of its mail: the run
    # is not complete, and a prune forgets none of the source's records.
    unlisted: bool = False
    # ``--kind`` named a kind that the folder's shape does not show: when its importer then
    # finds nothing in it, the import says so instead of reporting 0 items as a success.
    forced: bool = False

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
        kind: a kind the registry knows (``memtrails.importers.registry.kinds()``), used
            instead of detection.
        name: the source name (default: the resolved path; ``stdin`` for ``-``).

    Raises:
        SourceError: the path is missing or of no kind memtrails reads.
        ValueError: ``kind`` is not a kind the registry knows.
    """
    if kind is not None and kind not in kinds():
        raise ValueError(f"`kind` must be one of {', '.join(kinds())}, got {kind!r}")
    given = str(path)
    p = Path(given).expanduser()
    if given == "-" or (p.exists() and not p.is_dir() and not p.is_file()):
        stream = open_input(given)  # a pipe or standard input: opened once, here
        try:
            found = kind or detect_kind(stream)
            if not importer(found).piped:
                raise SourceError(
                    given, f"a pipe can hold an mbox, JSON Lines or one message, not {found}"
                )
        except BaseException:
            stream.close()
            raise
        source = name or default_source(given)
        return [Part(given, found, stream, source)]
    if kind is not None:
        _fits(p, kind, given)
    found = kind or detect_kind(p)
    source = name or default_source(p)
    if found != "files" or kind == "files" or p.is_file():
        forced = kind not in (None, "files") and p.is_dir() and _folder_kind(p) != kind
        size = _size(p) if p.is_file() else None
        return [Part(given, found, p, source, size=size, forced=forced)]
    return _plan_folder(p, given, source)


def _fits(path: Path, kind: str, given: str) -> None:
    """Raise when ``--kind`` names a kind that cannot read what the path is: said while
    planning, it is that input's error, not one that stops an import part-way."""
    if not path.exists():
        raise SourceError(given, missing_reason(path))
    spec = importer(kind)
    if spec.by_bytes and path.is_dir():  # it reads one stream of bytes
        raise SourceError(
            given,
            f"is a folder; --kind {kind} reads a file (without --kind, a folder is "
            "read file by file, each by its own kind)",
        )
    if path.is_file() and spec.folder is not None and spec.file is None and not spec.piped:
        raise SourceError(given, f"is a file; --kind {kind} reads a folder")


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
            sub_kind = _folder_kind(sub)
            if sub_kind is not None:
                parts.append(Part(f"{given}/{rel}", sub_kind, sub, default_source(sub)))
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
    unlisted = any(why.startswith(UNREADABLE_FOLDER) for _, why in left_out)
    out: list[Part] = []
    if notes or (skipped and not mails):
        out.append(Part(given, "files", root, source, claimed=frozenset(claimed), skipped=skipped))
    if mails:
        # A folder of mail alone is one source, its own name; what it left out is said by
        # the mail part. (A notes part of the same source, there only to say so, pruned
        # every message its walk did not list as a note: all of them.)
        mail_source, said = (source, skipped) if not notes else (source + "/*.eml", [])
        # The messages found, not every *.eml below: hidden and ignored ones are left out.
        out.append(
            Part(
                f"{given} (.eml)",
                "eml",
                root,
                mail_source,
                names=tuple(mails),
                skipped=said,
                unlisted=unlisted,
            )
        )
    return out + parts


def _file_kind(file: Path) -> str | None:
    """Return the kind of one file in a folder: ``files`` for a note, ``skip:why``, or None."""
    suffix = file.suffix.lower()
    name = file.name.lower()
    specs = importers()
    for spec in specs:  # a look at the file itself first: a transcript is JSON Lines too
        if spec.file is not None and spec.file(file):
            return spec.kind
    for spec in specs:
        # A .json in a folder of notes stays a note (a project's package.json): its
        # records are read when it is added on its own.
        if suffix in spec.suffixes and spec.kind != "json":
            return spec.kind
    # Named as compressed: by a format read (.gz), or by one that is not (.zst, .tgz, .7z).
    compressed = strip_compression(name) != name or suffix in PACKED_SUFFIXES
    if not compressed and not may_be_saved_message(name):
        return "files"
    try:
        with open_input(file) as stream:
            head = stream.head(4096) if stream.regular else b""
            kind = sniff(head, strip_compression(name)) if head else None
            actually_compressed = stream.compression is not None
            damage = stream.damage
            what, kind_reads = unknown_content(head, stream.compression, name)
    except (SourceError, OSError, EOFError, ValueError) as exc:
        return f"skip:cannot read it: {exc}" if compressed else "files"
    if kind is None and damage is not None:
        return f"skip:cannot read it: {damage}"
    if kind is not None:
        # A message saved under any name (``01:2,``, MH's ``1234``, ``a.msg``), compressed
        # or not (``a.eml.gz``): read as mail, as the same file given alone is.
        return kind
    if compressed or actually_compressed:
        then = "; add it alone with --kind to read it as one kind" if kind_reads else ""
        unpacked = actually_compressed or strip_compression(name) != name
        said = "compressed, and what it holds is neither mail nor JSON Lines: " * unpacked
        return f"skip:{said}{what}{then}"
    return "files"


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
    state: Any = None,
    source: str | None = None,
    limits: Limits | None = None,
    names: Sequence[str] | None = None,
    following: bool = False,
) -> AsyncGenerator[Item, None]:
    """Return the importer for ``path`` (its kind detected unless given), opened.

    ``state`` is the position the importer reported at the end of the last run; importers
    that can resume use it to read only what is new. ``limits`` bounds what importers hold
    while reading (``max_line_bytes``, ``max_depth``, ``max_file_bytes``). ``following``
    says the input is being written (a watched source; see :class:`Opening`).

    Raises:
        SourceError: no importer of ``kind``, or a pipe given to one that cannot read pipes.
    """
    kind = kind or detect_kind(path)
    spec = importer(kind)
    if isinstance(path, Input) and not spec.piped:
        raise SourceError(path.given, f"a pipe cannot hold a {kind}")
    given = str(path.given) if isinstance(path, Input) else str(path)
    opening = Opening(
        path, source or default_source(given), state, limits or Limits(), names, following
    )
    return as_generator(spec.open(opening))


def open_part(
    part: Part,
    *,
    state: Mapping[str, Any] | None = None,
    target: Input | None = None,
    limits: Limits | None = None,
    following: bool = False,
) -> AsyncIterator[Item]:
    """Return the items of one planned import: its importer's, less what another part reads.

    The result is resumable (``Memory.ingest`` gives it the position its source saved)
    unless the part is a pipe, which is always read whole.
    A folder read as a ``--kind`` its shape does not show (``part.forced``) ends in a
    :class:`SourceError` naming the kind and what the folder holds when that kind's importer
    found nothing there: an import of nothing is no success to report.

    Args:
        part: the planned import.
        state: the position to resume from (None: the one ``Memory.ingest`` finds).
        target: the part's file, already opened (to follow its progress).
        limits: how large and deep a record may be (importers apply what they can).
        following: the part is being written as it is read (see :class:`Opening`).
    """

    def read(at: Mapping[str, Any] | None) -> AsyncIterator[Item]:
        items = open_path(
            target or part.target,
            part.kind,
            state=at,
            source=part.source,
            limits=limits,
            names=part.names,
            following=following,
        )
        if part.forced:
            return _something_read(part, items)
        if not part.skipped and not part.claimed and not part.unlisted:
            return items  # the importer itself, with its extras (``raw_lines``)
        return _less_claimed(part, items)

    if isinstance(part.target, Input) and not part.target.regular:
        return read(None)
    spec = importer(part.kind)
    return resumable(part.source, read, state, prunes_incrementally=spec.prunes_incrementally)


async def _less_claimed(part: Part, items: AsyncGenerator[Item, None]) -> AsyncIterator[Item]:
    stated = False
    for where, why in part.skipped:
        yield RecordError(part.source, where, f"skipped: {why}", id=where)
    async with aclosing(items) as it:
        async for item in it:
            if part.claimed and _is_claimed(item, part.claimed):
                continue
            if part.unlisted and isinstance(item, SourceState):
                stated, item = True, replace(item, complete=False)
            yield item
    if part.unlisted and not stated:  # an importer that states nothing is taken as complete
        yield SourceState(part.source, {}, complete=False)


async def _something_read(part: Part, items: AsyncGenerator[Item, None]) -> AsyncIterator[Item]:
    """Pass a ``--kind`` folder's items on; raise, as for a path of no kind, when there were none.

    A record, an error, a file seen unchanged or records a resumed run passed over all say
    the importer found its kind there; only positions of nothing mean it found nothing.
    """
    found = False
    async with aclosing(items) as it:
        async for item in it:
            found = found or not isinstance(item, SourceState) or item.skipped > 0
            yield item
    if not found:
        assert isinstance(part.target, Path)
        holds = await asyncio.to_thread(_holdings, part.target)
        raise SourceError(
            part.label, f"--kind {part.kind} found nothing to read in this folder; {holds}"
        )


def _holdings(root: Path) -> str:
    """Say what ``add`` finds in a folder without ``--kind``, and so what to do."""
    found: Counter[str] = Counter()
    notes = False
    for part in _plan_folder(root, str(root), str(root)):
        if part.kind == "eml":
            found["eml"] += len(part.names or ())
        elif part.kind != "files":
            found[part.kind] += 1
        else:
            notes = notes or _has_notes(root, set(part.claimed))
    said = [f"{n} {kind}" for kind, n in sorted(found.items())] + ["notes"] * notes
    if not said:
        return "it holds nothing memtrails reads"
    listed = ", ".join(said[:-1]) + " and " + said[-1] if len(said) > 1 else said[0]
    return f"it holds {listed}: leave out --kind to read each file by its own kind"


def _is_claimed(item: Item, claimed: frozenset[str]) -> bool:
    """Tell whether a notes folder's item is a file another part of the folder reads."""
    if isinstance(item, RecordError):
        key = item.id or item.where
    elif isinstance(item, Seen | MemoryRecord):
        key = item.id
    else:
        return False
    return key in claimed or any(c.endswith("/") and key.startswith(c) for c in claimed)
