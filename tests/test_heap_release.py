"""Handing freed C heap back to the system, as the Edge index does after each seal."""

from __future__ import annotations

import ctypes
import platform

import pytest

from memtrails.folder.index._edge_settings import release_freed_heap

CHUNK = 4096
CHUNKS = 20_000  # 78 MiB, in chunks below glibc's mmap threshold: they come from the heap


def anonymous_kib() -> int:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("RssAnon:"):
                return int(line.split()[1])
    raise AssertionError("no RssAnon in /proc/self/status")


@pytest.mark.skipif(
    platform.system() != "Linux" or platform.libc_ver()[0] != "glibc", reason="glibc only"
)
def test_freed_heap_pages_leave_the_process() -> None:
    libc = ctypes.CDLL(None)
    libc.malloc.restype = ctypes.c_void_p
    libc.free.argtypes = [ctypes.c_void_p]
    chunks = [libc.malloc(CHUNK) for _ in range(CHUNKS)]
    for chunk in chunks:
        ctypes.memset(chunk, 1, CHUNK)  # touch every page: resident
    kept = set(
        chunks[::64]
    )  # live chunks scattered through the heap keep it from shrinking by itself
    for chunk in chunks:
        if chunk not in kept:
            libc.free(chunk)
    freed_but_held = anonymous_kib()
    release_freed_heap()
    released = anonymous_kib()
    for chunk in kept:
        libc.free(chunk)
    # 63 of every 64 pages were free: nearly all of the 78 MiB leaves the process.
    assert freed_but_held - released > 0.75 * CHUNKS * CHUNK // 1024
