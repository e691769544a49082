"""Hostile compressed inputs: damaged, cut short or trailed by garbage, they keep what comes
before the damage and give one error naming the file, never a traceback or "Aborted!"."""

from __future__ import annotations

import bz2
import gzip
import json
import lzma
import os
import random
import threading
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner
from helpers import collect, errors, records

from memtrails import Memory
from memtrails._exceptions import SourceError
from memtrails.cli import main
from memtrails.importers.detect import detect_kind, open_part, plan
from memtrails.importers.jsonl import from_jsonl
from memtrails.limits import Limits
from memtrails.testing import HashingEmbedder

pytestmark = pytest.mark.timeout(120)

LINES = 300
# The command embeds what it reads with the real model, nearly all of its time: 100 lines put
# the cut as far inside the data as 300 do (73 read; 22.8 -> 11.6 CPU-s here).
CLI_LINES = 100


def _jsonl(n: int = LINES) -> bytes:
    """``n`` lines of words that compress about 3 to 1: damage lands well inside the data."""
    rng = random.Random(1)
    words = ("apple", "kiwi", "plum", "fig")
    return b"".join(
        json.dumps(
            {
                "id": f"r{i}",
                "text": f"record {i} "
                + " ".join(rng.choice(words) + str(rng.randint(0, 9999)) for _ in range(40)),
            }
        ).encode()
        + b"\n"
        for i in range(n)
    )


def _mbox(n: int = 50) -> bytes:
    return b"".join(
        b"From a@b Tue Apr  1 12:21:37 2003\nFrom: a@b\nSubject: s%d\nMessage-ID: <m%d@x>\n\n"
        b"body %d zebra\n\n" % (i, i, i)
        for i in range(n)
    )


def _flip(data: bytes, at: int) -> bytes:
    """``data`` with 20 bytes from ``at`` inverted."""
    return data[:at] + bytes(b ^ 0xFF for b in data[at : at + 20]) + data[at + 20 :]


def _cut(data: bytes) -> bytes:
    return data[: len(data) * 3 // 4]


def _bad_crc(data: bytes) -> bytes:
    return data[:-8] + b"\0\0\0\0" + data[-4:]


# name -> (suffix, damage of the plain bytes, whether every line is before the damage)
DAMAGE: dict[str, tuple[str, Callable[[bytes], bytes], bool]] = {
    "gzip cut short": (".gz", lambda b: _cut(gzip.compress(b)), False),
    "gzip bad CRC": (".gz", lambda b: _bad_crc(gzip.compress(b)), True),
    "gzip then garbage": (".gz", lambda b: gzip.compress(b) + b"garbage after it\n", True),
    "xz damaged 3/4 in": (
        ".xz",
        lambda b: _flip(lzma.compress(b), len(lzma.compress(b)) * 3 // 4),
        False,
    ),
    "xz cut short": (".xz", lambda b: _cut(lzma.compress(b)), False),
    "bzip2 cut short": (".bz2", lambda b: _cut(bz2.compress(b)), False),
}


@pytest.mark.parametrize("case", list(DAMAGE))
async def test_jsonl_keeps_the_lines_before_the_damage_and_says_where(
    tmp_path: Path, case: str
) -> None:
    suffix, damage, whole = DAMAGE[case]
    path = tmp_path / f"log.jsonl{suffix}"
    path.write_bytes(damage(_jsonl()))
    items = await collect(from_jsonl(path))
    kept = [r.id for r in records(items)]
    assert kept == [f"r{i}" for i in range(len(kept))]  # the lines before, in order
    if whole:
        assert len(kept) == LINES
    elif suffix != ".bz2":  # bzip2 holds 900 kB in one block: cut, nothing before is whole
        assert len(kept) > LINES // 2
    (error,) = errors(items)
    assert error.source == str(path.resolve())
    assert error.where == f"line {len(kept) + 1}"
    assert error.reason.startswith("cannot read further: ")
    assert suffix.strip(".").replace("bz2", "bzip2") in error.reason


async def test_gzip_trailed_by_garbage_says_so(tmp_path: Path) -> None:
    path = tmp_path / "log.jsonl.gz"
    path.write_bytes(gzip.compress(_jsonl(5)) + b"garbage")
    items = await collect(from_jsonl(path))
    assert len(records(items)) == 5
    (error,) = errors(items)
    assert "after the end of the gzip data are not gzip" in error.reason


async def test_memory_keeps_the_records_before_the_damage(tmp_path: Path) -> None:
    """Through ``Memory.ingest`` (which reads the lines unparsed, for their digests)."""
    path = tmp_path / "log.jsonl.gz"
    path.write_bytes(_cut(gzip.compress(_jsonl())))
    async with Memory.open(tmp_path / "m", embedder=HashingEmbedder()) as memory:
        report = await memory.ingest(from_jsonl(path))
        assert report.added > LINES // 2 and len(report.errors) == 1
        assert "cut short" in report.errors[0].reason
        assert await memory.get("r0") is not None
        assert await memory.get(f"r{report.added - 1}") is not None


@pytest.mark.parametrize(
    ("name", "make"),
    [
        ("early.jsonl.gz", lambda: _flip(gzip.compress(_jsonl(5) * 20), 60)),
        ("early.mbox.gz", lambda: _flip(gzip.compress(_mbox()), 60)),
        ("early.jsonl.xz", lambda: _flip(lzma.compress(_jsonl(50)), 30)),
        ("early.mbox.xz", lambda: _flip(lzma.compress(_mbox()), 30)),
    ],
)
async def test_damage_in_the_first_bytes_is_the_importers_error(
    tmp_path: Path, name: str, make: Callable[[], bytes]
) -> None:
    """Detection reads the first 64 KiB: their damage leaves the kind to the file's name, and
    the importer reports it as the file's one error."""
    path = tmp_path / name
    path.write_bytes(make())
    kind = name.split(".")[1]
    assert detect_kind(path) == kind
    (part,) = plan(str(path))
    assert part.kind == kind
    items = await collect(open_part(part, state=None))  # type: ignore[arg-type]
    (error,) = errors(items)
    assert "cannot read further" in error.reason and "damaged" in error.reason


def test_damage_before_the_kind_shows_is_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "archive.gz"
    path.write_bytes(_flip(gzip.compress(_jsonl(5) * 20), 60))
    with pytest.raises(SourceError, match="cannot read: the gzip data is damaged"):
        detect_kind(path)


async def test_an_over_long_line_in_a_compressed_file_is_skipped(tmp_path: Path) -> None:
    """Passing over it reads on (a compressed file or a pipe cannot seek back)."""
    path = tmp_path / "long.jsonl.gz"
    path.write_bytes(
        gzip.compress(b'{"text":"ok one"}\n{"text":"' + b"a" * 20000 + b'"}\n{"text":"ok two"}\n')
    )
    items = await collect(from_jsonl(path, limits=Limits(max_line_bytes=1000)))
    assert [r.text for r in records(items)] == ["ok one", "ok two"]
    (error,) = errors(items)
    assert (error.where, error.reason) == (
        "line 2",
        "line of 20,012 bytes is over 1,000 (Limits.max_line_bytes); not read",
    )


async def test_an_over_long_line_in_a_pipe_is_skipped(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    data = b'{"text":"ok one"}\n{"text":"' + b"a" * 3_000_000 + b'"}\n{"text":"ok two"}\n'

    def write() -> None:
        with open(fifo, "wb") as f:
            f.write(data)

    writer = threading.Thread(target=write)
    writer.start()
    try:
        (part,) = plan(str(fifo), name="pipe")
        try:
            items = await collect(open_part(part, limits=Limits(max_line_bytes=1000)))  # type: ignore[arg-type]
        finally:
            part.target.close()  # type: ignore[union-attr]
    finally:
        writer.join()
    assert [r.text for r in records(items)] == ["ok one", "ok two"]
    assert [e.where for e in errors(items)] == ["line 2"]


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-be"])
async def test_utf16_json_lines_are_read_whole(tmp_path: Path, encoding: str) -> None:
    """Read as text, not split at the byte 0x0A ("Ċ" is U+010A: a newline byte in UTF-16)."""
    path = tmp_path / "u16.jsonl"
    text = "".join(f'{{"text": "record {i} Ċé"}}\n' for i in range(1, 4))
    bom = b"\xfe\xff" if encoding.endswith("be") else b""
    path.write_bytes(bom + text.encode(encoding))
    items = await collect(from_jsonl(path))
    assert errors(items) == []
    assert [r.text for r in records(items)] == [f"record {i} Ċé" for i in range(1, 4)]
    assert [r.id for r in records(items)] == [f"u16.jsonl:{i}" for i in range(1, 4)]


@pytest.mark.slow
def test_add_imports_the_other_inputs_and_names_the_damaged_file(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl.gz"
    bad.write_bytes(_bad_crc(gzip.compress(_jsonl(20))))
    cut = tmp_path / "cut.jsonl.gz"
    cut.write_bytes(_cut(gzip.compress(_jsonl(CLI_LINES))))
    good = tmp_path / "good.jsonl"
    good.write_text('{"id": "g", "text": "a good record in another file"}\n')
    home = str(tmp_path / "m")
    paths = [str(bad), str(cut), str(good)]
    result = CliRunner().invoke(
        main, ["add", *paths, "--home", home, "--model", "minilm", "--json"]
    )
    assert result.exit_code == 0, result.output
    assert "Traceback" not in result.output and "Aborted" not in result.output
    report = json.loads(result.stdout)
    assert sorted(e["source"] for e in report["errors"]) == [str(bad), str(cut)]
    status = json.loads(CliRunner().invoke(main, ["status", "--home", home, "--json"]).stdout)
    counts = status["sources"]
    assert counts[str(bad)] == 20 and counts[str(good)] == 1
    assert CLI_LINES // 2 < counts[str(cut)] < CLI_LINES
