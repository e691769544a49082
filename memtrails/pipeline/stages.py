"""The per-record stages an import runs, in order: normalise, scrub, fit, dedup."""

from __future__ import annotations

from ._stage import Stage
from .dedup import DEDUP
from .fit import FIT
from .normalise import NORMALISE
from .scrub import SCRUB

__all__ = ["STAGES"]

STAGES: tuple[Stage, ...] = (NORMALISE, SCRUB, FIT, DEDUP)
"""What every item of an import goes through, in order (see :mod:`memtrails.pipeline._stage`)."""
