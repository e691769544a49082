"""Hostile watch and import requests to a running service: nested watches, the kernel's
file systems, pipes and sockets, and paths no file can have."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from helpers import eventually

from memtrails.service.discovery import find_service

pytestmark = pytest.mark.slow

_SERVE = [sys.executable, "-m", "memtrails.cli", "serve"]


class Served:
    """A ``memtrails serve`` subprocess and a client carrying its token."""

    def __init__(self, home: Path) -> None:
        self.home = home
        log = (home.parent / "serve.log").open("wb")
        self.proc = subprocess.Popen(
            [*_SERVE, "--home", str(home), "--port", "0", "--threads", "1"],
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        log.close()
        deadline = time.monotonic() + 120
        while (info := find_service(home)) is None:
            assert self.proc.poll() is None and time.monotonic() < deadline, "not started"
            time.sleep(0.1)
        self.http = httpx.Client(
            base_url=info.url, headers={"Authorization": f"Bearer {info.token}"}, timeout=60
        )

    def post(self, url: str, body: dict[str, Any]) -> httpx.Response:
        # sent as JSON escapes, as any client may: a NUL, a lone surrogate
        return self.http.post(url, content=json.dumps(body))

    def watched(self) -> list[dict[str, Any]]:
        listed: list[dict[str, Any]] = self.http.get("/v1/watch").json()["watched"]
        return listed

    def unwatch_all(self) -> None:
        for row in self.watched():
            assert self.http.delete("/v1/watch", params={"path": row["path"]}).status_code == 200

    def stop(self) -> None:
        self.http.close()
        self.proc.terminate()
        assert self.proc.wait(60) == 0
        assert "Traceback" not in (self.home.parent / "serve.log").read_text()


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    service = Served(tmp_path_factory.mktemp("watched") / "memory")
    yield service
    service.stop()


def _sources(served: Served) -> dict[str, int]:
    listed = served.http.get("/v1/sources").json()["sources"]
    return {s["source"]: s["records"] for s in listed}


def _notes(root: Path) -> Path:
    notes = root / "notes"
    (notes / "trips").mkdir(parents=True)
    (notes / "garden.md").write_text("# Garden\n\nPlant the tulips in October.\n")
    (notes / "trips" / "orkney.md").write_text("# Orkney\n\nThe ferry leaves Scrabster at 7.\n")
    return notes


def test_a_folder_and_a_path_inside_it_are_never_both_watched(
    served: Served, tmp_path: Path
) -> None:
    # Watching ~/notes and ~/notes/trips stored orkney.md twice, once for each source (and
    # the same through a link to trips, or a watch of the file itself).
    notes = _notes(tmp_path)
    (tmp_path / "link-to-trips").symlink_to(notes / "trips")
    try:
        first = served.post("/v1/watch", {"path": str(notes)})
        assert first.status_code == 201, first.text
        for inner in (notes / "trips", tmp_path / "link-to-trips", notes / "trips" / "orkney.md"):
            refused = served.post("/v1/watch", {"path": str(inner)})
            assert refused.status_code == 409, refused.text
            error = refused.json()["error"]
            assert f"inside {notes}" in error and "twice" in error
        # the same watch again is the same job; with other options it is refused
        again = served.post("/v1/watch", {"path": str(notes)})
        assert again.status_code == 201 and again.json()["job"] == first.json()["job"]
        other = served.post("/v1/watch", {"path": str(notes), "prune": True})
        assert other.status_code == 409 and "remove its watch first" in other.json()["error"]
        eventually(lambda: _sources(served).get(str(notes)) == 2)
        assert [w["path"] for w in served.watched()] == [str(notes)]
        assert str(notes / "trips") not in _sources(served)
    finally:
        served.unwatch_all()
    # the other order: a folder holding a watched one is refused, naming it
    trips = served.post("/v1/watch", {"path": str(notes / "trips")})
    assert trips.status_code == 201, trips.text
    try:
        refused = served.post("/v1/watch", {"path": str(notes)})
        assert refused.status_code == 409
        assert f"holds {notes / 'trips'}" in refused.json()["error"]
        assert [w["path"] for w in served.watched()] == [str(notes / "trips")]
    finally:
        served.unwatch_all()


def test_the_kernels_files_pipes_and_sockets_are_refused(served: Served, tmp_path: Path) -> None:
    # /proc, /sys and / were watched (a walk of /proc: every process's files; /proc/kmsg
    # waits for ever when read); /proc/self/status was imported as a file.
    fifo = tmp_path / "a-pipe"
    os.mkfifo(fifo)
    listening = socket.socket(socket.AF_UNIX)
    listening.bind(str(tmp_path / "a-socket"))
    kernel = ["/proc", "/proc/self/status", "/sys/kernel", "/dev", "/"]
    try:
        for path in kernel:
            for url, body in (("/v1/watch", {"path": path}), ("/v1/imports", {"paths": [path]})):
                answer = served.post(url, body)
                assert answer.status_code == 400, (url, path, answer.text)
                assert "a file system the kernel makes up" in answer.json()["error"]
        for path in (fifo, tmp_path / "a-socket", Path("/dev/null")):
            answer = served.post("/v1/watch", {"path": str(path)})
            assert answer.status_code == 400, answer.text
        answer = served.post("/v1/imports", {"paths": [str(tmp_path / "a-socket")]})
        assert answer.status_code == 400 and "a pipe" in answer.json()["error"]
    finally:
        listening.close()
    assert served.watched() == []
    jobs = served.http.get("/v1/imports").json()["imports"]
    assert [job for job in jobs if job["kind"] == "import"] == []


@pytest.mark.parametrize(
    ("path", "said"),
    [
        ("/tmp/notes\x00.md", "holds a NUL byte (\\x00) at character 11"),
        ("/tmp/\ud800notes", "holds U+D800 at character 6, a lone surrogate"),
        ("/tmp/\udc80notes", "is not UTF-8 (byte 0x80 at character 6)"),
        ("~no-such-user-here/notes", "no user 'no-such-user-here'"),
        ("notes/today.md", "must be absolute"),
        ("/tmp/" + "n" * 300, "File name too long"),
    ],
    ids=["nul", "surrogate", "not-utf8", "no-user", "relative", "too-long"],
)
def test_a_path_no_file_can_have_is_a_400_that_says_why(
    served: Served, path: str, said: str
) -> None:
    # A NUL was 'no such file' (404), a lone surrogate the codec's own words, ~user and a
    # name too long an internal error (500).
    for url, body in (("/v1/watch", {"path": path}), ("/v1/imports", {"paths": [path]})):
        answer = served.post(url, body)
        assert answer.status_code == 400, (url, answer.text)
        if url == "/v1/watch" or path.startswith("/"):  # imports: "give an absolute path"
            assert said in answer.json()["error"], answer.text
    if path.isprintable() and "long" not in said:  # a name too long is simply not watched
        answer = served.http.delete("/v1/watch", params={"path": path})
        assert answer.status_code == 400 and said in answer.json()["error"], answer.text
    assert served.watched() == []


def test_a_loop_of_links_is_a_400(served: Served, tmp_path: Path) -> None:
    (tmp_path / "a").symlink_to(tmp_path / "b")
    (tmp_path / "b").symlink_to(tmp_path / "a")
    for url, body in (
        ("/v1/watch", {"path": str(tmp_path / "a")}),
        ("/v1/imports", {"paths": [str(tmp_path / "a")]}),
    ):
        answer = served.post(url, body)
        assert answer.status_code == 400 and "a loop of symbolic links" in answer.json()["error"]
