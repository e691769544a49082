"""Held-out contexts for ``secret_survivors.py`` (rule set 9): shapes that survived rule set 8.

An AWS Signature Version 4 Authorization header, a password piped or fed to a command's
standard input, a HAR file's session cookie as a name/value object, the second half of a
private key's PEM block (no BEGIN line), a JWT wrapped with its payload's dot at a line's end.
Each returns the text and the secret in it. Not a package module.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Callable

from _secret_families import B64, HEX, URLSAFE, Gen

__all__ = ["HELD_OUT"]

Made = tuple[str, str]  # (text, secret)


def _shell_password(g: Gen) -> str:
    """A password that needs no quoting in a shell: no quotes, no '$', '!' or backslash."""
    return "".join(c for c in g.password() if c not in "\"'\\$!`|&;<>()#*?~ ") or "Pl4nk-Otter"


def _sigv4(g: Gen) -> Made:
    key_id = "AKIA" + g.s("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", 16)
    signature = g.s(HEX, 64)
    region = g.pick(["us-east-1", "eu-west-1", "ap-southeast-2"])
    form = g.pick(
        [
            "Authorization: AWS4-HMAC-SHA256 Credential={k}/20260105/{r}/s3/aws4_request, "
            "SignedHeaders=host;x-amz-content-sha256;x-amz-date, Signature={s}",
            "DEBUG botocore.auth: Signature:\n{s}\nCredential={k}/20260105/{r}/sts/aws4_request",
            '{{"headers": {{"Authorization": "AWS4-HMAC-SHA256 Credential={k}/20260105/{r}/'
            'execute-api/aws4_request, SignedHeaders=host;x-amz-date, Signature={s}"}}}}',
        ]
    )
    return form.format(k=key_id, r=region, s=signature), signature


def _stdin_password(g: Gen) -> Made:
    p = _shell_password(g)
    form = g.pick(
        [
            "echo '{p}' | sudo -S systemctl restart nginx",
            'echo "{p}" | sudo -u root -S apt-get update',
            "printf '%s\\n' '{p}' | sudo -S -k whoami",
            "echo '{p}' | docker login registry.example.com -u ci --password-stdin",
            "sudo -S ls /root <<< '{p}'",
            'read -rs DB_PASSWORD <<< "{p}"',
            "mysql -u root -p\"$(cat <<< '{p}')\" shop",
            "passwd ann <<EOF\n{p}\n{p}\nEOF",
            "echo 'ann:{p}' | sudo chpasswd",
        ]
    )
    return form.format(p=p), p


def _har_cookie(g: Gen) -> Made:
    name = g.pick(["session", "sid", "connect.sid", "_app_session", "csrftoken", "XSRF-TOKEN"])
    value = g.pick([g.s(HEX, 32), g.uuid(), "s%3A" + g.s(URLSAFE, 24) + "." + g.s(URLSAFE, 20)])
    cookie = {"name": name, "value": value, "path": "/", "domain": ".example.com"}
    cookie |= {"httpOnly": True, "secure": True}
    form = g.pick(["cookies", "value-first", "header"])
    if form == "cookies":
        return json.dumps({"request": {"cookies": [cookie]}}, indent=2), value
    if form == "value-first":
        return json.dumps({"value": value, "name": name, "size": 52}), value
    header = {"name": "cookie", "value": f"theme=dark; {name}={value}; lang=en"}
    return json.dumps({"request": {"headers": [header]}}, indent=2), value


def _pem_tail(g: Gen) -> Made:
    lines = [g.s(B64, 64) for _ in range(g.rng.randint(3, 8))] + [g.s(B64, 40) + "=="]
    kind = g.pick(["", "RSA ", "EC ", "OPENSSH "])
    body = "\n".join(lines)
    form = g.pick(["(2/2)\n{b}\n{e}\n", "> {q}\n> {e}\n\nthanks", "{b}\n{e}"])
    end = f"-----END {kind}PRIVATE KEY-----"
    text = form.format(b=body, q=body.replace("\n", "\n> "), e=end)
    return text, lines[1]


def _jwt_dot_at_line_end(g: Gen) -> Made:
    alg = g.pick(["RSA-OAEP", "A256KW", "HS1", "custom"])
    head = base64.urlsafe_b64encode(json.dumps({"alg": alg}).encode()).decode().rstrip("=")
    body = base64.urlsafe_b64encode(json.dumps({"sub": g.digits(6)}).encode()).decode()
    signature = g.s(URLSAFE, 43)
    first = f"{head}.{body.rstrip('=')}."
    text = g.pick(["token:\n{f}\n{s}", "> {f}\n> {s}\n> thanks", "{f}\n{s}"])
    return text.format(f=first, s=signature), signature


#: Rule set 9's held-out shapes: context -> generator.
HELD_OUT: dict[str, Callable[[Gen], Made]] = {
    "sigv4-header": _sigv4,
    "stdin-password": _stdin_password,
    "har-cookie": _har_cookie,
    "pem-tail": _pem_tail,
    "jwt-dot-at-line-end": _jwt_dot_at_line_end,
}
