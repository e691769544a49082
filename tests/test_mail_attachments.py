"""A mail's attached documents: their text joins the mail's record, and search names the one
that matched. The PDF and DOCX are written at test time (benchmarks/documents_samples.py)."""

from __future__ import annotations

import json
from contextlib import aclosing
from email.message import EmailMessage
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from helpers import benchmark

from memtrails import Memory
from memtrails.cli import main
from memtrails.importers.eml import from_eml
from memtrails.importers.mail import message_to_item
from memtrails.importers.maildir import from_maildir
from memtrails.records import MemoryRecord
from memtrails.testing import HashingEmbedder

samples = benchmark("documents_samples")
PDF_SENTENCE = "The harbour crane rental for the regatta costs four thousand euros per week."


def _mail(tmp_path: Path) -> bytes:
    samples.write_pdf(tmp_path / "quote.pdf", PDF_SENTENCE)
    samples.write_encrypted_pdf(tmp_path / "locked.pdf")
    msg = EmailMessage()
    msg["From"] = "Port Office <office@example.com>"
    msg["To"] = "ann@example.com"
    msg["Subject"] = "Quote attached"
    msg["Date"] = "Tue, 01 Apr 2025 10:00:00 +0000"
    msg["Message-ID"] = "<quote-1@example.com>"
    msg.set_content("Hello Ann, please find our quote attached.\n")
    for name in ("quote.pdf", "locked.pdf"):
        data = (tmp_path / name).read_bytes()
        msg.add_attachment(data, maintype="application", subtype="pdf", filename=name)
    return msg.as_bytes()


def test_attachment_text_and_errors_go_into_the_mail_record(tmp_path: Path) -> None:
    item = message_to_item(_mail(tmp_path), source="mail", where="1")
    assert isinstance(item, MemoryRecord)
    assert item.text.startswith("Hello Ann")
    assert "[attachment: quote.pdf]" in item.text
    assert PDF_SENTENCE in " ".join(item.text.split())
    by_name = {a["name"]: a for a in item.meta["attachments"]}
    assert by_name["quote.pdf"]["chars"] > 100
    assert by_name["locked.pdf"]["error"].startswith("encrypted document")


@pytest.mark.slow
async def test_a_mail_is_found_by_a_sentence_in_its_pdf(tmp_path: Path, embedder: Any) -> None:
    (tmp_path / "mail").mkdir()
    (tmp_path / "mail" / "quote.eml").write_bytes(_mail(tmp_path))
    # Another mail about cranes, without the attachment, must not win.
    other = EmailMessage()
    other["From"], other["Subject"] = "bob@example.com", "Cranes"
    other["Message-ID"] = "<other@example.com>"
    other.set_content("The crane at the boatyard was painted blue last spring.\n")
    (tmp_path / "mail" / "other.eml").write_bytes(other.as_bytes())
    async with Memory.open(tmp_path / "memory", embedder=embedder) as memory:
        report = await memory.ingest(from_eml(tmp_path / "mail"))
        assert report.added == 2
        hits = await memory.search("how much does the regatta crane rental cost per week", k=2)
    assert hits[0].id == "quote-1@example.com" and hits[0].kind == "mail"
    assert hits[0].attachment == "quote.pdf"
    assert hits[0].to_json()["attachment"] == "quote.pdf"


@pytest.mark.slow
def test_the_command_line_names_the_attachment(tmp_path: Path) -> None:
    (tmp_path / "mail").mkdir()
    (tmp_path / "mail" / "quote.eml").write_bytes(_mail(tmp_path))
    home = str(tmp_path / "memory")
    result = CliRunner().invoke(main, ["add", str(tmp_path / "mail"), "--home", home])
    assert result.exit_code == 0, result.output
    result = CliRunner().invoke(main, ["search", "regatta crane rental per week", "--home", home])
    assert result.exit_code == 0, result.output
    assert "in attachment: quote.pdf" in result.output
    result = CliRunner().invoke(main, ["search", "regatta crane", "--json", "--home", home])
    assert json.loads(result.output)[0]["attachment"] == "quote.pdf"


async def test_one_worker_reads_the_attachments_of_a_whole_mbox(
    tmp_path: Path, monkeypatch: Any
) -> None:
    from memtrails.importers.documents import _worker
    from memtrails.importers.mbox import from_mbox

    raw = _mail(tmp_path)
    mbox = tmp_path / "a.mbox"
    with mbox.open("wb") as f:
        for i in range(3):
            f.write(b"From x@example.com Tue Apr  1 10:00:00 2025\n")
            f.write(raw.replace(b"<quote-1@", f"<quote-{i}@".encode()) + b"\n")
    started = []
    real = _worker.subprocess.Popen

    def popen(*args: Any, **kwargs: Any) -> Any:
        started.append(args)
        return real(*args, **kwargs)

    monkeypatch.setattr(_worker.subprocess, "Popen", popen)
    async with aclosing(from_mbox(mbox)) as items:
        records = [i async for i in items if isinstance(i, MemoryRecord)]
    assert len(records) == 3 and all(PDF_SENTENCE[:40] in r.text for r in records)
    assert len(started) == 1


async def test_a_secret_in_a_maildir_mails_pdf_is_scrubbed_from_the_folder(tmp_path: Path) -> None:
    """A Maildir message's attachment is read into its record, and a token in it is scrubbed
    there as in any text: no byte of it reaches the folder."""
    token = "ghp_" + "Zq7" * 12
    samples.write_pdf(
        tmp_path / "keys.pdf", f"The deploy token for the regatta site is {token} today."
    )
    msg = EmailMessage()
    msg["From"], msg["Subject"] = "ops@example.com", "Deploy notes"
    msg["Message-ID"] = "<keys-1@example.com>"
    msg.set_content("Notes attached.\n")
    msg.add_attachment(
        (tmp_path / "keys.pdf").read_bytes(),
        maintype="application",
        subtype="pdf",
        filename="keys.pdf",
    )
    box = tmp_path / "Maildir"
    for sub in ("cur", "new", "tmp"):
        (box / sub).mkdir(parents=True)
    (box / "cur" / "1.M1.host:2,S").write_bytes(msg.as_bytes())
    async with Memory.open(tmp_path / "memory", embedder=HashingEmbedder()) as memory:
        report = await memory.ingest(from_maildir(box))
    assert report.added == 1 and sum(report.secrets.values()) == 1
    (line,) = (tmp_path / "memory" / "records.jsonl").read_text().splitlines()
    text = json.loads(line)["text"]
    assert "[attachment: keys.pdf]" in text and "deploy token for the regatta" in " ".join(
        text.split()
    )
    for path in (tmp_path / "memory").rglob("*"):
        if path.is_file():
            assert token.encode() not in path.read_bytes(), path
