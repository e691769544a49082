"""The keyword side's IDF of query words, kept between searches while the index stays put."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from .index._base import IndexBackend

__all__ = ["IdfCache"]


class IdfCache:
    """Remembers each word's IDF (``IndexBackend.term_idf``) until the index changes.

    A search's confidence weighs the query's words by their IDF, one more index call that
    asks each word alone. The common words of questions ("what", "the", "how") come back
    in nearly every search and are the costliest to ask (their postings are the longest),
    while their IDF moves only when the index does. So the answers are kept, keyed by the
    index's state (``Writer.index_version``): any change to the index clears them.

    Example::

        idf = await cache.get(index, terms, lambda: writer.index_version)
    """

    def __init__(self, limit: int = 100_000) -> None:
        """``limit``: words kept at most (a word is a few dozen bytes); past it, start over."""
        self._limit = limit
        self._state: object = None
        self._known: dict[int, float | None] = {}

    async def get(
        self, index: IndexBackend, terms: Sequence[int], state: Callable[[], object]
    ) -> dict[int, float]:
        """Return the IDF of each of ``terms`` some point holds, as ``index.term_idf`` does;
        ``state()`` names the index's contents (equal states, equal IDFs)."""
        before = state()
        if before != self._state:
            self._known.clear()
            self._state = before
        missing = [t for t in dict.fromkeys(terms) if t not in self._known]
        if missing:
            found = await index.term_idf(missing)
            if state() != before:  # the index moved during the call: keep nothing
                self._state = None
                self._known.clear()
                return {t: found[t] for t in terms if t in found}
            if len(self._known) + len(missing) > self._limit:
                self._known.clear()
            for term in missing:
                self._known[term] = found.get(term)
        return {t: idf for t in terms if (idf := self._known.get(t)) is not None}
