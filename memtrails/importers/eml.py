"""Read one .eml file, or every .eml under a folder, as mail records, off the event loop."""

from __future__ import annotations

import os
from collections.abc import AsyncGenerator, Iterator, Sequence
from contextlib import aclosing
from pathlib import Path

from .._exceptions import SourceError
from .._threads import iterate_in_thread
from ..limits import Limits
from ..records import MemoryRecord, RecordError, SourceState
from ._eml_order import plan_files
from ._eml_several import holds_several, read_several
from ._first_pass import first_pass
from ._input import Input, open_regular, strip_compression
from ._mail_files import left_out, not_regular
from ._shared import Closing, as_generator, default_source, may_be_file
from .documents import DocumentReader
from .mail import MAX_MESSAGE_BYTES, MailBook, message_file, message_to_item, strip_unixfrom
from .mail.message import CutMessage, as_read

__all__ = ["eml_count", "from_eml"]

_CHUNK = 16


async def from_eml(
    path: str | os.PathLike[str] | Input,
    *,
    source: str | None = None,
    names: Sequence[str] | None = None,
    limits: Limits | None = None,
) -> AsyncGenerator[MemoryRecord | RecordError | SourceState, None]:
    """Yield one mail record (or RecordError) per .eml file, reading them in a worker thread.

    A folder is walked recursively for ``*.eml`` (any case), compressed ones too
    (``*.eml.gz``, ``.bz2``, ``.xz``: read as the message they hold), in sorted order of the
    paths relative to it, so runs are deterministic. A file that cannot be read or parsed gives a
    RecordError whose ``where`` is its path relative to the folder (its name for a single
    file), as does a folder below that cannot be listed; records carry that path in
    ``meta["path"]``. When a folder or a file could not be read (a symlink loop, no
    permission, an ``Input`` whose compressed data is cut short), a last ``SourceState``
    says the run is not ``complete``: a prune forgets nothing. A leading mbox ``From `` line
    is ignored.

    Two files holding one mail (the same Message-ID, and the same words give or take a list
    footer) give one record: the first in that order; when there were such copies, a last
    ``SourceState`` counts them (``duplicates``). A mail that reuses another's Message-ID
    for other words is kept under ``<Message-ID>#<12 hex>``; in a folder, the mail with the
    earliest Date keeps the plain Message-ID whatever the files' names, so a file added later
    does not take a stored mail's id (see ``conformance/README.md``).

    Args:
        path: one .eml file (compressed or not) or a folder of them, or an opened ``Input``
            holding one message (standard input).
        source: the records' source; defaults to the resolved path given.
        names: for a folder, the files to read (paths relative to it) instead of every
            ``*.eml``: messages saved without the ending (``01:2,``, ``1234``).
        limits: the limits records are held to: a mail far over ``max_text_units`` is cut
            before it is parsed (``meta["bytes_cut"]``), as :func:`from_mbox` does.

    Raises:
        SourceError: the path is missing, or the file or folder cannot be read.

    Returns:
        An async generator; close it (``contextlib.aclosing``) to stop early.

    Example:
        >>> async for item in from_eml("~/Mail/saved"):  # doctest: +SKIP
        ...     print(item)
    """
    units = (limits or Limits()).max_text_units
    if isinstance(path, Input):
        stream = path
        name = source if source is not None else default_source(stream.given)

        def make() -> Iterator[MemoryRecord | RecordError | SourceState]:
            return Closing(_read_stream(name, stream, units), stream)

    else:
        root = Path(path).expanduser()
        name = source if source is not None else default_source(root)

        def make() -> Iterator[MemoryRecord | RecordError | SourceState]:
            listed, unlisted, special = _list(root, name)
            if names is not None:  # what the plan left out, it says itself
                listed, unlisted = sorted((rel, root / rel) for rel in names), []
                special = []
            documents = DocumentReader()  # a worker process, started on the first attachment
            read = _read_eml(name, listed, documents, unlisted, units, special)
            return Closing(read, documents)

    # Close the thread-side iterator (and so the file) as soon as this generator is closed,
    # not whenever the inner generator happens to be garbage-collected.
    async with aclosing(as_generator(iterate_in_thread(make, chunk=_CHUNK))) as items:
        async for item in items:
            yield item


def eml_count(root: Path) -> int:
    """Return how many items :func:`from_eml` yields for a folder: a message or an error each
    (1 for a file).

    Raises:
        SourceError: the folder cannot be read.
    """
    listed, unlisted, special = _list(root, str(root))
    return len(listed) + len(unlisted) + len(special)


def _list(
    root: Path, source: str
) -> tuple[list[tuple[str, Path]], list[tuple[str, str]], list[tuple[str, str]]]:
    """Return (relative name, path) of the files to read, sorted, (relative name, why) of
    the folders below that could not be listed, and (relative name, why) of the ``*.eml``
    entries left out unopened (a FIFO, a socket, a device); raise if root is unusable."""
    try:
        if root.is_file():
            # one file that cannot be opened: the whole input fails (a FIFO put there since
            # it was looked at is refused, not waited on)
            with open_regular(root):
                pass
            return [(root.name, root)], [], []
        if not root.exists():
            raise SourceError(source, "no such file or folder")
        if not root.is_dir():
            raise SourceError(source, "not a file or a folder")
        with os.scandir(root):  # a folder below that cannot be listed is named; the root fails
            pass
    except PermissionError as exc:
        raise SourceError(source, "permission denied") from exc
    except OSError as exc:
        raise SourceError(source, f"cannot read: {exc.strerror or exc}") from exc
    found: list[tuple[str, Path]] = []
    unlisted: list[tuple[str, str]] = []
    special: list[tuple[str, str]] = []

    def not_listed(exc: OSError) -> None:
        rel = Path(exc.filename or root).relative_to(root).as_posix()
        unlisted.append((rel, f"cannot list the folder: {exc.strerror or exc}"))

    for here, _dirs, files in os.walk(root, onerror=not_listed):
        for name in files:
            path = Path(here, name)
            if not strip_compression(name).lower().endswith(".eml"):
                continue
            if may_be_file(path):
                found.append((path.relative_to(root).as_posix(), path))
            elif (why := left_out(path)) is not None:  # a FIFO: opening it would wait forever
                special.append((path.relative_to(root).as_posix(), why))
    return sorted(found), sorted(unlisted), sorted(special)


def _read_eml(
    source: str,
    files: list[tuple[str, Path]],
    documents: DocumentReader | None = None,
    unlisted: list[tuple[str, str]] | None = None,
    units: int = Limits().max_text_units,
    special: list[tuple[str, str]] | None = None,
) -> Iterator[MemoryRecord | RecordError | SourceState]:
    book = MailBook()
    for rel, why in unlisted or []:
        yield RecordError(source, rel, f"{why}; its messages were not read")
    for rel, why in special or []:  # a FIFO, a socket, a device: no message, never opened
        yield RecordError(source, rel, why)
    # A message not read may still be there (a folder not listed, a file that refused
    # reading): then the run is not complete, and a prune forgets nothing.
    unsure = bool(unlisted)
    aside: dict[str, str] = {}
    with first_pass(source, len(files)) as shown:  # shown by the progress display
        if len(files) > 1:  # threads that do not depend on the order the files are read in
            # and which files come before the mail that keeps their Message-ID
            aside = plan_files(files, source, book, shown, message_file)
        shown.done = shown.total  # over (one file: there was none); reading begins
        yield from _read_files(source, files, book, documents, units, unsure, aside)


def _read_files(
    source: str,
    files: list[tuple[str, Path]],
    book: MailBook,
    documents: DocumentReader | None,
    units: int,
    unsure: bool,
    aside: dict[str, str],
) -> Iterator[MemoryRecord | RecordError | SourceState]:
    for rel, file in files:
        try:
            raw = message_file(file)
        except OSError as exc:
            unsure = True
            why = not_regular(exc) or f"cannot read the file: {exc.strerror or exc}"
            yield RecordError(source, rel, why)
            continue
        if holds_several(raw):  # an mbox under an .eml name: a record per message
            yield from read_several(raw, source, rel, book, documents, units)
            continue
        item = message_to_item(
            strip_unixfrom(raw),
            source=source,
            where=rel,
            meta={"path": rel},
            book=book,
            documents=documents,
            max_text_units=units,
        )
        item = as_read(item, raw)  # a message over the size limit: its first bytes
        # aside: an earlier-dated mail in a file read later keeps the Message-ID
        placed = (
            book.place(item, aside=aside.get(rel) == item.id)
            if isinstance(item, MemoryRecord)
            else item
        )
        if placed is not None:
            yield placed
    if book.duplicates or unsure:
        yield SourceState(source, {}, complete=not unsure, duplicates=book.duplicates)


def _read_stream(
    source: str, stream: Input, units: int = Limits().max_text_units
) -> Iterator[MemoryRecord | RecordError | SourceState]:
    where = Path(stream.given).name if stream.given != "-" else "stdin"
    try:
        raw = stream.file.read(MAX_MESSAGE_BYTES + 1)
    except (OSError, EOFError) as exc:
        yield RecordError(source, where, f"cannot read: {exc}")
        # The message is still there, unread (compressed data cut short, a pipe that
        # failed): not complete, so a prune does not forget the record it made before.
        yield SourceState(source, {}, complete=False)
        return
    if len(raw) > MAX_MESSAGE_BYTES:  # its first bytes are read: the rest is not held
        raw = CutMessage(raw[:MAX_MESSAGE_BYTES])
    item = message_to_item(
        strip_unixfrom(raw), source=source, where=where, meta={}, max_text_units=units
    )
    yield as_read(item, raw)
