"""Rule set 11: passwords that survived rule set 10 with no word naming them, and false
alarms on ids after "login" and on a JSON Web Key's public members.

Every value here is invented. Each test asserts what a user reads in the scrubbed text: the
secret is gone and a marker stands in its place, or a text that holds none comes out as it
went in.
"""

from __future__ import annotations

import pytest

from memtrails.secrets import RULES_VERSION, scrub_text

PW = "Xk3!pq9Lm"


def test_the_rule_set_is_new() -> None:
    # A folder scrubbed by an earlier set lists both in its manifest after the next import.
    assert RULES_VERSION >= 11


# --- Chat: a password named by its context only ----------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        f"pass is {PW}",
        f"the vpn pass is {PW}, rotate it monday",
        f"the password's {PW}",
        f"password\u2019s {PW} btw",
        f"account ann / {PW}",
        f"the admin account is root / {PW}",
        f"wifi is CoffeeNet / {PW}",
        f"guest Wi-Fi: Cafe-5G / {PW}",
        f"WLAN -> office_ap / `{PW}`",
        "wifi is HOME_2G / falcon.5720",
        "account ann / Tigers66",  # a lowercase word and a number alone stays: rule set 12
    ],
)
def test_a_password_named_by_its_context_goes(text: str) -> None:
    out, found = scrub_text(text)
    assert found["password"] == 1 and "[secret:password]" in out
    assert not any(p in out for p in (PW, "falcon.5720", "Tigers66"))


@pytest.mark.parametrize(
    "text",
    [
        "the pass is valid until friday",
        "the test pass is 95%",
        "account 12345 / 67890 is closed",
        "wifi 2.4GHz / 5GHz both fine",
        "accounts payable / receivable",
        "the account's settings / preferences page",
        "wifi is down / again",
        "account ann / <password>",
        # Amounts, versions, regions, ARNs and codes where no word names a password.
        "the bus pass is $45/month now",
        "season pass is 199.99",
        "my pass is 2024-ready",
        "the pass is A1-B2-C3",
        "account ann / v2.3.1",
        "account aws / us-east-1",
        "account prod / arn:aws:iam::123456789012:role/x",
        "ssid HomeNet / WPA2-PSK",
    ],
)
def test_sentences_with_those_words_stay(text: str) -> None:
    out, found = scrub_text(text)
    assert not found and out == text


# --- Credential files, after their names -----------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        f'$ cat /etc/pgbouncer/userlist.txt\n"ann" "{PW}"\n"bob" "{PW}"',
        f'auth_file = /etc/pgbouncer/userlist.txt\n\n"app_user" "{PW}"',
        f"# /etc/ppp/chap-secrets\n# client\tserver\tsecret\tIP addresses\nann\t*\t{PW}\t*",
        f'/etc/ppp/pap-secrets:\n"ann" pptpd "{PW}" 10.0.0.5',
        f"ann pptpd {PW} 192.168.1.0/24 (in chap-secrets)\nchap-secrets:\nbob * {PW}",
        f"openvpn --config x.ovpn --auth-user-pass auth.txt\n$ cat auth.txt\nann\n{PW}\n$ ",
        f"OpenVPN creds, /etc/openvpn/client.pass:\n```\nann\n{PW}\n```",
        f"client\ndev tun\n<auth-user-pass>\nann\n{PW}\n</auth-user-pass>",
    ],
)
def test_a_credential_files_password_goes(text: str) -> None:
    out, found = scrub_text(text)
    assert PW not in out and found["password"] >= 1


@pytest.mark.parametrize(
    "hashed",
    [
        "md5c4ca4238a0b923820dcc509a6f75849b",
        "SCRAM-SHA-256$4096:kR3ZbWqNvA8sXyP1mT0cLg==$Vg9rK2mQw8ZsX4bN7pL1cT5yH3jF6dA0eR8uW2iO4kE="
        ":Ht6yU3iO9pA2sD5fG8hJ1kL4zX7cV0bN3mQ6wE9rT2y=",
    ],
)
def test_postgres_password_hashes_go_in_any_context(hashed: str) -> None:
    for text in (f'"ann" "{hashed}"', f"rolpassword | {hashed}"):
        out, found = scrub_text(text)
        assert hashed not in out and found["password-hash"] == 1


@pytest.mark.parametrize(
    "text",
    [
        # Lines of a userlist, a secrets file or an auth file with no name of the file before.
        f'"ann" "{PW}"',
        f"ann * {PW} *",
        f"auth.txt:\nann\n{PW}",
        # The names, with lines that are no credentials.
        'edit userlist.txt then run "pgbouncer" "-d"\nls userlist.txt',
        "I added ann to chap-secrets and restarted pppd",
        "# chap-secrets\n# client server secret IP addresses\nann * * *",
        "openvpn: auth-user-pass auth.txt\nclient\nnobind\npersist-key\n",
        "openvpn --auth-user-pass auth.txt\nremote vpn.example.com 1194\nproto udp\n",
        "openvpn\n$ cat auth.txt\n<username>\n<password>\n",
        "md5sum of the file: d41d8cd98f00b204e9800998ecf8427e",
    ],
)
def test_lines_like_credential_files_stay_without_the_file(text: str) -> None:
    out, found = scrub_text(text)
    assert not found and out == text


# --- False alarms: ids after "login", public keys ------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "login ann x1-y2-z3-the-id",
        "login bob web-01-east",
        "login to server01",
        "login server01 gpu-02",
        "please login to db01.prod first",
        "login gpu-node-17 and check nvidia-smi",
        "login root@10.0.0.5",
    ],
)
def test_a_host_or_an_id_after_login_stays(text: str) -> None:
    out, found = scrub_text(text)
    assert not found and out == text


@pytest.mark.parametrize(
    "text", [f"login ann {PW}", "login ann hunter2x", "login: ann  pw: hunter2xyz"]
)
def test_a_password_after_login_and_a_user_still_goes(text: str) -> None:
    out, found = scrub_text(text)
    assert found["password"] == 1 and "[secret:password]" in out


_EC_PUBLIC = (
    '{"kty":"EC","crv":"P-256",'
    '"x":"f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU",'
    '"y":"x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0","kid":"k1"}'
)
_OKP_PUBLIC = '{"crv": "Ed25519", "kty": "OKP", "x": "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"}'
_RSA_THUMB = (
    '{"kty":"RSA","e":"AQAB","x5t":"NjVBRjY5MDlCMUIwNzU4RTA2QzZFMDQ4QzQ2MDAyQjVDNjk1RTM2Qg"}'
)


@pytest.mark.parametrize("text", [_EC_PUBLIC, _OKP_PUBLIC, _RSA_THUMB])
def test_a_public_json_web_key_stays(text: str) -> None:
    out, found = scrub_text(text)
    assert not found and out == text


def test_a_private_json_web_keys_d_still_goes_and_its_public_members_stay() -> None:
    d = "jpsQnnGQmL-YBIffH1136cspYG6-0iY7X1fCE9-E9LI"
    text = _EC_PUBLIC[:-1] + f',"d":"{d}"}}'
    out, found = scrub_text(text)
    assert d not in out and found == {"private-key": 1}
    assert "f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU" in out


def test_a_random_string_under_another_name_still_goes() -> None:
    out, found = scrub_text('{"client": "f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU"}')
    assert found["token"] == 1 and "f83OJ3D2" not in out
