"""The mails earlier runs placed, as a saved position keeps them (:meth:`MailBook.placed_ids`):
a sorted table looked up by Message-ID key, not a dict entry per mail.

A resumed mbox of a million mails handed 15 MB of entries to the book, which made a
dict of lists of them: about 5 s and 150 MB before the first appended mail was read. The
table is the entries' bytes sorted once (about 25 MB, a fraction of a second); the book
takes a key's entries from it when a mail of this run names that key.
"""

from __future__ import annotations

import numpy as np

__all__ = ["Earlier"]


class Earlier:
    """Entries of ``key`` (8 bytes) + ``short`` digest, looked up by key."""

    def __init__(self, entry: int) -> None:
        self._entry = entry
        self._keys = np.zeros(0, dtype=np.uint64)
        self._rows = np.zeros((0, entry), dtype=np.uint8)

    def __len__(self) -> int:
        return int(self._keys.size)

    def add(self, raw: bytes) -> None:
        """Add the entries of ``raw`` (whole entries; a cut one at the end is left out)."""
        whole = len(raw) - len(raw) % self._entry
        if not whole:
            return
        rows = np.frombuffer(raw, dtype=np.uint8, count=whole).reshape(-1, self._entry)
        rows = np.concatenate([self._rows, rows]) if self._keys.size else rows
        keys = rows[:, :8].copy().view(">u8").ravel().astype(np.uint64)
        order = np.argsort(keys, kind="stable")  # earlier runs' entries first within a key
        self._keys, self._rows = keys[order], rows[order]

    def shorts(self, key: bytes) -> list[bytes]:
        """Return the digests saved under ``key``, in the order they were placed."""
        if not self._keys.size:
            return []
        value = np.uint64(int.from_bytes(key, "big"))
        lo = int(np.searchsorted(self._keys, value, side="left"))
        hi = int(np.searchsorted(self._keys, value, side="right"))
        found: list[bytes] = []
        for row in self._rows[lo:hi]:
            short = row[8:].tobytes()
            if short not in found:
                found.append(short)
        return found
