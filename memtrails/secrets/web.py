"""Secrets of web sessions as browsers and proxies record them (rule set 9).

A HAR file (a browser's "Save all as HAR", a proxy's export) lists cookies and headers as
JSON objects of their own: ``{"name": "session", "value": "...", "path": "/"}``. The name
says whether the value opens a session; the value is a secret when it reads random.
"""

from __future__ import annotations

from typing import Final
from urllib.parse import unquote_to_bytes

import re2

from .rule import Rule
from .spans import Span
from .values import is_placeholder

__all__ = ["SESSION_NAME", "WEB_RULES", "cookie_values"]

#: A cookie's or a parameter's name that says its value opens a session or proves one:
#: session, sid, connect.sid, JSESSIONID, _gh_sess, csrftoken, XSRF-TOKEN, remember_token,
#: __Secure-next-auth.session-token, auth, SSID, a JWT's.
SESSION_NAME: Final = (
    r"[A-Za-z0-9_.:-]{0,40}(?i:sess|sid|token|auth|csrf|xsrf|jwt|remember|login|secret"
    r"|passw|api[_-]?key|apikey|credential)[A-Za-z0-9_.:-]{0,40}"
)
# Another field of the same JSON object between the name and the value (path, domain,
# expires, httpOnly, secure, sameSite, size), up to six of them.
_FIELD = r"\"[A-Za-z]{1,20}\"[ \t]*:[ \t]*(?:\"[^\"\\\r\n]*\"|true|false|null|-?[0-9.]+)"
_BETWEEN = rf"[ \t\r\n]*,[ \t\r\n]*(?:{_FIELD}[ \t\r\n]*,[ \t\r\n]*){{0,6}}"
# A session's value: 12+ characters of a cookie's, no spaces or quotes (the check wants letters
# and digits: random, not a word or a number).
_VALUE = r"[A-Za-z0-9%._~+/:=*-]{12,}"

# Where a cookie header's pairs start: a Cookie or Set-Cookie header (in a JSON or a repr
# too), a HAR header object's value, curl's -b/--cookie, document.cookie = '...'.
_COOKIE_HEADER = (
    r"(?:\b(?i:set-cookie2?|cookie)['\"]?[ \t]*:[ \t]*['\"]?"
    r"|\"(?i:set-cookie|cookie)\"[ \t]*,[ \t\r\n]*\"value\"[ \t]*:[ \t]*\""
    r"|\bcurl\b[^\r\n]{0,300}?[ \t](?:-b|--cookie)(?:[ \t]+|=)['\"]?"
    r"|\bdocument\.cookie[ \t]*=[ \t]*['\"`])"
)
# One pair of a cookie header: its name, then its value (perhaps quoted).
# (Values under 6 characters are no match: a header of a thousand "lang=en" pairs costs the
# scan, not a Python step per pair.)
_PAIR: Final = re2.compile(rb"(?:\A|;)[ \t]*([^\s=;,\"']{1,80})=(\"?)([^\s;,\"']{6,})")
_SESSION: Final = re2.compile(SESSION_NAME.encode())
# A Set-Cookie header's attributes, which are no cookies.
_ATTRIBUTES: Final = frozenset(
    b"path domain expires max-age samesite secure httponly priority partitioned version"
    b" comment".split()
)
# Analytics' and consent managers' cookies: ids that open no session (Google's "GA1.2.N.N").
_ANALYTICS: Final = (b"GA1.", b"GS1.", b"GS2.", b"fb.1.", b"fb.2.", b"amp-")


def cookie_values(buf: bytes, start: int, end: int, kind: str) -> list[Span]:
    """Return the spans of the secret values among the cookie pairs in ``buf[start:end]``.

    A cookie named like a session, a token or a CSRF value (``sid``, ``sessionid``,
    ``csrftoken``, ``auth``) is a secret when its value has 6+ characters with letters and
    digits (16+ of both cases will do without digits); any other cookie when its value has
    16+ with letters and digits and is no analytics id. Deleted or placeholder values stay.
    """
    out: list[Span] = []
    for m in _PAIR.finditer(buf[start:end]):
        name, vs, ve = m.group(1), start + m.start(3), start + m.end(3)
        value = unquote_to_bytes(buf[vs:ve])
        if name.lower() in _ATTRIBUTES or len(value) < 6 or value.startswith(_ANALYTICS):
            continue
        digits = any(c in b"0123456789" for c in value)
        letters = value.lower() != value.upper()
        session = _SESSION.fullmatch(name) is not None
        mixed = value.lower() != value and value.upper() != value
        if not letters or (not digits and not (session and mixed and len(value) >= 16)):
            continue
        if (session or len(value) >= 16) and not is_placeholder(value.decode("utf-8", "replace")):
            out.append((vs, ve, kind))
    return out


WEB_RULES: Final[tuple[Rule, ...]] = (
    # The values of a cookie header's pairs: those named like a session, and random ones
    # (web.cookie_values decides; rule set 10: a short session id, every pair, curl's -b).
    Rule(
        "cookie",
        "password",
        rf"{_COOKIE_HEADER}(?P<v>[^\r\n'\"`]+)",
        "headers",
        "cookies",
    ),
    # {"name": "session", "value": "..."} or {"value": "...", "name": "session"}, with other
    # fields of the object between them.
    Rule(
        "har_session",
        "password",
        rf"\"name\"[ \t]*:[ \t]*\"{SESSION_NAME}\"{_BETWEEN}\"value\"[ \t]*:[ \t]*\"(?P<v>{_VALUE})\""
        rf"|\"value\"[ \t]*:[ \t]*\"(?P<v2>{_VALUE})\"{_BETWEEN}\"name\"[ \t]*:[ \t]*\"{SESSION_NAME}\"",
        "headers",
        "alnum",
    ),
)
