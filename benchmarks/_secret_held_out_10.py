"""Held-out contexts for ``secret_survivors.py`` (rule set 10): shapes that survived rule set 9.

SMTP's AUTH PLAIN in quoted or logged transcripts, a user and its password in chat, short
session cookies, Sentry DSNs, the middle of a private key's PEM block (neither BEGIN nor END
line), passwords that clients take in a fixed place (SNMP communities, openssl -k,
ssh-keygen -N, mosquitto -P, the macOS keychain, FreeRDP, schtasks, lftp, curl -U, Go's
MySQL DSN, ngrok, IPsec PSK, POP3/FTP PASS, htpasswd -i, docker secret create) and a JSON Web
Key's private exponent. Each returns the text and the secret in it. ``NEAR_MISSES_10`` are
the same shapes without a secret. Not a package module.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Callable

from _secret_families import ALNUM, B64, HEX, URLSAFE, Gen

__all__ = ["HELD_OUT_10", "NEAR_MISSES_10"]

Made = tuple[str, str]  # (text, secret)


def _password(g: Gen) -> str:
    """A password with a digit or a symbol, no quotes or shell metacharacters."""
    return g.password_without("\"'\\$!`|&;<>()#*?~ ,/%")


def _smtp_auth(g: Gen) -> Made:
    user = g.pick(["ann", "bob@example.com", "noreply@shop.example"])
    value = base64.b64encode(f"\0{user}\0{_password(g)}".encode()).decode()
    form = g.pick(
        [
            "> C: AUTH PLAIN {v}\n> S: 235 2.7.0 Authentication successful",
            "send: 'AUTH PLAIN {v}\\r\\n'\nreply: b'235 2.7.0 Accepted'",
            "[C] EHLO client.example\n[S] 250-AUTH PLAIN LOGIN\n[C] AUTH PLAIN {v}",
            "2026-01-05 10:02:11 smtp.debug >>> AUTH PLAIN {v}",
        ]
    )
    return form.format(v=value), value


def _chat_creds(g: Gen) -> Made:
    p = _password(g)
    form = g.pick(
        [
            "creds are {u} / {p}",
            "creds for the staging grafana: {u} / {p}",
            "login {u} {p}",
            "user/pass: {u} / {p}",
            "username {u} pass {p}",
            "creds: `{u}`, `{p}`",
            "[09:14] bob: creds — {u} / {p}",
        ]
    )
    return form.format(u=g.pick(["ann", "admin", "deploy", "ci-bot"]), p=p), p


def _short_cookie(g: Gen) -> Made:
    name = g.pick(["sid", "sessionid", "session", "auth", "csrftoken", "_app_session", "token"])
    value = g.s(ALNUM, g.rng.randint(8, 15))
    form = g.pick(
        [
            "Cookie: theme=dark; {n}={v}; lang=en",
            "< Set-Cookie: {n}={v}; Path=/; HttpOnly; SameSite=Lax",
            "curl -b '{n}={v}' https://app.example.com/api/me",
            "GET /account HTTP/1.1\nHost: shop.example\nCookie: {n}={v}",
        ]
    )
    return form.format(n=name, v=value), value


def _sentry_dsn(g: Gen) -> Made:
    key = g.s(HEX, 32)
    org, project = g.digits(6), g.digits(7)
    form = g.pick(
        [
            "SENTRY_DSN=https://{k}@o{o}.ingest.sentry.io/{p}",
            'sentry_sdk.init(dsn="https://{k}@o{o}.ingest.us.sentry.io/{p}", traces_sample_rate=0.1)',
            "Raven.config('https://{k}:{s}@sentry.io/{p}').install();",
            '{{"dsn": "https:\\/\\/{k}@sentry.internal.example\\/{p}"}}',
        ]
    )
    return form.format(k=key, s=g.s(HEX, 32), o=org, p=project), key


def _pem_middle(g: Gen) -> Made:
    lines = [g.s(B64, 64) for _ in range(g.rng.randint(3, 9))]
    body = "\n".join(lines)
    form = g.pick(
        [
            "(2/3)\n{b}\n",
            "On Tue, Bob wrote:\n> {q}\n>\n> cheers",
            "the key continues:\n{b}\n(rest in the next message)",
        ]
    )
    return form.format(b=body, q=body.replace("\n", "\n> ")), lines[1]


def _client(g: Gen) -> Made:
    p = _password(g)
    token = g.s(URLSAFE, 40)
    form = g.pick(
        [
            "snmpwalk -v2c -c {p} 10.0.0.1 system",
            "rocommunity {p} 10.0.0.0/24",
            "openssl enc -aes-256-cbc -salt -in a.tar -out a.enc -k {p}",
            "ssh-keygen -t ed25519 -N '{p}' -f ~/.ssh/deploy",
            "mosquitto_pub -h broker -u ann -P {p} -t a/b -m hi",
            "security add-generic-password -a ann -s deploy -w {p}",
            "xfreerdp /u:ann /p:{p} /v:10.0.0.5",
            "schtasks /create /tn backup /tr c:\\b.bat /ru CORP\\svc /rp {p} /sc daily",
            "lftp -u ann,{p} ftp.example.com",
            "curl --proxy-user ann:{p} -x http://proxy:3128 https://x.example",
            'sql.Open("mysql", "ann:{p}@tcp(db:3306)/shop?parseTime=true")',
            'vpn.example.com : PSK "{p}"',
            "--> USER ann\n<-- 331 Password required\n--> PASS {p}\n<-- 230 Logged on",
            "echo '{p}' | htpasswd -i /etc/nginx/.htpasswd ann",
            "printf '{p}' | docker secret create db_password -",
            "ngrok config add-authtoken {t}",
        ]
    )
    return form.format(p=p, t=token), token if "{t}" in form else p


def _jwk(g: Gen) -> Made:
    d = g.s(URLSAFE, 43)
    key = {"kty": g.pick(["EC", "OKP"]), "crv": "P-256", "x": g.s(URLSAFE, 43), "d": d}
    return json.dumps(key, indent=g.rng.choice([None, 2])), d


#: Rule set 10's held-out shapes: context -> generator.
HELD_OUT_10: dict[str, Callable[[Gen], Made]] = {
    "smtp-auth-plain": _smtp_auth,
    "chat-user-and-password": _chat_creds,
    "short-session-cookie": _short_cookie,
    "sentry-dsn": _sentry_dsn,
    "pem-middle": _pem_middle,
    "client-password": _client,
    "jwk-private": _jwk,
}

#: The same shapes without a secret: they must come out as they went in.
NEAR_MISSES_10: tuple[str, ...] = (
    "S: 250-mx.example.com\nS: 250-AUTH PLAIN LOGIN CRAM-MD5\nS: 250 8BITMIME",
    "250-AUTH GSSAPI DIGEST-MD5 PLAIN LOGIN XOAUTH2",
    "C: AUTH CRAM-MD5\nS: 334 PDE4OTYuNjk3MTcwOTUyQHBvc3RvZmZpY2UucmVzdG9uLm1jaS5uZXQ+",
    "auth_mechanisms = plain login cram-md5 digest-md5 scram-sha-256",
    "Received: from x (EHLO y) AUTH PLAIN capability",
    "login failed for user ann01 at 10:32",
    "creds rotated 2024-01-05 by ops",
    "creds for prod-db01 are in vault",
    "Set-Cookie: _ga=GA1.2.1234567890.1700000000; Path=/",
    "Set-Cookie: sessionid=deleted; Max-Age=0",
    "Set-Cookie: sessionid=; expires=Thu, 01 Jan 1970 00:00:00 GMT; Path=/",
    "Cookie: theme=dark; lang=en-US; tz=Europe/Berlin",
    "fixed in https://github.com/acme/api/commit/9f3b1c0e7a2d4e6f8b5a1c3d7e9f0a2b",
    "snmpwalk -v2c -c public 10.0.0.1 system",
    "rocommunity public default -V systemonly",
    "ssh-keygen -t ed25519 -N '' -f ~/.ssh/id_ed25519",
    "mosquitto_sub -h broker -t a/b -P $MQTT_PASSWORD",
    "xfreerdp /u:ann /p:$RDP_PASS /v:host",
    'db, err := sql.Open("mysql", "root:@tcp(db:3306)/shop")',
    "USER ann\n331 Password required\nPASS",
)
_CERT = "\n".join(Gen(10).s(B64, 64) for _ in range(6))
NEAR_MISSES_10 += (
    f"-----BEGIN CERTIFICATE-----\n{_CERT}\n-----END CERTIFICATE-----",
    f"Content-Type: application/pdf\nContent-Transfer-Encoding: base64\n\n{_CERT}\n",
    f"{_CERT}\n-----END CERTIFICATE-----",
)
