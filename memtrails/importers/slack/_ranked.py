"""Which entry names a user, or an app, that a Slack export's name files name more than once.

A user id may be in ``users.json`` twice (a zip tool's appended copy, a merged export), in
``users.json`` and ``org_users.json`` both, and in each workspace's ``users.json`` of an
Enterprise Grid export. The entry kept is the one that tells most about who they are now:
one not deleted (the live account, not the stub its deletion left), then one with a real
name (not a handle alone), then the newest ``updated``; of entries alike, the last read.

``integration_logs.json`` lists an app's changes newest first (each ``added``,
``updated``, ``expanded`` entry with its ``date``): its name is its newest entry's.
"""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal
from typing import Any

from ._dates import seconds

__all__ = ["user_rank"]


def _real(value: Any) -> bool:
    return isinstance(value, str) and bool(value.strip())


def user_rank(user: Mapping[str, Any]) -> tuple[bool, bool, Decimal]:
    """Return how an entry of a user ranks against another of theirs: the higher kept."""
    profile = user.get("profile")
    real = _real(user.get("real_name")) or (
        isinstance(profile, Mapping) and _real(profile.get("real_name"))
    )
    updated = seconds(user.get("updated"))
    return user.get("deleted") is not True, real, updated if updated is not None else Decimal(-1)
