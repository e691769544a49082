"""An S/MIME mail signed with its text inside the signature (opaque signing, one
``smime.p7m`` part, BER with open lengths as ``openssl smime -stream`` writes) is read as
its text, not as an attachment; an encrypted one says so where its text would be; a part
cut short or damaged is named, the mail kept."""

from __future__ import annotations

from pathlib import Path

from memtrails.importers.mail import message_to_item
from memtrails.importers.mail.smime import ENCRYPTED_NOTE, read_smime
from memtrails.records import MemoryRecord

DATA = Path(__file__).parent / "data" / "mail" / "smime"


def _read(name: str) -> MemoryRecord:
    item = message_to_item((DATA / name).read_bytes(), source="s", where=name)
    assert isinstance(item, MemoryRecord), item
    return item


def test_an_opaque_signed_mail_reads_as_its_text() -> None:
    item = _read("opaque-signed.eml")
    assert item.text == "the opaque signed words, café"
    assert "attachments" not in item.meta


def test_an_encrypted_mail_says_it_is() -> None:
    item = _read("encrypted.eml")
    assert item.text == ENCRYPTED_NOTE
    assert item.meta["attachments"][0]["encrypted"] is True


def test_a_damaged_signature_is_named_and_the_mail_kept() -> None:
    raw = (DATA / "opaque-signed.eml").read_bytes()
    head, _, body = raw.partition(b"\n\n")
    cut = head + b"\n\n" + body[:120] + b"\n"
    item = message_to_item(cut, source="s", where="cut")
    assert isinstance(item, MemoryRecord) and item.title == "opaque-signed"
    assert "cannot be read" in item.meta["attachments"][0]["error"]
    assert read_smime(b"\x30\x80" * 4000).kind == "damaged"  # nesting past its depth
