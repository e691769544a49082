"""Warnings a cron re-run would print again: shown once, then counted.

An input that did not change skips the same records for the same reasons on every run; the
lines were said the first time. What each folder's last `memtrails add` reported is kept,
as digests, in the cache (``$MEMTRAILS_CACHE``, else ``~/.cache/memtrails``, under
``reported/``), not in the memory folder: it is about what a terminal was shown, not about
the memory. ``--json`` always lists every error.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from pathlib import Path

from ..embedding.download import cache_root
from ..records import RecordError

__all__ = ["new_errors"]

_KEPT = 10_000  # digests remembered per folder


def _digest(error: RecordError) -> str:
    text = "\x00".join((error.source, error.where, error.reason))
    return hashlib.sha256(text.encode("utf-8", "replace")).hexdigest()[:24]


def _memo(home: Path) -> Path:
    # The folder's own id beside its path: a folder removed and made again at the same path
    # is another memory, whose first run has said nothing yet.
    path = home.expanduser().resolve()
    try:
        folder_id = str(json.loads((path / "manifest.json").read_text(encoding="utf-8"))["id"])
    except (OSError, ValueError, KeyError, TypeError):
        folder_id = ""
    key = hashlib.sha256(f"{path}\x00{folder_id}".encode()).hexdigest()[:24]
    return cache_root() / "reported" / f"{key}.json"


def new_errors(home: Path, errors: list[RecordError]) -> tuple[list[RecordError], int]:
    """Return the errors the last run on ``home`` did not report, and how many it did.

    Remembers this run's errors for the next one; a cache that cannot be read or written
    just means every error is shown.
    """
    memo = _memo(home)
    try:
        before = set(json.loads(memo.read_text(encoding="utf-8")).get("errors", []))
    except (OSError, ValueError, AttributeError):
        before = set()
    digests = [_digest(e) for e in errors]
    fresh = [e for e, d in zip(errors, digests, strict=True) if d not in before]
    with contextlib.suppress(OSError):
        memo.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        temp = memo.with_suffix(f".{os.getpid()}.tmp")
        temp.write_text(json.dumps({"errors": digests[:_KEPT]}), encoding="utf-8")
        temp.chmod(0o600)
        temp.replace(memo)
    return fresh, len(errors) - len(fresh)
