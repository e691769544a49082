"""Held-out contexts for ``secret_survivors.py`` (rule set 14): secrets in infrastructure files,
tool exports and chat, in places rule set 13's generator never wrote.

A generator written apart from the others: Terraform tfvars and variable defaults, Ansible
vars, Helm values and ``--set`` flags, GitHub Actions ``env:``/``with:`` blocks, Jupyter
notebooks (JSON with sources and outputs as string lists), Java properties, PHP config
arrays and ``define``, ``.pgpass``, ``.netrc``, rclone.conf, WireGuard keys, an SSH config
with its key file pasted after it, Postman collections, HAR files (cookies and headers),
Sentry DSNs, webhook URLs that carry their token, and chat lines naming a password in six
languages. Each returns the text and the secret in it. ``NEAR_MISSES_14`` are the same
places without a secret (references, templates, masks). Not a package module.
"""

from __future__ import annotations

import json
from collections.abc import Callable

from _secret_families import ALNUM, B64, DIG, HEX, LOW, UP, URLSAFE, Gen

__all__ = ["HELD_OUT_14", "NEAR_MISSES_14"]

Made = tuple[str, str]  # (text, secret)


def _pw(g: Gen) -> str:
    """A password without the characters each format would have to escape."""
    shape = g.rng.randrange(5)
    if shape == 0:
        return g.password_without("\"'\\` \t;&@/:#,%?{}$=<>")
    if shape == 1:  # a generated one
        return g.s(ALNUM, g.rng.randint(12, 24))
    if shape == 2:  # a word, a symbol, digits
        return (
            g.pick(("Falcon", "river", "Quartz", "maple", "Copper"))
            + g.pick("!*+-_.")
            + g.digits(4)
        )
    if shape == 3:  # words joined, a digit
        return g.pick(("blue", "green", "Red")) + g.pick(("Lake", "fox", "Stone")) + g.digits(2)
    return g.s(LOW + DIG, 16)


def _token(g: Gen) -> str:
    shape = g.rng.randrange(5)
    if shape == 0:
        return g.s(ALNUM, g.rng.randint(28, 44))
    if shape == 1:
        return g.s(HEX, g.pick((32, 40, 48, 64)))
    if shape == 2:
        return g.s(URLSAFE, g.rng.randint(32, 50))
    if shape == 3:
        return g.s(B64, 40) + "=="
    return g.pick(("sk_live_", "tok_", "pat_", "key-", "xk_")) + g.s(ALNUM, 32)


def _tfvars(g: Gen) -> Made:
    if g.rng.random() < 0.5:
        name, v = g.pick(("db_password", "admin_password", "rds_master_password")), _pw(g)
    else:
        name, v = g.pick(("api_token", "datadog_api_key", "cloudflare_api_token")), _token(g)
    if g.rng.random() < 0.5:
        return f'region = "eu-west-1"\n{name} = "{v}"\ninstance_count = 3\n', v
    return (
        f'variable "{name}" {{\n  type      = string\n  sensitive = true\n  default   = "{v}"\n}}\n',
        v,
    )


def _ansible(g: Gen) -> Made:
    name = g.pick(
        ("mysql_root_password", "ansible_become_pass", "ansible_ssh_pass", "grafana_admin_password")
    )
    v = _pw(g)
    q = g.pick(("", '"', "'"))
    return f"---\n# group_vars/all.yml\nmysql_port: 3306\n{name}: {q}{v}{q}\nnginx_workers: 4\n", v


def _helm(g: Gen) -> Made:
    v = _pw(g)
    style = g.rng.randrange(3)
    if style == 0:
        return (
            f"postgresql:\n  enabled: true\n  auth:\n    username: app\n    postgresPassword: {v}\n",
            v,
        )
    if style == 1:
        return (
            f'redis:\n  architecture: standalone\n  auth:\n    enabled: true\n    password: "{v}"\n',
            v,
        )
    return f"helm upgrade --install db bitnami/mysql --set auth.rootPassword={v} -n data\n", v


def _actions(g: Gen) -> Made:
    v = _token(g)
    name = g.pick(("NPM_TOKEN", "SONAR_TOKEN", "DOCKERHUB_PASSWORD", "SLACK_WEBHOOK_SECRET"))
    if g.rng.random() < 0.5:
        return (
            "jobs:\n  build:\n    runs-on: ubuntu-latest\n    env:\n"
            f"      {name}: {v}\n    steps:\n      - uses: actions/checkout@v4\n"
        ), v
    return (
        "      - uses: docker/login-action@v3\n        with:\n          username: acme\n"
        f"          password: {v}\n"
    ), v


def _notebook(g: Gen) -> Made:
    v = _token(g)
    name = g.pick(("OPENAI_API_KEY", "HF_TOKEN", "WANDB_API_KEY", "PINECONE_API_KEY"))
    cell = {
        "cell_type": "code",
        "execution_count": g.rng.randint(1, 40),
        "metadata": {},
        "source": ["import os\n", f'os.environ["{name}"] = "{v}"\n', "client = Client()"],
        "outputs": [],
    }
    if g.rng.random() < 0.5:
        cell["source"] = ["print(config)"]
        cell["outputs"] = [
            {
                "name": "stdout",
                "output_type": "stream",
                "text": [f"{{'{name.lower()}': '{v}', 'n': 3}}\n"],
            }
        ]
    return json.dumps({"cells": [cell], "nbformat": 4}, indent=1), v


def _properties(g: Gen) -> Made:
    name = g.pick(
        (
            "spring.datasource.password",
            "spring.mail.password",
            "jdbc.password",
            "app.jwt.secret",
            "keystore.password",
        )
    )
    v = _token(g) if "jwt" in name else _pw(g)
    sep = g.pick(("=", " = ", ": "))
    return (
        f"server.port=8080\nspring.datasource.username=app\n{name}{sep}{v}\nlogging.level.root=INFO\n",
        v,
    )


def _php(g: Gen) -> Made:
    v = _pw(g)
    style = g.rng.randrange(3)
    if style == 0:
        return (
            "<?php\nreturn [\n    'db' => [\n        'host' => 'localhost',\n"
            f"        'username' => 'shop',\n        'password' => '{v}',\n    ],\n];\n"
        ), v
    if style == 1:
        return f"<?php\ndefine('DB_USER', 'wp');\ndefine('DB_PASSWORD', '{v}');\n", v
    return f"$config['db_pass'] = \"{v}\";\n$config['db_host'] = 'db';\n", v


def _pgpass(g: Gen) -> Made:
    v = _pw(g)
    host = g.pick(("db.internal", "localhost", "10.1.2.3", "*"))
    return f"$ cat ~/.pgpass\n{host}:5432:*:app:{v}\n", v


def _netrc(g: Gen) -> Made:
    v = _token(g) if g.rng.random() < 0.5 else _pw(g)
    host = g.pick(("api.heroku.com", "github.com", "files.example.org", "urs.earthdata.nasa.gov"))
    if g.rng.random() < 0.5:
        return f"# ~/.netrc\nmachine {host}\n  login ann@example.com\n  password {v}\n", v
    return f"machine {host} login ann password {v}\n", v


def _rclone(g: Gen) -> Made:
    if g.rng.random() < 0.5:
        v = g.s(B64, 40)
        return (
            "[s3-backup]\ntype = s3\nprovider = AWS\naccess_key_id = AKIA"
            + g.s(UP + DIG, 16)
            + f"\nsecret_access_key = {v}\nregion = eu-west-1\n"
        ), v
    v = g.s(URLSAFE, g.rng.randint(30, 40))
    return f"[nas]\ntype = sftp\nhost = nas.local\nuser = ann\npass = {v}\n", v


def _wireguard(g: Gen) -> Made:
    v = g.s(B64, 43) + "="
    pub = g.s(B64, 43) + "="
    if g.rng.random() < 0.5:
        return (
            f"[Interface]\nPrivateKey = {v}\nAddress = 10.8.0.2/24\nDNS = 1.1.1.1\n\n[Peer]\nPublicKey = {pub}\n",
            v,
        )
    return (f"[Peer]\nPublicKey = {pub}\nPresharedKey = {v}\nEndpoint = vpn.example.com:51820\n"), v


def _ssh_key_pasted(g: Gen) -> Made:
    body = "\n".join(g.s(B64, 70) for _ in range(5)) + "\n" + g.s(B64, 30) + "=="
    key = f"-----BEGIN OPENSSH PRIVATE KEY-----\n{body}\n-----END OPENSSH PRIVATE KEY-----"
    return (
        "Host bastion\n  HostName 203.0.113.7\n  User ec2-user\n  IdentityFile ~/.ssh/bastion\n\n"
        f"$ cat ~/.ssh/bastion\n{key}\n"
    ), body.splitlines()[1]


def _postman(g: Gen) -> Made:
    v = _token(g)
    if g.rng.random() < 0.5:
        doc = {
            "info": {"name": "Orders API"},
            "auth": {"type": "bearer", "bearer": [{"key": "token", "value": v, "type": "string"}]},
        }
    else:
        doc = {
            "info": {"name": "Orders API"},
            "variable": [
                {"key": "baseUrl", "value": "https://api.example.com"},
                {"key": g.pick(("apiKey", "api_key", "clientSecret")), "value": v},
            ],
        }
    return json.dumps(doc, indent=2), v


def _har(g: Gen) -> Made:
    v = _token(g)
    if g.rng.random() < 0.5:
        entry = {
            "request": {
                "method": "GET",
                "url": "https://app.example.com/api/me",
                "cookies": [
                    {"name": "theme", "value": "dark"},
                    {"name": g.pick(("sessionid", "connect.sid", "_session_id")), "value": v},
                ],
            }
        }
    else:
        entry = {
            "request": {
                "method": "POST",
                "headers": [
                    {"name": "Accept", "value": "application/json"},
                    {"name": "Authorization", "value": f"Bearer {v}"},
                ],
            }
        }
    return json.dumps({"log": {"version": "1.2", "entries": [entry]}}, indent=2), v


def _sentry(g: Gen) -> Made:
    key = g.s(HEX, 32)
    dsn = f"https://{key}@o{g.digits(6)}.ingest.sentry.io/{g.digits(7)}"
    form = g.pick(("SENTRY_DSN={d}\n", 'Sentry.init({{ dsn: "{d}" }});\n', "sentry_dsn: {d}\n"))
    return form.format(d=dsn), key


def _webhook(g: Gen) -> Made:
    shape = g.rng.randrange(3)
    if shape == 0:
        tok = g.s(ALNUM, 24)
        url = f"https://hooks.slack.com/services/T{g.s(UP + DIG, 8)}/B{g.s(UP + DIG, 10)}/{tok}"
    elif shape == 1:
        tok = g.s(URLSAFE, 68)
        url = f"https://discord.com/api/webhooks/{g.digits(18)}/{tok}"
    else:
        tok = g.s(ALNUM, 32)
        url = f"https://ci.example.com/hooks/deploy?token={tok}&env=prod"
    form = g.pick(("WEBHOOK_URL={u}\n", "curl -X POST -d @msg.json '{u}'\n", "notify: {u}\n"))
    return form.format(u=url), tok


_CHAT = (
    "das WLAN-Passwort lautet {p}",
    "le mot de passe du routeur est {p}",
    "la contraseña de la base es {p}",
    "la password del server è {p}",
    "a senha do banco é {p}",
    "het wachtwoord van de NAS is {p}",
)


def _chat_languages(g: Gen) -> Made:
    v = _pw(g)
    line = g.pick(_CHAT).format(p=v)
    who = g.pick(("ann", "Jürgen", "María", "joão"))
    return f"[{g.rng.randint(8, 18)}:{g.rng.randint(10, 59)}] {who}: {line}", v


HELD_OUT_14: dict[str, Callable[[Gen], Made]] = {
    "tfvars": _tfvars,
    "ansible-vars": _ansible,
    "helm-values": _helm,
    "actions-env": _actions,
    "notebook-json": _notebook,
    "java-properties": _properties,
    "php-config": _php,
    "pgpass": _pgpass,
    "netrc": _netrc,
    "rclone": _rclone,
    "wireguard": _wireguard,
    "ssh-key-pasted": _ssh_key_pasted,
    "postman": _postman,
    "har": _har,
    "sentry-dsn": _sentry,
    "webhook-url": _webhook,
    "chat-6-languages": _chat_languages,
}

NEAR_MISSES_14: list[str] = [
    'db_password = var.db_password\napi_token = "${var.token}"\n',
    'variable "db_password" {\n  type      = string\n  sensitive = true\n}\n',
    "mysql_root_password: \"{{ vault_mysql_root_password }}\"\nansible_become_pass: \"{{ lookup('env', 'BECOME') }}\"\n",
    "postgresql:\n  auth:\n    existingSecret: pg-credentials\n    secretKeys:\n      adminPasswordKey: postgres-password\n",
    "    env:\n      NPM_TOKEN: ${{ secrets.NPM_TOKEN }}\n      NODE_ENV: production\n",
    '{"cells": [{"cell_type": "code", "source": ["os.environ[\\"OPENAI_API_KEY\\"] = getpass()"]}]}',
    "spring.datasource.password=${DB_PASSWORD}\nspring.mail.password=\n",
    "<?php\nreturn ['db' => ['password' => env('DB_PASSWORD')]];\n",
    "define('DB_PASSWORD', getenv('WORDPRESS_DB_PASSWORD'));\n",
    "# hostname:port:database:username:password\n",
    "machine api.heroku.com\n  login ann@example.com\n  password $HEROKU_API_KEY\n",
    "[nas]\ntype = sftp\nhost = nas.local\nuser = ann\nkey_file = ~/.ssh/id_ed25519\n",
    "[Peer]\nPublicKey = xTIBA5rboUvnH4htodjb6e697QjLERt1NAB4mZqp8Dg=\nAllowedIPs = 0.0.0.0/0\n",
    "Host bastion\n  IdentityFile ~/.ssh/bastion\n  IdentitiesOnly yes\n",
    '{"auth": {"type": "bearer", "bearer": [{"key": "token", "value": "{{accessToken}}"}]}}',
    '{"cookies": [{"name": "theme", "value": "dark"}, {"name": "lang", "value": "en-US"}]}',
    "SENTRY_DSN=\nSentry.init({ dsn: process.env.SENTRY_DSN });\n",
    "WEBHOOK_URL=https://hooks.slack.com/services/XXX/YYY/ZZZ\n",
    "das WLAN-Passwort steht auf dem Router",
    "le mot de passe est dans le coffre",
    "la contraseña es la de siempre",
    "a senha do banco está no cofre",
    "het wachtwoord van de NAS is veranderd",
]
