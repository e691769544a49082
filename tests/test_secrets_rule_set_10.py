"""Rule set 10: false alarms on SMTP transcripts, and secrets that survived rule set 9.

Every value here is invented. Each test asserts what a user reads in the scrubbed text: the
secret is gone and a marker stands in its place, or a text that holds none comes out as it
went in.
"""

from __future__ import annotations

import base64
import random
import string

import pytest

from memtrails.secrets import RULES_VERSION, scrub_text

PW = "Xk3!pq9Lm"


def _b64_lines(seed: int, count: int, width: int = 64) -> list[str]:
    """Random base64 lines as a key's body has them (each with both cases and a digit)."""
    rng = random.Random(seed)
    alphabet = string.ascii_letters + string.digits + "+/"
    lines = []
    while len(lines) < count:
        line = "".join(rng.choice(alphabet) for _ in range(width))
        if line.lower() != line and line.upper() != line and any(map(str.isdigit, line)):
            lines.append(line)
    return lines


def test_the_rule_set_is_new() -> None:
    # A folder scrubbed by an earlier set lists both in its manifest after the next import.
    assert RULES_VERSION >= 10


# --- SMTP: capability lines and mechanisms are no secrets ----------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "S: 250-mx.example.com\nS: 250-AUTH PLAIN LOGIN CRAM-MD5\nS: 250 8BITMIME",
        "250-AUTH GSSAPI DIGEST-MD5 PLAIN LOGIN XOAUTH2",
        "250-AUTH=LOGIN CRAM-MD5 PLAIN",
        "< 250-AUTH LOGIN PLAIN XOAUTH2 PLAIN-CLIENTTOKEN OAUTHBEARER XOAUTH",
        "C: AUTH CRAM-MD5\nS: 334 PDE4OTYuNjk3MTcwOTUyQHBvc3RvZmZpY2UucmVzdG9uLm1jaS5uZXQ+",
        "AUTH SCRAM-SHA-256\n",
        "AUTH OAUTHBEARER\n",
        "Received: from [10.0.0.2] by mx with ESMTPSA (AUTH LOGIN CRAM-MD5)",
        "Received: from x (EHLO y) AUTH PLAIN capability",
        "auth_mechanisms = plain login cram-md5 digest-md5 scram-sha-256",
        "|   auth: PLAIN LOGIN CRAM-MD5 DIGEST-MD5 NTLM",
        "The server offers AUTH PLAIN LOGIN CRAM-MD5 and the client picks CRAM-MD5.",
        "dovecot: auth: Error: login: mechanism=DIGEST-MD5 unsupported",
    ],
)
def test_smtp_capabilities_and_mechanisms_stay(text: str) -> None:
    out, found = scrub_text(text)
    assert not found and out == text


@pytest.mark.parametrize(
    "text",
    [
        "C: AUTH PLAIN {v}\nS: 235 2.7.0 Authentication successful",
        "> AUTH PLAIN {v}",
        "[C] AUTH PLAIN {v}",
        "smtp: send: 'AUTH PLAIN {v}\\r\\n'",
        "send: b'auth plain {v}\\r\\n'",
    ],
)
def test_smtp_auth_plain_credentials_go_wherever_the_line_starts(text: str) -> None:
    value = base64.b64encode(f"\0ann\0{PW}".encode()).decode()
    out, found = scrub_text(text.format(v=value))
    assert value not in out and found["password"] == 1


def test_the_answer_to_the_auth_login_password_prompt_goes() -> None:
    password = base64.b64encode(PW.encode()).decode()
    text = (
        "reply: b'334 VXNlcm5hbWU6'\nsend: b'YW5u\\r\\n'\n"
        f"reply: b'334 UGFzc3dvcmQ6'\nsend: b'{password}\\r\\n'\nreply: b'235 ok'"
    )
    out, _ = scrub_text(text)
    assert password not in out
    assert "334 UGFzc3dvcmQ6" in out and "235 ok" in out  # the prompts are no secret


# --- Credentials in chat: a user, then its password ----------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        f"creds are ann / {PW}",
        f"sure, the creds are ann / {PW} for staging",
        f"creds for grafana: admin / {PW}",
        f"creds — ann / {PW}",
        f"creds are admin and {PW}",
        f"creds: `ann` / `{PW}`",
        f"login ann {PW}",
        f"creds ann {PW}",
        f"username ann pass {PW}",
        f"u: ann p: {PW}",
        f"user/pass: ann / {PW}",
        f"user+pass: ann {PW}",
        "login: ann  pw: hunter2xyz",
        f"user ann password {PW}",
    ],
)
def test_a_user_and_password_in_chat_lose_the_password(text: str) -> None:
    out, found = scrub_text(text)
    assert PW not in out and "hunter2xyz" not in out
    assert found["password"] >= 1


@pytest.mark.parametrize(
    "text",
    [
        "creds rotated 2024-01-05 by ops",
        "login ann 2024-01-05",
        "login failed for user ann01 at 10:32",
        "creds for prod-db01 are in vault",
        "login with sso, user admin, pw see 1Password-entry",
        "log: user ann p 99th-percentile",
        "login attempts: 3/5",
        "credentials are ann / <password>",
        # Code: a call's arguments after a word for credentials (huggingface_hub's).
        'with run_interactive_subprocess("git credential approve", folder=folder) as (',
    ],
)
def test_sentences_about_logins_stay(text: str) -> None:
    out, found = scrub_text(text)
    assert not found and out == text


# --- Cookies: decided by the cookie's name, not only its length ----------------------------


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("Cookie: sessionid=abc123def456; theme=dark", "abc123def456"),
        ("Set-Cookie: sid=a8f3k2m9; Path=/; HttpOnly", "a8f3k2m9"),
        ("Set-Cookie: auth=9f8e7d6c; Secure", "9f8e7d6c"),
        ("Cookie: lang=en; connect.sid=s%3Aab12cd; _ga=GA1.2.3", "s%3Aab12cd"),
        ("Cookie: XSRF-TOKEN=x1y2z3w4; laravel_session=ef34gh56", "ef34gh56"),
        ("< Set-Cookie: session=ab12cd34; HttpOnly", "ab12cd34"),
        ("curl -H 'Cookie: sid=ab12cd34' https://x.example", "ab12cd34"),
        ('curl --cookie "sid=ab12cd34; a=b" https://x.example', "ab12cd34"),
    ],
)
def test_a_short_session_cookie_loses_its_value(text: str, value: str) -> None:
    out, found = scrub_text(text)
    assert value not in out and found["password"] >= 1


def test_every_session_cookie_of_a_header_goes_and_the_others_stay() -> None:
    text = "Cookie: theme=dark; csrftoken=Zx81Kq9w; lang=en-US; sessionid=q1w2e3r4"
    out, _ = scrub_text(text)
    assert out == (
        "Cookie: theme=dark; csrftoken=[secret:password]; lang=en-US; sessionid=[secret:password]"
    )


@pytest.mark.parametrize(
    "text",
    [
        "Set-Cookie: _ga=GA1.2.1234567890.1700000000abc; Path=/",
        "Set-Cookie: sessionid=; expires=Thu, 01 Jan 1970 00:00:00 GMT; Path=/",
        "Set-Cookie: sessionid=deleted; Max-Age=0",
        "Cookie: sid=1",
        "Cookie: token=${TOKEN}",
        "Set-Cookie: cookie_consent=accepted; Path=/",
        "the banner sets a cookie: consent=all-cookies-accepted; nothing else is kept",
    ],
)
def test_cookies_that_open_no_session_stay(text: str) -> None:
    out, found = scrub_text(text)
    assert not found and out == text


# --- Sentry DSNs ---------------------------------------------------------------------------

DSN_KEY = "9f3b1c0e7a2d4e6f8b5a1c3d7e9f0a2b"
DSN_SECRET = "4c8e1a7f3b9d2e6c0a5f8b1d3e7c9a2f"


@pytest.mark.parametrize(
    "text",
    [
        f"SENTRY_DSN=https://{DSN_KEY}@o123.ingest.sentry.io/456",
        f"the dsn is https://{DSN_KEY}@o123.ingest.us.sentry.io/456 if you need it",
        f"Raven.config('https://{DSN_KEY}:{DSN_SECRET}@sentry.io/1').install()",
        f'sentry_sdk.init(dsn="https://{DSN_KEY}@sentry.example.com/sentry/12")',
        f'{{"dsn":"https:\\/\\/{DSN_KEY}@o1.ingest.sentry.io\\/2"}}',
    ],
)
def test_a_sentry_dsn_loses_its_key_and_secret(text: str) -> None:
    out, found = scrub_text(text)
    assert DSN_KEY not in out and DSN_SECRET not in out
    assert found["sentry-dsn"] == 1


def test_hex_in_other_urls_stays() -> None:
    text = f"fixed in https://github.com/acme/api/commit/{DSN_KEY}, see https://x.example/{DSN_KEY}@y/1"
    out, found = scrub_text(text)
    assert not found and out == text


# --- A PEM block's middle, with neither its BEGIN nor its END line -------------------------


@pytest.mark.parametrize(
    "layout",
    [
        "here is the rest of it:\n{body}\nthanks",
        "On Tue, Bob wrote:\n> {quoted}\n>\n> cheers",
        "    {indented}",
    ],
)
def test_the_middle_of_a_key_block_goes(layout: str) -> None:
    lines = [*_b64_lines(1, 8), "Zm9vYmFy" * 3 + "AB=="]
    text = layout.format(
        body="\n".join(lines), quoted="\n> ".join(lines), indented="\n    ".join(lines)
    )
    out, found = scrub_text(text)
    assert not any(line in out for line in lines)
    assert found["private-key"] == 1
    assert out.startswith(text.split("\n", 1)[0][:4])


def test_openssh_key_lines_70_wide_go() -> None:
    lines = _b64_lines(2, 4, 70)
    out, _ = scrub_text("\n".join(lines) + "\n")
    assert not any(line in out for line in lines)


@pytest.mark.parametrize(
    "layout",
    [
        # A mail's attachment, written 64 wide by some mailers: its MIME headers say so.
        "Content-Type: application/pdf\nContent-Transfer-Encoding: base64\n\n{body}\n",
        # A certificate and a PGP signature: public, and their BEGIN line is there.
        "-----BEGIN CERTIFICATE-----\n{body}\n-----END CERTIFICATE-----\n",
        "-----BEGIN PGP SIGNATURE-----\n\n{body}\n=AbCd\n-----END PGP SIGNATURE-----\n",
        "{body}\n-----END CERTIFICATE-----\n",
        # Two lines: too few to tell from other base64.
        "{two}\n",
    ],
)
def test_base64_that_is_no_key_middle_stays(layout: str) -> None:
    lines = _b64_lines(3, 6)
    text = layout.format(body="\n".join(lines), two="\n".join(lines[:2]))
    out, found = scrub_text(text)
    assert not found and out == text


# --- Held-out shapes: passwords that clients take in a fixed place, JWK private members ----

HELD = "Vq7#nR2wLz"
JWK_D = "X4cTteJY_gn4FYPsXB8rdXix5vwsg1FLN5E3EaG6RJoVH"


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        (f"snmpwalk -v2c -c {HELD} 10.0.0.1 system", HELD),
        (f"rocommunity {HELD} 10.0.0.0/24", HELD),
        (f"openssl enc -aes-256-cbc -salt -in a.txt -out a.enc -k {HELD}", HELD),
        (f"ssh-keygen -t ed25519 -N '{HELD}' -f ~/.ssh/deploy", HELD),
        (f"ssh-keygen -p -P '{HELD}' -N '' -f id_rsa", HELD),
        (f"mosquitto_pub -h broker -u ann -P {HELD} -t a/b -m hi", HELD),
        (f"security add-generic-password -a ann -s deploy -w {HELD}", HELD),
        (f"xfreerdp /u:ann /p:{HELD} /v:10.0.0.5", HELD),
        (f"schtasks /create /tn backup /tr c:\\b.bat /ru CORP\\svc /rp {HELD} /sc daily", HELD),
        (f"curl --proxy-user ann:{HELD} -x http://proxy:3128 https://x.example", HELD),
        (f"lftp -u ann,{HELD} ftp.example.com", HELD),
        (f'sql.Open("mysql", "ann:{HELD}@tcp(db:3306)/shop?parseTime=true")', HELD),
        (f'vpn.example.com : PSK "{HELD}"', HELD),
        (f"--> USER ann\n<-- 331 Password required\n--> PASS {HELD}\n<-- 230 Logged on", HELD),
        (f"USER ann\r\n+OK\r\nPASS {HELD}\r\n+OK logged in", HELD),
        (f"echo '{HELD}' | htpasswd -i /etc/nginx/.htpasswd ann", HELD),
        (f"printf '{HELD}' | docker secret create db_pw -", HELD),
        ("ngrok config add-authtoken 2Zq89c4F2kQ8xLm1Zp7Rt5Wv3Yb6_4xYpL1mN7aB", "2Zq89c4F2kQ8"),
        (f'{{"kty":"EC","crv":"P-256","d":"{JWK_D}"}}', JWK_D),
        (f'{{\n  "kty": "RSA",\n  "e": "AQAB",\n  "d": "{JWK_D}"\n}}', JWK_D),
    ],
)
def test_a_password_in_a_clients_fixed_place_goes(text: str, secret: str) -> None:
    out, found = scrub_text(text)
    assert secret not in out and sum(found.values()) >= 1


@pytest.mark.parametrize(
    "text",
    [
        "snmpwalk -v2c -c public 10.0.0.1 system",
        "rocommunity public default -V systemonly",
        "openssl req -new -key k.pem -out r.csr -subj /CN=x",
        "openssl enc -d -aes-256-cbc -k $PASS -in a.enc",
        "ssh-keygen -t ed25519 -N '' -f ~/.ssh/id",
        "mosquitto_sub -h broker -t a/b -P $MQTT_PW",
        "security find-generic-password -a ann -s svc -w",
        "schtasks /create /tn x /tr c:\\x.bat /ru SYSTEM /sc daily",
        "USER ann\n331 need password\nPASS",
        'db, err := sql.Open("mysql", "root:@tcp(db:3306)/shop")',
        "xfreerdp /u:ann /p:$RDP_PASS /v:host",
        "gh auth login --with-token < token.txt",
        '{"p": 2, "q": "search terms here", "d": "2026-12-07T08:00:00Z"}',
    ],
)
def test_the_same_commands_without_a_password_stay(text: str) -> None:
    out, found = scrub_text(text)
    assert not found and out == text


def test_a_quoted_user_and_its_quoted_password_lose_the_password() -> None:
    out, _ = scrub_text("creds: `deploy`, `tigers1796`")
    assert out == "creds: `deploy`, `[secret:password]`"


# --- JWTs: one split over string literals concatenated in code -----------------------------

JWT_HEAD = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9"
JWT_BODY = "eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4ifQ"
JWT_SIG = "SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"


@pytest.mark.parametrize(
    "text",
    [
        f'token = ("{JWT_HEAD}."\n         "{JWT_BODY}.{JWT_SIG}")',
        f'String t = "{JWT_HEAD}.{JWT_BODY}." +\n    "{JWT_SIG}";',
        f"const t = '{JWT_HEAD}.' +\n  '{JWT_BODY}.{JWT_SIG}';",
    ],
)
def test_a_jwt_concatenated_over_string_literals_goes_whole(text: str) -> None:
    out, found = scrub_text(text)
    assert JWT_BODY not in out and JWT_SIG not in out
    assert found["jwt"] == 1


def test_a_jwt_string_then_another_string_keeps_the_other() -> None:
    text = f'tokens = [\n  "{JWT_HEAD}.{JWT_BODY}.{JWT_SIG}",\n  "second entry"\n]'
    out, _ = scrub_text(text)
    assert out == 'tokens = [\n  "[secret:jwt]",\n  "second entry"\n]'


# --- Total: the new rules never make the scrubber raise --------------------------------------

WIDE = ["é", "─", "密", "😀", "\u0301", "\ud800", "\x00"]
NEW_CONTEXTS = [
    "Cookie: sid=a8f3k2m9; theme=dark",
    "creds are ann / Xk3!pq9Lm",
    "creds: `ann`, `Xk3!pq9Lm`",
    "C: AUTH PLAIN AGFubgBYazMhcHE5TG0=",
    "334 UGFzc3dvcmQ6\nWGszIXBxOUxt",
    f"https://{DSN_KEY}@o1.ingest.sentry.io/2",
    "snmpwalk -v2c -c Vq7#nR2wLz host",
    "--> USER ann\n--> PASS Vq7#nR2wLz\n",
    f'{{"kty":"EC","d":"{JWK_D}"}}',
    "\n".join(_b64_lines(4, 3)) + "\n",
]


@pytest.mark.parametrize("context", NEW_CONTEXTS)
def test_a_wide_character_anywhere_in_a_new_context_never_raises(context: str) -> None:
    for wide in WIDE:
        for at in range(len(context) + 1):
            text = context[:at] + wide + context[at:]
            clean, counts = scrub_text(text)
            assert clean.count("[secret:") >= sum(counts.values())
