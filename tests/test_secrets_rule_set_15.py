"""Rule set 15: rule set 14's survivors as classes of input, and pointers that are no password.

A user and its password after a word for logging in ("login: ann / X", "logins:", "logon",
"sign-in", "login =>", "login: ann / pass X") whatever the password's shape; a password in a
YAML mapping under a parent or in flow style; a password named by a noun phrase and "is",
"was", "=" or "->" in prose (a passphrase after "pass is" too); a password starting with "%",
"~" or "-"; Redis MONITOR's quoted AUTH. A pointer where a password would stand ("see the
wiki", "ask Bob", "in 1Password", "TBD") is no secret, and a password made of words and
digits still is. Each case is generated from parts, and its near side stays.
"""

from __future__ import annotations

import random

import pytest

from memtrails.secrets import RULES_VERSION, scrub_text

_USERS = ("ann", "admin", "deploy", "kiosk", "svc_backup", "root")
_WORDS = ("orbit", "Cedar", "plum", "Harbor", "violet", "Timber", "nova", "glacier")


def _password(rng: random.Random, years: bool = True) -> str:
    """A password of the shapes that survived rule set 14 after a login's user; ``years``:
    a word and a year's digits among them ("violet-1963" after "pass is" names a pass)."""
    word = rng.choice(_WORDS)
    shape = rng.randrange(6)
    if shape == 0:
        return "P@ssw0rd" + str(rng.randint(2000, 2030))  # '@': read as user@host
    if shape == 1:
        return word.lower() + str(rng.randint(1, 9)) + rng.choice(("fox", "reef", "kite")) + "42"
    if shape == 2:
        # A word and a year's digits (or four others).
        return (
            word.lower() + "-" + str(rng.randint(1000, 2099) if years else rng.randint(2100, 9999))
        )
    if shape == 3:
        return rng.choice("%~^!+") + word + rng.choice("._") + str(rng.randint(100, 999))
    if shape == 4:
        return "-" + word + str(rng.randint(10, 99)) + "Qz!"
    return (
        rng.choice(("blue", "quiet", "copper")) + "-" + word.lower() + "-" + str(rng.randint(2, 99))
    )


def _gone(text: str, secret: str) -> None:
    out, found = scrub_text(text)
    assert secret not in out and found["password"] >= 1, (text, out)
    assert scrub_text(out)[0] == out, (text, out)  # idempotent


def _stays(text: str) -> None:
    out, found = scrub_text(text)
    assert not found and out == text, (text, out)


def test_the_rule_set_is_new() -> None:
    # The import digest holds the version: a re-import scrubs every record again.
    assert RULES_VERSION >= 15


_LOGIN_FORMS = (
    "login: {u} / {p}",
    "login {u} / {p}",
    "Login: {u} / pw {p}",
    "login: {u} / pass {p}",
    "user {u} pass {p}",
    "logins: {u} / {p} (staging)",
    "login => {u} / {p}",
    "logon: {u} / {p}",
    "sign-in: {u} / {p}",
    "router login: {u} / {p}",
    "Login for the router: {u}/{p}",
    "the login for the switch is {u}/{p}",
    "Login details: {u} / {p}",
)


@pytest.mark.parametrize("form", _LOGIN_FORMS)
def test_a_password_after_a_login_and_its_user_goes_whatever_its_shape(form: str) -> None:
    rng = random.Random(form)
    for _ in range(12):
        pw = _password(rng)
        _gone(form.format(u=rng.choice(_USERS), p=pw), pw)


@pytest.mark.parametrize(
    "text",
    [
        "login server01 gpu-02",
        "login: ann / x1-y2-z3-the-id",
        "login root@db01",
        "logon: server01",
        "logins: gpu-01, gpu-02",
        "login to db01 / db02 failed",
        "login => dashboard / overview",
        "sign-in: ann / in-n-out",
    ],
)
def test_a_host_or_an_id_after_a_login_stays(text: str) -> None:
    _stays(text)


_YAML_FORMS = (
    "db: {{user: app, password: {p}}}\n",
    "creds: {{user: app, pass: {p}, port: 443}}\n",
    "- {{name: crm, user: sync, password: {p}}}\n",
    "smtp:\n  credentials:\n    user: mailer\n    password: {p}\n  port: 587\n",
    "spring:\n  datasource:\n    username: shop\n    password: {p}\n",
    "stringData:\n  username: app\n  redis-password: {p}\n",
)


@pytest.mark.parametrize("form", _YAML_FORMS)
def test_a_yaml_password_under_a_parent_or_in_flow_style_goes(form: str) -> None:
    rng = random.Random(form)
    for _ in range(12):
        pw = _password(rng).lstrip("-")
        text = form.format(p=pw)
        _gone(text, pw)
        out = scrub_text(text)[0]
        # A flow mapping's closing brace is the mapping's, not the value's.
        assert out.count("}") == text.count("}"), (text, out)


_PROSE_FORMS = (
    "the admin pass is {p}",
    "wifi password was {p}",
    "the root pw for box3 = {p}",
    "the new jenkins admin password is {p}",
    "backup user pw -> {p}",
    "Guest network passphrase is {p}.",
)


@pytest.mark.parametrize("form", _PROSE_FORMS)
def test_a_password_named_by_a_noun_phrase_goes(form: str) -> None:
    rng = random.Random(form)
    for _ in range(12):
        pw = _password(rng, years="pass is" not in form)
        _gone(form.format(p=pw), pw)


@pytest.mark.parametrize(
    "text",
    [
        "the bus pass is valid-for-30-days",
        "the season pass is summer-2024",
        "the day pass is one-day-only",
        "the password file is ~/notes/pw.txt",
        "the password is in ~deploy",
        "the admin pass is us-east-1",
    ],
)
def test_what_a_pass_is_good_for_or_a_home_path_stays(text: str) -> None:
    _stays(text)


@pytest.mark.parametrize("lead", "%~^*+!")
def test_a_password_starting_with_punctuation_goes(lead: str) -> None:
    rng = random.Random(lead)
    for _ in range(10):
        pw = lead + "".join(rng.choice("abcXYZ0123456789") for _ in range(rng.randint(7, 11)))
        form = rng.choice(("password={p}", "PASS='{p}'", 'db_pass: "{p}"', "SMTP_PASSWORD={p}"))
        _gone(form.format(p=pw), pw)


@pytest.mark.parametrize(
    "text",
    [
        "password=%DB_PASSWORD%",
        "PASS='%APPDATA%\\\\pw'",
        "password: %s",
        "password = %(password)s",
        "password: %password",
        "print('pad=%s\\npassword=%s\\nuser=%s' % (pad, pw, user))",
        'PASS="%d-%d-%d"',
        "password=%-12s|%08x",
    ],
)
def test_a_percent_placeholder_stays(text: str) -> None:
    _stays(text)


def test_a_redis_monitor_auth_goes_and_its_commands_stay() -> None:
    rng = random.Random(15)
    for _ in range(10):
        pw = _password(rng)
        user = rng.choice(("", '"default" '))
        text = (
            f'1733548.952453 [0 10.0.0.7:51234] "AUTH" {user}"{pw}"\n1733548.95 [0 x] "GET" "k"\n'
        )
        _gone(text, pw)
    _stays('1733548.952453 [0 10.0.0.7:51234] "GET" "session:42"\n')
    _stays('"AUTH" "${REDIS_PASSWORD}"\n')


_POINTERS = (
    "see-the-wiki",
    "see the wiki",
    "ask Bob",
    "ask-bob",
    "ask_ops",
    "in 1Password",
    "in-1password",
    "in-the-vault",
    "check-the-vault",
    "same-as-before",
    "same as before",
    "TBD",
    "todo",
    "n/a",
    "<redacted>",
    "********",
    "pinned-in-channel",
    "dm-me",
    "see-INFRA-4411",
    "see-ticket-4411",
)
_POINTER_PLACES = (
    "password: {v}",
    "creds: deploy01 / {v}",
    "pw: {v}",
    "the password is {v}",
    "DB_PASSWORD={v}",
    'password = "{v}"',
    "login: ann / {v}",
    "account ann / {v}",
    "the admin pass is {v}",
    "db: {{user: app, password: {v}}}",
)


@pytest.mark.parametrize("place", _POINTER_PLACES)
def test_a_pointer_where_a_password_would_stand_stays(place: str) -> None:
    for pointer in _POINTERS:
        _stays(place.format(v=pointer))


@pytest.mark.parametrize(
    "password",
    ["sunshine42", "see-you-2024", "askme123!", "checkmate99", "in3ed!ble", "blue-sky-42"],
)
def test_a_password_of_words_beside_the_pointers_still_goes(password: str) -> None:
    for place in ("password: {v}", "creds: deploy01 / {v}", "DB_PASSWORD={v}", "login: ann / {v}"):
        _gone(place.format(v=password), password)


@pytest.mark.parametrize("user", ["root", "admin", "sa", "Administrator", "postgres"])
def test_an_administrators_user_and_password_with_no_word_before_goes(user: str) -> None:
    rng = random.Random(user)
    for _ in range(10):
        pw = _password(rng, years=False).lstrip("-")
        if pw[0] in "%~^!+":
            pw = "Q" + pw
        place = rng.choice(("[10:02] <ops> {u}/{p} on the new switch", "use {u} / {p}", "{u}/{p}"))
        _gone(place.format(u=user, p=pw), pw)


@pytest.mark.parametrize(
    "text",
    [
        "/root/lib64_x86",
        "cd root/config_v2.py",
        "see admin/invoices2024",
        "root/us-east-1",
        "ls ~admin/x_1",
        "admin/users/42",
        "https://example.com/admin/page_2",
        "and/or 50%",
    ],
)
def test_a_path_or_a_folder_after_an_administrators_name_stays(text: str) -> None:
    _stays(text)


def test_a_yaml_list_of_key_and_value_pairs_names_its_password() -> None:
    rng = random.Random(7)
    for _ in range(10):
        pw = _password(rng).lstrip("-")
        _gone(f"env:\n  - key: db_password\n    value: {pw}\n  - key: region\n", pw)
    _stays("  - key: db_password\n    value: ${DB_PASSWORD}\n")
    _stays("  - key: region\n    value: us-east-1\n")


def test_a_password_starting_with_a_bang_before_a_redirection_goes() -> None:
    # Read as a YAML tag before a block scalar ("password: !vault |") when '>' followed it.
    rng = random.Random(21)
    for _ in range(10):
        pw = "!" + "".join(rng.choice("abcXYZ0123456789-") for _ in range(rng.randint(9, 16)))
        head = rng.choice(("RUN echo POSTGRES_PASSWORD=", "echo DB_PASS=", "password: "))
        _gone(f"#7 [build 3/6] {head}{pw} {rng.choice(('>>', '>', '|'))} .env", pw)
    _stays("password: !secret wifi_password\n")
    _stays('the tag in "password: !vault |" takes the lines after it')


def test_a_flags_password_starting_with_a_dash_goes_and_a_flag_stays() -> None:
    # Seed 80808's one untuned survivor (held-out-13's shell history), as a class.
    rng = random.Random(80808)
    for _ in range(10):
        pw = "-" + rng.choice("kQz") + "".join(rng.choice("abc0123456789+XY") for _ in range(12))
        head = rng.choice(
            (
                "aws ssm put-parameter --name /app/db_password --value ",
                "aws secretsmanager create-secret --name db --secret-string ",
                "redis-server --requirepass ",
            )
        )
        _gone(f" 935  {head}{pw} --type SecureString\n", pw)
    _stays("openssl enc -k -aes256 -in notes.txt\n")
    _stays("aws ssm put-parameter --name x --value -verbose\n")
