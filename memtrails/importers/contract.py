"""The importer contract: what every kind of input declares once, and the resumable stream it opens."""

from __future__ import annotations

import functools
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import Any, ParamSpec, Protocol, TypedDict, cast, runtime_checkable

from ..limits import Limits
from ..records import Item

P = ParamSpec("P")

__all__ = [
    "FilesState",
    "GitState",
    "Importer",
    "ImporterStream",
    "JsonlState",
    "MaildirState",
    "MboxState",
    "Opening",
    "Resumable",
    "SlackState",
    "TranscriptsState",
    "resumable",
    "resumable_importer",
    "source_of_path",
]


# -- the positions importers save, one TypedDict each (``SourceState.state``) -------------


class JsonlState(TypedDict, total=False):
    """Where a JSON Lines file was read to: the offset, hashes of the bytes before it, the
    record count, and for a compressed file its size and SHA-256 (``compressed``)."""

    offset: int
    head: str
    tail: str
    records: int
    compressed: dict[str, Any]


class MboxState(JsonlState, total=False):
    """Where an mbox was read to: as for JSON Lines, at the start of its last message."""


class MaildirState(TypedDict):
    """The messages of a Maildir already read: unique name -> [flags, id, ...]."""

    messages: dict[str, list[Any]]


class FilesState(TypedDict):
    """The files of a notes folder already read: relative path -> [size, mtime, digest, ...]."""

    files: dict[str, list[Any]]


class SlackState(TypedDict, total=False):
    """What of a Slack export was read: its metadata files' digests and each channel's days."""

    metadata: dict[str, Any]
    channels: dict[str, Any]


class TranscriptsState(TypedDict):
    """How far each session file was read: path -> [digest of its first bytes, offset, lines,
    the session's id, agent, project, branch and model, turns]."""

    files: dict[str, list[Any]]


class GitState(TypedDict):
    """The branch heads a Git history was walked to: ref -> commit sha."""

    heads: dict[str, str]


# -- opening ----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Opening:
    """Everything an importer is opened with: the same four knobs for every kind.

    Args:
        target: the path (or an opened pipe, :class:`~memtrails.importers._input.Input`).
        source: the source name its records carry.
        state: the position its last run ended with (one of the ``*State`` dicts), or None
            to read everything.
        limits: how large and deep a record may be; importers apply what they can while
            reading (line, member and file sizes), the normalise stage the rest.
        names: the files of a folder to read, when a plan chose them (mail among notes).
        following: the input is being written as it is read (a watched source): what is
            part-way written at its end is left for the next run instead of reported.

    ``memtrails add`` makes one for each input and hands it to its kind's
    :attr:`Importer.open` (see :class:`Importer` for a whole importer):

        >>> from memtrails.extend import Opening
        >>> opening = Opening("lists/week.todo", "week")
        >>> opening.target, opening.source, opening.state, opening.names, opening.following
        ('lists/week.todo', 'week', None, None, False)
    """

    target: Any
    source: str
    state: Mapping[str, Any] | None = None
    limits: Limits = field(default_factory=Limits)
    names: Sequence[str] | None = None
    following: bool = False


@dataclass(frozen=True, slots=True)
class Importer:
    """One kind of input, declared once: how it is recognised, opened and followed.

    The registry (:mod:`memtrails.importers.registry`) holds one per kind; detection,
    ``memtrails add --kind``, the MCP ``add`` tool and the docs' table are derived from it.

    Args:
        kind: the name ``--kind`` takes (``mbox``).
        summary: one line for ``--help`` and the docs: what it reads.
        open: opens the input; returns its items (records, errors, positions).
        suffixes: file endings that name this kind (``.mbox``), compression endings removed.
        sniff: tells from a file's first bytes (decompressed) whether it is of this kind.
        folder: tells whether a folder is of this kind (a Maildir, a Slack export).
        file: tells from a file itself whether it is of this kind (a Slack ``.zip``), for
            what neither the ending nor the first bytes can say.
        reads_folders: a folder given to ``add`` may be of this kind.
        piped: it can read a pipe or standard input.
        by_bytes: progress is bytes read of the file's size (else records).
        prunes_incrementally: it walks its whole input even when resuming, so ``--prune``
            may keep the saved position (a notes folder, a Maildir).
        state: the TypedDict of the position it saves, None when it cannot resume.

    Raises:
        ValueError: ``kind`` is not a lower-case name of letters, digits and ``-``, or a
            suffix is not a lower-case ending with its dot.

    Example: a to-do list, one record a line, read again from its last line on:

        >>> import asyncio, tempfile
        >>> from pathlib import Path
        >>> from memtrails import MemoryRecord, SourceState
        >>> from memtrails.extend import Importer, Opening, resumable_importer
        >>> @resumable_importer()
        ... async def from_todo(path, *, source=None, state=None):
        ...     lines = Path(path).read_text().splitlines()
        ...     start = state["lines"] if state else 0
        ...     for n, line in enumerate(lines[start:], start + 1):
        ...         yield MemoryRecord(id=f"line {n}", text=line, source=source)
        ...     mode = "incremental" if state else "full"
        ...     yield SourceState(source, {"lines": len(lines)}, mode=mode, complete=not state)
        >>> TODO = Importer(
        ...     kind="todo",
        ...     summary="a to-do list: one record a line",
        ...     open=lambda opening: from_todo(
        ...         opening.target, source=opening.source, state=opening.state
        ...     ),
        ...     suffixes=frozenset({".todo"}),
        ... )
        >>> async def read(opening):
        ...     async with TODO.open(opening) as items:
        ...         return [item async for item in items]
        >>> with tempfile.TemporaryDirectory() as tmp:
        ...     path = Path(tmp, "week.todo")
        ...     _ = path.write_text("buy milk\\ncall Ada\\n")
        ...     items = asyncio.run(read(Opening(path, "week")))
        >>> [(item.id, item.text) for item in items[:-1]], items[-1].state
        ([('line 1', 'buy milk'), ('line 2', 'call Ada')], {'lines': 2})

    Another package declares it in its ``pyproject.toml``, and ``memtrails add week.todo``
    (or ``--kind todo``) then reads with it::

        [project.entry-points."memtrails.importers"]
        todo = "my_package.todo:TODO"
    """

    kind: str
    summary: str
    open: Callable[[Opening], AsyncIterator[Item]]
    suffixes: frozenset[str] = frozenset()
    sniff: Callable[[bytes], bool] | None = None
    folder: Callable[[Path], bool] | None = None
    file: Callable[[Path], bool] | None = None
    reads_folders: bool = False
    piped: bool = False
    by_bytes: bool = False
    prunes_incrementally: bool = False
    state: type | None = None

    def __post_init__(self) -> None:
        if not self.kind or not self.kind.replace("-", "").isalnum() or not self.kind.islower():
            raise ValueError(
                f"`kind` must be a lower-case name of letters, digits and '-', got {self.kind!r}"
            )
        for suffix in self.suffixes:
            if not suffix.startswith(".") or suffix != suffix.lower():
                raise ValueError(f"`suffixes` are lower-case endings with a dot, got {suffix!r}")


# -- the stream an importer opens -----------------------------------------------------------


@runtime_checkable
class Resumable(Protocol):
    """An importer's items for one source, which an import resumes from its saved position.

    ``Memory.ingest`` looks up the position the last run of :attr:`source` saved and calls
    :meth:`resume` with it before reading, unless the caller gave a state itself, asked
    for a full read (``full=True``), or asked to prune a source that must be read whole to
    be pruned.
    """

    source: str
    state: Mapping[str, Any] | None  # the position the caller gave
    explicit: bool  # the caller gave ``state=``: keep it
    prunes_incrementally: bool

    def resume(self, state: Mapping[str, Any] | None) -> AsyncIterator[Item]:
        """Return the items read from ``state`` on (None: read everything)."""
        ...


class ImporterStream:
    """What an importer returns: its items (read on first use from the state it was given),
    resumable from another position (:class:`Resumable`) until reading starts; close it
    with ``aclose`` (``contextlib.aclosing``) to stop early and free its file."""

    __slots__ = (
        "_closed",
        "_items",
        "_read",
        "explicit",
        "prunes_incrementally",
        "source",
        "state",
    )

    def __init__(
        self,
        source: str,
        read: Callable[[Mapping[str, Any] | None], AsyncIterator[Item]],
        state: Mapping[str, Any] | None,
        explicit: bool,
        prunes_incrementally: bool,
    ) -> None:
        self.source = source
        self.explicit = explicit
        self.prunes_incrementally = prunes_incrementally
        self._read = read
        self.state = state
        self._items: AsyncIterator[Item] | None = None
        self._closed = False

    def resume(self, state: Mapping[str, Any] | None) -> AsyncIterator[Item]:
        """Return the reader, opened from ``state`` (a reader's extras, ``raw_lines``, kept)."""
        if self._items is not None or self._closed:
            raise RuntimeError("this importer has started reading: open it again to resume")
        return self._read(state)

    def __aiter__(self) -> ImporterStream:
        return self

    async def __anext__(self) -> Item:
        if self._closed:
            raise StopAsyncIteration
        if self._items is None:
            self._items = self._read(self.state)
        return await self._items.__anext__()

    async def aclose(self) -> None:
        """Close the reader (its file and worker thread); safe to call twice."""
        self._closed = True
        items, self._items = self._items, None
        close = getattr(items, "aclose", None)
        if close is not None:
            await close()

    async def __aenter__(self) -> ImporterStream:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()


def resumable(
    source: str,
    read: Callable[[Mapping[str, Any] | None], AsyncIterator[Item]],
    state: Mapping[str, Any] | None = None,
    *,
    prunes_incrementally: bool = False,
) -> ImporterStream:
    """Return an importer's stream: ``read(state)``'s items, resumable by ``Memory.ingest``.

    Args:
        source: the source name the items carry.
        read: opens the input from a saved position (None: from the start).
        state: the position the caller gave (None: ``Memory.ingest`` finds the saved one;
            iterated directly, the stream reads everything).
        prunes_incrementally: the importer walks everything even when it resumes.
    """
    return ImporterStream(source, read, state, state is not None, prunes_incrementally)


def source_of_path(args: tuple[Any, ...], kwargs: Mapping[str, Any]) -> str:
    """Return the source an importer called with ``(path, ..., source=None)`` gives its records."""
    from ._input import Input
    from ._shared import default_source

    given = kwargs.get("source")
    if given is not None:
        return str(given)
    path = args[0] if args else next(iter(kwargs.values()))
    return default_source(path.given if isinstance(path, Input) else path)


def resumable_importer(
    source_of: Callable[[tuple[Any, ...], Mapping[str, Any]], str] = source_of_path,
    *,
    prunes_incrementally: bool = False,
) -> Callable[[Callable[P, AsyncIterator[Item]]], Callable[P, ImporterStream]]:
    """Make an importer function (``from_mbox(path, *, source=None, state=None, ...)``) return a
    :class:`ImporterStream`, so that ``Memory.ingest`` can resume it from the saved position.

    The function is called when reading starts, with ``source`` set to the name its records
    carry (``source_of`` computes it from the call's arguments) and ``state`` to the position
    to resume from.

    Args:
        source_of: the source name of a call, from its ``(args, kwargs)``; the default
            takes ``source=`` when given, else a name made from the first argument, a path.
        prunes_incrementally: the importer walks its whole input even when it resumes, so
            ``prune=True`` may keep the saved position.

    Returns:
        The decorator. The decorated function takes ``state=`` too (a caller's own
        position: ``Memory.ingest`` then keeps it) and returns an ``ImporterStream``: an
        async iterator of its items, to close with ``aclose`` (or ``async with``) when
        stopping early.

    Example: the second run reads the new row alone (see :class:`SourceState`):

        >>> import asyncio, tempfile
        >>> from memtrails import Memory, MemoryRecord, SourceState
        >>> from memtrails.extend import resumable_importer
        >>> from memtrails.testing import HashingEmbedder
        >>> @resumable_importer(lambda args, kwargs: "rows")
        ... async def from_rows(rows, *, source, state=None):
        ...     start = state["row"] if state else 0
        ...     for n, row in enumerate(rows[start:], start):
        ...         yield MemoryRecord(id=str(n), text=row, source=source)
        ...     mode = "incremental" if state else "full"
        ...     yield SourceState(source, {"row": len(rows)}, mode=mode, complete=not state)
        >>> async def twice(folder):
        ...     async with Memory.open(folder, embedder=HashingEmbedder()) as memory:
        ...         first = await memory.ingest(from_rows(["a", "b"]))
        ...         return first, await memory.ingest(from_rows(["a", "b", "c"]))
        >>> with tempfile.TemporaryDirectory() as folder:
        ...     first, second = asyncio.run(twice(folder))
        >>> first.added, second.added, second.sources[0].mode, second.sources[0].read
        (2, 1, 'incremental', 1)
    """

    def wrap(fn: Callable[P, AsyncIterator[Item]]) -> Callable[P, ImporterStream]:
        @functools.wraps(fn)
        def opened(*args: P.args, **kwargs: P.kwargs) -> ImporterStream:
            state = kwargs.pop("state", None)
            name = source_of(args, kwargs)
            kwargs["source"] = name

            def read(at: Mapping[str, Any] | None) -> AsyncIterator[Item]:
                return fn(*args, **{**kwargs, "state": at})  # type: ignore[arg-type]

            return resumable(
                name,
                read,
                cast("Mapping[str, Any] | None", state),
                prunes_incrementally=prunes_incrementally,
            )

        return opened

    return wrap
