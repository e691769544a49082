"""A folder of .eml files that gains a file reusing a stored mail's Message-ID for other
words: the stored mail keeps its id and the new one is added under ``<id>#hex``, whatever
the file names, so the run says "added 1" and a re-run says nothing changed."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from helpers import collect, records

from memtrails.cli import main
from memtrails.importers.eml import from_eml


def mail(subject: str, mid: str, body: str, date: str | None) -> bytes:
    dated = f"Date: {date}\n" if date is not None else ""
    return (
        f"From: someone@example.com\nSubject: {subject}\n{dated}Message-ID: <{mid}>\n\n{body}\n"
    ).encode()


STORED = mail("budget meeting", "reused@x", "The budget meeting moves to Thursday.", None)
NEWER = mail("orchard harvest", "reused@x", "The pear orchard starts Monday.", None)


def _add(home: Path, folder: Path) -> dict[str, int]:
    args = ["add", str(folder), "--kind", "eml", "--home", str(home), "--json"]
    result = CliRunner().invoke(main, args, catch_exceptions=False)
    assert result.exit_code == 0, result.stderr
    report: dict[str, int] = json.loads(result.stdout)
    return report


@pytest.mark.parametrize(
    ("stored_date", "new_date"),
    [
        ("Mon, 1 Jan 2024 10:00:00 +0000", "Wed, 3 Jan 2024 10:00:00 +0000"),
        ("Tue, 2 Jan 2024 01:00:00 +0000", "Mon, 1 Jan 2024 23:30:00 -0500"),  # 04:30 UTC
        ("Mon, 1 Jan 2024 10:00:00 +0000", None),  # the newcomer says no date
    ],
    ids=["later day", "later instant", "no date"],
)
def test_a_new_file_sorting_first_does_not_take_a_stored_mails_id(
    tmp_path: Path, stored_date: str, new_date: str | None
) -> None:
    # Before: "a.eml" sorts before "m.eml", took the plain id, and the stored mail was
    # moved to "reused@x#..." ("updated": 1, "added": 1)
    folder, home = tmp_path / "saved", tmp_path / "home"
    folder.mkdir()
    (folder / "m.eml").write_bytes(
        STORED.replace(b"Message-ID", f"Date: {stored_date}\nMessage-ID".encode())
    )
    assert _add(home, folder)["added"] == 1
    newer = (
        NEWER
        if new_date is None
        else NEWER.replace(b"Message-ID", f"Date: {new_date}\nMessage-ID".encode())
    )
    (folder / "a.eml").write_bytes(newer)
    second = _add(home, folder)
    assert (second["added"], second["updated"]) == (1, 0)
    again = _add(home, folder)
    assert (again["added"], again["updated"]) == (0, 0)


async def test_the_ids_do_not_depend_on_the_file_names(tmp_path: Path) -> None:
    old = mail("budget meeting", "reused@x", "Budget on Thursday.", "Mon, 1 Jan 2024 10:00 +0000")
    new = mail("orchard", "reused@x", "Pears on Monday.", "Fri, 5 Jan 2024 10:00 +0000")
    copy = old  # a second file holding the first mail: still one record
    got = []
    for names in itertools.permutations("abc"):
        folder = tmp_path / "".join(names)
        folder.mkdir()
        for name, data in zip(names, (old, new, copy), strict=True):
            (folder / f"{name}.eml").write_bytes(data)
        got.append(sorted((r.id, r.title) for r in records(await collect(from_eml(folder)))))
    assert all(one == got[0] for one in got)
    assert ("reused@x", "budget meeting") in got[0] and len(got[0]) == 2
