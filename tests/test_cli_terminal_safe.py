"""What the command prints to a terminal: names and words from the inputs that hold escape
sequences, C1 controls or bidi overrides are shown escaped, never acted on by the terminal."""

from __future__ import annotations

import json
import re
from pathlib import Path

from click.testing import CliRunner

from memtrails.cli import main

# What a terminal acts on: C0 controls but tab and line end, DEL, C1, bidi overrides/isolates.
RAW = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
# A window title (OSC, which click leaves alone, unlike colours), a C1 CSI, a right-to-left
# override and a left-to-right isolate.
HOSTILE = "\x1b]0;owned\x07\x9b2J\u202eevil\u2066"
ESCAPED = "\\x1b]0;owned\\x07\\x9b2J\\u202eevil\\u2066"


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args), catch_exceptions=False)
    return result.exit_code, result.stdout, result.stderr


def test_a_skipped_file_and_a_source_are_named_escaped(tmp_path: Path) -> None:
    notes = tmp_path / f"notes{HOSTILE}"
    notes.mkdir()
    (notes / "tea.md").write_text("# Tea\n\nGreen tea at four.\n")
    (notes / f"photo{HOSTILE}.md").write_bytes(bytes(range(256)) * 4)  # binary: skipped
    code, out, err = run("add", str(notes), "--home", str(tmp_path / "home"))
    assert code == 0
    assert not RAW.search(out + err), (out + err).encode("unicode_escape")
    assert f"notes{ESCAPED}: read in full, 2 items" in out
    assert f"skipped: {tmp_path}/notes{ESCAPED} (photo{ESCAPED}.md): binary file" in err


def test_search_and_show_print_a_record_s_words_escaped(tmp_path: Path) -> None:
    rows = tmp_path / "rows.jsonl"
    record = {
        "id": "r1",
        "title": f"Tea plan {HOSTILE}",
        "text": f"green tea at four {HOSTILE} café 日本 עברית 🙂\nsecond line",
        "author": f"Ann{HOSTILE}",
    }
    rows.write_text(json.dumps(record) + "\n", encoding="utf-8")
    home = str(tmp_path / "home")
    assert run("add", str(rows), "--home", home)[0] == 0

    code, out, _ = run("search", "green tea at four", "--home", home)
    assert code == 0 and "id: r1" in out
    assert not RAW.search(out), out.encode("unicode_escape")
    assert f"Tea plan {ESCAPED}" in out and f"green tea at four {ESCAPED}" in out
    assert "café 日本 עברית 🙂" in out  # other text as it is

    code, out, _ = run("show", "r1", "--home", home)
    assert code == 0 and not RAW.search(out), out.encode("unicode_escape")
    assert f"title:  Tea plan {ESCAPED}" in out
    assert f"{ESCAPED} café 日本 עברית 🙂\nsecond line" in out  # the text keeps its lines

    # JSON is exact: the title as it was imported.
    code, out, _ = run("search", "green tea at four", "--home", home, "--json")
    assert code == 0 and json.loads(out)[0]["title"] == record["title"]


def test_an_error_quoting_a_file_s_name_prints_it_escaped(tmp_path: Path) -> None:
    odd = tmp_path / f"data{HOSTILE}.xyz"
    odd.write_bytes(bytes(range(256)))  # no kind memtrails reads
    code, out, err = run("add", str(odd), "--home", str(tmp_path / "home"))
    assert code == 1 and out == "" and not RAW.search(err), err.encode("unicode_escape")
    assert f"data{ESCAPED}.xyz: not a kind memtrails reads" in err
    code, out, _ = run("add", str(odd), "--home", str(tmp_path / "home"), "--json")
    assert code == 1 and json.loads(out)["error"].startswith(f"{odd}: not a kind")
