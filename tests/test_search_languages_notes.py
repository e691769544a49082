"""A team's notes in Korean that name their tools in Latin letters, asked about in English.

Korean developers write "Redis가", "cert-manager로", "TTL 300초": by its letters such a note is
half Latin, yet no English word of a question can be in it. These tests hold the search to
reading such a note as Korean prose (scripts.prose_scripts): found first from English, and the
confidence of a question no note answers judged by the notes in the question's own script.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import notes

from memtrails import Memory
from memtrails.folder.confidence import across, names_of, spell_names_alike
from memtrails.folder.scripts import main_scripts, prose_scripts

# Written for this test: each Korean note names tools in Latin letters, as such notes do.
NOTES = {
    "ko-nginx": "nginx 설정에서 client_max_body_size를 1m에서 50m로 올렸다. 대용량 CSV 업로드가 "
    "413 오류로 실패했기 때문이다.",
    "ko-sentry": "Sentry 이벤트 한도를 넘지 않도록 before_send 훅에서 헬스체크 요청의 오류는 "
    "버리고, 샘플링 비율은 0.2로 둔다.",
    "ko-terraform": "Terraform state는 S3 버킷에 두고 DynamoDB 테이블로 잠근다. 두 사람이 동시에 "
    "apply해서 state가 깨진 뒤로 이렇게 바꿨다.",
    "ko-gunicorn": "gunicorn 워커 수는 CPU 코어 수의 두 배에 하나를 더한 값으로 정하고, "
    "max_requests를 1000으로 두어 메모리가 새는 워커를 주기적으로 재시작한다.",
    "en-pr-template": "Every pull request fills in the template: what changed, how it was tested, "
    "and a screenshot for any change to the user interface.",
    "en-backfill": "The nightly backfill job copies yesterday's events from the warehouse into "
    "the reporting tables; it is safe to rerun because it deletes the day before inserting.",
    "en-password-reset": "Password reset links expire after thirty minutes and can be used "
    "once; support staff must never send a link by chat.",
    "en-staging": "Staging is rebuilt from scratch every Sunday night, so nothing stored there "
    "survives the weekend; seed data comes from the fixtures script.",
}

ACROSS = [
    ("Why did large file uploads fail with an error?", "ko-nginx"),
    ("How do we keep from going over the error tracker's event quota?", "ko-sentry"),
    ("Where is the infrastructure state stored and how is it locked?", "ko-terraform"),
    ("How many web server workers do we run per machine?", "ko-gunicorn"),
    ("풀 리퀘스트를 올릴 때 무엇을 적어야 하나요?", "en-pr-template"),
    ("비밀번호 재설정 링크는 얼마 동안 유효한가요?", "en-password-reset"),
]
# Each names a tool no note names: the Korean notes would write it in Latin letters.
UNKNOWN_NAMES = ["How do we configure Kubernetes ingress timeouts for uploads?"]
# Each names a tool a Korean note names.
KNOWN_NAMES = [
    ("Where is the Terraform state stored?", "ko-terraform"),
    ("What does Sentry drop before sending events?", "ko-sentry"),
]
UNRELATED_KOREAN = [
    "주말에 가족과 가볼 만한 캠핑장은 어디인가요?",
    "김치찌개를 맛있게 끓이는 방법이 궁금해요.",
]


def test_a_korean_note_naming_latin_tools_is_korean_prose() -> None:
    note = NOTES["ko-gunicorn"]
    assert main_scripts(note) == {"latin", "hangul"}  # by its letters, half Latin
    assert prose_scripts(note) == {"hangul"}
    assert prose_scripts("How many web server workers do we run?", least=1) == {"latin"}
    assert prose_scripts("Kafka 컨슈머 lag이 쌓인 이유는?", least=1) == {"hangul"}
    assert prose_scripts("Вчера мы обновили Redis и PostgreSQL до новых версий") == {"cyrillic"}
    assert prose_scripts("pg_dump S3 TTL=300 README.md", least=1) == frozenset()


def test_the_meaning_decides_only_when_another_script_comes_as_close() -> None:
    # An English question: an English note at 0.83, a Korean one at 0.80 (0.84 with the pull).
    assert across({"en": 0.83, "ko": 0.80}, {"ko"}, {"en"}, 0.04) == 0.80
    # The Korean note comes close only by the pull's help, and not enough: the words decide.
    assert across({"en": 0.85, "ko": 0.80}, {"ko"}, {"en"}, 0.04) is None
    # Nothing in another script: the words decide.
    assert across({"en": 0.85, "short": 0.90}, set(), {"en"}, 0.04) is None
    # Nothing in the query's script (a Korean question over English chat turns, or turns too
    # short to tell): the closest record outside it decides.
    assert across({"en": 0.78, "short": 0.81}, {"en"}, set(), 0.04) == 0.81


@pytest.mark.slow
async def test_questions_across_languages_find_their_notes_and_stay_confident(
    tmp_path: Path,
) -> None:
    # Unrelated Korean questions, and English ones naming a tool no note names, are flagged.
    # For the second, the closest notes are Korean, so the words cannot judge and the meaning
    # alone would: a question about ingress timeouts comes as close to the nginx note as one
    # it answers. Questions naming a tool a Korean note names still find it.
    async with Memory.open(tmp_path / "m") as memory:
        await memory.ingest(notes(NOTES))
        wrong = []
        for question, note in ACROSS + KNOWN_NAMES:
            (hit,) = await memory.search(question, k=1)
            if hit.id != note or not hit.confident:
                wrong.append((question, hit.id, round(hit.confidence or 0, 3)))
        unflagged = []
        for question in UNRELATED_KOREAN + UNKNOWN_NAMES:
            (hit,) = await memory.search(question, k=1)
            if hit.confident:
                unflagged.append((question, hit.id, round(hit.confidence or 0, 3)))
    assert not wrong and not unflagged, (wrong, unflagged)


def test_a_question_names_what_it_writes_as_a_name() -> None:
    # Mixed case or a digit marks a name anywhere; a capital only past a sentence's start.
    assert names_of("How do we rotate GitHub tokens and S3 keys?") == ["github", "s3"]
    assert names_of("Which queue did Maya pick? Kafka was too slow.") == ["maya"]
    assert names_of("What broke when we moved to Node 20?") == ["node"]
    assert names_of("Why did the Redis's cache fill up?") == ["redis"]
    assert names_of("why is the staging database slow?") == []
    # A short question is no title: "Is" starts it, "Redis" is all that is left.
    assert names_of("Is Redis up?") == ["redis"]
    # In capitals or in title case, a capital marks nothing; a digit still does.
    assert names_of("WHY DID THE REDIS CACHE FAIL?") == []
    assert names_of("How Do We Rotate The EC2 Keys?") == ["ec2"]
    # German capitalises its nouns: only a digit or a capital past the first letter marks.
    assert names_of("Wann läuft das Backup des Servers und wie lange bleiben Snapshots?") == []
    assert names_of("Warum ist der Cache von GitHub und S3 voll?") == ["github", "s3"]
    # An English question with one German-looking word is still read as English.
    assert names_of("Who sent the den of Kafka fans our Redis logs?") == ["kafka", "redis"]
    # In a question in another script, a word in Latin letters is a name however written.
    assert names_of("Kafka 컨슈머 lag이 쌓인 이유는?") == ["kafka", "lag"]
    assert names_of("Какая версия Kubernetes стоит?") == ["kubernetes"]
    # A month or a weekday is a time, not a name: a Korean note writes "4월", not "April".
    assert names_of("What did I buy for the twins in April?") == []
    assert names_of("Is the Redis upgrade on Tuesday or on Wed?") == ["redis"]


def test_names_count_only_where_the_other_script_writes_latin_words() -> None:
    # Korean notes write their tools' names as they are: a name missing from them is missing.
    assert spell_names_alike([NOTES["ko-nginx"], NOTES["ko-sentry"]])
    # English notes, for a question in Russian: the same.
    assert spell_names_alike([NOTES["en-staging"]])
    # A Hindi note spells a place its own way ("जयपुर" for Jaipur): it says nothing.
    assert not spell_names_alike(["जयपुर जाने वाली ट्रेन सुबह छह बजे निकलती है।"])
    assert not spell_names_alike([])


def test_a_korean_word_is_held_by_its_stem_and_other_words_only_whole() -> None:
    from memtrails.folder.confidence import word_share

    note = NOTES["ko-terraform"]  # "Terraform state는 S3 버킷에 두고 DynamoDB 테이블로 잠근다 ..."
    # "버킷은" (the bucket, with another particle) is held by "버킷에"; "테이블" by "테이블로".
    assert word_share({"버킷은": 1.0, "테이블": 1.0}, note) == 1.0
    # One syllable is no stem, and a word must keep all but its last syllable.
    assert word_share({"두": 1.0, "버스": 1.0}, note) == 0.0
    # Latin words are held whole only: "bucket" is not "buckets".
    assert word_share({"bucket": 1.0}, "two buckets") == 0.0
