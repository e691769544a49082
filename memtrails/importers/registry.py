"""The importers memtrails knows: one entry per kind, from which detection and the CLI derive.

A new kind of input is one module in ``importers/`` and one :class:`Importer` in
:data:`BUILTIN`; a package of its own adds one through the ``memtrails.importers`` entry
point group instead (the entry point names an :class:`Importer` object)::

    [project.entry-points."memtrails.importers"]
    calendar = "memtrails_calendar:IMPORTER"
"""

from __future__ import annotations

import functools
import importlib.metadata
import logging
import zipfile
from collections.abc import AsyncIterator
from pathlib import Path

from .._exceptions import SourceError
from ..records import Item
from ._shared import as_generator
from .contract import (
    FilesState,
    Importer,
    JsonlState,
    MaildirState,
    MboxState,
    Opening,
    SlackState,
    TranscriptsState,
)

__all__ = [
    "BUILTIN",
    "ENTRY_POINTS",
    "importer",
    "importers",
    "kinds",
    "markdown_table",
    "refresh",
]

ENTRY_POINTS = "memtrails.importers"
"""The entry point group where other packages declare their importers."""

_log = logging.getLogger(__name__)
_BOM = b"\xef\xbb\xbf"


def _first_line(head: bytes) -> bytes:
    return head.removeprefix(_BOM).split(b"\n", 1)[0] + b"\n"


# -- the built-in kinds: how each is opened and recognised ------------------------------------


def _open_jsonl(o: Opening) -> AsyncIterator[Item]:
    from .jsonl import from_jsonl

    return from_jsonl(
        o.target, state=o.state, source=o.source, limits=o.limits, following=o.following
    )


def _sniff_jsonl(head: bytes) -> bool:
    return head.removeprefix(_BOM).lstrip().startswith(b"{")


def _open_json(o: Opening) -> AsyncIterator[Item]:
    from .json_doc import from_json

    return as_generator(from_json(o.target, state=o.state, source=o.source, limits=o.limits))


def _open_mbox(o: Opening) -> AsyncIterator[Item]:
    from .mbox import from_mbox

    return as_generator(from_mbox(o.target, state=o.state, source=o.source, limits=o.limits))


def _sniff_mbox(head: bytes) -> bool:
    from .mbox_lines import looks_like_mbox

    # Blank lines before the first separator (a BOM, CRLF, CR alone) are passed over, as the
    # reader passes over them.
    return looks_like_mbox(head)


def _open_eml(o: Opening) -> AsyncIterator[Item]:
    from .eml import from_eml

    # Read in full: dedup keeps it cheap.
    return as_generator(from_eml(o.target, source=o.source, names=o.names, limits=o.limits))


def _sniff_eml(head: bytes) -> bool:
    from .mail.sniff import looks_like_message

    return looks_like_message(head)


def _open_maildir(o: Opening) -> AsyncIterator[Item]:
    from .maildir import from_maildir

    return as_generator(from_maildir(o.target, state=o.state, source=o.source, limits=o.limits))


def _is_maildir(path: Path) -> bool:
    return (path / "cur").is_dir() or (path / "new").is_dir()


def _open_slack(o: Opening) -> AsyncIterator[Item]:
    from .slack import from_slack_export

    return as_generator(
        from_slack_export(o.target, state=o.state, source=o.source, limits=o.limits)
    )


def _is_slack_folder(path: Path) -> bool:
    return (path / "users.json").is_file() or (path / "channels.json").is_file()


def _is_slack_zip(path: Path) -> bool:
    if path.suffix.lower() != ".zip":
        return False
    try:
        with zipfile.ZipFile(path) as z:
            return any(Path(n).name in ("users.json", "channels.json") for n in z.namelist())
    except (zipfile.BadZipFile, OSError):
        # A damaged or truncated .zip: the Slack importer says what is wrong with it, which
        # "not a kind memtrails reads" would not.
        return True


def _is_document(path: Path) -> bool:
    from .documents import is_document_file

    return is_document_file(path)


def _open_transcripts(o: Opening) -> AsyncIterator[Item]:
    from .transcripts import from_agent_transcripts

    return as_generator(
        from_agent_transcripts(o.target, state=o.state, source=o.source, limits=o.limits)
    )


def _is_transcripts_folder(path: Path) -> bool:
    from .transcripts import is_transcripts_folder

    return is_transcripts_folder(path)


def _is_transcript_file(path: Path) -> bool:
    from .transcripts import is_transcript_file

    return is_transcript_file(path)


def _open_files(o: Opening) -> AsyncIterator[Item]:
    from .files import from_files

    return as_generator(from_files(o.target, state=o.state, source=o.source, limits=o.limits))


BUILTIN: tuple[Importer, ...] = (
    Importer(
        "jsonl",
        "JSON Lines: one record per line (also .gz, .bz2, .xz and pipes)",
        _open_jsonl,
        suffixes=frozenset({".jsonl", ".ndjson", ".jsonlines"}),
        sniff=_sniff_jsonl,
        piped=True,
        by_bytes=True,
        state=JsonlState,
    ),
    Importer(
        "json",
        "a JSON document: each array of records in it (a chat export's messages, a list of "
        "objects), one record per object; one note when it holds none",
        _open_json,
        suffixes=frozenset({".json"}),
    ),
    Importer(
        "mbox",
        "an mbox file, streamed message by message (also compressed and pipes)",
        _open_mbox,
        suffixes=frozenset({".mbox", ".mbx"}),
        sniff=_sniff_mbox,
        piped=True,
        by_bytes=True,
        state=MboxState,
    ),
    Importer(
        "eml",
        "one saved message (.eml, or any file that holds one; `.eml.gz`, `.eml.bz2`, `.eml.xz` "
        "compressed) or a folder of them",
        _open_eml,
        suffixes=frozenset({".eml"}),
        sniff=_sniff_eml,
        piped=True,
    ),
    Importer(
        "maildir",
        "a Maildir (cur/, new/) with its subfolders",
        _open_maildir,
        folder=_is_maildir,
        reads_folders=True,
        prunes_incrementally=True,
        state=MaildirState,
    ),
    Importer(
        "slack",
        "a Slack export, a folder or the .zip Slack sends",
        _open_slack,
        folder=_is_slack_folder,
        file=_is_slack_zip,
        reads_folders=True,
        state=SlackState,
    ),
    Importer(
        "transcripts",
        "coding-agent sessions (Claude Code, Codex, Gemini CLI, Aider): one chat record per turn",
        _open_transcripts,
        folder=_is_transcripts_folder,
        file=_is_transcript_file,
        reads_folders=True,
        state=TranscriptsState,
    ),
    Importer(
        "files",
        "a folder of notes: text, Markdown and source files, documents; or one document",
        _open_files,
        file=_is_document,
        reads_folders=True,
        prunes_incrementally=True,
        state=FilesState,
    ),
)
"""The kinds memtrails reads, in the order detection tries them (notes last: any folder)."""


def importers() -> tuple[Importer, ...]:
    """Return every importer: those other packages declare (entry points) first, then the built-in ones.

    An entry point that fails to load, or that is not an :class:`Importer`, is left out and
    logged; one whose kind a built-in has is left out too (the built-in wins). The entry
    points are read once per process (detection asks for every file of a folder): call
    :func:`refresh` after installing a package into a running process.
    """
    return (*_declared(), *BUILTIN)


def refresh() -> None:
    """Read the entry points again on the next :func:`importers` call."""
    _declared.cache_clear()


@functools.cache
def _declared() -> tuple[Importer, ...]:
    builtin = {spec.kind for spec in BUILTIN}
    found: list[Importer] = []
    for point in importlib.metadata.entry_points(group=ENTRY_POINTS):
        try:
            spec = point.load()
        except Exception:  # a broken plugin must not break `memtrails add`
            _log.warning("importer %r (%s) failed to load", point.name, point.value, exc_info=True)
            continue
        if not isinstance(spec, Importer):
            _log.warning("importer %r (%s) is not a memtrails Importer", point.name, point.value)
        elif spec.kind in builtin or any(s.kind == spec.kind for s in found):
            _log.warning("importer %r: kind %r is taken; left out", point.value, spec.kind)
        else:
            found.append(spec)
    return tuple(found)


def kinds() -> tuple[str, ...]:
    """Return the kinds ``memtrails add --kind`` accepts, in detection order."""
    return tuple(spec.kind for spec in importers())


def importer(kind: str) -> Importer:
    """Return the importer of ``kind``.

    Raises:
        SourceError: no importer reads that kind (the message lists those that exist).
    """
    for spec in importers():
        if spec.kind == kind:
            return spec
    raise SourceError(kind, f"no importer of that kind; the kinds are {', '.join(kinds())}")


def markdown_table() -> str:
    """Return the docs' table of kinds (``--kind``, what it reads, how it resumes)."""
    rows = ["| `--kind` | reads | re-runs read |", "|---|---|---|"]
    for spec in importers():
        resume = "what is new" if spec.state is not None else "everything (dedup skips it)"
        rows.append(f"| `{spec.kind}` | {spec.summary} | {resume} |")
    return "\n".join(rows) + "\n"


if __name__ == "__main__":
    print(markdown_table(), end="")
