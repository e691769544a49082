"""Secrets that survived rule set 8 in shapes nobody had written a case for (rule set 9).

Every value here is invented. Each test asserts what a user reads in the scrubbed text: the
secret is gone, a marker of the right kind stands in its place, and the text around it stays.
"""

from __future__ import annotations

import base64
import json

import pytest

from memtrails.secrets import RULES_VERSION, scrub_text

SIG = "5d3f9a2b7c1e8d4f6a0b3c9e2d7f1a4b8c6e0d3f9a2b5c7e1d4f8a6b0c3e9d27"  # 64 hex: SigV4
KEY_ID = "AKIA" + "QX7RT2ZK9PLM4WNB"


def test_the_rule_set_is_new() -> None:
    # A folder scrubbed by an earlier set re-imports with this one (ingest's digest holds it).
    assert RULES_VERSION >= 9


# --- AWS Signature Version 4 ---------------------------------------------------------------


@pytest.mark.parametrize("key_id", [KEY_ID, "ASIA" + "QX7RT2ZK9PLM4WNB"])
def test_a_sigv4_authorization_header_loses_its_signature_and_key_id(key_id: str) -> None:
    header = (
        f"Authorization: AWS4-HMAC-SHA256 Credential={key_id}/20260105/eu-west-1/s3/"
        f"aws4_request, SignedHeaders=host;x-amz-date, Signature={SIG}"
    )
    out, found = scrub_text(header)
    assert SIG not in out and key_id not in out
    # The scheme and the credential's scope are no secret and stay readable.
    assert out == (
        "Authorization: AWS4-HMAC-SHA256 Credential=[secret:aws-access-key]/20260105/eu-west-1/"
        "s3/aws4_request, SignedHeaders=host;x-amz-date, Signature=[secret:url-password]"
    )
    assert found == {"aws-access-key": 1, "url-password": 1}


def test_a_sigv4_credential_of_an_unknown_key_id_shape_goes_too() -> None:
    query = "?X-Amz-Credential=MYKEYID1234567%2F20260105%2Fus-east-1%2Fs3%2Faws4_request&x=1"
    out, _ = scrub_text(query)
    assert "MYKEYID1234567" not in out
    assert "%2F20260105%2Fus-east-1%2Fs3%2Faws4_request&x=1" in out


def test_botocores_debug_log_loses_the_signature_on_the_line_after_its_label() -> None:
    out, _ = scrub_text(f"DEBUG botocore.auth: Signature:\n{SIG}\nDEBUG next")
    assert out == "DEBUG botocore.auth: Signature:\n[secret:url-password]\nDEBUG next"


def test_a_signature_in_a_log_line_goes_and_a_commit_hash_stays() -> None:
    commit = "3f9a2b7c1e8d4f6a0b3c9e2d7f1a4b8c6e0d3f9a"
    out, _ = scrub_text(f"signed request: Signature={SIG} (fix in {commit})")
    assert SIG not in out and commit in out


# --- Passwords fed to a command's standard input -----------------------------------------


@pytest.mark.parametrize(
    ("line", "secret"),
    [
        ("echo 'Wint3r!Gate' | sudo -S systemctl restart nginx", "Wint3r!Gate"),
        ('echo "Wint3r!Gate" | sudo -u root -S true', "Wint3r!Gate"),
        ("printf '%s\\n' 'Wint3r!Gate' | sudo -S -k whoami", "Wint3r!Gate"),
        ("echo -n kR7vP2qL9x | sudo --stdin ls", "kR7vP2qL9x"),
        ("echo kR7vP2qL9x | docker login ghcr.io -u ci --password-stdin", "kR7vP2qL9x"),
        ("echo 'kR7vP2qL9x' | kinit ann@EXAMPLE.COM", "kR7vP2qL9x"),
        ("echo 'ann:Pl4nk-Otter' | sudo chpasswd", "Pl4nk-Otter"),
        ("sudo -S apt-get -y upgrade <<< 'm4ple#Syrup'", "m4ple#Syrup"),
        ('read -r PW <<< "Qu1et-Harbor"', "Qu1et-Harbor"),
        ("read -rs DB_PASSWORD <<< 'Qu1et-Harbor'", "Qu1et-Harbor"),
        ("mysql -u root -p\"$(cat <<< 'Sl0w_Rivers')\" shop", "Sl0w_Rivers"),
        ('mysql -u root -p"$(echo Sl0w_Rivers)" shop', "Sl0w_Rivers"),
    ],
)
def test_a_password_piped_or_fed_to_a_command_goes(line: str, secret: str) -> None:
    out, found = scrub_text(line)
    assert secret not in out
    assert found == {"password": 1}


def test_a_here_document_feeding_passwd_loses_every_copy() -> None:
    text = "passwd ann <<EOF\nGr4nite_Hill\nGr4nite_Hill\nEOF\necho done"
    out, _ = scrub_text(text)
    assert out == "passwd ann <<EOF\n[secret:password]\n[secret:password]\nEOF\necho done"


@pytest.mark.parametrize(
    "line",
    [
        'echo "$SUDO_PASSWORD" | sudo -S -k true',
        "echo $CR_PAT | docker login ghcr.io -u USERNAME --password-stdin",
        "echo 'deb https://apt.example.org stable main' | sudo tee /etc/apt/sources.list.d/x.list",
        "echo hello | sudo -s",
        "cat <<EOF | sudo tee /etc/motd\nWelcome to the server\nEOF",
        "passwd <<EOF\n$OLD\n$NEW\n$NEW\nEOF",
        'grep -c foo <<< "$line"',
        'read -r first_name <<< "alice_smith_99"',
        'mysql -uroot -p"$(cat /run/secrets/db)" app',
        'echo "$USER:$PASS" | chpasswd',
    ],
)
def test_variables_and_ordinary_pipes_stay(line: str) -> None:
    assert scrub_text(line) == (line, {})


# --- A JWT wrapped at a mail's width ------------------------------------------------------


def _b64(obj: object) -> str:
    raw = json.dumps(obj, separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def _wrap(token: str, width: int) -> str:
    return "\n".join(token[i : i + width] for i in range(0, len(token), width))


SIG_CHARS = "Qw3Er5Ty7Ui9Op1As2Df4Gh6Jk8Lz0Xc-Vb_Nm"


def _jwt(alg: str, sub: str, sig_len: int) -> str:
    sig = (SIG_CHARS * 40)[:sig_len]
    return f"{_b64({'alg': alg})}.{_b64({'sub': sub})}.{sig}"


@pytest.mark.parametrize("width", [51, 52, 53, 60])
def test_a_jwt_whose_payload_ends_a_full_line_goes_whole(width: int) -> None:
    # The payload's dot ends the first line (or a few signature characters do): the
    # signature is all on the last line of the message, with no newline after it.
    token = _jwt("A128KW", "u" * 10, 43)
    text = "Token below:\n" + _wrap(token, width)
    out, found = scrub_text(text)
    assert out == "Token below:\n[secret:jwt]"
    assert found == {"jwt": 1}


def test_a_jwt_whose_payload_is_split_inside_its_first_letters_goes_whole() -> None:
    token = _jwt("dir", "x" * 30, 43)
    cut = token.index(".eyJ") + 2  # the first line ends "...fQ.e", the next starts "yJ..."
    out, _ = scrub_text(token[:cut] + "\n" + token[cut:] + "\n\nthanks")
    assert out == "[secret:jwt]\n\nthanks"


def test_an_rs256_jwt_wrapped_past_a_shorter_key_size_goes_whole() -> None:
    # 342 signature characters (a 2048-bit key); 171 (1024 bits) is a length RS256 allows
    # too, and the signature must not stop there when a line happens to end right after it.
    token = _jwt("RS256", "x" * 80, 342)
    text = "here it is: " + token
    at_171 = text.rindex(".") + 1 + 171
    widths = [w for w in range(40, 90) if at_171 % w == 0]
    assert widths  # the widths that end a line right after 171 characters
    for width in widths:
        wrapped = _wrap(text, width)
        out, _ = scrub_text(wrapped + "\nthanks, Bob")
        assert out == "here it is: [secret:jwt]\nthanks, Bob", width


def test_an_unsecured_jwt_ending_a_line_keeps_the_next_line() -> None:
    token = _jwt("none", "u" * 10, 0)  # "header.payload." and no signature
    out, _ = scrub_text(token + "\nthanks bob")
    assert out == "[secret:jwt]\nthanks bob"


# --- HAR files: cookies and headers as name/value objects ---------------------------------


@pytest.mark.parametrize(
    "name",
    ["session", "sid", "connect.sid", "_gh_sess", "laravel_session", "csrftoken", "XSRF-TOKEN"],
)
@pytest.mark.parametrize("value", ["9f2c4e6a8b0d1f3e", "3f2b8c4e-1a7d-4e9b-8c6f-2d5a0b9e7c13"])
def test_a_har_cookie_named_like_a_session_loses_its_value(name: str, value: str) -> None:
    cookie = {"name": name, "value": value, "path": "/", "httpOnly": True}
    for text in (
        json.dumps({"cookies": [cookie]}, indent=2),
        json.dumps({"value": value, "name": name, "domain": ".example.com"}),
        json.dumps({"headers": [{"name": "cookie", "value": f"theme=dark; {name}={value}"}]}),
        json.dumps({"headers": [{"name": "Set-Cookie", "value": f"{name}={value}; Path=/"}]}),
    ):
        out, found = scrub_text(text)
        assert value not in out, text
        assert found == {"password": 1}, text
        assert name in out  # the name stays: it says what was there


@pytest.mark.parametrize(
    "cookie",
    [
        {"name": "theme", "value": "dark-2026-contrast"},  # not a session's name
        {"name": "session_count", "value": "12"},  # too short
        {"name": "csrf_token", "value": "{{ csrf_token }}"},  # a template's slot
        {"name": "auth_method", "value": "password-login"},  # words, no digit
    ],
)
def test_a_har_field_that_is_no_session_stays(cookie: dict[str, str]) -> None:
    text = json.dumps({"cookies": [cookie]}, indent=2)
    assert scrub_text(text) == (text, {})


# --- A private key's PEM block split over messages ----------------------------------------

PEM_LINES = [
    "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7VJTUt9Us8cKj",
    "MzEfYyjiWA4R4/M2bS1GB4t7NXp98C3SC6dVMvDuictGeurT8jNbvJZHtCSuYEvu",
    "NMoSfm76oqFvAp8Gy0iz5sxjZmSnXyCdPEovGhLa0VzMaQ8s+CLOyS56YyCFGeJZ",
]


def test_the_second_half_of_a_pem_block_without_its_begin_line_goes() -> None:
    text = "bob: and the rest of it\n" + "\n".join(PEM_LINES) + "\n-----END PRIVATE KEY-----\nok?"
    out, found = scrub_text(text)
    assert out == "bob: and the rest of it\n[secret:private-key]\nok?"
    assert found == {"private-key": 1}
    quoted = "> " + "\n> ".join(PEM_LINES) + "\n> -----END RSA PRIVATE KEY-----\nthanks"
    assert scrub_text(quoted)[0] == "[secret:private-key]\nthanks"


def test_an_end_line_alone_or_after_prose_stays() -> None:
    for text in (
        "-----END RSA PRIVATE KEY-----",
        "the file ends with\n-----END PRIVATE KEY-----\nas usual",
    ):
        assert scrub_text(text) == (text, {})


# --- Passwords on more command lines --------------------------------------------------------


@pytest.mark.parametrize(
    "line",
    [
        "mongo --host db -u admin -p Zx9vB2nM4q --authenticationDatabase admin",
        "ldapsearch -x -D 'cn=admin,dc=example,dc=com' -w Zx9vB2nM4q -b dc=example,dc=com",
        "7z a -pZx9vB2nM4q backup.7z dir/",
        "zip -P Zx9vB2nM4q backup.zip notes.txt",
        "sqlcmd -S db -U sa -P Zx9vB2nM4q -Q 'select 1'",
        "keytool -importkeystore -srcstorepass Zx9vB2nM4q -destkeystore ks.jks",
        "rabbitmqctl add_user ann Zx9vB2nM4q",
        "SSHPASS=Zx9vB2nM4q sshpass -e ssh ann@host",
        "redis-cli -h cache AUTH Zx9vB2nM4q",
        "127.0.0.1:6379> auth default Zx9vB2nM4q",
        "net use Z: \\\\server\\share /user:ann Zx9vB2nM4q",
        'expect "password:"\nsend "Zx9vB2nM4q\\r"',
    ],
)
def test_a_password_in_its_commands_place_goes(line: str) -> None:
    out, found = scrub_text(line)
    assert "Zx9vB2nM4q" not in out
    assert found == {"password": 1}


@pytest.mark.parametrize(
    "line",
    [
        "auth required pam_unix.so",
        "AUTH LOGIN",
        "scp -P 2222 notes.txt host:",
        "curl -s https://example.com && scp -P 2222 f host:",
        "ldapsearch -x -W -b dc=example,dc=com",
        "7z x -p archive.7z",
        "unzip -P $ZIP_PASSWORD backup.zip",
        "keytool -list -storepass:env STOREPASS -keystore ks.jks",
        'expect "password:"\nsend "$env(PW)\\r"',
    ],
)
def test_flags_and_words_of_other_commands_stay(line: str) -> None:
    assert scrub_text(line) == (line, {})


# --- A URL's password of one letter before a '?' --------------------------------------------


def test_a_one_letter_password_part_before_a_question_mark_is_no_port() -> None:
    out, found = scrub_text("https://a:b?c=1@d.example.com/x")
    assert out == "https://a:[secret:url-password]@d.example.com/x"
    assert found == {"url-password": 1}
    # A port's placeholder before the '?' or '/' is still a port: no password there.
    for url in ("redis://host:{port}/0?x=a@b", "https://host:port/path@scope"):
        assert scrub_text(url) == (url, {})


# --- A password given as the answer to a question ---------------------------------------------


def test_a_password_and_a_key_answered_on_the_line_after_the_question_go() -> None:
    chat = (
        "ann: what's the staging db password?\nbob: it's Zx9vB2nM4q\n"
        "ann: and the api key?\n[10:02] Bob Smith: Kx82JdLq0PzV5mNw3Rt7\nann: thanks"
    )
    out, found = scrub_text(chat)
    assert out == (
        "ann: what's the staging db password?\nbob: it's [secret:password]\n"
        "ann: and the api key?\n[10:02] Bob Smith: [secret:password]\nann: thanks"
    )
    assert found == {"password": 2}


@pytest.mark.parametrize(
    "chat",
    [
        "Forgot your password?\nClick here: https://example.com/reset",
        "what is the wifi password?\nbob: no idea, ask IT",
        "did you change the password?\nyes, yesterday",
        "Where is the api key?\nbob: in the vault",
        "what about the token?\nbob: I rotated it",
        "What is the password policy?\nalice: v2.3 of the doc",
    ],
)
def test_an_answer_that_is_no_password_stays(chat: str) -> None:
    assert scrub_text(chat) == (chat, {})
