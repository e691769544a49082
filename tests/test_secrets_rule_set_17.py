"""Rule set 17: rule set 16's known gaps and held-out-17's classes, and their near sides.

A password of letters only after "login ann/" (any user, not a folder's plural), after
words for a password in six more languages, or followed by "for now"; Wi-Fi cards ("SSID:
X / Key: Y"); "basic auth is ann:X"; archive and crypto commands (RAR's glued "-hp", a
quoted passphrase with spaces, htpasswd with more flags, where the user was taken for the
password); SQL's "IDENTIFIED WITH plugin BY" and Oracle's bare "IDENTIFIED BY X"; a mail
client's login(user, X); Gradle's "storePassword "X""; a property list's key and string;
a YAML anchor before a secret (the anchor's name was taken for the value); a recovery
phrase; verification codes in more languages; a flag's "<(echo X)"; Express' connect.sid.
What stays: security types, pointers, plurals and pages after "login ann/", words that say
what a password is in those languages, commands without a password. Each case is generated
from parts and checked for idempotence.
"""

from __future__ import annotations

import random

import pytest

from memtrails.secrets import RULES_VERSION, scrub_text

_RNG_SEED = 17
_WORDS = ("harbor", "Cobalt", "maple", "Zephyr", "ember", "Juniper", "nova")
_LETTERS = ("kangaroo", "sunflower", "moonlight", "Pelican", "whistler", "bluebird")


def _gone(text: str, secret: str, keep: str = "") -> None:
    out, found = scrub_text(text)
    assert secret not in out and sum(found.values()) >= 1, (text, out)
    assert keep in out, (text, out)  # what is no secret stays
    assert scrub_text(out)[0] == out, (text, out)  # idempotent


def _stays(text: str) -> None:
    out, found = scrub_text(text)
    assert not found and out == text, (text, out)


def _password(rng: random.Random) -> str:
    shape = rng.randrange(3)
    if shape == 0:
        return rng.choice(_WORDS) + rng.choice("!*#@?") + str(rng.randint(10, 9999))
    if shape == 1:
        return "".join(
            rng.choice("abcdefghijkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789")
            for _ in range(14)
        )
    return (
        rng.choice(_WORDS).capitalize() + rng.choice(_WORDS).capitalize() + str(rng.randint(10, 99))
    )


def test_the_rule_set_is_new() -> None:
    # The import digest holds the version: a re-import scrubs every record again.
    assert RULES_VERSION >= 17


_LETTER_FORMS = (
    "login ann/{p}",
    "login deploy/{p}",
    "the password is {p} for now",
    "the password is {p} for now.",
    "a senha é {p}",
    "la password è {p}",
    "le mot de passe est {p}",
    "das Passwort lautet {p}",
    "la contraseña es {p}",
    "het wachtwoord is {p}",
    "пароль: {p}",
)


@pytest.mark.parametrize("form", _LETTER_FORMS)
def test_a_letters_only_password_goes_in_more_places(form: str) -> None:
    for p in _LETTERS:
        user = form.split(" ")[1].split("/")[0] + "/" if "login" in form else ""
        _gone(form.format(p=p), p, keep=user)


@pytest.mark.parametrize(
    "text", ["la password è tornado", "das Passwort lautet tornado", "the password is tornado"]
)
def test_a_participles_ending_counts_only_in_its_own_language(text: str) -> None:
    # "-ado" ends Spanish's and Portuguese's participles ("cambiada"), not Italian's or
    # German's: there it is a password's.
    _gone(text, "tornado")


@pytest.mark.parametrize(
    "text",
    [
        "login ann/projects",
        "login admin/settings",
        "login google/facebook",
        "login page/overview",
        "the password is wrong for now",
        "das Passwort ist falsch",
        "le mot de passe est incorrect",
        "la contraseña es incorrecta",
        "a senha é obrigatoria",
        "het wachtwoord is onjuist",
        "het wachtwoord van de NAS is veranderd",
        "das Passwort ist gesperrt",
        "la contraseña es cambiada",
        "la password è scaduta",
    ],
)
def test_letters_that_say_what_a_password_is_stay(text: str) -> None:
    _stays(text)


_CARD_FORMS = (
    "SSID: HomeNet-5G / Key: {p}",
    "Netzwerk: FRITZ!Box 7590 / Schlüssel: {p}",
    "SSID HomeNet, WPA2 key: {p}",
    "wifi CafeNet key {p}",
    "WLAN: Office_WLAN, Passwort: {p}",
    "basic auth is deploy:{p}",
    "account: ann:{p}",
)


@pytest.mark.parametrize("form", _CARD_FORMS)
def test_a_wifi_card_and_a_user_colon_password_go(form: str) -> None:
    rng = random.Random(f"{_RNG_SEED}{form}")
    for _ in range(3):
        p = _password(rng)
        _gone(form.format(p=p), p, keep=form.split("{p}")[0])


@pytest.mark.parametrize(
    "text",
    [
        "SSID: HomeNet-5G / Security: WPA2",
        "SSID: HomeNet-5G / Key: WPA2-PSK",
        "wifi key is on the sticker under the router",
        "account: arn:aws:iam::123456789012:root",
        "basic auth: user:password",
        "the wifi network is slow, key point: we need 5G",
    ],
)
def test_cards_without_a_key_stay(text: str) -> None:
    _stays(text)


_COMMAND_FORMS = (
    "rar a -hp{p} -m5 backup.rar ./docs",
    "gpg --batch --passphrase '{w} {w} {w}' -c notes.txt",
    'gpg --pinentry-mode loopback --passphrase "{w} {w} {p}" --symmetric x',
    "htpasswd -b -c .htpasswd admin {p}",
    "htpasswd -cbB /etc/nginx/.htpasswd ann {p}",
    "ALTER USER 'root'@'localhost' IDENTIFIED WITH mysql_native_password BY '{p}';",
    "create user scott identified by {p};",
    "server.login('alerts@example.com', '{p}')",
    "@daily rsync -a /srv rsync://backup@nas/srv --password-file=<(echo {p})",
    'signingConfigs {{\n    release {{\n        storePassword "{p}"\n    }}\n}}',
    "<dict>\n\t<key>API_SECRET</key>\n\t<string>{p}</string>\n</dict>",
    "defaults:\n  password: &db_pw {p}\nstaging:\n  password: *db_pw",
    "defaults:\n  secret: &anchor {p}\n",
)


@pytest.mark.parametrize("form", _COMMAND_FORMS)
def test_commands_statements_and_config_files_lose_their_password(form: str) -> None:
    rng = random.Random(f"{_RNG_SEED}{form}")
    for _ in range(3):
        p = _password(rng)
        if "identified by {p};" in form:  # Oracle's bare word: letters and digits
            p = "".join(c for c in p if c.isalnum()) + str(rng.randint(10, 99))
        w = rng.choice(_WORDS).lower()
        text = form.format(p=p, w=w)
        secret = p if "{p}" in form else text.split("'")[1]
        keep = "&db_pw " if "&db_pw" in form else ("admin " if "admin" in form else "")
        _gone(text, secret, keep=keep)


@pytest.mark.parametrize(
    "text",
    [
        "rar a -hp backup.rar ./docs",
        "gpg --batch --passphrase-file ~/.gnupg/pw.txt -d vault.gpg",
        "CREATE USER app IDENTIFIED EXTERNALLY;",
        "CREATE USER app IDENTIFIED BY :new_password;",
        "server.login(user, password)",
        'storePassword System.getenv("STORE_PASSWORD")',
        "<key>CFBundleShortVersionString</key>\n<string>2.1.0</string>",
        "defaults: &defaults\n  adapter: postgres\n  host: db01\n",
        "key: value\nanchor: &base\n  timeout: 30\n",
    ],
)
def test_the_same_places_without_a_password_stay(text: str) -> None:
    _stays(text)


_CODE_FORMS = (
    "Ваш код подтверждения: {c}",
    "tu código de verificación es {c}",
    "Ihr Bestätigungscode: {c}",
    "验证码\uff1a{c}",
    "認証コード: {c}",
)


@pytest.mark.parametrize("form", _CODE_FORMS)
def test_a_verification_code_in_more_languages_goes(form: str) -> None:
    rng = random.Random(f"{_RNG_SEED}{form}")
    code = str(rng.randint(100000, 999999))
    _gone(form.format(c=code), code)


_BIP = ("advice", "about", "airport", "advance", "again", "alarm", "album", "alert", "alien")


@pytest.mark.parametrize(
    "lead", ["recovery phrase: ", "my wallet's mnemonic: ", "frase de recuperación: "]
)
def test_a_recovery_phrase_goes(lead: str) -> None:
    rng = random.Random(f"{_RNG_SEED}{lead}")
    phrase = " ".join(rng.choice(_BIP) for _ in range(12))
    _gone(lead + phrase, phrase)


@pytest.mark.parametrize(
    "text",
    [
        "the recovery phrase is written on paper in the safe",
        "I'll send you the verification code by SMS",
        "your code expires in 10 minutes",
    ],
)
def test_prose_about_phrases_and_codes_stays(text: str) -> None:
    _stays(text)


def test_an_express_session_cookie_in_a_log_line_goes() -> None:
    v = "s%3ADSVGJfrdm40__1RO6pOO2SWmxObjaBmC.IWFEvyAaaa%ukH1yfUuxCC4Ix"
    _gone(f"DEBUG express-session cookie connect.sid={v}\n", "DSVGJfrdm40__1RO6pOO2SWmxObjaBmC")
