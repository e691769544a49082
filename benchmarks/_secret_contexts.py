"""Secret contexts for ``secret_survivors.py``: config files, log lines and source code.

Rule set 8's generator. Each context writes a secret the way one kind of file, log or
language holds it, with its names, quoting, spacing and neighbours varied from the seed: a
tool's own config file (``.npmrc``, ``.pypirc``, ``pip.conf``, ``.netrc``,
``.git-credentials``, Docker's ``config.json``, kubeconfig, Terraform's ``.tfvars``,
Ansible, Spring, ``.env``, YAML block scalars), a log line (HTTP Authorization headers,
curl, ``?access_token=``, a stack trace printing a connection string, JSON logs, the
``repr`` of a dict or a dataclass) or code (a string literal assigned to a secret's name in
nine languages, a shell heredoc, private keys in PEM, OpenSSH, PuTTY and PGP armour).

A context returns the text and the secret in it: the secret survives when it (any line of
it of 8+ characters) is still in the scrubbed text. ``NEAR_MISSES`` are the same files, logs
and code without a secret (placeholders, public keys, ordinary values): they must come out
unchanged. Not a package module: the benchmarks folder is on ``sys.path``.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Callable

from _secret_code import CODE, LEFTOVERS, Made, pem_lines, token, user
from _secret_families import ALNUM, HEX, URLSAFE, Gen
from _secret_held_out import HELD_OUT

__all__ = ["CONTEXTS", "NEAR_MISSES"]


def _b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


def _vault(g: Gen) -> str:
    return "\n".join(g.s(HEX, 80) for _ in range(4)) + "\n" + g.s(HEX, 38)


# --- Config files -----------------------------------------------------------------------------


def _npmrc(g: Gen) -> Made:
    host = g.pick(["registry.npmjs.org", "npm.pkg.github.com", "npm.example.com/repository/npm"])
    shape = g.rng.randrange(4)
    if shape == 0:
        t = token(g)
        return f"registry=https://{host}/\n//{host}/:_authToken={t}\nalways-auth=true\n", t
    if shape == 1:
        pw = _b64(g.password())
        return (
            f"//{host}/:username={user(g)}\n//{host}/:_password={pw}\n//{host}/:email=a@b.c\n",
            pw,
        )
    if shape == 2:
        a = _b64(f"{user(g)}:{g.password()}")
        return f"registry=https://{host}/\n_auth={a}\nemail=ann@example.com\n", a
    a = _b64(f"{user(g)}:{g.password()}")
    return f'; set by CI\n_auth = "{a}"\nalways-auth = true\n', a


def _pypirc(g: Gen) -> Made:
    if g.rng.random() < 0.5:
        p = g.password()
        text = (
            "[distutils]\nindex-servers =\n    pypi\n    private\n\n[private]\n"
            f"repository = https://pypi.example.com/\nusername = {user(g)}\npassword = {p}\n"
        )
        return text, p
    t = "pypi-AgEIcHlwaS5vcmc" + g.s(URLSAFE, 60)
    return f"[pypi]\n  username = __token__\n  password = {t}\n", t


def _pip_conf(g: Gen) -> Made:
    p = g.password().replace("@", "_").replace("/", "_").replace("?", "_").replace("#", "_")
    key = g.pick(["index-url", "extra-index-url", "index_url"])
    host = g.pick(["pypi.example.com/simple", "nexus.corp.local/repository/pypi/simple"])
    if g.rng.random() < 0.5:
        return f"[global]\ntimeout = 60\n{key} = https://{user(g)}:{p}@{host}\n", p
    return f"PIP_EXTRA_INDEX_URL=https://__token__:{p}@{host} pip install -r req.txt", p


def _netrc(g: Gen) -> Made:
    p = g.password()
    host = g.pick(["api.heroku.com", "github.com", "ftp.example.org"])
    if g.rng.random() < 0.5:
        return f"machine {host} login {user(g)} password {p}\n", p
    return f"machine {host}\n\tlogin {user(g)}\n\tpassword {p}\n\nmachine other\n", p


def _git_credentials(g: Gen) -> Made:
    t = g.pick([token(g), "ghp_" + g.s(ALNUM, 36), "glpat-" + g.s(ALNUM, 20), g.password()])
    t = t.replace("@", "_").replace("/", "_").replace("?", "_").replace("#", "_")
    name = g.pick([user(g), "oauth2", "x-access-token", "git"])
    host = g.pick(["github.com", "gitlab.example.com", "bitbucket.org"])
    return f"https://{name}:{t}@{host}\n", t


def _docker_config(g: Gen) -> Made:
    a = _b64(f"{user(g)}:{g.password()}")
    reg = g.pick(["https://index.docker.io/v1/", "ghcr.io", "registry.example.com:5000"])
    if g.rng.random() < 0.5:
        return json.dumps({"auths": {reg: {"auth": a}}, "credsStore": "desktop"}, indent=2), a
    t = token(g)
    return json.dumps({"auths": {reg: {"auth": "", "identitytoken": t}}}, indent="\t"), t


def _kubeconfig(g: Gen) -> Made:
    shape = g.rng.randrange(3)
    if shape == 0:
        t = token(g)
        return f"users:\n- name: ci\n  user:\n    token: {t}\n", t
    if shape == 1:
        key = _b64(
            "-----BEGIN RSA PRIVATE KEY-----\n"
            + pem_lines(g, 6)
            + "\n-----END RSA PRIVATE KEY-----\n"
        )
        return (
            f"users:\n- name: admin\n  user:\n    client-certificate-data: LS0tLS1CRUdJTiBDRVJU\n    client-key-data: {key}\n",
            key,
        )
    t = token(g)
    return (
        "users:\n- name: gke\n  user:\n    auth-provider:\n      config:\n"
        f"        access-token: {t}\n        expiry: 2024-01-01T00:00:00Z\n      name: gcp\n",
        t,
    )


def _tfvars(g: Gen) -> Made:
    name = g.pick(
        ["db_password", "admin_password", "api_token", "client_secret", "datadog_api_key"]
    )
    v = g.password() if "password" in name else token(g)
    pad = " " * g.rng.randint(1, 6)
    return f'region{pad}= "eu-west-1"\n{name}{pad}= "{v}"\ninstance_count = 3\n', v


def _ansible(g: Gen) -> Made:
    shape = g.rng.randrange(3)
    if shape == 0:
        body = _vault(g)
        indented = "\n".join("          " + line for line in body.splitlines())
        name = g.pick(["db_password", "vault_api_token", "mysql_root_password"])
        return (
            f"{name}: !vault |\n          $ANSIBLE_VAULT;1.1;AES256\n{indented}\nother: 1\n",
            body,
        )
    if shape == 1:
        body = _vault(g)
        return f"$ANSIBLE_VAULT;1.1;AES256\n{body}\n", body
    p = g.password()
    key = g.pick(["ansible_password", "ansible_become_pass", "ansible_ssh_pass"])
    return f"[web]\nweb1 ansible_host=10.0.0.5 ansible_user=root {key}={p}\n", p


def _spring(g: Gen) -> Made:
    name = g.pick(
        [
            "spring.datasource.password",
            "spring.mail.password",
            "spring.security.oauth2.client.registration.github.client-secret",
            "jwt.secret",
            "app.api-key",
        ]
    )
    v = g.password() if "password" in name else token(g)
    sep = g.pick(["=", " = ", ": "])
    return f"spring.datasource.username=app\n{name}{sep}{v}\nserver.port=8080\n", v


def _dotenv(g: Gen) -> Made:
    name = g.pick(
        ["DB_PASSWORD", "SECRET_KEY", "STRIPE_API_KEY", "AUTH0_CLIENT_SECRET", "REDIS_PASS"]
    )
    v = g.password() if "PASS" in name else token(g)
    form = g.pick(
        [
            'export {n}="{v}"',
            "export {n}='{v}'",
            "{n}='{v}'  # rotated",
            '{n}="{v}"',
            "export {n}={v}",
        ]
    )
    return "# .env\nNODE_ENV=production\n" + form.format(n=name, v=v) + "\n", v


def _registries(g: Gen) -> Made:
    p = "".join(c for c in g.password() if c not in "\"'\\:")
    t = token(g)
    form = g.pick(
        [
            (f'npmAuthIdent: "{_b64(user(g) + ":" + p)}"', _b64(user(g) + ":" + p)),
            (f'npmAuthToken: "{t}"', t),
            (f'BUNDLE_GEMS__EXAMPLE__COM: "{user(g)}:{p}"', p),
            (f"export BUNDLE_RUBYGEMS__PKG__GITHUB__COM={user(g)}:{t}", t),
            (
                f'{{"http-basic": {{"repo.example.com": {{"username": "ci", "password": "{p}"}}}}}}',
                p,
            ),
            (f'[registries.internal]\ntoken = "{t}"\n', t),
            (f"mavenUser=ci\nmavenPassword={p}\nsigning.password={p}\n", p),
        ]
    )
    return form


def _pgpass(g: Gen) -> Made:
    p = "".join(c for c in g.password() if c not in ":\\")
    host = g.pick(["localhost", "db.internal", "*", "10.0.0.5"])
    return f"# ~/.pgpass\n{host}:{g.pick(['5432', '*'])}:app:{user(g)}:{p}\n", p


def _yaml_block(g: Gen) -> Made:
    name = g.pick(["password", "db_password", "token", "client_secret", "apiKey"])
    v = g.password() if "pass" in name else token(g)
    marker = g.pick(["|", "|-", ">", ">-", "|+"])
    return f"service:\n  user: app\n  {name}: {marker}\n    {v}\n  port: 5432\n", v


# --- Log lines --------------------------------------------------------------------------------


def _log_basic(g: Gen) -> Made:
    a = _b64(f"{user(g)}:{g.password()}")
    form = g.pick(
        [
            "> Authorization: Basic {a}",
            "2024-05-01T10:00:00Z DEBUG request headers: {{'Authorization': 'Basic {a}'}}",
            '{{"ts":1714557600,"headers":{{"authorization":"Basic {a}"}}}}',
            "Proxy-Authorization: Basic {a}",
        ]
    )
    return form.format(a=a), a


def _log_bearer(g: Gen) -> Made:
    t = g.pick([token(g), g.s(URLSAFE, 43)])
    form = g.pick(
        [
            "> Authorization: Bearer {t}\n> Accept: */*",
            "DEBUG urllib3: headers={{'Authorization': 'Bearer {t}', 'Accept': 'application/json'}}",
            '{{"level":"debug","msg":"outgoing","authorization":"Bearer {t}"}}',
            "authorization: bearer {t}",
        ]
    )
    return form.format(t=t), t


def _log_digest(g: Gen) -> Made:
    r = g.s(HEX, 32)
    return (
        f'Authorization: Digest username="{user(g)}", realm="api@example.com", '
        f'nonce="{g.s(HEX, 32)}", uri="/dir/index.html", qop=auth, nc=00000001, '
        f'cnonce="{g.s(HEX, 8)}", response="{r}", opaque="{g.s(HEX, 32)}"',
        r,
    )


def _log_har(g: Gen) -> Made:
    t = token(g)
    name = g.pick(["Authorization", "X-Api-Key", "access_token", "PRIVATE-TOKEN"])
    value = f"Bearer {t}" if name == "Authorization" else t
    entry = {"name": name, "value": value}
    return json.dumps({"request": {"headers": [{"name": "Accept", "value": "*/*"}, entry]}}), t


def _log_curl(g: Gen) -> Made:
    shape = g.rng.randrange(3)
    if shape == 0:
        p = g.password().replace("'", "")
        return f"+ curl -sS -u {user(g)}:'{p}' https://jenkins.example.com/api/json", p
    if shape == 1:
        p = g.password().replace('"', "")
        return f'$ curl --user "{user(g)}:{p}" -X POST https://api.example.com/v1/jobs', p
    if shape == 2 and g.rng.random() < 0.5:
        p = "".join(c for c in g.password() if c not in "'\"\\")
        return f"http {g.pick(['-a', '--auth'])} {user(g)}:{p} GET https://api.example.com/me", p
    t = token(g)
    header = g.pick(["X-API-Key", "PRIVATE-TOKEN", "X-Auth-Token", "Authorization: token"])
    sep = " " if header.endswith("token") else ": "
    return f"curl -H '{header}{sep}{t}' https://gitlab.example.com/api/v4/projects", t


def _log_query(g: Gen) -> Made:
    t = g.pick([token(g), g.s(URLSAFE, 40)])
    name = g.pick(["access_token", "token", "apikey", "api_key", "client_secret", "auth"])
    return (
        f'10.0.0.7 - - [01/May/2024:10:00:00 +0000] "GET /v2/items?page=3&{name}={t}&sort=asc '
        'HTTP/1.1" 200 512',
        t,
    )


def _log_stack_dsn(g: Gen) -> Made:
    p = g.password().replace("@", "_").replace("/", "_").replace("?", "_").replace("#", "_")
    u = user(g)
    form = g.pick(
        [
            "sqlalchemy.exc.OperationalError: (psycopg2.OperationalError) could not connect\n"
            "  engine = create_engine('postgresql://{u}:{p}@db.internal:5432/app')",
            "redis.exceptions.ConnectionError: Error 111 connecting to redis://:{p}@cache:6379/0.",
            "pika.exceptions.AMQPConnectionError: amqp://{u}:{p}@rabbit:5672/%2F",
            "com.microsoft.sqlserver.jdbc.SQLServerException: jdbc:sqlserver://db:1433;"
            "databaseName=app;user={u};password={p};encrypt=true",
            'Traceback (most recent call last):\n  File "app.py", line 9, in <module>\n'
            "    conn = pymysql.connect(host='db', user='{u}', password='{p}', db='app')",
        ]
    )
    return form.format(u=u, p=p), p


def _log_json(g: Gen) -> Made:
    name = g.pick(["password", "passwd", "api_key", "client_secret", "refreshToken"])
    v = g.password().replace('"', "").replace("\\", "") if "pass" in name else token(g)
    if g.rng.random() < 0.5:
        return json.dumps({"level": "info", "event": "login", "user": user(g), name: v}), v
    inner = json.dumps({"user": user(g), name: v})
    return json.dumps({"level": "warn", "body": inner}), v


def _log_repr(g: Gen) -> Made:
    name = g.pick(["password", "secret", "api_key", "token", "client_secret"])
    v = g.password().replace("'", "").replace("\\", "") if name == "password" else token(g)
    form = g.pick(
        [
            "{{'host': 'db', 'user': 'app', '{n}': '{v}', 'port': 5432}}",
            "Settings(host='db', {n}='{v}', debug=False)",
            "DEBUG config loaded: DbConfig(user='app', {n}='{v}')",
            "kwargs={{'{n}': '{v}', 'timeout': 30}}",
        ]
    )
    return form.format(n=name, v=v), v


#: Context families: name -> (context -> generator). Each generated case is one secret.
CONTEXTS: dict[str, dict[str, Callable[[Gen], Made]]] = {
    "config": {
        "npmrc": _npmrc,
        "pypirc": _pypirc,
        "pip-conf": _pip_conf,
        "netrc": _netrc,
        "git-credentials": _git_credentials,
        "docker-config": _docker_config,
        "kubeconfig": _kubeconfig,
        "tfvars": _tfvars,
        "ansible": _ansible,
        "spring": _spring,
        "dotenv": _dotenv,
        "pgpass": _pgpass,
        "registries": _registries,
        "yaml-block": _yaml_block,
    },
    "log": {
        "http-basic": _log_basic,
        "http-bearer": _log_bearer,
        "http-digest": _log_digest,
        "curl": _log_curl,
        "har": _log_har,
        "query-token": _log_query,
        "stack-dsn": _log_stack_dsn,
        "json-log": _log_json,
        "repr": _log_repr,
    },
    "code": CODE,
    "leftover": LEFTOVERS,
    "held-out": HELD_OUT,
}

#: The same files, logs and code without a secret: each must come out unchanged.
NEAR_MISSES: tuple[str, ...] = (
    "registry=https://registry.npmjs.org/\n//registry.npmjs.org/:_authToken=${NPM_TOKEN}\n",
    "save-exact=true\nengine-strict=true\n_auth=\n",
    "[pypi]\nusername = __token__\npassword = <your PyPI token>\n",
    "[global]\nindex-url = https://pypi.org/simple\ntrusted-host = pypi.example.com\n",
    "machine github.com login ann\n",
    json.dumps({"auths": {"ghcr.io": {}}, "credsStore": "osxkeychain"}, indent=2),
    "users:\n- name: ci\n  user:\n    exec:\n      command: aws\n      args: [eks, get-token]\n",
    "clusters:\n- cluster:\n    server: https://10.0.0.1:6443\n    certificate-authority-data: "
    "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk1JSUMvakNDQWVhZ0F3SUJBZ0lCQURBTkJna3Foa2lHOXcw\n",
    'region = "eu-west-1"\ninstance_type = "t3.micro"\npassword_length = 24\n',
    'db_password: "{{ vault_db_password }}"\nansible_become: true\n',
    "spring.datasource.password=${DB_PASSWORD}\nspring.jpa.hibernate.ddl-auto=update\n",
    'export DB_PASSWORD="$(vault kv get -field=password secret/db)"\n',
    "password: |\n  {{ .Values.db.password }}\nport: 5432\n",
    "> Authorization: Bearer <token>\n> Accept: */*",
    'WWW-Authenticate: Digest realm="api@example.com", qop="auth", nonce="dcd98b7102dd2f0e8b11d0f600bfb0c093"',
    'WWW-Authenticate: Basic realm="Restricted"',
    "curl -u $USER:$PASS https://api.example.com",
    "GET /oauth/authorize?response_type=code&client_id=app&state=xyz HTTP/1.1",
    "java.sql.SQLException: Access denied for user 'root'@'localhost' (using password: YES)",
    '{"level":"info","msg":"password changed","user":"ann","password_changed_at":"2024-05-01"}',
    "Settings(host='db', password=SecretStr('**********'), debug=False)",
    "token = os.environ['API_TOKEN']",
    "const apiKey = process.env.API_KEY;",
    'String password = System.getenv("DB_PASSWORD");',
    'let api_token = std::env::var("API_TOKEN")?;',
    "$password = getenv('DB_PASSWORD');",
    "def check_password(self, raw_password):\n    return hasher.verify(raw_password, self.password)",
    "ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQC7 ann@laptop",
    "-----BEGIN PUBLIC KEY-----\nMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE\n-----END PUBLIC KEY-----",
    "-----BEGIN PGP PUBLIC KEY BLOCK-----\n\nmQENBFz\n-----END PGP PUBLIC KEY BLOCK-----",
    'id,name,password_changed\n1,"Ann\nSmith",2024-05-01\n',
    "https://docs.example.com/guide/v2/index.html",
    "see https://example.com/a/b@c for details",
    "Your PIN is 4711.",
    "requests.get(url, auth=HTTPBasicAuth(user, password))",
    "user.set_password(form.cleaned_data['password'])",
    'print(wn.synset_from_sense_key("driving%1:04:03::"))',
    'cache.get_key("session:42:profile")',
    "sqlplus / as sysdba\nsqlplus scott@ORCL",
    "http -a $USER:$PASS GET https://api.example.com/me",
    "12:30:45:00:99 frame 1\nether 00:11:22:33:44:55 txqueuelen 1000\nfe80::1:2:3:4",
    "open http://localhost:3000/@vite/client or https://registry.example.com:8443/npm/@scope/pkg",
    "PROXY=http://proxy:PORT/path@corp and https://host:{port}/a@b",
    "wifi_password: !secret wifi_password\nmqtt_password: !env_var MQTT_PASSWORD",
    '{"auth": "required", "auth_method": "oauth2"}',
    '{"env": [{"name": "DB_PASSWORD", "valueFrom": {"secretKeyRef": {"name": "db"}}}]}',
    '{"name": "Content-Type", "value": "application/json"}',
    'BUNDLE_PATH: "vendor/bundle"\nnpmAuthIdent: "${NPM_IDENT}"',
)
