"""Sources as first-class: list, show, forget --source, prune a vanished path; filters as
a person writes them; --json on failure; Ctrl-C."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from memtrails.cli import main
from memtrails.folder.search import snippet_of
from memtrails.periods import bounds

ROOT = Path(__file__).resolve().parents[1]


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args), catch_exceptions=False)
    return result.exit_code, result.stdout, result.stderr


def _rows(path: Path, rows: Sequence[Mapping[str, object]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


@pytest.fixture
def folder(tmp_path: Path) -> tuple[str, Path]:
    home = str(tmp_path / "home")
    notes = _rows(
        tmp_path / "notes.jsonl",
        [
            {"id": "n1", "text": "the boiler was serviced", "at": "2005-12-20T18:30:00Z"},
            {"id": "n2", "text": "the boiler broke again", "at": 1135123200},  # 2005-12-21
            {
                "id": "n3",
                "text": "boiler replaced",
                "at": "2006-01-05",
                "author": "Ann Lee <ann@x.org>",
            },
        ],
    )
    assert run("add", str(notes), "--home", home)[0] == 0
    return home, notes


def test_sources_lists_counts_last_run_and_position(folder: tuple[str, Path]) -> None:
    home, notes = folder
    code, out, _ = run("sources", "--home", home, "--json")
    assert code == 0
    [listed] = json.loads(out)["sources"]
    assert listed["source"] == str(notes.resolve()) and listed["records"] == 3
    assert listed["last_run"].startswith(str(datetime.now(UTC).year))
    assert listed["position"]["offset"] == notes.stat().st_size
    code, out, _ = run("sources", "--home", home)
    assert code == 0 and "byte" in out and str(notes.resolve()) in out


def test_show_prints_the_record_whole(folder: tuple[str, Path]) -> None:
    home, notes = folder
    code, out, _ = run("show", "n3", "--home", home, "--json")
    record = json.loads(out)
    assert (
        code == 0
        and record["text"] == "boiler replaced"
        and record["author"] == "Ann Lee <ann@x.org>"
    )
    assert record["source"] == str(notes.resolve()) and len(record["uid"]) == 32
    code, out, _ = run("show", "n3", "--home", home, "--source", "notes.jsonl")
    assert (
        code == 0
        and "author: Ann Lee <ann@x.org>" in out
        and out.rstrip().endswith("boiler replaced")
    )
    code, _, err = run("show", "nope", "--home", home)
    assert code == 1 and "no record with id 'nope'" in err


@pytest.mark.slow
def test_since_until_take_whole_days_and_a_basename_names_the_source(
    folder: tuple[str, Path],
) -> None:
    home, _ = folder

    def ids(*args: str) -> set[str]:
        code, out, err = run("search", "boiler", "--home", home, "--json", *args)
        assert code == 0, err
        return {hit["id"] for hit in json.loads(out)}

    assert ids("--since", "2005-12-20", "--until", "2005-12-20") == {"n1"}
    assert ids("--since", "2005-12", "--until", "2005-12") == {"n1", "n2"}  # seconds, not 1970
    assert ids("--since", "2006", "--source", "notes.jsonl") == {"n3"}
    code, _, err = run("search", "boiler", "--home", home, "--source", "other.jsonl")
    assert code == 1 and "no source matches 'other.jsonl'" in err
    code, _, err = run("search", "boiler", "--home", home, "--since", "the other day-ish")
    assert code == 2 and "yesterday" in err and "2 weeks ago" in err


def test_relative_dates_name_periods() -> None:
    now = datetime(2026, 12, 1, 15, 0, tzinfo=UTC)
    since, until = bounds("yesterday", "yesterday", now)
    assert since is not None and until is not None
    assert (since.iso(), until.iso()) == ("2026-11-30T00:00:00.000Z", "2026-11-30T23:59:59.999Z")
    since, _ = bounds("2 weeks ago", None, now)
    assert since is not None and since.iso() == "2026-11-17T00:00:00.000Z"
    _, until = bounds(None, "2024-05", now)
    assert until is not None and until.iso() == "2024-05-31T23:59:59.999Z"
    # A range that holds no instant is named, not searched to "no match".
    with pytest.raises(ValueError, match="--since 'tomorrow' begins after --until 'yesterday'"):
        bounds("tomorrow", "yesterday", now)


def test_a_min_confidence_that_is_not_from_0_to_1_is_refused(folder: tuple[str, Path]) -> None:
    """NaN fails every comparison: it filtered nothing, silently."""
    home, _ = folder
    for bad in ("nan", "1.5", "-0.1"):
        code, _, err = run("search", "boiler", "--home", home, "--min-confidence", bad)
        assert code == 2 and "from 0 to 1" in err, bad


def test_forget_a_source_then_add_reads_it_again(folder: tuple[str, Path]) -> None:
    home, notes = folder
    code, out, _ = run("forget", "--source", "notes.jsonl", "--home", home)
    assert code == 0 and f"forgot 3 records of {notes.resolve()}" in out
    assert json.loads(run("sources", "--home", home, "--json")[1])["sources"] == []
    code, out, _ = run("add", str(notes), "--home", home, "--json")
    assert json.loads(out)["added"] == 3  # its position went with it: read in full again


def test_prune_of_a_vanished_path_forgets_what_it_brought(folder: tuple[str, Path]) -> None:
    home, notes = folder
    notes.unlink()
    code, out, err = run("add", str(notes), "--prune", "--home", home, "--json")
    assert code == 0, err
    assert f"{notes} is gone: forgetting the 3 records it brought" in err
    assert json.loads(out)["removed"] == 3
    code, _, err = run("add", str(notes), "--prune", "--home", home)
    assert code == 1 and "no source of the memory came from it" in err


def test_json_reports_a_failure_as_json(tmp_path: Path) -> None:
    code, out, _ = run(
        "add", str(tmp_path / "missing.mbox"), "--home", str(tmp_path / "h"), "--json"
    )
    report = json.loads(out)
    assert code == 1 and "missing.mbox" in report["error"] and report["added"] == 0
    code, out, _ = run("status", "--home", str(tmp_path / "h"), "--json")
    assert code == 1 and "no memory folder" in json.loads(out)["error"]


def test_snippets_skip_the_title_and_end_between_words() -> None:
    passage = "Release plan\n\nWe move the release to Friday because the installer " + "x" * 3
    assert snippet_of(passage, "Release plan", 300).startswith("We move the release")
    assert snippet_of("# Tea\n\nGreen tea at four.", "Tea", 300) == "Green tea at four."
    assert snippet_of("Tea\n\n# Tea\n\nGreen tea at four.", "Tea", 300) == "Green tea at four."
    cut = snippet_of("word " * 100, None, 42)
    assert len(cut) <= 42 and cut.endswith("word\u2026")


@pytest.mark.slow
def test_ctrl_c_in_add_says_what_was_kept_and_a_rerun_continues(tmp_path: Path) -> None:
    rows = [{"id": f"r{i}", "text": f"note number {i} about topic {i % 37}"} for i in range(1500)]
    source = _rows(tmp_path / "many.jsonl", rows)
    home = str(tmp_path / "home")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    # MiniLM by name: what is cut and kept is the same with either model, and the default
    # multilingual-e5-small takes 1.8x its CPU for the 1,500 records the rerun embeds.
    cmd = [sys.executable, "-m", "memtrails", "add", str(source), "--home", home, "--threads", "1"]
    cmd += ["--model", "minilm"]
    child = subprocess.Popen(
        cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    deadline = time.monotonic() + 120
    while (
        not (Path(home) / "records.jsonl").exists()
        or (Path(home) / "records.jsonl").stat().st_size == 0
    ):
        assert time.monotonic() < deadline and child.poll() is None
        time.sleep(0.2)
    child.send_signal(signal.SIGINT)
    _, err = child.communicate(timeout=120)
    assert child.returncode == 130, err
    assert "interrupted: every record reported added is kept" in err and "Aborted!" not in err
    done = subprocess.run([*cmd, "--json"], env=env, capture_output=True, text=True, timeout=600)
    report = json.loads(done.stdout)
    assert done.returncode == 0 and report["added"] + report["unchanged"] == 1500
    assert report["unchanged"] > 0  # what the first run kept is not embedded again


def test_one_note_file_is_added_and_a_work_tree_suggests_git(tmp_path: Path) -> None:
    home = str(tmp_path / "home")
    note = tmp_path / "notes.md"
    note.write_text("# Tea\n\nGreen tea at four, never after six.\n", encoding="utf-8")
    code, out, err = run("add", str(note), "--home", home, "--json")
    assert code == 0, err
    assert json.loads(out)["added"] == 1
    code, out, _ = run("show", "notes.md", "--home", home, "--json")
    shown = json.loads(out)
    assert (shown["kind"], shown["title"]) == ("note", "Tea")
    assert json.loads(run("add", str(note), "--home", home, "--json")[1])["unchanged"] == 1
    binary = tmp_path / "blob.bin"
    binary.write_bytes(b"\x00\x01\x02" * 100)
    code, _, err = run("add", str(binary), "--home", home)
    assert code == 1 and "not a kind memtrails reads" in err
    tree = tmp_path / "repo"
    tree.mkdir()
    subprocess.run(["git", "init", "-q", str(tree)], check=True)
    (tree / "README.md").write_text("# Repo\n\nWhat it does.\n", encoding="utf-8")
    code, _, err = run("add", str(tree), "--home", home)
    assert code == 0 and f"memtrails add --git {tree}" in err


def test_author_matches_an_address_or_a_name_part(folder: tuple[str, Path]) -> None:
    home, _ = folder
    for author in ("ann@x.org", "Ann", "lee", "Ann Lee <ann@x.org>"):
        code, out, err = run("search", "boiler", "--home", home, "--json", "--author", author)
        assert code == 0, err
        assert [hit["id"] for hit in json.loads(out)] == ["n3"], author
    code, out, _ = run("search", "boiler", "--home", home, "--author", "Bob")
    assert code == 0 and "no match (among records with --author Bob)" in out


def test_a_kind_in_capitals_is_told_kinds_are_lower_case(folder: tuple[str, Path]) -> None:
    """--kind NOTE matched nothing and said only that."""
    home, _ = folder
    code, out, _ = run("search", "boiler", "--home", home, "--kind", "NOTE")
    assert code == 0 and "try --kind note" in out
    code, out, _ = run("search", "boiler", "--home", home, "--kind", "note", "--json")
    assert code == 0 and len(json.loads(out)) == 3


def test_reindex_payloads_keeps_the_vectors_and_takes_no_model(folder: tuple[str, Path]) -> None:
    home, _ = folder
    # A folder this version wrote: every point already keeps its scripts.
    code, out, err = run("reindex", "--payloads", "--home", home, "--quiet")
    assert code == 0 and out == "gave 0 passages their scripts\n" and err == ""
    result = CliRunner().invoke(
        main, ["reindex", "--payloads", "--model", "minilm", "--home", home]
    )
    assert result.exit_code == 2 and "--payloads keeps the vectors" in result.stderr


def test_reindex_repair_and_catch_up_show_their_counts(folder: tuple[str, Path]) -> None:
    home, _ = folder
    code, out, err = run("reindex", "--home", home)
    assert code == 0 and "indexed 3 records" in out
    lines = err.splitlines()  # off a terminal: a line per phase and one at the end
    assert lines[0].startswith("reindexing: rebuilding the table, ")
    assert "reindexing: embedding, 0/3 records, " in err
    assert lines[-1].startswith("reindexing: indexing, 3/3 records, ")
    code, out, err = run("reindex", "--home", home, "--quiet")
    assert code == 0 and err == "" and "indexed 3 records" in out

    # As after a crash: the index checkpoint behind the log.
    checkpoint = Path(home) / "index.json"
    checkpoint.write_text(json.dumps({"log_offset": 0}))
    code, out, err = run("check", "--repair", "--home", home)
    assert code == 0 and "check --repair: checking, " in err
    assert "check --repair: indexing, 3/3 records, " in err and "repaired: indexed the 3" in out
    checkpoint.write_text(json.dumps({"log_offset": 0}))
    code, out, err = run("search", "boiler", "--home", home)
    assert code == 0 and "catching up the index: indexing, 3/3 records, " in err
    assert "boiler" in out
    code, _, err = run("search", "boiler", "--home", home)
    assert code == 0 and "catching up" not in err  # nothing to catch up: nothing said
    checkpoint.write_text(json.dumps({"log_offset": 0}))
    code, out, err = run("search", "boiler", "--home", home, "--quiet")
    assert code == 0 and err == "" and "boiler" in out


def test_an_unchanged_rerun_does_not_repeat_its_warnings(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MEMTRAILS_CACHE", str(tmp_path / "cache"))
    home = str(tmp_path / "home")
    rows = _rows(tmp_path / "rows.jsonl", [{"id": "a", "text": "fine"}, {"id": "b"}])
    code, _, err = run("add", str(rows), "--home", home)
    assert code == 0 and err.count("skipped: ") == 1 and "text" in err
    code, out, err = run("add", str(rows), "--home", home, "--full")
    assert code == 0 and "skipped: " not in err
    assert "skipped 1 as on the last run, for the same reasons" in err
    _rows(rows, [{"id": "a", "text": "fine"}, {"id": "b"}, {"id": "c", "at": "never"}])
    code, _, err = run("add", str(rows), "--home", home, "--full")
    assert err.count("skipped: ") == 1 and "never" in err  # the new one is shown
    code, out, _ = run("add", str(rows), "--home", home, "--full", "--json")
    assert len(json.loads(out)["errors"]) == 2  # --json always lists them all
    # A folder removed and made again at the same path has said nothing yet.
    shutil.rmtree(home)
    code, _, err = run("add", str(rows), "--home", home)
    assert code == 0 and err.count("skipped: ") == 2 and "as on the last run" not in err


def test_a_reader_that_goes_away_ends_the_command_quietly(folder: tuple[str, Path]) -> None:
    home, _ = folder
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    for extra in ([], ["--json"]):
        # `memtrails search boiler | head -0`: the pipe is closed before anything is written.
        with subprocess.Popen(
            [sys.executable, "-m", "memtrails", "search", "boiler", "--home", home, *extra],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
            cwd=str(Path(home).parent),
        ) as shown:
            assert shown.stdout is not None and shown.stderr is not None
            shown.stdout.close()
            err = shown.stderr.read().decode()
            code = shown.wait()
        assert code == 141 and err == "", err  # the shell's code for SIGPIPE, no noise


def test_results_show_the_author_and_confidence_stays_on_a_0_to_1_scale(
    folder: tuple[str, Path],
) -> None:
    home, _ = folder
    code, out, _ = run("search", "boiler replaced", "--home", home, "--k", "3")
    assert code == 0
    [line] = [row for row in out.splitlines() if row.startswith(tuple("0123456789"))][:1]
    assert "Ann Lee <ann@x.org>" in line  # the author column of the hit's line
    # Words that match exactly push the keyword side far past its confident level.
    code, out, _ = run("search", "boiler replaced", "--home", home, "--json")
    hits = json.loads(out)
    assert code == 0 and hits and all(0 <= hit["confidence"] <= 1 for hit in hits)


def _interrupted(cmd: list[str], err: Path, started: Callable[[str], bool], **popen: Any) -> str:
    """Run ``cmd``, send it SIGINT once ``started(its stderr so far)``; return its stderr.

    The command must end with exit 130 and its own line, not click's ``Aborted!``.
    """
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    with err.open("w") as stderr:
        child = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=stderr, **popen)
        deadline = time.monotonic() + 120
        while not started(err.read_text()):
            assert time.monotonic() < deadline and child.poll() is None, err.read_text()
            time.sleep(0.1)
        child.send_signal(signal.SIGINT)
        child.wait(timeout=120)
    said = err.read_text()
    assert child.returncode == 130, said
    assert "Aborted!" not in said and "Traceback" not in said
    return said


@pytest.mark.slow
def test_ctrl_c_in_reindex_and_in_add_from_stdin_say_what_was_kept(tmp_path: Path) -> None:
    rows = [{"id": f"r{i}", "text": f"note number {i} about topic {i % 37}"} for i in range(1500)]
    source = _rows(tmp_path / "many.jsonl", rows)
    home = tmp_path / "home"
    memtrails = [sys.executable, "-m", "memtrails"]
    where = ["--home", str(home), "--threads", "1"]
    # MiniLM by name: the reindexes embed all 1,500 records, and the default takes 1.8x its CPU.
    assert run("add", str(source), *where, "--model", "minilm", "--quiet")[0] == 0
    said = _interrupted(
        [*memtrails, "reindex", *where], tmp_path / "reindex.err", lambda err: "embedding" in err
    )
    assert "interrupted: the index is partly rebuilt; run `memtrails reindex` again" in said
    assert run("reindex", *where, "--quiet")[0] == 0

    # The records come on standard input; the import is cut once the first ones are written.
    log = tmp_path / "stdin-home" / "records.jsonl"
    with subprocess.Popen(["cat", str(source)], stdout=subprocess.PIPE) as cat:  # a pipe
        said = _interrupted(
            [
                *memtrails,
                "add",
                "-",
                "--name",
                "piped",
                "--home",
                str(log.parent),
                "--threads",
                "1",
                "--model",
                "minilm",
            ],
            tmp_path / "add.err",
            lambda _: log.exists() and log.stat().st_size > 0,
            stdin=cat.stdout,
        )
    assert "interrupted: every record reported added is kept" in said


def test_a_source_whose_last_read_stopped_part_way_says_so(tmp_path: Path) -> None:
    """A compressed file cut short stops its read part-way: `sources` says so until a read
    reaches the end again (before, its listing looked like any finished run's)."""
    import gzip

    home = str(tmp_path / "home")
    lines = b"".join(
        json.dumps({"id": f"r{i}", "text": f"note {i} " + "x" * (i % 97)}).encode() + b"\n"
        for i in range(400)
    )
    data = tmp_path / "notes.jsonl.gz"
    packed = gzip.compress(lines)
    data.write_bytes(packed[: len(packed) * 3 // 4])
    run("add", str(data), "--home", home)
    [listed] = json.loads(run("sources", "--home", home, "--json")[1])["sources"]
    assert listed["stopped_part_way"] is True and 0 < listed["records"] < 400
    code, out, _ = run("sources", "--home", home)
    assert code == 0 and "last run stopped part-way" in out
    data.write_bytes(packed)
    assert run("add", str(data), "--home", home)[0] == 0
    [listed] = json.loads(run("sources", "--home", home, "--json")[1])["sources"]
    assert listed["stopped_part_way"] is False and listed["records"] == 400
    assert "stopped part-way" not in run("sources", "--home", home)[1]
