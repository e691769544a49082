"""`memtrails serve --watch PATH` refuses, before the service starts, the paths that
``POST /v1/watch`` refuses: the kernel's file systems, pipes and devices, the memory folder,
and a path another watch (given beside it or kept in the folder) imports already."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from memtrails.cli import main
from memtrails.service import owner
from memtrails.service.watch import WatchedPath, save_watched


@pytest.fixture(autouse=True)
def never_served(monkeypatch: pytest.MonkeyPatch) -> list[list[WatchedPath]]:
    """The service is never started: a refused --watch must stop the command before."""
    started: list[list[WatchedPath]] = []

    async def serve(home: Path, **kwargs: object) -> None:
        started.append(list(kwargs["watch"]))  # type: ignore[call-overload]

    monkeypatch.setattr(owner, "serve", serve)
    return started


def _serve(home: Path, *args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, ["serve", "--home", str(home), *args])
    assert result.exception is None or isinstance(result.exception, SystemExit)
    return result.exit_code, result.stderr


def _notes(root: Path) -> Path:
    (root / "notes" / "trips").mkdir(parents=True)
    (root / "notes" / "trips" / "orkney.md").write_text("# Orkney\n", encoding="utf-8")
    return root / "notes"


@pytest.mark.parametrize(
    ("path", "said"),
    [
        ("/proc", "a file system the kernel makes up"),
        ("/sys/kernel", "a file system the kernel makes up"),
        ("/", "a file system the kernel makes up"),
        ("/dev/null", "a pipe or a device"),
    ],
)
def test_a_kernel_path_or_a_device_is_refused_before_the_service_starts(
    tmp_path: Path, never_served: list[list[WatchedPath]], path: str, said: str
) -> None:
    home = tmp_path / "memory"
    code, err = _serve(home, "--watch", str(tmp_path), "--watch", path)
    assert code == 2 and said in err, err
    assert "--watch" in err and len(err.strip().splitlines()[-1]) > 0
    assert never_served == [] and not home.exists()


def test_a_pipe_and_the_memory_folder_are_refused(
    tmp_path: Path, never_served: list[list[WatchedPath]]
) -> None:
    fifo = tmp_path / "a-pipe"
    os.mkfifo(fifo)
    home = tmp_path / "memory"
    code, err = _serve(home, "--watch", str(fifo))
    assert code == 2 and "a pipe or a device" in err, err
    home.mkdir()
    code, err = _serve(home, "--watch", str(home))
    assert code == 2 and "the memory folder or inside it" in err, err
    assert never_served == []


def test_a_path_inside_another_watch_is_refused(
    tmp_path: Path, never_served: list[list[WatchedPath]]
) -> None:
    notes = _notes(tmp_path)
    home = tmp_path / "memory"
    code, err = _serve(home, "--watch", str(notes), "--watch", str(notes / "trips"))
    assert code == 2 and f"inside {notes}" in err and "twice" in err, err
    (tmp_path / "link").symlink_to(notes)
    code, err = _serve(home, "--watch", str(notes / "trips"), "--watch", str(tmp_path / "link"))
    assert code == 2 and f"{tmp_path / 'link'} is {notes}: " in err and "holds" in err, err
    assert never_served == []


def test_a_path_inside_a_kept_watch_is_refused_and_the_same_path_is_one_watch(
    tmp_path: Path, never_served: list[list[WatchedPath]]
) -> None:
    notes = _notes(tmp_path)
    home = tmp_path / "memory"
    home.mkdir()
    save_watched(home, [WatchedPath(str(notes))])
    code, err = _serve(home, "--watch", str(notes / "trips" / "orkney.md"))
    assert code == 2 and f"inside {notes}" in err, err
    assert never_served == []
    # the kept path again, and twice under two names: one watch
    (tmp_path / "link").symlink_to(notes)
    code, err = _serve(home, "--watch", str(notes), "--watch", str(tmp_path / "link"))
    assert code == 0, err
    assert never_served == [[WatchedPath(str(notes))]]
