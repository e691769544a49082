"""A mail's plain-text attachments (patches, logs, source code, JSON) are searchable text of
the mail, under a heading that names the file; bounded whatever their size, scrubbed of
secrets as any text, and binary data stays named only."""

from __future__ import annotations

import re
from email import encoders
from email.mime.base import MIMEBase
from email.mime.message import MIMEMessage
from email.mime.text import MIMEText
from pathlib import Path

from helpers import mail_record, multipart_mail

from memtrails import Memory
from memtrails.importers.eml import from_eml
from memtrails.importers.mail.attach_plain import MAX_PLAIN_CHARS
from memtrails.testing import HashingEmbedder

PATCH = (
    "From 1a2b3c Mon Sep 17 00:00:00 2001\n"
    "Subject: [PATCH] widgets: stop leaking the frame buffer\n\n"
    "--- a/src/widgets.c\n+++ b/src/widgets.c\n"
    "@@ -40,7 +40,8 @@ static int frobnicate_widget(struct widget *w)\n"
    "-\tkfree(w->buf);\n+\tif (w->buf)\n+\t\tkfree(w->buf);\n"
)


def _mail(*parts: MIMEBase, body: str = "Patch attached, please review.") -> bytes:
    return multipart_mail(
        *parts, body=body, subject="[PATCH] widgets fix", message_id="<p1@example.com>"
    )


def _file(data: bytes, ctype: str, name: str | None, charset: str | None = None) -> MIMEBase:
    part = MIMEBase(*ctype.split("/"))
    part.set_payload(data)
    if charset is not None:
        part.set_param("charset", charset)
    encoders.encode_base64(part)
    if name is not None:
        part.add_header("Content-Disposition", "attachment", filename=name)
    else:
        part.add_header("Content-Disposition", "attachment")
    return part


async def test_a_mail_is_found_by_a_function_name_in_its_patch(tmp_path: Path) -> None:
    folder = tmp_path / "mail"
    folder.mkdir()
    (folder / "patch.eml").write_bytes(
        _mail(_file(PATCH.encode(), "text/x-patch", "0001-widgets-stop-leaking.patch"))
    )
    other = MIMEText("The widgets meeting moves to Thursday.", "plain")
    other["From"], other["Subject"], other["Message-ID"] = "b@example.com", "Widgets", "<o@x>"
    (folder / "other.eml").write_bytes(other.as_bytes())
    async with Memory.open(tmp_path / "memory", embedder=HashingEmbedder()) as memory:
        assert (await memory.ingest(from_eml(folder))).added == 2
        hits = await memory.search("frobnicate_widget", k=1)
        stored = await memory.get("p1@example.com")
    assert hits[0].id == "p1@example.com"
    assert hits[0].attachment == "0001-widgets-stop-leaking.patch"
    assert stored is not None
    assert "[attachment: 0001-widgets-stop-leaking.patch]\n\nFrom 1a2b3c" in stored.text
    assert "+\t\tkfree(w->buf);" in stored.text
    (entry,) = stored.meta["attachments"]
    assert entry["name"] == "0001-widgets-stop-leaking.patch" and entry["chars"] > 0


def test_text_files_of_many_types_and_charsets_are_read() -> None:
    record = mail_record(
        _mail(
            _file(b"LIMIT = 40  # tonnes of the crane\n", "text/x-python", "crane.py"),
            _file(b'{"harbour": "Kiel", "cranes": 4}', "application/json", "port.json"),
            _file(PATCH.encode(), "application/octet-stream", "fix.diff"),
            _file(
                "Grüße aus Köln, Kranführer\n".encode("latin-1"),
                "text/plain",
                "a.txt",
                "iso-8859-1",
            ),
            _file("Überlauf im Hafenbecken\r\n".encode("utf-16"), "text/plain", "w.log"),
            _file(
                b"\x1b[31mERROR\x1b[0m boiler pressure\n 10%\r 55%\r100%\n", "text/plain", "ci.log"
            ),
            _file(b"Final-Recipient: rfc822; bob@y.org\n", "text/plain", None),
        )
    )
    text = record.text
    assert "[attachment: crane.py]\n\nLIMIT = 40  # tonnes of the crane" in text
    assert '[attachment: port.json]\n\n{"harbour": "Kiel", "cranes": 4}' in text
    assert "[attachment: fix.diff]" in text and "frobnicate_widget" in text
    assert "Grüße aus Köln, Kranführer" in text
    assert "[attachment: w.log]\n\nÜberlauf im Hafenbecken" in text
    assert "ERROR boiler pressure\n100%" in text and "\x1b" not in text and "55%" not in text
    assert "[attachment: attachment.txt]\n\nFinal-Recipient: rfc822; bob@y.org" in text
    assert all(e["chars"] > 0 for e in record.meta["attachments"])


def test_a_ten_megabyte_log_gives_a_bounded_text() -> None:
    width = len("line 000000: request served\n")
    log = "".join(f"line {n:06d}: request served\n" for n in range(400_000)).encode()
    assert len(log) > 10_000_000
    record = mail_record(_mail(_file(log, "text/plain", "server.log")))
    assert len(record.text) < MAX_PLAIN_CHARS + 200
    assert "line 000000: request served" in record.text and "line 399999" not in record.text
    (entry,) = record.meta["attachments"]
    assert 0 < entry["chars"] <= MAX_PLAIN_CHARS + 100
    # The lines left out are counted: all the lines of what the mail kept of the file
    # (the whole file, or its start where the mail is cut to a size limit), less those shown.
    kept = record.text.count("request served")
    said = re.search(r"\(([\d,]+) more lines left out\)$", record.text)
    assert said is not None
    left = int(said[1].replace(",", ""))
    assert abs(kept + left - entry["size"] / width) <= 2
    # One line of 10 MB, no line end: cut at a space, still bounded.
    one = mail_record(_mail(_file(b"word " * 2_000_000, "text/plain", "one.txt"))).text
    assert len(one) < MAX_PLAIN_CHARS + 200 and one.endswith("(1 more line left out)")


def test_a_mails_text_files_share_one_bound() -> None:
    parts = [_file((f"patch {n} " * 2000).encode(), "text/x-diff", f"{n}.diff") for n in range(6)]
    record = mail_record(_mail(*parts))
    assert len(record.text) < 20_000 + 1000
    by_name = {e["name"]: e for e in record.meta["attachments"]}
    assert by_name["0.diff"]["chars"] > 0
    assert by_name["5.diff"]["error"].startswith("left out: the mail's attachments gave")


def test_binary_data_under_a_text_type_or_name_stays_named_only() -> None:
    record = mail_record(
        _mail(
            _file(b"\x00\x01\x02 core dump" * 100, "text/plain", "core.txt"),
            _file(b"%PDF-1.4\n% scanned\n", "application/octet-stream", "scan.txt"),
            _file(bytes(range(128, 256)) * 40, "text/plain", "noise.log"),
            _file(b"\x89PNG\r\n\x1a\n" + bytes(64), "image/png", "logo.py"),
        )
    )
    assert record.text == "Patch attached, please review."
    by_name = {e["name"]: e for e in record.meta["attachments"]}
    for name in ("core.txt", "scan.txt", "noise.log"):
        assert by_name[name]["error"] == "binary data, not text"
    assert all("chars" not in e for e in by_name.values())


def test_signatures_and_enclosed_mail_bodies_are_not_read_as_files() -> None:
    signature = MIMEBase("application", "pgp-signature")
    signature.set_payload("-----BEGIN PGP SIGNATURE-----\niQEzBAEBCAAdFiEE\n-----END PGP")
    inner = MIMEText("Forwarded words about the dock.", "plain")
    inner["Subject"] = "Dock"
    notes = _file(b"Second file: the crane's log.", "text/plain", None)
    record = mail_record(_mail(signature, MIMEMessage(inner), notes))
    assert "BEGIN PGP SIGNATURE" not in record.text
    assert record.text.count("Forwarded words about the dock.") == 1
    assert "[attachment: attachment.txt]\n\nSecond file: the crane's log." in record.text


async def test_a_secret_in_an_attached_file_is_scrubbed(tmp_path: Path) -> None:
    token = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
    env = f"DEPLOY_HOST=ship.example.com\nGITHUB_TOKEN={token}\n".encode()
    folder = tmp_path / "mail"
    folder.mkdir()
    (folder / "m.eml").write_bytes(_mail(_file(env, "text/plain", "deploy.env")))
    async with Memory.open(tmp_path / "memory", embedder=HashingEmbedder()) as memory:
        await memory.ingest(from_eml(folder))
        stored = await memory.get("p1@example.com")
    assert stored is not None
    assert "DEPLOY_HOST=ship.example.com" in stored.text
    assert token not in stored.text and "[secret:" in stored.text
    assert token not in (tmp_path / "memory" / "records.jsonl").read_text()
