"""`memtrails add` given several inputs, some of no kind it reads: those are one error each,
named with what fixes them, and the others are imported."""

from __future__ import annotations

import bz2
import gzip
import json
import lzma
from pathlib import Path

from click.testing import CliRunner

from memtrails.cli import main


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args), catch_exceptions=False)
    return result.exit_code, result.stdout, result.stderr


def _mbox(*subjects: str) -> bytes:
    out = b""
    for n, subject in enumerate(subjects):
        out += (
            f"From s{n}@example.com Tue Apr  1 12:21:37 2003\nFrom: s{n}@example.com\n"
            f"Subject: {subject}\nMessage-ID: <{subject.replace(' ', '-')}@example.com>\n\n"
            f"about {subject}\n\n"
        ).encode()
    return out


def _inputs(tmp_path: Path) -> dict[str, Path]:
    """Compressed inputs whose names do not say their kind, and two that are of none."""
    files = {
        # recognisable once decompressed
        "data.gz": gzip.compress(b'{"id": "j1", "text": "otters hold hands"}\n'),
        "dump.bz2": bz2.compress(_mbox("harbour crane", "regatta")),
        "x.xz": lzma.compress(
            b"From: ann@example.com\nTo: bob@example.com\nSubject: tea at four\n"
            b"Message-ID: <tea@example.com>\nDate: Tue, 1 Apr 2025 10:00:00 +0000\n\nGreen tea.\n"
        ),
        # of no kind: binary inside gzip, and zstd (which memtrails does not unpack)
        "photos.gz": gzip.compress(bytes(range(256)) * 64),
        "export.zst": b"\x28\xb5\x2f\xfd\x24\x05\x29\x00\x00hello",
    }
    for name, data in files.items():
        (tmp_path / name).write_bytes(data)
    return {name: tmp_path / name for name in files}


def test_an_input_of_no_kind_is_one_error_and_the_others_are_imported(tmp_path: Path) -> None:
    paths = _inputs(tmp_path)
    home = str(tmp_path / "home")
    code, out, err = run("add", *map(str, paths.values()), "--home", home, "--json")
    assert code == 0, err
    report = json.loads(out)
    # 1 JSON line, 2 mbox messages, 1 saved message: each kind told from what it holds
    assert (report["added"], report["skipped"]) == (4, 2)
    read = {Path(s["source"]).name: s["read"] for s in report["sources"]}
    assert read == {"data.gz": 1, "dump.bz2": 2, "x.xz": 1}
    by_file = {e["where"]: e for e in report["errors"]}
    assert set(by_file) == {str(paths["photos.gz"]), str(paths["export.zst"])}
    photos = by_file[str(paths["photos.gz"])]
    assert Path(photos["source"]).name == "photos.gz"
    assert "not a kind memtrails reads" in photos["reason"] and "--kind" in photos["reason"]
    assert "gzip" in photos["reason"] and "binary" in photos["reason"]
    zst = by_file[str(paths["export.zst"])]["reason"]
    assert "zstd" in zst and "unpack it first" in zst

    code, out, _ = run("search", "otters", "--home", home, "--json", "--k", "1")
    assert code == 0 and json.loads(out)[0]["id"] == "j1"


def test_the_summary_counts_and_names_an_input_of_no_kind(tmp_path: Path) -> None:
    paths = _inputs(tmp_path)
    code, out, err = run(
        "add", str(paths["data.gz"]), str(paths["photos.gz"]), "--home", str(tmp_path / "h")
    )
    assert code == 0, err
    assert out.startswith("added 1, updated 0, unchanged 0, skipped 1, removed 0 in ")
    assert f"skipped: {paths['photos.gz']} ({paths['photos.gz']}): not a kind" in err


def test_kind_reads_the_compressed_file_the_error_named(tmp_path: Path) -> None:
    odd = tmp_path / "archive.gz"  # an mbox after a line of prose: not told from its start
    odd.write_bytes(gzip.compress(b"Archived list mail, 2003.\n" + _mbox("first", "second")))
    note = tmp_path / "note.md"
    note.write_text("# Note\n\nA note beside the archive.\n", encoding="utf-8")
    home = str(tmp_path / "home")
    code, out, _ = run("add", str(odd), str(note), "--home", home, "--json")
    (error,) = json.loads(out)["errors"]
    assert code == 0 and error["where"] == str(odd) and "--kind" in error["reason"]
    code, out, _ = run("add", str(odd), "--kind", "mbox", "--home", home, "--json")
    assert code == 0 and json.loads(out)["added"] == 2


def test_a_damaged_or_missing_input_does_not_stop_the_others(tmp_path: Path) -> None:
    good = tmp_path / "good.jsonl"
    good.write_text('{"id": "g", "text": "kept"}\n')
    cut = tmp_path / "cut.gz"
    cut.write_bytes(gzip.compress(b'{"id": "c", "text": "lost"}\n')[:6])  # cut in its header
    loop = tmp_path / "loop"
    loop.symlink_to(loop)
    args = [str(cut), str(good), str(loop), str(tmp_path / "missing.mbox")]
    code, out, err = run("add", *args, "--home", str(tmp_path / "h"), "--json")
    assert code == 0, err
    report = json.loads(out)
    reasons = {Path(e["where"]).name: e["reason"] for e in report["errors"]}
    assert (report["added"], report["skipped"]) == (1, 3)
    assert "cut short" in reasons["cut.gz"]
    assert "loops" in reasons["loop"]
    assert "no such file" in reasons["missing.mbox"]


def test_when_no_input_can_be_read_the_command_fails_naming_each(tmp_path: Path) -> None:
    paths = _inputs(tmp_path)
    home = tmp_path / "home"
    code, _, err = run(
        "add", str(paths["photos.gz"]), str(paths["export.zst"]), "--home", str(home)
    )
    assert code == 1
    assert "photos.gz" in err and "export.zst" in err and len(err.strip().splitlines()) == 1
    assert not home.exists()  # failed before a memory folder was made


def test_a_kind_that_cannot_read_an_input_is_that_inputs_error(tmp_path: Path) -> None:
    good = tmp_path / "good.jsonl"
    good.write_text('{"id": "g", "text": "kept"}\n')
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "a.md").write_text("# A\n")
    home = str(tmp_path / "h")
    args = [str(good), str(folder), str(tmp_path / "gone.jsonl"), "--kind", "jsonl"]
    code, out, err = run("add", *args, "--home", home, "--json")
    assert code == 0, err
    report = json.loads(out)
    reasons = {Path(e["where"]).name: e["reason"] for e in report["errors"]}
    assert report["added"] == 1 and set(reasons) == {"notes", "gone.jsonl"}
    assert reasons["notes"].startswith("is a folder; --kind jsonl reads a file")
    assert reasons["gone.jsonl"] == "no such file or folder"
    code, _, err = run("add", str(good), "--kind", "maildir", "--home", home)
    assert code == 1 and "good.jsonl: is a file; --kind maildir reads a folder" in err


def test_many_inputs_of_no_kind_fail_in_one_short_line(tmp_path: Path) -> None:
    paths = []
    for n in range(300):
        path = tmp_path / f"blob{n}.bin"
        path.write_bytes(b"\x00\x01\x02" * 10)
        paths.append(str(path))
    code, _, err = run("add", *paths, "--home", str(tmp_path / "home"))
    (line,) = err.strip().splitlines()
    assert code == 1 and "blob0.bin" in line and "blob1.bin" in line
    assert "blob299.bin" not in line and len(line) < 3000


def test_a_git_path_among_inputs_none_can_read_is_named_as_given(tmp_path: Path) -> None:
    # The service named it so; `add` named it "git:" and its resolved path, as no other
    # input of the line is named.
    blob = tmp_path / "blob.bin"
    blob.write_bytes(b"\x00\x01\x02" * 10)
    plain = tmp_path / "plain"
    plain.mkdir()
    code, _, err = run("add", str(blob), "--git", str(plain), "--home", str(tmp_path / "home"))
    (line,) = err.strip().splitlines()
    assert code == 1 and line.endswith(f"(and 1 more: {plain}: not a git repository)"), line
    assert not (tmp_path / "home").exists()
