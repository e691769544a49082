"""Command-line flags that carry a password: which command each belongs to, and its value.

``mysql -pX``, ``sshpass -p X``, ``redis-cli -a X``, ``curl -u user:X``, ``smbclient -U
user%X``: a flag is a password only after a command that takes it that way, and the command
is the nearest one before the flag on its line.
"""

from __future__ import annotations

from typing import Final

from .passes import Spans, first_set, leftmost, text_of
from .values import is_placeholder

__all__ = ["COMMANDS", "Commands", "flag_of", "password_of"]

# Commands whose flag carries a password (groups: 1 a MySQL client's, 7-Zip's or RAR's glued -pX, 2
# a spaced -p X: sshpass, Azure's az, docker login, Sysinternals' PsExec and PAExec,
# CrackMapExec and NetExec, evil-winrm, smbmap, rdesktop, the MongoDB shells and tools; 3
# redis-cli's -a X; 4 HTTP clients' -u user:X; 5 smbclient's -U user%X; 6 the OpenLDAP
# clients' -w; 7 zip's, unzip's, sqlcmd's and bcp's -P; 8 any other tool's login
# subcommand's spaced -p X, "oc login", "cf login", "helm registry login", rule set 13:
# not a number, "login -p 8080"); the flag's spelling and spacing tell
# which. HTTPie's "http" and
# "https" count only before a space: in "http://host" they are an argument's scheme.
COMMANDS: Final = leftmost(
    r"\b(mysql|mysqldump|mysqladmin|mysqlimport|mysqlshow|mysqlcheck|mariadb"
    r"|mariadb-dump|7z|7za|7zr|7zz|unrar|rar)\b|\b(sshpass|az|docker[ \t]login|(?i:ps|pa)(?i:exec)(?:64)?(?:\.exe|\.py)?"
    r"|crackmapexec|netexec|nxc|evil-winrm|smbmap|rdesktop|mongo|mongosh|mongodump|mongorestore"
    r"|mongoexport|mongoimport|mongostat|mongotop)\b|\b(redis-cli)\b"
    r"|\b(curl|wget|httpie|https?[ \t])|\b(smbclient)\b"
    r"|\b(ldapsearch|ldapadd|ldapmodify|ldapdelete|ldappasswd|ldapwhoami|ldapcompare|ldapmodrdn)\b"
    r"|\b(zip|unzip|sqlcmd|bcp)\b"
    r"|\b([a-z][a-z0-9_-]{0,15}[ \t]+(?:registry[ \t]+)?login)\b"
)
_LONGEST_COMMAND: Final = 40  # bytes: no command word is longer ("helm registry login")
# The flags each group of COMMANDS takes a password with.
_TAKES: Final = {
    1: (b"-p",),
    2: (b"-p",),
    3: (b"-a",),
    4: (b"-u", b"--user", b"-a", b"--auth"),  # HTTPie's -a/--auth user:password
    5: (b"-U",),
    6: (b"-w",),  # the OpenLDAP clients' -w PASSWORD
    7: (b"-P",),  # zip's and unzip's -P PASSWORD, sqlcmd's and bcp's -P PASSWORD
    8: (b"-p",),  # oc login -u NAME -p PASSWORD
}
_STRETCHES: Final = 4096  # different stretches remembered per text


class Commands:
    """The command words of one text's lines (see COMMANDS), for its command-line flags.

    A flag belongs to the nearest command before it on its line. Flags come in order, so each
    stretch of a line is searched once, whatever the number of flags on it: looking back from
    each flag made a long line of flags after one command quadratic. A stretch seen before
    (the same bytes between two flags) is not searched again.
    """

    __slots__ = ("at", "buf", "known", "line", "next_at", "next_from", "rejected", "seen", "word")

    def __init__(self, buf: bytes) -> None:
        self.buf = buf
        self.line = 0  # the start of the line being read
        self.seen = 0  # how far that line has been searched
        self.word = 0  # the group of COMMANDS of the last command in [line, seen); 0: none
        # a stretch (and a byte each side) -> its last word and where that starts in it
        self.known: dict[bytes, tuple[int, int]] = {}
        self.at = -1  # where the current command starts
        self.rejected = -2  # the command (its start) under which a flag was last rejected
        self.next_from = self.next_at = 0  # after next_from, the next command or line break

    def before(self, fs: int) -> int:
        """Return which command (a group of COMMANDS) is the nearest before ``fs`` on its
        line; 0 when none is."""
        buf = self.buf
        if fs < self.seen:  # a flag before the last one (not in one scan): start the line over
            self.line = self.seen = buf.rfind(b"\n", 0, fs) + 1
            self.word, self.at = 0, -1
        newline = buf.rfind(b"\n", self.seen, fs)
        if newline >= 0:
            self.line = self.seen = newline + 1
            self.word, self.at = 0, -1
        # A word that ends past what was searched starts at most its length before it.
        pos = max(self.seen - _LONGEST_COMMAND, self.line)
        self.seen = fs
        stretch = buf[pos - 1 if pos else 0 : fs + 1] if fs - pos <= 256 else None
        found = self.known.get(stretch) if stretch is not None else None
        if found is None:
            word, at, start = 0, -1, pos
            while (m := COMMANDS(buf, start, fs)) is not None:
                word = next(n for n in range(1, len(m)) if m[n][0] >= 0)
                at, start = m[0][0] - pos, m[0][1]
            found = word, at
            if stretch is not None and len(self.known) < _STRETCHES:
                self.known[stretch] = found
        if found[0]:
            self.word, self.at = found[0], pos + found[1]
        return self.word

    def skip(self, pos: int, since: int) -> int:
        """Return how far the scan for flags can jump from ``pos``, after a second flag the
        current command did not take (its match starting at ``since``): up to the next flag
        that command takes, the next command word (one inside the rejected flag's value
        counts: "curl -u mysql -pX") or the line's end. (Only flags scan in their pass, so
        nothing else is jumped over.) The first rejection under a command returns ``pos``: a
        line of commands each with one flag is not worth the search."""
        if self.rejected != self.at:
            self.rejected = self.at
            return pos
        buf = self.buf
        if not self.next_from <= since < self.next_at:
            m = COMMANDS(buf, since, len(buf))
            upto = len(buf) if m is None else m[0][0]
            newline = buf.find(b"\n", since, upto)
            self.next_from, self.next_at = since, upto if newline < 0 else newline
        target = self.next_at
        for flag in _TAKES[self.word]:
            i = buf.find(flag, pos, target)
            if i >= 0:
                while i > pos and buf[i - 1] == 45:  # "-u" inside "--user": back to its start
                    i -= 1
                target = i - 1  # the flag's match starts at the blank before it
        return max(target, pos)


def flag_of(sp: Spans | tuple[tuple[int, int], ...], g: dict[str, int]) -> tuple[int, int]:
    """Return the span of a command-line match's flag (``-p``/``-a``, or ``-u``/``-U``)."""
    flag = sp[g["flag"]]
    return flag if flag[0] >= 0 else sp[g["uflag"]]


def password_of(
    buf: bytes, sp: Spans, g: dict[str, int], word: int
) -> tuple[tuple[int, int] | None, int, bool]:
    """Return the span of the password of one ``-p``/``-a``/``-u``/``-U`` flag when its
    command (``word``, the nearest before it on its line: :meth:`Commands.before`; 0 for
    none) takes one (else None), and where to resume: up to the next command on the line
    when there is none before the flag, so that a line of flags without a command costs one
    search, not one per flag. The last value tells whether the check read no more than the
    flag's match and its command (not the rest of the line)."""
    vs, ve, _ = first_set(sp, g, ("vsq", "vdq", "vbare", "usq", "udq", "ubare"))
    fs, fe = flag_of(sp, g)
    flag = buf[fs:fe]
    gap = sp[g["gap"]] if sp[g["gap"]][0] >= 0 else sp[g["ugap"]]
    glued = gap[0] == gap[1]
    if not word:
        # "ls -a", "tar -p x": no command before it on its line, nor before the next flags up
        # to the next command word; this rule's pass holds no other rule to skip.
        line_end = buf.find(b"\n", fs)
        line_end = len(buf) if line_end < 0 else line_end
        later = COMMANDS(buf, fs, line_end)
        return None, line_end if later is None else max(later[0][0], ve), False
    if flag == b"-p":
        equals = buf[gap[0] : gap[1]] == b"="
        ok = word == (1 if glued or equals else 2)
        # A tool's login: a password, no port ("login -p 8080").
        ok = ok or (word == 8 and not glued and not equals and not buf[vs:ve].isdigit())
        if ok and equals:
            vs = gap[0]  # mysql's "-p=" and more: the password starts with its "="
    elif flag == b"-a" and word != 4:
        ok = word == 3 and not glued
    elif flag in (b"-w", b"-P"):
        ok = word == (6 if flag == b"-w" else 7) and not glued
    elif flag == b"-U":  # smbclient -U user%password
        cut = buf.find(b"%", vs, ve)
        ok = word == 5 and cut >= 0
        vs = cut + 1 if cut >= 0 else vs
    else:  # -u / --user / HTTPie's -a, --auth: user:password
        colon = buf.find(b":", vs, ve)
        ok = word == 4 and colon >= 0
        vs = colon + 1 if colon >= 0 else vs
        if ve - vs >= 2 and buf[vs] in b"'\"" and buf[ve - 1] == buf[vs]:
            vs, ve = vs + 1, ve - 1  # user:'password', the shell's quotes around it
    if ok and ve - vs >= 3 and not is_placeholder(text_of(buf, vs, ve)):
        return (vs, ve), ve, True
    return None, ve, True
