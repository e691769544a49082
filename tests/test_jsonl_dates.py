"""JSON Lines: a record's time in every shape a user's export writes it, and what is no time.

Each record's time is compared with ``At.of`` of the same instant written as an ISO or a
``Date.parse`` form, so that the tests hold in any ``TZ``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from memtrails.importers.jsonl import from_jsonl
from memtrails.records import At, MemoryRecord, RecordError, SourceState


async def _import(tmp_path: Path, rows: list[Any], **kw: Any) -> list[MemoryRecord | RecordError]:
    path = tmp_path / "export.jsonl"
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows))
    return [i async for i in from_jsonl(path, **kw) if not isinstance(i, SourceState)]


def _records(items: list[MemoryRecord | RecordError]) -> dict[str, MemoryRecord]:
    return {i.id: i for i in items if isinstance(i, MemoryRecord)}


def _errors(items: list[MemoryRecord | RecordError]) -> dict[str, str]:
    return {i.where: i.reason for i in items if isinstance(i, RecordError)}


async def test_zero_and_small_numbers_are_no_date_not_1970_and_the_record_is_kept(
    tmp_path: Path,
) -> None:
    written: list[Any] = [0, 5, -1, -86_400, 99_999_999, "0", "1", "12", "", "null", "NaT"]
    rows = [{"id": str(n), "text": "t", "date": v} for n, v in enumerate(written)]
    rows.append('{"id": "nan", "text": "t", "date": NaN}')  # pandas writes a missing value so
    items = await _import(tmp_path, rows)
    records = _records(items)
    assert not _errors(items)
    assert set(records) == {str(n) for n in range(len(written))} | {"nan"}
    assert {k: r.at for k, r in records.items() if r.at is not None} == {}
    # The value is not lost: it stays in meta under its key.
    assert [records[str(n)].meta["date"] for n in range(len(written))] == written


async def test_a_year_is_that_year(tmp_path: Path) -> None:
    rows = [
        {"id": "a", "text": "t", "date": 2019},
        {"id": "b", "text": "t", "year": 2019},
        {"id": "c", "text": "t", "year": "2019"},
        {"id": "d", "text": "t", "date": "2019"},
        {"id": "e", "text": "t", "year": "2019/20"},  # a season: no date, no error
        {"id": "f", "text": "t", "year": 5},
        {"id": "g", "text": "t", "date": 999},
    ]
    records = _records(await _import(tmp_path, rows))
    assert {k: r.at.iso() for k, r in records.items() if r.at} == dict.fromkeys(
        "abcd", "2019-01-01T00:00:00.000Z"
    )
    assert set(records) == set("abcdefg")
    assert records["b"].meta == {} and records["e"].meta == {"year": "2019/20"}


async def test_a_spreadsheets_serial_day_under_a_key_that_names_a_date(tmp_path: Path) -> None:
    rows = [
        {"id": "a", "text": "t", "date": 45123},
        {"id": "b", "text": "t", "Date": 45123.5},  # a CSV's header, a day and a time
        {"id": "c", "text": "t", "date": "45123.75"},  # the CSV's cell kept as a string
        {"id": "d", "text": "t", "when": 45123},
        {"id": "e", "text": "t", "time": 45123},  # a duration as often as a day: no date
    ]
    records = _records(await _import(tmp_path, rows))
    assert records["a"].at == At.of("2023-07-16")
    assert records["b"].at == At.of("2023-07-16T12:00:00")  # a wall clock time: local
    assert records["c"].at == At.of("2023-07-16T18:00:00")
    assert records["e"].at is None and records["e"].meta == {"time": 45123}
    mapped = _records(await _import(tmp_path, rows[3:4], fields={"at": "when"}))
    assert mapped["d"].at is None  # "when" does not say it is a day
    mapped = _records(await _import(tmp_path, [{"id": "x", "text": "t", "day_date": 45123}],
                                    fields={"at": "day_date"}))  # fmt: skip
    assert mapped["x"].at == At.of("2023-07-16")


async def test_the_date_keys_real_tools_write_are_read(tmp_path: Path) -> None:
    iso = "2023-11-14T22:13:20Z"
    meant = At.of(iso)
    keys = ["ts", "created", "datetime", "sent_at", "@timestamp", "createdAt", "sentAt",
            "created_utc", "create_time", "creationTime", "updated_at", "Timestamp", "DATE"]  # fmt: skip
    rows: list[Any] = [{"id": k, "text": "t", k: iso} for k in keys]
    rows += [
        {"id": "slack", "text": "t", "ts": "1700000000.000200"},
        {"id": "mongo-number", "text": "t", "date": {"$numberLong": "1700000000000"}},
        {"id": "mongo-v1", "text": "t", "date": {"$date": 1700000000000}},
        {"id": "firestore", "text": "t", "createdAt": {"_seconds": 1700000000, "_nanoseconds": 0}},
        {
            "id": "php",  # PHP's DateTime, as json_encode writes it
            "text": "t",
            "created_at": {
                "date": "2023-11-14 23:13:20.000000",
                "timezone_type": 3,
                "timezone": "Europe/Berlin",
            },
        },
        # A record's creation comes before its last change, whatever the order of its keys.
        {"id": "order", "text": "t", "updated_at": "2024-01-01", "created": iso},
        # A key that holds no date gives way to the next that does.
        {"id": "next", "text": "t", "date": "Tuesday", "created_at": iso},
    ]
    items = await _import(tmp_path, rows)
    assert not _errors(items)
    records = _records(items)
    assert {k: r.at for k, r in records.items()} == dict.fromkeys(records, meant)
    assert records["order"].meta == {"updated_at": "2024-01-01"}
    assert records["next"].meta == {"date": "Tuesday"}


async def test_zones_given_by_name(tmp_path: Path) -> None:
    written = {
        "cest": "2024-05-03 10:00 CEST",
        "cest-iso": "2024-05-03T10:00:00 CEST",
        "rfc2822": "Fri, 03 May 2024 10:00:00 CEST",
        "comment": "Fri, 3 May 2024 10:00:00 +0200 (CEST)",
        "rfc9557": "2024-05-03T10:00:00+02:00[Europe/Berlin]",
        "iana": "2024-05-03T10:00:00[Europe/Berlin]",
        "iana-space": "2024-05-03 10:00 Europe/Berlin",
        "jst": "2024-05-03 17:00 JST",
        "offset": "2024-05-03T13:30:00+0530",
        "offset-colon": "2024-05-03 13:30:00 +05:30",
        "iso-spaced-offset": "2024-05-03T13:30:00 +05:30",
        "utc-bracket": "2024-05-03T08:00:00Z[UTC]",
    }
    rows = [{"id": k, "text": "t", "date": v} for k, v in written.items()]
    items = await _import(tmp_path, rows)
    assert not _errors(items)
    meant = At.of("2024-05-03T08:00:00Z")
    assert {k: r.at for k, r in _records(items).items()} == dict.fromkeys(written, meant)


async def test_days_written_day_first_leap_seconds_and_12_hour_clocks(tmp_path: Path) -> None:
    written = {
        "dots": ("03.05.2024", "2024/05/03"),  # dots: day first, in every locale that uses them
        "dots-time": ("31.12.1999 23:59", "1999/12/31 23:59"),
        "day-past-12": ("13/05/2024", "2024/05/13"),
        # Month first alone, as Date.parse reads it; day first here, since "13/05/2024"
        # under the same key of the same file says the file writes the day first.
        "ambiguous": ("03/05/2024", "2024/05/03"),
        "leap": ("2016-12-31T23:59:60Z", "2017-01-01T00:00:00Z"),
        "pm": ("2024-05-03 10:00 PM", "2024-05-03T22:00:00"),
        "pm-first": ("10:00 PM, May 3 2024", "2024-05-03T22:00:00"),
        "twitter": ("Wed Oct 10 20:19:24 +0000 2018", "2018-10-10T20:19:24Z"),
    }
    rows = [{"id": k, "text": "t", "date": v} for k, (v, _) in written.items()]
    items = await _import(tmp_path, rows)
    assert not _errors(items)
    assert {k: r.at for k, r in _records(items).items()} == {
        k: At.of(m) for k, (_, m) in written.items()
    }


async def test_a_flag_an_object_or_a_list_under_a_date_key_stays_in_meta(tmp_path: Path) -> None:
    rows = [
        {"id": "a", "text": "t", "created": True},  # an API's "was it created"
        {"id": "b", "text": "t", "date": {"from": "2024-01-01", "to": "2024-01-02"}},
        {"id": "c", "text": "t", "date": ["2024-01-01", "2024-02-01"]},
        {"id": "d", "text": "t", "created": False, "date": "2024-01-01"},
        {"id": "e", "text": "t", "time": {"seconds": "5", "nanos": 0}},  # a duration
        {"id": "f", "text": "t", "time": "10:32"},  # a time of day alone names no day
    ]
    items = await _import(tmp_path, rows)
    assert not _errors(items)
    records = _records(items)
    assert [records[k].at for k in "abcef"] == [None] * 5
    assert records["f"].meta == {"time": "10:32"}
    assert records["b"].meta == {"date": rows[1]["date"]}
    assert records["d"].at == At.of("2024-01-01") and records["d"].meta == {"created": False}


async def test_what_is_no_date_is_still_an_error_naming_the_line(tmp_path: Path) -> None:
    rows = [
        {"id": "a", "text": "t", "date": "Tuesday"},
        {"id": "b", "text": "t", "when": True},
        {"id": "c", "text": "t", "date": {"$date": {"$numberLong": "soon"}}},
        {"id": "d", "text": "t", "date": "2024-05-03 10:00 XYZ"},
        {"id": "e", "text": "t", "date": "x" * 5000},
        '{"id": "f", "text": "t", "date": Infinity}',
        {"id": "g", "text": "kept", "when": 0},
    ]
    items = await _import(tmp_path, rows, fields={"at": "when"})
    errors = _errors(items)
    assert set(errors) == {"line 2"} and "'when' (mapped to at)" in errors["line 2"]
    items = await _import(tmp_path, rows)
    errors = _errors(items)
    assert set(errors) == {"line 1", "line 3", "line 4", "line 5", "line 6"}
    assert errors["line 1"] == "field 'date': not a date: 'Tuesday'"
    assert len(errors["line 5"]) < 200
    assert set(_records(items)) == {"b", "g"}


async def test_a_day_and_its_time_of_day_in_two_columns_are_one_time(tmp_path: Path) -> None:
    rows = [
        {"id": "a", "text": "t", "date": "2024-05-03", "time": "10:32"},
        {"id": "b", "text": "t", "Date": "03.05.2024", "Time": "10:32 PM"},
        {"id": "c", "text": "t", "date": "May 3, 2024", "time": "22:00 CEST"},
        {"id": "d", "text": "t", "date": "2024-05-03T09:00:00Z", "time": "10:32"},
        {"id": "e", "text": "t", "date": "2024-05-03", "time": "25:99"},
    ]
    records = _records(await _import(tmp_path, rows))
    assert records["a"].at == At.of("2024-05-03T10:32:00") and records["a"].meta == {}
    assert records["b"].at == At.of("2024-05-03T22:32:00") and records["b"].meta == {}
    assert records["c"].at == At.of("2024-05-03T20:00:00Z")
    # A date that has its time keeps it; a time of day that is none stays in meta.
    assert records["d"].at == At.of("2024-05-03T09:00:00Z")
    assert records["d"].meta == {"time": "10:32"}
    assert records["e"].at == At.of("2024-05-03") and records["e"].meta == {"time": "25:99"}


async def test_digits_of_a_day_and_dotnet_dates(tmp_path: Path) -> None:
    rows = [
        {"id": "day", "text": "t", "date": 20240503},  # an int column of days (SQL, pandas)
        {"id": "stamp", "text": "t", "date": "20240503103200"},  # not the year 2611
        {"id": "stamp-int", "text": "t", "date": 20240503103200},
        {"id": "dotnet", "text": "t", "date": "/Date(1700000000000+0200)/"},
        {"id": "count", "text": "t", "date": 20241399},  # no month 13: no date
    ]
    items = await _import(tmp_path, rows)
    assert not _errors(items)
    records = _records(items)
    assert records["day"].at == At.of("2024-05-03")
    assert records["stamp"].at == records["stamp-int"].at == At.of("2024-05-03T10:32:00")
    assert records["dotnet"].at == At.of("2023-11-14T22:13:20Z")
    assert records["count"].at is None and records["count"].meta == {"date": 20241399}


async def test_months_named_in_other_languages(tmp_path: Path) -> None:
    written = {
        "fr": ("3 mai 2024 10:00", "2024-05-03T10:00:00"),  # no zone: local, as Date.parse
        "de": ("3. März 2024 10:00", "2024-03-03T10:00:00"),
        "es": ("3 de mayo de 2024", "2024-05-03T00:00:00"),
        "it-zone": ("3 maggio 2024 10:00 CEST", "2024-05-03T08:00:00Z"),
        "fr-offset": ("3 mai 2024 10:00 +0200", "2024-05-03T08:00:00Z"),
    }
    rows = [{"id": k, "text": "t", "date": v} for k, (v, _) in written.items()]
    items = await _import(tmp_path, rows)
    assert not _errors(items)
    assert {k: r.at for k, r in _records(items).items()} == {
        k: At.of(m) for k, (_, m) in written.items()
    }
