"""`memtrails serve --print-systemd-unit`: systemd reads back the folder's path as given.

The unit is parsed here by systemd's own rules (a line ending in a backslash goes on, every
value has its %-specifiers expanded, ExecStart= is split into words with quotes removed and
C escapes decoded, and $NAME is expanded in its arguments), and the --home word must come
back as the path's very bytes, with no setting added beside it.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from memtrails.service.unit import systemd_unit

MEMTRAILS = str(Path(sys.executable).parent / "memtrails")

_SIMPLE = {"a": 7, "b": 8, "f": 12, "n": 10, "r": 13, "t": 9, "v": 11, "\\": 92, '"': 34}
_SIMPLE |= {"'": 39, "s": 32}


def _unescape_one(text: str, i: int) -> tuple[bytes, int]:
    """systemd's cunescape_one: the escape after the backslash at text[i - 1]."""
    c = text[i]
    if c in _SIMPLE:
        return bytes([_SIMPLE[c]]), i + 1
    if c == "x":
        value = int(text[i + 1 : i + 3], 16)
        assert value != 0
        return bytes([value]), i + 3
    if c in "uU":
        width = 4 if c == "u" else 8
        return chr(int(text[i + 1 : i + 1 + width], 16)).encode(), i + 1 + width
    if c in "01234567":
        return bytes([int(text[i : i + 3], 8)]), i + 3
    raise AssertionError(f"systemd ignores the unknown escape \\{c} (it keeps the backslash)")


def _words(value: str) -> list[bytes]:
    """systemd's extract_first_word(EXTRACT_UNQUOTE | EXTRACT_CUNESCAPE), over a whole line."""
    words: list[bytes] = []
    i, n = 0, len(value)
    while True:
        while i < n and value[i] in " \t\n\r":
            i += 1
        if i == n:
            return words
        word, quote = b"", ""
        while i < n:
            c = value[i]
            if c == "\\":
                piece, i = _unescape_one(value, i + 1)
                word += piece
                continue
            if quote:
                i += 1
                if c == quote:
                    quote = ""
                else:
                    word += c.encode()
                continue
            if c in "\"'":
                quote, i = c, i + 1
            elif c in " \t\n\r":
                break
            else:
                word, i = word + c.encode(), i + 1
        assert not quote, "unbalanced quoting: systemd ignores the whole setting"
        words.append(word)


def _specifiers(value: str) -> str:
    """Every value's %-specifiers: here only %% may appear (it is one %)."""
    out, i = "", 0
    while i < len(value):
        if value[i] == "%":
            assert value[i + 1 : i + 2] == "%", f"a specifier %{value[i + 1 : i + 2]} expands"
            out, i = out + "%", i + 2
        else:
            out, i = out + value[i], i + 1
    return out


def _dollars(word: bytes) -> bytes:
    """The expansion of $NAME and ${NAME} in an argument: here only $$ may appear (one $)."""
    out, i = b"", 0
    while i < len(word):
        if word[i : i + 1] == b"$":
            assert word[i + 1 : i + 2] == b"$", f"{word!r} expands a variable"
            out, i = out + b"$", i + 2
        else:
            out, i = out + word[i : i + 1], i + 1
    return out


def _settings(unit: str) -> list[tuple[str, str, str]]:
    """(section, key, value) for each setting, lines joined where one ends in a backslash."""
    settings: list[tuple[str, str, str]] = []
    section, lines = "", unit.split("\n")
    while lines:
        line = lines.pop(0)
        while line.endswith("\\") and lines:
            line = line[:-1] + " " + lines.pop(0)
        if not line.strip() or line.startswith(("#", ";")):
            continue
        if line.startswith("["):
            section = line
            continue
        key, sep, value = line.partition("=")
        assert sep, f"a line that is no setting: {line!r}"
        settings.append((section, key.strip(), value.strip()))
    return settings


def _home_read_back(unit: str) -> bytes:
    settings = _settings(unit)
    assert [(s, k) for s, k, _ in settings] == [
        ("[Unit]", "Description"),
        ("[Service]", "ExecStart"),
        ("[Service]", "Restart"),
        ("[Service]", "KillSignal"),
        ("[Service]", "TimeoutStopSec"),
        ("[Install]", "WantedBy"),
    ]
    _specifiers(settings[0][2])  # the description expands no specifier
    words = _words(_specifiers(settings[1][2]))
    program, args = words[0], [_dollars(w) for w in words[1:]]
    assert program == os.fsencode(sys.executable)
    assert args[:3] == [b"-m", b"memtrails.cli", b"serve"]
    assert args[args.index(b"--port") + 1] == b"8765"
    return args[args.index(b"--home") + 1]


NAMES = [
    "plain",
    "two words",
    "100% done %h %i %%",
    "$HOME ${HOME} $$ $",
    'it\'s "quoted"',
    "back\\slash\\",
    "line\nExecStartPre=/bin/rm -rf ~\n[Service]\nUser=root",
    "ends with a backslash\\",
    "tab\there\rcarriage",
    "semi ; colon",
    ";",
    "résumé 東京",
    "sep\u2028arated\u00a0space\u202eright to left",
    "#not a comment",
    "\\x1b not an escape \\n",
]


@pytest.mark.parametrize("name", NAMES, ids=range(len(NAMES)))
def test_the_unit_reads_back_the_folder_path(tmp_path: Path, name: str) -> None:
    home = tmp_path / name / "memory"
    unit = systemd_unit(home, 8765, ["--host", "0.0.0.0 $X", "--allow-remote"])
    assert _home_read_back(unit) == os.fsencode(str(home))
    assert "\x1b" not in unit and "\r" not in unit and "\u2028" not in unit


def test_the_printed_unit_reads_back_a_path_that_is_not_utf8(tmp_path: Path) -> None:
    home = os.fsencode(str(tmp_path)) + b"/caf\xe9 %h $HOME\nUser=root/m"
    printed = subprocess.run(
        [MEMTRAILS.encode(), b"serve", b"--home", home, b"--print-systemd-unit"],
        capture_output=True, check=True,
    )  # fmt: skip
    unit = printed.stdout.decode()  # the unit is UTF-8, whatever the path holds
    assert _home_read_back(unit) == home
    assert not (Path(os.fsdecode(home)) / "manifest.json").exists()


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="no systemd-analyze here")
def test_systemd_finds_nothing_wrong_in_the_unit(tmp_path: Path) -> None:
    home = tmp_path / 'a b\n%h $HOME "q" \\ é' / "memory"
    (tmp_path / "memtrails.service").write_text(systemd_unit(home, 8765), encoding="utf-8")
    verified = subprocess.run(
        ["systemd-analyze", "verify", "--man=no", str(tmp_path / "memtrails.service")],
        capture_output=True, text=True,
    )  # fmt: skip
    said = verified.stdout + verified.stderr
    for complaint in ("escape", "quoting", "Unknown key", "Missing '='", "bad unit file"):
        assert complaint not in said
