"""Secrets known by their format rather than a provider: password hashes, tokens wrapped in
base64, and prefixed tokens of services no rule names (``<prefix>_<random>``)."""

from __future__ import annotations

import base64
import binascii
from itertools import pairwise
from typing import Final

import re2

from .rule import Rule

__all__ = [
    "B64_PREFIXES",
    "FORMAT_RULES",
    "is_random_short",
    "is_random_string",
    "is_random_tail",
    "random_letters",
    "slash_base64",
    "wordy",
]

# Prefixes of tokens whose base64 (a Kubernetes secret's data, a config value encoded once
# more, an Authorization header built by hand) gives them away: a JWT's '{"' ("eyJ"), a PEM
# block, and the providers' prefixes.
_WRAPPED: Final = (
    "eyJ",
    "-----BEGIN",
    "ghp_",
    "gho_",
    "ghs_",
    "github_pat_",
    "glpat-",
    "xoxb-",
    "xoxp-",
    "AKIA",
    "ASIA",
    "AIza",
    "sk-",
    "sk_live_",
    "rk_live_",
    "npm_",
    "pypi-",
    "hf_",
    "SG.",
    "dop_v1_",
    "shpat_",
    "glc_",
)


def _b64_head(prefix: str) -> str:
    """Return the base64 characters that ``prefix`` alone fixes at the start of an encoding."""
    return base64.b64encode(prefix.encode()).decode()[: len(prefix) * 4 // 3]


#: The base64 beginnings of the wrapped prefixes (each fixed by the prefix alone).
B64_PREFIXES: Final = tuple(sorted({_b64_head(p) for p in _WRAPPED}, key=lambda h: (-len(h), h)))

_HASHES = (
    # crypt(3): MD5, SHA-256, SHA-512 (optional rounds), Apache's apr1, bcrypt, yescrypt,
    # scrypt, gost-yescrypt; phpass ($P$, $H$); Drupal 7 ($S$).
    r"\$(?:1|5|6|md5|apr1|sha1)\$(?:rounds=[0-9]{1,9}\$)?[./A-Za-z0-9]{1,16}\$[./A-Za-z0-9]{22,86}"
    r"|\$2[abxy]?\$[0-9]{2}\$[./A-Za-z0-9]{53}"
    r"|\$(?:y|gy|7)\$[./A-Za-z0-9]{1,64}\$[./A-Za-z0-9]{1,64}\$[./A-Za-z0-9]{43}"
    r"|\$[PH]\$[./A-Za-z0-9]{31}|\$S\$[./A-Za-z0-9]{52}"
    # Argon2 and PBKDF2 in the PHC string format; Django's pbkdf2_sha256$...; MySQL's native
    # password hash; LDAP's {SSHA}.
    r"|\$argon2(?:id|i|d)\$v=[0-9]+\$m=[0-9]+,t=[0-9]+,p=[0-9]+\$[A-Za-z0-9+/]{8,}\$[A-Za-z0-9+/]{16,}"
    r"|\$pbkdf2(?:-sha(?:1|256|512))?\$[0-9]+\$[./A-Za-z0-9+]{8,}\$[./A-Za-z0-9+]{16,}"
    r"|pbkdf2_sha(?:1|256)\$[0-9]+\$[A-Za-z0-9]+\$[A-Za-z0-9+/]{40,}={0,2}"
    r"|\*[0-9A-F]{40}|\{(?:SSHA|SSHA256|SSHA512|SMD5|SHA)\}[A-Za-z0-9+/]{20,}={0,2}"
    # Kerberos AS-REP and TGS-REP hashes (hashcat's and John's formats, from roasting).
    r"|\$krb5(?:asrep|tgs|pa)\$[0-9]{1,2}\$[^\s\"'<>]{40,}"
    # PostgreSQL's SCRAM-SHA-256 verifier (pg_authid, pgbouncer's userlist.txt).
    r"|SCRAM-SHA-256\$[0-9]{1,7}:[A-Za-z0-9+/]{8,}={0,2}\$[A-Za-z0-9+/]{16,}={0,2}:[A-Za-z0-9+/]{16,}={0,2}"
)

#: The rules of the formats, in priority order (after the providers': their kinds win).
FORMAT_RULES: Final[tuple[Rule, ...]] = (
    Rule(
        "password_hash",
        "password-hash",
        rf"(?:^|[^A-Za-z0-9$./*])(?P<v>{_HASHES})"
        r"|(?P<v2>[0-9a-fA-F]{32}:[0-9a-fA-F]{32}):::"  # pwdump's user:rid:LM:NT:::
        # PostgreSQL's md5 hash of password and user ("md5" + 32 hex), on its own.
        r"|(?:^|[^A-Za-z0-9_$./*-])(?P<v3>md5[0-9a-f]{32})(?:[^A-Za-z0-9_]|\z)",
        "tokens",
    ),
    # Base64 of a token: decoded, it must hold a token of a known format (the engine's "b64"
    # check runs the token rules over it), which gives the marker its kind.
    Rule(
        "base64_token",
        "jwt",
        rf"(?:^|[^A-Za-z0-9+/])(?P<v>(?:{'|'.join(B64_PREFIXES)})[A-Za-z0-9+/]{{16,}}={{0,2}})"
        r"(?:[^A-Za-z0-9+/=]|\z)",
        "tokens",
        "b64",
    ),
    # A token of a service no rule names: a lower-case prefix of a few words joined by "_",
    # then 20+ random characters of mixed case with a digit ("acme_a1B2c3...",
    # "zl_live_Zx9Q..."). Its check (is_random_tail) tells a random string from an identifier
    # made of words, and leaves prefixes that a provider's rule owns to that rule.
    Rule(
        "prefixed_token",
        "token",
        r"\b(?P<v>[a-z][a-z0-9]{1,9}(?:_[a-z0-9]{1,10})?_[A-Za-z0-9]{20,80})"
        r"(?:[^A-Za-z0-9_+/=-]|\z)",
        "unknown",
        "random",
    ),
    # A quoted string of 20 to 64 random characters on its own: a key handed to a constructor
    # or a command without a name before it ("mite 'V' 'host'", new Client("V", "eu")). Its check
    # (is_random_string) asks for digits and both cases, and no words.
    Rule(
        "quoted_random",
        "token",
        r"(?:^|[^A-Za-z0-9_\\])[\"'`](?P<v>[A-Za-z0-9][A-Za-z0-9_-]{18,62}[A-Za-z0-9])[\"'`]",
        "unknown",
        "random_string",
    ),
)

# Prefixes whose tokens a provider's rule knows the exact shape of: a near-miss of that
# shape (cut short, the wrong length) is not a token of an unknown service.
_OWNED: Final = frozenset(
    {
        *(b"ghp", b"gho", b"ghu", b"ghs", b"ghr", b"github", b"glpat", b"sk", b"rk", b"pk"),
        *(b"whsec", b"npm", b"pypi", b"hf", b"api", b"gsk", b"r8", b"lsv2", b"fw", b"dop"),
        *(b"doo", b"dor", b"sbp", b"lin", b"sgp", b"pscale", b"pnu", b"rdme", b"nfp", b"rzp"),
        *(b"duffel", b"live", b"shippo", b"sm", b"rnd", b"bkua", b"figd", b"dckr", b"rubygems"),
        *(b"shpat", b"shpca", b"shppa", b"shpss", b"ntn", b"secret", b"sntrys", b"sntryu"),
        *(b"glc", b"glsa", b"fo1", b"vcp", b"vci", b"vca", b"vcr", b"vck", b"odt", b"jina"),
        *(b"sqp", b"squ", b"sqa", b"access", b"sdk", b"mob", b"test", b"prod", b"dev"),
    }
)


_RUNS: Final = (b"0123", b"1234", b"abcd", b"ABCD", b"6789", b"wxyz", b"WXYZ")


def is_random_string(value: bytes) -> bool:
    """Tell whether a string with no name before it is random: two or more digits, upper-
    and lower-case letters, not :func:`wordy`, no part between ``_``/``-`` that is a word."""
    digits = sum(48 <= c <= 57 for c in value)
    upper = sum(65 <= c <= 90 for c in value)
    lower = sum(97 <= c <= 122 for c in value)
    if digits < 2 or upper < 2 or lower < 2:
        return False
    parts = [p for p in value.replace(b"-", b"_").split(b"_") if p]
    if len(parts) > 1 and all(p.isalpha() or p.isdigit() for p in parts):
        return False  # snake_case words: "send_message_v2"
    if len(parts) >= 4 and sum(p.isalpha() and len(p) >= 3 for p in parts) * 2 >= len(parts):
        return False  # "test_nllloss_NCd1d2_with_weight", "Cryptography_HAS_TLSv1_3_FUNCTIONS"
    if any(run in value for run in _RUNS):
        return False  # an alphabet written out: "0123456789ABCDEFabcdef"
    if _decodes_to_prose(value):
        return False  # base64 of a sentence
    return not wordy(value.decode("ascii"), common=False)


def is_random_short(value: bytes) -> bool:
    """Tell whether a token with a short prefix (Vault's "s.", Yandex's "YC") is random after
    it: a digit, upper- and lower-case letters, not :func:`wordy` ("s.getDefaultSerializer")."""
    body = value[2:].lstrip(b"._")
    digits = any(48 <= c <= 57 for c in body)
    upper = any(65 <= c <= 90 for c in body)
    lower = any(97 <= c <= 122 for c in body)
    return digits and upper and lower and not wordy(body.decode("ascii"))


def _decodes_to_prose(value: bytes) -> bool:
    try:
        plain = base64.b64decode(value + b"=" * (-len(value) % 4), validate=True)
    except (binascii.Error, ValueError):
        return False
    return b" " in plain and plain.isascii() and plain.decode("ascii").isprintable()


def is_random_tail(value: bytes) -> bool:
    """Tell whether the part after a token's last ``_`` is random, not words.

    It must hold an upper-case and a lower-case letter and a digit, and not be
    :func:`wordy` ("getUserAccountSettings2" is).
    """
    head, _, _ = value.partition(b"_")
    if head in _OWNED or head[:2] in (b"gh", b"gl") or head.startswith((b"sha", b"md5", b"crc")):
        return False  # a provider's near-miss, or a digest named by its algorithm
    tail = value.rsplit(b"_", 1)[-1]
    if not (
        tail.upper() != tail and tail.lower() != tail and any(c in b"0123456789" for c in tail)
    ):
        return False
    return not wordy(tail.decode("ascii", "replace"), common=False)


_HUMP: Final = re2.compile(r"[A-Z][a-z]{2,}|(?:^|[_-])[a-z]{3,}")
_NO_VOWEL_RUN: Final = re2.compile(r"[^aeiouy]{5}")


# Words that names of types, functions and variables are made of: a hump that is one of them
# says the humps around it are words too.
_NAME_WORDS: Final = frozenset(
    {
        *("private", "public", "key", "keys", "type", "types", "token", "tokens", "secret"),
        *("account", "user", "users", "settings", "setting", "button", "authorization", "auth"),
        *("provider", "credential", "credentials", "storage", "request", "response", "handler"),
        *("manager", "config", "service", "client", "server", "string", "value", "values"),
        *("name", "data", "list", "map", "error", "result", "context", "session", "password"),
        *("get", "set", "add", "new", "create", "update", "delete", "load", "save", "read"),
        *("write", "open", "close", "file", "path", "item", "items", "view", "model", "store"),
        *("event", "state", "options", "option", "info", "image", "text", "message", "index"),
        *("page", "table", "record", "cache", "query", "field", "object", "array", "factory"),
        *("builder", "helper", "util", "utils", "test", "base", "default", "vocabulary", "id"),
        *("signature", "certificate", "cipher", "hash", "digest", "algorithm", "encoder"),
        *("decoder", "parser", "reader", "writer", "stream", "buffer", "entry", "group", "node"),
    }
)


def wordy(text: str, common: bool = True) -> bool:
    """Tell whether ``text`` is a name made of words ("Ed25519PrivateKey",
    "PydanticDeprecatedSince20", "all-MiniLM-L6-v2-fused"): two or more humps (a capital and
    two or more lower-case letters, or a lower-case word at the start or after ``_``/``-``)
    that read like words (a vowel, no five consonants in a row), holding 60% of its letters
    or more; with ``common``, one of them a common word of names too. Of random strings of
    62 characters, under one in a hundred has such humps, and almost none a common word."""
    if not text.isascii():
        return False
    humps = [
        h.lower().lstrip("_-")
        for h in _HUMP.findall(text)
        if any(c in "aeiouy" for c in h.lower()) and _NO_VOWEL_RUN.search(h.lower()) is None
    ]
    letters = sum(c.isalpha() for c in text)
    return (
        len(humps) >= 2
        and sum(map(len, humps)) * 10 >= letters * 6
        and (not common or any(h in _NAME_WORDS for h in humps))
    )


# Base64 that starts with "/": its alphabet only, 24+ characters.
_BASE64_RUN: Final = re2.compile(r"/[A-Za-z0-9+/]{23,}={0,2}")


def slash_base64(value: str) -> bool:
    """Tell whether ``value``, starting with "/", is base64 rather than a path: padded and
    32+ characters, or base64's alphabet only, three "/" at most, with a part between them
    of 12+ characters holding a digit and both cases ("/k0XRNHRkNNlY0z+MNeo1p4E..."; not
    "/home/ann/projects/x")."""
    if len(value) >= 32 and "=" in value[-2:]:
        return True
    if value.count("/") > 3 or not value.isascii() or _BASE64_RUN.fullmatch(value) is None:
        return False  # a path's parts, or characters base64 has not
    return any(
        len(part) >= 12
        and any(map(str.isdigit, part))
        and part.lower() != part
        and part.upper() != part
        and not wordy(part, common=False)
        for part in value.split("/")
    )


def random_letters(part: str) -> bool:
    """Tell whether a part of letters only is random, not a word or a name of words: 12+
    letters of both cases, the case changing often ("RZCBUIkFGdwXGVowtYFcCu"), not
    :func:`wordy` ("XMLHttpRequestHandler")."""
    if len(part) < 12 or part.isupper() or part.islower() or not part.isascii():
        return False
    changes = sum(a.isupper() != b.isupper() for a, b in pairwise(part))
    return changes * 4 >= len(part) and not wordy(part, common=False)
