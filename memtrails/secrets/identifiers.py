"""Values that name something rather than keep it secret: a host or an id after "login", an
amount, a version or an id where no word for a password names the value ("pass is X",
"account ann / X"), a JSON Web Key's public members."""

from __future__ import annotations

from typing import Final

import re2

from .values import is_passphrase

__all__ = [
    "PUBLIC_MEMBER_READS",
    "login_identifier",
    "pass_phrase",
    "public_jwk_member",
    "reads_as_no_password",
    "word_and_digits",
    "word_and_number",
    "words_then_number",
]


def _full(pattern: re2._Regexp, value: str) -> bool:
    """Tell whether ``pattern`` matches all of ``value``; a value holding a lone surrogate
    (which RE2 cannot read) is none of these shapes."""
    try:
        return pattern.fullmatch(value) is not None
    except UnicodeEncodeError:
        return False


# Lowercase words and digits joined by "-", "_" or ".": a host ("server01", "gpu-02",
# "db01.prod"), a resource's id ("x1-y2-z3-the-id"), not a password's mix of cases and symbols.
_IDENTIFIER: Final = re2.compile(r"[a-z0-9]+(?:[-_.][a-z0-9]+)*")
_HYPHENATED: Final = re2.compile(r"[a-z0-9]+(?:-[a-z0-9]+)+")


# Words for logging in, "-" left out: a host or an id may follow them ("logon: server01").
_LOGIN_WORDS: Final = frozenset({"login", "logins", "logon", "signin"})


def login_identifier(word: str, value: str, after_user: bool) -> bool:
    """Tell whether ``value`` after the word ``word`` names a host or an id, not a password.

    Only after "login": "login to server01", "login server01 gpu-02" (a host, lowercase words
    and digits); after a user ("login ann x1-y2-z3-the-id") only hyphenated lowercase words
    read as an id: a user's password of letters and digits still goes.
    """
    if word.lower().replace("-", "") not in _LOGIN_WORDS:
        return False
    if _full(_SSH_TARGET, value) and (not after_user or _full(_HOST, value.split("@", 1)[1])):
        # "login root@10.0.0.5", "login root@db01": where to log in. After a user the user is
        # given, and "P@ssw0rd2024" is its password: only an address's host ("ann
        # deploy@db01.example.org") is read as one there.
        return True
    if after_user:  # a word and digits, a passphrase: a password
        return (
            _full(_HYPHENATED, value)
            and not _full(_WORD_AND_DIGITS, value)
            and not words_then_number(value)  # a passphrase after the user
        )
    return _full(_IDENTIFIER, value)


def words_then_number(value: str) -> bool:
    """Tell whether ``value`` has a passphrase's shape, not a host's: words of 3+ letters
    joined by "-", a number only at the end and not zero-padded ("blue-sky-42",
    "correct-horse-battery"; "web-01-east" and "app-east-01" are hosts)."""
    *words, last = value.split("-")
    if last.isdigit():
        number_ok = last[0] != "0" and len(last) <= 4
    else:
        words, number_ok = [*words, last], True
    return number_ok and is_passphrase(value) and all(w.isalpha() and len(w) >= 3 for w in words)


_SSH_TARGET: Final = re2.compile(r"[A-Za-z0-9._-]{1,64}@[A-Za-z0-9.-]+(?::[0-9]+)?")
# A host as an address names it: a domain (its last label letters) or an IPv4 address.
_HOST: Final = re2.compile(
    r"(?:[A-Za-z0-9-]+\.)+[A-Za-z][A-Za-z-]*(?::[0-9]+)?|[0-9]{1,3}(?:\.[0-9]{1,3}){3}(?::[0-9]+)?"
)
# A price, a number, a date or a version: "$45/month", "€12.50", "199.99", "v2.3.1".
_AMOUNT: Final = re2.compile(r"[$€£¥]?v?[0-9][0-9.,:/-]*(?:/[a-z]+)?")


def reads_as_no_password(value: str) -> bool:
    """Tell whether a value no word for a password names ("pass is X", "account ann / X",
    "wifi is Net / X") reads as something else: an amount or a version ("$45/month",
    "v2.3.1"), lowercase words and digits joined by "-" ("us-east-1", "2024-ready"), an ARN,
    or capitals and digits joined by "-" (a Wi-Fi mode, "WPA2-PSK"; a code, "A1-B2-C3")."""
    if _full(_AMOUNT, value) or "::" in value:
        return True
    if _full(_HYPHENATED, value):
        return True
    return _full(_CODE, value)


_CODE: Final = re2.compile(r"[A-Z0-9]+(?:-[A-Z0-9]+)+")
# A lowercase word and a year, or a word, "-" or "_" and one digit: "invoices2024",
# "reports-2023", "sprint_4". (A word and one digit glued, "tigers6", is a password's shape
# since rule set 14.)
_WORD_AND_YEAR: Final = re2.compile(r"[a-z]{1,24}(?:[-_]?(?:19|20)[0-9]{2}|[-_][0-9])")
# A lowercase word and a number: <word><digits>, <word>-<digits>, <word>_<digits>.
_WORD_AND_DIGITS: Final = re2.compile(r"[a-z]{3,24}[-_.!]?[0-9]{1,8}")


def word_and_number(value: str) -> bool:
    """Tell whether a value after "account NAME /" (no word for a password, no verb for
    logging in) is a lowercase word and a year, or a word, "-" or "_" and one digit: a
    folder, a report or a period ("account billing / invoices2024", "account ops /
    sprint_4"), which prose names far more often than it hands out such a password. The same
    value after "log in with ann /" goes, and so does a word and any other number ("account
    ann / <word><digits>", "tigers6": :func:`word_and_digits`)."""
    return _full(_WORD_AND_YEAR, value)


def word_and_digits(value: str) -> bool:
    """Tell whether ``value`` is a lowercase word and a number, no year: the shape of a
    password people pick (a pet's name and a digit or two, "tigers6", "tigers-3428"), not an
    id read as words and digits ("us-east-1")."""
    return _full(_WORD_AND_DIGITS, value) and not word_and_number(value)


# A JSON Web Key's public members (RFC 7517/7518): the RSA modulus and exponent, an EC or
# OKP key's coordinates, the certificate thumbprints; right before the value's opening quote.
_PUBLIC_MEMBER: Final = re2.compile(rb"\"(?:n|e|x|y|x5t|x5t#S256)\"[ \t]*:[ \t]*\z")
PUBLIC_MEMBER_READS: Final = 16  # bytes before a value's quote that public_jwk_member reads


def public_jwk_member(buf: bytes, quote: int) -> bool:
    """Tell whether the quoted value whose opening quote is at ``buf[quote]`` is a JSON Web
    Key's public member ("x": "f83OJ3D2..."): a public key, no secret."""
    return _PUBLIC_MEMBER.search(buf[max(quote - PUBLIC_MEMBER_READS, 0) : quote]) is not None


# Words of a phrase that says what a pass is good for ("valid-for-30-days", "one-day-only"),
# which a passphrase after "pass is" holds none of.
_PHRASE_WORDS: Final = frozenset(
    {
        *("for", "the", "and", "per", "one", "two", "day", "days", "week", "weeks", "month"),
        *("months", "year", "years", "only", "not", "off", "all", "any", "valid", "until"),
        *("till", "from", "with", "free", "hour", "hours", "trip", "ride", "rides"),
    }
)


def pass_phrase(value: str) -> bool:
    """Tell whether ``value`` after "pass is" is a passphrase ("the admin pass is
    blue-sky-42"), not what a ticket is good for ("the bus pass is valid-for-30-days")."""
    return is_passphrase(value) and not any(p.lower() in _PHRASE_WORDS for p in value.split("-"))
