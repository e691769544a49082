"""Code contexts for ``secret_survivors.py`` (rule set 8): secrets in source code.

A string literal assigned to a secret's name in nine languages (an index, a setter, a
credential's constructor too), a shell heredoc, private keys in PEM (perhaps a string
concatenated over lines), OpenSSH, PuTTY and PGP armour; and rule set 7's leftovers (a '/'
in a URL's password, a JWT with an unknown algorithm wrapped over lines, a CSV field quoted
over lines). Each returns the text and the secret in it. Not a package module.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Callable

from _secret_families import ALNUM, B64, HEX, URLSAFE, Gen

__all__ = ["CODE", "LEFTOVERS", "Made", "pem_lines", "token", "user"]

Made = tuple[str, str]  # (text, secret)


def token(g: Gen) -> str:
    """A token of no known service: 24-40 random letters and digits, both cases."""
    while True:
        t = g.s(ALNUM, g.rng.randint(24, 40))
        if t.lower() != t and t.upper() != t:
            return t


def user(g: Gen) -> str:
    return g.pick(["ann", "deploy", "ci-bot", "svc_app", "jenkins", "admin"])


def pem_lines(g: Gen, n: int, width: int = 64) -> str:
    return "\n".join(g.s(B64, width) for _ in range(n)) + "\n" + g.s(B64, 24) + "=="


def _plain(g: Gen) -> str:
    """A password without quotes, backslashes or URL delimiters."""
    return "".join(c for c in g.password() if c not in "\"'\\/@?#:%")


def _jwt_unknown_alg(g: Gen) -> str:
    alg = g.pick(["none", "RSA-OAEP", "A256KW", "HS1", "custom"])
    head = base64.urlsafe_b64encode(json.dumps({"alg": alg, "kid": g.s(HEX, 8)}).encode())
    body = base64.urlsafe_b64encode(json.dumps({"sub": g.digits(9), "scope": "rw"}).encode())
    return f"{head.decode().rstrip('=')}.{body.decode().rstrip('=')}.{g.s(URLSAFE, 86)}"


def _wrap(value: str, width: int) -> str:
    return "\n".join(value[i : i + width] for i in range(0, len(value), width))


# --- Source code ------------------------------------------------------------------------------


def _code_assignment(g: Gen) -> Made:
    v = token(g)
    form = g.pick(
        [
            'API_KEY = "{v}"',  # Python
            "self.client_secret = '{v}'",
            'const apiToken = "{v}";',  # JavaScript
            "  apiKey: '{v}',",
            'const authToken = "{v}"',  # Go
            '\tSecretKey: "{v}",',
            'private static final String API_SECRET = "{v}";',  # Java
            'let api_token = "{v}";',  # Rust
            'const SECRET_KEY: &str = "{v}";',
            'private const string ApiKey = "{v}";',  # C#
            "$apiSecret = '{v}';",  # PHP
            "    'api_key' => '{v}',",
            "ACCESS_TOKEN = '{v}'.freeze",  # Ruby
            "  config.secret_token = '{v}'",
        ]
    )
    return form.format(v=v), v


def _code_password(g: Gen) -> Made:
    v = g.password().replace('"', "").replace("'", "").replace("\\", "")
    form = g.pick(
        [
            'db_password = "{v}"',
            'String password = "{v}";',
            'password := "{v}"',
            'let password = "{v}";',
            'var dbPassword = "{v}";',
            "define('DB_PASSWORD', '{v}');",
            "  password: '{v}',",
            ':password => "{v}",',
        ]
    )
    return form.format(v=v), v


def _heredoc(g: Gen) -> Made:
    p = g.password()
    form = g.pick(
        [
            "cat > .env <<EOF\nDB_HOST=db\nDB_PASSWORD={p}\nEOF",
            "cat <<'EOF' > ~/.my.cnf\n[client]\nuser=root\npassword={p}\nEOF",
            "kubectl apply -f - <<EOF\nstringData:\n  password: {p}\nEOF",
        ]
    )
    return form.format(p=p), p


def _private_key(g: Gen) -> Made:
    shape = g.rng.randrange(5)
    if shape == 0:
        kind = g.pick(["RSA PRIVATE KEY", "EC PRIVATE KEY", "PRIVATE KEY", "ENCRYPTED PRIVATE KEY"])
        body = pem_lines(g, 8)
        return f"key = '''-----BEGIN {kind}-----\n{body}\n-----END {kind}-----'''\n", body
    if shape == 1:
        body = (
            "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAA"
            + g.s(B64, 14)
            + "\n"
            + pem_lines(g, 5, 70)
        )
        return (
            f"-----BEGIN OPENSSH PRIVATE KEY-----\n{body}\n-----END OPENSSH PRIVATE KEY-----\n",
            body,
        )
    if shape == 2:
        body = pem_lines(g, 3)
        version = g.pick(["2", "3"])
        extra = "Key-Derivation: Argon2id\nArgon2-Memory: 8192\n" if version == "3" else ""
        return (
            f"PuTTY-User-Key-File-{version}: ssh-rsa\nEncryption: aes256-cbc\n{extra}"
            f"Comment: rsa-key-20240501\nPublic-Lines: 2\n{g.s(B64, 64)}\n{g.s(B64, 40)}\n"
            f"Private-Lines: 4\n{body}\nPrivate-MAC: {g.s(HEX, 64)}\n",
            body,
        )
    if shape == 3:
        body = pem_lines(g, 10)
        return (
            "-----BEGIN PGP PRIVATE KEY BLOCK-----\nVersion: GnuPG v2\nComment: ci signing key\n\n"
            f"{body}\n={g.s(B64, 4)}\n-----END PGP PRIVATE KEY BLOCK-----\n",
            body,
        )
    body = pem_lines(g, 8)
    text = json.dumps(
        {"private_key": f"-----BEGIN PRIVATE KEY-----\n{body}\n-----END PRIVATE KEY-----\n"}
    )
    return text, body.replace("\n", "\\n")


def _index_assignment(g: Gen) -> Made:
    t, p = token(g), _plain(g)
    form = g.pick(
        [
            ("$config['password'] = '{p}';", p),
            ("ENV['API_TOKEN'] = '{t}'", t),
            ("config[:password] = '{p}'", p),
            ('settings["apiKey"] = "{t}";', t),
            ('os.environ["DB_PASSWORD"] = "{p}"', p),
        ]
    )
    return form[0].format(t=t, p=p), form[1]


def _setter(g: Gen) -> Made:
    t, p = token(g), _plain(g)
    form = g.pick(
        [
            ('dataSource.setPassword("{p}");', p),
            ('    .username("app")\n    .password("{p}")\n    .build();', p),
            ('client = Client.builder().withApiToken("{t}").build()', t),
            ("mailer.set_password('{p}')", p),
        ]
    )
    return form[0].format(t=t, p=p), form[1]


def _credential_pair(g: Gen) -> Made:
    p, u = _plain(g), user(g)
    form = g.pick(
        [
            'r = requests.get(url, auth=("{u}", "{p}"))',
            "session.auth = HTTPBasicAuth('{u}', '{p}')",
            'var cred = new NetworkCredential("{u}", "{p}");',
            '.basic_auth("{u}", Some("{p}"))',
            "$db = new PDO('mysql:host=db;dbname=app', '{u}', '{p}');",
            'new PasswordAuthentication("{u}", "{p}".toCharArray())',
            "sqlplus {u}/{p}@ORCL @report.sql",
            "jdbc:oracle:thin:{u}/{p}@//db.internal:1521/ORCL",
            "db.internal:5432:*:{u}:{p}",
        ]
    )
    return form.format(u=u, p=p), p


def _pem_concatenated(g: Gen) -> Made:
    lines = [g.s(B64, 64) for _ in range(6)]
    if g.rng.random() < 0.5:
        body = "".join(f'\t"{line}\\n" +\n' for line in lines)
        text = f'const key = "-----BEGIN RSA PRIVATE KEY-----\\n" +\n{body}\t"-----END RSA PRIVATE KEY-----\\n"'
    else:
        body = "".join(f'    + "{line}"\n' for line in lines)
        text = (
            f'String key = "-----BEGIN PRIVATE KEY-----"\n{body}    + "-----END PRIVATE KEY-----";'
        )
    return text, "\n".join(lines)


# --- The leftovers of rule set 7 --------------------------------------------------------------


def _url_slash(g: Gen) -> Made:
    head = g.s(ALNUM, g.rng.randint(3, 8))
    tail = g.s(ALNUM + "!*-_", g.rng.randint(5, 10))
    p = f"{head}/{tail}"
    scheme = g.pick(["postgres", "mysql", "https", "amqp", "mongodb", "redis", "ftp"])
    return f"{scheme}://{user(g)}:{p}@db.internal:5432/app", tail


def _jwt_wrapped(g: Gen) -> Made:
    t = _jwt_unknown_alg(g)
    width = g.pick([64, 72, 76])
    form = g.pick(["> {t}\n> thanks", "{t}\nThe next line is text.", "token:\n{t}\n"])
    wrapped = _wrap(t, width)
    if form.startswith(">"):
        wrapped = wrapped.replace("\n", "\n> ")
    return form.format(t=wrapped), _wrap(t, width)  # each line of it must go


def _csv_multiline(g: Gen) -> Made:
    p = g.password().replace('"', "").replace(",", "")
    if g.rng.random() < 0.5:
        return f'id,note,password\n1,"first line\nsecond line",{p}\n2,plain,{g.password()}\n', p
    return f'user,password,comment\nann,"{p}","long\ncomment"\nbob,"x{g.password()}",short\n', p


#: Secrets in code: context -> generator.
CODE: dict[str, Callable[[Gen], Made]] = {
    "literal-key": _code_assignment,
    "literal-password": _code_password,
    "index": _index_assignment,
    "setter": _setter,
    "credential-pair": _credential_pair,
    "heredoc": _heredoc,
    "private-key": _private_key,
    "pem-concatenated": _pem_concatenated,
}
#: Rule set 7's leftovers.
LEFTOVERS: dict[str, Callable[[Gen], Made]] = {
    "url-slash": _url_slash,
    "jwt-unknown-alg": _jwt_wrapped,
    "csv-multiline": _csv_multiline,
}
