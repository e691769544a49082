"""A short chat turn's stored vector, mixed with the turns before it in its conversation.

A turn such as "One in eleven was spicy" means little alone: the talk of the peppers grown
comes a turn or two before it. The model reads each turn alone (a vector of two turns
matches a question about either less well, and a neighbour's words in a turn's keywords
make every turn around an answer match as well as the answer: benchmarks/README.md, issue
32), so the turn's own vector is kept and the vectors of the turns just before it are added
to it at :data:`CONTEXT_WEIGHTS`, then normalised. The dense side then finds a turn by what
its exchange is about; its words, snippet and word-by-word reordering stay its own.

A sum of vectors leans towards what every text of the model shares, and so comes closer to
every question: mixed that way, chat turns crowded the notes in other languages out of the
dev set's cross-language questions (hit@1 .607 -> .321). So the sum keeps the turn's own
part along that shared direction (the model's vector of a blank passage, 0.93 cosine to the
mean of the dev chats' turns), and takes from the turns before only what they add across it.

Which records are turns, and of which conversation, follows the search's rule
(:func:`memtrails.items.conversation_of`): short, untitled records of one thread or chat
channel. The turns before are those that came before in the same stream (an import, or a
reindex replaying the log in order), and those of earlier imports that the folder kept
(``recent``: the folder's ``turns.npz``), so that a chat imported a turn at a time (cron,
``watch``, a service's appends) gets the vectors it would get imported at once.
"""

from __future__ import annotations

from collections import OrderedDict, deque
from collections.abc import Awaitable, Callable, Hashable, Sequence

import numpy as np

from ..embedding._base import Passage
from ..items import Staged, conversation_of

__all__ = ["CONTEXT_WEIGHTS", "CONVERSATIONS", "Recent", "TurnContext"]

# What the turn before and the one before that add to a turn's vector. On the dev set's
# three long chats (issue 32, nineteenth pass) the dense side alone went from hit@1/@10
# .18/.51 to .20/.66 and the whole search from .512/.777/.848 to .516/.793/.879.
CONTEXT_WEIGHTS = (0.3, 0.2)
# Conversations remembered at once, the least recently seen forgotten first: an export
# holds a conversation's turns together or its channels are few, and the memory stays
# bounded (two vectors each, at most 4 MiB with a 512-dimension model).
CONVERSATIONS = 1024


#: Each conversation's last own vectors, the least recently seen first.
Recent = OrderedDict[Hashable, deque[np.ndarray]]


class TurnContext:
    """The last own vectors of each conversation seen in one stream (see the module).

    ``recent`` holds what earlier streams saw (the folder keeps it between imports); it is
    updated in place. ``turns`` counts the turns this stream met.

    With ``undoable``, each batch's changes to ``recent`` can be taken back until the caller
    says the batch is written (:meth:`written`): an import that stops leaves ``recent`` as
    the turns it wrote left it (:meth:`undo`), not with the turns of a batch read ahead.
    """

    def __init__(
        self,
        weights: Sequence[float] | None = None,
        recent: Recent | None = None,
        *,
        undoable: bool = False,
    ) -> None:
        self._weights = tuple(CONTEXT_WEIGHTS if weights is None else weights)
        self._recent: Recent = OrderedDict() if recent is None else recent
        # Kept conversations read back from a file hold as many turns as these weights.
        for key, kept in list(self._recent.items()):
            if kept.maxlen != len(self._weights):
                self._recent[key] = deque(kept, maxlen=len(self._weights))
        self._shared: np.ndarray | None = None
        self.turns = 0
        # Per batch mixed and not yet written: each conversation it changed, as it was.
        self._undo: deque[dict[Hashable, deque[np.ndarray] | None]] | None = (
            deque() if undoable else None
        )

    def written(self) -> None:
        """The oldest batch mixed and not yet written is written: its changes stay."""
        if self._undo:
            self._undo.popleft()

    def undo(self) -> None:
        """Take back the changes of every batch mixed and not written, newest first."""
        while self._undo:
            for key, was in self._undo.pop().items():
                if was is None:
                    self._recent.pop(key, None)
                else:
                    self._recent[key] = was

    async def mix(
        self, staged: Sequence[Staged], blank: Callable[[], Awaitable[np.ndarray | None]]
    ) -> None:
        """Mix each short turn's vector with the turns before it, in order, in place.

        ``blank`` gives the model's vector of a blank passage (None where it gives none:
        the sum is then left as it is); it is asked once, when a stream first holds a turn.
        """
        changed: dict[Hashable, deque[np.ndarray] | None] = {}
        if self._undo is not None:
            self._undo.append(changed)  # one entry a batch, empty or not: written() pairs
        if not self._weights:
            return
        for item in staged:
            key = conversation_of(item.record) if len(item.passages) == 1 else None
            if key is None:
                continue
            self.turns += 1
            if self._undo is not None and key not in changed:
                was = self._recent.get(key)
                changed[key] = None if was is None else deque(was, maxlen=was.maxlen)
            if self._shared is None:
                self._shared = _unit(await blank())
            shared = self._shared
            own = np.asarray(item.passages[0].vector, dtype=np.float32)
            before = self._recent.get(key)
            if before:
                mixed = own.copy()
                for weight, vector in zip(self._weights, reversed(before), strict=False):
                    mixed += weight * vector
                if shared.shape == mixed.shape:
                    mixed -= float((mixed - own) @ shared) * shared
                norm = float(np.linalg.norm(mixed))
                if norm > 0.0:
                    passage = item.passages[0]
                    item.passages[0] = Passage(passage.start, passage.end, mixed / norm)
                self._recent.move_to_end(key)
            else:
                before = self._recent[key] = deque(maxlen=len(self._weights))
                if len(self._recent) > CONVERSATIONS:
                    self._recent.popitem(last=False)
            before.append(own)


def _unit(vector: np.ndarray | None) -> np.ndarray:
    """``vector`` normalised; an empty vector for None or a zero vector (no direction)."""
    found = np.asarray(vector if vector is not None else (), dtype=np.float32)
    norm = float(np.linalg.norm(found)) if found.size else 0.0
    return found / norm if norm > 0.0 else np.zeros(0, dtype=np.float32)
