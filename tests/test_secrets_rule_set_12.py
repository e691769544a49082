"""Rule set 12: passwords named by a verb for logging in or by "login is ann, pass is X" in six
languages, passphrases, credential files named before their lines, tokens glued to a word by
"-", IBM Cloud keys; and the line between "use ann / X to log in" (a password) and "account
billing / invoices2024" (a folder): the words around the "/" decide it.

Every value here is invented. The generated cases draw users, passwords and the words around
them from a seeded generator: the class, not one example.
"""

from __future__ import annotations

import random

import pytest

from memtrails.secrets import RULES_VERSION, scrub_text

PW = "Xk3!pq9Lm"
_USERS = ("ann", "admin", "deploy", "jdoe", "svc_backup", "root", "ops@example.com")
_WORDS = ("correct", "horse", "battery", "staple", "marble", "velvet", "rocket", "meadow")
_STRONG = ("Tr0ub4dor&3", "hunter9sunset29", "P@ssw0rd2024", "kitten4Pepper36", "Qz4!mK8pWd")
# A word and a year, or a word, "-" or "_" and one digit: a folder after "account NAME /" (a
# word and other digits, "tigers66", is a password there since rule set 13, a word glued to
# one digit, "tigers6", since rule set 14: test_secrets_rule_set_13 and _14).
_WEAK = ("invoices2024", "reports2023", "budget-2024", "sprint_4", "archive-2", "exports2019")


def _passphrase(rng: random.Random) -> str:
    words = [rng.choice(_WORDS) for _ in range(rng.randint(3, 5))]
    if rng.random() < 0.5:
        words.insert(rng.randint(1, len(words) - 1), str(rng.randint(0, 99)))
    return "-".join(words)


def test_the_rule_set_is_new() -> None:
    # A folder scrubbed by an earlier set lists both in its manifest after the next import,
    # and the import's digest holds the version: a re-import scrubs every record again.
    assert RULES_VERSION >= 12


# --- A user, "/" and a password after a verb for logging in ----------------------------------

_LOGIN_FORMS = (
    "use {u} / {p} to log in",
    "use {u} / {p} for login",
    "you can log in with {u} / {p}",
    "sign in as {u} / {p} on the staging box",
    "login with `{u}` / `{p}`",
    "Melde dich mit {u} / {p} an",
    "connecte-toi avec {u} / {p}",
    "entra con {u} / {p} para iniciar sesión",
    "accedi con {u} / {p}",
    "entra com {u} / {p}",
    "log in met {u} / {p}",
)


@pytest.mark.parametrize("seed", range(6))
def test_a_password_after_a_verb_for_logging_in_goes(seed: int) -> None:
    rng = random.Random(seed)
    for form in _LOGIN_FORMS:
        # A word and a number goes here too: the verb says what the value is for.
        p = rng.choice((*_STRONG, *_WEAK, _passphrase(rng)))
        text = form.format(u=rng.choice(_USERS), p=p)
        out, found = scrub_text(text)
        assert p not in out and found["password"] == 1, text


@pytest.mark.parametrize("seed", range(6))
def test_a_word_and_a_number_after_account_and_a_slash_stays(seed: int) -> None:
    """No word for a password, no verb for logging in: "account billing / invoices2024"."""
    rng = random.Random(seed)
    heads = ("account", "the shared account", "see account", "user", "folder", "team")
    names = ("billing", "reports", "finance", "sales", "admin", "ops", "hr", "ann")
    for _ in range(20):
        text = f"{rng.choice(heads)} {rng.choice(names)} / {rng.choice(_WEAK)}"
        text += rng.choice(("", " for the totals", ".", " is read-only"))
        out, found = scrub_text(text)
        assert not found and out == text


@pytest.mark.parametrize("p", _STRONG)
def test_a_strong_password_after_account_and_a_slash_still_goes(p: str) -> None:
    out, found = scrub_text(f"the shared account ann / {p}")
    assert p not in out and found["password"] == 1


@pytest.mark.parametrize(
    "text",
    [
        "use admin / the usual to log in",
        "log in with Google / GitHub",
        "sign in with SSO / Okta",
        "login with email / password",
        "use the API / CLI to log in",
        "log in with ann / see-the-notes.txt",
        "log in as ann / 2024-05-01",
        "use ann / Tr0ub4dor&3 for now",  # "use" alone names no login
    ],
)
def test_login_sentences_without_a_password_stay(text: str) -> None:
    out, found = scrub_text(text)
    assert not found and out == text


# --- "login is ann, pass is X", passphrases, credentials words -------------------------------


@pytest.mark.parametrize("seed", range(4))
def test_passphrases_after_a_word_for_a_password_go(seed: int) -> None:
    rng = random.Random(seed)
    forms = (
        "the wifi password is {p}",
        "Guest wifi passphrase: {p}",
        "login is {u}, pass is {p}",
        "username is {u} and the pass is {p}",
        "das WLAN-Passwort ist {p}",
        "le mot de passe du wifi est {p}.",
        "la contraseña del wifi es {p}",
        "a senha do wifi é {p}",
        "het wachtwoord is {p}",
        "creds: {u}:{p}",
    )
    for form in forms:
        p = _passphrase(rng)
        text = form.format(u=rng.choice(_USERS[:5]), p=p)
        out, found = scrub_text(text)
        assert p not in out and found["password"] == 1, text


@pytest.mark.parametrize(
    "text",
    [
        "the password is case-sensitive",
        "the password is state-of-the-art",
        "the password file is notes-for-the-team.txt",
        "the password policy is one-per-user",
        "pass is one-way-only",  # "pass" alone: lowercase words joined by "-" read as words
        "the bus pass is zone-1-only",
    ],
)
def test_hyphenated_words_that_are_no_passphrase_stay(text: str) -> None:
    out, found = scrub_text(text)
    assert not found and out == text


@pytest.mark.parametrize(
    "text",
    [
        f"Zugangsdaten: ann:{PW}",
        f"Anmeldedaten: ann / {PW}",
        f"identifiants : ann:{PW}",
        f"credenciales: ann:{PW}",
        f"credenziali: ann:{PW}",
        f"credenciais: ann:{PW}",
        f"inloggegevens: ann:{PW}",
        f"creds: ops@example.com:{PW}",
        f"Login ist ann, Passwort ist {PW}",
        f"identifiant ann, mot de passe {PW}",
        f"usuario ann, contraseña {PW}",
    ],
)
def test_credentials_in_other_languages_go(text: str) -> None:
    out, found = scrub_text(text)
    assert PW not in out and found["password"] == 1


# --- Credential files after their names ------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        f"$ sudo cat /etc/rsyncd.secrets\nbackup:{PW}\n",
        f"/etc/rsyncd.secrets:\n@admins:{PW}\nann:{PW}",
        f"# /etc/postfix/sasl_passwd\n[smtp.gmail.com]:587 ann@example.com:{PW}\n",
        f"$ cat /etc/postfix/sasl_passwd\nsmtp.example.com ann:{PW}\n$ postmap x",
        f"/etc/exim4/passwd.client:\n*.example.com:ann@example.com:{PW}\n",
        f"/etc/davfs2/secrets\nhttps://dav.example.com/remote.php/webdav ann {PW}\n",
        f'added to ~/.davfs2/secrets:\n/mnt/dav ann "{PW}"\n',
    ],
)
def test_a_credential_files_password_goes(text: str) -> None:
    out, found = scrub_text(text)
    assert PW not in out and found["password"] >= 1


def test_an_s3fs_passwd_files_secret_goes() -> None:
    secret = "Zk3mN8pQ2rT5vW7yA1cE4gJ6lO9sU0xB3dF5hK8m"
    out, found = scrub_text(f"/etc/passwd-s3fs\nmybucket:WASABI7RT2ZK9PLM4WNB:{secret}\n")
    assert found["password"] == 1
    assert secret not in out and "WASABI7RT2ZK9PLM4WNB" in out


@pytest.mark.parametrize(
    "text",
    [
        "rsyncd.secrets must be mode 600\nmeeting at 12:30:45\nNote:see-below",
        "I edited sasl_passwd and ran postmap\nsee https://example.com/docs",
        "passwd.client is empty\nlogs:12:30:45",
        "davfs2 mounts /mnt/dav\n/mnt/dav user noauto",
        f"backup:{PW}",  # the line with no file named
    ],
)
def test_those_files_lines_stay_without_a_credential(text: str) -> None:
    out, found = scrub_text(text)
    assert not found and out == text


# --- Tokens glued to a word, IBM Cloud keys, more providers ----------------------------------


@pytest.mark.parametrize(
    "token",
    [
        "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",
        "ico-kNnbOY2Y5qbLqEU1hcILI5Y5WuQ39D1x",
        "jina_MxxbGPMCtiGS6d1waP1PbujuNcniepWK9I717xYM6g54pS3pF1BQshRPlVES",
        "odt_ZWxHX9S8RYWpStzV4vJZpiG3nwtwGTsW",
        "R0a1Q~XiZVZixK3rvWTUPQW~Rqwrva.yAzwGBCyi",
        "ODY5MjczMzkxMTYyMjczMDI1.e5jqCH.AonStFFL9pwYu-zvQVYL4tge53gf2qyeHTWs-w",
        "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIzNTIzNjUyMSJ9."
        "uoPdCG_9d044FyOZJjfeck4bXghumeU1wWDBl565Zdh",
    ],
)
def test_a_token_glued_to_a_file_name_by_a_dash_goes(token: str) -> None:
    for text in (f"notes/backup-{token}.txt", f"saved as key-{token}.json"):
        out, found = scrub_text(text)
        assert token not in out and sum(found.values()) == 1, text


def test_an_ibm_cloud_key_that_starts_with_a_dash_goes() -> None:
    key = "-oHLZ-ZjGl6CcdHJ5ds-72ewE0GzXrDTgJIDwAe-vCaT"
    for text in (
        f"> use this IAM API key for staging:\n>\n> {key}\n>\n> cheers",
        f"the IBM Cloud API key: {key}",
    ):
        out, found = scrub_text(text)
        assert key not in out and found["password"] == 1


@pytest.mark.parametrize(
    "text",
    [
        "api key:\n- rotate-it-every-ninety-days-please",
        "token: --no-verify-the-thing-at-all-please",
        "backup-2024-05-01-full.tar.gz and notes/backup-3f786850e387.txt",
        "favicon.ico-kNnbOY2Y5qbLqEU1hcILI5Y5WuQ39D1x",
    ],
)
def test_dashes_and_file_names_without_a_token_stay(text: str) -> None:
    out, found = scrub_text(text)
    assert not found and out == text


@pytest.mark.parametrize(
    "token",
    [
        "authress_k1x9v2m8q.abc12.acc_a1b2c3d4e5f6.Zk3mN8pQ2rT5vW7yA1cE4gJ6lO9sU0xB3dF",
        "sc_k1x9v2m8q.abc12.acc-a1b2c3d4e5f6.Zk3mN8pQ2rT5vW7yA1cE4gJ6lO9sU0xB3dF",
        "dnkey-a1b2c3d4e5f6g7h8i9j0k1l2m3-Zk3mN8pQ2rT5vW7yA1cE4gJ6lO9sU0xB3dF5hK8mZk3mN8pQ2rT5",
    ],
)
def test_authress_and_defined_networking_keys_go(token: str) -> None:
    out, found = scrub_text(f"I pasted {token} by mistake")
    assert token not in out and found["service-token"] == 1
