"""Secrets that a layout gives away without an assignment's operator: generated cases.

Each class of layout is generated from a fixed seed: labels, separators, quoting and values
vary, and every generated secret must be gone while the words around it stay.
"""

from __future__ import annotations

import base64
import json
import random
import re
import string
from urllib.parse import quote

import pytest

from memtrails.secrets import scrub_text

# No ".": a dotted run of names reads as code (settings.DB_PASS), by design.
_SYMBOLS = "!#%&*+-_@^~"


def password(rng: random.Random) -> str:
    """Return a password of 8-16 characters with letters, a digit and perhaps a symbol."""
    size = rng.randint(8, 16)
    chars = [rng.choice(string.ascii_letters + string.digits + _SYMBOLS) for _ in range(size)]
    chars[0] = rng.choice(string.ascii_letters)
    chars[rng.randrange(1, size)] = rng.choice(string.digits)
    return "".join(chars)


def token(rng: random.Random, size: int = 0) -> str:
    """Return a random token of 20-40 letters and digits, two of each case and two digits."""
    size = size or rng.randint(20, 40)
    chars = [rng.choice(string.ascii_letters + string.digits) for _ in range(size)]
    for i, kind in enumerate((string.ascii_lowercase, string.ascii_uppercase, string.digits) * 2):
        chars[i] = rng.choice(kind)
    rng.shuffle(chars)
    return "".join(chars)


def assert_gone(text: str, secret: str, *kept: str) -> None:
    """Assert that ``secret`` is scrubbed from ``text`` and the words in ``kept`` stay."""
    out, found = scrub_text(text)
    assert secret not in out, text
    assert found, text
    for word in kept:
        assert word in out, (text, out)


def assert_kept(text: str) -> None:
    """Assert that ``text`` comes out unchanged."""
    out, found = scrub_text(text)
    assert (out, dict(found)) == (text, {})


_SET_COMMANDS = (
    "set -x {name} {value}",
    "set -gx {name} {value}",
    "set -Ux {name} {value}",
    "set --export --global {name} {value}",
    "setx {name} {value}",
    "setx {name} {value} /M",
    "setx /M {name} {value}",
    "setenv {name} {value}",
    "launchctl setenv {name} {value}",
    "Set-Item -Path Env:{name} -Value {value}",
    "Set-Item Env:{name} {value}",
    "gh secret set {name} --body {value}",
    "$env:{name} = {value}",
    "declare -x {name}={value}",
    "ENV {name} {value}",
)
_SECRET_NAMES = (
    "DB_PASSWORD",
    "GITHUB_PASSWORD",
    "API_TOKEN",
    "SLACK_BOT_TOKEN",
    "AWS_SECRET_ACCESS_KEY",
    "STRIPE_SECRET_KEY",
    "clientSecret",
    "SECRET_KEY",
)


@pytest.mark.parametrize("seed", range(4))
def test_a_value_set_by_a_shell_command_goes(seed: int) -> None:
    """fish's set -x, setx, setenv, Set-Item Env:, gh secret set: the value after the name."""
    rng = random.Random(seed)
    for form in _SET_COMMANDS:
        name = rng.choice(_SECRET_NAMES)
        secret = password(rng) if "PASSWORD" in name else token(rng)
        quote = rng.choice(["", "'", '"'])
        text = form.format(name=name, value=f"{quote}{secret}{quote}")
        assert_gone(rng.choice(["", "$ ", "> "]) + text, secret, name)


@pytest.mark.parametrize(
    "text",
    [
        "set -x PATH /usr/local/bin $PATH",
        "set -x EDITOR vim",
        "set -gx TOKEN_FILE /home/me/.token",
        'setx PATH "%PATH%;C:\\bin"',
        "set -x GOPATH $HOME/go",
        "setenv DB_PASSWORD $DB_PASSWORD_FROM_VAULT",
        "set -x API_TOKEN (cat ~/.config/token)",
        "we set token limits per user",
        "reset password hint",
    ],
)
def test_a_shell_command_without_a_secret_stays(text: str) -> None:
    assert_kept(text)


_LANGUAGE_PASSWORDS = (
    "パスワードは{v}です",
    "パスワードは {v} です",
    "パスワードは「{v}」です",
    "WiFiのパスワード\uff1a{v}",
    "パスワードを{v}に変更しました",
    "密码\uff1a{v}",
    "我的密码是{v}。",
    "密碼是{v}\uff0c請保密",
    "密码为 {v}",
    "密码改为{v}",
    "비밀번호: {v}",
    "비밀번호는 {v}입니다",
    "비밀번호는{v}",
    "비밀번호를 {v}로 변경했습니다",
    "пароль: {v}",
    "пароль от почты: {v}",
    "Пароль — {v}",
    "Passwort: {v}",
    "Das Passwort lautet {v}",
    "mot de passe : {v}",
    "Le mot de passe est « {v} »",
    "contraseña: {v}",
    "La contraseña es {v}",
    "la password è {v}",
    "a senha é {v}",
    "hasło jest {v}",
    "heslo je {v}",
    "lösenordet är {v}",
    "passordet er {v}",
    "salasana on {v}",
    "kata sandi adalah {v}",
    "mật khẩu là {v}",
    "비번: {v}",
    "la clave es {v}",
)
_LANGUAGE_KEYS = (
    "APIキーは {v} です",
    "APIキー\uff1a{v}",
    "アクセストークンは{v}です",
    "API密钥是{v}",
    "令牌\uff1a{v}",
    "API 키: {v}",
    "토큰은 {v}입니다",
    "ключ API: {v}",
    "токен — {v}",
    "API-Schlüssel lautet {v}",
    "clé API : {v}",
)


@pytest.mark.parametrize("seed", range(4))
def test_a_password_or_key_named_in_another_language_goes(seed: int) -> None:
    """A word for a password or a key in another language, its link ("は", "是", "는",
    "lautet", "è"), glued or spaced, then the value: the value goes, the words stay."""
    rng = random.Random(seed)
    for form in _LANGUAGE_PASSWORDS:
        secret = password(rng)
        text = form.format(v=secret)
        assert_gone(text, secret, form.split("{v}")[0].strip(" «「"))
    for form in _LANGUAGE_KEYS:
        secret = token(rng)
        assert_gone(form.format(v=secret), secret, form.split("{v}")[0].strip())


@pytest.mark.parametrize(
    "text",
    [
        "パスワードを2回間違えました",
        "パスワードは8文字以上にしてください",
        "パスワードは半角英数字8〜16文字で入力してください",
        "密码是必填项",
        "密码长度至少8位",
        "密码是6到20位字母或数字",
        "비밀번호는 8자 이상이어야 합니다",
        "비밀번호는 영문, 숫자 포함 8~16자",
        "APIキーは設定画面で確認できます",
        "令牌已过期",
        "пароль от почты не подходит",
        "Das Passwort lautet wie folgt:",
        "la password è scaduta",
        "salasana on vaihdettava 90 päivän välein",
        "heslo je příliš krátké",
        "password “policy” requires 12 characters",
    ],
)
def test_prose_about_a_password_in_another_language_stays(text: str) -> None:
    assert_kept(text)


_PASSWORD_LABELS = (
    "Password",
    "password",
    "DB password",
    "Your new password",
    "PASSWORD",
    "Password for db01",
)
_KEY_LABELS = (
    "API key",
    "API Key",
    "Client secret",
    "Access token",
    "Secret",
    "API token (staging)",
)


@pytest.mark.parametrize("seed", range(4))
def test_a_value_on_the_line_after_its_label_goes(seed: int) -> None:
    """A label alone on its line ("Password", "API key"), the value alone on the next line,
    indented, quoted as a mail reply or after a blank line, as forms and dumps are copied."""
    rng = random.Random(seed)
    for _ in range(30):
        if rng.random() < 0.5:
            label, secret = rng.choice(_PASSWORD_LABELS), password(rng)
        else:
            label, secret = rng.choice(_KEY_LABELS), token(rng)
        newline = rng.choice(["\n", "\r\n", "\n\n", "\n--------\n"])
        indent = rng.choice(["", "  ", "\t", "> "])
        before = rng.choice(["", "Username\nadmin\n", "Hi Ann,\n\n", "> "])
        after = rng.choice(["", "\n", "\nPlease change it after the first login.\n"])
        text = f"{before}{label}{newline}{indent}{secret}{after}"
        assert_gone(text, secret, label)


@pytest.mark.parametrize("seed", range(2))
def test_netrc_and_yaml_block_values_go(seed: int) -> None:
    """A .netrc entry with its password on the next line, or after account and port; a YAML
    block scalar's value under a quoted or listed key."""
    rng = random.Random(seed)
    for _ in range(10):
        secret = password(rng)
        netrc = rng.choice(
            [
                "machine api.example.com login bob password\n  {v}",
                "machine api.example.com\n\tlogin bob\n\tpassword {v}",
                "machine git.example.org login bob account acme port 443 password {v}",
                "default login anonymous password {v}",
            ]
        )
        assert_gone(netrc.format(v=secret), secret, "machine" if "machine" in netrc else "default")
        key = rng.choice(["password", '"password"', "- db_password", "  api_token"])
        style = rng.choice(["|", "|-", ">", ">-", "|2"])
        assert_gone(f"{key}: {style}\n    {secret}\nnext: 1\n", secret, "next: 1")


@pytest.mark.parametrize(
    "text",
    [
        "You can reset your account password\n2 days later.",
        "## Password\n\n1. Open the settings",
        "Password\n********",
        "API key\nsee the vault",
        "Token\nv2.3.1-beta",
        "We will rotate the password and the API token\nQ3-2024\n",
        "Forgot your password?\nClick here",
        "password\nPassword123 is not allowed, pick another.",
        "Reset your password in the\nsettings-page\n",
        "and we changed the token for\nstaging-2\n",
    ],
)
def test_prose_ending_a_line_with_a_key_word_stays(text: str) -> None:
    assert_kept(text)


def aws_key_pair(rng: random.Random) -> tuple[str, str]:
    """Return an AWS access key id and a secret key shaped like AWS's (40 characters, often
    with '/' and '+')."""
    key_id = "AKIA" + "".join(rng.choice(string.ascii_uppercase + "234567") for _ in range(16))
    alphabet = string.ascii_letters + string.digits + "/+"
    secret = list(token(rng, 40))
    for i in rng.sample(range(1, 39), rng.randint(0, 3)):
        secret[i] = rng.choice("/+")
    return key_id, "".join(c if c in alphabet else "x" for c in secret)


@pytest.mark.parametrize("seed", range(4))
def test_the_key_id_and_the_secret_of_a_url_user_info_go(seed: int) -> None:
    """scheme://KEYID:SECRET@host: both go, the AWS secret's '/' or '+' included; a password
    percent-encoded; a token alone before the '@'. The scheme and the host stay."""
    rng = random.Random(seed)
    for _ in range(12):
        scheme = rng.choice(["s3", "s3a", "s3n", "https", "minio+s3"])
        key_id, secret = aws_key_pair(rng)
        text = f"aws s3 sync {scheme}://{key_id}:{secret}@my-bucket/backups/ ./local"
        out, _ = scrub_text(text)
        assert key_id not in out and secret not in out and secret[:12] not in out, text
        assert f"{scheme}://" in out and "@my-bucket/backups/" in out, out
        user = rng.choice(["bob", "app", "admin", "svc-backup"])
        pw = quote(password(rng), safe="")
        scheme = rng.choice(["https", "postgres", "mongodb+srv", "redis", "amqp", "ftp"])
        assert_gone(f"{scheme}://{user}:{pw}@db.example.com:5432/app", pw, f"{user}:", "@db.")
        tok = token(rng, rng.randint(20, 40))
        assert_gone(f"git clone https://{tok}@git.example.com/org/repo.git", tok, "@git.")


@pytest.mark.parametrize(
    "text",
    [
        "https://host:8080/a/b/c@d",
        "https://medium.com:443/@user/post",
        "https://github.com/org/repo@v1.0",
        "git+https://github.com/org/repo.git@0123456789abcdef0123456789abcdef01234567",
        "https://firstname_lastname_2020@example.com",
        "ssh://git@github.com/org/repo",
        "postgres://user:password@localhost/db",
    ],
)
def test_a_url_without_a_secret_in_its_user_info_stays(text: str) -> None:
    assert_kept(text)


_KEYS_OF_QUERIES = (
    "password",
    "pwd",
    "passwd",
    "token",
    "access_token",
    "api_key",
    "client_secret",
)
_PARAMETERS = (
    "next=/home",
    "lang=en",
    "page=2",
    "state=xyz",
    "redirect_uri=https%3A%2F%2Fapp%2Fcb",
)


@pytest.mark.parametrize("seed", range(4))
def test_a_secret_in_a_query_or_a_form_goes_and_the_next_parameters_stay(seed: int) -> None:
    """?password=a%26b&next=/home&lang=en: the value goes, percent-encoded or short, and the
    parameters after it stay, in a URL, after HTML's '&amp;', in a form's body."""
    rng = random.Random(seed)
    for _ in range(20):
        key = rng.choice(_KEYS_OF_QUERIES)
        if "pass" in key or "pw" in key:
            plain = rng.choice([password(rng), rng.choice("abcxyz") + rng.choice("&=%+#/?") + "b"])
        else:
            plain = token(rng)
        secret = quote(plain, safe="")
        rest = rng.sample(_PARAMETERS, rng.randint(1, 3))
        amp = rng.choice(["&", "&amp;"])
        after = "".join(f"{amp}{p}" for p in rest)
        text = rng.choice(
            [
                f"https://app.example.com/login?user=bob{amp}{key}={secret}{after}",
                f"GET /cb?{key}={secret}{after} HTTP/1.1",
                f"https://app.example.com/cb#{key}={secret}{after.replace('&amp;', '&')}",
                f"POST /login body: user=bob&{key}={secret}{after.replace('&amp;', '&')}",
            ]
        )
        assert_gone(text, secret, *rest)


@pytest.mark.parametrize(
    "text",
    [
        "https://example.com/docs?q=password+policy&lang=en",
        "https://example.com/login?password=&next=/home",
        "https://example.com/reset?token=&lang=en",
        "https://example.com/login?password=%2A%2A%2A%2A&next=/home",
        "https://example.com/search?mode=token&lang=en",
        "https://example.com/login?password=yes&next=/home",
    ],
)
def test_a_query_without_a_secret_stays(text: str) -> None:
    assert_kept(text)


_SIGNATURE_LENGTHS = {"HS256": 43, "HS384": 64, "HS512": 86, "RS256": 342, "ES256": 86, "EdDSA": 86}


def _b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def jwt(rng: random.Random) -> str:
    """Return a JWT with a real header, a payload and a random signature of its length."""
    alg = rng.choice(sorted(_SIGNATURE_LENGTHS))
    header = _b64url(json.dumps({"alg": alg, "typ": "JWT"}).encode())
    claims = {"sub": token(rng, 12), "iat": rng.randint(10**9, 2 * 10**9), "name": "Ann"}
    payload = _b64url(json.dumps(claims).encode())
    alphabet = string.ascii_letters + string.digits + "-_"
    signature = "".join(rng.choice(alphabet) for _ in range(_SIGNATURE_LENGTHS[alg]))
    return f"{header}.{payload}.{signature}"


def _wrap(rng: random.Random, text: str) -> str:
    """Break ``text`` over lines as a mail, a shell or quoted-printable would."""
    style = rng.choice(["width", "shell", "qp", "dots", "quoted"])
    if style == "dots":
        return text.replace(".", ".\n")
    width = rng.choice([30, 40, 64, 76])
    lines = [text[i : i + width] for i in range(0, len(text), width)]
    glue = {"width": "\n", "shell": "\\\n  ", "qp": "=\n", "quoted": "\n> "}[style]
    return glue.join(lines)


@pytest.mark.parametrize("seed", range(4))
def test_a_jwt_wrapped_over_lines_goes_whole(seed: int) -> None:
    """A JWT broken at a width, by a shell's '\\' or quoted-printable's '=', or after its
    dots: every piece goes, and the line after it stays."""
    rng = random.Random(seed)
    for _ in range(15):
        secret = jwt(rng)
        before = rng.choice(["Authorization: Bearer ", "token=", "> ", "here it is:\n"])
        text = f"{before}{_wrap(rng, secret)}\nThanks, Ann\n"
        out, found = scrub_text(text)
        assert found, text
        pieces = [p for p in re.split(r"[\s\\=>.]+", secret) if len(p) >= 8]
        assert not [p for p in pieces if p in out.replace("\n", "")], (text, out)
        assert "Thanks, Ann" in out, (text, out)


def test_the_line_after_a_whole_jwt_stays() -> None:
    """A signature as long as its algorithm says ends the token: a next line of base64-like
    characters is not taken for its continuation."""
    rng = random.Random(5)
    for _ in range(10):
        secret = jwt(rng)
        out, _ = scrub_text(f"{secret}\nnextLine2024\nAbCdEf123\\\nrest")
        assert out == "[secret:jwt]\nnextLine2024\nAbCdEf123\\\nrest"


_SECRET_COLUMNS = ("password", "Password", "passwd", "api_key", "API Key", "Client Secret", "token")
_OTHER_COLUMNS = ("id", "name", "email", "created", "notes")


def _cell(rng: random.Random, column: str) -> str:
    if column == "email":
        return f"{rng.choice(['ann', 'bob', 'eve'])}{rng.randint(1, 99)}@example.com"
    if column == "created":
        return f"2024-0{rng.randint(1, 9)}-1{rng.randint(0, 9)}"
    return {"id": str(rng.randint(1, 999)), "name": rng.choice(["Ann", "Bob", "Eve Li"])}.get(
        column, rng.choice(["first", "admin user", "n/a"])
    )


@pytest.mark.parametrize("seed", range(4))
def test_a_secret_column_of_a_csv_tsv_or_markdown_table_goes(seed: int) -> None:
    """A header row naming a column password, api_key, Client Secret: that column's values
    in the rows below go, in CSV, TSV, semicolon-separated and Markdown tables, quoted or
    not; the header and the other columns stay."""
    rng = random.Random(seed)
    for _ in range(8):
        secret_column = rng.choice(_SECRET_COLUMNS)
        columns = rng.sample(_OTHER_COLUMNS, rng.randint(1, 3))
        columns.insert(rng.randint(0, len(columns)), secret_column)
        delimiter = rng.choice([",", "\t", ";", "|"])
        quote = rng.choice(['"', ""]) if delimiter != "|" else ""
        secrets, kept, rows = [], [], []
        for _ in range(rng.randint(1, 5)):
            row = []
            for column in columns:
                if column == secret_column:
                    value = password(rng) if "pass" in column.lower() else token(rng)
                    secrets.append(value)
                else:
                    value = _cell(rng, column)
                    kept.append(value)
                row.append(f"{quote}{value}{quote}")
            rows.append(row)
        header = [f"{quote}{c}{quote}" for c in columns]
        if delimiter == "|":
            lines = [f"| {' | '.join(r)} |" for r in [header, ["---"] * len(columns), *rows]]
        else:
            lines = [delimiter.join(r) for r in [header, *rows]]
        text = rng.choice(["", "Exported users:\n\n"]) + "\n".join(lines) + "\n"
        out, _ = scrub_text(text)
        assert not [s for s in secrets if s in out], text
        assert all(k in out for k in kept) and secret_column in out, (text, out)


@pytest.mark.parametrize("seed", range(4))
def test_a_secret_column_of_an_sql_insert_or_copy_goes(seed: int) -> None:
    """INSERT INTO t (..., password, ...) VALUES (...), (...) and pg_dump's COPY t (...) FROM
    stdin rows: the secret column's values go (a call's first string too), the others stay."""
    rng = random.Random(seed)
    for _ in range(8):
        column = rng.choice(["password", "api_token", "client_secret", "password_plain"[:8]])
        names = ["id", "email", column, "name"]
        q = rng.choice(["", "`", '"'])
        secrets, tuples, copy_rows = [], [], []
        for n in range(rng.randint(1, 4)):
            secret = password(rng) if "pass" in column else token(rng)
            secrets.append(secret)
            email = f"user{n}@example.com"
            form = rng.choice(["'{v}'", "N'{v}'", "crypt('{v}', gen_salt('bf'))"])
            tuples.append(f"({n + 1}, '{email}', {form.format(v=secret)}, 'Ann')")
            copy_rows.append(f"{n + 1}\t{email}\t{secret}\tAnn")
        columns = ", ".join(f"{q}{c}{q}" for c in names)
        glue = rng.choice([", ", ",\n  "])
        insert = f"INSERT INTO {q}users{q} ({columns}) VALUES {glue.join(tuples)};\n"
        copy = f"COPY public.users ({', '.join(names)}) FROM stdin;\n" + "\n".join(copy_rows)
        for text in (insert, copy + "\n\\.\n"):
            out, _ = scrub_text(text)
            assert not [s for s in secrets if s in out], text
            assert "user0@example.com" in out and "Ann" in out, (text, out)


@pytest.mark.parametrize(
    "text",
    [
        "id,name,email\n1,Ann,ann@example.com\n2,Bob,bob@example.com\n",
        "keywords = ('private', 'protected', 'pass', 'raise',\n    'redo', 'rescue', 'retry', 'unsigned',\n",
        '    "desc", "description", "secret", "pattern",\n    "subject", "reason", "comment", "prompt",\n',
        "I forgot my password, again\nand again, today\n",
        "CREATE TABLE users (id INT, email TEXT, password TEXT);\n",
        "INSERT INTO users (name, password) VALUES ('ann', NULL), ('bob', '');\n",
        "INSERT INTO users (name, password) VALUES ('ann', '********');\n",
        "name,password\nann,\nbob,********\n",
        "| Field | Type |\n|---|---|\n| password | string |\n| token | string |\n",
    ],
)
def test_tables_without_a_secret_stay(text: str) -> None:
    assert_kept(text)


_PROSE_TEMPLATES = (
    "The password policy requires {n} characters and one digit.",
    "Token bucket algorithm: refill {n} tokens per second, burst of {m}.",
    "Rotate the API key every {n} days; the old key stays valid for {m} hours.",
    "Your password was changed on 2024-0{d}-1{d}. If this wasn't you, reset it.",
    "Secret Santa draw on December {n}, budget {m} EUR.",
    "The key length is {n} bits and the block size {m} bytes.",
    "We store only a salted hash of each password ({n} rounds of PBKDF2).",
    "Set the token limit to {n} and the timeout to {m} s.",
    "Passwort vergessen? Klicken Sie hier, um es in {n} Minuten zurückzusetzen.",
    "パスワードは{n}文字以上で設定してください。",
    "密码长度至少{n}位\uff0c最多{m}位。",
    "비밀번호는 {n}자 이상이어야 합니다.",
    "Le mot de passe doit contenir au moins {n} caractères.",
    "Пароль должен содержать не менее {n} символов.",
    "name,email,created\nAnn,ann{n}@example.com,2024-01-0{d}\n",
    "| Setting | Default |\n|---|---|\n| token_ttl | {n} |\n| key_size | {m} |\n",
    "See https://example.com/docs/auth?section=tokens&page={n} for the password rules.",
    "git clone https://github.com/org/repo.git && cd repo && make -j{n}",
    "INSERT INTO settings (name, value) VALUES ('password_min_length', '{n}');",
    "def check(password: str, min_length: int = {n}) -> bool:\n    return len(password) >= min_length\n",
    "if token is None:\n    token = refresh(session, retries={n})\n",
    "for key, value in sorted(config.items()):\n    print(key, value[:{n}])\n",
    "SELECT id, name FROM users WHERE password_changed_at < NOW() - INTERVAL '{n} days';",
    "set -x PATH $HOME/.local/bin $PATH\nset -gx EDITOR vim\n",
    "Password\n\nUse at least {n} characters, with a digit and a symbol.\n",
)


@pytest.mark.parametrize("seed", range(3))
def test_ordinary_prose_and_code_about_secrets_stay(seed: int) -> None:
    """Prose and code that talk about passwords, tokens and keys, in several languages,
    tables and statements without a secret: nothing is replaced."""
    rng = random.Random(seed)
    for template in _PROSE_TEMPLATES:
        text = template.format(n=rng.randint(2, 4096), m=rng.randint(2, 512), d=rng.randint(1, 9))
        assert_kept(text)


@pytest.mark.parametrize("seed", range(3))
def test_a_secret_set_by_an_sql_update_through_a_call_goes(seed: int) -> None:
    """UPDATE t SET ..., password = crypt('V', ...) and MySQL's SET PASSWORD ... =
    PASSWORD('V'): the string given to the call goes, the statement stays."""
    rng = random.Random(seed)
    for _ in range(10):
        secret = password(rng)
        call = rng.choice(
            ["crypt('{v}', gen_salt('bf'))", "md5('{v}')", "N'{v}'", "SHA2('{v}', 256)"]
        )
        column = rng.choice(["password", "`password`", "db_password", '"passwd"'])
        before = rng.choice(["", "name = 'Ann', ", "updated_at = NOW(), "])
        text = f"UPDATE users SET {before}{column} = {call.format(v=secret)} WHERE id = 7;"
        assert_gone(text, secret, "UPDATE users SET", "WHERE id = 7;")
        assert_gone(f"SET PASSWORD FOR 'app'@'%' = PASSWORD('{secret}');", secret, "SET PASSWORD")


@pytest.mark.parametrize("seed", range(3))
def test_a_password_with_an_at_sign_and_a_dot_is_no_address(seed: int) -> None:
    """'P@ss.word1' named in prose goes: only a domain after the '@' (a name of letters
    last) makes a value an address, which stays."""
    rng = random.Random(seed)
    for _ in range(10):
        a, b = rng.sample(["Blue", "ss", "tr0ub", "kitten", "Sky"], 2)
        secret = f"{a}@{b}.{rng.choice(['word', 'x', 'Rd'])}{rng.randint(1, 999)}"
        label = rng.choice(["the password is ", "Passwort: ", "пароль: ", "my pwd is "])
        assert_gone(f"{label}{secret}", secret, label.strip())
    assert_kept("sent the password to ann@example.com")
    assert_kept("password: bob@mail.example.org.")


@pytest.mark.parametrize("seed", range(3))
def test_a_dumps_insert_without_columns_goes_by_its_create_table(seed: int) -> None:
    """mysqldump's and sqlite's .dump: CREATE TABLE names the columns, INSERT INTO t VALUES
    (...) gives only values; the secret column's values go by their position."""
    rng = random.Random(seed)
    for _ in range(6):
        q = rng.choice(["", "`", '"'])
        column = rng.choice(["password", "api_token", "client_secret"])
        definitions = [
            f"{q}id{q} int(11) NOT NULL AUTO_INCREMENT",
            f"{q}email{q} varchar(255) DEFAULT NULL",
            f"{q}{column}{q} varchar(255) NOT NULL",
            f"PRIMARY KEY ({q}id{q})",
        ]
        create = f"CREATE TABLE {q}users{q} (\n  " + ",\n  ".join(definitions) + "\n);\n"
        secrets = [password(rng) if "pass" in column else token(rng) for _ in range(3)]
        rows = ",".join(f"({n},'u{n}@example.com','{v}')" for n, v in enumerate(secrets))
        text = create + rng.choice(["", "-- data\n"]) + f"INSERT INTO {q}users{q} VALUES {rows};\n"
        out, _ = scrub_text(text)
        assert not [s for s in secrets if s in out], text
        assert "u1@example.com" in out and create in out, out
