"""A search's confidence: how close the folder comes to the query, in meaning and in words."""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Container, Iterable, Mapping, Sequence

from ..portable import fnv1a32
from ..words import bare_word, words
from .scripts import main_scripts
from .when import is_time_name

__all__ = [
    "CONFIDENCE_MEANING",
    "SCOPE_OVER",
    "WORDS_OVER",
    "across",
    "asked_names",
    "confidence",
    "names_of",
    "names_unknown",
    "spell_names_alike",
    "spell_names_each",
    "word_share",
    "word_weights",
    "words_matched",
]

# The share of the confidence that comes from meaning (the best cosine, on MiniLM's scale);
# the rest is the words the best records hold (`words_matched`). A multilingual model's
# cosines say little here: multilingual-e5-small meets 0.83-0.88 for questions the folder
# cannot answer and for those it answers alike, while the share of the query's rare words
# that some record holds separates them whatever the model (benchmarks/README.md, issue 32).
CONFIDENCE_MEANING = 0.5
# How many of the best records (in the fused order) may hold the query's words: the answer is
# not always first, and a record further down holding every rare word is evidence too.
WORDS_OVER = 5
# The scripts the best few records are written in decide which query words count: a Korean question answered by an English note shares no word with it, and its Korean
# words say nothing about whether the note answers it. (The cost: an unrelated Korean question
# whose best records are English notes is judged by its meaning alone, as before.)
SCOPE_OVER = 3


def word_weights(query: str, idf: Mapping[int, float], records: int) -> dict[str, float]:
    """Return each word of ``query`` with its weight: occurrences x the keyword side's IDF.

    A word no passage holds weighs as one held by a single record of ``records``: that the
    folder never mentions it is the strongest sign it does not hold the answer.

    Example:
        >>> from memtrails.portable import fnv1a32
        >>> w = word_weights("tea or tea", {fnv1a32("tea"): 2.0, fnv1a32("or"): 0.1}, 10)
        >>> {k: round(v, 2) for k, v in w.items()}
        {'tea': 4.0, 'or': 0.1}
    """
    rarest = math.log(1 + (max(records, 1) - 0.5) / 1.5)
    counts = Counter(map(bare_word, words(query)))
    return {w: n * idf.get(fnv1a32(w), rarest) for w, n in counts.items()}


def word_share(weights: Mapping[str, float], text: str) -> float:
    """Return the share of the query's word weight (:func:`word_weights`) that ``text`` holds.

    A Korean word carries its particle ("정산이", "문제는", "하루씩"), and the words are cut at
    spaces, so a Korean question and the note that answers it seldom share a word whole. A
    word in Hangul of two syllables or more is held when the text holds a word that starts
    with all its syllables but the last (its first two at least): "정산이" by "정산", "하루"
    by "하루씩". On the coding notes of benchmarks/coding_memory.py this took the answered
    questions flagged from 4 to 3 of 40 (dev) and 3 to 2 of 36 (check), no question nothing
    answers newly passing; the main dev set did not move (benchmarks/README.md, issue 32).

    Example:
        >>> word_share({"backup": 3.0, "the": 1.0}, "The backups run nightly")
        0.25
        >>> word_share({"정산이": 1.0, "늦게": 1.0}, "정산 배치가 하루씩 밀렸다")
        0.5
    """
    total = sum(weights.values())
    if total <= 0:
        return 0.0
    held = set(words(text))
    held |= {bare_word(w) for w in held}
    # Every start of two syllables or more of the text's Hangul words: one lookup a word.
    starts = {t[:k] for t in held if _HANGUL.fullmatch(t) for k in range(2, len(t) + 1)}
    return sum(v for w, v in weights.items() if w in held or _stem(w) in starts) / total


_HANGUL = re.compile("[\uac00-\ud7a3]+")


def _stem(word: str) -> str | None:
    """A Hangul word's syllables but the last, two at least (see :func:`word_share`)."""
    if len(word) < 2 or not _HANGUL.fullmatch(word):
        return None
    return word[: max(2, len(word) - 1)]


def words_matched(
    weights: Mapping[str, float], texts: Sequence[str], scope: Sequence[str] = ()
) -> float | None:
    """Return the largest share of the query's word weight that one of ``texts`` holds.

    Only the words written in a script of the first ``SCOPE_OVER`` of ``scope`` (the best
    records' texts; ``texts`` when empty) count, and words without letters (numbers) only
    beside them: a question in another script than its answer is not held against it.

    Args:
        weights: the query's words and their weights (:func:`word_weights`).
        texts: the best records' texts, best first.
        scope: the texts whose scripts decide which words count.

    Returns:
        0..1, or None when no word of the query is written in those scripts (the words
        cannot tell; the confidence is then the meaning's alone).
    """
    scripts: set[str] = set()
    for text in (scope or texts)[:SCOPE_OVER]:
        scripts |= main_scripts(text, least=1)
    counted: dict[str, float] = {}
    lettered = False
    for word, weight in weights.items():
        own = main_scripts(word, least=1)
        if own and scripts and not (own & scripts):
            continue
        lettered = lettered or bool(own)
        counted[word] = weight
    total = sum(counted.values())
    if not lettered or total <= 0:
        return None
    return max((word_share(counted, text) for text in texts), default=0.0)


def across(
    cosines: Mapping[str, float], foreign: Container[str], kin: Container[str], pull: float
) -> float | None:
    """Return the best cosine of a record outside the query's script when such a record comes
    as close as the best in it, once the model's pull to its own script is taken back.

    A question answered in another language shares no word with its answer, so the words
    cannot tell whether it is answered; the meaning must. But a multilingual model finds
    every record in another language less close, and a question the folder cannot answer
    meets records in the other language that come close only by the pull the search gives
    them (``ranking.LANGUAGE_PULL``) and by standing in for their missing words: then the
    records in the question's own script, words and all, are what the confidence weighs.

    Args:
        cosines: each candidate record's best raw cosine.
        foreign: the records whose prose is in none of the query's scripts.
        kin: the records whose prose shares one (the rest are too short to tell).
        pull: the model's ``ranking.LANGUAGE_PULL``.

    Returns:
        The best cosine of the records outside ``kin``, or None when no record is
        ``foreign`` or one in ``kin`` comes closer than every other by more than ``pull``.

    Example:
        >>> across({"ko": 0.80, "en": 0.82}, {"ko"}, {"en"}, 0.04)
        0.8
        >>> across({"ko": 0.77, "en": 0.82}, {"ko"}, {"en"}, 0.04) is None
        True
    """
    if not any(uid in foreign for uid in cosines):
        return None
    near = max((c for uid, c in cosines.items() if uid in kin), default=-1.0)
    far = max((c for uid, c in cosines.items() if uid not in kin), default=-1.0)
    return far if far + pull >= near else None


# Words that are German and not English (no "die", "was", "also"), two of which tell a
# question written in German, which capitalises its nouns.
_GERMAN_WORDS = frozenset(
    {
        *("der", "das", "den", "dem", "des", "und", "ist", "sind", "nicht", "wie", "wann"),
        *("warum", "wer", "welche", "welcher", "welches", "ich", "wir", "mit", "für", "auf"),
        *("zum", "zur", "ein", "eine", "einen", "einem", "einer", "hat", "haben", "wird"),
        *("werden", "wurde", "wurden", "bei", "nach", "aus", "oder", "auch", "noch", "unser"),
    }
)
_LATIN_TOKEN = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.+#-]*")


def names_of(query: str) -> list[str]:
    """Return the words of ``query`` that name something (a tool, a product, a place).

    A word written in Latin letters names something when it mixes letters and digits
    ("S3"), has a capital past its first letter ("GraphQL"), or starts with a capital when
    it does not start a sentence ("Kubernetes"); in a question written in capitals, in title
    case or in German (which capitalises every noun), such a first capital marks nothing.
    In a question whose prose is in another script, every word in Latin letters names
    something ("MongoDB 샤딩 키는...": such a word is written as it is in any language).
    Months and weekdays name times, not things.

    Example:
        >>> names_of("Why did Redis fill up before the S3 upload?")
        ['redis', 's3']
        >>> names_of("MongoDB 샤딩 키는 어떻게 정했어요?")
        ['mongodb']
        >>> names_of("How Do We Rotate The EC2 Keys?")
        ['ec2']
    """
    scripts = main_scripts(query, least=1)
    latin_prose = scripts == {"latin"}
    tokens = [
        (m.group(0).rstrip(".-+"), _starts_sentence(query, m.start()))
        for m in _LATIN_TOKEN.finditer(query)
    ]
    tokens = [(t, start) for t, start in tokens if any(c.isalpha() for c in t)]
    shouted = all(not c.islower() for t, _ in tokens for c in t)
    # Title case capitalises the little words too: three in four past sentences' starts.
    inner = [t for t, start in tokens if not start]
    # German capitalises every noun: there a capital marks no more than title case's does.
    titled = (
        shouted
        or (len(inner) >= 3 and 4 * sum(t[0].isupper() for t in inner) >= 3 * len(inner))
        or len(_GERMAN_WORDS.intersection(words(query))) >= 2
    )
    out: dict[str, None] = {}
    for token, start in tokens:
        marked = not latin_prose or any(c.isdigit() for c in token)
        if not marked and not shouted:
            marked = any(c.isupper() for c in token[1:])
        if not marked and not titled:
            marked = token[0].isupper() and not start
        if marked:
            # A month or a weekday is capitalised, yet a time (when.py weighs it), not a
            # thing a record in another language would write as the question does.
            out.update(dict.fromkeys(w for w in words(token) if not is_time_name(w)))
    return list(out)


def _starts_sentence(text: str, at: int) -> bool:
    """Whether the word at ``at`` starts ``text`` or a sentence (past the spaces before it)."""
    i = at - 1
    while i >= 0 and text[i].isspace():
        i -= 1
    return i < 0 or text[i] in ".!?:;"


# A name this short ("PR", "CI", "M2") is as often an abbreviation that notes write out ("pull
# request") as a thing's own name: it does not count as one the folder never mentions, nor
# does an abbreviation in capitals ("API", "DNS", "HPA"): the trade's words, not a thing asked
# about.
NAME_CHARS = 3
_ABBREVIATION = re.compile(r"\b[A-Z][A-Z0-9]{1,4}\b")


def asked_names(query: str) -> list[str]:
    """Return the names of ``query`` (:func:`names_of`) that name a thing asked about: not
    one of under ``NAME_CHARS`` characters, nor an abbreviation in capitals, nor, in a
    question whose prose is in another script, a word in small Latin letters ("lag" in
    "RabbitMQ 컨슈머 lag이...": the trade's word, as often written so in any language).

    Example:
        >>> asked_names("Why did the Sentry alerts on the API stop on my M2?")
        ['sentry']
        >>> asked_names("RabbitMQ 컨슈머 lag이 쌓인 원인이 뭐였어?")
        ['rabbitmq']
    """
    short = {a.lower() for a in _ABBREVIATION.findall(query)}
    if main_scripts(query, least=1) != {"latin"}:
        short |= {w.lower() for w in _SMALL_LATIN.findall(query)}
    return [n for n in names_of(query) if len(n) >= NAME_CHARS and n not in short]


_SMALL_LATIN = re.compile(r"(?<![A-Za-z0-9])[a-z][a-z_.-]*(?![A-Za-z0-9])")


def names_unknown(query: str, idf: Mapping[int, float]) -> bool:
    """Tell whether ``query`` names things (:func:`asked_names`) and no record holds any.

    ``idf`` is the keyword side's IDF of the query's words: a word missing from it is one
    no passage of the folder holds. A question about "the Sentry alerts" in a folder that
    never writes "Sentry" asks about something the folder does not know, however close its
    other words and its meaning come (notes on alerts, on other tools): its answer, if any,
    would name the thing too, unless it is in another script and spells the name its own way
    (:func:`spell_names_each`).

    Example:
        >>> from memtrails.portable import fnv1a32
        >>> idf = {fnv1a32(w): 2.0 for w in ("why", "did", "alerts", "stop", "redis")}
        >>> names_unknown("Why did the Sentry alerts stop?", idf)
        True
        >>> names_unknown("Why did the Redis and Sentry alerts stop?", idf)
        False
        >>> names_unknown("Why did the Sentry alerts on the API stop?", idf)
        True
    """
    names = asked_names(query)
    return bool(names) and not any(fnv1a32(n) in idf for n in names)


def spell_names_each(texts: Iterable[str]) -> bool:
    """Tell whether every one of ``texts`` (the best records in another script than the
    question's) writes some word in Latin letters: one that writes none ("읽기 전용 복제본의
    지연...", an answer about a Postgres replica) may be the answer, naming the question's
    things its own way, so the names the question gives can say nothing against it.

    Example:
        >>> spell_names_each(["cron이 UTC로 돌아서", "Redis가 가득 차서"])
        True
        >>> spell_names_each(["cron이 UTC로 돌아서", "읽기 전용 복제본의 지연"])
        False
    """
    return all(_LATIN_NAME.search(text) for text in texts)


_LATIN_NAME = re.compile(f"[A-Za-z]{{{NAME_CHARS},}}")


def spell_names_alike(texts: Iterable[str]) -> bool:
    """Tell whether any of ``texts`` (records in another script than the question's) writes
    words in Latin letters, as a Korean note naming its tools does ("Redis가"): such records
    would hold the question's names as they are (:func:`names_of`). A text that holds none
    may spell them its own way ("जयपुर" for Jaipur), so its missing them says nothing.

    Example:
        >>> spell_names_alike(["Redis 캐시가 가득 차서 세션이 지워졌다"])
        True
        >>> spell_names_alike(["जयपुर जाने वाली ट्रेन सुबह छह बजे निकलती है"])
        False
    """
    return any("latin" in main_scripts(text, least=1) for text in texts)


def confidence(closest: float, matched: float | None) -> float:
    """Return a search's confidence, 0..1: its meaning and word evidence, weighed.

    Args:
        closest: the best cosine of any candidate passage, on MiniLM's scale (see
            ``ranking.CONFIDENCE_FLOOR``).
        matched: :func:`words_matched`, None when the words cannot tell.

    Returns:
        ``CONFIDENCE_MEANING * closest + (1 - CONFIDENCE_MEANING) * matched`` (``closest``
        alone when ``matched`` is None), clipped to 0..1.

    Example:
        >>> confidence(0.4, 1.0), confidence(0.4, None)
        (0.7, 0.4)
    """
    if matched is None:
        sure = closest
    else:
        sure = CONFIDENCE_MEANING * closest + (1.0 - CONFIDENCE_MEANING) * matched
    return min(1.0, max(0.0, sure))
