"""Passwords a shell hands to a command: piped to its standard input, fed by a here-string or
a here-document, read into a variable (rule set 9)."""

from __future__ import annotations

from typing import Final

from .pieces import value_of_class
from .rule import Rule

__all__ = ["SHELL_RULES"]

# What a password piped or fed to a command looks like: quoted (3+ characters) or a bare word
# (6+, not a variable, a flag or a path).
_PIPED_SQ = value_of_class(r"'\r\n", 3)
_PIPED_DQ = value_of_class(r"\"\r\n", 3)
_PIPED_BARE = value_of_class(r"\s'\"|;&<>()`", 6, not_first=r"\-/")
# AUTH's password ends its line (a Redis prompt's, a script's): a shell's "&", "|", ";" or
# ">" inside it is no operator there (rule set 16: "AUTH Meteor89&TFC5").
_LINE_BARE = value_of_class(r"\s'\"`", 6, not_first=r"\-/")
# Base64 credentials of SMTP's AUTH: its alphabet, 4+ characters.
_SMTP_B64 = r"[A-Za-z0-9+/]{4,}={0,2}"
# Commands that read a password from their standard input: sudo -S (--stdin), passwd
# --stdin, kinit, a registry client's login --password-stdin, and more (below).
_STDIN_SINK = (
    r"(?:\bsudo(?:[ \t]+[^\s|;&<>]+){0,6}?[ \t]+(?:-[A-Za-z]*S[A-Za-z]*|--stdin)"
    r"|\bpasswd(?:[ \t]+[^\s|;&<>]+){0,3}?[ \t]+--stdin|\bkinit\b"
    r"|\b(?:docker|podman|buildah|nerdctl|helm[ \t]+registry|oras|skopeo|crane|cosign)[ \t]+login"
    r"(?:[ \t]+[^\s|;&<>]+){0,8}?[ \t]+--password-stdin"
    # rule set 10: htpasswd -i (the password from stdin), a swarm's or podman's secret made
    # from stdin ("docker secret create NAME -"), gh's login --with-token.
    r"|\bhtpasswd(?:[ \t]+[^\s|;&<>]+){0,4}?[ \t]+-[A-Za-z]*i[A-Za-z]*"
    r"|\b(?:docker|podman)[ \t]+secret[ \t]+create[ \t]+[^\s|;&<>]+[ \t]+-"
    r"|\bgh[ \t]+auth[ \t]+login(?:[ \t]+[^\s|;&<>]+){0,4}?[ \t]+--with-token)"
    r"(?:[ \t;&|)]|\r?\n|\z)"
)
# A shell variable named like a password or a token (read -r DB_PASSWORD <<< ...).
_SECRET_VAR = (
    r"[A-Za-z_]*(?i:passw(?:or)?d|pass|pwd|pw|secret|token|api_?key|passphrase)[A-Za-z0-9_]*"
)


SHELL_RULES: Final[tuple[Rule, ...]] = (
    # Passwords in a fixed place on a command line: Java's keytool and jarsigner
    # (-storepass X, -keypass X, -srcstorepass, -deststorepass, -new X), rabbitmqctl add_user
    # USER X and change_password USER X, sshpass -e's SSHPASS=X, Redis' AUTH [USER] X and
    # SMTP's AUTH PLAIN X (upper case, first on its line, or after redis-cli or a Redis
    # prompt: PAM's "auth required" and a server's "250-AUTH PLAIN LOGIN" stay), net use ...
    # /user:NAME X, expect's send "X" after a password prompt; Redis MONITOR's quoted
    # '"AUTH" "X"'.
    Rule(
        "placed_password",
        "password",
        rf"(?:^|[ \t])-(?:src|dest)?(?:store|key)pass[ \t]+(?:'(?P<v>{_PIPED_SQ})'|\"(?P<v2>{_PIPED_DQ})\""
        rf"|(?P<v3>{_PIPED_BARE}))"
        rf"|\brabbitmqctl[ \t]+(?:add_user|change_password)[ \t]+[^\s]+[ \t]+['\"]?(?P<v4>{_PIPED_BARE})"
        rf"|\bSSHPASS=['\"]?(?P<v5>{_PIPED_BARE})",
        "headers",
        "url",
    ),
    Rule(
        "auth_command",
        "password",
        rf"(?:(?:^|\n)[ \t]*(?:C:[ \t]*)?AUTH|(?:\bredis-cli\b[^\r\n]{{0,200}}?[ \t]|[0-9]>[ \t]*)(?i:auth))[ \t]+"
        rf"(?:[A-Za-z0-9_.@-]{{1,64}}[ \t]+)?(?P<v>{_LINE_BARE})[ \t]*(?:\r?\n|\z)"
        # Redis' MONITOR log and slowlog: each argument quoted, '"AUTH" ["user"] "X"' (rule
        # set 15); quotes inside escaped.
        r"|\"(?i:auth)\"[ \t]+(?:\"[A-Za-z0-9_.@-]{1,64}\"[ \t]+)?"
        r"\"(?P<v5>(?:[^\"\\\r\n]|\\.){6,256})\"(?:[ \t]*(?:\r?\n|\z))"
        rf"|\bnet[ \t]+use[ \t][^\r\n]{{0,200}}?/user:[^\s]+[ \t]+(?P<v2>[^\s/*\"][^\s]{{5,}})"
        r"|\bexpect[ \t]+(?:-[a-z]+[ \t]+)?\"[^\"\r\n]{0,40}(?i:assword|passphrase)[^\"\r\n]{0,40}\""
        r"[ \t]*\r?\n[ \t]*send[ \t]+(?:--[ \t]+)?\"(?P<v3>[^\"\\\r\n$]{3,})(?:\\r|\\n)?\""
        # SMTP's and IMAP's AUTH with its credentials in base64 anywhere on a line (a quoted
        # transcript, smtplib's "send: 'AUTH PLAIN ...\r\n'"), and the line a client answers
        # the AUTH LOGIN prompt "334 UGFzc3dvcmQ6" ("Password:") with (rule set 10). Its group
        # is the url check's "vm": both cases (not "AUTH PLAIN capability").
        r"|\b(?i:auth(?:enticate)?)[ \t]+(?i:plain|login|x?oauth2?|oauthbearer)[ \t]+"
        r"(?P<vm>[A-Za-z0-9+/]{8,}={0,2})(?:[^A-Za-z0-9+/=_-]|\z)"
        r"|\b334[ \t]+UGFzc3dvcmQ6[^\r\n]{0,12}\r?\n[ \t>]*(?:C:|\[C\]|C>|send:)?[ \t]*b?['\"]?"
        rf"(?P<v4>{_SMTP_B64})(?:\\r\\n)?['\"]?[ \t]*(?:\r?\n|\z)",
        "headers",
        "url",
    ),
    # A password piped into a command that reads it from its standard input: echo 'X' |
    # sudo -S, printf '%s\n' X | passwd --stdin, echo X | docker login --password-stdin,
    # echo 'user:X' | chpasswd (the part after the colon).
    Rule(
        "stdin_password",
        "password",
        rf"\b(?:echo|printf)(?:[ \t]+-[neE]{{1,3}})?(?:[ \t]+(?:'%s(?:\\n)?'|\"%s(?:\\n)?\"))?[ \t]+"
        rf"(?:'(?P<v>{_PIPED_SQ})'|\"(?P<v2>{_PIPED_DQ})\"|(?P<v3>{_PIPED_BARE}))[ \t]*\|[ \t]*"
        rf"{_STDIN_SINK}"
        r"|\b(?:echo|printf)[ \t]+['\"]?[A-Za-z0-9_.-]{1,32}:(?P<v4>[^\s'\":]{3,})['\"]?[ \t]*\|[ \t]*"
        r"(?:sudo[ \t]+)?chpasswd\b",
        "headers",
        "url",
    ),
    # A password fed by a here-string or a here-document to a command that reads it from its
    # standard input (sudo -S CMD <<< 'X', passwd USER <<EOF then X), by a here-string to
    # read into a password's variable (read -r DB_PASSWORD <<< "X"), or by a here-string or
    # echo inside a command substitution right after a password flag (mysql -p"$(cat <<< 'X')").
    Rule(
        "here_password",
        "password",
        rf"(?:{_STDIN_SINK}|\bpasswd\b)[^\r\n<|;&]{{0,80}}<<<[ \t]*"
        rf"(?:'(?P<v>{_PIPED_SQ})'|\"(?P<v2>{_PIPED_DQ})\"|(?P<v3>{_PIPED_BARE}))"
        rf"|(?:{_STDIN_SINK}|\bpasswd\b)[^\r\n<|;&]{{0,80}}<<-?[ \t]*(?:'[A-Za-z_]+'|\"[A-Za-z_]+\"|[A-Za-z_]+)"
        r"[ \t]*\r?\n[ \t]*(?P<v4>[^\s'\"][^\r\n]{2,})\r?\n",
        "headers",
        "url",
    ),
    Rule(
        "fed_password",
        "password",
        rf"\bread(?:[ \t]+-[A-Za-z]+)*[ \t]+{_SECRET_VAR}[ \t]*<<<[ \t]*"
        rf"(?:'(?P<v>{_PIPED_SQ})'|\"(?P<v2>{_PIPED_DQ})\"|(?P<v3>{_PIPED_BARE}))"
        r"|(?:[ \t]-p|--password=?|PASSWORD=)[\"']?\$\([ \t]*(?:cat[ \t]*<<<|echo|printf[ \t]+'?%s'?)[ \t]*"
        rf"(?:'(?P<v4>{_PIPED_SQ})'|\"?(?P<v5>[^\s'\"()`$][^\s'\"()`]{{2,}})\"?)[ \t]*\)",
        "headers",
        "url",
    ),
)
