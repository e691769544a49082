"""Rule set 16: rule set 15's known gaps and held-out-16's classes, and their near sides.

A password that opens with a bracket it leaves open ("(Kx9!aa7", "<tango548!", "[Willow536?")
wherever a password stands; one of letters only where the sentence hands it out ("the
password is calvin", "login root/calvin"); a user's name before "/" kept ("Login for the
router: ann/X"); "password for the NAS X" and its kin in other languages with no link word;
a PIN or a door code; AUTH at a Redis prompt holding "&"; a "-" first after sqlcmd's -P;
NVIDIA, Cerebras, Pinecone and Resend keys. What stays: placeholders in brackets, words that
say what a password is ("incorrect", "required"), tickets ("the season pass is
summer-2024"), GPIO pins, versions and users after "password for". Each case is generated
from parts and checked for idempotence.
"""

from __future__ import annotations

import random

import pytest

from memtrails.secrets import RULES_VERSION, scrub_text

_RNG_SEED = 16
_WORDS = ("lagoon", "Saffron", "birch", "Meteor", "quartz", "Willow", "tango")


def _gone(text: str, secret: str, keep: str = "") -> None:
    out, found = scrub_text(text)
    assert secret not in out and sum(found.values()) >= 1, (text, out)
    assert keep in out, (text, out)  # what is no secret stays
    assert scrub_text(out)[0] == out, (text, out)  # idempotent


def _stays(text: str) -> None:
    out, found = scrub_text(text)
    assert not found and out == text, (text, out)


def test_the_rule_set_is_new() -> None:
    # The import digest holds the version: a re-import scrubs every record again.
    assert RULES_VERSION >= 16


def _bracketed(rng: random.Random) -> str:
    word = rng.choice(_WORDS)
    return rng.choice("(<[") + word + str(rng.randint(100, 999)) + rng.choice("!?#")


_BRACKET_FORMS = (
    "password={p}",
    "DB_PASS='{p}'",
    'pwd: "{p}"',
    "password: {p}\nhost: db01",
    "Server=db01;User ID=app;Password={p};Encrypt=True;",
    "the password is {p}",
    "mysql -u root -p'{p}' shop",
    "curl --user 'deploy:{p}' https://nexus.example.com/",
    "openssl pkcs12 -in c.p12 -passin pass:{p} -out c.pem",
    "machine git.example.org login ci password {p}",
)


@pytest.mark.parametrize("form", _BRACKET_FORMS)
def test_a_password_opening_with_a_bracket_goes(form: str) -> None:
    rng = random.Random(f"{_RNG_SEED}{form}")
    for _ in range(4):
        p = _bracketed(rng)
        _gone(form.format(p=p), p)


@pytest.mark.parametrize(
    "text",
    [
        "password=(optional)",
        "password (required)",
        "password (v1.2.3 and later)",
        "password=<your-password>",
        "password=<password1>",
        "password: [REDACTED]",
        "password = getpass()",
        "password = config[0]",
        "password = f(x1)",
        'password = ENV["DB_PASSWORD"]',
        "password: hashedPassword",
        "the password is (see the wiki)",
    ],
)
def test_brackets_of_placeholders_and_code_stay(text: str) -> None:
    _stays(text)


_LETTERS = ("calvin", "sunshine", "letmein", "dragonfly", "Marigold", "kangaroo", "raspberry")
_LETTER_FORMS = (
    "the password is {p}",
    "my password is {p}, don't tell anyone",
    "The wifi password is {p}.",
    "pw: {p}",
    "ssh root@10.0.0.7 (password: {p})",
    "login root/{p}",
    "iDRAC login root/{p}",
    "default creds are admin/{p}",
    "Login for the router: ann/{p}",
)


@pytest.mark.parametrize("form", _LETTER_FORMS)
def test_a_password_of_letters_only_goes_where_it_is_handed_out(form: str) -> None:
    for p in _LETTERS:
        user = "ann/" if "ann/" in form else ("root/" if "root/" in form else "")
        _gone(form.format(p=p), p, keep=user)


@pytest.mark.parametrize(
    ("text", "word"),
    [
        ("Guest wifi: the password is monday. See you monday at the standup.", "monday"),
        ("the admin password is summer, the summer party is on friday", "summer"),
        ("(password: tortoise) The tortoise in the garden ate the lettuce.", "tortoise"),
    ],
)
def test_a_letters_only_password_takes_no_other_copies_of_its_word(text: str, word: str) -> None:
    # Other copies of a found secret go with it (secrets/copies.py); a password of letters
    # alone is a word, and its other copies are that word: "See you monday" keeps "monday".
    once, _ = scrub_text(text)
    assert once.count(word) == 1, once
    assert scrub_text(once)[0] == once


@pytest.mark.parametrize(
    "text",
    [
        "The password is wrong.",
        "the password is incorrect, try again",
        "The password is Expired.",
        "Your password is insufficient.",
        "The password is hidden",
        "password: required",
        "Password is mandatory!",
        "the password is different",
        "my password is rotated",
        "password is stored in the vault",
        "das Passwort ist falsch",
        "login ann/projects",
        "login admin/settings",
        "the login page is broken",
        "the password manager is bitwarden",
    ],
)
def test_words_about_a_password_stay(text: str) -> None:
    _stays(text)


@pytest.mark.parametrize(
    "form",
    [
        "Login for the router: {u}/{p}",
        "login: {u}/{p}",
        "creds: {u}/{p} for staging",
        "the login for the switch is {u}/{p}",
    ],
)
def test_the_user_before_the_password_stays(form: str) -> None:
    rng = random.Random(f"{_RNG_SEED}{form}")
    for user in ("ann", "deploy", "svc_backup"):
        p = rng.choice(_WORDS).lower() + "-" + str(rng.randint(10, 99)) + rng.choice("!#Q")
        _gone(form.format(u=user, p=p), p, keep=f"{user}/")


_FOR_FORMS = (
    "пароль от wifi {p}",
    "[12:21] Mila: пароль от роутера {p}",
    "password for the NAS {p}",
    "mot de passe du wifi {p}",
    "Passwort für das WLAN {p}",
    "hasło do routera to {p}",
    "contraseña del wifi {p}",
)


@pytest.mark.parametrize("form", _FOR_FORMS)
def test_a_password_after_what_it_is_for_goes(form: str) -> None:
    rng = random.Random(f"{_RNG_SEED}{form}")
    for _ in range(3):
        p = rng.choice(_WORDS) + rng.choice("#!-") + str(rng.randint(100, 9999))
        _gone(form.format(p=p) + "\n", p)


@pytest.mark.parametrize(
    "text",
    [
        "reset the password for user ann2024",
        "Updated password for service accounts in v2.3.1",
        "Password for root changed 2024-01-05",
        "password for the build server see-the-wiki",
        "пароль от wifi на роутере",
    ],
)
def test_what_a_password_is_for_alone_stays(text: str) -> None:
    _stays(text)


_PIN_FORMS = (
    "PIN: {n}",
    "the PIN for the door is {n}",
    "le code PIN est {n}",
    "die PIN lautet {n}",
    "код от домофона {n}",
    "gate code is {n}",
    "SIM PIN {n}, thanks",
)


@pytest.mark.parametrize("form", _PIN_FORMS)
def test_a_pin_goes(form: str) -> None:
    rng = random.Random(f"{_RNG_SEED}{form}")
    for digits in (6, 7, 8):
        n = str(rng.randint(10 ** (digits - 1), 10**digits - 1))
        _gone(form.format(n=n), n)


@pytest.mark.parametrize(
    "text",
    [
        "the PIN is on the back of the card",
        "GPIO pin 18 is the LED",
        "pin numpy to 1.26.4",
        "PIN 2 of the header",
        "PIN: required",
        "The PIN must be 4 digits.",
        "Pin 123456 to the dashboard",
        "Your PIN is 4711.",  # under 6 characters: left by design, as every value
        "код ошибки 500123",
        "the season pass is summer-2024",
        "my boarding pass is gate-B12",
        "the ski pass is season-2025",
    ],
)
def test_pins_of_boards_and_passes_of_tickets_stay(text: str) -> None:
    _stays(text)


def test_commands_and_prompts() -> None:
    rng = random.Random(_RNG_SEED)
    for _ in range(4):
        p = rng.choice(_WORDS) + str(rng.randint(10, 99)) + "&" + rng.choice(("TFC5", "x9Qa"))
        _gone(f"127.0.0.1:6379> AUTH {p}\nOK\n", p)
        dashed = "-" + rng.choice(_WORDS) + str(rng.randint(1000, 9999))
        _gone(f'sqlcmd -S db01 -U sa -P {dashed} -Q "SELECT 1"', dashed)
        _gone(f"unrar x -p{dashed[1:]}! backup.rar", dashed[1:] + "!")
        _gone(f'$c = [System.Net.NetworkCredential]::new("ann", "{dashed[1:]}!")', dashed[1:])
    _stays("unrar x -p- archive.rar")
    _stays("mysql -u root -p -h db01 shop")
    _stays('sqlcmd -S db01 -E -Q "SELECT 1"')
    _stays("127.0.0.1:6379> AUTH\n(error) ERR wrong number of arguments\n")


@pytest.mark.parametrize(
    "prefix, alphabet, length",
    [
        ("nvapi-", "abcdefghijklmnopqrstuvwxyzABCDEFGHIJ0123456789_-", 64),
        ("csk-", "abcdefghijklmnopqrstuvwxyz0123456789", 48),
        ("pcsk_4Xz9q_", "abcdefghijklmnopqrstuvwxyzABCDEFGHIJ0123456789", 60),
    ],
)
def test_keys_of_more_providers_go_anywhere(prefix: str, alphabet: str, length: int) -> None:
    rng = random.Random(f"{_RNG_SEED}{prefix}")
    key = prefix + "7" + "".join(rng.choice(alphabet) for _ in range(length - 1))
    _gone(f"try this one {key} and tell me if it works", key)
    _gone(f"| staging | {key} |", key)


@pytest.mark.parametrize(
    "text",
    [
        'tok = re.findall("token=([a-z0-9]+)", url)[0]',
        "new_key = (keys_vals[1][0], object())",
        "if not username and not password:\n    username, password, save = self._prompt()",
    ],
)
def test_code_read_as_a_bracket_or_letters_stays(text: str) -> None:
    # Found in site-packages by benchmarks/scrub_false_positives.py during this pass.
    _stays(text)


_MORE_LANGUAGES = (
    "كلمة السر هي {p}",
    "הסיסמה היא {p}",
    "पासवर्ड है {p}",
    "wifi şifresi: {p}",
    "kata laluan: {p}",
    "รหัสผ่านคือ {p}",
    "ο κωδικός είναι {p}",  # noqa: RUF001 (Greek)
    "parola este {p}",
    "jelszava {p}",
    "رمز عبور: {p}",
)


@pytest.mark.parametrize("form", _MORE_LANGUAGES)
def test_a_password_in_more_languages_goes(form: str) -> None:
    rng = random.Random(f"{_RNG_SEED}{form}")
    p = rng.choice(_WORDS) + rng.choice("#!*") + str(rng.randint(100, 9999))
    _gone(form.format(p=p), p)


@pytest.mark.parametrize(
    "form",
    [
        "OTP: {n}",
        "your verification code is {n}",
        "2FA code {n}",
        "backup codes: {n} 19283-48271",
        "Recovery codes (keep safe):\n{n}, 4f8a9-9k2m1",
    ],
)
def test_one_time_and_recovery_codes_go(form: str) -> None:
    rng = random.Random(f"{_RNG_SEED}{form}")
    n = (
        str(rng.randint(10000, 99999))
        + ("-" if "codes" in form else "")
        + str(rng.randint(1000, 9999))
    )
    _gone(form.format(n=n), n)


@pytest.mark.parametrize(
    "text",
    [
        "la parola è bella",
        "şifre değişti",
        "κωδικός σφάλματος 500123",
        "error code 482913",
        "OTP length is 6",
        "recovery codes: well-known",
        "recovery codes: see the vault",
        "the backup code feature is enabled",
    ],
)
def test_words_and_codes_that_name_no_secret_stay(text: str) -> None:
    _stays(text)


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ("mysql -u root -p'[mtw4IUjBL)' shop", "[mtw4IUjBL)"),
        ("DB_PASS='<itLT2gXrx]'", "<itLT2gXrx]"),
        ("docker run -d -e POSTGRES_PASSWORD=[Meteor806 -p 5432:5432 postgres", "[Meteor806"),
        ("the password is (Birch42 now", "(Birch42"),
    ],
)
def test_a_bracket_first_password_closed_by_another_bracket_goes(text: str, secret: str) -> None:
    # Seed 4711 of held-out-16 (untuned, run once): another kind of bracket inside, and a
    # word and three digits after the bracket, survived the first form of the rule.
    _gone(text, secret)


@pytest.mark.parametrize(
    "form", ["Wi-Fiのパスワードは{p}です", "密码是{p}。", "비밀번호는 {p}입니다"]
)
def test_a_passphrase_glued_to_a_script_without_spaces_goes(form: str) -> None:
    # Seed 31337 of held-out-16 (untuned, run once): the passphrase's end was read as a
    # file's name going on ("notes-for-ann.txt"), where Japanese text went on.
    rng = random.Random(f"{_RNG_SEED}{form}")
    p = "-".join(rng.sample(["copper", "meadow", "lantern", "quiet", "falcon"], 2)) + "-42"
    _gone(form.format(p=p), p)
