"""Mailman (pipermail) months of lists in Russian and Japanese: separators whose sender is
``user на host`` or ``user @ host`` and whose date Mailman wrote in the list's language, in
the list's legacy charset, gzipped as Mailman keeps old months."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest
from helpers import collect, records

from memtrails.importers.detect import plan
from memtrails.importers.mbox import from_mbox
from memtrails.records import RecordError

# (charset, Mailman's word for " at ", its ctime in the list's language or None, names, text)
LISTS = {
    "ru": (
        "koi8-r",
        "на",
        "Втр Апр  1 12:21:37 MSK 2003",
        ["Иван Петров", "Пётр Сидоров", "Анна Смирнова"],
        "Привет всем! Встреча переносится на пятницу, в десять часов утра.",
    ),
    "ja": (
        "euc-jp",
        "@",
        "火  4月  1 12:21:37 JST 2003",
        ["山田太郎", "鈴木花子", "佐藤一郎"],
        "皆さん、こんにちは。会議は金曜日の午前十時に変更になりました。",
    ),
}


def _month(lang: str, localized_date: bool) -> bytes:
    charset, at, local, names, text = LISTS[lang]
    date = local if localized_date else "Tue Apr  1 12:21:37 2003"
    out = ""
    for n, name in enumerate(names, 1):
        user = f"user{n} {at} example.org"
        out += (
            f"From {user}  {date}\nFrom: {user} ({name})\n"
            f"Date: Tue, 01 Apr 2003 12:2{n}:37 +0400\n"
            f"Subject: [list] {text[:8]} {n}\nMessage-ID: <{lang}{n}@example.org>\n\n"
            f"{text}\n\n"
        )
    return out.encode(charset)


@pytest.mark.parametrize("localized_date", [False, True])
@pytest.mark.parametrize("lang", sorted(LISTS))
async def test_a_translated_pipermail_month_imports_every_mail(
    tmp_path: Path, lang: str, localized_date: bool
) -> None:
    # Before: "user @ host" and dates in the list's language were no separators: a month
    # came in as its first mail, the others lost in its text
    path = tmp_path / "2003-April.txt.gz"
    path.write_bytes(gzip.compress(_month(lang, localized_date)))
    (part,) = plan(path)
    assert part.kind == "mbox"
    items = await collect(from_mbox(path))
    assert not [i for i in items if isinstance(i, RecordError)]
    recs = records(items)
    _, _, _, names, text = LISTS[lang]
    assert [r.id for r in recs] == [f"{lang}{n}@example.org" for n in (1, 2, 3)]
    assert [r.author for r in recs] == [
        f"{name} <user{n}@example.org>" for n, name in enumerate(names, 1)
    ]
    assert [r.text for r in recs] == [text] * 3
    assert [r.at.iso() if r.at else None for r in recs] == [
        f"2003-04-01T08:2{n}:37.000Z" for n in (1, 2, 3)
    ]
