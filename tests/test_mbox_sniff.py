"""An mbox is known by its first separator, whatever blank lines or BOM come before it."""

from __future__ import annotations

from contextlib import aclosing
from pathlib import Path

import pytest

from memtrails.importers.mbox import from_mbox
from memtrails.importers.mbox_lines import looks_like_mbox
from memtrails.records import MemoryRecord, SourceState

BOM = b"\xef\xbb\xbf"


def _mbox(eol: bytes = b"\n") -> bytes:
    mails = [
        f"From a@example.org Tue Mar  3 10:00:00 2009\nFrom: a@example.org\nSubject: mail {n}\n"
        f"Message-ID: <m{n}@example.org>\n\nbody {n}\n\n"
        for n in (1, 2)
    ]
    return "".join(mails).encode().replace(b"\n", eol)


LEADS = {
    "a blank line": b"\n",
    "two blank lines": b"\n\n",
    "a BOM and a blank line": BOM + b"\n",
    "CRLF blank lines": b"\r\n\r\n",
    "blanks and spaces": b"  \n\t\n",
}


@pytest.mark.parametrize("lead", list(LEADS.values()), ids=list(LEADS))
@pytest.mark.parametrize("eol", [b"\n", b"\r\n", b"\r"], ids=["LF", "CRLF", "CR"])
async def test_blank_lines_before_the_first_separator(
    tmp_path: Path, lead: bytes, eol: bytes
) -> None:
    data = lead.replace(b"\r\n", eol).replace(b"\n", eol) + _mbox(eol)
    assert looks_like_mbox(data)
    path = tmp_path / "archive"
    path.write_bytes(data)
    async with aclosing(from_mbox(path)) as items:
        got = [i async for i in items if not isinstance(i, SourceState)]
    assert [i.title for i in got if isinstance(i, MemoryRecord)] == ["mail 1", "mail 2"]


@pytest.mark.parametrize(
    "head",
    [
        b"\n\nFrom Russia with love\n\nA note.\n",  # a body line, not a separator
        b"\n\nFrom: a@example.org\nSubject: one mail\n\nhi\n",  # a message, not an mbox
        b"\n\n",
        b"",
        b"notes\n\nFrom a@example.org Tue Mar  3 10:00:00 2009\n",  # text before it
    ],
)
def test_what_is_not_an_mbox(head: bytes) -> None:
    assert not looks_like_mbox(head)
