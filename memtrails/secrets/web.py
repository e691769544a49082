"""Secrets of web sessions as browsers and proxies record them (rule set 9).

A HAR file (a browser's "Save all as HAR", a proxy's export) lists cookies and headers as
JSON objects of their own: ``{"name": "session", "value": "...", "path": "/"}``. The name
says whether the value opens a session; the value is a secret when it reads random.
"""

from __future__ import annotations

from typing import Final

from .rule import Rule

__all__ = ["SESSION_NAME", "WEB_RULES"]

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

WEB_RULES: Final[tuple[Rule, ...]] = (
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
