"""Passwords that clients and small config files take in a fixed place, and a JSON Web Key's
private members (rule set 10).

Each rule names its command or its file's keyword, so a flag that carries a password for one
command ("-c" of the SNMP tools, "-k" of openssl, "-N" of ssh-keygen) is read as one only
there. A value that is a bare word needs 6+ characters with a digit or a symbol (the prose
rule's shape): "snmpwalk -c public" and "rocommunity public" name the default, no secret.
"""

from __future__ import annotations

from typing import Final

from .pieces import value_of_class
from .prose import DASHED_PW, PW_VALUE
from .rule import Rule

__all__ = ["CLIENT_RULES"]

# The rest of a command's line before the flag (no pipe, no command separator).
_ON_LINE = r"[^\r\n|;&]{0,300}?[ \t]"
_SQ = value_of_class(r"'\r\n", 4)
_DQ = value_of_class(r"\"\r\n", 4)


# A flag's value: quoted (4+ characters) or a bare password's shape, perhaps starting with
# "-" and then holding a digit or a symbol (rule set 15: "--value -k931sf9+0qIyo"; the
# check keeps "-" and fewer than 8 characters or no digit, a flag such as "-aes256").
_VALUE = rf"(?:'(?P<v>{_SQ})'|\"(?P<v2>{_DQ})\"|(?P<v3>{PW_VALUE})|(?P<v4>{DASHED_PW}))"


def _flag(name: str, before: str) -> Rule:
    """The rule of a password that stands after ``before`` (a command and its flag)."""
    return Rule(name, "password", f"(?:{before}){_VALUE}", "headers", "url")


CLIENT_RULES: Final[tuple[Rule, ...]] = (
    # SNMP v1/v2c communities (snmpwalk -c X, snmpd.conf's rocommunity X), openssl's -k X,
    # ssh-keygen's -N X and -P X, mosquitto's -P X, macOS keychain's add-generic-password
    # -w X, FreeRDP's /p:X, schtasks' /rp X and /p X.
    _flag(
        "snmp_community",
        rf"\bsnmp(?:walk|bulkwalk|get|getnext|bulkget|set|table|trap|df|netstat|status)\b"
        rf"{_ON_LINE}-c[ \t]*|(?:^|\n)[ \t]*r[ow]community6?[ \t]+",
    ),
    _flag("openssl_k", rf"\bopenssl\b{_ON_LINE}-k[ \t]+"),
    _flag("ssh_keygen_passphrase", rf"\bssh-keygen\b{_ON_LINE}-[NP][ \t]*"),
    _flag("mosquitto_password", rf"\bmosquitto_(?:pub|sub|rr)\b{_ON_LINE}(?:-P|--pw)[ \t]+"),
    _flag(
        "keychain_password",
        rf"\bsecurity[ \t]+(?:add|set)-(?:generic|internet)-password\b{_ON_LINE}-w[ \t]+",
    ),
    _flag("freerdp_password", rf"\b[a-z]*freerdp3?\b{_ON_LINE}/p:"),
    _flag("schtasks_password", rf"\bschtasks\b{_ON_LINE}/r?p[ \t]+"),
    # Rule set 13: AWS's secret values (secretsmanager --secret-string X, ssm put-parameter
    # --value X), wpa_passphrase's passphrase after the network's name, Redis' password
    # given on the command line or at run time (redis-server --requirepass X, CONFIG SET
    # requirepass X), npm's auth token set with a space (npm config set //host/:_authToken X).
    _flag(
        "aws_secret_value",
        rf"\baws[ \t]+(?:secretsmanager\b{_ON_LINE}--secret-string"
        rf"|ssm[ \t]+put-parameter\b{_ON_LINE}--value)(?:[ \t]+|=)",
    ),
    _flag(
        "wpa_passphrase",
        r"\bwpa_passphrase[ \t]+(?:\"[^\"\r\n]{1,32}\"|'[^'\r\n]{1,32}'|[^\s'\"]{1,32})[ \t]+",
    ),
    _flag(
        "redis_password",
        r"(?:[ \t]--|\b(?i:config)[ \t]+(?i:set)[ \t]+)(?:requirepass|masterauth)[ \t]+",
    ),
    _flag(
        "npm_config_auth",
        r"\b(?:npm|pnpm|yarn)[ \t]+config[ \t]+set[ \t]+[^\s=]{0,200}?:?(?:_authToken|_auth|_password)"
        r"[ \t]+",
    ),
    # A user and its password in one argument: curl's --proxy-user user:X (and -U), lftp's
    # -u user,X; Go's MySQL driver DSN user:X@tcp(host)/db; ngrok's authtoken; an IPsec
    # secrets line's PSK "X"; a POP3 or FTP session's PASS X after its USER line.
    Rule(
        "client_pair",
        "password",
        r"(?:--proxy-user|\bcurl\b[^\r\n|;&]{0,300}?[ \t]-U)[ \t=]+['\"]?[^\s:'\"]{1,64}:"
        r"(?P<v>[^\s'\"]{3,})"
        r"|\blftp\b[^\r\n|;&]{0,300}?[ \t]-u[ \t]+['\"]?[^\s,'\"]{1,64},(?P<v2>[^\s'\"`]{3,})"
        r"|[\"'`][A-Za-z0-9_.-]{1,64}:(?P<v3>[^\s\"'`@]{3,})@(?:tcp|udp|unix)\("
        r"|\bngrok[ \t]+(?:config[ \t]+add-authtoken|authtoken)[ \t]+(?P<v4>[A-Za-z0-9_-]{20,})"
        r"|(?:^|[ \t]):[ \t]*(?:PSK|XAUTH|EAP)[ \t]+\"(?P<v5>[^\"\r\n]{3,})\""
        r"|\bUSER[ \t]+[^\s]{1,64}[ \t]*\r?\n(?:[^\r\n]{0,80}\r?\n){0,2}?"
        r"[ \t]*(?:C:|-->|>>>|>)?[ \t]*PASS[ \t]+(?P<v6>[^\s]{3,})[ \t]*\r?(?:\n|\z)",
        "headers",
        "url",
    ),
    # An ODBC or ADO.NET connection string's password in braces, the way a value holding
    # ";" is written there (Pwd={a;b}); a template's slot ({db_pass}, {0}) is none: the value
    # holds a character no name has, and 3 characters or more.
    Rule(
        "braced_password",
        "password",
        r"(?:^|[;\s\"'])(?i:pwd|password)[ \t]*=[ \t]*\{(?P<v>[^{}\r\n]{2,64}[^A-Za-z_{}\r\n]"
        r"[^{}\r\n]{0,64}|[^{}\r\n]{0,64}[^A-Za-z_{}\r\n][^{}\r\n]{2,64})\}[ \t]*(?:[;\"']|\s|\z)",
        "headers",
        "url",
    ),
    # A user and its password written to base64 by hand, for a Basic header: echo -n
    # user:X | base64, printf 'user:X' | base64, base64 <<< user:X.
    Rule(
        "encoded_by_hand",
        "password",
        r"\b(?:echo(?:[ \t]+-[neE]{1,3})*|printf)[ \t]+['\"]?[A-Za-z0-9._@+-]{1,64}:"
        r"(?P<v>[^\s'\"|:]{3,128})['\"]?[ \t]*\|[ \t]*base64\b"
        r"|\bbase64[ \t]+<<<[ \t]*['\"]?[A-Za-z0-9._@+-]{1,64}:(?P<v2>[^\s'\"|:]{3,128})",
        "headers",
        "url",
    ),
    # A JSON Web Key's private members (RFC 7518): "d" of an RSA, EC or OKP key, the RSA
    # primes and their exponents ("p", "q", "dp", "dq", "qi"), a symmetric key's "k"; 32+
    # base64url characters of both cases ("e": "AQAB" and the public "n", "x", "y" stay).
    Rule(
        "jwk_private",
        "private-key",
        r"\"(?:d|p|q|dp|dq|qi|k)\"[ \t]*:[ \t]*\"(?P<v>[A-Za-z0-9_-]{32,})\"",
        "tokens",
        "mixed",
    ),
)
