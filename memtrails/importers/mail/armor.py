"""OpenPGP armor in a mail's text: the signed words kept, the signature's base64 left out.

A clearsigned mail (RFC 4880, section 7) wraps its text in ``-----BEGIN PGP SIGNED
MESSAGE-----`` and a ``Hash:`` line, escapes its lines that start with a dash (``- --``), and
ends with a signature block of base64. Mailing-list archives are full of them (62 of the
Twisted list's April 2003 mails), and quoted again in every reply. The base64 means nothing
to a reader or to search, yet it is most of a short mail's words: a question of a few letters
found PGP signatures first. So the signature blocks, public key blocks and encrypted blocks
go (an encrypted one leaves a line that says so), the signed-message header goes, and the
escaped lines are read as written. A block is only cut whole: a BEGIN line without its END
line (a mail cut short, a line that quotes one) leaves the text as it is.
"""

from __future__ import annotations

import re

__all__ = ["unarmored"]

# An armor line, after any quote prefix ("> ", ">> ", "> > ").
_ARMOR = re.compile(r"^((?:> ?)*)-----(BEGIN|END) PGP ([A-Z ]{3,30}?)-----\s*$")
# What each block stands for in the text, None when it goes without a trace.
_LEFT = {
    "SIGNATURE": None,
    "PUBLIC KEY BLOCK": "(a PGP public key)",
    "MESSAGE": "(PGP-encrypted text)",
}
# The armor headers after "BEGIN PGP SIGNED MESSAGE" ("Hash: SHA1"), up to a blank line.
_HEADER = re.compile(r"^[A-Za-z][A-Za-z-]{0,30}: ")
_LONGEST_HEADERS = 8


def unarmored(text: str) -> str:
    """Return ``text`` without its OpenPGP armor: the signed words stay, blocks of base64 go.

    Example:
        >>> unarmored('''-----BEGIN PGP SIGNED MESSAGE-----
        ... Hash: SHA1
        ...
        ... - -- the plan stands
        ... -----BEGIN PGP SIGNATURE-----
        ...
        ... iD8DBQE+if4svVGR4uSOE2wRArcO
        ... =FtOD
        ... -----END PGP SIGNATURE-----''')
        '-- the plan stands'
    """
    if "-----BEGIN PGP " not in text:
        return text
    lines = text.split("\n")
    out: list[str] = []
    # The quote prefix of each signed message being read: its dash-escaped lines are unescaped.
    signed: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        m = _ARMOR.match(line)
        if m is not None and m.group(2) == "BEGIN":
            prefix, what = m.group(1), m.group(3)
            if what == "SIGNED MESSAGE":
                i = _after_headers(lines, i + 1, prefix)
                signed.append(prefix)
                continue
            end = _end_of(lines, i + 1, prefix, what)
            if end is not None and what in _LEFT:
                if signed and signed[-1] == prefix and what == "SIGNATURE":
                    signed.pop()
                if (left := _LEFT[what]) is not None:
                    out.append(prefix + left)
                i = end + 1
                continue
        if signed and line.startswith(signed[-1] + "- "):
            line = signed[-1] + line[len(signed[-1]) + 2 :]
        out.append(line)
        i += 1
    return "\n".join(out).strip("\n")


def _after_headers(lines: list[str], start: int, prefix: str) -> int:
    """The index of the first line of a signed message's text, past its armor headers."""
    i = start
    while i < len(lines) and i - start < _LONGEST_HEADERS:
        body = lines[i][len(prefix) :] if lines[i].startswith(prefix) else None
        if body is None or not _HEADER.match(body):
            break
        i += 1
    if i < len(lines) and lines[i].strip(" >") == "":
        i += 1  # the blank line that ends the headers
    return i


def _end_of(lines: list[str], start: int, prefix: str, what: str) -> int | None:
    """The index of the END line of a block begun before ``start``, None when there is none."""
    for j in range(start, len(lines)):
        m = _ARMOR.match(lines[j])
        if m is not None and m.group(1).replace(" ", "") == prefix.replace(" ", ""):
            if m.group(2) == "END" and m.group(3) == what:
                return j
            return None  # another armor line first: not this block's end
        if not lines[j].startswith(prefix.rstrip()):
            return None  # the quoted block ended without its END line
    return None
