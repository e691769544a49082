"""Rule set 14: the survivors of rule set 13's untuned seeds, each as a class of input.

A password of a word and one digit after "account NAME /", a user and its password after
"creds for <a few words>:", a value that starts with "-" and a symbol (a YAML folded
scalar's line too), pppd's secrets lines with the client and the secret quoted and no file
name before them, a password that starts with "%" and a letter, "the db pass is
tigers-3428". Each case is generated from parts, and its near side stays.
"""

from __future__ import annotations

import random

import pytest

from memtrails.secrets import RULES_VERSION, scrub_text

_USERS = ("ann", "admin", "deploy", "jdoe", "svc_backup", "root", "ops")
_WORDS = ("tigers", "pepper", "sunshine", "marble", "rocket", "meadow", "falcon", "wombat")
_THINGS = (
    "the staging grafana",
    "the new prod db box",
    "our shared jenkins",
    "the old NAS in rack",
    "grafana",
    "the vpn",
)


def _gone(text: str, secret: str) -> None:
    out, found = scrub_text(text)
    assert secret not in out and found["password"] >= 1, (text, out)


def _stays(text: str) -> None:
    out, found = scrub_text(text)
    assert not found and out == text, (text, out)


def test_the_rule_set_is_new() -> None:
    # The import digest holds the version: a re-import scrubs every record again.
    assert RULES_VERSION >= 14


@pytest.mark.parametrize("seed", range(4))
def test_a_word_and_one_digit_after_account_and_a_slash_goes(seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(12):
        pw = rng.choice(_WORDS) + str(rng.randint(0, 9))
        head = rng.choice(("account", "the shared account", "wifi is", "guest wifi:"))
        _gone(f"{head} {rng.choice(_USERS)} / {pw}{rng.choice(('', '.', ' for now'))}", pw)


@pytest.mark.parametrize(
    "text",
    [
        "account billing / invoices2024",
        "account ops / sprint_4",
        "account sales / archive-2",
        "see account finance / reports-2023 for the totals",
        "account aws / us-east-1",
    ],
)
def test_a_folder_or_a_period_after_account_stays(text: str) -> None:
    _stays(text)


@pytest.mark.parametrize("seed", range(4))
def test_a_pair_after_creds_for_a_thing_of_several_words_goes(seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(12):
        pw = rng.choice(("Pepper9", "S3cur3Pa55", "ZcX+YOF8IEiVpBs", "hunter-77x", "Qz4!mK8pWd"))
        lead = rng.choice(("creds for", "credentials for", "Creds for"))
        user = rng.choice(_USERS)
        _gone(f"{lead} {rng.choice(_THINGS)}: {user} / {pw}", pw)


@pytest.mark.parametrize(
    "text",
    [
        "creds for the staging grafana: see the vault / ask ops",
        "creds for the new prod db box: rotated 2024-01-05",
        "credentials for the staging grafana: read/write",
    ],
)
def test_creds_for_a_thing_without_a_pair_stays(text: str) -> None:
    _stays(text)


@pytest.mark.parametrize(
    "value", ["-+mLl2-M0JSUus@", "-!9dk2LpQ", "-#Xy7pq2Lm", "-=Ab3Cd4Ef5", "-@Ttz8W0oq2"]
)
@pytest.mark.parametrize(
    "form",
    [
        "db:\n  password: >-\n    {v}\n  port: 5432\n",
        "db_password: |\n  {v}\nnext: 1\n",
        "password: {v}\n",
        "DB_PASSWORD={v}\n",
        "account ann / {v}",
    ],
)
def test_a_value_starting_with_a_dash_and_a_symbol_goes(form: str, value: str) -> None:
    _gone(form.format(v=value), value)


@pytest.mark.parametrize(
    "text",
    ["password: --help\n", "list:\n  - item-1\n  - item-2\n", "options: -rf\n", "key: -->x"],
)
def test_flags_and_list_items_stay(text: str) -> None:
    _stays(text)


@pytest.mark.parametrize(
    ("line", "secret"),
    [
        ('"ann" * "Tr0ub4dor3" *', "Tr0ub4dor3"),
        ('"bob"\tpptpd\t"s3cretpass9"\t*', "s3cretpass9"),
        ('"modem" "*" "%n_wQvosq70@XM" 10.0.0.11', "%n_wQvosq70@XM"),
        ('  "vpn-user"  server1  "K9#xLm!2qp"  192.168.1.0/24', "K9#xLm!2qp"),
    ],
)
def test_a_quoted_ppp_secrets_line_goes_without_the_files_name(line: str, secret: str) -> None:
    _gone(f"here is what I have:\n{line}\n", secret)


@pytest.mark.parametrize(
    "text",
    [
        'x = "a" * "b" * 2',
        'print("ab" * 3)',
        '"ann" "server" "hello" *',  # a word, no digit or symbol
        '"name" * "value"',  # no address after it
    ],
)
def test_quoted_strings_and_stars_stay(text: str) -> None:
    _stays(text)


@pytest.mark.parametrize("value", ["%n_wQvosq70@XM", "%k9Lm2Qx!p", "%Tr0ub4dor3"])
def test_a_ppp_secret_starting_with_percent_and_a_letter_goes(value: str) -> None:
    _gone(f'# /etc/ppp/chap-secrets\n"modem"\tpptpd\t"{value}"\t10.0.0.11\n', value)


@pytest.mark.parametrize(
    "text",
    [
        'password = "%s"',
        'password = "%PASSWORD%"',
        'password = "%(pw)s"',
        'password = "%{pw}"',
        "set PASSWORD=%DB_PASSWORD%",
        '# /etc/ppp/chap-secrets\n"modem"\tpptpd\t"%PPP_SECRET%"\t*\n',
    ],
)
def test_a_slot_starting_with_percent_stays(text: str) -> None:
    _stays(text)


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ("creds: deploy01 / S3cur3Pa55", "S3cur3Pa55"),
        ("creds for the vpn: svc_backup / Qz4!mK8pWd", "Qz4!mK8pWd"),
        ("login: ops_22 / hunter-77x", "hunter-77x"),
        ("Zugangsdaten: deploy01 / Geheim123!", "Geheim123!"),
    ],
)
def test_a_user_with_digits_or_underscores_is_no_password(text: str, secret: str) -> None:
    out, found = scrub_text(text)
    user = text.split(": ")[1].split(" /")[0]
    assert secret not in out and user in out and found == {"password": 1}, out


@pytest.mark.parametrize("seed", range(4))
def test_a_word_and_digits_after_a_noun_and_pass_is_goes(seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(12):
        pw = rng.choice(_WORDS) + rng.choice(("-", "_", "")) + str(rng.randint(1, 9999))
        noun = rng.choice(("db", "wifi", "admin", "router", "vpn", "staging"))
        _gone(f"[10:02] ann: the {noun} pass is {pw}", pw)


@pytest.mark.parametrize(
    "text",
    [
        "the bus pass is $45/month",
        "the boarding pass is v2.3.1",
        "the pass is us-east-1",
        "the day pass is 2024-05-01",
    ],
)
def test_an_amount_a_version_or_a_region_after_pass_is_stays(text: str) -> None:
    _stays(text)


_KEY = "vKOfORVytd3nd8E2TRn7BXabOV4sfscYMNsyNA"


@pytest.mark.parametrize(
    "text",
    [
        # Postman: a collection's bearer auth and its variables; CloudFormation's parameters.
        f'{{"bearer": [{{"key": "token", "value": "{_KEY}", "type": "string"}}]}}',
        f'"variable": [\n  {{\n    "key": "apiKey",\n    "value": "{_KEY}"\n  }}\n]',
        f'[{{"ParameterKey": "DbPassword", "ParameterValue": "{_KEY}"}}]',
    ],
)
def test_a_key_value_pair_object_holding_a_secret_goes(text: str) -> None:
    out, found = scrub_text(text)
    assert _KEY not in out and sum(found.values()) == 1, out


@pytest.mark.parametrize(
    "text",
    [
        '{"key": "token", "value": "{{accessToken}}"}',
        '{"key": "baseUrl", "value": "https://api.example.com/v1/orders"}',
        "WEBHOOK_URL=https://hooks.slack.com/services/XXX/YYY/ZZZ\n",
    ],
)
def test_a_reference_or_a_placeholder_in_those_places_stays(text: str) -> None:
    _stays(text)
