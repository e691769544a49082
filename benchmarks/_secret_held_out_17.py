"""Held-out contexts for ``secret_survivors.py`` (rule set 17): notebooks, shell and service
files, manifests, SQL, client code, app configs, key files, chat in many scripts, logs with
cookies, new providers' keys, Wi-Fi cards, archive and crypto command lines, user:password
pairs and YAML anchors, written apart from rule set 16's generator and before rule set 17's
rules.

Contexts: Jupyter notebook JSON (a cell's source or output); ``.env``/profile lines with
``export``, ``setenv`` or fish's ``set -x``; systemd units' ``Environment=``; Kubernetes
Secrets with base64 ``data:``; GitHub Actions ``env:``/``with:`` blocks; crontab lines;
SQL ``CREATE USER ... IDENTIFIED BY``, ``ALTER ROLE ... PASSWORD``, ``CREATE LOGIN``; Python
``requests`` auth tuples, ``psycopg2.connect(password=...)`` and kin; Java properties;
.NET ``appsettings.json``; iOS plists, Android resources and Gradle signing configs; PuTTY
``.ppk`` and PGP private key blocks; chat giving a password, a PIN, a one-time code or a
recovery phrase in many languages; logs echoing cookies and session tokens; keys of
providers in plain prose; Wi-Fi cards (``SSID: X / Key: Y``, a QR code's ``WIFI:`` string,
``nmcli``, ``wpa_supplicant``); archive and crypto commands (``rar -hp``, ``7z -p``, ``zip
-P``, ``openssl -pass pass:``, ``gpg --passphrase``, ``sshpass -p``, ``smbclient -U u%X``);
``user:password`` pairs out of URLs and letters-only passwords in other languages; YAML
anchors on a secret's value. Each returns the text and the secret in it.
``NEAR_MISSES_17`` are the same places without a secret. Not a package module.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Callable

from _secret_families import ALNUM, B64, DIG, HEX, LOW, UP, Gen

__all__ = ["HELD_OUT_17", "NEAR_MISSES_17"]

Made = tuple[str, str]  # (text, secret)

_WORDS = ("harbor", "Cobalt", "maple", "Zephyr", "ember", "Juniper", "nova", "Otter", "quill")
_LETTERS = ("kangaroo", "sunflower", "moonlight", "Pelican", "whistler", "bluebird", "tornado")
_BIP39_TEXT = (
    "abandon ability able about above absent absorb abstract absurd abuse access accident "
    "acoustic acquire across action actor actress actual adapt address adjust admit adult "
    "advance advice aerobic affair afford afraid again agent agree ahead aim air airport "
    "aisle alarm album alcohol alert alien alley allow almost alone alpha already also"
)
_BIP39 = _BIP39_TEXT.split(" ")


def _pw(g: Gen, safe: str = "") -> str:
    """A password of one of six shapes; ``safe`` names characters the format cannot hold."""
    shape = g.rng.randrange(6)
    if shape == 0:
        out = g.s(ALNUM + "!%^*+-_=~@#.", g.rng.randint(10, 20))
    elif shape == 1:
        out = g.pick(_WORDS) + g.pick("!*#@$?") + g.digits(g.rng.randint(2, 4))
    elif shape == 2:
        out = g.pick(_WORDS).lower() + "." + g.pick(_WORDS).lower() + "." + g.digits(2)
    elif shape == 3:
        out = g.s(ALNUM, g.rng.randint(12, 24))
    elif shape == 4:
        out = g.pick(_WORDS).capitalize() + g.pick(_WORDS).capitalize() + g.digits(2) + "!"
    else:
        out = g.s(LOW, 4) + g.digits(2) + g.s(UP, 3) + g.pick("&$%/") + g.s(DIG, 2)
    out = "".join(c for c in out if c not in safe)
    return out if len(out) >= 8 else g.s(ALNUM, 12)


def _notebook(g: Gen) -> Made:
    kind = g.rng.randrange(3)
    if kind == 0:
        v = "sk-" + g.s(ALNUM, 48)
        src = [
            "import os\n",
            f'os.environ["OPENAI_API_KEY"] = "{v}"\n',
            "client = OpenAI()",
        ]
        cell = {"cell_type": "code", "execution_count": 3, "metadata": {}, "source": src}
    elif kind == 1:
        v = _pw(g, "\"'\\")
        src = ["conn = psycopg2.connect(\n", f"    host='db01', user='etl', password='{v}')\n"]
        cell = {"cell_type": "code", "execution_count": 7, "metadata": {}, "source": src}
    else:
        v = g.s(ALNUM + "-_", 40)
        out = [f"{{'access_token': '{v}', 'token_type': 'bearer', 'expires_in': 3600}}\n"]
        cell = {
            "cell_type": "code",
            "execution_count": 12,
            "metadata": {},
            "outputs": [{"name": "stdout", "output_type": "stream", "text": out}],
            "source": ["print(resp.json())"],
        }
    nb = {"cells": [cell], "metadata": {"kernelspec": {"name": "python3"}}, "nbformat": 4}
    return json.dumps(nb, indent=1) + "\n", v


def _env_export(g: Gen) -> Made:
    v = _pw(g, "\"' $`\\!&;|<>(){}#")
    name = g.pick(("DB_PASSWORD", "API_TOKEN", "STRIPE_SECRET", "REDIS_PASS", "SMTP_PASSWD"))
    form = g.pick(
        (
            "export {n}={v}\nexport PATH=$PATH:/opt/bin\n",
            'export {n}="{v}"\n',
            "setenv {n} '{v}'\n",
            "set -x {n} {v}\n",
            'declare -x {n}="{v}"\n',
            "# ~/.zshrc\nalias k=kubectl\nexport {n}='{v}'\n",
        )
    )
    return form.format(n=name, v=v), v


def _systemd(g: Gen) -> Made:
    v = _pw(g, "\"' $%\\;")
    name = g.pick(("DB_PASSWORD", "API_KEY", "GRAFANA_ADMIN_PASSWORD", "SECRET_KEY"))
    form = g.pick(
        (
            "[Service]\nUser=app\nEnvironment={n}={v}\nExecStart=/opt/app/run\n",
            '[Service]\nEnvironment="{n}={v}" "LOG_LEVEL=info"\n',
            "[Service]\nEnvironment=PORT=8080 {n}={v}\n",
        )
    )
    return form.format(n=name, v=v), v


def _k8s_data(g: Gen) -> Made:
    raw = _pw(g)
    v = base64.b64encode(raw.encode()).decode()
    key = g.pick(("password", "DB_PASS", "api-key", "token", "client-secret", "ROOT_PASSWORD"))
    return (
        "apiVersion: v1\nkind: Secret\nmetadata:\n  name: app-creds\ntype: Opaque\ndata:\n"
        f"  username: {base64.b64encode(b'app').decode()}\n  {key}: {v}\n",
        v,
    )


def _gha(g: Gen) -> Made:
    kind = g.rng.randrange(3)
    if kind == 0:
        v = "npm_" + g.s(ALNUM, 36)
        return (
            "jobs:\n  publish:\n    runs-on: ubuntu-latest\n    env:\n"
            f"      NODE_AUTH_TOKEN: {v}\n    steps:\n      - run: npm publish\n",
            v,
        )
    v = _pw(g, "\"' #:{}[],&*!|>%@`")
    if kind == 1:
        return (
            "      - uses: docker/login-action@v3\n        with:\n          username: ci\n"
            f"          password: {v}\n",
            v,
        )
    return f"    env:\n      DB_PASSWORD: '{v}'\n      DB_HOST: localhost\n", v


def _crontab(g: Gen) -> Made:
    v = _pw(g, "\"' $`\\!&;|<>(){}#%:@/")
    form = g.pick(
        (
            "0 3 * * * PGPASSWORD={v} pg_dump -h db01 -U backup shop > /srv/shop.sql\n",
            "*/5 * * * * curl -fsS -u monitor:{v} https://status.example.com/ping\n",
            "30 2 * * 0 mysqldump -u root -p{v} --all-databases | gzip > /b/all.gz\n",
            "@daily /usr/bin/rsync -a /srv rsync://backup@nas/srv --password-file=<(echo {v})\n",
        )
    )
    return form.format(v=v), v


def _sql(g: Gen) -> Made:
    v = _pw(g, "\"'\\; ")
    form = g.pick(
        (
            "CREATE USER app IDENTIFIED BY '{v}';\n",
            "CREATE USER 'report'@'%' IDENTIFIED BY '{v}';\nGRANT SELECT ON shop.* TO 'report'@'%';\n",
            "ALTER ROLE etl WITH LOGIN PASSWORD '{v}';\n",
            "ALTER USER 'root'@'localhost' IDENTIFIED WITH mysql_native_password BY '{v}';\n",
            "CREATE LOGIN svc_app WITH PASSWORD = '{v}', CHECK_POLICY = OFF;\n",
            "SET PASSWORD FOR 'app'@'localhost' = '{v}';\n",
            'CREATE ROLE analyst LOGIN PASSWORD "{v}";\n',
            "create user scott identified by {v};\n",
        )
    )
    if "{v};" in form and "by {v}" in form:
        v = "".join(c for c in v if c.isalnum()) or g.s(ALNUM, 10)
    return form.format(v=v), v


def _python_clients(g: Gen) -> Made:
    v = _pw(g, "\"'\\")
    form = g.pick(
        (
            'r = requests.get(url, auth=("ann", "{v}"), timeout=10)\n',
            "session.auth = HTTPBasicAuth('svc-bot', '{v}')\n",
            'conn = psycopg2.connect(host="db01", dbname="shop", user="app", password="{v}")\n',
            "db = pymysql.connect(host='10.0.0.5', user='root', passwd='{v}', db='crm')\n",
            "r = redis.Redis(host='cache', port=6379, password='{v}')\n",
            "server.login('alerts@example.com', '{v}')\n",
            'client = MongoClient("db01", username="admin", password="{v}")\n',
        )
    )
    return form.format(v=v), v


def _java_properties(g: Gen) -> Made:
    v = _pw(g, " \\#!:=")
    key = g.pick(
        (
            "spring.datasource.password",
            "db.password",
            "mail.smtp.password",
            "javax.net.ssl.keyStorePassword",
            "app.jwt.secret",
            "keystore.pass",
            "ldap.bind.credentials",
        )
    )
    sep = g.pick(("=", " = ", ": ", "="))
    return f"spring.datasource.username=app\n{key}{sep}{v}\nserver.port=8080\n", v


def _appsettings(g: Gen) -> Made:
    v = _pw(g, '"\\;')
    kind = g.rng.randrange(3)
    if kind == 0:
        doc = {"Smtp": {"Host": "smtp.example.com", "User": "alerts", "Password": v}}
    elif kind == 1:
        doc = {
            "AzureAd": {
                "Instance": "https://login.microsoftonline.com/",
                "ClientId": g.uuid(),
                "ClientSecret": v,
            }
        }
    else:
        doc = {"ConnectionStrings": {"Db": f"Server=sql01;Database=crm;User Id=app;Pwd={v};"}}
    return json.dumps(doc, indent=2) + "\n", v


def _mobile_config(g: Gen) -> Made:
    kind = g.rng.randrange(4)
    if kind == 0:
        v = g.s(ALNUM, 32)
        return (
            "<dict>\n\t<key>CFBundleVersion</key>\n\t<string>1.4.2</string>\n"
            f"\t<key>API_SECRET</key>\n\t<string>{v}</string>\n</dict>\n",
            v,
        )
    if kind == 1:
        v = "AIza" + g.s(ALNUM + "-_", 35)
        return f'<resources>\n    <string name="maps_key">{v}</string>\n</resources>\n', v
    v = _pw(g, "\"'\\$ ")
    if kind == 2:
        return (
            "signingConfigs {\n    release {\n        storeFile file('release.jks')\n"
            f'        storePassword "{v}"\n        keyAlias "upload"\n    }}\n}}\n',
            v,
        )
    return f"RELEASE_STORE_PASSWORD={v}\nRELEASE_KEY_ALIAS=upload\n", v


def _key_files(g: Gen) -> Made:
    lines = [g.s(B64, 64) for _ in range(g.rng.randint(2, 5))] + [g.s(B64, 20) + "=="]
    if g.rng.random() < 0.5:
        pub = [g.s(B64, 64) for _ in range(2)]
        text = (
            "PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\nComment: ann@laptop\n"
            f"Public-Lines: {len(pub)}\n" + "\n".join(pub) + "\n"
            f"Private-Lines: {len(lines)}\n" + "\n".join(lines) + "\n"
            f"Private-MAC: {g.s(HEX, 64)}\n"
        )
    else:
        text = (
            "-----BEGIN PGP PRIVATE KEY BLOCK-----\n\n" + "\n".join(lines) + "\n"
            f"={g.s(B64, 4)}\n-----END PGP PRIVATE KEY BLOCK-----\n"
        )
    return text, lines[0]


_CHAT_PW = (
    "mi contraseña es {p}",
    "a senha do wifi é {p}",
    "パスワードは {p} です",
    "密码\uff1a{p}",
    "비밀번호: {p}",
    "kata sandi wifi: {p}",
    "parola e {p}",
    "wachtwoord: {p}",
    "lösenordet är {p}",
    "salasana on {p}",
    "adgangskoden er {p}",
    "heslo je {p}",
    "mật khẩu là {p}",
    "şifre: {p}",
    "Passwort: {p}",
    "пароль — {p}",
)
_CHAT_CODE = (
    "your verification code is {p}",
    "Ваш код подтверждения: {p}",
    "tu código de verificación es {p}",
    "認証コード: {p}",
    "验证码\uff1a{p}",
    "PIN: {p}",
    "one-time code {p}, valid for 10 minutes",
)


def _chat(g: Gen) -> Made:
    r = g.rng.random()
    if r < 0.3:
        v = g.digits(6)
        line = g.pick(_CHAT_CODE).format(p=v)
    elif r < 0.45:
        v = " ".join(g.pick(_BIP39) for _ in range(12))
        line = g.pick(
            (
                "recovery phrase: {p}",
                "seed phrase is {p}",
                "my wallet's mnemonic: {p}",
                "frase de recuperación: {p}",
            )
        ).format(p=v)
    else:
        v = _pw(g, " 。、「」\uff1a:")
        line = g.pick(_CHAT_PW).format(p=v)
    who = g.pick(("Mila", "Kenji", "Ana", "Jae", "Omar"))
    if g.rng.random() < 0.5:
        return f"[{g.rng.randint(10, 23)}:{g.rng.randint(10, 59)}] {who}: {line}\n", v
    return f"{who}: {line}\n", v


def _cookies(g: Gen) -> Made:
    kind = g.rng.randrange(5)
    if kind == 0:
        v = g.s(LOW + DIG, 32)
        return f"> GET /admin HTTP/1.1\n> Cookie: csrftoken=abc; sessionid={v}\n", v
    if kind == 1:
        v = g.s(HEX.upper(), 32)
        return f"< Set-Cookie: JSESSIONID={v}; Path=/; HttpOnly; Secure\n", v
    if kind == 2:
        v = "s%3A" + g.s(ALNUM + "-_", 32) + "." + g.s(ALNUM + "%", 43)
        return f"DEBUG express-session cookie connect.sid={v}\n", v
    if kind == 3:
        v = g.s(LOW + DIG, 26)
        return f'10.0.0.8 - - "GET /cart HTTP/1.1" 200 "PHPSESSID={v}; lang=en"\n', v
    v = g.s(ALNUM + "-_", 43)
    return f"INFO auth: issued session_token={v} user=ann ttl=86400\n", v


def _new_keys(g: Gen) -> Made:
    kind = g.rng.randrange(10)
    if kind == 0:
        v = "xai-" + g.s(ALNUM, 80)
    elif kind == 1:
        v = "pplx-" + g.s(ALNUM, 48)
    elif kind == 2:
        v = "r8_" + g.s(ALNUM, 37)
    elif kind == 3:
        v = "sk-or-v1-" + g.s(HEX, 64)
    elif kind == 4:
        v = "tskey-auth-" + g.s(ALNUM, 12) + "-" + g.s(ALNUM, 33)
    elif kind == 5:
        v = "sbp_" + g.s(HEX, 40)
    elif kind == 6:
        v = "figd_" + g.s(ALNUM + "-_", 40)
    elif kind == 7:
        v = "ntn_" + g.s(ALNUM, 46)
    elif kind == 8:
        v = "ATATT3xFfGF0" + g.s(ALNUM + "-_", 170) + "=" + g.s(HEX.upper(), 8)
    else:
        v = "fo1_" + g.s(ALNUM + "-_", 43)
    form = g.pick(
        (
            "new key for the staging bot: {v}",
            "pasted it here {v} — rotate after the demo",
            "- {v}",
            "KEY={v}",
            "<td>{v}</td>",
        )
    )
    return form.format(v=v) + "\n", v


def _wifi(g: Gen) -> Made:
    v = _pw(g, ';:,"\\ /')
    ssid = g.pick(("HomeNet-5G", "CafeGuest", "FRITZ!Box 7590", "Office_WLAN", "TP-Link_8A2C"))
    form = g.pick(
        (
            "SSID: {s} / Key: {v}",
            "Network: {s}\nPassword: {v}",
            "WIFI:S:{s};T:WPA;P:{v};;",
            "nmcli dev wifi connect '{s}' password {v}",
            'network={{\n    ssid="{s}"\n    psk="{v}"\n}}',
            "wifi {s} key {v}",
            "SSID {s}, WPA2 key: {v}",
            "Netzwerk: {s} / Schlüssel: {v}",
        )
    )
    return form.format(s=ssid, v=v) + "\n", v


def _archive_crypto(g: Gen) -> Made:
    v = _pw(g, "\"' $`\\!&;|<>(){}#%:")
    form = g.pick(
        (
            "rar a -hp{v} -m5 backup.rar ./docs",
            "7z x -p{v} -o/tmp/out dump.7z",
            "zip -r -P {v} secrets.zip ./keys",
            "zip --password {v} out.zip report.pdf",
            "unzip -P {v} -d out archive.zip",
            "openssl enc -d -aes-256-cbc -in db.enc -out db.sql -pass pass:{v}",
            "openssl enc -aes-256-cbc -salt -in a.tar -out a.enc -k {v}",
            "gpg --batch --yes --passphrase {v} -d vault.gpg",
            "gpg --pinentry-mode loopback --passphrase '{v}' --symmetric notes.txt",
            "sshpass -p {v} ssh deploy@10.0.0.9",
            "smbclient //nas/share -U ann%{v}",
            "xfreerdp /v:10.0.0.20 /u:Administrator /p:{v}",
            "htpasswd -b -c .htpasswd admin {v}",
        )
    )
    return form.format(v=v) + "\n", v


def _pairs(g: Gen) -> Made:
    kind = g.rng.randrange(4)
    user = g.pick(("ann", "deploy", "svc_backup", "mila.k"))
    if kind == 0:
        v = _pw(g, " :/@\"'")
        form = g.pick(
            (
                "creds {u}:{p}",
                "use {u}:{p} for the staging box",
                "basic auth is {u}:{p}",
                "account: {u}:{p}",
            )
        )
        return form.format(u=user, p=v) + "\n", v
    v = g.pick(_LETTERS)
    if kind == 1:
        return f"login {user}/{v}\n", v
    if kind == 2:
        form = g.pick(
            (
                "le mot de passe est {p}",
                "das Passwort lautet {p}",
                "la contraseña es {p}",
                "a senha é {p}",
                "la password è {p}",
                "het wachtwoord is {p}",
                "пароль: {p}",
            )
        )
        return form.format(p=v) + "\n", v
    return f"the password is {v} for now\n", v


def _yaml_anchor(g: Gen) -> Made:
    v = _pw(g, "\"' #:{}[],&*!|>%@`")
    key = g.pick(("password", "db_password", "api_token", "secret"))
    anchor = g.pick(("pw", "db_pw", "defaultPass", "creds"))
    return (
        f"defaults:\n  {key}: &{anchor} {v}\nstaging:\n  {key}: *{anchor}\n",
        v,
    )


HELD_OUT_17: dict[str, Callable[[Gen], Made]] = {
    "notebook-json": _notebook,
    "env-export": _env_export,
    "systemd-environment": _systemd,
    "k8s-secret-data": _k8s_data,
    "github-actions": _gha,
    "crontab": _crontab,
    "sql-users": _sql,
    "python-clients": _python_clients,
    "java-properties": _java_properties,
    "dotnet-appsettings": _appsettings,
    "mobile-config": _mobile_config,
    "ppk-pgp": _key_files,
    "chat-many-scripts": _chat,
    "cookies-sessions": _cookies,
    "new-provider-keys": _new_keys,
    "wifi-cards": _wifi,
    "archive-crypto-cli": _archive_crypto,
    "user-pass-pairs": _pairs,
    "yaml-anchor": _yaml_anchor,
}

NEAR_MISSES_17: list[str] = [
    '{"cells": [{"cell_type": "code", "source": ["api_key = os.environ[\\"OPENAI_API_KEY\\"]"]}]}',
    "export PATH=$PATH:/usr/local/go/bin\n",
    'export DB_PASSWORD="$(pass show db/prod)"\n',
    "[Service]\nEnvironment=PYTHONUNBUFFERED=1\nEnvironmentFile=/etc/app/env\n",
    "apiVersion: v1\nkind: Secret\nmetadata:\n  name: empty\ndata: {}\n",
    "    env:\n      DB_PASSWORD: ${{ secrets.DB_PASSWORD }}\n",
    "0 3 * * * /usr/local/bin/backup.sh > /var/log/backup.log 2>&1\n",
    "CREATE USER app IDENTIFIED BY :new_password;\n",
    "ALTER ROLE etl WITH LOGIN NOSUPERUSER;\n",
    "CREATE USER app IDENTIFIED EXTERNALLY;\n",
    "r = requests.get(url, auth=(user, password))\n",
    'conn = psycopg2.connect(password=os.environ["PGPASSWORD"])\n',
    "spring.datasource.password=${DB_PASSWORD}\n",
    '{"Smtp": {"Password": ""}}\n',
    "<key>CFBundleShortVersionString</key>\n<string>2.1.0</string>\n",
    "PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: aes256-cbc\nComment: ann@laptop\n",
    "-----BEGIN PGP PUBLIC KEY BLOCK-----\n",
    "the recovery phrase is written on paper in the safe",
    "I'll send you the verification code by SMS",
    "your code expires in 10 minutes",
    "Cookie: theme=dark; lang=en\n",
    "< Set-Cookie: consent=yes; Path=/; SameSite=Lax\n",
    "SSID: HomeNet-5G / Security: WPA2\n",
    "Network: CafeGuest\nPassword: ask at the counter\n",
    "wifi key is on the sticker under the router",
    "7z a -mx9 archive.7z ./docs\n",
    "zip -r out.zip ./docs\n",
    "unzip -o archive.zip -d out\n",
    "openssl enc -aes-256-cbc -in a -out b -pass env:ARCHIVE_PASS\n",
    "gpg --batch --passphrase-file ~/.gnupg/pw.txt -d vault.gpg\n",
    "rar a -hp backup.rar ./docs\n",
    "scp ann:backup.tar.gz .\n",
    "the meeting is at 10:30, ratio 16:9\n",
    "login ann/projects\n",
    "das Passwort ist falsch\n",
    "le mot de passe est incorrect\n",
    "la contraseña es incorrecta\n",
    "defaults: &defaults\n  adapter: postgres\n  host: db01\n",
    "key: value\nanchor: &base\n  timeout: 30\n",
]
