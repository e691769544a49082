"""A mail source read again from cron (an mbox appended to, a Maildir with new files) where a
new mail reuses the Message-ID of one an earlier run read, for other words: both are kept,
under the ids one pass over the whole source gives them; a copy of the earlier mail is
still folded into it, and the last mail read again is still the same record."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner
from helpers import collect, records

from memtrails.cli import main
from memtrails.importers.mail.book import MailBook
from memtrails.importers.maildir import from_maildir
from memtrails.importers.mbox import from_mbox
from memtrails.records import SourceState


def mail(subject: str, mid: str, body: str, day: int = 1) -> bytes:
    return (
        f"From: someone@example.com\nSubject: {subject}\n"
        f"Date: Mon, {day} Jan 2024 10:00:00 +0000\nMessage-ID: <{mid}>\n\n{body}\n"
    ).encode()


def entry(data: bytes) -> bytes:
    return b"From x Mon Jan  1 00:00:00 2024\n" + data + b"\n"


FIRST = mail("budget meeting", "reused@example.com", "The budget meeting moves to Thursday.")
OTHER = mail("lunch", "lunch@example.com", "Lunch is at noon.", day=2)
SECOND = mail(
    "orchard harvest", "reused@example.com", "The pear orchard harvest starts Monday.", day=3
)


def _add(home: Path, box: Path) -> dict[str, object]:
    args = ["add", str(box), "--home", str(home), "--json"]
    result = CliRunner().invoke(main, args, catch_exceptions=False)
    assert result.exit_code == 0, result.stderr
    report: dict[str, object] = json.loads(result.stdout)
    return report


def _titles(home: Path, query: str) -> list[str]:
    args = ["search", query, "--home", str(home), "--json"]
    result = CliRunner().invoke(main, args, catch_exceptions=False)
    assert result.exit_code == 0, result.stderr
    return [hit["title"] for hit in json.loads(result.stdout)]


def test_a_mail_appended_that_reuses_an_earlier_runs_id_is_added(tmp_path: Path) -> None:
    # Before: the second run read only the appended mail, took it for the earlier one
    # changed ("updated": 1), and the budget meeting was gone from the memory.
    box, home = tmp_path / "inbox.mbox", tmp_path / "home"
    box.write_bytes(entry(FIRST) + entry(OTHER))
    first = _add(home, box)
    assert first["added"] == 2
    with box.open("ab") as f:
        f.write(entry(SECOND))
    second = _add(home, box)
    assert (second["added"], second["updated"]) == (1, 0)
    assert "budget meeting" in _titles(home, "budget meeting Thursday")
    assert "orchard harvest" in _titles(home, "pear orchard harvest")
    again = _add(home, box)
    assert (again["added"], again["updated"]) == (0, 0)


async def test_the_appended_mail_gets_the_id_a_whole_pass_gives_it(tmp_path: Path) -> None:
    box = tmp_path / "inbox.mbox"
    box.write_bytes(entry(FIRST) + entry(OTHER))
    (end,) = [i for i in await collect(from_mbox(box)) if isinstance(i, SourceState)]
    with box.open("ab") as f:
        f.write(entry(SECOND) + entry(FIRST))  # a new mail, then a copy of the first one
    items = await collect(from_mbox(box, state=end.state))
    (again,) = [i for i in items if isinstance(i, SourceState)]
    assert again.mode == "incremental"
    got = {r.title: r.id for r in records(items)}
    whole = {r.title: r.id for r in records(await collect(from_mbox(box)))}
    assert got == {"lunch": whole["lunch"], "orchard harvest": whole["orchard harvest"]}
    assert whole["budget meeting"] == "reused@example.com"
    assert whole["orchard harvest"].startswith("reused@example.com#")
    assert again.duplicates == 1  # the copy appended is folded into the first mail


async def test_two_appends_in_a_row_keep_every_mail(tmp_path: Path) -> None:
    # the ids the first run read are still known two runs later
    box = tmp_path / "inbox.mbox"
    box.write_bytes(entry(FIRST) + entry(OTHER))
    state = None
    seen: dict[str, str] = {}
    third = mail("third", "reused@example.com", "A third mail under the same id.", day=4)
    for more in (b"", entry(SECOND), entry(third)):
        with box.open("ab") as f:
            f.write(more)
        items = await collect(from_mbox(box, state=state))
        (end,) = [i for i in items if isinstance(i, SourceState)]
        state = end.state
        for r in records(items):
            assert seen.setdefault(r.id, r.title) == r.title, (r.id, seen)
    assert len(seen) == 4


async def test_the_last_mail_read_again_stays_the_same_record(tmp_path: Path) -> None:
    # the last mail of a run is read again next time: it is not a copy of itself
    box = tmp_path / "inbox.mbox"
    box.write_bytes(entry(FIRST) + entry(SECOND))
    (end,) = [i for i in await collect(from_mbox(box)) if isinstance(i, SourceState)]
    items = await collect(from_mbox(box, state=end.state))
    (again,) = [i for i in items if isinstance(i, SourceState)]
    assert [r.title for r in records(items)] == ["orchard harvest"]
    assert records(items)[0].id.startswith("reused@example.com#")
    assert again.duplicates == 0


async def test_a_new_maildir_file_that_reuses_an_id_is_its_own_record(tmp_path: Path) -> None:
    box = tmp_path / "Maildir"
    for sub in ("cur", "new", "tmp"):
        (box / sub).mkdir(parents=True)
    (box / "cur" / "1.host:2,S").write_bytes(FIRST)
    (end,) = [i for i in await collect(from_maildir(box)) if isinstance(i, SourceState)]
    (box / "new" / "0.host").write_bytes(SECOND)
    (box / "new" / "2.host").write_bytes(FIRST)  # a second delivery of the first mail
    items = await collect(from_maildir(box, state=end.state))
    (new,) = records(items)
    assert new.title == "orchard harvest" and new.id.startswith("reused@example.com#")


def test_a_saved_list_of_ids_from_another_version_is_ignored() -> None:
    book = MailBook()
    for saved in (None, "x", [1], ["not base64!"], {"a": 1}):
        book.recall(saved)
    assert book.placed_ids() == []
