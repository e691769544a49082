"""Transcripts saved in UTF-16 (with or without a BOM), UTF-8 with a BOM, or Windows-1252."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from helpers import claude_session_lines, collect, errors, records

from memtrails.importers.transcripts import from_agent_transcripts, is_transcript_file
from memtrails.limits import Limits
from memtrails.records import SourceState

CLAUDE = Path(__file__).parent / "data" / "transcripts" / "claude"
SESSION = "5b1f2c3d-0a4e-4c8b-9d21-7e6f5a4b3c2d"


def original() -> str:
    (file,) = sorted(CLAUDE.rglob("*.jsonl"))
    return file.read_text(encoding="utf-8")


def turns(items: list[Any]) -> list[tuple[str, str, str | None, str | None]]:
    return [(r.id, r.text, r.author, r.at.iso() if r.at else None) for r in records(items)]


ENCODINGS = {
    "utf-8-bom": lambda text: text.encode("utf-8-sig"),
    "utf-16-bom": lambda text: text.encode("utf-16"),
    "utf-16-le": lambda text: text.encode("utf-16-le"),
    "utf-16-be": lambda text: text.encode("utf-16-be"),
    "utf-16-be-bom": lambda text: b"\xfe\xff" + text.encode("utf-16-be"),
    "utf-16-le-crlf": lambda text: text.replace("\n", "\r\n").encode("utf-16-le"),
}


@pytest.mark.parametrize("encoding", list(ENCODINGS))
async def test_a_session_saved_in_another_unicode_encoding_reads_the_same(
    tmp_path: Path, encoding: str
) -> None:
    text = original()
    expected = turns(await collect(from_agent_transcripts(CLAUDE)))
    assert expected
    # Something beyond Latin-1 too, in every encoding.
    text = text.replace("off by one cent", "off by one cent (€, ü, 日本)")
    expected = [
        (i, t.replace("off by one cent", "off by one cent (€, ü, 日本)"), a, at)
        for i, t, a, at in expected
    ]
    folder = tmp_path / "-home-ann-code-shop"
    folder.mkdir()
    file = folder / f"{SESSION}.jsonl"
    file.write_bytes(ENCODINGS[encoding](text))
    assert is_transcript_file(file)
    items = await collect(from_agent_transcripts(tmp_path))
    assert errors(items) == []
    assert turns(items) == expected


def session_lines(*texts: str) -> list[str]:
    return claude_session_lines(*texts, session=SESSION, cwd="/home/zoé/café")


async def test_a_windows_1252_session_reads_its_letters(tmp_path: Path) -> None:
    texts = ["Le café coûte 3 € — naïve question", "Grüße aus Zürich «déjà vu»"]
    file = tmp_path / "s.jsonl"
    file.write_bytes("".join(session_lines(*texts)).encode("cp1252"))
    assert is_transcript_file(file)
    items = await collect(from_agent_transcripts(file))
    assert errors(items) == []
    recs = records(items)
    assert [r.text for r in recs] == texts
    assert recs[0].meta["project"] == "/home/zoé/café"


async def test_a_utf16_session_without_bom_is_no_garbage(tmp_path: Path) -> None:
    """Read as UTF-8, every byte of ASCII text in UTF-16 is followed by a NUL: no record
    may come of that, and no error for each of its lines."""
    file = tmp_path / "s.jsonl"
    file.write_bytes("".join(session_lines("first turn", "second turn")).encode("utf-16-le"))
    items = await collect(from_agent_transcripts(file))
    assert errors(items) == []
    recs = records(items)
    assert [r.text for r in recs] == ["first turn", "second turn"]
    assert not any("\x00" in r.text or "\ufffd" in r.text for r in recs)


@pytest.mark.parametrize("codec", ["utf-16", "utf-16-le", "utf-16-be"])
async def test_a_utf16_session_resumes_where_it_stopped(tmp_path: Path, codec: str) -> None:
    lines = session_lines("one", "two", "three")
    file = tmp_path / "s.jsonl"
    file.write_bytes("".join(lines[:2]).encode(codec))
    first = await collect(from_agent_transcripts(file))
    assert [r.text for r in records(first)] == ["one", "two"]
    state = first[-1]
    assert isinstance(state, SourceState)
    # Appended in the same encoding (no second byte order mark), as the file is.
    more = lines[2].encode("utf-16-le" if codec == "utf-16" else codec)
    with file.open("ab") as f:
        f.write(more)
    again = await collect(from_agent_transcripts(file, state=state.state))
    assert [r.text for r in records(again)] == ["three"]
    assert errors(again) == []
    assert isinstance(again[-1], SourceState) and again[-1].mode == "incremental"


async def test_an_over_long_utf16_line_is_an_error_and_the_next_is_read(tmp_path: Path) -> None:
    lines = session_lines("x" * 5000, "after the long one")
    file = tmp_path / "s.jsonl"
    file.write_bytes("".join(lines).encode("utf-16-le"))
    items = await collect(from_agent_transcripts(file, limits=Limits(max_line_bytes=2048)))
    assert [r.text for r in records(items)] == ["after the long one"]
    (error,) = errors(items)
    assert error.where.endswith("line 1") and "over" in error.reason
