"""Search across languages with the default model: a note in one script, a question in another."""

# ruff: noqa: RUF001 (text in Cyrillic and Chinese, with its own punctuation, on purpose)

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import notes

from memtrails import Memory

# Notes written for this test, two per script (Latin, Hangul, Cyrillic, Han, Arabic), each on
# its own topic: a question in one script must not be drawn to the other note in its script.
NOTES = {
    "en-boiler": "The boiler service is booked for the first Monday of October; the engineer "
    "needs access to the loft and the gas meter.",
    "en-passport": "My passport expires in March next year, so I must renew it before the "
    "summer trip; the photo booth is at the post office.",
    "ko-plants": "베란다의 토마토 화분은 이틀에 한 번 아침에 물을 주고, 한 달에 한 번 비료를 준다. "
    "잎이 노랗게 변하면 물을 줄인다.",
    "ko-car": "자동차 엔진 오일은 만 킬로미터마다 교환한다. 다음 교환은 동네 정비소에서 하기로 "
    "예약했고, 타이어 공기압도 같이 점검한다.",
    "ru-piano": "Уроки фортепиано у дочери по средам в шесть вечера, учительница просит "
    "заниматься дома по двадцать минут каждый день.",
    "ru-wifi": "Пароль от домашнего вайфая сменили после того, как роутер сбросился; новый "
    "пароль записан на обратной стороне роутера.",
    "zh-library": "图书馆借的三本书要在下个星期五之前归还，否则每天罚款一元。可以在网上续借一次。",
    "zh-running": "每周二和周四早上六点在公园跑步五公里，周末跑一次十公里的长距离。",
    "ar-insurance": "تأمين السيارة يتجدد في نهاية شهر مايو، والشركة أرسلت عرضًا جديدًا أغلى "
    "بعشرة في المئة من السنة الماضية.",
    "ar-wedding": "حفل زفاف ابن عمي في الصيف في قاعة قرب البحر، ويجب أن أشتري بدلة جديدة قبل "
    "الحفل بأسبوعين.",
}

# (question, the note it is about); each asked in a script other than its note's.
QUESTIONS = [
    ("How often do I water the tomato plants on the balcony?", "ko-plants"),
    ("When is the car's engine oil changed?", "ko-car"),
    ("When are my daughter's piano lessons?", "ru-piano"),
    ("Where is the new wifi password written down?", "ru-wifi"),
    ("When do I have to return the library books?", "zh-library"),
    ("On which days do I go running in the park?", "zh-running"),
    ("When does the car insurance renew?", "ar-insurance"),
    ("What do I need to buy before my cousin's wedding?", "ar-wedding"),
    ("보일러 점검은 언제 예약되어 있나요?", "en-boiler"),
    ("Когда истекает срок действия моего паспорта?", "en-passport"),
    ("我的护照什么时候过期？", "en-passport"),
    ("متى موعد صيانة الغلاية؟", "en-boiler"),
    ("자동차 보험은 언제 갱신되나요?", "ar-insurance"),
    ("Когда нужно вернуть книги в библиотеку?", "zh-library"),
    ("女儿的钢琴课是什么时候？", "ru-piano"),
]


@pytest.mark.slow
async def test_the_default_model_finds_notes_in_another_language(tmp_path: Path) -> None:
    """Memory.open with no model: each question's note comes first, whatever its script,
    though the question's own script holds other notes."""
    async with Memory.open(tmp_path / "m") as memory:
        await memory.ingest(notes(NOTES))
        wrong = []
        for question, note in QUESTIONS:
            hits = await memory.search(question, k=3)
            if hits[0].id != note:
                wrong.append((question, note, [h.id for h in hits]))
    # Every question in English, and every question about an English note, finds its note
    # first; between two other scripts one may miss (measured: the Korean question on car
    # insurance ranks the Korean car note, which shares its word for "car", 1.650 against
    # 1.637 for the Arabic insurance note).
    english = [w for w in wrong if w[1].startswith("en-") or w[0].isascii()]
    assert not english and len(wrong) <= 1, wrong


def test_scripts_a_text_is_written_in() -> None:
    from memtrails.folder.scripts import main_scripts, share_a_script

    assert main_scripts("When do the backups run?", least=1) == {"latin"}
    assert main_scripts("すみません。") == frozenset()  # too short to tell, as a passage
    assert main_scripts(
        "서버 백업은 매일 새벽 세 시에 restic으로 NAS에 저장되고 삼십 일 동안 보관된다"
    ) == {"hangul"}
    assert main_scripts("Qdrant 백업 언제", least=1) == {"latin", "hangul"}
    assert main_scripts("Почему тесты падали?", least=1) == {"cyrillic"}
    assert main_scripts("集成测试为什么失败", least=1) == {"han"}
    assert main_scripts("موعد طبيب الأسنان", least=1) == {"arabic"}
    assert main_scripts("माँ की दाल", least=1) == {"devanagari"}
    assert main_scripts("10440000") == frozenset()
    assert not share_a_script(main_scripts("backups", least=1), main_scripts("백업", least=1))
    assert share_a_script(main_scripts("10440000", least=1), main_scripts("백업", least=1))
