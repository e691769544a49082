"""The size and nesting limits every record is held to before anything else sees it."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["CUT_KEY", "MAX_DEPTH_CEILING", "Limits"]

# The meta key where normalisation says what it cut from a record.
CUT_KEY = "_cut"
# Later stages (secret scrubbing, JSON serialisation) walk meta recursively, two Python frames a
# level at most: 200 levels stay far below the interpreter's default recursion limit of 1000.
MAX_DEPTH_CEILING = 200


@dataclass(frozen=True, slots=True)
class Limits:
    """How large and how deep a record may be; what is over a limit is cut or refused, and said.

    A cut keeps the record: its ``meta["_cut"]`` lists what was cut, and the import report
    counts it (``cut``). A refusal is a ``RecordError`` naming the record and the limit; the
    import goes on.

    Args:
        max_depth: how deeply arrays and objects may nest in a record's ``meta`` (``{"a": [1]}``
            is 2 deep), and in a JSON Lines line. Deeper: refused. At most 200.
        max_text_units: the longest ``text``, in UTF-16 code units (JavaScript's
            ``length``). Longer: cut at that length.
        max_title_units: the longest ``title``, in UTF-16 code units. Longer: cut.
        max_field_bytes: the largest any other field may be, as stored JSON (UTF-8 bytes):
            each top-level entry of ``meta`` (larger: left out of the record, and said), and
            ``id``, ``source``, ``kind``, ``author``, ``thread`` (larger: refused).
        max_record_bytes: the largest record, as stored JSON, after any cut. Larger: refused.
        max_line_bytes: the longest JSON Lines line read (it is parsed whole). Longer: refused
            without being read into memory, and reading goes on at the next line.
        max_file_bytes: the largest file an importer reads whole (a note, a Slack export's
            member, inflated). Larger: a named error, never read. None: each importer's own
            default (1 MB for a note, 128 MiB for a Slack member).

    Raises:
        ValueError: a limit is not a positive integer, or ``max_depth`` is over 200.

    Example::

        await memory.ingest(source, limits=Limits(max_record_bytes=64 * 1024 * 1024))
    """

    max_depth: int = 64
    max_text_units: int = 1_000_000
    max_title_units: int = 500
    max_field_bytes: int = 1024 * 1024
    max_record_bytes: int = 16 * 1024 * 1024
    max_line_bytes: int = 64 * 1024 * 1024
    max_file_bytes: int | None = None

    def __post_init__(self) -> None:
        for name in (
            "max_depth",
            "max_text_units",
            "max_title_units",
            "max_field_bytes",
            "max_record_bytes",
            "max_line_bytes",
            "max_file_bytes",
        ):
            value = getattr(self, name)
            if value is None and name == "max_file_bytes":
                continue
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"`{name}` must be a positive integer, got {value!r}")
        if self.max_depth > MAX_DEPTH_CEILING:
            raise ValueError(
                f"`max_depth` must be at most {MAX_DEPTH_CEILING} (deeper values overflow "
                f"the recursion of later stages), got {self.max_depth}"
            )
