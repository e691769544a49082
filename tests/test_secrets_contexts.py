"""Rule set 8: secrets in config files, log lines and code, and rule set 7's leftovers.

Each class is generated from a fixed seed (``benchmarks/_secret_contexts.py`` and
``_secret_code.py``, the survivors benchmark's generators), and the look-alikes of each class
must come out unchanged.
"""

from __future__ import annotations

import base64
import json
import random
import string

import pytest
from helpers import benchmark

from memtrails.secrets import scrub_text

BENCH = benchmark("secret_survivors")
CONTEXTS = BENCH.CONTEXTS


def _password(rng: random.Random) -> str:
    """8-16 letters, digits and symbols that no URL, quote or CSV delimiter holds."""
    size = rng.randint(8, 16)
    chars = [rng.choice(string.ascii_letters + string.digits + "!*-_~") for _ in range(size)]
    chars[0] = rng.choice(string.ascii_letters)
    chars[rng.randrange(1, size)] = rng.choice(string.digits)
    return "".join(chars)


def _gone(text: str, secret: str, *kept: str) -> None:
    out, found = scrub_text(text)
    for line in [ln for ln in secret.splitlines() if len(ln) >= 8] or [secret]:
        assert line not in out, (text, out)
    assert found, text
    for word in kept:
        assert word in out, (text, out)


@pytest.mark.parametrize(
    "context", [f"{group}/{name}" for group, names in CONTEXTS.items() for name in names]
)
def test_every_generated_context_loses_its_secret(context: str) -> None:
    """Config files, logs, code, and the leftovers: 12 generated cases of each context."""
    group, name = context.split("/")
    make = CONTEXTS[group][name]
    gen = BENCH.Gen(sum(map(ord, context)))
    for _ in range(12):
        text, secret = make(gen)
        _gone(text, secret)


def test_the_contexts_look_alikes_stay() -> None:
    """The same files, logs and code without a secret come out unchanged."""
    marked = {t[:60]: dict(f) for t in BENCH.NEAR_MISSES if (f := scrub_text(t)[1])}
    assert marked == {}


@pytest.mark.parametrize("seed", range(4))
def test_a_slash_in_a_urls_password_goes(seed: int) -> None:
    """postgres://app:ab/cd@db: a '/' ends the user-info for a URL parser, but a password
    pasted with one unencoded is still given away: all of it goes, the user and host stay."""
    rng = random.Random(seed)
    head, tail = _password(rng), _password(rng)
    scheme = rng.choice(["postgres", "https", "mysql", "amqp", "redis"])
    text = f"{scheme}://app:{head}/{tail}@db.internal:5432/app"
    out, _ = scrub_text(text)
    assert out == f"{scheme}://app:[secret:url-password]@db.internal:5432/app"


def test_a_question_mark_in_a_urls_password_goes() -> None:
    text = "DATABASE_URL=postgresql://app:Winter3607?@db.internal:5432/app"
    out, _ = scrub_text(text)
    assert out == "DATABASE_URL=postgresql://app:[secret:url-password]@db.internal:5432/app"


@pytest.mark.parametrize(
    "text",
    [
        "redis://localhost:6379?db=0&notify=ann@example.com",
        "http://host:port?email=ann@example.com",
        "https://registry.example.com:8443/npm/@scope/pkg",
        "http://localhost:3000/@vite/client",
        "http://host:PORT/path/user@example.com",
        "https://host:{port}/a/b@c",
        "file://C:/Users/ann@corp/notes.txt",
    ],
)
def test_a_port_and_a_path_with_an_at_sign_stay(text: str) -> None:
    assert scrub_text(text) == (text, {})


@pytest.mark.parametrize("alg", ["none", "RSA-OAEP", "custom"])
def test_a_wrapped_jwt_whose_algorithm_is_unknown_goes_whole(alg: str) -> None:
    """Its signature runs over plain line breaks while the lines are as wide as the token's
    wrapped lines; the line of text after its last, shorter, line stays."""
    rng = random.Random(alg)
    head = base64.urlsafe_b64encode(json.dumps({"alg": alg}).encode()).decode().rstrip("=")
    body = base64.urlsafe_b64encode(b'{"sub":"1234567890","scope":"rw"}').decode().rstrip("=")
    sig = "".join(rng.choice(string.ascii_letters + string.digits + "_-") for _ in range(150))
    token = f"{head}.{body}.{sig}"
    wrapped = "\n".join(token[i : i + 64] for i in range(0, len(token), 64))
    out, found = scrub_text(f"token:\n{wrapped}\nThe next line is text.")
    assert out == "token:\n[secret:jwt]\nThe next line is text."
    assert found == {"jwt": 1}


@pytest.mark.parametrize("seed", range(3))
def test_a_secret_column_after_a_field_quoted_over_lines_goes(seed: int) -> None:
    rng = random.Random(seed)
    a, b = _password(rng), _password(rng)
    text = f'id,note,password\n1,"first line\nsecond line",{a}\n2,"x",{b}\n'
    out, _ = scrub_text(text)
    assert (
        out
        == 'id,note,password\n1,"first line\nsecond line",[secret:password]\n2,"x",[secret:password]\n'
    )
    text = f'user,password,comment\nann,"{a}","long\ncomment"\nbob,"{b}",short\n'
    assert a not in scrub_text(text)[0] and b not in scrub_text(text)[0]


def test_a_quote_left_open_ends_the_table() -> None:
    text = 'id,password,note\n1,"unclosed\n2,abc,' + "x" * 9000
    assert scrub_text(text) == (text, {})


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ('_auth = "YWRtaW46U2UxTnllejlnTGdo"\nalways-auth = true', "YWRtaW46U2UxTnllejlnTGdo"),
        (
            "GET /v2/items?page=3&auth=IZMIjZd9NBWv7ttbnuvagLrVX0z7&sort=asc",
            "IZMIjZd9NBWv7ttbnuvagLrVX0z7",
        ),
        ("+ curl -sS -u admin:'7rrZ0P3dQBCai' https://jenkins", "7rrZ0P3dQBCai"),
        ("http -a ann:Xq7-vR2pLm9wZ GET https://api.example.com", "Xq7-vR2pLm9wZ"),
        (
            'Authorization: Digest username="ann", uri="/", response="6629fae49393a05397450978507c4ef1"',
            "6629fae49393a05397450978507c4ef1",
        ),
        (
            "db_password: !vault |\n  $ANSIBLE_VAULT;1.1;AES256\n  62313365396662343061393464336163\n  61343336\nx: 1",
            "62313365396662343061393464336163",
        ),
        ("$config['password'] = 'Xq7-vR2pLm9wZ';", "Xq7-vR2pLm9wZ"),
        ("config[:password] = 'Xq7-vR2pLm9wZ'", "Xq7-vR2pLm9wZ"),
        ('ds.setPassword("Xq7-vR2pLm9wZ");', "Xq7-vR2pLm9wZ"),
        ('r = requests.get(url, auth=("ann", "Xq7-vR2pLm9wZ"))', "Xq7-vR2pLm9wZ"),
        ('new NetworkCredential("ann", "Xq7-vR2pLm9wZ")', "Xq7-vR2pLm9wZ"),
        ("sqlplus scott/Xq7-vR2pLm9wZ@ORCL", "Xq7-vR2pLm9wZ"),
        ("10.0.0.5:5432:app:postgres:Xq7-vR2pLm9wZ", "Xq7-vR2pLm9wZ"),
        ("mysql -h db -u root -p=PSDwC*W2Qo app < dump.sql", "PSDwC*W2Qo"),
        ('BUNDLE_GEMS__EXAMPLE__COM: "ci:Xq7-vR2pLm9wZ"', "Xq7-vR2pLm9wZ"),
        ('npmAuthIdent: "Y2k6WHE3LXZSMnBMbTl3Wg=="', "Y2k6WHE3LXZSMnBMbTl3Wg=="),
        (
            '{"name": "X-Api-Key", "value": "aB3dE5fG7hJ9kL2mN4pQ6rS8tU"}',
            "aB3dE5fG7hJ9kL2mN4pQ6rS8tU",
        ),
        ('{"user": "ci", "password": "@PCOi89SJnmR@Z^zPIM"}', "@PCOi89SJnmR@Z^zPIM"),
    ],
)
def test_config_log_and_code_secrets_go(text: str, secret: str) -> None:
    _gone(text, secret)


def test_a_pem_key_concatenated_over_string_literals_goes() -> None:
    lines = ["MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7Vx3m9Zq2Lk1P"] * 2
    body = "".join(f'\t"{line}\\n" +\n' for line in lines)
    text = (
        f'key := "-----BEGIN RSA PRIVATE KEY-----\\n" +\n{body}\t"-----END RSA PRIVATE KEY-----\\n"'
    )
    out, found = scrub_text(text)
    assert lines[0] not in out and found == {"private-key": 1}


@pytest.mark.parametrize(
    "text",
    [
        '{"auth": "required"}',
        '{"auth": "disabled", "registry": "ghcr.io"}',
        "wifi_password: !secret wifi_password",
        "auth: true\nauth = oauth2\nauthor: Ann Smith",
        "Your PIN is 4711.",
        '{"name": "DB_PASSWORD", "valueFrom": {"secretKeyRef": {"name": "db"}}}',
    ],
)
def test_settings_references_and_short_pins_stay(text: str) -> None:
    """ "auth": "required" is no Docker credential (it decodes to none), "!secret NAME" names
    a value kept elsewhere, and a PIN under 6 digits is left by design."""
    assert scrub_text(text) == (text, {})


def test_a_yaml_tag_before_a_value_is_no_value() -> None:
    out, _ = scrub_text("password: !!str 8731925\n")
    assert out == "password: !!str [secret:password]\n"
