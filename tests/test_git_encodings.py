"""Commits in legacy 8-bit charsets, with and without an ``encoding`` header, read as text."""

from __future__ import annotations

from pathlib import Path

import pytest
from gitrepos import BASE, Repo, git, raw_commit
from helpers import collect, records

from memtrails.importers.git import from_git


def legacy_commit(
    repo: Repo, message: bytes, author: bytes = b"Ada Lovelace", encoding: str | None = None
) -> str:
    """Write a commit by ``author`` with exactly these bytes (no re-encoding), on top of HEAD."""
    ident = author + b" <ada@example.org> %d +0000\n" % BASE
    headers = b"author " + ident + b"committer " + ident
    if encoding is not None:
        headers += b"encoding " + encoding.encode() + b"\n"
    return raw_commit(repo, headers, message)


CASES = [
    # (charset, summary, body, author)
    ("cp1252", "Café au lait — naïve résumé", "Corrigé «déjà vu» à Zürich.", "José García"),
    ("latin-1", "Grüße", "", "Ada Lovelace"),
    ("latin-1", "Fix typo", "", "Jürgen Weiß"),
    (
        "koi8-r",
        "Исправлена ошибка в парсере конфигурации",
        "Теперь пустые строки пропускаются.",
        "Иван Петров",
    ),
    ("koi8-r", "Исправлена ошибка в парсере", "", "Ivan"),
    ("cp1251", "Исправлена ошибка в парсере", "", "Иван Петров"),
    (
        "shift_jis",
        "日本語のコミットメッセージ",
        "設定ファイルの読み込みを修正しました。",
        "山田太郎",
    ),
    ("gbk", "修正了配置文件的读取错误", "", "张伟"),
]


@pytest.mark.parametrize(("charset", "summary", "body", "author"), CASES)
async def test_undeclared_legacy_charset_reads_as_text(
    tmp_path: Path, charset: str, summary: str, body: str, author: str
) -> None:
    """A commit made where the system charset was not UTF-8, with no ``encoding`` header
    (git then prints its bytes as they are): its message and author read as written."""
    repo = Repo(tmp_path / "r")
    repo.commit("first")
    message = summary + (f"\n\n{body}" if body else "") + "\n"
    sha = legacy_commit(repo, message.encode(charset), author.encode(charset))
    recs = records(await collect(from_git(repo.path)))
    rec = recs[0]
    assert rec.id == sha
    assert rec.title == summary
    assert rec.text == message.rstrip("\n")
    assert rec.author == f"{author} <ada@example.org>"
    assert rec.meta["committer"] == f"{author} <ada@example.org>"
    assert "\ufffd" not in rec.text + (rec.author or "")


@pytest.mark.parametrize(
    ("charset", "summary", "author"),
    [
        ("ISO-8859-1", "Café crème", "José"),
        ("KOI8-R", "Исправлена ошибка", "Иван"),
        ("Shift_JIS", "修正", "山田"),
    ],
)
async def test_declared_encoding_header_still_rules(
    tmp_path: Path, charset: str, summary: str, author: str
) -> None:
    """A commit that names its encoding is read in it (git re-encodes it), however short."""
    repo = Repo(tmp_path / "r")
    repo.commit("first")
    legacy_commit(repo, summary.encode(charset) + b"\n", author.encode(charset), charset)
    rec = records(await collect(from_git(repo.path)))[0]
    assert rec.title == summary
    assert rec.author == f"{author} <ada@example.org>"


async def test_a_file_name_not_in_utf8_reads_as_cp1252(tmp_path: Path) -> None:
    """A path is bytes to git; one written in Latin-1 is listed with its letters."""
    repo = Repo(tmp_path / "r")
    name = "résumé.txt".encode("latin-1")
    (repo.path / name.decode("utf-8", "surrogateescape")).write_text("x\n")
    git(repo.path, "add", "-A")
    git(repo.path, "commit", "-q", "-m", "add a file", i=1)
    rec = records(await collect(from_git(repo.path)))[0]
    assert [f["path"] for f in rec.meta["files"]] == ["résumé.txt"]
    assert "résumé.txt" in rec.text


@pytest.mark.parametrize(
    ("charset", "summary", "body", "author"),
    [
        ("ISO-8859-1", "Café résumé — naïve", "Corrigé «déjà vu» à Zürich.", "José García"),
        ("windows-1252", "Grüße aus Köln", "", "Jürgen Weiß"),
        ("KOI8-R", "Исправлена ошибка в парсере", "Пустые строки пропускаются.", "Иван"),
        ("cp1251", "Исправлена ошибка", "", "Иван Петров"),
        ("EUC-JP", "日本語のコミットメッセージ", "設定ファイルを修正しました。", "山田太郎"),
    ],
)
async def test_an_encoding_header_that_lies_about_utf8_text(
    tmp_path: Path, charset: str, summary: str, body: str, author: str
) -> None:
    """A commit whose ``encoding`` header names a legacy charset but whose bytes are UTF-8
    (a tool that set ``i18n.commitEncoding`` and wrote UTF-8 anyway): git re-encodes it to
    mojibake (``CafÃ©``); its message and names read as written."""
    repo = Repo(tmp_path / "r")
    repo.commit("first")
    message = summary + (f"\n\n{body}" if body else "") + "\n"
    sha = legacy_commit(repo, message.encode(), author.encode(), charset)
    rec = records(await collect(from_git(repo.path)))[0]
    assert rec.id == sha
    assert rec.title == summary
    assert rec.text == message.rstrip("\n")
    assert rec.author == f"{author} <ada@example.org>"
    assert rec.meta["committer"] == f"{author} <ada@example.org>"


@pytest.mark.parametrize(
    ("charset", "label", "summary", "author"),
    [
        ("koi8-r", "ISO-8859-1", "Исправлена ошибка в парсере конфигурации", "Иван Петров"),
        ("cp1251", "latin1", "Исправлена ошибка в парсере", "Иван Петров"),
        ("cp1250", "ISO-8859-1", "Poprawiono błąd w parserze, żółć", "Łukasz Wiśniewski"),
        ("cp1253", "windows-1252", "Διορθώθηκε το σφάλμα στον αναλυτή", "Γιώργος"),
    ],
    ids=["koi8-r", "cp1251", "cp1250", "cp1253"],
)
async def test_a_latin_1_header_over_another_charset(
    tmp_path: Path, charset: str, label: str, summary: str, author: str
) -> None:
    """A commit whose ``encoding`` header names Latin-1 (or Windows-1252) but whose bytes
    are in another 8-bit charset (``i18n.commitEncoding`` set wrong): git re-encodes it
    from Latin-1, every letter mojibake (``éÓÐÒÁ``); its message and names read in
    the charset their words are in."""
    repo = Repo(tmp_path / "r")
    repo.commit("first")
    legacy_commit(repo, summary.encode(charset) + b"\n", author.encode(charset), label)
    rec = records(await collect(from_git(repo.path)))[0]
    assert (rec.title, rec.author) == (summary, f"{author} <ada@example.org>")


@pytest.mark.parametrize(
    ("charset", "summary"),
    [
        ("koi8-r", "Исправлена ошибка в парсере конфигурации"),
        ("cp1251", "Пустые строки теперь пропускаются"),
        ("cp1253", "Διορθώθηκε το σφάλμα στον αναλυτή"),
        ("utf-8", "Umlaute äöü und ÄÖÜ werden jetzt korrekt sortiert"),
        ("utf-8", "Réunion déplacée, «déjà vu» à Zürich"),
    ],
    ids=["koi8-r", "cp1251", "cp1253", "german", "french"],
)
async def test_a_message_git_stored_as_latin_1(tmp_path: Path, charset: str, summary: str) -> None:
    """``git commit`` of a message not in UTF-8 (no ``i18n.commitEncoding``) stores it
    as though each byte were a Latin-1 letter (``éÓÐÒÁ``, in UTF-8): read back in the
    charset its words are in. Text that is in Latin-1's letters (German, French) stays."""
    repo = Repo(tmp_path / "r")
    repo.commit("first")
    stored = summary.encode(charset).decode("latin-1") if charset != "utf-8" else summary
    legacy_commit(repo, stored.encode() + b"\n")
    rec = records(await collect(from_git(repo.path)))[0]
    assert rec.title == summary
