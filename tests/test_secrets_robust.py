"""One odd record never stops the scrubber, and a hostile megabyte costs it a linear scan.

Hypothesis builds texts of nested quotes and brackets around secret-shaped phrases of rule
set 13, lines of many thousand characters, and records whose ``meta`` nests mappings, lists
and tuples with odd keys. The megabyte lines repeat the start of each rule set 13 rule (so
that a partial match is alive at every offset); the timeout only guards against a hang,
which a quadratic scan of a megabyte would be (``benchmarks/scrub_speed.py`` measures time).
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memtrails.records import MemoryRecord
from memtrails.secrets import scrub_record, scrub_text

# Phrases of rule set 13's rules, secret or nearly so.
PHRASES = [
    "s.emrjeWpH0tL7odJgOH6hjO33",
    "YCMz0Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8Qr9St0Uv1Wx",
    "y0_AgAAAAAbc1De2Fg3Hi4Jk5Lm6No7Pq8Rs9Tu0Vw1Xy2Za3Bc4De5Fg6Hi7Jk8L",
    "Key=RZCBUIkFGdwXGVowtYFcCuuKLRwvMhaCj_fRz_25",
    "account ann / tigers66",
    "ann:tigers66@host",
    "oc login -u a -p Winter9757xQ",
    "CONFIG SET requirepass Winter9757xQ",
    "DB_PASSWORD: aHVudGVyMVBlcHBlcjIy",
    "wpa_passphrase HomeNet Winter9757xQ",
    "password = 'S3cr3t-pa55'",
    "Authorization: Bearer abcdefghij0123456789",
]
_QUOTES = ["'", '"', "`", "\u201c", "\u00ab", "(", "[", "{", "<", "\\'", '\\"', "'''"]
_CLOSE = {"(": ")", "[": "]", "{": "}", "<": ">", "\u201c": "\u201d", "\u00ab": "\u00bb"}

_BASE = settings(
    deadline=None, database=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow]
)
_ANY = st.characters(codec=None)  # every code point, surrogates too


def _total(text: str) -> str:
    clean, counts = scrub_text(text)
    assert isinstance(clean, str)
    assert clean.count("[secret:") >= sum(counts.values())
    if not counts:
        assert clean is text
    return clean


def _quoted(inner: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    return st.tuples(st.sampled_from(_QUOTES), inner, st.booleans()).map(
        lambda t: t[0] + t[1] + (_CLOSE.get(t[0], t[0]) if t[2] else "")
    )


_NESTED = st.recursive(
    st.one_of(st.sampled_from(PHRASES), st.text(alphabet=_ANY, max_size=12)),
    lambda inner: st.one_of(
        _quoted(inner), st.lists(inner, min_size=2, max_size=3).map(" = ".join)
    ),
    max_leaves=8,
)


@settings(_BASE, max_examples=300)
@given(_NESTED)
def test_nested_quotes_around_secrets(text: str) -> None:
    clean = _total(text)
    # A scrubbed text holds nothing more to scrub.
    assert scrub_text(clean)[1] == {}


@pytest.mark.parametrize("odd", ["\ud800", "\udfff", "\x00", "\u2028", "\ufeff"])
@pytest.mark.parametrize(
    "context", ["account ann / tigers{}66", "account ann / tigers66{}", "wifi is Net / a-b-c{}"]
)
def test_an_odd_character_in_a_pairs_password(context: str, odd: str) -> None:
    """A lone surrogate in the value after "account NAME /" made RE2 raise (the check of
    an amount or an id read the value as str; RE2 cannot encode a lone surrogate)."""
    _total(context.format(odd))


@settings(_BASE, max_examples=15)
@given(st.sampled_from(PHRASES), st.sampled_from(["a", "é", "密", "😀", " ", "'", "/", ":"]))
def test_long_lines_around_rule_set_13(phrase: str, unit: str) -> None:
    pad = unit * 30_000
    _total(pad + phrase + pad)
    _total(phrase + pad)


_KEYS = st.one_of(st.sampled_from(["password", "api_key", "token", "", "\ud800"]), st.text(_ANY))
_META: st.SearchStrategy[Any] = st.recursive(
    st.one_of(st.sampled_from(PHRASES), st.text(alphabet=_ANY, max_size=30), st.none()),
    lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.lists(inner, max_size=3).map(tuple),
        st.dictionaries(_KEYS, inner, max_size=3),
    ),
    max_leaves=10,
)


@settings(_BASE, max_examples=150)
@given(st.text(alphabet=_ANY, min_size=1, max_size=30), _NESTED, st.dictionaries(_KEYS, _META))
def test_any_nested_record(id: str, text: str, meta: dict[str, Any]) -> None:
    scrubbed, counts = scrub_record(MemoryRecord(id=id, text=text, title=text, meta=meta))
    assert isinstance(scrubbed.text, str)
    if not counts:
        assert scrubbed.text == text


# Units that keep a partial match of a rule set 13 rule alive at every offset of a line.
HOSTILE = [
    "s.",
    "s.emrjeWpH0tL7odJgOH6hjO33.",
    "a-s.",
    "YCa",
    "y0_",
    "account a / ",
    "account ann / tigers66 ",
    "account a / -Ab",
    "a:b@",
    "ann:tigers66@",
    "x login -p ",
    " --requirepass ",
    "CONFIG SET requirepass ",
    "wpa_passphrase a ",
    "aws ssm put-parameter --value ",
    "npm config set :_authToken ",
    "Key=RZCBUIkFGdwXGVowtYFcCu_",
    "password: aHVudGVyMVBlcHBlcjIy\n",
]


@pytest.mark.timeout(120)
@pytest.mark.parametrize("unit", HOSTILE)
def test_a_hostile_megabyte_line_is_scrubbed(unit: str) -> None:
    text = unit * ((1 << 20) // len(unit))
    clean = _total(text)
    assert len(clean) > 0
