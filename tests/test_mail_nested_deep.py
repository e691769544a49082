"""A mail of enclosed mails nested deeper than the stdlib parser can recurse (hundreds of
message/rfc822 parts inside each other: hostile, or a forwarding loop) is read down to the
depth memtrails reads any mail to, its outer text kept and ``TooDeeplyNestedDefect``
named; it was one error, the whole mail lost."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import collect, errors, records

from memtrails.importers.eml import from_eml


def nested(levels: int, multipart: bool) -> bytes:
    inner = b"From: inner@example.org\nSubject: innermost\n\nthe innermost words\n"
    for k in range(levels):
        head = b"From: l%d@example.org\nSubject: level %d\nMIME-Version: 1.0\n" % (k, k)
        if multipart:
            inner = (
                head
                + b'Content-Type: multipart/mixed; boundary="b%d"\n\n--b%d\n' % (k, k)
                + b"Content-Type: text/plain\n\nwrapper %d says hello\n--b%d\n" % (k, k)
                + b"Content-Type: message/rfc822\n\n"
                + inner
                + b"\n--b%d--\n" % k
            )
        else:
            inner = head + b"Content-Type: message/rfc822\n\n" + inner
    return b"Date: Mon, 1 Jan 2024 10:00:00 +0000\nMessage-ID: <deep@example.org>\n" + inner


@pytest.mark.parametrize(
    ("levels", "multipart"), [(600, True), (3000, False)], ids=["multipart", "rfc822"]
)
async def test_the_outer_levels_are_read(tmp_path: Path, levels: int, multipart: bool) -> None:
    (tmp_path / "a.eml").write_bytes(nested(levels, multipart))
    items = await collect(from_eml(tmp_path))
    assert not errors(items)
    [record] = records(items)
    top = levels - 1
    assert record.title == f"level {top}"
    if multipart:
        assert record.text.startswith(f"wrapper {top} says hello")
    assert f"Subject: level {top - 1}" in record.text
    assert "innermost" not in record.text
    assert "TooDeeplyNestedDefect" in record.meta["defects"]
