"""A time named by an event ("before the migration"): found in the folder, then lifted as a date."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from memtrails import Memory
from memtrails.folder.index._base import SearchFilter, SparseVector
from memtrails.folder.when import EARLIEST, LATEST, Windows
from memtrails.folder.windows import Event, event_named, search_windows
from memtrails.records import At, MemoryRecord


@pytest.mark.parametrize(
    ("query", "event"),
    [
        ("What broke before the Postgres migration?", Event("before", "the Postgres migration")),
        ("Which alerts fired after the outage, and why?", Event("after", "the outage")),
        ("What did we try prior to the reorg", Event("before", "the reorg")),
        ("Where did he live until he moved to Leeds?", Event("before", "he moved to Leeds")),
        ("How does she get to work since she sold the car?", Event("after", "she sold the car")),
        ("What changed following the launch of v2?", Event("after", "the launch of v2")),
        ("Ever since the office move, who books the rooms?", Event("after", "the office move")),
        ("What did he say after meeting Sara?", Event("after", "meeting Sara")),
        (
            "How did Leek change once her siblings had gone?",
            Event("after", "her siblings had gone"),
        ),
        (
            "Who fed them before her sons and daughters came?",
            Event("before", "her sons and daughters came"),
        ),
    ],
)
def test_the_event_is_the_clause_after_the_word_that_places_the_answer(
    query: str, event: Event
) -> None:
    assert event_named(query) == event


@pytest.mark.parametrize(
    "query",
    [
        "Have we seen this error before?",
        "What happened after that?",
        "What does the following error mean?",
        "Who looked after the dog?",
        "What is the project named after?",
        "What did Ines eat before work?",
        "What changed after 3 retries?",
        "What did we decide before 2020?",
        "Notes on the migration",
        "We meet once a week: who chairs it?",
        "Why is the order missing right after placing it?",
    ],
)
def test_no_event_where_the_words_name_none(query: str) -> None:
    assert event_named(query) is None


def note(uid: str, text: str, at: str) -> MemoryRecord:
    return MemoryRecord(id=uid, text=text, kind="note", at=at, source="ops-notes")


async def windows_of(memory: Memory, embedder: Any, query: str) -> Windows:
    """The windows a search of ``query`` lifts, the folder dating any event it names."""
    folder = memory._open_folder()
    dense = await embedder.embed_query(query)
    return await search_windows(
        query, None, (folder.index, folder.table, folder.log), dense, SearchFilter(), 0.0
    )


FILLER = [
    "Booked the team offsite venue for the spring, a barn near the river with a projector.",
    "New hire onboarding checklist: laptop, badge, the wiki tour and a buddy for two weeks.",
    "The office plants are dying again; facilities will send someone on Thursday.",
    "Quarterly budget review moved to Friday; bring the cloud spend breakdown.",
    "The design team wants feedback on the new logo before the end of the month.",
    "Parking passes for visitors are now at the front desk, not with security.",
]


async def test_a_record_on_the_named_side_of_an_event_comes_first(
    tmp_path: Path, embedder: Any
) -> None:
    # The two alarms read alike; only the migration between them tells them apart, and the
    # notes say when it was: the note that names it.
    before = note(
        "feb",
        "Replica lag alarm fired overnight. Restarted the MySQL read replica and it caught up.",
        "2023-02-10T08:00:00Z",
    )
    event = note(
        "mar",
        "The database migration is finished: every service now uses the new Postgres cluster.",
        "2023-03-14T17:00:00Z",
    )
    after = note(
        "apr",
        "Replica lag alarm fired overnight. Autovacuum on the Postgres standby fell behind.",
        "2023-04-20T08:00:00Z",
    )
    filler = [
        note(f"f{n}", text, f"2023-{1 + n:02d}-05T09:00:00Z") for n, text in enumerate(FILLER)
    ]
    async with Memory.open(tmp_path / "m", embedder=embedder) as memory:
        await memory.ingest([before, event, after, *filler])
        found = {
            side: await memory.search(
                f"What happened with the replica lag alarm {side} the migration?"
            )
            for side in ("before", "after")
        }
        windows = await windows_of(memory, embedder, "What happened before the migration?")
    assert (found["before"][0].id, found["after"][0].id) == ("feb", "apr")
    assert windows == ((EARLIEST, At.of("2023-03-14T17:00:00Z").ms + 1),)


async def test_an_event_the_folder_never_names_dates_nothing(tmp_path: Path, embedder: Any) -> None:
    # Some record is always closest in meaning to "the merger"; none names it, so none
    # dates it, and the search lifts no time.
    filler = [
        note(f"f{n}", text, f"2023-{1 + n:02d}-05T09:00:00Z") for n, text in enumerate(FILLER)
    ]
    async with Memory.open(tmp_path / "m", embedder=embedder) as memory:
        await memory.ingest(filler)
        assert await windows_of(memory, embedder, "What did we book before the merger?") == ()
        # The offsite is named, in the first filler note (January).
        assert await windows_of(memory, embedder, "What did we book after the offsite?") == (
            (At.of("2023-01-05T09:00:00Z").ms, LATEST),
        )


async def test_a_plan_that_names_its_events_time_dates_the_event_then(
    tmp_path: Path, embedder: Any
) -> None:
    # A plan is written long before what it plans: its own time would date the offsite in
    # January. Read from when each was written, the sentence that names the event says when.
    plan = note("plan", "Booked the barn for the offsite on June 12th. Bring boots.", "2023-01-05")
    recap = note("recap", "The launch party was on May 3rd, a long night.", "2023-06-20")
    async with Memory.open(tmp_path / "m", embedder=embedder) as memory:
        await memory.ingest([plan, recap])
        before = await windows_of(memory, embedder, "What did we buy before the offsite?")
        after = await windows_of(memory, embedder, "Who left after the launch party?")
    assert before == ((EARLIEST, At.of("2023-06-13").ms),)
    assert after == ((At.of("2023-05-03").ms, LATEST),)


async def test_a_search_dates_the_event_without_a_second_scan_by_meaning(
    tmp_path: Path, embedder: Any
) -> None:
    # The search's own call already holds the passages nearest the query; the event's date
    # comes out the same from them, and the index is asked only the event's words.
    filler = [
        note(f"f{n}", text, f"2023-{1 + n:02d}-05T09:00:00Z") for n, text in enumerate(FILLER)
    ]
    query = "What did we book after the offsite?"
    async with Memory.open(tmp_path / "m", embedder=embedder) as memory:
        await memory.ingest(filler)
        folder = memory._open_folder()
        dense = await embedder.embed_query(query)
        nearest, _ = await folder.index.candidates(dense, SparseVector([], []), 40, SearchFilter())
        asked: list[bool] = []
        candidates = folder.index.candidates

        async def counted(dense: Any, *args: Any) -> Any:
            asked.append(dense is not None)
            return await candidates(dense, *args)

        folder.index.candidates = counted  # type: ignore[method-assign,assignment]
        windows = await search_windows(
            query,
            None,
            (folder.index, folder.table, folder.log),
            dense,
            SearchFilter(),
            0.0,
            nearest,
        )
    assert windows == ((At.of("2023-01-05T09:00:00Z").ms, LATEST),)
    assert asked == [False]
