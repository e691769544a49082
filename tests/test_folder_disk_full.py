"""A full disk stops an import with one line and exit 1, and keeps what was reported added."""

from __future__ import annotations

import errno
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from memtrails import Memory
from memtrails._exceptions import DiskFullError
from memtrails.cli import main
from memtrails.folder import log as log_module
from memtrails.testing import HashingEmbedder


def _notes(n: int) -> list[dict[str, str]]:
    return [{"id": str(i), "text": f"note {i} about the harvest and the weather"} for i in range(n)]


@pytest.fixture
def disk_fills_at_third_write(monkeypatch: pytest.MonkeyPatch) -> Callable[[], None]:
    """The log's third write gets half its bytes onto the disk, then ENOSPC; until freed."""
    writes = 0
    full = True
    real = log_module._write_all

    def write_all(fd: int, data: bytes) -> None:
        nonlocal writes
        writes += 1
        if full and writes >= 3:
            os.write(fd, data[: len(data) // 2])
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        real(fd, data)

    def free_space() -> None:
        nonlocal full
        full = False

    monkeypatch.setattr(log_module, "_write_all", write_all)
    return free_space


@pytest.mark.slow
async def test_enospc_on_the_log_keeps_every_record_reported_added(
    tmp_path: Path, disk_fills_at_third_write: Callable[[], None]
) -> None:
    folder = tmp_path / "mem"
    reported: list[int] = []
    async with Memory.open(folder, embedder=HashingEmbedder()) as memory:
        with pytest.raises(DiskFullError, match=r"^no space left on /\S* while writing the log"):
            await memory.ingest(
                _notes(40), batch=8, idle=None, on_progress=lambda r: reported.append(r.added)
            )
    assert reported and reported[-1] == 16  # two batches, then the disk was full
    lines = (folder / "records.jsonl").read_bytes().splitlines(keepends=True)
    assert all(line.endswith(b"\n") and json.loads(line) for line in lines)  # no torn line
    assert len(lines) == 16
    disk_fills_at_third_write()
    async with Memory.open(folder, embedder=HashingEmbedder()) as memory:
        assert memory.repairs == []
        status = await memory.status()
        assert (status.records, status.indexed) == (16, 16)
        assert (await memory.ingest(_notes(40), batch=8)).added == 24


@pytest.mark.slow
def test_the_cli_says_disk_full_in_one_line_and_exits_1(
    tmp_path: Path, disk_fills_at_third_write: Callable[[], None]
) -> None:
    notes = tmp_path / "notes.jsonl"
    notes.write_text("".join(json.dumps(n) + "\n" for n in _notes(400)))
    result = CliRunner().invoke(
        main, ["add", str(notes), "--home", str(tmp_path / "mem"), "--batch", "16"]
    )
    assert result.exit_code == 1
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and "no space left on" in lines[0], result.output
    assert lines[0].endswith(
        "while writing the log; free some space (or choose another --home) and run the command again"
    )


@pytest.fixture
def small_mount(tmp_path: Path) -> Iterator[Callable[[Path, str], Path]]:
    """Loop-mount small ext4 file systems (root only), unmounted at the end."""
    if os.geteuid() != 0 or not (shutil.which("mkfs.ext4") and shutil.which("mount")):
        pytest.skip("mounting a small file system needs root, mkfs.ext4 and mount")
    mounted: list[Path] = []

    def mount(at: Path, size: str) -> Path:
        image = tmp_path / f"{at.name}.img"
        with image.open("wb") as f:
            f.truncate(int(size.rstrip("m")) << 20)
        at.mkdir(parents=True, exist_ok=True)
        for command in (
            ["mkfs.ext4", "-q", "-F", str(image)],
            ["mount", "-o", "loop", str(image), str(at)],
        ):
            done = subprocess.run(command, capture_output=True, text=True)
            if done.returncode:
                pytest.skip(f"cannot make a small file system here: {done.stderr.strip()}")
        mounted.append(at)
        (at / "lost+found").rmdir()  # an empty folder to import into
        return at

    yield mount
    for at in reversed(mounted):
        subprocess.run(["umount", str(at)], check=False)


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    # A new folder gets MiniLM by name: the checks reopen it with the suite's MiniLM fixture.
    model = ("--model", "minilm") if args[:1] == ("add",) else ()
    return subprocess.run(
        [sys.executable, "-m", "memtrails.cli", *args, *model],
        capture_output=True,
        text=True,
        timeout=600,
    )


def _fill(mount: Path, leave: int) -> None:
    """Fill the file system at ``mount`` with a file of zeros until ``leave`` bytes are free."""
    st = os.statvfs(mount)
    fill = st.f_bavail * st.f_frsize - leave
    with (mount / "filler").open("wb") as f:
        f.write(b"\0" * fill)


def _one_line_refusal(done: subprocess.CompletedProcess[str], where: Path, doing: str) -> None:
    assert done.returncode == 1, (done.returncode, done.stderr[-2000:])  # not SIGBUS (-7)
    lines = done.stderr.strip().splitlines()
    assert lines[-1] == (
        f"Error: no space left on {where} while {doing}; free some space (or choose another "
        "--home) and run the command again"
    ), done.stderr[-2000:]


async def _intact(folder: Path, copy: Path, embedder: Any) -> int:
    """Copy the folder to where there is room and check that it opens whole."""
    shutil.copytree(folder, copy, ignore=shutil.ignore_patterns("filler"))
    lines = (copy / "records.jsonl").read_bytes().splitlines()
    uids = {json.loads(line)["uid"] for line in lines}
    async with Memory.open(copy, embedder=embedder) as memory:
        status = await memory.status()
        assert status.records == len(uids) > 0
        assert status.indexed == status.records
        assert await memory.search("how many eggs", k=1)
    return status.records


@pytest.mark.slow
def test_a_folder_too_small_for_an_index_is_refused_before_it_is_made(
    tmp_path: Path, small_mount: Callable[[Path, str], Path], gsm8k_subset: Callable[[int], Path]
) -> None:
    small = small_mount(tmp_path / "small", "12m")
    done = _cli("add", str(gsm8k_subset(10)), "--home", str(small / "mem"))
    _one_line_refusal(done, small, "creating the index")


@pytest.mark.slow
async def test_a_full_disk_stops_the_import_cleanly_and_keeps_what_was_added(
    tmp_path: Path,
    small_mount: Callable[[Path, str], Path],
    gsm8k_subset: Callable[[int], Path],
    embedder: Any,
) -> None:
    small = small_mount(tmp_path / "small", "40m")
    home = small / "mem"
    first = _cli("add", str(gsm8k_subset(10)), "--home", str(home))
    assert first.returncode == 0, first.stderr[-2000:]
    _fill(small, (8 << 20) + (600 << 10))  # the log's reserve and about 100 records
    done = _cli("add", str(gsm8k_subset(300)), "--home", str(home), "--batch", "16")
    _one_line_refusal(done, small, "writing the log")
    kept = await _intact(home, tmp_path / "copy", embedder)
    assert 10 < kept < 300


@pytest.mark.slow
async def test_a_full_index_disk_stops_the_import_cleanly(
    tmp_path: Path,
    small_mount: Callable[[Path, str], Path],
    gsm8k_subset: Callable[[int], Path],
    embedder: Any,
) -> None:
    home = tmp_path / "mem"
    first = _cli("add", str(gsm8k_subset(10)), "--home", str(home))
    assert first.returncode == 0, first.stderr[-2000:]
    (home / "index").rename(tmp_path / "index")  # the index moves to a file system of its own
    index = small_mount(home / "index", "32m")
    # cp keeps the index's sparse files sparse (copytree would write them out in full).
    subprocess.run(
        ["cp", "-a", "--sparse=always", f"{tmp_path / 'index'}/.", str(index)], check=True
    )
    _fill(index, (4 << 20) + (600 << 10))  # the index's reserve and a few batches
    done = _cli("add", str(gsm8k_subset(300)), "--home", str(home), "--batch", "16")
    _one_line_refusal(done, index, "indexing")
    (index / "filler").unlink()
    kept = await _intact(home, tmp_path / "copy", embedder)
    assert 10 < kept < 300


@pytest.fixture
def tmpfs(tmp_path: Path) -> Iterator[Callable[[str], Path]]:
    """Mount small tmpfs file systems (root only), unmounted at the end."""
    if os.geteuid() != 0 or not shutil.which("mount"):
        pytest.skip("mounting a tmpfs needs root and mount")
    mounted: list[Path] = []

    def mount(size: str) -> Path:
        at = tmp_path / f"tmpfs-{size}"
        at.mkdir()
        subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(at)], check=True)
        mounted.append(at)
        return at

    yield mount
    for at in reversed(mounted):
        subprocess.run(["umount", str(at)], check=False)


@pytest.mark.slow
def test_a_memory_held_file_system_too_small_for_a_reopened_index_is_refused_not_killed(
    tmpfs: Callable[[str], Path], gsm8k_subset: Callable[[int], Path]
) -> None:
    """On tmpfs a shard's write-ahead log takes real pages once reopened (15 -> 52 MB): a
    40 MB tmpfs took a first import and then died by SIGBUS on every later open."""
    records = gsm8k_subset(30)
    small = tmpfs("40m")
    done = _cli("add", str(records), "--home", str(small / "m"))
    assert done.returncode == 1, done.stderr
    assert done.stderr.strip().splitlines()[-1].startswith(f"Error: no space left on {small}")
    assert "while creating the index" in done.stderr
    roomy = tmpfs("96m")
    for run in range(3):  # created, then reopened twice
        done = _cli("add", str(records), "--home", str(roomy / "m"), "--json")
        assert done.returncode == 0, (run, done.returncode, done.stderr[-500:])
    assert json.loads(done.stdout)["unchanged"] == 30
