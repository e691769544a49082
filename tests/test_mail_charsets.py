"""Undeclared 8-bit mail read in its language's usual charset; every known charset label read."""

from __future__ import annotations

import encodings.aliases
from pathlib import Path

import pytest
import webencodings  # type: ignore[import-untyped]  # why: the package ships no types
from helpers import collect

from memtrails.importers.eml import from_eml
from memtrails.importers.mail import decode_bytes
from memtrails.importers.mail.charsets import python_codec
from memtrails.importers.mail.languages import languages_using, letters_of
from memtrails.records import MemoryRecord, SourceState

UNDECLARED = Path(__file__).parent / "data" / "mail" / "undeclared"
# Fixture -> the charset it was written in, and the letters a misreading brought (issue 28).
CASES = {
    "portuguese-cp1252.eml": ("cp1252", "ăń"),
    "french-iso-8859-15.eml": ("iso-8859-15", "ăč"),
    "hungarian-iso-8859-2.eml": ("iso-8859-2", "įõ"),
    "czech-iso-8859-2.eml": ("iso-8859-2", "ąľ"),
    "czech-windows-1250.eml": ("cp1250", "ą"),
    "polish-iso-8859-2.eml": ("iso-8859-2", "ŵŷ"),
    "polish-iso-8859-2-labelled-us-ascii.eml": ("iso-8859-2", "ŵŷ"),
    "lithuanian-iso-8859-13.eml": ("iso-8859-13", "ŕű"),
    "lithuanian-windows-1257.eml": ("cp1257", "ŕű"),
}


def written(name: str) -> tuple[str, str, str]:
    """Return the fixture's subject, sender and body as its writer meant them."""
    raw = (UNDECLARED / name).read_bytes().decode(CASES[name][0])
    head, _, body = raw.partition("\n\n")
    fields = dict(line.split(": ", 1) for line in head.splitlines())
    return fields["Subject"], fields["From"], body.strip()


@pytest.mark.parametrize("name", sorted(CASES))
async def test_undeclared_mail_reads_in_its_languages_charset(name: str) -> None:
    (rec,) = [
        i for i in await collect(from_eml(UNDECLARED / name)) if not isinstance(i, SourceState)
    ]
    assert isinstance(rec, MemoryRecord)
    subject, sender, body = written(name)
    assert rec.text == body
    # The headers are read in the charset found for the whole message (a subject alone is
    # too short to tell charsets apart).
    assert rec.title == subject
    assert rec.author == sender
    assert not set(CASES[name][1]) & set(rec.text)


def test_the_language_tables_come_from_kept_libraries() -> None:
    # X11's locale.alias as Python keeps it, each ISO charset with its Windows twin.
    assert {"cs", "hu", "pl"} <= languages_using("iso-8859-2") == languages_using("cp1250")
    assert {"lt", "lv"} <= languages_using("iso-8859-13")
    assert {"pt", "fr", "es", "de"} <= languages_using("cp1252")
    assert "pt" not in languages_using("cp1250")
    # CLDR's exemplar characters through ICU.
    assert {"ã", "ç", "õ"} <= letters_of("pt") and "ă" not in letters_of("pt")
    assert {"ą", "č", "ė", "į", "š", "ų", "ū", "ž"} <= letters_of("lt")


def test_short_undeclared_text_stays_windows_1252() -> None:
    # Too few 8-bit bytes to tell code pages apart: the browsers' default.
    assert decode_bytes("café à côté".encode("cp1252"), None) == "café à côté"


def test_every_python_and_whatwg_charset_label_is_known() -> None:
    not_text = {"base64", "bz2", "hex", "quopri", "rot", "uu", "zip", "zlib"}
    windows_only = {"mbcs", "ansi", "dbcs"}  # Python's "mbcs" exists on Windows alone
    for alias, codec in encodings.aliases.aliases.items():
        if codec.split("_")[0] in not_text | windows_only or alias in windows_only:
            continue
        assert python_codec(alias) is not None, alias
    for label, name in webencodings.LABELS.items():
        # WHATWG maps ISO-2022-CN and -KR to "replacement" (browsers read neither); Python
        # reads ISO-2022-KR.
        if name != "replacement":
            assert python_codec(label) is not None, label
    assert python_codec("csiso2022kr") == "iso2022_kr"
    assert python_codec("csHPRoman8") == "hp-roman8"  # a mixed-case key of Python's table


def test_pipermail_disguises_are_undone_on_each_side_of_a_comment() -> None:
    from memtrails.importers.mail.headers import addresses

    # A real address in the comment, the sender's own disguised (seen in three shared months).
    assert addresses(["shrogers em ionet.net (steve@shrogers.com)"], None) == [
        "steve@shrogers.com <shrogers@ionet.net>"
    ]
    # Both disguised, the same address twice: said once.
    assert addresses(["ralf chez brainbot.com (ralf chez brainbot.com)"], None) == [
        "ralf@brainbot.com"
    ]
    assert addresses(["joao em exemplo.com.br (João Silva)"], None) == [
        "João Silva <joao@exemplo.com.br>"
    ]
    # Words in a display name are not a disguise when no host follows.
    assert addresses(["we meet at noon (ann@x.org)"], None) == ["we meet at noon (ann@x.org)"]
