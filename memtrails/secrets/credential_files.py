"""Files whose lines are credentials by their place, once the text names the file:
pgbouncer's userlist (``"user" "password"``), pppd's chap-secrets and pap-secrets
(``client server secret IP``; a line of them with the client and the secret quoted goes
without the name, rule set 14), OpenVPN's auth-user-pass file (a user's line, then a
password's); rsync's secrets, Postfix's sasl_passwd, exim's passwd.client, davfs2's
secrets and s3fs' passwd file (rule set 12). No word names the password on these lines, so the file's name must stand
before them in the same text."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Final

import re2

from .values import accept_prose, is_placeholder

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
# The same files' lines with the client and the secret quoted and one address at least
# ('"ann" * "X" *', '"bob" pptpd "X" 10.0.0.2'): a shape no sentence or code has, taken
# without the file's name before it (rule set 14).
_PPP_QUOTED_LINE: Final = re2.compile(
    rb"(?m)^[ \t]*\"[^\"\s]{1,64}\"[ \t]+(?:\*|\"\*\"|[A-Za-z0-9._-]{1,64}|\"[^\"\s]{1,64}\")"
    rb"[ \t]+\"([^\"\s]{4,128})\"(?:[ \t]+" + _ADDRESS + rb")+[ \t]*\r?$"
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


# Files of one credential a line (rule set 12), each after its name: rsync's secrets file
# ("user:password"), Postfix's sasl_passwd ("[relay]:587 user:password"), exim's
# passwd.client ("host:user:password"), davfs2's secrets ("url user password") and s3fs'
# passwd file ("ACCESS_KEY:SECRET", perhaps after the bucket).
# A password of a line of its own holds a digit or a symbol (the check asks the same: no line
# of words after the file's name costs a Python step).
_MARKED: Final = rb"[^\s:\"]{0,127}[0-9!#$%&*+=?@^~_|\\][^\s\"]{0,127}"
_LINE_FILES: Final = (
    (
        (b"rsyncd.secrets", b"rsync.secrets", b"rsyncd.scrt"),
        re2.compile(rb"(?m)^[ \t]*@?[A-Za-z0-9._-]{1,32}:(" + _MARKED + rb")[ \t]*\r?$"),
        True,
    ),
    (
        (b"sasl_passwd",),
        re2.compile(
            rb"(?m)^[ \t]*(?:\[[^\]\s]+\]|[A-Za-z0-9.-]+\.[A-Za-z]{2,})(?::[0-9]{1,5})?"
            rb"[ \t]+[^\s:]{1,128}:(\S{1,128})[ \t]*\r?$"
        ),
        False,
    ),
    (
        (b"passwd.client",),
        re2.compile(rb"(?m)^[ \t]*[^\s:#]{1,255}:[^\s:]{1,128}:(\S{4,128})[ \t]*\r?$"),
        True,
    ),
    (
        (b"davfs2",),
        re2.compile(
            rb"(?m)^[ \t]*(?:https?://\S+|/\S+)[ \t]+(?:\"[^\"\r\n]*\"|[^\s\"]+)[ \t]+"
            rb"(\"[^\"\r\n]*\"|" + _MARKED + rb")[ \t]*\r?$"
        ),
        True,  # an fstab line ("/mnt/dav user noauto") has the same shape
    ),
    (
        (b"passwd-s3fs",),
        re2.compile(
            rb"(?m)^[ \t]*(?:[A-Za-z0-9._-]{3,63}:)?[A-Z0-9]{16,128}:([A-Za-z0-9+/=]{20,128})"
            rb"[ \t]*\r?$"
        ),
        False,
    ),
)

# Any of the names: one DFA pass over a text that names none (most), not a search for each.
_ANY_NAME: Final = re2.compile(
    rb"userlist|auth_file|chap-secrets|pap-secrets|auth-user-pass|openvpn|OpenVPN|ovpn"
    rb"|rsyncd?\.s|sasl_passwd|passwd\.client|davfs2|passwd-s3fs"
    rb"|\"[ \t]+(?:\*|\"\*\"|[A-Za-z0-9._-]{1,64}|\"[^\"\s]{1,64}\")[ \t]+\""  # a quoted ppp line
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
    if start < 0:
        for m in _PPP_QUOTED_LINE.finditer(buf):
            value = buf[m.start(1) : m.end(1)].decode("utf-8", "replace")
            if accept_prose(value, True, False) and not is_placeholder(value):
                yield m.span(1)
    else:
        for m in _PPP_LINE.finditer(buf, start):
            s, e = m.span(1) if m.start(1) >= 0 else m.span(2)
            quoted = buf[s : s + 1] == b'"'
            value = buf[s + quoted : e - quoted]
            if value and value != b"*" and not is_placeholder(value.decode("utf-8", "replace")):
                yield (s + quoted, e - quoted)
    for names, line, checked in _LINE_FILES:
        start = _first(buf, names)
        if start < 0:
            continue
        for m in line.finditer(buf, start):
            s, e = m.span(1)
            quoted = buf[s : s + 1] == b'"' and e - s >= 2
            value = buf[s + quoted : e - quoted].decode("utf-8", "replace")
            # Lines that only share the shape ("12:30:45", "Note:see-below") after the name:
            # a password of a line of its own wants what a password in prose does.
            if checked and not accept_prose(value, True, False):
                continue
            if len(value) >= 4 and not is_placeholder(value):
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
