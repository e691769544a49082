"""Held-out contexts for ``secret_survivors.py`` (rule set 15): secrets in service configs,
package-manager credentials, command lines, logs and chat, written apart from rule set 13's
and 14's generators.

Contexts: docker-compose ``environment:`` lists (``- KEY=VALUE``), Kubernetes Secrets'
``stringData``, Spring ``application.yml`` (nested under ``spring.datasource``), ``.npmrc``,
``.pypirc`` and ``~/.gem/credentials``, ``curl -u user:pass`` in a zsh history with its
timestamps, ``psql``/``mysql`` command lines with a password flag or variable, JDBC and ODBC
connection strings with ``pwd=``, Redis ``AUTH`` in a ``MONITOR`` log, SMTP ``AUTH PLAIN``
base64 in a mail server's debug log, IRC and Slack lines in six languages handing a password
out, log lines with ``Authorization`` headers of several schemes, stack traces that print a
config dict (Python, Java, Ruby), YAML mappings with the password under a parent or in flow
style, a user and password after a word for logging in, a password named by a noun phrase
in prose, and passwords starting with punctuation. Each returns the text and the secret in it.
``NEAR_MISSES_15`` are the same places with a pointer where the password would stand (a
wiki, a vault, "ask Bob", "TBD"), references and masks. Not a package module.
"""

from __future__ import annotations

import base64
from collections.abc import Callable

from _secret_families import ALNUM, B64, HEX, Gen

__all__ = ["HELD_OUT_15", "NEAR_MISSES_15"]

Made = tuple[str, str]  # (text, secret)

_WORDS = ("orbit", "Cedar", "plum", "Harbor", "violet", "Timber", "nova", "Glacier", "ember")


def _pw(g: Gen, safe: str = "") -> str:
    """A password of one of six shapes; ``safe`` names characters the format cannot hold."""
    shape = g.rng.randrange(6)
    if shape == 0:  # generated, with symbols
        out = g.s(ALNUM + "!%^*+-_=~", g.rng.randint(12, 20))
    elif shape == 1:  # a word, digits, a symbol
        out = g.pick(_WORDS) + g.digits(g.rng.randint(2, 4)) + g.pick("!*^~+")
    elif shape == 2:  # punctuation first
        out = g.pick("%!^*~+") + g.pick(_WORDS) + g.pick("._") + g.digits(3)
    elif shape == 3:  # generated, letters and digits
        out = g.s(ALNUM, g.rng.randint(14, 22))
    elif shape == 4:  # two words and a number
        out = g.pick(_WORDS).capitalize() + g.pick(_WORDS).lower() + g.digits(2)
    else:  # a lowercase word glued to digits and another word
        out = g.pick(_WORDS).lower() + g.digits(2) + g.pick(("fox", "kite", "reef"))
    out = "".join(c for c in out if c not in safe)
    return out if len(out) >= 8 else g.s(ALNUM, 12)


def _phrase(g: Gen) -> str:
    """A passphrase of words and a number joined by "-"."""
    words = g.rng.sample(("copper", "meadow", "lantern", "quiet", "falcon", "thistle", "brook"), 3)
    return "-".join(words[: g.rng.randint(2, 3)]) + "-" + str(g.rng.randint(2, 99))


def _token(g: Gen) -> str:
    shape = g.rng.randrange(3)
    if shape == 0:
        return g.s(ALNUM, g.rng.randint(30, 40))
    if shape == 1:
        return g.s(HEX, 40)
    return g.s(B64, 44)


def _compose_list(g: Gen) -> Made:
    v = _pw(g, "\"' $#")
    name = g.pick(("MARIADB_ROOT_PASSWORD", "RABBITMQ_DEFAULT_PASS", "KEYCLOAK_ADMIN_PASSWORD"))
    q = g.pick(("", '"'))
    return (
        "services:\n  app:\n    image: acme/app:2.1\n    environment:\n"
        f"      - TZ=Europe/Berlin\n      - {q}{name}={v}{q}\n      - LOG_LEVEL=info\n",
        v,
    )


def _k8s_string_data(g: Gen) -> Made:
    v = _pw(g, "\"' #:")
    key = g.pick(("password", "admin-password", "redis-password", "smtp_pass"))
    return (
        "apiVersion: v1\nkind: Secret\nmetadata:\n  name: app-creds\ntype: Opaque\n"
        f"stringData:\n  username: app\n  {key}: {v}\n",
        v,
    )


def _spring_yml(g: Gen) -> Made:
    v = _pw(g, "\"' #:{}")
    if g.rng.random() < 0.5:
        return (
            "spring:\n  datasource:\n    url: jdbc:mysql://db:3306/shop\n"
            f"    username: shop\n    password: {v}\n  jpa:\n    show-sql: false\n",
            v,
        )
    return (
        "spring:\n  mail:\n    host: smtp.example.org\n    port: 587\n"
        f"    username: noreply@example.org\n    password: '{v}'\n",
        v,
    )


def _package_credentials(g: Gen) -> Made:
    kind = g.rng.randrange(3)
    if kind == 0:
        v = g.s(ALNUM, 36)
        return f"registry=https://npm.example.com/\n//npm.example.com/:_authToken={v}\n", v
    if kind == 1:
        v = _pw(g, "\"' #%:")
        return (
            "[distutils]\nindex-servers =\n    internal\n\n[internal]\n"
            f"repository = https://pypi.example.com/simple/\nusername = ci\npassword = {v}\n",
            v,
        )
    v = "rubygems_" + g.s(HEX, 48)
    return f"---\n:rubygems_api_key: {v}\n", v


def _zsh_history(g: Gen) -> Made:
    v = _pw(g, "\"' $#&!:@/\\`;|<>()")
    ts = 1733500000 + g.rng.randrange(100000)
    user = g.pick(("admin", "ops", "ci-bot"))
    return (
        f": {ts}:0;cd ~/work\n: {ts + 7}:0;curl -s -u {user}:{v} https://ci.example.com/api/json\n",
        v,
    )


def _db_cli(g: Gen) -> Made:
    v = _pw(g, "\"' $#&!:@/\\`;|<>(){}")
    kind = g.rng.randrange(3)
    if kind == 0:
        return f"$ mysql -h db01 -u report -p{v} analytics -e 'select 1'\n", v
    if kind == 1:
        return f"$ PGPASSWORD={v} psql -h db01 -U report -d analytics -c '\\dt'\n", v
    return f"$ mysqldump --user=backup --password={v} --all-databases > all.sql\n", v


def _connection_strings(g: Gen) -> Made:
    v = _pw(g, "\"' ;&?=#{}")
    kind = g.rng.randrange(3)
    if kind == 0:
        return f"Driver={{ODBC Driver 18 for SQL Server}};Server=db01;Uid=app;Pwd={v};\n", v
    if kind == 1:
        return f"jdbc:sqlserver://db01:1433;databaseName=shop;user=app;password={v};\n", v
    return f'conn = pyodbc.connect("DSN=warehouse;UID=etl;PWD={v}")\n', v


def _redis_monitor(g: Gen) -> Made:
    v = _pw(g, "\"' \\")
    t = f"1733{g.digits(6)}.{g.digits(6)}"
    return (
        f'{t} [0 10.0.0.7:51234] "AUTH" "{v}"\n{t} [0 10.0.0.7:51234] "GET" "session:42"\n',
        v,
    )


def _smtp_plain(g: Gen) -> Made:
    pw = _pw(g, "\x00")
    blob = base64.b64encode(f"\x00mailer@example.org\x00{pw}".encode()).decode()
    return (
        "postfix/smtpd[2211]: < ehlo client.example.org\n"
        f"postfix/smtpd[2211]: < AUTH PLAIN {blob}\n"
        "postfix/smtpd[2211]: > 235 2.7.0 Authentication successful\n",
        blob,
    )


_CHAT_15 = (
    "the staging db password is {p} btw",
    "admin pw for the printer = {p}",
    "das Passwort für den Router ist {p}",
    "el password del wifi es {p}",
    "le mot de passe du NAS : {p}",
    "a senha do servidor é {p}",
    "пароль от сервера: {p}",
    "la password di jenkins è {p}",
)


def _irc_slack(g: Gen) -> Made:
    v = _pw(g, " ")
    line = g.pick(_CHAT_15).format(p=v)
    if g.rng.random() < 0.5:
        return f"[{g.rng.randint(10, 23)}:{g.rng.randint(10, 59)}] <ops-{g.digits(2)}> {line}", v
    return f"*Lena* {g.rng.randint(1, 12)}:{g.rng.randint(10, 59)} PM\n{line}\n", v


def _auth_headers(g: Gen) -> Made:
    kind = g.rng.randrange(4)
    ip = f"10.1.{g.rng.randint(0, 255)}.{g.rng.randint(1, 254)}"
    if kind == 0:
        v = g.s(ALNUM + "-._", 40)
        head = f"Bearer {v}"
    elif kind == 1:
        v = base64.b64encode(f"svc:{_pw(g, ':')}".encode()).decode()
        head = f"Basic {v}"
    elif kind == 2:
        v = g.s(ALNUM, 32)
        head = f"Token token={v}"
    else:
        v = g.s(HEX, 40)
        head = f"token {v}"
    return (
        f'{ip} - - [07/Dec/2026:10:{g.rng.randint(10, 59)}:01 +0000] "GET /api/v2/orders HTTP/1.1" '
        f'401 12 "-" "python-requests/2.32" auth="{head}"\n',
        v,
    )


def _config_traceback(g: Gen) -> Made:
    v = _pw(g, "\"'\\")
    kind = g.rng.randrange(3)
    if kind == 0:
        return (
            'Traceback (most recent call last):\n  File "worker.py", line 88, in connect\n'
            f"ConnectionError: could not connect with config {{'host': 'db01', 'port': 5432, "
            f"'user': 'etl', 'password': '{v}'}}\n",
            v,
        )
    if kind == 1:
        return (
            "java.sql.SQLException: Access denied\n\tat com.acme.Db.open(Db.java:41)\n"
            f"Caused by: DataSourceConfig{{url=jdbc:mysql://db01/shop, username=shop, password={v}}}\n",
            v,
        )
    return (
        f'Redis::CannotConnectError: {{:host=>"cache01", :port=>6379, :password=>"{v}"}}\n',
        v,
    )


def _yaml_nested(g: Gen) -> Made:
    v = _pw(g, "\"' #:{},[]")
    kind = g.rng.randrange(3)
    if kind == 0:
        return f"db: {{user: app, password: {v}}}\ncache: {{host: redis}}\n", v
    if kind == 1:
        return f"smtp:\n  credentials:\n    user: mailer\n    password: {v}\n  port: 587\n", v
    return f"sources:\n  - {{name: crm, user: sync, pass: {v}, port: 443}}\n", v


def _login_shapes(g: Gen) -> Made:
    v = _pw(g, " /`'\"")
    user = g.pick(("ann", "admin", "deploy", "kiosk"))
    form = g.pick(
        (
            "login: {u} / pw {p}",
            "user {u} pass {p}",
            "Login for the router: {u}/{p}",
            "logins: {u} / {p} (staging)",
            "login => {u} / {p}",
            "the login for the switch is {u}/{p}",
            "logon: {u} / {p}",
            "router login: {u} / {p}",
        )
    )
    return form.format(u=user, p=v), v


def _noun_phrase(g: Gen) -> Made:
    v = _phrase(g) if g.rng.random() < 0.4 else _pw(g, " ")
    form = g.pick(
        (
            "the admin pass is {p}",
            "wifi password was {p}",
            "the root pw for box3 = {p}",
            "Guest network passphrase is {p}.",
            "the new jenkins admin password is {p}",
            "backup user pw -> {p}",
        )
    )
    return form.format(p=v), v


def _punctuation_first(g: Gen) -> Made:
    v = g.pick("%^~*+!") + g.s(ALNUM, g.rng.randint(7, 12))
    form = g.pick(
        ("password={p}", "PASS='{p}'", 'db_pass: "{p}"', "SMTP_PASSWORD={p}", "pwd = {p}")
    )
    return form.format(p=v), v


HELD_OUT_15: dict[str, Callable[[Gen], Made]] = {
    "compose-env-list": _compose_list,
    "k8s-string-data": _k8s_string_data,
    "spring-yml": _spring_yml,
    "package-credentials": _package_credentials,
    "zsh-history-curl": _zsh_history,
    "db-cli": _db_cli,
    "odbc-jdbc-pwd": _connection_strings,
    "redis-monitor": _redis_monitor,
    "smtp-auth-plain": _smtp_plain,
    "irc-slack-6-languages": _irc_slack,
    "auth-header-log": _auth_headers,
    "config-traceback": _config_traceback,
    "yaml-nested-flow": _yaml_nested,
    "login-shapes": _login_shapes,
    "noun-phrase-prose": _noun_phrase,
    "punctuation-first": _punctuation_first,
}

NEAR_MISSES_15: list[str] = [
    "services:\n  db:\n    environment:\n      - MARIADB_ROOT_PASSWORD_FILE=/run/secrets/db_root\n",
    "stringData:\n  username: app\n  password: ${APP_PASSWORD}\n",
    "spring:\n  datasource:\n    password: ${SPRING_DATASOURCE_PASSWORD:}\n",
    "//npm.example.com/:_authToken=${NPM_TOKEN}\n",
    "[internal]\nusername = __token__\npassword = <see 1Password>\n",
    ": 1733500000:0;curl -s -u admin https://ci.example.com/api/json\n",
    "$ mysql -h db01 -u report -p analytics\n",
    "Driver={ODBC Driver 18 for SQL Server};Server=db01;Trusted_Connection=yes;\n",
    '1733412345.123456 [0 10.0.0.7:51234] "GET" "session:42"\n',
    "postfix/smtpd[2211]: > 250-AUTH PLAIN LOGIN\n",
    "creds: deploy01 / see-the-wiki",
    "password: ask Bob",
    "pw: in 1Password",
    "password is in the vault",
    "password: <redacted>",
    "password: ********",
    "password: TBD",
    "db: {user: app, password: same-as-before}",
    "login: ann / ask-ops",
    "the admin pass is in-the-vault",
    "wifi password was see-the-sticker",
    "smtp:\n  credentials:\n    user: mailer\n    password: check-1password\n",
    "the bus pass is valid-for-30-days",
    "login: ann / x1-y2-z3-the-id",
    "logon: server01",
    'auth="Bearer <token>"',
    "Caused by: DataSourceConfig{url=jdbc:mysql://db01/shop, username=shop, password=****}",
    "[14:02] <ops-12> das Passwort steht im Wiki",
    "le mot de passe du NAS : demande à Paul",
    "~/secrets/pw.txt is the password file",
]
