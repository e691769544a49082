"""A prune after damage: an input that cannot be read to its end (damaged or cut-short
compressed data, a pipe that fails, a disk read error) proves nothing about the records
past the damage, so a run that met it forgets none of them; it names the damage and keeps
(refreshes) the records before it."""

from __future__ import annotations

import errno
import gzip
import json
import lzma
import os
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from helpers import failing_disk

from memtrails import Memory
from memtrails.cli import main
from memtrails.importers._input import Input, open_input
from memtrails.importers.eml import from_eml
from memtrails.importers.jsonl import from_jsonl
from memtrails.importers.mbox import from_mbox
from memtrails.records import ImportReport
from memtrails.testing import HashingEmbedder

pytestmark = pytest.mark.timeout(120)

N = 300
# The command embeds with the real model, nearly all of its time: 100 records put as many
# whole lines either side of the damage as the 300 the library's tests read (over 24 -> 12
# CPU-s here).
N_CLI = 100


def _jsonl(n: int = N) -> bytes:
    """Lines that compress only a few times over: damage 3/4 in lands inside the lines."""
    return b"".join(
        json.dumps(
            {
                "id": f"r{i}",
                "text": f"record {i} " + " ".join(f"w{i * 7919 + j}" for j in range(30)),
            }
        ).encode()
        + b"\n"
        for i in range(n)
    )


def _mbox(n: int = N) -> bytes:
    return b"".join(
        b"From a@b Tue Apr  1 12:21:37 2003\nFrom: a@b\nSubject: s%d\nMessage-ID: <m%d@x>\n\n"
        b"body %d %s\n\n" % (i, i, i, b" ".join(b"w%d" % (i * 7919 + j) for j in range(30)))
        for i in range(n)
    )


def _cut_gzip(data: bytes) -> bytes:
    packed = gzip.compress(data)
    return packed[: len(packed) * 3 // 4]


def _flip_xz(data: bytes) -> bytes:
    packed = lzma.compress(data)
    at = len(packed) * 3 // 4
    return packed[:at] + bytes(b ^ 0xFF for b in packed[at : at + 20]) + packed[at + 20 :]


async def _two_runs(
    home: Path, path: Path, healthy: bytes, damaged: bytes, opened: Callable[[Path], Any]
) -> tuple[ImportReport, ImportReport, int]:
    """Import ``path`` holding ``healthy``, then, holding ``damaged``, with a prune; return both
    reports and how many records the folder holds after."""
    async with Memory.open(home, embedder=HashingEmbedder()) as memory:
        path.write_bytes(healthy)
        first = await memory.ingest(opened(path))
        path.write_bytes(damaged)
        second = await memory.ingest(opened(path), prune=True)
        held = (await memory.status()).records
    return first, second, held


def _damage_named(report: ImportReport) -> None:
    (error,) = report.errors
    assert error.reason.startswith("cannot read further: "), error.reason


@contextmanager
def _fifo(tmp_path: Path, data: bytes) -> Iterator[Input]:
    """A named pipe fed ``data`` by a thread, opened as a pipe is."""
    fifo = tmp_path / "pipe"
    if fifo.exists():
        fifo.unlink()
    os.mkfifo(fifo)

    def write() -> None:
        with open(fifo, "wb") as f:
            f.write(data)

    writer = threading.Thread(target=write)
    writer.start()
    stream = open_input(str(fifo), "piped")
    try:
        yield stream
    finally:
        stream.close()
        writer.join()


# -- JSON Lines ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("suffix", "damage"), [(".gz", _cut_gzip), (".xz", _flip_xz)], ids=["gzip cut", "xz damaged"]
)
async def test_a_damaged_compressed_jsonl_prunes_nothing(
    tmp_path: Path, suffix: str, damage: Callable[[bytes], bytes]
) -> None:
    path = tmp_path / f"log.jsonl{suffix}"
    healthy = gzip.compress(_jsonl()) if suffix == ".gz" else lzma.compress(_jsonl())
    first, second, held = await _two_runs(
        tmp_path / "m", path, healthy, damage(_jsonl()), from_jsonl
    )
    assert first.added == N
    _damage_named(second)
    assert N // 2 < second.unchanged < N  # the lines before the damage, read and kept
    assert second.removed == 0
    assert held == N
    async with Memory.open(tmp_path / "m", embedder=HashingEmbedder()) as memory:
        # Mended, the file is read whole again: nothing new, nothing gone.
        path.write_bytes(healthy)
        again = await memory.ingest(from_jsonl(path), prune=True)
        assert (again.unchanged, again.removed, again.errors) == (N, 0, [])
        assert again.sources[0].why is None


async def test_damaged_jsonl_from_a_pipe_prunes_nothing(tmp_path: Path) -> None:
    async with Memory.open(tmp_path / "m", embedder=HashingEmbedder()) as memory:
        with _fifo(tmp_path, gzip.compress(_jsonl())) as stream:
            assert (await memory.ingest(from_jsonl(stream, source="piped"))).added == N
        with _fifo(tmp_path, _cut_gzip(_jsonl())) as stream:
            report = await memory.ingest(from_jsonl(stream, source="piped"), prune=True)
        _damage_named(report)
        assert report.removed == 0 and N // 2 < report.unchanged < N
        assert (await memory.status()).records == N
        assert await memory.get(f"r{N - 1}") is not None


@pytest.mark.slow
def test_add_prune_of_a_damaged_jsonl_gz_keeps_every_record(tmp_path: Path) -> None:
    """The whole command, as a user runs it: the report names the damage, removes nothing."""
    path = tmp_path / "log.jsonl.gz"
    path.write_bytes(gzip.compress(_jsonl(N_CLI)))
    home = str(tmp_path / "m")
    args = ["add", str(path), "--home", home, "--model", "minilm", "--json"]
    assert json.loads(CliRunner().invoke(main, args).stdout)["added"] == N_CLI
    path.write_bytes(_cut_gzip(_jsonl(N_CLI)))
    result = CliRunner().invoke(main, [*args, "--prune"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["removed"] == 0
    assert [e["reason"].split(":")[0] for e in report["errors"]] == ["cannot read further"]
    # The report says the source was not read whole: it said "read in full".
    assert [s["complete"] for s in report["sources"]] == [False]
    said = CliRunner().invoke(main, [*args[:-1], "--prune"]).stdout
    assert "stopped part-way" in said and "read in full" not in said
    status = CliRunner().invoke(main, ["status", "--home", home, "--json"])
    assert json.loads(status.stdout)["sources"] == {str(path.resolve()): N_CLI}
    # Read whole again, it is.
    path.write_bytes(gzip.compress(_jsonl(N_CLI)))
    whole = json.loads(CliRunner().invoke(main, args).stdout)["sources"]
    assert [(s["mode"], s["complete"]) for s in whole] == [("full", True)]


async def test_a_dead_disk_under_a_jsonl_prunes_nothing(tmp_path: Path) -> None:
    """A plain file whose disk fails and then cannot give the marks of a position either,
    before any checkpoint: the run still says it is not complete."""
    path = tmp_path / "log.jsonl"
    path.write_bytes(_jsonl())
    async with Memory.open(tmp_path / "m", embedder=HashingEmbedder()) as memory:
        assert (await memory.ingest(from_jsonl(path))).added == N
        failing = failing_disk(path, N // 2, dead=True)
        report = await memory.ingest(from_jsonl(failing, source=str(path.resolve())), prune=True)
        _damage_named(report)
        assert (report.unchanged, report.removed) == (N // 2, 0)
        assert (await memory.status()).records == N


# -- mbox ---------------------------------------------------------------------------------------


async def test_a_damaged_compressed_mbox_prunes_nothing(tmp_path: Path) -> None:
    path = tmp_path / "list.mbox.gz"
    first, second, held = await _two_runs(
        tmp_path / "m", path, gzip.compress(_mbox()), _cut_gzip(_mbox()), from_mbox
    )
    assert first.added == N
    _damage_named(second)
    assert second.removed == 0 and N // 2 < second.unchanged < N
    assert held == N
    async with Memory.open(tmp_path / "m", embedder=HashingEmbedder()) as memory:
        # Not taken for read: the damaged file, unchanged, is read (and its damage named) again.
        again = await memory.ingest(from_mbox(path))
        _damage_named(again)
        assert again.removed == 0 and again.sources[0].mode == "full"


async def test_a_damaged_mbox_from_a_pipe_prunes_nothing(tmp_path: Path) -> None:
    async with Memory.open(tmp_path / "m", embedder=HashingEmbedder()) as memory:
        with _fifo(tmp_path, gzip.compress(_mbox())) as stream:
            assert (await memory.ingest(from_mbox(stream, source="piped"))).added == N
        with _fifo(tmp_path, _cut_gzip(_mbox())) as stream:
            report = await memory.ingest(from_mbox(stream, source="piped"), prune=True)
        _damage_named(report)
        assert report.removed == 0 and N // 2 < report.unchanged < N
        assert (await memory.status()).records == N


@pytest.mark.parametrize("messages", [N, 20], ids=["past checkpoints", "before any checkpoint"])
async def test_a_disk_error_in_an_mbox_prunes_nothing(tmp_path: Path, messages: int) -> None:
    """A plain mbox read from its start whose disk fails part-way: not complete, and the next
    run goes on from the message the error cut."""
    path = tmp_path / "archive.mbox"
    path.write_bytes(_mbox(messages))
    source = str(path.resolve())
    good = 7 * (messages // 2) + 3  # 7 lines a message: part-way into the one after half
    async with Memory.open(tmp_path / "m", embedder=HashingEmbedder()) as memory:
        assert (await memory.ingest(from_mbox(path))).added == messages
        report = await memory.ingest(
            from_mbox(failing_disk(path, good), source=source, checkpoint_every=64), prune=True
        )
        (error,) = report.errors
        assert error.reason.startswith("cannot read further: ")
        assert os.strerror(errno.EIO) in error.reason
        assert (report.unchanged, report.removed) == (messages // 2, 0)
        assert (await memory.status()).records == messages
        # Mended, the next run reads on from the message the error cut, and finds it all.
        again = await memory.ingest(from_mbox(path))
        assert again.sources[0].mode == "incremental"
        assert (again.added, again.unchanged, again.errors) == (0, messages, [])


# -- one message from a pipe ---------------------------------------------------------------


async def test_a_damaged_message_from_a_pipe_prunes_nothing(tmp_path: Path) -> None:
    message = b"From: a@b\nSubject: hello\nMessage-ID: <one@x>\n\n" + _jsonl()
    async with Memory.open(tmp_path / "m", embedder=HashingEmbedder()) as memory:
        with _fifo(tmp_path, gzip.compress(message)) as stream:
            assert (await memory.ingest(from_eml(stream, source="piped"))).added == 1
        with _fifo(tmp_path, _cut_gzip(message)) as stream:
            report = await memory.ingest(from_eml(stream, source="piped"), prune=True)
        (error,) = report.errors
        assert "cut short" in error.reason
        assert report.removed == 0
        assert (await memory.status()).records == 1
