"""An .eml file that holds several messages, each after its own From_ line (an mbox saved
or concatenated under an .eml name): each message is its own record, as the mbox reader
splits them. Before, the file was one record: the messages after the first were read as
the first one's text (their senders, subjects and ids lost, their words misattributed)."""

from __future__ import annotations

from pathlib import Path

from helpers import collect, errors, records

from memtrails.importers.eml import from_eml

SEP = b"From someone@example.com Mon Jan  1 00:00:00 2024\n"


def _mail(n: int, body: str = "words") -> bytes:
    return (
        f"From: p{n}@example.com\nSubject: mail {n}\nMessage-ID: <m{n}@example.com>\n\n{body} {n}\n"
    ).encode()


async def test_an_eml_holding_an_mbox_is_read_message_by_message(tmp_path: Path) -> None:
    folder = tmp_path / "saved"
    folder.mkdir()
    (folder / "a.eml").write_bytes(_mail(0))
    several = SEP + _mail(1) + b"\n" + SEP + _mail(2) + b"\n" + SEP + _mail(3)
    (folder / "b.eml").write_bytes(several.replace(b"\n", b"\r\n"))
    items = await collect(from_eml(folder))
    got = {r.title: (r.id, r.author, r.text, r.meta["path"]) for r in records(items)}
    assert sorted(got) == ["mail 0", "mail 1", "mail 2", "mail 3"]
    for n in (1, 2, 3):
        assert got[f"mail {n}"][0] == f"m{n}@example.com"
        assert got[f"mail {n}"][1] is not None and f"p{n}@example.com" in got[f"mail {n}"][1]
        assert got[f"mail {n}"][2] == f"words {n}"
        assert got[f"mail {n}"][3] == "b.eml"
    assert errors(items) == []


async def test_one_message_with_a_from_line_and_one_quoted_in_it_stays_one(
    tmp_path: Path,
) -> None:
    # A saved message (Thunderbird's "From - date" first line) whose text quotes a From_
    # line after a blank line, no header after it: one message, as before.
    raw = SEP + _mail(1, "see the log:\n\n" + SEP.decode() + "bounced")
    (tmp_path / "one.eml").write_bytes(raw)
    items = await collect(from_eml(tmp_path / "one.eml"))
    (record,) = records(items)
    assert record.title == "mail 1" and "bounced" in record.text


async def test_a_single_eml_file_holding_two_messages(tmp_path: Path) -> None:
    path = tmp_path / "pair.eml"
    path.write_bytes(SEP + _mail(1) + b"\n" + SEP + _mail(2))
    items = await collect(from_eml(path))
    assert sorted(r.title for r in records(items)) == ["mail 1", "mail 2"]


async def test_separators_right_after_text_split_too(corpora: Path, tmp_path: Path) -> None:
    # MimeKit's simple.mbox (MIT): three messages, each "From - " line right after the
    # last line of the one before, as the mbox reader splits them.
    raw = (corpora / "mbox" / "quirks" / "mimekit-simple.mbox").read_bytes()
    (tmp_path / "simple.eml").write_bytes(raw)
    from_file = records(await collect(from_eml(tmp_path / "simple.eml")))
    from memtrails.importers.mbox import from_mbox

    as_mbox = records(await collect(from_mbox(corpora / "mbox" / "quirks" / "mimekit-simple.mbox")))
    assert len(from_file) == len(as_mbox) == 3
    assert [(r.id, r.title, r.text) for r in from_file] == [
        (r.id, r.title, r.text) for r in as_mbox
    ]
