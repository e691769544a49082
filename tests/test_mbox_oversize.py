"""A mail far larger than its record can hold is cut before it is parsed, and says so."""

from __future__ import annotations

import base64
import json
import os
import subprocess
import sys
from contextlib import aclosing
from pathlib import Path

import pytest

from memtrails.importers.mbox import from_mbox
from memtrails.limits import Limits
from memtrails.records import MemoryRecord, SourceState

SEP = b"From a@example.org Mon Jan  1 00:00:00 2024\n"
SMALL_LIMITS = Limits(max_text_units=1000)  # 8,000 bytes of text kept per mail


async def _records(path: Path, limits: Limits | None = None) -> list[MemoryRecord]:
    async with aclosing(from_mbox(path, limits=limits)) as items:
        got = [item async for item in items if not isinstance(item, SourceState)]
    assert all(isinstance(i, MemoryRecord) for i in got), got
    return [i for i in got if isinstance(i, MemoryRecord)]


def _small(n: int) -> bytes:
    return f"From: b@example.org\nSubject: small {n}\nMessage-ID: <s{n}@example.org>\n\nhi {n}\n".encode()


def _mbox(path: Path, big: bytes) -> None:
    path.write_bytes(b"".join(SEP + m + b"\n" for m in (_small(1), big, _small(2))))


def _head(subject: str, extra: bytes = b"") -> bytes:
    return (
        b"From: a@example.org\nSubject: " + subject.encode() + b"\nMessage-ID: <big@example.org>\n"
    ) + extra


def _cut(rec: MemoryRecord) -> bool:
    return "TooLargeDefect" in rec.meta.get("defects", []) and rec.meta["bytes_cut"] > 0


@pytest.mark.parametrize("eol", [b"", b"\n"])  # one line, or many
async def test_a_text_body_far_over_the_limit_is_cut_and_named(tmp_path: Path, eol: bytes) -> None:
    path = tmp_path / "big.mbox"
    body = b"first words of the body " + (b"caf\xe9 abc" + eol) * 50_000
    head = _head("one huge line", b"Content-Type: text/plain; charset=latin-1\n")
    _mbox(path, head + b"\n" + body + b"\n")
    one, big, two = await _records(path, SMALL_LIMITS)
    assert (one.title, big.title, two.title) == ("small 1", "one huge line", "small 2")
    assert big.id == "big@example.org"
    assert big.text.startswith("first words of the body café abc")
    assert len(big.text) <= 8000 and _cut(big)
    assert not _cut(one) and not _cut(two)


async def test_the_parts_after_a_cut_text_part_are_read(tmp_path: Path) -> None:
    path = tmp_path / "parts.mbox"
    blob = bytes(range(256)) * 40
    mail = (
        _head("text then file", b"Content-Type: multipart/mixed; boundary=bb\n")
        + b"\n--bb\nContent-Type: text/plain\n\nthe text part "
        + b"x" * 100_000
        + b"\n--bb\nContent-Type: application/octet-stream\nContent-Transfer-Encoding: base64\n"
        + b"Content-Disposition: attachment; filename=data.bin\n\n"
        + base64.encodebytes(blob)
        + b"--bb\nContent-Type: text/plain\n\nthe last words\n--bb--\n"
    )
    _mbox(path, mail)
    _, big, _ = await _records(path, SMALL_LIMITS)
    assert big.text.startswith("the text part xxx")
    assert big.meta["attachments"] == [
        {"name": "data.bin", "type": "application/octet-stream", "size": len(blob)}
    ]
    assert _cut(big)


async def test_base64_text_on_one_line_cut_anywhere_still_decodes(tmp_path: Path) -> None:
    path = tmp_path / "b64.mbox"
    text = "Grüße aus Köln, " * 20_000
    for extra in range(4):  # every place a cut can fall in a group of four
        encoded = base64.b64encode(("x" * extra + text).encode())
        head = _head(f"b64 {extra}", b"Content-Type: text/plain; charset=utf-8\n")
        head += b"Content-Transfer-Encoding: base64\n"
        _mbox(path, head + b"\n" + encoded + b"\n")
        _, big, _ = await _records(path, SMALL_LIMITS)
        assert big.text.startswith("x" * extra + "Grüße aus Köln, Grüße"), big.text[:80]
        assert "UndecodableBase64" not in big.meta.get("defects", []) and _cut(big)


async def test_a_huge_header_line_is_cut_and_the_headers_after_it_kept(tmp_path: Path) -> None:
    path = tmp_path / "header.mbox"
    mail = (
        b"From: a@example.org\nSubject: big header\nX-Junk: "
        + b"\xe9" * (3 << 20)
        + b"\nMessage-ID: <after@example.org>\n\nfirst words\n"
    )
    _mbox(path, mail)
    _, big, _ = await _records(path)  # the default limits: the header line is what is cut
    assert (big.id, big.title, big.text) == ("after@example.org", "big header", "first words")
    assert _cut(big) and big.meta["bytes_cut"] == len(b"X-Junk: ") + (3 << 20) - (1 << 20)


async def test_megabytes_of_header_lines_are_cut_and_the_mail_kept(tmp_path: Path) -> None:
    path = tmp_path / "headers.mbox"
    many = b"X-Junk: v\n" * 300_000  # 3 MB of header lines
    _mbox(path, _head("many headers") + many + b"\nfirst words\n")
    _, big, _ = await _records(path)
    assert (big.id, big.title, big.text) == ("big@example.org", "many headers", "first words")
    assert _cut(big) and 0 < big.meta["bytes_cut"] < len(many)


async def test_a_mail_within_the_limit_is_read_whole(tmp_path: Path) -> None:
    path = tmp_path / "fits.mbox"
    body = b"word " * 1500  # 7,500 bytes: under 8,000
    _mbox(path, _head("fits") + b"\n" + body + b"\n")
    _, rec, _ = await _records(path, SMALL_LIMITS)
    assert rec.text == body.decode().strip() and not _cut(rec)


_CHILD = """
import asyncio, json, sys
from memtrails.importers.mbox import from_mbox
from memtrails.records import MemoryRecord
async def main():
    out = []
    async for item in from_mbox(sys.argv[1]):
        if isinstance(item, MemoryRecord):
            out.append([item.title, item.text[:24], item.meta.get("defects", [])])
    return out
got = asyncio.run(main())
# VmHWM is this program's own peak: ru_maxrss keeps the parent's across fork and exec, so a
# child of a big test process would report the parent's size.
with open("/proc/self/status") as status:
    peak = next(int(l.split()[1]) for l in status if l.startswith("VmHWM:")) / 1024
print(json.dumps({"records": got, "peak_mib": peak}))
"""


@pytest.mark.slow
@pytest.mark.skipif(sys.platform != "linux", reason="/proc/self/status: Linux")
@pytest.mark.parametrize("shape", ["one 8-bit line", "short lines", "header lines"])
def test_a_50_mb_text_mail_is_read_in_bounded_memory(tmp_path: Path, shape: str) -> None:
    # before the cut: 1.2 GB (one line of 8-bit text), 0.73 GB (short lines) and 1.6 GB
    # (50 MB of header lines) at peak
    path = tmp_path / "huge.mbox"
    eol = b"" if shape == "one 8-bit line" else b"\n"
    head = _head("fifty megabytes", b"Content-Type: text/plain; charset=latin-1\n")
    body = b"first words " + (b"caf\xe9 abcdefg " + eol) * ((50 << 20) // 15)
    if shape == "header lines":
        head, body = head + b"X-H: v\n" * ((50 << 20) // 7), b"first words caf\xe9"
    _mbox(path, head + b"\n" + body + b"\n")
    del body
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    run = subprocess.run(
        [sys.executable, "-c", _CHILD, str(path)], env=env, capture_output=True, check=True
    )
    result = json.loads(run.stdout.decode().splitlines()[-1])
    assert result["peak_mib"] < 600, result["peak_mib"]
    titles = [r[0] for r in result["records"]]
    assert titles == ["small 1", "fifty megabytes", "small 2"]
    assert result["records"][1][1].startswith("first words café")
    assert "TooLargeDefect" in result["records"][1][2]
