"""Every line the command prints of what came from outside (a typed value click quotes, a
name a file has, a repair that names a file, a search's filters) is safe on a terminal, and
a name holding the characters of an escape as they are (`\\x1b`, four characters) prints
apart from a name holding the character itself."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from memtrails import Memory
from memtrails.cli import main
from memtrails.cli._terminal import for_terminal
from memtrails.testing import HashingEmbedder

# What a terminal acts on: C0 controls but tab and line end, DEL, C1, bidi overrides/isolates.
RAW = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
# A window title (an OSC, which click leaves alone off a terminal too) and a bidi override.
HOSTILE = "\x1b]0;owned\x07\u202e"
LITERAL = "\\x1b]0;owned\\x07\\u202e"  # the same as plain characters: backslash, x, 1, b...


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args), catch_exceptions=False)
    return result.exit_code, result.stdout, result.stderr


def make_folder(home: Path) -> None:
    async def make() -> None:
        await (await Memory.open(home, embedder=HashingEmbedder())).aclose()

    asyncio.run(make())


@pytest.mark.parametrize(
    "args",
    [
        ["status", HOSTILE],  # "Got unexpected extra argument (...)"
        ["sources", HOSTILE],
        ["search", "tea", HOSTILE],
        ["watch", "list", HOSTILE],
        [HOSTILE],  # no such command
        ["check", f"--{HOSTILE}"],  # no such option
        ["search", "tea", "--since", HOSTILE],
    ],
    ids=[
        "extra-argument",
        "sources-extra",
        "search-extra",
        "group-extra",
        "command",
        "option",
        "since",
    ],
)
def test_click_s_usage_errors_quote_what_was_typed_escaped(tmp_path: Path, args: list[str]) -> None:
    code, out, err = run(*args, "--home", str(tmp_path / "home"))
    assert code == 2 and out == ""
    assert not RAW.search(err), err.encode("unicode_escape")
    assert "\\x1b]0;owned\\x07" in err  # the value is still shown, escaped
    assert "Traceback" not in err


def test_a_search_s_filters_are_echoed_escaped(tmp_path: Path) -> None:
    home = tmp_path / "home"
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "tea.md").write_text("# Tea\n\nGreen tea at four.\n")
    assert run("add", str(notes), "--home", str(home))[0] == 0
    code, out, err = run("search", "tea", "--kind", HOSTILE, "--home", str(home))
    assert code == 0, err
    assert not RAW.search(out + err), (out + err).encode("unicode_escape")
    assert "--kind \\x1b]0;owned\\x07\\u202e" in out


def test_a_repair_line_naming_a_file_is_escaped(tmp_path: Path) -> None:
    home = tmp_path / "home"
    make_folder(home)
    (home / f"stray{HOSTILE}").write_text("x")
    home.chmod(0o755)  # a folder opened wider than owner-only is tightened, and says what
    (home / f"stray{HOSTILE}").chmod(0o644)
    code, _, err = run("sources", "--home", str(home))
    assert code == 0, err
    assert "repaired: permissions tightened" in err
    assert not RAW.search(err), err.encode("unicode_escape")
    assert "stray\\x1b]0;owned\\x07\\u202e" in err


def test_a_name_holding_an_escape_s_characters_prints_apart_from_the_character(
    tmp_path: Path,
) -> None:
    """The error for a missing path quotes it: a path whose name holds `\\x1b` as four
    characters and one that holds ESC printed the same, `\\x1b`."""
    lines = []
    for name in (f"gone{HOSTILE}", f"gone{LITERAL}"):
        code, out, err = run("add", str(tmp_path / name), "--home", str(tmp_path / "home"))
        assert code == 1 and out == "" and not RAW.search(err), err.encode("unicode_escape")
        assert err.count("\n") == 1 and "no such file or folder" in err
        lines.append(err)
    assert lines[0] != lines[1]
    assert "gone\\x1b]0;owned" in lines[0] and "gone\\\\x1b]0;owned" in lines[1]


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("notes\x1b.md", "notes\\x1b.md"),
        ("notes\\x1b.md", "notes\\\\x1b.md"),  # reads as an escape: its backslash doubled
        ("notes\\u202e.md", "notes\\\\u202e.md"),
        ("a\\\\b", "a\\\\\\\\b"),  # two backslashes read as one escaped: four
        ("C:\\Users\\ann\\notes.md", "C:\\Users\\ann\\notes.md"),  # nothing escaped: as is
        ("C:\\Users\x1b", "C:\\\\Users\\x1b"),  # shown with escapes: every backslash doubled
        ("café 日本 עברית 🙂", "café 日本 עברית 🙂"),
    ],
    ids=["esc", "literal-x", "literal-u", "two-backslashes", "windows", "mixed", "scripts"],
)
def test_a_printed_name_reads_back_as_it_was(text: str, shown: str) -> None:
    assert for_terminal(text) == shown
    if shown != text:  # shown with escapes: read back as Python's, they give the name again
        assert shown.encode("latin-1", "backslashreplace").decode("unicode_escape") == text


def test_serve_s_and_mcp_s_warnings_are_escaped(capsys: pytest.CaptureFixture[str]) -> None:
    """`memtrails serve` logs a watched path it cannot watch, and a request that failed by
    its path (a client's words); `memtrails mcp` too, and the MCP SDK logs what it refused."""
    import logging

    from memtrails.cli._terminal import log_to_terminal

    loggers = [logging.getLogger("memtrails.service"), logging.getLogger("mcp.server")]
    log_to_terminal("memtrails", "mcp")
    try:
        for logger in loggers:
            logger.warning("not watching %s: %s", f"/notes{HOSTILE}", "gone")
    finally:
        for name in ("memtrails", "mcp"):
            for handler in logging.getLogger(name).handlers[:]:
                logging.getLogger(name).removeHandler(handler)
    err = capsys.readouterr().err
    assert not RAW.search(err), err.encode("unicode_escape")
    assert err.count("not watching /notes\\x1b]0;owned\\x07\\u202e: gone\n") == 2
