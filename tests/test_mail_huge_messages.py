"""A mail over the size limit (a large attachment after its text) keeps its headers and its
text, read from its first bytes, in every mail source; only the attachment's tail is lost,
and the record says so. Before, the whole mail was an error and skipped."""

from __future__ import annotations

import base64
from pathlib import Path

import pytest
from helpers import collect, records

from memtrails.importers import mbox
from memtrails.importers.eml import from_eml
from memtrails.importers.mail import message
from memtrails.importers.maildir import from_maildir
from memtrails.importers.mbox import from_mbox

LIMIT = 20_000
SEP = b"From a@example.com Mon Jan  1 00:00:00 2024\n"


def _big(n: int) -> bytes:
    attachment = base64.encodebytes(bytes(range(256)) * 200)  # ~70 KB of base64
    return (
        (
            f"From: ann@example.com\nSubject: quarterly figures {n}\n"
            f"Message-ID: <big{n}@example.com>\nMIME-Version: 1.0\n"
            'Content-Type: multipart/mixed; boundary="b"\n\n--b\n'
            "Content-Type: text/plain; charset=utf-8\n\n"
            f"The figures for quarter {n} are attached; revenue rose by a tenth.\n"
            "--b\nContent-Type: application/octet-stream; name=figures.bin\n"
            "Content-Transfer-Encoding: base64\n\n"
        ).encode()
        + attachment
        + b"--b--\n"
    )


def _small(n: int) -> bytes:
    return f"From: bob@example.com\nSubject: small {n}\nMessage-ID: <s{n}@example.com>\n\nhi\n".encode()


def _check(record: object, n: int) -> None:
    assert getattr(record, "title", None) == f"quarterly figures {n}"
    text = getattr(record, "text", "")
    assert f"The figures for quarter {n} are attached; revenue rose by a tenth." in text
    meta = getattr(record, "meta", {})
    assert "TooLargeDefect" in meta["defects"]
    assert [a["name"] for a in meta["attachments"]] == ["figures.bin"]


@pytest.fixture
def small_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(mbox, "MAX_MESSAGE_BYTES", LIMIT)
    monkeypatch.setattr(message, "MAX_MESSAGE_BYTES", LIMIT)


@pytest.mark.usefixtures("small_limit")
async def test_an_mbox_mail_over_the_limit_keeps_its_text(tmp_path: Path) -> None:
    box = tmp_path / "box.mbox"
    box.write_bytes(b"".join(SEP + m + b"\n" for m in (_small(1), _big(1), _small(2), _big(2))))
    got = records(await collect(from_mbox(box)))
    assert [r.title for r in got] == [
        "small 1",
        "quarterly figures 1",
        "small 2",
        "quarterly figures 2",
    ]
    _check(got[1], 1)
    _check(got[3], 2)
    assert got[1].meta["bytes_cut"] > len(_big(1)) - LIMIT - 100
    assert "defects" not in got[2].meta  # the mail after it is whole


@pytest.mark.usefixtures("small_limit")
async def test_an_eml_over_the_limit_keeps_its_text(tmp_path: Path) -> None:
    (tmp_path / "big.eml").write_bytes(_big(3))
    (tmp_path / "small.eml").write_bytes(_small(3))
    got = {r.title: r for r in records(await collect(from_eml(tmp_path)))}
    _check(got["quarterly figures 3"], 3)
    assert got["quarterly figures 3"].meta["bytes_cut"] == len(_big(3)) - LIMIT


@pytest.mark.usefixtures("small_limit")
async def test_a_maildir_message_over_the_limit_keeps_its_text(tmp_path: Path) -> None:
    for sub in ("cur", "new", "tmp"):
        (tmp_path / "md" / sub).mkdir(parents=True)
    (tmp_path / "md" / "cur" / "1.host:2,S").write_bytes(_big(4))
    (record,) = records(await collect(from_maildir(tmp_path / "md")))
    _check(record, 4)
