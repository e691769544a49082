"""Held-out contexts for ``secret_survivors.py`` (rule set 13): secrets in code and logs.

A generator written apart from the others: values of every shape (random letters and digits
of many lengths, hex, base64, URL-safe base64, passwords people pick, provider tokens,
legacy Vault and Yandex Cloud tokens) in the places code and logs hold them: .env and
config files, docker-compose, kubeconfig, shell history, stack traces, CI logs, curl
commands, JDBC/ODBC URLs and connection strings, Authorization headers, cookies, signed
URLs, private keys in JSON with ``\\n`` escapes, base64-wrapped secrets in YAML, and
credential pairs in chat. Each returns the text and the secret in it. ``NEAR_MISSES_13``
are the same places without a secret. Not a package module.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Callable

from _secret_families import ALNUM, B64, DIG, FAMILIES, HEX, LOW, UP, URLSAFE, Gen

__all__ = ["HELD_OUT_13", "NEAR_MISSES_13"]

Made = tuple[str, str]  # (text, secret)

_PREFIXED = [make for _f, _l, _n, make, prefixed in FAMILIES if prefixed and "private" not in _f]


def _random(g: Gen) -> str:
    """A random value of one of the shapes services issue."""
    shape = g.rng.randrange(7)
    if shape == 0:
        return g.s(ALNUM, g.rng.randint(20, 48))
    if shape == 1:
        return g.s(HEX, g.pick((32, 40, 64)))
    if shape == 2:
        return g.s(B64, 40)
    if shape == 3:
        return g.s(URLSAFE, 43)
    if shape == 4:
        return g.s(ALNUM, 24) + "_" + g.s(ALNUM, 3) + "_" + g.digits(2)
    if shape == 5:
        return g.pick(_PREFIXED)(g)
    return g.s(B64, 43) + "="


def _password(g: Gen) -> str:
    """A password with no quote, space, backslash, ';', '&', '@', '/', ':' or '#'."""
    return g.password_without("\"'\\` \t;&@/:#,%?{}$")


def _vault(g: Gen) -> str:
    return g.pick(("hvs.", "hvb.", "hvr.", "s.", "b.")) + g.s(ALNUM, g.rng.randint(24, 30))


def _yandex(g: Gen) -> str:
    shape = g.rng.randrange(4)
    if shape == 0:
        return "YC" + g.s(URLSAFE, 38)  # a static key's secret
    if shape == 1:
        return "AQVN" + g.s(URLSAFE, 36)  # an API key
    if shape == 2:
        return "t1." + g.s(URLSAFE, 40) + "." + g.s(URLSAFE, 86)  # an IAM token
    return "y0_" + g.s(URLSAFE, 55)  # an OAuth token


def _pem(g: Gen, kind: str = "PRIVATE KEY") -> str:
    body = [g.s(B64, 64) for _ in range(6)] + [g.s(B64, 20) + "=="]
    return f"-----BEGIN {kind}-----\n" + "\n".join(body) + f"\n-----END {kind}-----"


_ENV_NAMES = (
    *("SESSION_SECRET", "JWT_SIGNING_KEY", "WEBHOOK_SECRET", "ENCRYPTION_KEY", "APP_SECRET"),
    *("DJANGO_SECRET_KEY", "NEXTAUTH_SECRET", "SIGNING_SECRET", "HMAC_KEY", "MASTER_KEY"),
    *("CLIENT_SECRET", "AUTH0_CLIENT_SECRET", "SLACK_SIGNING_SECRET", "OPENAI_API_KEY"),
    *("SENDGRID_KEY", "MAILGUN_KEY", "DD_API_KEY", "ROLLBAR_ACCESS_TOKEN", "CODECOV_TOKEN"),
)
_PW_NAMES = ("DB_PASSWORD", "POSTGRES_PASSWORD", "MYSQL_ROOT_PASSWORD", "REDIS_PASS", "SMTP_PASS")
_USERS = ("app", "admin", "sa", "deploy", "ci", "svc_etl", "root")
_HOSTS = ("db.internal", "10.0.3.17", "pg-prod.example.com", "mysql-01", "cache.local")


def _name_value(g: Gen) -> tuple[str, str]:
    if g.rng.random() < 0.35:
        return g.pick(_PW_NAMES), _password(g)
    return g.pick(_ENV_NAMES), _random(g)


def _dotenv(g: Gen) -> Made:
    n, v = _name_value(g)
    q = g.pick(("", '"', "'"))
    return f"# .env.production\nNODE_ENV=production\n{n}={q}{v}{q}\nPORT=8080\n", v


def _laravel_env(g: Gen) -> Made:
    v = g.s(B64, 43) + "="
    return f"APP_NAME=Shop\nAPP_ENV=production\nAPP_KEY=base64:{v}\nAPP_DEBUG=false\n", v


def _config_ini(g: Gen) -> Made:
    n, v = _name_value(g)
    return f"[service]\nendpoint = https://api.example.com\n{n.lower()} = {v}\nretries = 3\n", v


def _compose(g: Gen) -> Made:
    n, v = _name_value(g)
    style = g.rng.randrange(3)
    if style == 0:
        env = f"    environment:\n      {n}: {v}\n"
    elif style == 1:
        env = f'    environment:\n      - "{n}={v}"\n'
    else:
        env = (
            f"    command: redis-server --requirepass {v}\n"
            if n in _PW_NAMES
            else f"    environment:\n      - {n}={v}\n"
        )
    return (
        f"version: '3.8'\nservices:\n  app:\n    image: acme/app:1.4\n{env}    ports:\n      - 8080:80\n",
        v,
    )


def _kubeconfig(g: Gen) -> Made:
    style = g.rng.randrange(3)
    if style == 0:
        v = _random(g)
        return f"users:\n- name: ci\n  user:\n    token: {v}\n", v
    if style == 1:
        v = _random(g)
        return (
            "users:\n- name: oidc\n  user:\n    auth-provider:\n      name: oidc\n      config:\n"
            f"        client-id: kubernetes\n        client-secret: {v}\n"
            "        idp-issuer-url: https://accounts.example.com\n"
        ), v
    v = base64.b64encode(_pem(g, "RSA PRIVATE KEY").encode()).decode()
    return f"users:\n- name: admin\n  user:\n    client-key-data: {v}\n", v


def _shell_history(g: Gen) -> Made:
    n, v = _name_value(g)
    num = g.rng.randint(100, 2000)
    forms = (
        f"export {n}={v}",
        f"heroku config:set {n}={v} -a shop",
        f"kubectl create secret generic app --from-literal={n.lower()}={v}",
        f"docker run -e {n}={v} acme/app",
        f"vault kv put secret/app {n.lower()}={v}",
        f"gh secret set {n} --body {v}",
        f"fly secrets set {n}={v}",
        f"aws ssm put-parameter --name /app/{n.lower()} --value {v} --type SecureString",
    )
    return f" {num}  cd ~/src/app\n {num + 1}  {g.pick(forms)}\n {num + 2}  git status\n", v


def _vault_token(g: Gen) -> Made:
    v = _vault(g)
    forms = (
        f"export VAULT_TOKEN={v}",
        f"vault login {v}",
        f"X-Vault-Token: {v}",
        f"Successfully authenticated! token: {v}",
        f"token                {v}\ntoken_accessor       {g.s(ALNUM, 24)}",
        f'{{"auth": {{"client_token": "{v}", "lease_duration": 2764800}}}}',
        f"root token is {v}",
        f"oops {v} lol",
        f"> > It failed with {v}\n> did you rotate it?",
    )
    return g.pick(forms), v


def _yandex_token(g: Gen) -> Made:
    v = _yandex(g)
    forms = (
        f"yc config set token {v}",
        f"Authorization: Bearer {v}",
        f"Authorization: Api-Key {v}",
        f"export YC_TOKEN={v}",
        f"secret: {v}",
        f"I pasted {v} into the ticket by mistake",
        f"access_key:\n  key_id: YCAJE{g.s(URLSAFE, 20)}\nsecret: {v}",
        f"curl -H 'Authorization: Bearer {v}' https://iam.api.cloud.yandex.net/",
        f"notes/backup-{v}.txt",
        f"yc: {v}",
    )
    return g.pick(forms), v


def _stack_trace(g: Gen) -> Made:
    style = g.rng.randrange(5)
    u, h = g.pick(_USERS), g.pick(_HOSTS)
    if style == 0:
        p = _password(g)
        return (
            'Traceback (most recent call last):\n  File "app.py", line 12, in <module>\n'
            f'    conn = psycopg2.connect("host={h} user={u} password={p} dbname=app")\n'
            "psycopg2.OperationalError: connection to server failed\n"
        ), p
    if style == 1:
        p = _password(g)
        return (
            'Exception in thread "main" java.sql.SQLException: Access denied\n'
            f"\tat com.acme.Db.open(Db.java:41)\nCaused by: url=jdbc:postgresql://{h}:5432/app?user={u}&password={p}\n"
        ), p
    if style == 2:
        v = _random(g)
        return (
            f"requests.exceptions.HTTPError: 401 Client Error: Unauthorized for url: "
            f"https://api.example.com/v2/items?access_token={v}&page=2\n"
        ), v
    if style == 3:
        v = _random(g)
        return (
            '  File "/srv/app/client.py", line 88, in fetch\n    resp = session.get(url, headers=headers)\n'
            f"    headers = {{'Accept': 'application/json', 'Authorization': 'Bearer {v}'}}\n"
        ), v
    v = _random(g)
    return (f"ERROR 2024-06-01T10:22:11Z worker-3 stripe call failed: api_key={v} status=401\n"), v


def _ci_log(g: Gen) -> Made:
    n, v = _name_value(g)
    if g.rng.random() < 0.15:  # actions/checkout's extra header: base64 of the token
        basic = base64.b64encode(f"x-access-token:{_random(g)}".encode()).decode()
        text = f'[command]/usr/bin/git -c http.extraheader="AUTHORIZATION: basic {basic}" fetch'
        return text, basic
    login = f"+ docker login -u ci -p {v} registry.example.com"
    forms = (
        f"Step 4/12 : ENV {n}={v}",
        f"#7 [build 3/6] RUN echo {n}={v} >> .env",
        login if n in _PW_NAMES else f"+ export {n}={v}",
        f"docker build --build-arg {n}={v} -t acme/app .",
        f'2024-06-01T10:22:11.123Z ##[group]Run echo "{n}={v}" >> $GITHUB_ENV',
    )
    return g.pick(forms), v


def _curl(g: Gen) -> Made:
    v = _random(g)
    forms = (
        f"curl -H 'Authorization: token {v}' https://api.example.com/user",
        f'curl --header "PRIVATE-TOKEN: {v}" https://gitlab.example.com/api/v4/projects',
        f"curl -X POST https://auth.example.com/oauth/token -d 'client_id=app&client_secret={v}&grant_type=client_credentials'",
        f"curl --oauth2-bearer {v} https://api.example.com/v1/me",
        f'curl -H "X-API-Key: {v}" https://api.example.com/v1/items',
        f'curl -H "apikey: {v}" https://x.supabase.co/rest/v1/items',
        f"curl -u :{v} https://api.example.com/v1/charges"
        if v[0].isalnum()
        else f"curl -H 'Authorization: token {v}' https://a.example.com",
    )
    return g.pick(forms), v


def _jdbc(g: Gen) -> Made:
    p, u, h = _password(g), g.pick(_USERS), g.pick(_HOSTS)
    forms = (
        f"jdbc:sqlserver://{h}:1433;databaseName=app;user={u};password={p};encrypt=true",
        f"jdbc:oracle:thin:{u}/{p}@//{h}:1521/ORCL",
        f"Driver={{PostgreSQL Unicode}};Server={h};Port=5432;Database=app;Uid={u};Pwd={p};",
        f"jdbc:mysql://{u}:{p}@{h}:3306/app",
        f"jdbc:redshift://{h}:5439/dev;UID={u};PWD={p}",
        f"spring.datasource.url=jdbc:postgresql://{h}/app\nspring.datasource.password={p}",
        f"Host={h};Port=5432;Username={u};Password={p};Database=app",
        f"Data Source={h};Initial Catalog=app;User Id={u};Password={p};",
        f"Driver={{ODBC Driver 18 for SQL Server}};Server={h};Uid={u};Pwd={{{p};x}};",
    )
    return g.pick(forms), p


def _connection_string(g: Gen) -> Made:
    style = g.rng.randrange(6)
    if style == 0:
        v = g.s(B64, 86) + "=="
        return (
            f"DefaultEndpointsProtocol=https;AccountName=acme;AccountKey={v};EndpointSuffix=core.windows.net",
            v,
        )
    if style == 1:
        v = g.s(B64, 43) + "="
        return (
            f"Endpoint=sb://acme.servicebus.windows.net/;SharedAccessKeyName=RootManageSharedAccessKey;SharedAccessKey={v}",
            v,
        )
    p, u, h = _password(g), g.pick(_USERS), g.pick(_HOSTS)
    scheme = ("amqp", "redis", "mongodb", "rediss")[style - 2]
    user = "" if scheme.startswith("redis") and g.rng.random() < 0.5 else u
    return f"BROKER_URL={scheme}://{user}:{p}@{h}:5672/vhost", p


def _auth_header(g: Gen) -> Made:
    style = g.rng.randrange(6)
    if style == 0:
        v = base64.b64encode(f"{g.pick(_USERS)}:{_password(g)}".encode()).decode()
        return f"> GET /api HTTP/1.1\n> Host: x\n> Authorization: Basic {v}\n", v
    if style == 1:
        if g.rng.random() < 0.5:
            p = _password(g)
            return f'curl -H "Authorization: Basic $(echo -n {g.pick(_USERS)}:{p} | base64)" ', p
        v = base64.b64encode(f"{g.pick(_USERS)}:{_password(g)}".encode()).decode()
        return f"Proxy-Authorization: Basic {v}", v
    v = _random(g)
    name, scheme = g.pick(
        (
            ("Authorization", "Token "),
            ("authorization", "ApiKey "),
            ("x-functions-key", ""),
            ("Ocp-Apim-Subscription-Key", ""),
            ("X-Auth-Token", ""),
            ("Authorization", "Bearer "),
        )
    )
    return f"DEBUG:urllib3:request headers {{'{name}': '{scheme}{v}'}}", v


def _cookie(g: Gen) -> Made:
    v = g.pick((g.s(HEX, 32), g.s(ALNUM, 32), "s%3A" + g.s(URLSAFE, 32) + "." + g.s(URLSAFE, 43)))
    name = g.pick(
        (
            "sessionid",
            "connect.sid",
            "_session_id",
            "JSESSIONID",
            "laravel_session",
            "PHPSESSID",
            "auth_token",
            "remember_token",
        )
    )
    forms = (
        f"Cookie: theme=dark; {name}={v}; lang=en",
        f"< Set-Cookie: {name}={v}; Path=/; HttpOnly; Secure",
        f"curl -b '{name}={v}' https://app.example.com/account",
    )
    return g.pick(forms), v


def _signed_url(g: Gen) -> Made:
    style = g.rng.randrange(4)
    if style == 0:
        v = g.s(HEX, 64)
        return (
            "https://bucket.s3.amazonaws.com/report.pdf?X-Amz-Algorithm=AWS4-HMAC-SHA256"
            f"&X-Amz-Credential=AKIA{g.s(UP + DIG, 16)}%2F20240601%2Fus-east-1%2Fs3%2Faws4_request"
            f"&X-Amz-Date=20240601T000000Z&X-Amz-Expires=3600&X-Amz-SignedHeaders=host&X-Amz-Signature={v}"
        ), v
    if style == 1:
        v = g.s(HEX, 512)
        return (
            "https://storage.googleapis.com/acme/file.zip?X-Goog-Algorithm=GOOG4-RSA-SHA256"
            f"&X-Goog-Credential=svc%40p.iam.gserviceaccount.com%2F20240601&X-Goog-Signature={v}"
        ), v
    if style == 2:
        v = g.s(B64, 43).replace("+", "%2B").replace("/", "%2F") + "%3D"
        return (
            f"https://acme.blob.core.windows.net/c/f.txt?sv=2022-11-02&ss=b&srt=o&sp=r&se=2024-07-01&sig={v}",
            v,
        )
    v = g.s(URLSAFE, 120)
    return (
        f"https://d111.cloudfront.net/v.mp4?Expires=1717200000&Signature={v}&Key-Pair-Id=K2JCJMDEHXQW5F",
        v,
    )


def _json_private_key(g: Gen) -> Made:
    pem = _pem(g, g.pick(("PRIVATE KEY", "RSA PRIVATE KEY", "EC PRIVATE KEY")))
    line = pem.splitlines()[2]
    style = g.rng.randrange(3)
    if style == 0:
        return json.dumps(
            {"type": "service_account", "client_email": "a@b.iam", "private_key": pem}
        ), line
    if style == 1:
        return f'PRIVATE_KEY="{pem.replace(chr(10), chr(92) + "n")}"', line
    return "log: config loaded " + json.dumps({"payload": json.dumps({"key": pem})}), line


def _yaml_base64(g: Gen) -> Made:
    style = g.rng.randrange(4)
    if style == 0:
        v = base64.b64encode(_password(g).encode()).decode()
        return (
            f"apiVersion: v1\nkind: Secret\ntype: Opaque\ndata:\n  {g.pick(('DB_PASSWORD', 'password', 'redis-password'))}: {v}\n",
            v,
        )
    if style == 1:
        v = base64.b64encode(
            json.dumps(
                {
                    "auths": {
                        "ghcr.io": {"auth": base64.b64encode(f"ci:{_random(g)}".encode()).decode()}
                    }
                }
            ).encode()
        ).decode()
        return (
            f"kind: Secret\ntype: kubernetes.io/dockerconfigjson\ndata:\n  .dockerconfigjson: {v}\n",
            v,
        )
    if style == 2:
        v = base64.b64encode(_random(g).encode()).decode()
        return (
            f"kind: Secret\ndata:\n  {g.pick(('api-token', 'client_secret', 'webhook-secret', 'API_KEY'))}: {v}\n",
            v,
        )
    v = base64.b64encode(f"{g.pick(_USERS)}:{_password(g)}".encode()).decode()
    return f"kind: Secret\ndata:\n  credentials: {v}\n", v


def _chat_pair(g: Gen) -> Made:
    u, p = g.pick(("ann", "bob", "jdoe", "deploy", "svc_ci")), _password(g)
    forms = (
        f"user: {u} pass: {p}",
        f"login {u}/{p}",
        f"{u}:{p}@ftp.example.com",
        f"account {u} / {p}",
        f"username {u} password {p}",
        f"u: {u} p: {p}",
        f"user={u} pass={p}",
    )
    return g.pick(forms), p


HELD_OUT_13: dict[str, Callable[[Gen], Made]] = {
    "dotenv": _dotenv,
    "laravel-env": _laravel_env,
    "config-ini": _config_ini,
    "compose": _compose,
    "kubeconfig": _kubeconfig,
    "shell-history": _shell_history,
    "vault-token": _vault_token,
    "yandex-token": _yandex_token,
    "stack-trace": _stack_trace,
    "ci-log": _ci_log,
    "curl": _curl,
    "jdbc-odbc": _jdbc,
    "connection-string": _connection_string,
    "auth-header": _auth_header,
    "cookie": _cookie,
    "signed-url": _signed_url,
    "json-private-key": _json_private_key,
    "yaml-base64": _yaml_base64,
    "chat-pair": _chat_pair,
}

# The same places without a secret: placeholders, references, ids, hashes, prose.
NEAR_MISSES_13: list[str] = [
    "DB_PASSWORD=${DB_PASSWORD}\nJWT_SIGNING_KEY=changeme\n",
    "environment:\n  POSTGRES_PASSWORD_FILE: /run/secrets/db_password\n",
    "users:\n- name: ci\n  user:\n    tokenFile: /var/run/secrets/token\n",
    " 512  export VAULT_ADDR=https://vault.example.com:8200\n 513  vault status\n",
    "Traceback (most recent call last):\n  File \"app.py\", line 12, in <module>\nKeyError: 'password'\n",
    "Step 4/12 : ENV NODE_ENV=production",
    "curl -H 'Accept: application/json' https://api.example.com/v1/items?page=2",
    "jdbc:postgresql://db.internal:5432/app?sslmode=require",
    "Cookie: theme=dark; lang=en; tz=Europe%2FBerlin",
    "https://bucket.s3.amazonaws.com/report.pdf?versionId=3",
    "account billing / invoices2024",
    "see section 4.2 / appendix B",
    "user: ann (admin) / pass: see vault",
    "login failed for ann/readonly",
    "the ratio was 3/4 and the user/group is www-data/www-data",
    "git log --author=ann/bob",
    "and/or the read/write path",
    "ann:x:1000:1000:Ann,,,:/home/ann:/bin/bash",
    "see https://example.com/docs/user:ann",
    "meeting at 10:30 with ann@example.com",
    "s.t. the result holds",
    "YCSB benchmark results: workloada 12000 ops/s",
    "t1.micro instance, t1.small too",
    *(
        f"commit {h}"
        for h in (
            "3f786850e387550fdab836ed7e6dc881de23001b",
            "a94a8fe5ccb19ba61c4c0873d391e987982fbbd3",
        )
    ),
    *(f"user {u} / group {grp}" for u, grp in (("ann", "staff"), ("bob", "wheel2"))),
    f"checksum {LOW[:3]}{DIG[:3]} ok",
]
