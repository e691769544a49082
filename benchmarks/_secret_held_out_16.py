"""Held-out contexts for ``secret_survivors.py`` (rule set 16): credential files, connection
strings, infrastructure code, command lines, chat in many languages and provider keys,
written apart from rule set 15's generator and before rule set 16's rules.

Contexts: ``.netrc``, ``.pgpass`` and ``.my.cnf`` lines; ADO.NET, JDBC and ODBC connection
strings; Terraform/HCL; TOML and INI sections; ``docker run -e``; ``kubectl create secret
--from-literal``; ``curl``/``wget`` credentials; git credential URLs; PowerShell secure
strings and ``net use``; Ansible inventories and Helm values; database and cache clients
(``sqlcmd -P``, a Redis prompt's ``AUTH``, ``mongosh -p``, ``ldapsearch -w``, ``openssl
-passin pass:``, ``7z -p``); chat handing out a password or a PIN in nine languages; logs
echoing an ``Authorization`` header; keys of cloud and AI providers in plain prose; a
password of letters only given with clear context; a password starting with a bracket.
Each returns the text and the secret in it. ``NEAR_MISSES_16`` are the same places without
a secret (references, prompts, prose about passes and PINs). Not a package module.
"""

from __future__ import annotations

import base64
from collections.abc import Callable

from _secret_families import ALNUM, B64, HEX, LOW, Gen

__all__ = ["HELD_OUT_16", "NEAR_MISSES_16"]

Made = tuple[str, str]  # (text, secret)

_WORDS = ("lagoon", "Saffron", "birch", "Meteor", "quartz", "Willow", "tango", "Falcon", "opal")
_LETTERS = ("calvin", "sunshine", "letmein", "dragonfly", "Marigold", "trustno", "kangaroo")


def _pw(g: Gen, safe: str = "") -> str:
    """A password of one of six shapes; ``safe`` names characters the format cannot hold."""
    shape = g.rng.randrange(6)
    if shape == 0:
        out = g.s(ALNUM + "!%^*+-_=~@#", g.rng.randint(10, 20))
    elif shape == 1:
        out = g.pick(_WORDS) + g.pick("!*#@$") + g.digits(g.rng.randint(2, 4))
    elif shape == 2:
        out = g.pick(_WORDS).lower() + "-" + g.pick(_WORDS).lower() + "-" + g.digits(2)
    elif shape == 3:
        out = g.s(ALNUM, g.rng.randint(12, 24))
    elif shape == 4:
        out = g.pick("(&[{#<") + g.pick(_WORDS) + g.digits(3) + g.pick("!?")
    else:
        out = g.pick(_WORDS).capitalize() + g.digits(4) + g.pick(_WORDS).lower()
    out = "".join(c for c in out if c not in safe)
    return out if len(out) >= 8 else g.s(ALNUM, 12)


def _netrc_pgpass(g: Gen) -> Made:
    kind = g.rng.randrange(4)
    if kind == 0:
        v = _pw(g, " \t\"'")
        return f"machine api.example.com\n  login ann\n  password {v}\n", v
    if kind == 1:
        v = _pw(g, " \t\"'")
        return f"machine git.example.org login ci password {v}\n", v
    if kind == 2:
        v = _pw(g, " :\\")
        return f"db01.internal:5432:*:app_rw:{v}\nlocalhost:5432:shop:shop:{_pw(g, ' :')}\n", v
    v = _pw(g, " \"'#;")
    return f"[client]\nuser = backup\npassword = {v}\nhost = 127.0.0.1\n", v


def _connection_strings(g: Gen) -> Made:
    v = _pw(g, "\"' ;&?=#{}")
    kind = g.rng.randrange(4)
    if kind == 0:
        return (
            "Server=tcp:acme.database.windows.net,1433;Initial Catalog=shop;"
            f"Persist Security Info=False;User ID=shopadmin;Password={v};Encrypt=True;\n",
            v,
        )
    if kind == 1:
        return f'String url = "jdbc:postgresql://db01:5432/shop?user=app&password={v}";\n', v
    if kind == 2:
        return f"Data Source=ORCL;User Id=scott;Password={v};Pooling=true\n", v
    return (
        f'"ConnectionStrings": {{ "Default": "Host=db;Database=app;Username=app;Password={v}" }}\n',
        v,
    )


def _terraform(g: Gen) -> Made:
    v = _pw(g, '"\\$%{}')
    kind = g.rng.randrange(3)
    name = g.pick(("password", "master_password", "admin_password", "db_password"))
    if kind == 0:
        return (
            'resource "aws_db_instance" "main" {\n  engine   = "postgres"\n'
            f'  username = "dbadmin"\n  {name} = "{v}"\n}}\n',
            v,
        )
    if kind == 1:
        return f'variable "{name}" {{\n  type    = string\n  default = "{v}"\n}}\n', v
    return f'{name} = "{v}"\nregion = "eu-west-1"\n', v


def _toml_ini(g: Gen) -> Made:
    v = _pw(g, "\"' #;\\")
    kind = g.rng.randrange(3)
    if kind == 0:
        return f'[database]\nhost = "db01"\nuser = "app"\npassword = "{v}"\n', v
    if kind == 1:
        return f"[smtp]\nserver = mail.example.org\nuser = alerts\npass = {v}\n", v
    return f"[mqtt]\nbroker=10.0.0.5\nusername=sensor\npasswd={v}\n", v


def _docker_run(g: Gen) -> Made:
    v = _pw(g, "\"' $`\\!&;|<>(){}#")
    name = g.pick(("POSTGRES_PASSWORD", "MYSQL_ROOT_PASSWORD", "API_TOKEN", "ADMIN_PASS"))
    form = g.pick(
        (
            "docker run -d -e {n}={v} -p 5432:5432 postgres:16",
            'docker run --rm --env "{n}={v}" acme/app',
            "podman run -e {n}='{v}' -d mariadb",
        )
    )
    return form.format(n=name, v=v) + "\n", v


def _kubectl_secret(g: Gen) -> Made:
    v = _pw(g, "\"' $`\\!&;|<>(){}#")
    kind = g.rng.randrange(3)
    if kind == 0:
        return (
            "kubectl create secret generic db-creds --from-literal=username=app "
            f"--from-literal=password={v}\n",
            v,
        )
    if kind == 1:
        return f"kubectl -n prod create secret generic api --from-literal=API_KEY='{v}'\n", v
    return (
        "kubectl create secret docker-registry regcred --docker-server=ghcr.io "
        f"--docker-username=ci --docker-password={v}\n",
        v,
    )


def _curl_wget(g: Gen) -> Made:
    v = _pw(g, "\"' $`\\!&;|<>(){}#:@")
    kind = g.rng.randrange(4)
    if kind == 0:
        return f"curl --user 'deploy:{v}' https://nexus.example.com/service/rest/v1/status\n", v
    if kind == 1:
        return f"wget --user=ann --password={v} https://files.example.com/dump.sql.gz\n", v
    if kind == 2:
        return f"wget --http-user=ci --http-password='{v}' https://ci.example.com/art.zip\n", v
    return f"curl -sS -u ops:{v} -X POST https://jenkins.example.com/job/x/build\n", v


def _git_urls(g: Gen) -> Made:
    # "<", ">", "[" and "]" cannot stand unencoded in a URL's user information (RFC 3986);
    # git and curl send them percent-encoded, so the URL rules stop at them.
    kind = g.rng.randrange(3)
    if kind == 0:
        v = "ghp_" + g.s(ALNUM, 36) if g.rng.random() < 0.5 else _pw(g, "\"' @/:?#%<>[]")
        return f"git clone https://ann:{v}@github.com/acme/app.git\n", v
    if kind == 1:
        v = _pw(g, "\"' @/:?#%<>[]")
        return f"https://ci-bot:{v}@gitlab.example.com\n", v
    v = g.s(ALNUM + "-_", 20)
    return f"git remote set-url origin https://oauth2:{v}@gitlab.example.com/acme/app.git\n", v


def _powershell(g: Gen) -> Made:
    v = _pw(g, "\"'`$ ")
    kind = g.rng.randrange(4)
    if kind == 0:
        return f'$pw = ConvertTo-SecureString -String "{v}" -AsPlainText -Force\n', v
    if kind == 1:
        return (
            "$cred = New-Object System.Management.Automation.PSCredential "
            f"('corp\\svc', (ConvertTo-SecureString '{v}' -AsPlainText -Force))\n",
            v,
        )
    if kind == 2:
        return (
            f"Invoke-Sqlcmd -ServerInstance db01 -Username sa -Password '{v}' -Query 'SELECT 1'\n",
            v,
        )
    return f"net use Z: \\\\files01\\share /user:CORP\\ann {v} /persistent:no\n", v


def _ansible_helm(g: Gen) -> Made:
    v = _pw(g, "\"' #:{},[]")
    kind = g.rng.randrange(4)
    if kind == 0:
        return f"[web]\nweb01 ansible_host=10.0.0.11 ansible_user=deploy ansible_ssh_pass={v}\n", v
    if kind == 1:
        return f"---\nansible_become_password: {v}\nansible_user: deploy\n", v
    if kind == 2:
        return f"helm upgrade --install db bitnami/postgresql --set auth.postgresPassword={v}\n", v
    return f"redis:\n  auth:\n    enabled: true\n    password: {v}\n", v


def _db_clients(g: Gen) -> Made:
    v = _pw(g, "\"' $`\\!;|<>(){}#")
    kind = g.rng.randrange(6)
    if kind == 0:
        return f'sqlcmd -S db01.corp.local -U sa -P {v} -Q "SELECT @@VERSION"\n', v
    if kind == 1:
        w = _pw(g, "\"' $`\\!;|<>(){}#&") + "&" + g.s(ALNUM, 4)
        return f"127.0.0.1:6379> AUTH {w}\nOK\n127.0.0.1:6379> KEYS *\n", w
    if kind == 2:
        return f"mongosh --host db01 -u admin -p {v} --authenticationDatabase admin\n", v
    if kind == 3:
        return f'ldapsearch -x -D "cn=admin,dc=corp,dc=local" -w {v} -b "dc=corp,dc=local"\n', v
    if kind == 4:
        return f"openssl pkcs12 -in cert.p12 -nodes -passin pass:{v} -out cert.pem\n", v
    return f"7z a -p{v} -mhe=on backup.7z ./dump\n", v


_CHAT_16 = (
    "пароль от wifi {p}",
    "le mot de passe du wifi est {p}",
    "das WLAN-Passwort ist {p}",
    "contraseña: {p}",
    "wifi密码是{p}",
    "Wi-Fiのパスワードは{p}です",
    "와이파이 비밀번호는 {p}",
    "het wachtwoord is {p}",
    "hasło do routera to {p}",
    "la password del server è {p}",
)

_PIN_16 = (
    "the PIN for the door is {p}",
    "PIN: {p}",
    "код от домофона {p}",
    "le code PIN est {p}",
    "die PIN lautet {p}",
)


def _chat(g: Gen) -> Made:
    if g.rng.random() < 0.3:
        v = g.digits(g.rng.randint(6, 8))
        line = g.pick(_PIN_16).format(p=v)
    else:
        v = _pw(g, " 。、「」")
        line = g.pick(_CHAT_16).format(p=v)
    if g.rng.random() < 0.5:
        return f"[{g.rng.randint(10, 23)}:{g.rng.randint(10, 59)}] Mila: {line}\n", v
    return f"{line}\n", v


def _auth_log(g: Gen) -> Made:
    kind = g.rng.randrange(4)
    if kind == 0:
        v = base64.b64encode(f"api:{_pw(g, ':')}".encode()).decode()
        return f"DEBUG urllib3 send: b'GET /v1 HTTP/1.1\\r\\nAuthorization: Basic {v}\\r\\n'\n", v
    if kind == 1:
        v = g.s(ALNUM + "-_", 40)
        return f"2026-12-07T10:11:12Z INFO request headers={{'Authorization': 'Bearer {v}'}}\n", v
    if kind == 2:
        v = g.s(HEX, 32)
        return f"> GET /api HTTP/2\n> Host: api.example.com\n> x-api-key: {v}\n> accept: */*\n", v
    v = g.s(B64, 40)
    return f'level=debug msg="outgoing" authorization="Token {v}" path=/v2/items\n', v


def _cloud_keys(g: Gen) -> Made:
    kind = g.rng.randrange(10)
    if kind == 0:
        v = "hvs." + g.s(ALNUM + "_-", 90)
    elif kind == 1:
        v = "sntrys_" + g.s(B64.replace("+", "").replace("/", ""), 80)
    elif kind == 2:
        v = "glsa_" + g.s(ALNUM, 32) + "_" + g.s(HEX, 8)
    elif kind == 3:
        v = "pscale_pw_" + g.s(ALNUM + "_-", 43)
    elif kind == 4:
        v = "lin_api_" + g.s(ALNUM, 40)
    elif kind == 5:
        v = "dp.st.prd." + g.s(ALNUM, 43)
    elif kind == 6:
        v = "dckr_pat_" + g.s(ALNUM + "-_", 27)
    elif kind == 7:
        v = "sk-proj-" + g.s(ALNUM + "-_", 120)
    elif kind == 8:
        v = "xapp-1-A" + g.s(ALNUM[:36], 10) + "-" + g.digits(13) + "-" + g.s(HEX, 64)
    else:
        v = "nvapi-" + g.s(ALNUM + "-_", 64)
    form = g.pick(
        (
            "here you go: {v}",
            "try this one {v} and tell me if it works",
            "| staging | {v} |",
            "export CREDS={v}",
            '{{"value": "{v}"}}',
        )
    )
    return form.format(v=v) + "\n", v


def _letters_only(g: Gen) -> Made:
    v = g.pick(_LETTERS) + g.pick(("", "", LOW[g.rng.randrange(26)] * 2))
    user = g.pick(("root", "admin", "ann", "pi"))
    form = g.pick(
        (
            "login {u}/{p}",
            "the password is {p}",
            "Login for the router: {u}/{p}",
            "default creds are {u}/{p}",
            "user: {u}\npassword: {p}\n",
            "ssh {u}@10.0.0.7 (password: {p})",
            "iDRAC login root/{p}",
            "my password is {p}, don't tell anyone",
        )
    )
    return form.format(u=user, p=v), v


def _bracket_first(g: Gen) -> Made:
    v = g.pick("([{<&#") + g.s(ALNUM, g.rng.randint(6, 10)) + g.pick("!)]?")
    form = g.pick(
        (
            "password={p}",
            "DB_PASS='{p}'",
            'pwd: "{p}"',
            "the password is {p}",
            "mysql -u root -p'{p}' shop",
        )
    )
    return form.format(p=v), v


HELD_OUT_16: dict[str, Callable[[Gen], Made]] = {
    "netrc-pgpass-mycnf": _netrc_pgpass,
    "ado-jdbc-odbc": _connection_strings,
    "terraform-hcl": _terraform,
    "toml-ini": _toml_ini,
    "docker-run-env": _docker_run,
    "kubectl-from-literal": _kubectl_secret,
    "curl-wget": _curl_wget,
    "git-credential-url": _git_urls,
    "powershell": _powershell,
    "ansible-helm": _ansible_helm,
    "db-cache-clients": _db_clients,
    "chat-9-languages-pin": _chat,
    "authorization-log": _auth_log,
    "cloud-ai-keys": _cloud_keys,
    "letters-only-context": _letters_only,
    "bracket-first": _bracket_first,
}

NEAR_MISSES_16: list[str] = [
    "machine api.example.com login ann\n",
    "db01.internal:5432:*:app_rw:*\n",
    "[client]\nuser = backup\npassword\n",
    "Server=db01;Database=shop;Integrated Security=SSPI;\n",
    'variable "db_password" {\n  type      = string\n  sensitive = true\n}\n',
    "password = var.db_password\n",
    'password = "${random_password.db.result}"\n',
    "docker run -d -e POSTGRES_PASSWORD -p 5432:5432 postgres:16\n",
    "docker run -e POSTGRES_PASSWORD_FILE=/run/secrets/pg postgres\n",
    'kubectl create secret generic db --from-literal=password="$(cat pw.txt)"\n',
    "kubectl create secret generic tls --from-file=./tls.key\n",
    'curl -u "$USER:$TOKEN" https://ci.example.com\n',
    "wget --ask-password https://files.example.com/dump.sql.gz\n",
    "$pw = Read-Host -AsSecureString\n",
    "ConvertTo-SecureString $plain -AsPlainText -Force\n",
    "ansible_become_password: '{{ vault_become_pass }}'\n",
    "helm install db bitnami/postgresql --set auth.existingSecret=db-creds\n",
    'sqlcmd -S db01 -E -Q "SELECT 1"\n',
    "127.0.0.1:6379> AUTH\n(error) ERR wrong number of arguments for 'auth' command\n",
    "the season pass is summer-2024",
    "the bus pass is valid until friday",
    "the ski pass is season-2025",
    "my boarding pass is gate-B12",
    "The password is wrong.",
    "the password is incorrect, try again",
    "the password is case-sensitive",
    "the PIN is on the back of the card",
    "PIN: required",
    "the PIN for the door is taped under the desk",
    "le mot de passe est sur le frigo",
    "das WLAN-Passwort steht auf dem Router",
    "пароль от wifi на роутере",
    "wifi密码在路由器背面",
    "login ann/projects",
    "Login for the router: see the label",
    "the default creds are on the sticker",
    "password=(optional)",
    "password (required)",
    "user: ann\npassword: required\n",
    "Authorization: Bearer <token>\n",
    "authorization header missing\n",
    "Token count was 4096.",
    "here you go: https://example.com/docs/getting-started",
    "git clone https://github.com/acme/app.git\n",
    "https://ann@gitlab.example.com/acme/app.git\n",
]
