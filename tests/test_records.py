"""Records, timestamps and reports: what a user passes in and what comes out."""

from __future__ import annotations

import ast
import dataclasses
import inspect
import random
import time
from collections import Counter
from datetime import UTC, datetime, timedelta, timezone

import pytest

import memtrails.records
from memtrails.dates import parse_date
from memtrails.export_dates import names_no_day
from memtrails.records import (
    KEPT_ERRORS,
    At,
    ImportReport,
    MemoryRecord,
    RecordError,
    _utc_iso_ms,
)


def test_at_reads_what_users_pass() -> None:
    utc = "2024-04-02T10:00:00.000Z"
    assert At.of("2024-04-02T10:00:00Z").iso() == utc
    assert At.of("Tue, 2 Apr 2024 12:00:00 +0200").iso() == utc
    assert At.of(1712052000000).iso() == utc  # epoch milliseconds
    assert At.of(1712052000000.9).ms == 1712052000000
    assert At.of(datetime(2024, 4, 2, 10, tzinfo=UTC)).iso() == utc
    assert At.of(datetime(2024, 4, 2, 12, tzinfo=timezone(timedelta(hours=2)))).iso() == utc
    assert At.of("2024-04-02").iso() == "2024-04-02T00:00:00.000Z"  # date-only is UTC
    assert At.of(At(5)) == At(5)
    with pytest.raises(ValueError, match="not a date"):
        At.of("next tuesday")
    # As exports write dates Date.parse does not read: each as the form it does.
    for written, meant in (
        ("1:56 pm on 8 May, 2023", "8 May 2023 13:56"),
        ("10:37 am on 27 June, 2023", "27 June 2023 10:37"),
        ("Sunday 7th May 2023", "7 May 2023"),
        ("the 1st of May 2023", "1 May 2023"),
        ("2023-05-08 at 13:56", "2023-05-08T13:56"),
        ("7pm, 8 May 2023", "8 May 2023 19:00"),
    ):
        assert At.of(written) == At.of(meant), written
    for no_date in ("on 3rd", "May 8th", "at 7pm"):  # no year: Date.parse's guesses stay out
        with pytest.raises(ValueError, match="not a date"):
            At.of(no_date)
    with pytest.raises(TypeError):
        At.of(True)
    with pytest.raises(ValueError, match="range of a JavaScript Date"):
        At(10**16)


def test_naive_datetime_is_local_time_like_javascript(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TZ", "America/New_York")
    time.tzset()
    try:
        assert At.of(datetime(2024, 7, 1, 8, 0)).iso() == "2024-07-01T12:00:00.000Z"  # EDT
        assert At.of(datetime(2024, 1, 1, 8, 0)).iso() == "2024-01-01T13:00:00.000Z"  # EST
        assert At.of("2024-01-01T08:00:00").iso() == "2024-01-01T13:00:00.000Z"
    finally:
        monkeypatch.undo()
        time.tzset()


def test_record_checks_its_fields() -> None:
    record = MemoryRecord(id="1", text="hi", at="2024-04-02")
    assert isinstance(record.at, At)
    assert MemoryRecord.from_json(record.to_json()) == record
    with pytest.raises(ValueError, match="`id`"):
        MemoryRecord(id="", text="x")
    with pytest.raises(TypeError, match="`text`"):
        MemoryRecord(id="1", text=3)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"`text` is None .* no title"):
        MemoryRecord(id="1", text=None)  # type: ignore[arg-type]
    assert MemoryRecord(id="1", text=None, title="T").text == ""  # type: ignore[arg-type]


def test_report_json_is_what_add_prints() -> None:
    report = ImportReport(added=2, unchanged=1, secrets=Counter({"jwt": 1}))
    report.errors.append(RecordError("a.jsonl", "line 3", "not JSON"))
    out = report.to_json()
    assert {k: out[k] for k in ("added", "updated", "unchanged", "skipped", "removed")} == {
        "added": 2,
        "updated": 0,
        "unchanged": 1,
        "skipped": 1,
        "removed": 0,
    }
    assert out["errors"] == [{"source": "a.jsonl", "where": "line 3", "reason": "not JSON"}]
    assert out["secrets"] == {"jwt": 1}
    assert str(report.errors[0]) == "a.jsonl (line 3): not JSON"


def test_the_utc_iso_form_is_read_as_date_parse_reads_it() -> None:
    """At.of reads ``YYYY-MM-DDTHH:MM:SS[.sss]Z`` directly; it must agree with parse_date."""
    rng = random.Random(18)
    read = 0
    for _ in range(20_000):
        year = rng.choice([rng.randint(0, 9999), rng.randint(1900, 2100)])
        frac = rng.choice(["", f".{rng.randint(0, 999):03d}"])
        text = (
            f"{year:04d}-{rng.randint(0, 13):02d}-{rng.randint(0, 32):02d}"
            f"T{rng.randint(0, 25):02d}:{rng.randint(0, 60):02d}:{rng.randint(0, 60):02d}{frac}Z"
        )
        expected = parse_date(text)
        fast = _utc_iso_ms(text)
        if fast is not None:
            read += 1
            assert fast == expected, text
        if fast is not None:
            assert At.of(text).ms == expected, text
        elif expected is not None and names_no_day(text):  # "2024-02-30": not 1 March
            with pytest.raises(ValueError, match="not a date"):
                At.of(text)
        elif expected is not None:
            assert At.of(text).ms == expected, text
    assert read > 5_000  # most are valid dates, read without parse_date
    assert _utc_iso_ms("2024-02-30T00:00:00Z") is None
    assert _utc_iso_ms("2024-01-01T24:00:00Z") is None
    assert At.of("1969-12-31T23:59:59.999Z").ms == -1


def test_a_report_keeps_the_first_errors_and_counts_the_rest_by_reason() -> None:
    """Two million bad lines cost a bounded report: all counted, the first kept whole."""
    report = ImportReport()
    for n in range(KEPT_ERRORS + 5_000):
        report.add_error(RecordError("a.jsonl", f"line {n}", f"not JSON: column {n % 7}"))
    for n in range(300):  # more distinct reasons than a summary names
        report.add_error(RecordError("a.jsonl", "x", f"{'ab'[n % 2]}{'q' * n}"))
    assert report.skipped == KEPT_ERRORS + 5_300
    assert len(report.errors) == KEPT_ERRORS
    assert report.errors[0].where == "line 0"
    out = report.to_json()
    assert out["skipped"] == KEPT_ERRORS + 5_300
    assert out["errors_left_out"]["not JSON: column N"] == 5_000
    assert sum(out["errors_left_out"].values()) == 5_300
    assert len(out["errors_left_out"]) <= 101
    total = ImportReport()
    total.merge(report)
    total.merge(report)
    assert total.skipped == 2 * report.skipped
    assert len(total.errors) == KEPT_ERRORS
    assert len(total.errors_left_out) <= 101


def test_the_typed_constructor_matches_the_fields() -> None:
    # MemoryRecord's __init__ is spelled out for type checkers (``at`` takes what At.of
    # reads); it must name the dataclass's fields, in order, with the same defaults
    # (``...`` for a default made by a factory).
    tree = ast.parse(inspect.getsource(memtrails.records))
    cls = next(
        n for n in ast.walk(tree) if isinstance(n, ast.ClassDef) and n.name == "MemoryRecord"
    )
    init = next(n for n in ast.walk(cls) if isinstance(n, ast.FunctionDef) and n.name == "__init__")
    fields = dataclasses.fields(MemoryRecord)
    assert [a.arg for a in init.args.args[1:]] == [f.name for f in fields]
    assert [ast.literal_eval(d) for d in init.args.defaults] == [
        f.default if f.default_factory is dataclasses.MISSING else ...
        for f in fields
        if (f.default, f.default_factory) != (dataclasses.MISSING, dataclasses.MISSING)
    ]
    assert MemoryRecord(id="a", text="t", at="2024-05-02").at == At.of("2024-05-02")
