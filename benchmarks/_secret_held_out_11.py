"""Held-out contexts for ``secret_survivors.py`` (rule set 11): shapes that survived rule set 10.

Passwords named by their context only ("pass is X", "the password's X", an account's user
or a Wi-Fi network, "/", the password), pgbouncer's userlist lines (plain, md5 and SCRAM),
OpenVPN's auth-user-pass file and pppd's chap-secrets and pap-secrets lines, each after the
file's name. Each returns the text and the secret in it. ``NEAR_MISSES_11`` are the same
shapes without a secret, and the false alarms of rule set 10 (ids after "login", a JSON Web
Key's public members). Not a package module.
"""

from __future__ import annotations

from collections.abc import Callable

from _secret_families import ALNUM, B64, HEX, URLSAFE, Gen

__all__ = ["HELD_OUT_11", "NEAR_MISSES_11"]

Made = tuple[str, str]  # (text, secret)


def _password(g: Gen) -> str:
    """A password with a digit or a symbol, no quotes, spaces or slashes."""
    return g.password_without("\"'\\`/ \t")


def _context_named(g: Gen) -> Made:
    p = _password(g)
    form = g.pick(
        [
            "pass is {p}",
            "[10:02] ann: the db pass is {p}",
            "the password's {p}",
            "ok, root password's {p} for now",
            "account {u} / {p}",
            "the shared account is {u} / {p}",
            "wifi is {n} / {p}",
            "Guest WiFi: {n} / {p}",
            "ssid {n} / {p}",
        ]
    )
    user = g.pick(["ann", "admin", "deploy", "ops@example.com"])
    net = g.pick(["CoffeeNet", "Office-5G", "HOME_2G", "guest"])
    return form.format(p=p, u=user, n=net), p


def _userlist(g: Gen) -> Made:
    user = g.pick(["app", "ann", "pgbouncer", "report_ro"])
    kind = g.pick(["plain", "md5", "scram"])
    if kind == "plain":
        secret = _password(g)
    elif kind == "md5":
        secret = "md5" + g.s(HEX, 32)
    else:
        salt, stored, server = g.s(B64, 22) + "==", g.s(B64, 43) + "=", g.s(B64, 43) + "="
        secret = f"SCRAM-SHA-256$4096:{salt}${stored}:{server}"
    head = g.pick(
        [
            "$ sudo cat /etc/pgbouncer/userlist.txt\n",
            "auth_type = md5\nauth_file = /etc/pgbouncer/userlist.txt\n\n# userlist.txt\n",
            "userlist.txt:\n",
        ]
    )
    return f'{head}"postgres" "{_password(g)}"\n"{user}" "{secret}"\n', secret


def _openvpn(g: Gen) -> Made:
    user, p = g.pick(["ann", "vpnuser01", "ann@corp.example"]), _password(g)
    form = g.pick(
        [
            "openvpn --config corp.ovpn --auth-user-pass /etc/openvpn/auth.txt\n"
            "$ cat /etc/openvpn/auth.txt\n{u}\n{p}\n$ ",
            "OpenVPN: the creds file, vpn.pass:\n```\n{u}\n{p}\n```",
            "client\nremote vpn.example.com 1194\n<auth-user-pass>\n{u}\n{p}\n</auth-user-pass>",
        ]
    )
    return form.format(u=user, p=p), p


def _ppp(g: Gen) -> Made:
    p = _password(g).lstrip("#") or g.s(ALNUM, 10)  # pppd reads a "#" as a comment's start
    line = g.pick(
        [
            "{u}\t*\t{p}\t*",
            '"{u}"\tpptpd\t"{p}"\t10.0.0.{n}',
            "{u} l2tpd {p} 192.168.7.0/24",
        ]
    ).format(u=g.pick(["ann", "modem", "vpn1"]), p=p, n=g.rng.randint(2, 250))
    head = g.pick(
        [
            "# /etc/ppp/chap-secrets\n# client\tserver\tsecret\t\tIP addresses\n",
            "$ cat /etc/ppp/pap-secrets\n",
        ]
    )
    return head + line + "\n", p


HELD_OUT_11: dict[str, Callable[[Gen], Made]] = {
    "context-named-password": _context_named,
    "pgbouncer-userlist": _userlist,
    "openvpn-auth-file": _openvpn,
    "ppp-secrets": _ppp,
}

_X, _Y = Gen(11).s(URLSAFE, 43), Gen(12).s(URLSAFE, 43)
#: The same shapes without a secret: they must come out as they went in.
NEAR_MISSES_11: tuple[str, ...] = (
    "the boarding pass is in my bag",
    "account 4711 / 2024 statement attached",
    "wifi is flaky / slow again",
    "accounts payable / receivable",
    "ann@example.com's password's length is fine",
    "check userlist.txt and reload pgbouncer\nSHOW USERS;",
    "auth_file = /etc/pgbouncer/userlist.txt\nauth_type = scram-sha-256",
    "chap-secrets is empty\n# client server secret IP addresses",
    "openvpn --auth-user-pass auth.txt\nremote vpn.example.com 1194\nproto udp\n",
    "login ann x1-y2-z3-the-id",
    "login to server01",
    "login server01 gpu-02",
    "please login to db01.prod first",
    f'{{"kty":"EC","crv":"P-256","x":"{_X}","y":"{_Y}","kid":"k1"}}',
    f'{{"crv": "Ed25519", "kty": "OKP", "x": "{_X}"}}',
    "md5sum " + Gen(13).s(HEX, 32) + "  backup.tgz",
    "SCRAM-SHA-256 is the default password_encryption since PostgreSQL 14",
)
