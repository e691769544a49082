"""Text with no charset of its own that is not UTF-8, however short: a note, a transcript
line, a commit message in a legacy charset reads in it; UTF-32 notes and transcripts too."""

# ruff: noqa: RUF001 (Cyrillic, Greek and typographic quotes, on purpose)

from __future__ import annotations

from pathlib import Path

import pytest
from gitrepos import BASE, Repo, env
from helpers import claude_session_lines, collect, errors, records

from memtrails.importers._legacy_text import utf8_first
from memtrails.importers.files import from_files
from memtrails.importers.git import from_git
from memtrails.importers.transcripts import from_agent_transcripts
from memtrails.records import SourceState

# (text, charset it is written in): 3 to 20 bytes, the words a detector cannot tell apart.
SHORT = [
    ("Привет мир", "cp1251"),
    ("Москва", "cp1251"),
    ("Ёлка", "cp1251"),
    ("Всё хорошо", "cp1251"),
    ("Пётр и мир", "cp1251"),
    ("Привет мир", "koi8_r"),
    ("Добрый день", "koi8_r"),
    ("версия", "koi8_r"),  # small letters in KOI8-R are capitals in Windows-1251
    ("книга завтра", "koi8_r"),
    ("хорошо", "cp1251"),
    ("ПРИВЕТ", "cp1251"),
    ("Привет", "cp866"),
    ("Ελληνικά", "cp1253"),
    ("Zażółć gęślą", "cp1250"),
    ("café déjà vu", "latin-1"),
    ("Grüße aus Köln", "latin-1"),
    ("Ärger", "latin-1"),
    ("São Paulo ação", "latin-1"),
    ("¿Qué tal?", "latin-1"),
    ("10 m³", "latin-1"),
    ("Ñandú", "latin-1"),
    ("€ 20,00 “ok”", "cp1252"),
    ("Œuvre — «déjà vu»", "cp1252"),
]


@pytest.mark.parametrize(("text", "charset"), SHORT)
def test_short_legacy_text_reads_in_its_charset(text: str, charset: str) -> None:
    assert utf8_first(text.encode(charset))[0] == text


@pytest.mark.parametrize(
    "text", ["naïve ’quoted’ café", "Привет, мир — ok", "日本語 and 1 stray", "x é y"]
)
def test_utf8_with_a_stray_byte_stays_utf8(text: str) -> None:
    """UTF-8 first: a UTF-8 text with one Windows-1252 byte pasted in (a smart quote) is
    not read whole as Windows-1252 (every letter of it mojibake)."""
    data = text.encode("utf-8") + b" \x92s"
    assert utf8_first(data) == (text + " \u2019s", "utf-8")


async def test_short_legacy_notes_read_in_their_charset(tmp_path: Path) -> None:
    notes = tmp_path / "notes"
    notes.mkdir()
    for k, (text, charset) in enumerate(SHORT):
        (notes / f"n{k}.txt").write_bytes(text.encode(charset))
    items = await collect(from_files(notes))
    assert errors(items) == []
    recs = {r.id: r for r in records(items)}
    assert {rid: r.text for rid, r in recs.items()} == {
        f"n{k}.txt": text for k, (text, _) in enumerate(SHORT)
    }
    assert recs["n0.txt"].meta["encoding"] == "cp1251"
    assert recs["n5.txt"].meta["encoding"] == "koi8_r"


@pytest.mark.parametrize("codec", ["utf-32", "utf-32-be-bom"])
async def test_a_utf32_note_is_text(tmp_path: Path, codec: str) -> None:
    notes = tmp_path / "notes"
    notes.mkdir()
    text = "# Meeting notes\n\nThe ostrich budget — approved (€, ü, 日本).\n"
    data = text.encode(codec) if codec == "utf-32" else b"\0\0\xfe\xff" + text.encode("utf-32-be")
    (notes / "meeting.md").write_bytes(data)
    items = await collect(from_files(notes))
    assert errors(items) == []
    (record,) = records(items)
    assert (record.title, record.text.strip()) == ("Meeting notes", text.strip())


SESSION = "5b1f2c3d-0a4e-4c8b-9d21-7e6f5a4b3c2d"


def session_lines(*texts: str) -> list[str]:
    return claude_session_lines(*texts, session=SESSION, cwd="/home/ann/shop")


UTF32 = {
    "utf-32": lambda text: text.encode("utf-32"),
    "utf-32-be-bom": lambda text: b"\0\0\xfe\xff" + text.encode("utf-32-be"),
    "utf-32-le": lambda text: text.encode("utf-32-le"),
    "utf-32-be": lambda text: text.encode("utf-32-be"),
}


@pytest.mark.parametrize("codec", list(UTF32))
async def test_a_utf32_transcript_reads_every_turn(tmp_path: Path, codec: str) -> None:
    texts = ["the walrus migration plan (€, ü, 日本)", "second turn", "third turn"]
    file = tmp_path / "notes" / f"{SESSION}.jsonl"
    file.parent.mkdir()
    file.write_bytes(UTF32[codec]("".join(session_lines(*texts[:2]))))
    (tmp_path / "notes" / "todo.txt").write_text("a note beside it\n")
    first = await collect(from_agent_transcripts(file))
    assert errors(first) == []
    assert [r.text for r in records(first)] == texts[:2]
    state = first[-1]
    assert isinstance(state, SourceState)
    appended = "".join(session_lines(*texts)[2:])
    with file.open("ab") as f:  # appended in the same encoding, no second byte order mark
        f.write(UTF32["utf-32-le" if codec == "utf-32" else codec.removesuffix("-bom")](appended))
    again = await collect(from_agent_transcripts(file, state=state.state))
    assert errors(again) == []
    assert [r.text for r in records(again)] == texts[2:]


async def test_a_short_legacy_transcript_line_reads_in_its_charset(tmp_path: Path) -> None:
    texts = ["Привет мир", "Ёлка", "café déjà vu"]
    file = tmp_path / "s.jsonl"
    lines = session_lines(*texts)
    file.write_bytes(
        b"".join(
            line.encode(c) for line, c in zip(lines, ["cp1251", "cp1251", "cp1252"], strict=True)
        )
    )
    items = await collect(from_agent_transcripts(file))
    assert errors(items) == []
    assert [r.text for r in records(items)] == texts


@pytest.mark.parametrize(
    ("message", "charset"),
    [("Фикс бага", "cp1251"), ("Правка", "koi8_r"), ("Grüße", "latin-1"), ("Ελληνικά", "cp1253")],
)
async def test_a_short_commit_message_in_a_legacy_charset(
    tmp_path: Path, message: str, charset: str
) -> None:
    import subprocess

    repo = Repo(tmp_path / "r")
    repo.commit("first")
    tree = subprocess.run(
        ["git", "-C", str(repo.path), "write-tree"], env=env(), check=True, capture_output=True
    ).stdout.strip()
    ident = b"Ann <ann@example.org> %d +0000\n" % BASE
    body = b"tree " + tree + b"\nauthor " + ident + b"committer " + ident + b"\n"
    body += message.encode(charset) + b"\n"
    done = subprocess.run(
        ["git", "-C", str(repo.path), "hash-object", "-t", "commit", "-w", "--stdin"],
        input=body,
        env=env(),
        check=True,
        capture_output=True,
    )
    sha = done.stdout.decode().strip()
    subprocess.run(["git", "-C", str(repo.path), "update-ref", "HEAD", sha], env=env(), check=True)
    items = await collect(from_git(repo.path))
    assert errors(items) == []
    (record,) = [r for r in records(items) if r.id == sha]
    assert (record.title, record.text) == (message, message)
