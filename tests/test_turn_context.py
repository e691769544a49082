"""A short chat turn's stored vector holds the turns before it in its conversation."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from aiostream import stream

from memtrails import Memory
from memtrails.items import Staged
from memtrails.pipeline.embed import embed
from memtrails.pipeline.turn_context import CONTEXT_WEIGHTS
from memtrails.records import MemoryRecord
from memtrails.testing import HashingEmbedder


def _turn(
    id_: str, text: str, thread: str | None = "s1", kind: str = "chat", title: str | None = None
) -> Staged:
    return Staged(MemoryRecord(id=id_, text=text, kind=kind, thread=thread, title=title))


async def _embedded(batches: list[list[Staged]]) -> dict[str, np.ndarray]:
    async with (stream.iterate(batches) | embed.pipe(HashingEmbedder())).stream() as out:
        done = [item async for batch in out for item in batch]
    return {s.record.id: s.passages[0].vector for s in done}


async def _own(text: str) -> np.ndarray:
    [[passage]] = await HashingEmbedder().embed([text])
    return passage.vector


def _unit(vector: np.ndarray) -> np.ndarray:
    return vector / np.linalg.norm(vector)


async def test_each_turn_adds_the_two_turns_before_it_in_its_thread_across_batches() -> None:
    texts = {
        "a": "we grew peppers and tomatoes",
        "b": "one in eleven was spicy",
        "x": "the ferry was cancelled again",
        "c": "Ella got that one",
    }
    got = await _embedded(
        [
            [_turn("a", texts["a"]), _turn("b", texts["b"])],
            [_turn("x", texts["x"], thread="s2"), _turn("c", texts["c"])],
        ]
    )
    own = {k: await _own(v) for k, v in texts.items()}
    before, before_that = CONTEXT_WEIGHTS
    assert np.allclose(got["a"], own["a"])  # the first turn has nothing before it
    assert np.allclose(got["b"], _unit(own["b"] + before * own["a"]), atol=1e-6)
    # The other thread's turn, between them in the stream, is no turn before "c".
    assert np.allclose(got["c"], _unit(own["c"] + before * own["b"] + before_that * own["a"]))
    assert np.allclose(got["x"], own["x"])


async def test_mails_notes_and_long_messages_keep_their_own_vectors() -> None:
    long = "a long message about the harvest. " * 20
    records = [
        _turn("a", "we grew peppers"),
        _turn("mail", "Re: the harvest", title="Peppers"),  # titled: a mail stands alone
        _turn("long", long),
        _turn("note", "spicy ones", thread=None, kind="note"),
        _turn("b", "one was spicy"),
    ]
    got = await _embedded([records])
    assert np.allclose(got["mail"], await _own("Peppers\n\nRe: the harvest"))
    assert np.allclose(got["long"], await _own(long))
    assert np.allclose(got["note"], await _own("spicy ones"))
    # Neither the mail nor the long message counts as the turn before "b".
    assert np.allclose(got["b"], _unit(await _own("one was spicy") + CONTEXT_WEIGHTS[0] * got["a"]))


async def test_a_turn_is_found_by_meaning_through_the_turn_before_it(tmp_path: Path) -> None:
    """What a user sees: a turn that shares no word with the question still comes close in
    meaning when the turn before it holds the question's words, in the import and after the
    index is rebuilt from the log."""
    chat = [
        {"id": "1", "text": "what did you grow in the garden", "thread": "s1"},
        {"id": "2", "text": "peppers and tomatoes mostly", "thread": "s1"},
        {"id": "3", "text": "one in eleven was spicy", "thread": "s1"},
        {"id": "4", "text": "the ferry was cancelled", "thread": "s2"},
    ]
    records = [{**r, "kind": "chat"} for r in chat]
    async with Memory.open(tmp_path / "m", embedder=HashingEmbedder()) as memory:
        await memory.ingest(records, name="chat")
        hits = {h.id: h.dense for h in await memory.search("peppers tomatoes", k=10)}
        assert hits["3"] is not None and hits["3"] > 0.1
        assert (hits.get("4") or 0.0) < 0.1
        assert await memory.reindex() == 4
        again = {h.id: h.dense for h in await memory.search("peppers tomatoes", k=10)}
    assert again.keys() == hits.keys()
    for id_, dense in hits.items():
        assert again[id_] == dense or abs((again[id_] or 0.0) - (dense or 0.0)) < 1e-3


class _Shared(HashingEmbedder):
    """Every text's vector leans on one direction (as a real model's do); a blank text's is
    that direction alone."""

    async def embed(self, texts):  # type: ignore[no-untyped-def]
        out = await super().embed(texts)
        for passages in out:
            for i, p in enumerate(passages):
                v = p.vector.copy()
                v[0] += 2.0
                passages[i] = type(p)(p.start, p.end, v / np.linalg.norm(v))
        return out


async def test_the_turns_before_add_nothing_along_what_every_text_shares() -> None:
    """A sum of vectors leans on what all texts share and would come closer to every
    question: the mixed vector keeps the turn's own part along that direction."""
    model = _Shared()
    staged = [_turn("a", "we grew peppers and tomatoes"), _turn("b", "one in eleven was spicy")]
    async with (stream.iterate([staged]) | embed.pipe(model)).stream() as out:
        [done] = [batch async for batch in out]
    [[a], [b], [blank]] = await model.embed([staged[0].record.text, staged[1].record.text, " "])
    shared = blank.vector
    expected = b.vector + CONTEXT_WEIGHTS[0] * a.vector
    expected -= float(CONTEXT_WEIGHTS[0] * a.vector @ shared) * shared
    got = done[1].passages[0].vector
    assert np.allclose(got, _unit(expected), atol=1e-6)
    # A plain sum would lean further on the shared direction than the turn's own vector.
    plain = _unit(b.vector + CONTEXT_WEIGHTS[0] * a.vector)
    assert plain @ shared > b.vector @ shared
    assert got @ shared < plain @ shared


class _NoBlank(HashingEmbedder):
    """A model (a server, say) that refuses a blank input."""

    async def embed(self, texts):  # type: ignore[no-untyped-def]
        if any(not t.strip() for t in texts):
            raise ValueError("input must not be blank")
        return await super().embed(texts)


async def test_a_model_that_refuses_a_blank_text_still_imports_the_chat(tmp_path: Path) -> None:
    records = [
        {"id": str(i), "text": text, "kind": "chat", "thread": "s1"}
        for i, text in enumerate(["we grew peppers", "one was spicy", "Ella got it"])
    ]
    async with Memory.open(tmp_path / "m", embedder=_NoBlank()) as memory:
        report = await memory.ingest(records, name="chat")
        assert (report.added, report.errors) == (3, [])
        assert [h.id for h in await memory.search("spicy", k=1)] == ["1"]


async def test_a_chat_whose_channel_is_a_list_or_an_object_imports(tmp_path: Path) -> None:
    """A JSONL row's meta may give its channel as any JSON value: the turns are still read
    as one conversation, and the import does not stop on them."""
    records = [
        {"id": "1", "text": "we grew peppers", "kind": "chat", "meta": {"channel": ["a", "b"]}},
        {"id": "2", "text": "one was spicy", "kind": "chat", "meta": {"channel": ["a", "b"]}},
        {"id": "3", "text": "the ferry", "kind": "chat", "meta": {"channel": {"id": "C1"}}},
    ]
    async with Memory.open(tmp_path / "m", embedder=HashingEmbedder()) as memory:
        report = await memory.ingest(records, name="chat")
        assert (report.added, report.errors) == (3, [])
        hits = {h.id: h.dense for h in await memory.search("peppers", k=10)}
    assert (hits.get("2") or 0.0) > 0.1  # holds the turn before it, in the same channel


async def test_the_turns_of_a_batch_not_written_are_taken_back() -> None:
    """An import stops with a batch embedded and never written (read ahead): the turns
    before that the next import starts from are those of the batches written."""
    from collections import OrderedDict

    from memtrails.pipeline.turn_context import Recent, TurnContext

    recent: Recent = OrderedDict()
    context = TurnContext(recent=recent, undoable=True)
    model = HashingEmbedder()

    async def mixed(batch: list[Staged]) -> None:
        vectors = await model.embed([s.record.text for s in batch])
        for staged, passages in zip(batch, vectors, strict=True):
            staged.passages = passages
        await context.mix(batch, lambda: _own(" "))

    await mixed([_turn("a", "we grew peppers"), _turn("x", "the ferry", thread="s2")])
    context.written()
    after_first = {k: [v.copy() for v in d] for k, d in recent.items()}
    await mixed([_turn("b", "one was spicy"), _turn("y", "a new thread", thread="s3")])
    await mixed([])  # a batch of nothing to embed counts as one too
    context.undo()
    assert {k: [v.copy() for v in d] for k, d in recent.items()}.keys() == after_first.keys()
    for key, vectors in after_first.items():
        assert all(np.array_equal(a, b) for a, b in zip(recent[key], vectors, strict=True))
