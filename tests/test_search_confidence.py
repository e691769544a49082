"""The search's confidence on a small real folder: questions it cannot answer are flagged."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from helpers import notes

from memtrails import Memory
from memtrails.folder import ranking, search
from memtrails.records import MemoryRecord
from memtrails.testing import HashingEmbedder

# A team's coding notes, in English and Korean, written for this test.
NOTES = {
    "ci-flaky": "The integration tests on CI were flaky because the Postgres container was not "
    "ready; we added a healthcheck with pg_isready and a retry loop before running pytest.",
    "release": "Releases are tagged from main with git tag vX.Y.Z; the GitHub workflow builds "
    "wheels for Linux and macOS and uploads them to PyPI with a trusted publisher.",
    "qdrant-upgrade": "Upgrading qdrant-client to 1.9 broke the sparse vector search: the IDF "
    "modifier must now be set on the collection, so the migration recreates the collection.",
    "lint": "We run ruff check and ruff format in a pre-commit hook, and mypy --strict in CI; "
    "the line length is 100.",
    "auth-bug": "The login endpoint returned 500 when the session cookie had expired; the fix "
    "catches SignatureExpired in the middleware and redirects to the login page.",
    "docker": "The Docker image is built in two stages: the builder installs dependencies with "
    "uv into a virtual environment, the runtime stage copies only the venv and the app.",
    "cache": "API responses are cached in Redis for five minutes; the cache key includes the "
    "user id and the query string, and a deploy flushes it.",
    "ko-backup": "데이터베이스 백업은 매일 새벽 세 시에 pg_dump로 만들고 S3 버킷에 30일 동안 "
    "보관한다.",
    "ko-oncall": "온콜 담당자는 매주 월요일에 바뀌고, 장애가 나면 슬랙 #incident 채널에 먼저 "
    "알린다.",
    "ko-leak": "워커 프로세스의 메모리 누수는 이미지 썸네일을 만들 때 Pillow 객체를 닫지 않아서 "
    "생겼다. with 문으로 고쳤다.",
    "ko-branch": "기능 브랜치는 feature/ 로 시작하고, 리뷰어 두 명이 승인해야 main에 병합할 수 "
    "있다.",
    "ko-timezone": "서버 로그의 시간은 UTC로 기록하고, 대시보드에서만 한국 시간으로 바꿔서 "
    "보여준다.",
}

# Questions these notes answer (in the note's language or another) and questions they cannot.
ANSWERED = [
    ("Why were the integration tests flaky on CI?", "ci-flaky"),
    ("How do we publish a release to PyPI?", "release"),
    ("What broke after the qdrant-client upgrade?", "qdrant-upgrade"),
    ("데이터베이스 백업은 얼마 동안 보관하나요?", "ko-backup"),
    ("메모리 누수의 원인은 무엇이었나요?", "ko-leak"),
    ("로그인 오류는 어떻게 고쳤나요?", "auth-bug"),
]
UNRELATED = [
    "What is a good recipe for banana bread?",
    "How do I change a flat tyre on a bicycle?",
    "비행기 표를 싸게 사는 방법은?",
    "고양이 예방접종은 언제 해야 하나요?",
]


async def _flags(memory: Memory) -> tuple[list[str], list[str]]:
    """Return the answered questions flagged (or answered wrongly) and the unrelated ones not."""
    await memory.ingest(notes(NOTES))
    wrong = []
    for question, note in ANSWERED:
        (hit,) = await memory.search(question, k=1)
        if hit.id != note or not hit.confident:
            wrong.append(f"{question} -> {hit.id} {hit.confidence:.3f}")
    missed = []
    for question in UNRELATED:
        (hit,) = await memory.search(question, k=1)
        if hit.confident:
            missed.append(f"{question} -> {hit.id} {hit.confidence:.3f}")
    return wrong, missed


@pytest.mark.slow
async def test_the_default_model_flags_questions_the_notes_cannot_answer(tmp_path: Path) -> None:
    async with Memory.open(tmp_path / "m") as memory:
        wrong, missed = await _flags(memory)
    # Every answered question is confident, the one asked in Korean about an English note
    # included. An unrelated Korean question whose best records are English notes is judged
    # by its meaning alone (its words cannot tell), which multilingual-e5-small rates close.
    assert not wrong and not [m for m in missed if m.isascii()], (wrong, missed)


@pytest.mark.slow
async def test_minilm_flags_the_english_questions_the_notes_cannot_answer(
    tmp_path: Path, embedder: Any
) -> None:
    # MiniLM reads no Korean: only the English questions, each in its own language.
    async with Memory.open(tmp_path / "m", embedder=embedder) as memory:
        wrong, missed = await _flags(memory)
    english = [w for w in wrong if w.isascii()]
    assert not english and not [m for m in missed if m.isascii()], (english, missed)


# Runbook pages, each longer than a chat turn (ranking.SHORT_TURN_CHARS), written for this test.
RUNBOOK = {
    "rotate-keys": "Rotating the signing keys. Every ninety days the JWT signing key is rotated. "
    "Generate the new key pair with the keys script, add the public key to the JWKS endpoint "
    "first and wait one hour so that every service has fetched it, then switch the signer to the "
    "new private key. Keep the old public key published for another day: tokens signed before "
    "the switch stay valid until they expire. Never delete a key that a live token still names.",
    "restore-db": "Restoring the database from a backup. Stop the API workers so nothing writes, "
    "download the latest pg_dump archive from the backups bucket, restore it into a fresh "
    "database with pg_restore using four jobs, run the migrations to bring the schema up to "
    "date, then point the connection string at the new database and start the workers again. "
    "Check the row counts of the orders and users tables against the numbers in the backup log.",
    "scale-queue": "When the job queue backs up. The queue depth alarm fires above ten thousand "
    "pending jobs. Look at the worker dashboard: if the workers are busy, raise the autoscaling "
    "maximum from twelve to twenty-four; if they are idle, a poisoned job is probably retrying "
    "forever, so find it in the dead letter view, move it aside and restart the stuck worker. "
    "Write down which job it was in the incident channel so that its owner can fix it.",
    "tls-renew": "Renewing the TLS certificates. Certificates come from the ACME client on the "
    "edge proxies and renew by themselves thirty days before they expire. When the expiry alert "
    "fires anyway, the HTTP challenge usually failed because the firewall rule for port 80 was "
    "removed; restore the rule, run the renewal by hand with the dry-run flag first, and then "
    "reload the proxies one at a time so that the site never goes down during the change.",
}


@pytest.mark.slow
async def test_a_folder_of_long_pages_flags_unrelated_questions_and_keeps_answers(
    tmp_path: Path,
) -> None:
    """With the default model, the questions long pages answer find their page and stay
    confident under the margin a stand-alone record takes (ranking.ALONE_MARGIN), and
    questions about something else come out unconfident."""
    async with Memory.open(tmp_path / "m") as memory:
        await memory.ingest(notes(RUNBOOK, source="runbook"))
        for question, page in [
            ("How often is the JWT signing key rotated?", "rotate-keys"),
            ("How do I restore the database from a backup?", "restore-db"),
            ("What do I do when the job queue backs up?", "scale-queue"),
            ("Why did the TLS certificate renewal fail?", "tls-renew"),
        ]:
            (hit,) = await memory.search(question, k=1)
            assert hit.id == page and hit.confident, (question, hit.id, hit.confidence)
        for question in [
            # none of them in the dev set the margin was measured on (benchmarks/_devset.py)
            "How long should I boil an egg for a runny yolk?",
            "Which chess opening suits a beginner?",
            "What is the best time of year to plant tulip bulbs?",
            "How do I get rid of aphids on my roses?",
        ]:
            (hit,) = await memory.search(question, k=1)
            assert not hit.confident, (question, hit.id, hit.confidence)


async def test_a_stand_alone_record_takes_the_models_margin_and_a_chat_turn_does_not(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The margin applies when the best record is longer than a chat turn, and only then."""
    embedder = HashingEmbedder()
    page = RUNBOOK["restore-db"]
    turn = "ok, I'll restore the database from last night's backup after lunch"
    assert len(turn) <= ranking.SHORT_TURN_CHARS < len(page)

    async def confidences() -> tuple[float, float]:
        out = []
        for text, where in [(page, "page"), (turn, "turn")]:
            async with Memory.open(tmp_path / where, embedder=embedder) as memory:
                await memory.ingest([MemoryRecord(id=where, text=text, source=where)])
                (hit,) = await memory.search("restore the database from a backup", k=1)
                assert hit.confidence is not None
                out.append(hit.confidence)
        return out[0], out[1]

    plain = await confidences()
    monkeypatch.setitem(search.ALONE_MARGIN, embedder.model_id, 0.05)
    margined = await confidences()
    assert margined[0] == pytest.approx(plain[0] - 0.05) and margined[1] == plain[1]
