"""Zones by their short names (``CET``, ``JST``, ``IST``), as mailers and exports write them,
and which of those names several zones hours apart.
"""

from __future__ import annotations

import re

__all__ = ["AMBIGUOUS_ZONES", "ZONES", "unsure_zone"]

#: Zone names a Date header may carry, as minutes east of UTC. RFC 5322 4.3's obsolete
#: zones (``UT``, ``GMT``, ``EST`` ... ``PDT``) come first; the rest are names mailers
#: write though no RFC allows them. Where a name has several readings, the one taken is
#: the first in this list: ``CST`` and ``PST`` are the RFC's (US Central, US Pacific), not
#: China's or the Philippines'; ``IST`` is India (+05:30), not Irish summer time (+01:00)
#: nor Israel (+02:00); ``BST`` is British summer time (+01:00), not Bangladesh; ``AST``
#: is Atlantic (-04:00), not Arabia; ``MSK`` is Moscow's +03:00 (it was +04:00 from March
#: 2011 to October 2014). Military letters other than ``Z`` are not here: RFC 5322 says
#: to read them as ``-0000`` (RFC 822 had their signs reversed), which is what an unknown
#: name gives.
ZONES: dict[str, int] = {
    "UT": 0, "UTC": 0, "GMT": 0, "Z": 0,
    "EST": -300, "EDT": -240, "CST": -360, "CDT": -300,
    "MST": -420, "MDT": -360, "PST": -480, "PDT": -420,
    "UCT": 0, "WET": 0, "WEZ": 0, "WEST": 60, "WESZ": 60, "BST": 60, "IST": 330,
    "CET": 60, "MET": 60, "MEZ": 60, "CEST": 120, "CEDT": 120, "MEST": 120, "MESZ": 120,
    "EET": 120, "OEZ": 120, "EEST": 180, "OESZ": 180, "MSK": 180, "MSD": 240,
    "WAT": 60, "CAT": 120, "SAST": 120, "EAT": 180, "IDT": 180, "GST": 240,
    "PKT": 300, "NPT": 345, "ICT": 420, "WIB": 420,
    "HKT": 480, "SGT": 480, "MYT": 480, "PHT": 480, "AWST": 480,
    "JST": 540, "KST": 540, "ACST": 570, "AEST": 600, "ACDT": 630, "AEDT": 660,
    "NZST": 720, "NZDT": 780,
    "AST": -240, "ADT": -180, "NST": -210, "NDT": -150,
    "AKST": -540, "AKDT": -480, "HST": -600, "HDT": -540,
    "BRT": -180, "BRST": -120, "ART": -180, "CLT": -240, "CLST": -180,
}  # fmt: skip
#: The names of :data:`ZONES` that name zones hours apart: ``IST`` (India +05:30, Israel
#: +02:00, Ireland +01:00), ``BST`` (British summer time, Bangladesh +06:00), ``AST`` and
#: ``ADT`` (Atlantic, Arabia +03:00), ``GST`` (the Gulf +04:00, South Georgia -02:00). A
#: mail's Date reads them as :data:`ZONES` says (its Received time corrects it); a record's
#: value with no offset beside one is no date (:func:`unsure_zone`): a wrong hour can be a
#: wrong day. (``CST`` and ``PST`` are ``Date.parse``'s own: the US ones.)
AMBIGUOUS_ZONES = frozenset({"IST", "BST", "AST", "ADT", "GST"})
# An offset after a clock, or after UTC's name: what says when whatever the zone's name.
_CLOCK_OFFSET = re.compile(
    r"\d:\d\d(?::\d\d(?:[.,]\d+)?)?\s*[+-]\d\d(?::?\d\d)?\b|\b(?:GMT|UTC|UT)\s*[+-]\d", re.I
)


def unsure_zone(text: str) -> bool:
    """Tell whether ``text`` names a zone of :data:`AMBIGUOUS_ZONES` ("3 May 2024 10:00 IST",
    "10:00 AST 3 May 2024") without an offset that says when."""
    words = re.findall(r"(?<![A-Za-z])[A-Z]{3}(?![A-Za-z])", text)
    return bool(AMBIGUOUS_ZONES.intersection(words)) and _CLOCK_OFFSET.search(text) is None
