"""The guard around an importer's per-record conversion: one record's bug is that record's error.

An importer is a generator, and a generator that raises cannot go on: an unexpected
exception while one commit, message, file or line is turned into a record (a bug in a
parser, a date reader, a markup cleaner) would end the whole import. Each importer calls its
per-record converter through a :class:`RecordStep` instead. Such an exception becomes a
:class:`~memtrails.records.RecordError` for that record, naming the importer, the step and
the exception (scrubbed of secrets, as the pipeline's stage guard does); the traceback goes
to the ``memtrails.importers`` debug log, never to the user's terminal; and the importer goes
on with the next record.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar, TypeVarTuple

from .._exceptions import MemtrailsError
from ..portable import js_well_formed, utf16_cut
from ..records import RecordError
from ..secrets import scrub_text

__all__ = ["LET_THROUGH", "RecordStep"]

_log = logging.getLogger("memtrails.importers")

T = TypeVar("T")
Ts = TypeVarTuple("Ts")

#: Exceptions that are not one record's fault, so they end the import as before: memory
#: exhausted (going on would only fail again, further from the cause), and the errors
#: memtrails raises on purpose (a source that cannot be read at all, a folder locked, a
#: model that failed), which say what to do in one line. ``KeyboardInterrupt``,
#: ``SystemExit``, ``GeneratorExit`` and ``asyncio.CancelledError`` are not ``Exception``
#: subclasses and pass through anyway.
LET_THROUGH: tuple[type[BaseException], ...] = (MemoryError, MemtrailsError)

_DETAIL_UNITS = 300  # UTF-16 units of the exception's text kept in the reason


@dataclass(frozen=True, slots=True)
class RecordStep:
    """One importer's per-record conversion, as its errors name it.

    Args:
        importer: the importer, as a user calls it (``"git"``, ``"Slack"``, ``"notes"``).
        unit: what one record is made from (``"commit"``, ``"message"``, ``"file"``).
    """

    importer: str
    unit: str

    def run(
        self,
        source: str,
        where: str,
        convert: Callable[[*Ts], T],
        *args: *Ts,
        id: str | None = None,
    ) -> T | RecordError:
        """Return ``convert(*args)``, or the RecordError at ``where`` for an unexpected exception.

        Args:
            source: the source name the error carries.
            where: the record's place in the source (a line, a file, a sha).
            convert: the per-record converter; what it returns is returned as it is.
            args: its arguments.
            id: the record's id when known before converting (a file's path, a sha): a
                prune then keeps the record the folder already has.
        """
        try:
            return convert(*args)
        except LET_THROUGH:
            raise
        except Exception as exc:  # why: one record's bug must never end the import
            return self.failed(exc, source, where, id=id)

    def failed(
        self, exc: BaseException, source: str, where: str, *, id: str | None = None
    ) -> RecordError:
        """Return the RecordError for ``exc`` raised while converting the record at ``where``.

        The traceback is logged at debug level; the reason names the step and the
        exception's type and message, scrubbed of secrets (a message may quote the record).
        """
        _log.debug(
            "the %s importer failed on the %s at %s", self.importer, self.unit, where, exc_info=exc
        )
        return RecordError(
            js_well_formed(source),
            js_well_formed(where),
            f"the {self.importer} importer failed on this {self.unit} ({describe(exc)}); it was "
            "skipped and the import went on. This is a bug: please report it with the debug log "
            "(logging 'memtrails.importers')",
            id=id,
        )


def describe(exc: BaseException) -> str:
    """Return ``Type: message`` of ``exc``, scrubbed of secrets and cut to a few lines' length.

    When the message cannot be made or scrubbed (a broken ``__str__``, a scrubber bug), only
    the type is given: nothing that could hold a secret.
    """
    try:
        detail = scrub_text(js_well_formed(f"{type(exc).__name__}: {exc}"))[0]
    except Exception:
        return type(exc).__name__
    return utf16_cut(detail, _DETAIL_UNITS)
