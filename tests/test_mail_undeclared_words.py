"""A mail whose text declares no charset (a list archive's copy with no MIME headers, or
``us-ascii`` on 8-bit bytes) is read in the legacy code page its words are in, as a notes
folder's legacy text is: not KOI8-R as half-width katakana, nor Turkish dotless i as y with an acute."""

# ruff: noqa: RUF001 (letters of many scripts, on purpose)

from __future__ import annotations

import base64
import quopri

import pytest

from memtrails.importers.mail import message_to_item
from memtrails.records import MemoryRecord

CASES = [
    ("Собрание перенесли на четверг, захватите, пожалуйста, отчёт за квартал.", "koi8_r"),
    ("Зустріч перенесли на середу, візьміть, будь ласка, звіт.", "koi8_u"),
    ("Не забудь позвонить бабушке в субботу вечером.", "cp866"),
    ("Toplantı perşembe gününe ertelendi, lütfen raporu getirin.", "cp1254"),
    ("הפגישה נדחתה ליום חמישי, נא להביא את הדוח.", "cp1255"),
    ("Susitikimas perkeltas į ketvirtadienį, atsineškite ataskaitą.", "cp1257"),
    ("Η συνάντηση μετατέθηκε για την Πέμπτη, φέρτε την αναφορά.", "cp1253"),
    ("La réunion est déplacée à jeudi, apportez le rapport de l'équipe.", "cp1252"),
]
_HEAD = b"From: a@example.org\nSubject: meeting\nDate: Mon, 1 Jan 2024 10:00:00 +0000\n"
_FORMS = {
    "no MIME headers": b"",
    "us-ascii": b"MIME-Version: 1.0\nContent-Type: text/plain; charset=us-ascii\n",
    "unknown label": b"MIME-Version: 1.0\nContent-Type: text/plain; charset=x-unknown\n",
}


def _read(raw: bytes) -> str:
    item = message_to_item(raw, source="s", where="w")
    assert isinstance(item, MemoryRecord), item
    return item.text.strip()


@pytest.mark.parametrize("form", list(_FORMS))
@pytest.mark.parametrize(("text", "codec"), CASES, ids=[codec for _, codec in CASES])
def test_undeclared_text_reads_in_its_code_page(text: str, codec: str, form: str) -> None:
    raw = _HEAD + _FORMS[form] + b"\n" + text.encode(codec) + b"\n"
    assert _read(raw) == text


def test_quoted_printable_text_with_no_charset_is_read_by_its_words() -> None:
    """Its 8-bit bytes are =XX escapes: the raw message shows none of them."""
    text = "Собрание перенесли на четверг, захватите отчёт."
    body = quopri.encodestring(text.encode("koi8_r"))
    form = b"MIME-Version: 1.0\nContent-Type: text/plain\nContent-Transfer-Encoding: quoted-printable\n"
    assert _read(_HEAD + form + b"\n" + body + b"\n") == text


def test_a_raw_subject_reads_with_the_body() -> None:
    subject, text = "Отчёт", "Собрание перенесли на четверг, захватите отчёт."
    raw = _HEAD.replace(b"meeting", subject.encode("koi8_r")) + b"\n" + text.encode("koi8_r")
    item = message_to_item(raw, source="s", where="w")
    assert isinstance(item, MemoryRecord)
    assert (item.title, item.text.strip()) == (subject, text)


@pytest.mark.parametrize(("text", "codec"), CASES[3:6], ids=[c for _, c in CASES[3:6]])
def test_an_attached_text_file_with_no_charset_reads_by_its_words(text: str, codec: str) -> None:
    """A ``notes.txt`` attached with no charset, beside a UTF-8 text."""
    body = base64.encodebytes(text.encode(codec)).decode()
    raw = (
        "From: a@example.org\nSubject: notes\nMIME-Version: 1.0\n"
        "Content-Type: multipart/mixed; boundary=BB\n\n--BB\n"
        "Content-Type: text/plain; charset=utf-8\n\nsee the notes\n--BB\n"
        "Content-Type: text/plain\nContent-Disposition: attachment; filename=notes.txt\n"
        f"Content-Transfer-Encoding: base64\n\n{body}--BB--\n"
    )
    assert _read(raw.encode()).endswith(text)
