"""The timeline page's numbers: records per month by source, and the bars of its chart.

Cheap by construction: a record's source and date sit at the start of its log line (``uid``,
``fp``, ``source``, ``id``, ``kind``, ``title``, ``author``, ``at``, then ``thread``, ``text``
and ``meta``), so each live record costs one read of the first 1 KiB of its line (the whole
line only when a long title or author pushes ``at`` past that), never its text; and what was
read is kept by log offset, so a later view reads only the lines written since (and none
while the log has not grown).
"""

from __future__ import annotations

import asyncio
import json
import os
import re
from collections import Counter
from dataclasses import dataclass, field

from ...folder.log import RecordLog
from ...folder.table import Table
from .plain import isolated

__all__ = ["Bar", "Chart", "MonthCounts", "chart"]

_PREFIX = 1024
_UNDATED = ""
_MONTH = re.compile(r"[+-]?\d{4,6}-\d{2}")
_decoder = json.JSONDecoder()

PALETTE = ("#3b6ea8", "#d07a2b", "#4c9a5b", "#b5484b", "#7e63a8", "#8c6a4f", "#c3669a", "#6b8e23")
OTHER_COLOUR = "#999999"
_WIDTH, _HEIGHT, _TOP, _BOTTOM = 760, 220, 10, 30
_MAX_BINS = 180  # months; a longer span is shown by year


def _head(prefix: bytes) -> tuple[str, str] | None:
    """Return (source, month or "") from the start of a log line, None if it is cut short."""
    text = prefix.decode("utf-8", errors="ignore")
    try:
        start = text.index('"source":') + len('"source":')
        source, end = _decoder.raw_decode(text, start)
        # A bare `,"at":` cannot occur inside a JSON string (its quote would be escaped), and
        # no field before `at` is named so: the first one found is the record's date.
        at_key = text.index(',"at":', end) + len(',"at":')
        at, _ = _decoder.raw_decode(text, at_key)
    except ValueError:
        return None
    if not isinstance(source, str):
        return None
    found = _MONTH.match(at) if isinstance(at, str) else None
    return source, found.group() if found else _UNDATED


def _read_heads(log: RecordLog, offsets: list[int]) -> dict[int, tuple[str, str]]:
    out: dict[int, tuple[str, str]] = {}
    same: dict[tuple[str, str], tuple[str, str]] = {}  # one tuple per (source, month) kept
    fd = os.open(log.path, os.O_RDONLY | os.O_CLOEXEC)
    try:
        for offset in offsets:
            head = _head(os.pread(fd, _PREFIX, offset))
            if head is None:  # `at` lies past the first KiB: read the line whole
                line = log.read_line(offset)
                at = line.get("at")
                found = _MONTH.match(at) if isinstance(at, str) else None
                head = (str(line.get("source", "")), found.group() if found else _UNDATED)
            out[offset] = same.setdefault(head, head)
    finally:
        os.close(fd)
    return out


class MonthCounts:
    """Records per (source, month) of a folder, kept up to date cheaply (see the module)."""

    def __init__(self) -> None:
        self._heads: dict[int, tuple[str, str]] = {}
        self._lock = asyncio.Lock()
        self._counted: tuple[int, Counter[tuple[str, str]]] | None = None

    async def count(self, table: Table, log: RecordLog) -> Counter[tuple[str, str]]:
        """Return how many live records each (source, month "YYYY-MM") holds ("" undated)."""
        async with self._lock:
            # Every change to the live records appends to the log (a version, a tombstone):
            # while its size stands, so do the counts.
            size = log.size
            if self._counted is not None and self._counted[0] == size:
                return Counter(self._counted[1])
            # The table's rows are read on the loop's thread, as every reader of it does: a
            # SQLite scan of (uid, offset), microseconds a row.
            live = [offset for _, offset in table.offsets() if offset >= 0]
            known = self._heads
            new = [offset for offset in live if offset not in known]
            if new:
                known.update(await asyncio.to_thread(_read_heads, log, new))
            self._heads = {offset: known[offset] for offset in live}
            counts = Counter(self._heads.values())
            self._counted = (size, counts)
            return Counter(counts)


@dataclass(frozen=True, slots=True)
class Bar:
    """One stacked piece of a bar: where it is drawn and what it counts."""

    x: float
    y: float
    width: float
    height: float
    colour: str
    label: str  # "2003-04, source: 12", the source isolated (an SVG <title>: text only)


@dataclass(slots=True)
class Chart:
    """The timeline's chart, laid out: bars, axis ticks, legend, and the table beside it."""

    bins: list[str] = field(default_factory=list)  # "YYYY-MM" (or "YYYY" when by year)
    by_year: bool = False
    bars: list[Bar] = field(default_factory=list)
    ticks: list[tuple[float, str]] = field(default_factory=list)
    legend: list[tuple[str, str, int]] = field(default_factory=list)  # source, colour, records
    rows: list[tuple[str, dict[str, int], int]] = field(default_factory=list)  # bin, counts, sum
    undated: dict[str, int] = field(default_factory=dict)
    highest: int = 0
    width: int = _WIDTH
    height: int = _HEIGHT


def _month_index(month: str) -> int:
    year, _, mon = month.rpartition("-")
    return int(year) * 12 + int(mon) - 1


def chart(counts: Counter[tuple[str, str]]) -> Chart:
    """Lay out the stacked bars of records per month (per year over 15 years) by source."""
    out = Chart()
    totals = Counter[str]()
    for (source, _), n in counts.items():
        totals[source] += n
    named = [s for s, _ in totals.most_common(len(PALETTE))]
    if len(totals) > len(PALETTE):
        named = named[: len(PALETTE) - 1]
    colours = {s: PALETTE[i] for i, s in enumerate(named)}
    other = "other sources"
    for source, n in totals.most_common():
        if source in colours:
            out.legend.append((source, colours[source], n))
    rest = sum(n for s, n in totals.items() if s not in colours)
    if rest:
        out.legend.append((other, OTHER_COLOUR, rest))
    dated = {key: n for key, n in counts.items() if key[1] != _UNDATED}
    for (source, month), n in counts.items():
        if month == _UNDATED:
            out.undated[source] = out.undated.get(source, 0) + n
    if not dated:
        return out
    indexes = [_month_index(m) for _, m in dated]
    first, last = min(indexes), max(indexes)
    out.by_year = last - first + 1 > _MAX_BINS
    per_bin: dict[str, Counter[str]] = {}
    for (source, month), n in dated.items():
        key = month.rpartition("-")[0] if out.by_year else month
        per_bin.setdefault(key, Counter())[source if source in colours else other] += n
    if out.by_year:
        years = range(first // 12, last // 12 + 1)
        out.bins = [f"{y:04d}" for y in years]
    else:
        out.bins = [f"{i // 12:04d}-{i % 12 + 1:02d}" for i in range(first, last + 1)]
    out.highest = max(sum(c.values()) for c in per_bin.values())
    step = (_WIDTH - 2) / len(out.bins)
    scale = (_HEIGHT - _TOP - _BOTTOM) / out.highest
    order = [s for s, _, _ in out.legend]
    for i, key in enumerate(out.bins):
        got = per_bin.get(key, Counter())
        if got:
            out.rows.append((key, dict(got), sum(got.values())))
        base = float(_HEIGHT - _BOTTOM)
        for source in order:
            n = got.get(source, 0)
            if not n:
                continue
            h = n * scale
            base -= h
            colour = OTHER_COLOUR if source == other else colours[source]
            out.bars.append(
                Bar(1 + i * step, base, max(step * 0.85, 1.0), h, colour, _label(key, source, n))
            )
        if out.by_year or key.endswith("-01") or i == 0:
            out.ticks.append((1 + i * step, key[:4]))
    # At most about 12 labels under the axis, evenly kept.
    keep = max(1, -(-len(out.ticks) // 12))
    out.ticks = out.ticks[::keep]
    return out


def _label(key: str, source: str, n: int) -> str:
    """A bar's tooltip: its bin, its source (bidi controls neutralised, isolated, at most
    100 characters) and its count."""
    return f"{key}, {isolated(source, 100)}: {n}"
