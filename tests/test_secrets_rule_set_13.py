"""Rule set 13: secrets in code and logs that survived rule set 12, and what must stay.

Vault's legacy and recovery tokens and Yandex Cloud's static key secrets and OAuth tokens on
their own; a random key with "_" in it read as words; passwords in commands (a tool's
``login -p``, Redis' ``--requirepass``, AWS's secret values); a Kubernetes Secret's base64
values; credential pairs in chat ("account ann / tigers66", "ann:X@host"). The held-out
generator of rule set 13 (``benchmarks/_secret_held_out_13.py``) runs too.
"""

from __future__ import annotations

import base64

import pytest
from helpers import benchmark

from memtrails.secrets import RULES_VERSION, scrub_text

BENCH = benchmark("secret_survivors")


def test_the_rule_set_is_new() -> None:
    # A folder's manifest lists the rule sets its records were scrubbed with, and the import
    # digest holds the version: a re-import scrubs every record again with these rules.
    assert RULES_VERSION >= 13


def _gone(text: str, secret: str) -> None:
    out, found = scrub_text(text)
    assert secret not in out, out
    assert found, out


@pytest.mark.parametrize(
    "text",
    [
        "oops {} lol",
        "> > It failed with {}\n> did you rotate it?",
        "notes/backup-{}.txt",
        "export VAULT_TOKEN={}",
    ],
)
@pytest.mark.parametrize(
    "secret",
    [
        "s.emrjeWpH0tL7odJgOH6hjO33",  # Vault's legacy service token: "s." + 24
        "s.emrjeWpH0tL7odJgOH6hjO33.AbC12",  # ... in a namespace
        "b.AAAAAQJEH5VXjs9Lzy2kG7xP0qwRtYuIo-7Ab",  # a legacy batch token
        "hvr.8EXzwPJ1EPjgs10GXIkekZfHjHQx",  # a recovery token
        "YCMz0Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8Qr9St0Uv1Wx",  # Yandex Cloud: a static key's secret
        "y0_AgAAAAAbc1De2Fg3Hi4Jk5Lm6No7Pq8Rs9Tu0Vw1Xy2Za3Bc4De5Fg6Hi7Jk8L",  # Yandex OAuth
    ],
)
def test_short_prefixed_tokens_go_anywhere(text: str, secret: str) -> None:
    _gone(text.format(secret), secret)


@pytest.mark.parametrize(
    "text",
    [
        "s.t. the result holds for every s.",
        "x = s.getDefaultSerializerFactory1()",
        "YCSB benchmark results: workloada 12000 ops/s",
        "t1.micro and t1.small instances",
        "YCAJEWBuVhQzb5sE-wrcW1Uty is the key's id",  # a static key's id: public
        "self.s.emrjeWpH0tL7odJgOH6hjO33",  # an attribute chain, not a token on its own
    ],
)
def test_short_prefixes_in_words_stay(text: str) -> None:
    assert scrub_text(text) == (text, {})


def test_a_random_key_split_by_underscores_is_no_run_of_words() -> None:
    """Seed 2026's survivor: one long random letter run, then short parts after "_"."""
    secret = "RZCBUIkFGdwXGVowtYFcCuuKLRwvMhaCj_fRz_25"
    _gone(f"2024-05-01 12:00:01 [DEBUG] Using Key={secret} for the upload", secret)
    # Names made of words stay: camel case reads as words, lower case is a word.
    for name in ("XMLHttpRequestHandler_v_2", "getUserAccountSettings_for_12"):
        assert scrub_text(f"Key={name}")[1] == {}


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ("cf login -a api.example.com -u ann -p Winter9757xQ", "Winter9757xQ"),
        ("oc login https://api.ocp:6443 -u kubeadmin -p Winter9757xQ", "Winter9757xQ"),
        ("helm registry login ghcr.io -u ci -p Winter9757xQ", "Winter9757xQ"),
        ("redis-cli -h cache CONFIG SET requirepass Winter9757xQ", "Winter9757xQ"),
        ("    command: redis-server --requirepass Winter9757xQ --appendonly yes", "Winter9757xQ"),
        ("wpa_passphrase HomeNet Winter9757xQ", "Winter9757xQ"),
        (
            "aws secretsmanager create-secret --name prod/db --secret-string Winter9757xQ",
            "Winter9757xQ",
        ),
        (
            "aws ssm put-parameter --name /app/codecov_token --value LjZUPf6gPXd7VvplNtsLlIjHb9UD"
            " --type SecureString",
            "LjZUPf6gPXd7VvplNtsLlIjHb9UD",
        ),
        (
            "npm config set //registry.npmjs.org/:_authToken 9f8e7d6c-5b4a-4321-9abc-def012345678",
            "9f8e7d6c-5b4a-4321-9abc-def012345678",
        ),
        ("Driver={ODBC Driver 17};Server=db;Uid=sa;Pwd={Win;ter9757xQ};", "Win;ter9757xQ"),
        ("Server=db;Uid=sa;Password={Winter9757xQ};Database=x", "Winter9757xQ"),
        ('curl -H "Authorization: Basic $(echo -n ann:Winter9757xQ | base64)" x', "Winter9757xQ"),
        ("base64 <<< ann:Winter9757xQ", "Winter9757xQ"),
        # A password that starts with "!" is no YAML tag before the value after it.
        ('connect("host=db user=app password=!YB8GCzUvCfcH0d dbname=app")', "!YB8GCzUvCfcH0d"),
    ],
)
def test_passwords_in_commands(text: str, secret: str) -> None:
    _gone(text, secret)


@pytest.mark.parametrize(
    "text",
    [
        "please login -p 8080 to the box",
        "ssh -p 2222 deploy@host",
        "CONFIG SET maxmemory 100mb",
        'conn = "Server=db;Uid=sa;Pwd={0};".format(pw)',  # a template's slots
        's = "Password={db_pass}"',
        'echo "$USER:$PASS" | base64',
    ],
)
def test_commands_without_a_password_stay(text: str) -> None:
    assert scrub_text(text) == (text, {})


def test_a_kubernetes_secrets_base64_values_go_by_what_they_decode_to() -> None:
    """The base64 of "hunter1Pepper22" has no digit: it read as a camelCase name (code)."""
    password = base64.b64encode(b"hunter1Pepper22").decode()
    user = base64.b64encode(b"admin").decode()
    text = f"kind: Secret\ntype: Opaque\ndata:\n  DB_PASSWORD: {password}\n  username: {user}\n"
    out, found = scrub_text(text)
    assert password not in out
    assert f"username: {user}" in out  # a user's name is no secret
    assert found == {"password": 1}
    # A name of a variable under a password's key is still code, not base64 of a secret.
    assert scrub_text("password: hashedPassword")[1] == {}


def test_base64_that_starts_with_a_slash_is_no_path() -> None:
    """A key of base64 may start with "/"; under a name that asks for a random value it was
    read as a path. Paths stay, under the same name."""
    secret = "/k0XRNHRkNNlY0z+MNeo1p4ERxFaFtiLtqyLZbOB"
    _gone(f"DEBUG:urllib3:request headers {{'x-functions-key': '{secret}'}}", secret)
    for path in ("/home/ann/projects/Abc123defGHIjkl", "/usr/bin/Python3Framework"):
        assert scrub_text(f"{{'x-functions-key': '{path}'}}")[1] == {}


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ("account ann / tigers66", "tigers66"),
        ("account jdoe / tigers-6986", "tigers-6986"),
        ("account ann / monkey_5862", "monkey_5862"),
        ("account jdoe / -QTX2ro_Zp8kqaqG88", "-QTX2ro_Zp8kqaqG88"),
        ("user: ann pass: tigers66", "tigers66"),
        ("login ann/tigers66", "tigers66"),
        ("ann:tigers66@host", "tigers66"),
        ("try bob:QZw=l^h6Ji5L^HA1yv1Q@ftp.example.com now", "QZw=l^h6Ji5L^HA1yv1Q"),
        ("lftp deploy:Winter9757@files.local", "Winter9757"),
    ],
)
def test_credential_pairs_in_chat(text: str, secret: str) -> None:
    _gone(text, secret)


@pytest.mark.parametrize(
    "text",
    [
        "account billing / invoices2024",
        "account sales / archive_2",
        "account bob / reports-2023",
        "account aws / us-east-1",
        "ssid HomeNet / WPA2-PSK",
        "mailto:ann2024@example.com",
        "From:ann123@example.com",
        "git@github.com:org/repo2024.git",
        "Message-ID: <abc123.456@mail.example.com>",
        "meet at 10:30@home",
        "the ratio was 3/4 and the user/group is www-data/www-data",
        "and/or the read/write path",
    ],
)
def test_ordinary_slashes_and_addresses_stay(text: str) -> None:
    assert scrub_text(text) == (text, {})


def test_the_held_out_generator_of_rule_set_13_leaves_no_survivor() -> None:
    """Secrets in code and log contexts from a generator written apart from the others."""
    cases = [c for c in BENCH.cases(5, 1) if c.family == "held-out-13"]
    assert len({c.context for c in cases}) >= 19
    left = BENCH.survivors(cases)
    assert [(c.context, c.text[:120]) for c in left] == []
