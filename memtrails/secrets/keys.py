"""Whether a value stored under a name is a secret: the name decides how much the value must show."""

from __future__ import annotations

import functools
from typing import Final
from urllib.parse import unquote

import re2

from .formats import wordy
from .passes import OPTIONS
from .rules import KEY, NAMED_KEY
from .values import accept_prose, accept_value, is_mask, is_placeholder

__all__ = ["KEY_NAME", "accept_keyed", "accept_query", "is_named_key", "is_random"]

#: A name of a secret, a password or any key (``rules.KEY``).
KEY_NAME: Final = re2.compile(KEY, OPTIONS)
_NAMED: Final = re2.compile(NAMED_KEY, OPTIONS)
# Words before "key" that name a key of a table, a cache or a keyboard, not a credential.
_NOT_CREDENTIALS: Final = frozenset(
    {
        *("primary", "foreign", "sort", "partition", "range", "hash", "row", "composite"),
        *("unique", "cache", "idempotency", "dedup", "lookup", "dict", "map", "index", "hot"),
        *("object", "item", "field", "column", "translation", "i18n", "message", "label"),
        *("public", "pub", "publishable", "group", "route", "react", "query", "sequence"),
        *("registry", "metric", "metrics", "config", "setting", "settings", "file", "path"),
    }
)


def is_named_key(key: str) -> bool:
    """Tell whether ``key`` names a password, a token or a known kind of key (``DB_PASSWORD``,
    ``clientSecret``, ``api_key``), not just any key (``STRIPE_KEY``, ``cacheKey``)."""
    try:
        return _NAMED.fullmatch(key) is not None
    except UnicodeEncodeError:
        return False


_KEY_BYTES: Final = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")


def glued_key_start(buf: bytes, vs: int, ve: int) -> int:
    """Return where a name for a secret glued to the end of a token begins, else ``ve``.

    "Bearer <token>DB_PASSWORD: V": the token's characters run on into the next line's key
    when two secrets are pasted together; the value ends where that key starts, and the
    scan resumes there to read the key and its value.
    """
    if buf[ve : ve + 1] not in (b":", b"="):
        return ve
    t = ve
    while t > vs and ve - t < 64 and buf[t - 1] in _KEY_BYTES:
        t -= 1
    while t < ve and buf[t] not in b"ABCDEFGHIJKLMNOPQRSTUVWXYZ":
        t += 1  # a name starts with a letter
    key = buf[t:ve]
    if t - vs < 16 or b"_" not in key or not is_named_key(key.decode("ascii")):
        return ve
    return t


def _word_before_key(key: str) -> str:
    """Return the word before "key" in a name, lower case: "sort" of "SORT_KEY", "cacheKey"."""
    stem = key[: key.lower().rfind("key")].rstrip("_.-")
    for sep in "_.-":
        stem = stem.rsplit(sep, 1)[-1]
    if not stem.isupper():
        humps = [i for i, c in enumerate(stem) if c.isupper()]
        stem = stem[humps[-1] :] if humps else stem
    return stem.lower()


def is_random(value: str, quoted: bool) -> bool:
    """Tell whether ``value`` is random enough to be a key under any name: 16+ characters
    with letters and digits, not a run of words, a path, a URL, code, a mask or an example."""
    value = value.strip()
    return (
        accept_prose(value, False, quoted)
        and not is_mask(value)
        and not wordy(value.rsplit(".", 1)[-1])
    )


@functools.lru_cache(maxsize=4096)
def accept_keyed(key: str, value: str, quoted: bool) -> bool:
    """Decide whether ``value``, stored under the name ``key``, is a secret.

    Under a name of a password, a token or a known key (:func:`is_named_key`), the value
    check of an assignment (:func:`values.accept_value`); under any other name ending in
    "key", only a random string (:func:`is_random`), and never under the name of a table's,
    a cache's or a dictionary's key (``primary_key``, ``cacheKey``).

    Args:
        key: the name, as written.
        value: the value, without its quotes.
        quoted: the value was quoted.
    """
    low = key.lower()
    if "public" in low:
        return False  # publicKeyToken, public_key: meant to be seen
    if is_named_key(key):
        return accept_value(value, "pass" in low or "pw" in low, quoted)
    try:
        if KEY_NAME.fullmatch(key) is None:
            return False  # <add key="Environment" value="...">: not the name of a secret
    except UnicodeEncodeError:
        return False
    if "key" not in low:  # "auth" alone
        return is_random(value, quoted)
    if _word_before_key(key) in _NOT_CREDENTIALS:
        return False
    return is_random(value, quoted)


def accept_query(key: str, value: str, quoted: bool) -> bool:
    """Decide whether ``value``, a URL query's parameter or a form's field named ``key``, is a
    secret: :func:`accept_keyed` of the value percent-decoded (``%2A%2A%2A`` is a mask), as if
    quoted (a query holds no code: ``ya29.a0Af...`` is a token); under a password's name, a
    short value too, 3+ characters with a digit or a symbol (``?password=a%26b``).

    Args:
        key: the name, as written.
        value: the value, as written (percent-encoded).
        quoted: the value was quoted.
    """
    plain = unquote(value, errors="replace")
    if accept_keyed(key, plain, True):
        return True
    low = key.lower()
    short = len(plain) >= 3 and not plain.isalpha() and not plain.isspace()
    return (
        short and ("pass" in low or "pw" in low) and is_named_key(key) and not is_placeholder(plain)
    )
