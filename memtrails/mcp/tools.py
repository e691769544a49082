"""What each MCP tool does, as plain async functions over a :class:`FolderAccess`."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar, cast

from .._exceptions import ToolInputError
from ..keys import record_uid
from ..periods import bounds
from ..records import At, MemoryRecord
from ..secrets import scrub_text
from ..service.client import imported_through
from ..service.during_import import command_line, own_import, reads_served
from .access import FolderAccess

if TYPE_CHECKING:
    from pydantic import ValidationError

__all__ = [
    "RECORD_URI",
    "add_tool",
    "argument_errors",
    "forget_tool",
    "get_tool",
    "record_json",
    "record_uri",
    "scrubbed",
    "search_tool",
    "status_tool",
]

T = TypeVar("T")

RECORD_URI = "memtrails://record/{id}"
_SHOWN_ERRORS = 20


def record_uri(uid: str) -> str:
    """Return the resource URI of a record (by its uid: URI-safe and unique across sources)."""
    return RECORD_URI.replace("{id}", uid)


def scrubbed(value: T) -> T:
    """Return ``value`` with every string passed through the secret scrubber.

    The folder holds scrubbed text already; this is the last guard at the door, for
    anything else that could carry a credential out (an error message, a path, a command
    line).
    """
    out: Any = value
    if isinstance(value, str):
        out = scrub_text(value)[0]
    elif isinstance(value, dict):
        out = {k: scrubbed(v) for k, v in value.items()}
    elif isinstance(value, list | tuple):
        out = [scrubbed(v) for v in value]
    return cast(T, out)


def _dates(since: str | None, until: str | None) -> tuple[At | None, At | None]:
    # The CLI's reading: whole days, months and years inclusive, and relative forms.
    try:
        return bounds(since, until, names=("`since`", "`until`"))
    except ValueError as exc:
        raise ToolInputError(str(exc)) from None


async def search_tool(
    access: FolderAccess,
    query: str,
    k: int = 10,
    *,
    kind: str | None = None,
    author: str | None = None,
    source: str | None = None,
    since: str | None = None,
    until: str | None = None,
    min_confidence: float | None = None,
) -> dict[str, Any]:
    """Return the ``k`` best records for ``query`` as JSON: the search tool's result."""
    if not query.strip():
        raise ToolInputError("`query` is empty; give words or a question")
    first, last = _dates(since, until)
    async with access.open(model=True) as memory:
        hits = await memory.search(
            query,
            k,
            kind=kind,
            author=author,
            source=source,
            since=first,
            until=last,
            min_confidence=min_confidence,
        )
    results = []
    for hit in hits:
        row = hit.to_json()
        row["uri"] = record_uri(hit.uid)
        results.append(row)
    return scrubbed({"count": len(results), "results": results})


def record_json(record: MemoryRecord, max_chars: int | None = None) -> dict[str, Any]:
    """Return a record as the get tool and the record resource show it."""
    out = record.to_json()
    uid = record_uid(record.source, record.id)
    out["uid"] = uid
    out["uri"] = record_uri(uid)
    text = record.text
    out["text_chars"] = len(text)
    if max_chars is not None and len(text) > max_chars:
        out["text"] = text[:max_chars]
        out["truncated"] = True
    return scrubbed(out)


async def get_tool(
    access: FolderAccess, id: str, source: str | None = None, max_chars: int = 20000
) -> dict[str, Any]:
    """Return one record by id or uid: the get tool's result."""
    async with access.open() as memory:
        record = await memory.get(id, source=source)
    if record is None:
        raise ToolInputError(
            f"no record with id {id!r}"
            + (f" in source {source!r}" if source else "")
            + "; ids and uids come from the search tool's results"
        )
    return record_json(record, max_chars)


async def status_tool(access: FolderAccess, *, writes: bool) -> dict[str, Any]:
    """Return the folder's counts, sources, model and index: the status tool's result."""
    async with access.open() as memory:
        status = (await memory.status()).to_json()
        importing = imported_through(memory) or own_import(memory)
    if importing is not None:  # the counts are what that import has written so far
        status["importing"] = importing
    status["writes_allowed"] = writes
    return scrubbed(status)


async def add_tool(
    access: FolderAccess,
    path: str,
    *,
    git: bool = False,
    full: bool = False,
    kind: str | None = None,
) -> dict[str, Any]:
    """Import a path on this machine into the folder: the add tool's result."""
    from ..add import add_git, add_path
    from ..importers.detect import detect_kind

    target = Path(path).expanduser()
    if not target.is_absolute():
        raise ToolInputError(f"`path` must be absolute, got {path!r}")
    if git and not target.is_dir():
        raise ToolInputError(f"{path}: no such Git repository")
    if git and kind is not None:
        raise ToolInputError("`kind` reads a path as a kind of file; a Git repository has none")
    if not git and kind is None:
        detect_kind(target)  # a SourceError before the folder is touched
    # Other processes' reads are answered while it imports (after a moment), as during a
    # `memtrails add`: the import's own server, named as this server's add of `path`.
    importing = f"{command_line()}: add {'--git ' if git else ''}{target}"
    async with (
        access.open(model=True, write="mcp add", create=True) as memory,
        reads_served(memory, importing),
    ):
        if git:
            report = await add_git(memory, target, full=full)
        else:
            # Detected again inside: a mixed folder is split by kind, as `memtrails add` does.
            report = await add_path(memory, target, kind=kind, full=full)
    out = report.to_json()
    errors = out.get("errors") or []
    if len(errors) > _SHOWN_ERRORS:
        out["errors"] = errors[:_SHOWN_ERRORS]
        out["errors_not_shown"] = report.skipped - _SHOWN_ERRORS
    return scrubbed(out)


async def forget_tool(access: FolderAccess, id: str, source: str | None = None) -> dict[str, Any]:
    """Forget a record by id or uid: the forget tool's result."""
    async with access.open(write="mcp forget") as memory:
        forgotten = await memory.forget(id, source=source)
    if forgotten == 0:
        raise ToolInputError(f"no record with id {id!r}; nothing was forgotten")
    return scrubbed({"forgotten": forgotten, "id": id})


def argument_errors(exc: ValidationError) -> str:
    """Say what is wrong with a tool's arguments in a line per argument, as a person would.

    pydantic's own text ('1 validation error for searchArguments', its error types and a
    link to its documentation) is written for the programmer of the tool, not its caller.
    """
    said = []
    for error in exc.errors(include_url=False):
        name = ".".join(str(part) for part in error["loc"]) or "arguments"
        if error["type"] == "missing":
            said.append(f"`{name}` is required")
            continue
        message = str(error["msg"])
        shown = repr(error.get("input"))
        got = f" (got {shown})" if len(shown) <= 60 else f" (got {shown[:57]}...)"
        said.append(f"`{name}`: {message[:1].lower()}{message[1:]}{got}")
    return "; ".join(said)
