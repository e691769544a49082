"""Secrets in contexts the rules once missed: encoded text, other languages, AWS pairs, CDATA, PEM shapes.

Each case was found surviving ``scrub_text`` by a fuzzer that wrote generated secrets into
the contexts real archives hold; each look-alike next to it must stay.
"""

from __future__ import annotations

import base64
import json
import urllib.parse

import pytest

from memtrails.secrets import scrub_text

# Invented values in the providers' formats (random characters, not live credentials).
GHP = "ghp_" + "vnmHVAlW6WYmwH824VV6tV0TJLy9Bl1iW6aZ"
SLACK_HOOK = "https://hooks.slack.com/services/" + "TW77T2FRZ/BS2H24L7JA/R6UQPQ1cFhof2FMIb9ySnxX6"
AKID = "AKIA" + "HEO6APZ4RLWOFC2T"
AWS_SECRET = "TdyEpwTlcLZ7TX3qzOEtPaJl+sC/LZ+jmLZR8idm"
PASSWORD = "Tr0ub4dor&381"
HEX32 = "f575ca56e6c0b9b2bb48ab5a6adc0f5c"


def _gone(text: str, *secrets: str) -> str:
    out, found = scrub_text(text)
    for secret in secrets:
        assert secret not in out, (text, out)
    assert found, out
    return out


def _kept(text: str) -> None:
    assert scrub_text(text) == (text, {}), scrub_text(text)[0]


# --- Percent-encoded and base64-wrapped text -------------------------------------------------


@pytest.mark.parametrize(
    "text, secret",
    [
        # A URL with its query percent-encoded into another URL's parameter.
        (
            "redirect="
            + urllib.parse.quote(f"https://app.example.com/cb?token={GHP}&x=1", safe=""),
            GHP,
        ),
        (f"url=https%3A%2F%2F{GHP}%40github.com%2Facme", GHP),
        # A form's field, encoded again: only the password's own encoding goes.
        (
            "password%3D" + urllib.parse.quote(PASSWORD, safe=""),
            urllib.parse.quote(PASSWORD, safe=""),
        ),
        (
            "next=%2Flogin%3Fuser%3Dann%26api_key%3D" + HEX32 + "%26page%3D2",
            HEX32,
        ),
    ],
)
def test_percent_encoded_secrets_go(text: str, secret: str) -> None:
    _gone(text, secret)


def test_percent_encoded_password_keeps_its_neighbours() -> None:
    # (the decoded value runs on to "&lang=en": a password may hold "&", so that goes too)
    text = "a=1&q=password%3D" + urllib.parse.quote(PASSWORD, safe="") + " next"
    out = _gone(text, "Tr0ub4dor")
    assert out == "a=1&q=password%3D[secret:password] next"


@pytest.mark.parametrize(
    "plain",
    [
        json.dumps({"url": "https://x", "api_key": HEX32}),
        SLACK_HOOK,
        f"[default]\naws_access_key_id = {AKID}\n",
        f"DATABASE_URL=postgres://app:{PASSWORD}@db:5432/app\n",
    ],
)
def test_base64_wrapped_text_with_a_secret_goes(plain: str) -> None:
    blob = base64.b64encode(plain.encode()).decode()
    text = f"apiVersion: v1\nkind: Secret\ndata:\n  config.json: {blob}\n  user: YWRtaW4=\n"
    out = _gone(text, blob)
    assert "  user: YWRtaW4=" in out


@pytest.mark.parametrize(
    "text",
    [
        # Percent-encoding and base64 of harmless text stay as they are.
        "https://example.com/search?q=password%20reset%20help&lang=en",
        "https://example.com/a%2Fb%3Fc%3Dd?next=%2Fhome%3Ftab%3D2",
        "data:\n  config.json: " + base64.b64encode(b'{"url": "https://x", "retries": 3}').decode(),
        "Content-Transfer-Encoding: base64\n\n"
        + base64.b64encode(b"Hello Ann, the meeting moved to 3pm on Tuesday. Thanks!").decode(),
        "sha512-" + base64.b64encode(bytes(range(64))).decode(),
        "commit 9fceb02d0ae598e95dc970b74767f19372d61af8",
    ],
)
def test_encoded_look_alikes_stay(text: str) -> None:
    _kept(text)


# --- Labels in other languages ---------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "비밀번호: hTHpS940F2pzrShf",
        "パスワード\uff1aTr0ub4dor&392",
        "密碼: Falcon722@x",
        "Hasło: Winter2024!",
        "lösenord: Sommar#2023x",
        "şifre: Kedi!9876x",
        "токен: kYq8T2L9Mnjz8Dp3cnON3iByLVVCXMREDUAOYJIn",
        "a chave da API é q7MTh4yLndwwk6gVBwldUtuyEelNHwSnPSmER0JA",
        "API-Schlüssel: d114ca5fb3c46134900ea0bb3c8cce59",
        "토큰: e5jLR1JKiw6cUeYGQiQ2NjpI3lMTHkg584VAtK9x",
    ],
)
def test_labels_in_other_languages(text: str) -> None:
    _gone(text, text.split()[-1].split("\uff1a")[-1])


@pytest.mark.parametrize(
    "text",
    [
        "비밀번호를 잊으셨나요? 재설정 링크를 보내드립니다.",
        "Passwort vergessen? Klicken Sie hier.",
        "токен: истёк, войдите снова",
        "la chave da API é gerada no painel",
        "ключевой момент: 2024",
    ],
)
def test_prose_in_other_languages_stays(text: str) -> None:
    _kept(text)


# --- AWS key pairs ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        f"{AKID}:{AWS_SECRET}",
        "User name,Password,Access key ID,Secret access key,Console login link\n"
        f"ci,,{AKID},{AWS_SECRET},https://x.signin.aws.amazon.com/console",
        f"$ aws configure\nAWS Access Key ID [None]: {AKID}\n"
        f"AWS Secret Access Key [None]: {AWS_SECRET}\nDefault region name [None]: eu-west-1",
        f"| prod | {AKID} | {AWS_SECRET} |",
        f"{AKID}\t{AWS_SECRET}",
    ],
)
def test_aws_secret_next_to_its_key_id(text: str) -> None:
    out = _gone(text, AKID, AWS_SECRET)
    assert "[secret:aws-secret-key]" in out


def test_aws_key_id_next_to_a_word_keeps_the_word() -> None:
    out, _ = scrub_text(f"{AKID} ThisIsJustAnOrdinaryLongIdentifierName40")
    assert out.endswith(" ThisIsJustAnOrdinaryLongIdentifierName40")


# --- XML CDATA -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, secret",
    [
        (f"<config><db_password><![CDATA[{PASSWORD}]]></db_password></config>", PASSWORD),
        (f"<apiKey>\n  <![CDATA[{HEX32}]]>\n</apiKey>", HEX32),
    ],
)
def test_cdata_values(text: str, secret: str) -> None:
    _gone(text, secret)


def test_cdata_that_is_no_secret_stays() -> None:
    _kept("<tokenizer><![CDATA[whitespace]]></tokenizer>")


# --- PEM blocks whose line breaks were escaped twice or turned into spaces -------------------

_LINES = [
    "MIIEpAIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun",
    "VTLw7onLRnrq0/IzW7yWR7QkrmBL7jTKEn5u+qKhbwKfBstIs+bMY2Zkp18gnTxK",
    "LxoS2tFczGkPLPgizskuemMghRniWaoLcyehkd3qqGElvW/VDL5AaWTg0nLVkjRo",
    "9z+tRHhGbxh2JVsQDdRFrvbq+7JrmvOBd9bxCoKsLMfiCY6TO7O8Xyih1N6RRKnq",
]
PEM = "-----BEGIN RSA PRIVATE KEY-----\n" + "\n".join(_LINES) + "\n-----END RSA PRIVATE KEY-----"


@pytest.mark.parametrize(
    "text",
    [
        # A service account's JSON inside a log line's JSON string: "\\n" between lines.
        'ERROR cfg="'
        + json.dumps({"private_key": PEM}).replace("\\", "\\\\").replace('"', '\\"')
        + '"',
        # A key whose line breaks became spaces (a one-line variable, a web form).
        "PRIVATE_KEY=" + PEM.replace("\n", " "),
        "key: " + PEM.replace("\n", " ") + " (rotated)",
    ],
)
def test_pem_with_other_line_breaks(text: str) -> None:
    out = _gone(text, *(line[:24] for line in _LINES))
    assert "[secret:private-key]" in out


def test_pem_header_in_prose_stays() -> None:
    _kept("The file starts with -----BEGIN RSA PRIVATE KEY----- and ends with the END line.")


# --- Encoded text scans once, however many encoded words it holds ---------------------------


@pytest.mark.parametrize(
    "text",
    [
        "x%3D1 " * 5000,  # many encoded words on one line
        "GET /?q=a%3Db HTTP/1.1\n" * 2000,  # many lines
        (base64.b64encode(b"password: none here, just text").decode() + "\n") * 2000,
        (base64.b64encode(b"password=hunter2!x").decode() + " | ") * 2000,
        base64.b64encode(base64.b64encode(b"password=hunter2! " * 500)).decode(),
    ],
)
def test_encoded_text_is_scanned_in_a_few_calls(text: str, monkeypatch: pytest.MonkeyPatch) -> None:
    from memtrails.secrets import engine

    calls: list[int] = []
    find = engine.find_spans

    def counted(buf: bytes) -> list[tuple[int, int, str]]:
        calls.append(len(buf))
        return find(buf)

    monkeypatch.setattr(engine, "find_spans", counted)
    engine.scrub_text(text)
    assert len(calls) <= 4, len(calls)
