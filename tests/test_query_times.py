"""Times a query names: relative ("last week"), partial ("in May", "2019"), and the boost."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from memtrails import Memory
from memtrails.folder.index._base import Hit, SearchFilter, SparseVector
from memtrails.folder.ranking import DATE_BOOST, rank_records
from memtrails.folder.when import query_windows
from memtrails.folder.windows import written_then
from memtrails.records import At, MemoryRecord
from memtrails.testing import HashingEmbedder
from memtrails.words import keyword_vector

# A Friday.
NOW = datetime(2024, 5, 3, 15, 0, tzinfo=UTC)


def day(ms: int) -> str:
    return datetime.fromtimestamp(ms / 1000, UTC).date().isoformat()


@pytest.mark.parametrize(
    ("query", "start", "end"),
    [
        ("what broke last week?", "2024-04-22", "2024-04-29"),
        ("what did I note this week", "2024-04-29", "2024-05-06"),
        ("notes from yesterday", "2024-05-02", "2024-05-03"),
        ("what did we do last weekend", "2024-04-27", "2024-04-29"),
        ("the plan we made last month", "2024-04-01", "2024-05-01"),
        ("what changed last year", "2023-01-01", "2024-01-01"),
        ("the outage three weeks ago", "2024-04-09", "2024-04-16"),
        ("what did we eat last Friday?", "2024-04-26", "2024-04-27"),  # a week ago: NOW is one
        ("who called last Monday", "2024-04-29", "2024-04-30"),
        ("what did we decide in 2019", "2019-01-01", "2020-01-01"),
        ("2019 budget review", "2019-01-01", "2020-01-01"),
        ("what happened in April 2003", "2003-04-01", "2003-05-01"),
        # Said loosely, or of a season, a quarter or a range of months.
        ("what did I buy the day before yesterday", "2024-05-01", "2024-05-02"),
        ("what did Tom do the week before last?", "2024-04-15", "2024-04-22"),
        ("what did Caroline do two weekends ago?", "2024-04-20", "2024-04-22"),
        ("what happened a few days ago", "2024-04-29", "2024-05-02"),
        ("what she said a couple of weeks ago", "2024-04-12", "2024-04-27"),
        ("what did Melanie paint last summer?", "2023-06-01", "2023-09-01"),
        ("where did we ski last winter", "2023-12-01", "2024-03-01"),
        ("what did Ana do in the spring of 2023?", "2023-03-01", "2023-06-01"),
        ("the summer 2022 trip", "2022-06-01", "2022-09-01"),
        ("what did we ship in Q2 2023?", "2023-04-01", "2023-07-01"),
        ("what did we plan last quarter", "2024-01-01", "2024-04-01"),
        ("what happened between March and May 2023?", "2023-03-01", "2023-06-01"),
        ("from November to February 2024", "2023-11-01", "2024-03-01"),
    ],
)
def test_a_query_names_one_window(query: str, start: str, end: str) -> None:
    [(a, b)] = query_windows(query, NOW)
    assert (day(a), day(b)) == (start, end)


@pytest.mark.parametrize(
    ("query", "first", "last"),
    [
        ("what did John do over the summer?", "06-01", "09-01"),
        ("what did we decide in Q3?", "07-01", "10-01"),
        ("what happened on May 3rd?", "05-03", "05-04"),
        ("what happened on the 3rd of May?", "05-03", "05-04"),
    ],
)
def test_a_season_quarter_or_day_without_a_year_is_that_of_every_year(
    query: str, first: str, last: str
) -> None:
    windows = query_windows(query, NOW)
    assert {day(a)[:4] for a, _ in windows} >= {"2019", "2023", "2025"}
    assert all((day(a)[5:], day(b)[5:]) == (first, last) for a, b in windows)


def test_a_month_without_a_year_is_that_month_of_every_year() -> None:
    windows = query_windows("what did Maya make in June?", NOW)
    starts = {day(a) for a, _ in windows}
    assert {"2023-06-01", "2019-06-01", "2025-06-01"} <= starts
    assert all(day(a)[5:7] == "06" and day(b)[5:7] == "07" for a, b in windows)


@pytest.mark.parametrize(
    "query",
    [
        "2019",  # a bare number alone is a lookup, not a year
        "listen on port 2003",
        "Python 2.7 vs 3.11",
        "issue 2019 is still open",
        "it costs $2019",
        "the meeting at 20:19",
        "may I ask about the march of the penguins",
        "the 1850 census",  # before 1970: no record of a folder is dated then
        "what did we answer for Q3 of the survey?",
        "fall in love with the summer of code",
    ],
)
def test_numbers_and_words_that_are_no_time_name_none(query: str) -> None:
    assert query_windows(query, NOW) == ()


def test_any_window_lifts_a_record_once() -> None:
    june_2023 = int(datetime(2023, 6, 10, tzinfo=UTC).timestamp() * 1000)
    march_2023 = int(datetime(2023, 3, 10, tzinfo=UTC).timestamp() * 1000)
    dense = [
        Hit("march", 0.70, {"uid": "march", "at": march_2023}),
        Hit("june", 0.69, {"uid": "june", "at": june_2023}),
        Hit("x", 0.2, {"uid": "x"}),
    ]
    plain = rank_records(dense, [])
    lifted = rank_records(dense, [], windows=query_windows("in June", NOW))
    assert plain[0].uid == "march" and lifted[0].uid == "june"
    assert lifted[0].score == pytest.approx(plain[1].score + DATE_BOOST)


async def test_last_week_counts_from_the_time_asked(tmp_path: Path) -> None:
    """Two turns alike but for their dates: "last week" picks the one of the week before
    ``now``, and a ``now`` a month later picks the other."""
    async with Memory.open(tmp_path / "m", embedder=HashingEmbedder()) as memory:
        await memory.ingest(
            [
                MemoryRecord(id="april", text="The gull took the drone", at="2024-04-24T10:00:00Z"),
                MemoryRecord(id="may", text="The gull took the drone", at="2024-05-22T10:00:00Z"),
            ]
        )
        first = await memory.search("what did the gull take last week?", now=NOW)
        assert first[0].id == "april"
        later = await memory.search("what did the gull take last week?", now="2024-05-29")
        assert later[0].id == "may"


@pytest.mark.parametrize(
    ("query", "start", "end"),
    [
        ("what did we use before 2020?", None, "2020-01-01"),
        ("who led it prior to Q2 2023", None, "2023-04-01"),
        ("what did we run until last month", None, "2024-05-01"),  # the month itself too
        ("what changed after May 2023", "2023-06-01", None),
        ("what broke after last week?", "2024-04-29", None),
        ("anything new following 3 April 2024?", "2024-04-04", None),
        ("what did we have before the summer of 2023", None, "2023-06-01"),
    ],
)
def test_a_time_after_before_or_since_is_all_the_time_on_that_side(
    query: str, start: str | None, end: str | None
) -> None:
    # "before 2020" lifted the records written in 2020: the one year it did not ask for.
    [(a, b)] = query_windows(query, NOW)
    assert (day(a) if start else None, day(b) if end else None) == (start, end)
    assert (start is None) == (a < -(10**15)) and (end is None) == (b > 10**15)


@pytest.mark.parametrize(
    "query",
    [
        "notes from 2019",
        "written by Ana in 2019",
        "what did Ana say before we moved in 2019",
        "how has he been getting to work since 2019?",  # what began then, said then
    ],
)
def test_a_word_that_does_not_govern_the_time_leaves_it_as_named(query: str) -> None:
    [(a, b)] = query_windows(query, NOW)
    assert (day(a), day(b)) == ("2019-01-01", "2020-01-01")


async def test_before_and_after_pick_the_record_on_their_side(tmp_path: Path) -> None:
    async with Memory.open(tmp_path / "m", embedder=HashingEmbedder()) as memory:
        await memory.ingest(
            [
                MemoryRecord(id=f"y{year}", text="We moved the build to a new CI runner", at=at)
                for year, at in ((2019, "2019-03-02T10:00:00Z"), (2021, "2021-09-14T10:00:00Z"))
            ]
        )
        before = await memory.search("which CI runner did we move to before 2020?", now=NOW)
        after = await memory.search("which CI runner did we move to after 2020?", now=NOW)
    assert (before[0].id, after[0].id) == ("y2019", "y2021")


async def test_the_index_is_asked_for_what_was_written_in_the_one_time_named(
    tmp_path: Path, embedder: Any
) -> None:
    # A long chat says the same things month after month: the June turns hold the question's
    # words, the April one that answers says "14 km on Saturday" and none of them. The
    # date's lift reaches only candidates, so the index is asked for the best passages
    # written then as well (windows.written_then).
    said = [
        "My longest run so far was {} km, the river path again, legs are dead.",
        "Long run on Sunday: {} km. Far too hilly, never again.",
        "We ran {} km along the canal, the longest Rui has ever done with me.",
    ]
    later = [
        MemoryRecord(
            id=f"june{n}",
            text=said[n % len(said)].format(n + 10),
            kind="chat",
            at=f"2023-06-{1 + n % 28:02d}T19:00:00Z",
            source="chat",
        )
        for n in range(60)
    ]
    april = MemoryRecord(
        id="april",
        text="Rui says it's a midlife crisis. By the way, I did 14 km on Saturday, a record!",
        kind="chat",
        at="2023-04-16T10:00:00Z",
        source="chat",
    )
    question = "How far was the longest run in April 2023?"
    async with Memory.open(tmp_path / "m", embedder=embedder) as memory:
        await memory.ingest([april, *later])
        folder = memory._open_folder()
        dense = await embedder.embed_query(question)
        terms = keyword_vector(question)
        sparse = SparseVector(list(terms), list(terms.values()))
        by_meaning, by_words = await folder.index.candidates(dense, sparse, 40, SearchFilter())
        assert "april" not in {uid_id(folder, h.uid) for h in (*by_meaning, *by_words)}

        windows = query_windows(question)
        inside = await written_then(folder.index, dense, sparse, SearchFilter(), windows)
        assert {uid_id(folder, h.uid) for h in inside[0]} == {"april"}
        # A filter that leaves nothing of the window asks nothing; nor does "in May" (a
        # window each year) or a question that names no time.
        june = SearchFilter(since_ms=At.of("2023-06-01").ms)
        assert await written_then(folder.index, dense, sparse, june, windows) == ([], [])
        for none in (query_windows("the longest run in May"), ()):
            assert await written_then(folder.index, dense, sparse, SearchFilter(), none) == (
                [],
                [],
            )


def uid_id(folder: Any, uid: str) -> str:
    row = folder.table.get(uid)
    return str(folder.log.read_line(row.offset)["id"])


@pytest.mark.parametrize(
    ("query", "first_day"),
    [
        ("what happened on 08.05.2023?", "2023-05-08"),  # dots: day first
        ("Was war am 8.5.2023 los?", "2023-05-08"),
        ("the invoice dated 31.12.2022", "2022-12-31"),
        ("the call on 05/08/2023", "2023-05-08"),  # slashes: month first, as in the US
        ("the call on 31/12/2022", "2022-12-31"),  # unless the first cannot be a month
        ("version 1.2.2023 notes", None),  # a version, not a day
        ("the meeting on 31.02.2022", None),  # no such day
    ],
)
def test_a_date_written_in_numbers_names_its_day(query: str, first_day: str | None) -> None:
    windows = query_windows(query, NOW)
    assert [day(start) for start, _ in windows] == ([first_day] if first_day else [])
