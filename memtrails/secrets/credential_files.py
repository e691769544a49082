"""Files whose lines are credentials by their place, once the text names the file:
pgbouncer's userlist (``"user" "password"``), pppd's chap-secrets and pap-secrets
(``client server secret IP``) and OpenVPN's auth-user-pass file (a user's line, then a
password's). No word names the password on these lines, so the file's name must stand
before them in the same text."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Final

import re2

from .values import is_placeholder

__all__ = ["credential_file_values"]

# pgbouncer's auth_file: a line of two quoted strings (a quote inside doubled).
_USERLIST_NAMES: Final = (b"userlist", b"auth_file")
_USERLIST_LINE: Final = re2.compile(
    rb"(?m)^[ \t]*\"(?:[^\"\r\n]|\"\")+\"[ \t]+\"((?:[^\"\r\n]|\"\")+)\"[ \t]*\r?$"
)
# A SCRAM verifier or an md5 hash: the password-hash rule's, not a password's.
_HASHED: Final = (b"md5", b"SCRAM-SHA-256$")

# pppd's secrets files: client, server, secret, then the allowed addresses (or none).
_PPP_NAMES: Final = (b"chap-secrets", b"pap-secrets")
_FIELD = rb"(?:\"[^\"\r\n]*\"|[^\s\"#][^\s\"]*)"
_ADDRESS = rb"\"?!?(?:\*|-|[0-9]{1,3}(?:\.[0-9]{1,3}){3}(?:/[0-9]{1,2})?)\"?"
# The server "*" and the addresses optional, or any server and one address at least: the
# shape alone ("a b c" is a sentence's words), so that no line costs a Python check.
_PPP_LINE: Final = re2.compile(
    rb"(?m)^[ \t]*" + _FIELD + rb"[ \t]+(?:(?:\*|\"\*\")[ \t]+(" + _FIELD + rb")"
    rb"(?:[ \t]+" + _ADDRESS + rb")*"
    rb"|" + _FIELD + rb"[ \t]+(" + _FIELD + rb")(?:[ \t]+" + _ADDRESS + rb")+)[ \t]*\r?$"
)

# OpenVPN's auth-user-pass file: its name ending a line ("cat /etc/openvpn/auth.txt",
# "auth.txt:", "==> vpn.pass <=="), the user's line, the password's line, then the text's
# end, a blank line, a code fence or a prompt; or the inline <auth-user-pass> block.
_OPENVPN_NAMES: Final = (b"auth-user-pass", b"openvpn", b"OpenVPN", b"ovpn")
_AUTH_FILE: Final = re2.compile(
    rb"(?m)(?:^[ \t]*<auth-user-pass>"
    rb"|^[^\r\n]*?(?:\bauth\.txt|[A-Za-z0-9_-]\.pass|\bcredentials(?:\.txt)?)[`'\"]?[ \t]*:?"
    rb"(?:[ \t]*<==)?[ \t]*(?:```)?)[ \t]*\r?\n(?:[ \t]*```[A-Za-z]*[ \t]*\r?\n)?"
    rb"[ \t]*([^\s<>`]{1,64})[ \t]*\r?\n[ \t]*([^\s<>`]{1,128})[ \t]*"
    rb"(?:\r?\n[ \t]*(?:\r?\n|</auth-user-pass>|```|\$ |# |> )|\r?\n?\z)"
)


# Any of the names: one DFA pass over a text that names none (most), not a search for each.
_ANY_NAME: Final = re2.compile(
    rb"userlist|auth_file|chap-secrets|pap-secrets|auth-user-pass|openvpn|OpenVPN|ovpn"
)


def credential_file_values(buf: bytes) -> Iterator[tuple[int, int]]:
    """Yield the passwords (start, end) of the credential files UTF-8 ``buf`` holds after
    their names (see the module's docstring)."""
    if _ANY_NAME.search(buf) is None:
        return
    start = _first(buf, _USERLIST_NAMES)
    if start >= 0:
        for m in _USERLIST_LINE.finditer(buf, start):
            value = m.group(1)
            if not value.startswith(_HASHED) and not is_placeholder(
                value.decode("utf-8", "replace")
            ):
                yield m.span(1)
    start = _first(buf, _PPP_NAMES)
    if start >= 0:
        for m in _PPP_LINE.finditer(buf, start):
            s, e = m.span(1) if m.start(1) >= 0 else m.span(2)
            quoted = buf[s : s + 1] == b'"'
            value = buf[s + quoted : e - quoted]
            if value and value != b"*" and not is_placeholder(value.decode("utf-8", "replace")):
                yield (s + quoted, e - quoted)
    if _first(buf, _OPENVPN_NAMES) >= 0:
        for m in _AUTH_FILE.finditer(buf):
            user, password = m.group(1, 2)
            if not any(is_placeholder(v.decode("utf-8", "replace")) for v in (user, password)):
                yield m.span(2)


def _first(buf: bytes, names: tuple[bytes, ...]) -> int:
    """Return where the first of ``names`` stands in ``buf`` (-1: none)."""
    found = [i for i in (buf.find(name) for name in names) if i >= 0]
    return min(found) if found else -1
