"""Times named in other languages than English: each finds the window its English names."""

# ruff: noqa: RUF001 (CJK text with its own punctuation, on purpose)

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from memtrails.folder.when import query_windows
from memtrails.folder.when_languages import times_in_english

# A Friday.
NOW = datetime(2024, 5, 3, 15, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("query", "english"),
    [
        # Korean: particles attach to the time ("지난주에"), dates run year, month, day
        ("지난주에 무엇을 배포했나요?", "what did we deploy last week?"),
        ("지난달 회의에서 뭐라고 했어?", "what was said at the meeting last month?"),
        ("작년에 어디로 여행 갔어?", "where did we travel last year?"),
        ("어제 서버가 왜 멈췄나요?", "why did the server stop yesterday?"),
        ("2019년에 무엇을 결정했나요?", "what did we decide in 2019?"),
        ("2023년 3월 회의록", "minutes of March 2023"),
        ("2023년 3월 14일에 무슨 일이 있었나요?", "what happened on 14 March 2023?"),
        ("세 달 전 장애", "the outage 3 months ago"),
        ("일주일 전에 누가 왔어?", "who came a week ago?"),
        # Chinese and Japanese
        ("上周谁修好了这个错误？", "who fixed this bug last week?"),
        ("去年的预算是多少？", "what was the budget last year?"),
        ("2019年5月去了哪里？", "where did we go in May 2019?"),
        ("2020年发生了什么？", "what happened in 2020?"),
        ("三天前的会议", "the meeting 3 days ago"),
        ("先週のリリースで何が壊れた？", "what broke in the release last week?"),
        ("3ヶ月前に何があった？", "what happened 3 months ago?"),
        ("先月の請求書", "the invoice from last month"),
        # Russian: the month's case after "в", and with a day or a year
        ("Что мы решили в прошлом году?", "what did we decide last year?"),
        ("Что сломалось на прошлой неделе?", "what broke last week?"),
        ("Кто звонил вчера?", "who called yesterday?"),
        ("Что было 3 мая 2019?", "what happened on 3 May 2019?"),
        ("Два дня назад упал сервер", "the server fell 2 days ago"),
        # Arabic: its question mark right after the word, its digits
        ("ماذا فعلنا أمس؟", "what did we do yesterday?"),
        ("ماذا حدث الشهر الماضي؟", "what happened last month?"),
        ("في أيار ٢٠٢٢ ماذا اشترينا؟", "what did we buy in May 2022?"),
        # Hindi
        ("पिछले हफ्ते क्या टूटा?", "what broke last week?"),
        ("पिछले साल बजट कितना था?", "what was the budget last year?"),
        ("5 मई 2019 को क्या हुआ?", "what happened on 5 May 2019?"),
        # German, French, Spanish, Portuguese, Italian
        ("Was haben wir letzte Woche entschieden?", "what did we decide last week?"),
        ("Was ist am 3. Mai 2019 passiert?", "what happened on 3 May 2019?"),
        ("Wer hat vor drei Wochen angerufen?", "who called 3 weeks ago?"),
        ("Qu'avons-nous décidé l’année dernière ?", "what did we decide last year?"),
        ("Qui a appelé il y a deux jours ?", "who called 2 days ago?"),
        ("¿Qué pasó la semana pasada?", "what happened last week?"),
        ("¿Qué pasó el 3 de mayo de 2019?", "what happened on 3 May 2019?"),
        ("O que aconteceu há duas semanas?", "what happened 2 weeks ago?"),
        ("Cosa è successo l'anno scorso?", "what happened last year?"),
        ("Chi ha chiamato tre giorni fa?", "who called 3 days ago?"),
        # the latest such weekday before today
        ("Was haben wir letzten Freitag gegessen?", "what did we eat last Friday?"),
        ("Qui a appelé lundi dernier ?", "who called last Monday?"),
        ("¿Qué pasó el sábado pasado?", "what happened last Saturday?"),
        ("O que houve na sexta-feira passada?", "what happened last Friday?"),
        ("Cosa è successo venerdì scorso?", "what happened last Friday?"),
        ("Что было в прошлую пятницу?", "what happened last Friday?"),
        ("지난 금요일에 뭐 먹었어?", "what did we eat last Friday?"),
        # the day before yesterday
        ("그저께 뭐 샀어?", "what did I buy the day before yesterday?"),
        ("我前天买了什么？", "what did I buy the day before yesterday?"),
        ("一昨日何を買った？", "what did I buy the day before yesterday?"),
        ("Was habe ich vorgestern gekauft?", "what did I buy the day before yesterday?"),
        # the week before last, and a few days ago
        ("지지난주에 뭐 했어?", "what did we do the week before last?"),
        ("我们上上周做了什么？", "what did we do the week before last?"),
        ("先々週は何をしましたか？", "what did we do the week before last?"),
        ("Was haben wir vorletzte Woche gemacht?", "what did we do the week before last?"),
        ("Что мы делали на позапрошлой неделе?", "what did we do the week before last?"),
        ("며칠 전에 뭐 샀어?", "what did I buy a few days ago?"),
        ("我几天前买了什么？", "what did I buy a few days ago?"),
        ("数日前に何を買った？", "what did I buy a few days ago?"),
        ("Что я купил несколько дней назад?", "what did I buy a few days ago?"),
        ("Was habe ich vor ein paar Tagen gekauft?", "what did I buy a few days ago?"),
        ("Qu'est-ce que j'ai acheté il y a quelques jours ?", "what did I buy a few days ago?"),
        ("¿Qué compré hace unos días?", "what did I buy a few days ago?"),
        ("O que comprei há alguns dias?", "what did I buy a few days ago?"),
        ("Cosa ho comprato qualche giorno fa?", "what did I buy a few days ago?"),
        ("ماذا اشتريت قبل بضعة أيام؟", "what did I buy a few days ago?"),
        ("मैंने कुछ दिन पहले क्या खरीदा?", "what did I buy a few days ago?"),
    ],
)
def test_a_time_in_another_language_names_the_window_its_english_does(
    query: str, english: str
) -> None:
    expected = query_windows(english, NOW)
    assert expected, english  # the English names one, so the comparison means something
    assert query_windows(query, NOW) == expected


@pytest.mark.parametrize(
    ("query", "english"),
    [
        ("5월에 뭐 했어?", "what did we do in May?"),
        ("十二月的会议", "the meeting in December"),
        ("что было в мае?", "what was there in May?"),
        ("ماذا حدث في مايو؟", "what happened in May?"),
        ("मई में क्या हुआ?", "what happened in May?"),
        ("Was war im Mai?", "what was there in May?"),
        ("Qu'est-ce qu'on a fait en mai ?", "what did we do in May?"),
        ("¿Qué hicimos en mayo?", "what did we do in May?"),
        ("Cosa abbiamo fatto a maggio?", "what did we do in May?"),
        ("Cosa abbiamo fatto ad aprile?", "what did we do in April?"),
    ],
)
def test_a_month_in_another_language_is_that_month_of_every_year(query: str, english: str) -> None:
    expected = query_windows(english, NOW)
    assert len(expected) > 50  # May of every year since 1970
    assert query_windows(query, NOW) == expected


@pytest.mark.parametrize(
    "query",
    [
        "最近的医院在哪里？",  # "the nearest hospital", not "recently"
        "कल क्या होगा?",  # "कल" is yesterday and tomorrow alike
        "أمسية جميلة في الحديقة",  # "an evening": it starts with "أمس" (yesterday)
        "Позавчерашний отчёт",  # an adjective, not a time named
        "월요일 회의는 몇 시인가요?",  # a weekday, no window
        "오늘날의 서버는 얼마나 빠른가요?",  # "nowadays", not "today"
        "我有2019个苹果",  # a count, not a year
        "데이터베이스 백업은 얼마 동안 보관하나요?",
        "Can I have a mars bar and a mai tai?",  # "mars", "mai" without "en" or "im"
        "Extra mayo on the sandwich, please",
        "the hierarchy of the teams",
    ],
)
def test_words_that_are_no_time_name_none(query: str) -> None:
    assert query_windows(query, NOW) == (), times_in_english(query)


def test_an_english_query_is_not_rewritten() -> None:
    assert times_in_english("what broke last week?") == ""


def test_only_the_head_of_a_long_question_is_read_for_its_times() -> None:
    from memtrails.folder.when_languages import READ_CHARS

    pasted = "로그 " * (READ_CHARS // 3 + 1)
    assert times_in_english("지난주 " + pasted) == "last week"
    assert times_in_english(pasted + "지난주") == ""


def test_each_phrase_of_a_latin_script_language_is_found_within_a_sentence() -> None:
    """An ASCII text is looked up word by word before the phrases' search runs: every
    phrase must get past the lookup, or its language's time would be lost."""
    from memtrails.folder.when_languages import PHRASES

    ascii_phrases = [(p, english) for p, english in PHRASES if p.isascii()]
    assert ascii_phrases
    missed = [
        p for p, english in ascii_phrases if english not in times_in_english(f"Also, {p} war es.")
    ]
    assert not missed
