"""The memtrails command, as a user runs it: add, status, search, forget, and its exit codes."""

from __future__ import annotations

import json
import os
import re
import subprocess
from collections.abc import Callable
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from memtrails.cli import main
from memtrails.folder.lock import FolderLock


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args), catch_exceptions=False)
    return result.exit_code, result.stdout, result.stderr


N_GSM8K = 400


@pytest.mark.slow
def test_add_gsm8k_then_rerun_is_unchanged(
    gsm8k_subset: Callable[[int], Path], tmp_path: Path
) -> None:
    home = str(tmp_path / "home")
    # The real gsm8k's first 400 problems: all 1,319 were the longest import of the suite
    # (104 s of CI; 110 -> 39 CPU-s here) and showed no more than 400 do (a second run reads
    # each record again and finds it unchanged; a paraphrase and rare numbers find theirs).
    path = str(gsm8k_subset(N_GSM8K))
    name = Path(path).name
    # MiniLM by name: the default multilingual-e5-small takes 1.8x its CPU.
    code, out, _ = run("add", path, "--home", home, "--json", "--threads", "2", "--model", "minilm")
    assert code == 0
    first = json.loads(out)
    assert (first["added"], first["updated"], first["unchanged"], first["skipped"]) == (
        N_GSM8K,
        0,
        0,
        0,
    )
    assert first["errors"] == [] and first["secrets"] == {} and isinstance(first["seconds"], float)

    code, out, _ = run("add", path, "--home", home, "--json")
    second = json.loads(out)
    assert code == 0
    assert (second["added"], second["updated"], second["unchanged"], second["embedded"]) == (
        0,
        0,
        N_GSM8K,
        0,
    )

    code, out, _ = run("status", "--home", home, "--json")
    status = json.loads(out)
    assert (status["records"], status["indexed"]) == (N_GSM8K, N_GSM8K)
    assert status["sources"] == {str(Path(path).resolve()): N_GSM8K}
    assert status["model"]["model_id"] == "all-MiniLM-L6-v2-int8"

    # A paraphrase of record 1 ("Janet's ducks lay 16 eggs per day ...") finds it in the top 5.
    code, out, _ = run(
        "search",
        "how much money does Janet earn selling duck eggs each day at the market",
        "--home",
        home,
        "--json",
        "--k",
        "5",
    )
    hits = json.loads(out)
    assert code == 0 and f"{name}:1" in [h["id"] for h in hits]
    assert set(hits[0]) >= {"score", "id", "title", "kind", "author", "at", "snippet"}

    # An exact number that only one record holds finds that record first (keyword side).
    counts: dict[str, set[int]] = {}
    for n, line in enumerate(Path(path).read_text().splitlines(), start=1):
        for number in re.findall(r"\b\d{5,}\b", line):
            counts.setdefault(number, set()).add(n)
    rare = sorted((number, lines.pop()) for number, lines in counts.items() if len(lines) == 1)[:3]
    assert rare
    for number, line_no in rare:
        code, out, _ = run("search", number, "--home", home, "--json", "--k", "3")
        assert json.loads(out)[0]["id"] == f"{name}:{line_no}", number


@pytest.mark.slow
def test_add_reports_each_broken_line_and_adds_the_rest(tmp_path: Path) -> None:
    src = tmp_path / "broken.jsonl"
    src.write_text(
        '{"id": 1, "text": "kept one"}\n{oops\n{"id": 2, "text": "kept two"}\n[1]\n{"id": 3, "text": "cut'
    )
    code, out, _ = run("add", str(src), "--home", str(tmp_path / "h"), "--json")
    assert code == 0
    report = json.loads(out)
    assert (report["added"], report["skipped"]) == (2, 3)
    assert [(e["where"], e["source"]) for e in report["errors"]] == [
        ("line 2", str(src.resolve())),
        ("line 4", str(src.resolve())),
        ("line 5", str(src.resolve())),
    ]
    assert report["errors"][2]["reason"] == "truncated last line (no newline at end of file)"


@pytest.mark.slow
def test_human_output_forget_and_home_from_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MEMTRAILS_HOME", str(tmp_path / "envhome"))
    src = tmp_path / "notes.jsonl"
    src.write_text(
        '{"id": "n1", "text": "The otter enclosure opens in May."}\n{"id": "n2", "text": "Fix the gate."}\n'
    )
    code, out, err = run("add", str(src))
    assert code == 0
    assert out.startswith("added 2, updated 0, unchanged 0, skipped 0, removed 0 in ")
    assert (tmp_path / "envhome" / "records.jsonl").is_file()

    code, out, _ = run("search", "otter", "--k", "1")
    assert code == 0 and "id: n1" in out

    code, out, _ = run("forget", "n1")
    assert (code, out.strip()) == (0, "forgot 1 record")
    code, out, _ = run("status", "--json")
    assert json.loads(out)["records"] == 1
    code, out, err = run("forget", "n1")
    assert code == 1 and "no record with id 'n1'" in err


def test_cannot_run_gives_one_line_and_non_zero(tmp_path: Path) -> None:
    home = tmp_path / "h"
    code, _, err = run("add", str(tmp_path / "missing.jsonl"), "--home", str(home))
    assert (
        code == 1
        and "missing.jsonl: no such file or folder" in err
        and len(err.strip().splitlines()) == 1
    )

    weird = tmp_path / "data.bin"
    weird.write_bytes(b"\x00\x01")
    code, _, err = run("add", str(weird), "--home", str(home))
    assert code == 1 and "not a kind memtrails reads" in err

    unreadable = tmp_path / "secret.jsonl"
    unreadable.write_text('{"id": 1, "text": "x"}\n')
    unreadable.chmod(0)
    if os.getuid() != 0:  # root reads anything
        code, _, err = run("add", str(unreadable), "--home", str(home))
        assert code == 1 and "secret.jsonl" in err

    code, _, err = run("status", "--home", str(tmp_path / "nothing-here"))
    assert code == 1 and "no memory folder at" in err

    home.mkdir(exist_ok=True)
    lock = FolderLock(home)
    try:
        src = tmp_path / "ok.jsonl"
        src.write_text('{"id": 1, "text": "x"}\n')
        code, _, err = run("add", str(src), "--home", str(home))
        assert code == 1 and f"memory folder {home} is in use by process {os.getpid()}" in err
    finally:
        lock.release()


def test_every_command_has_help_with_an_example() -> None:
    for command in main.list_commands(click.Context(main)):
        code, out, _ = run(command, "--help")
        assert code == 0 and "Example:" in out and "--home" in out, command


@pytest.mark.slow
def test_add_this_repositorys_history_and_a_docs_folder(tmp_path: Path) -> None:
    here = Path(__file__).resolve().parents[1]
    # A bounded folder of this repository's docs: the heads (up to 2 kB, at a line's end) of
    # the five smallest pages and of the smallest whose head answers the search below. All of
    # docs/ (15 pages, 290 kB) took 110 s of CI, nearly all of it embedding, grew with every
    # page written, and changed under the rerun while others edited it.
    heads = {}
    for page in sorted((here / "docs").glob("*.md"), key=lambda p: (p.stat().st_size, p.name)):
        text = page.read_text(encoding="utf-8")
        heads[page.name] = text[: text.find("\n", 2000) + 1 or None]
    answer = next(name for name, head in heads.items() if "peak RSS" in head)
    docs = tmp_path / "docs"
    docs.mkdir()
    for name in dict.fromkeys([*list(heads)[:5], answer]):
        (docs / name).write_text(heads[name], encoding="utf-8")
    home = str(tmp_path / "h")
    # The repository's recent history, a shallow clone: the whole history grows with every
    # commit (788 commits took 155 s here), and the importer reads a shallow one as it is.
    root = tmp_path / "repo"
    subprocess.run(
        ["git", "clone", "-q", "--depth", "30", f"file://{here}", str(root)],
        capture_output=True,
        check=True,
    )
    code, out, err = run("add", "--git", str(root), str(docs), "--home", home, "--json")
    assert code == 0, err
    report = json.loads(out)
    commits = int(
        subprocess.run(
            ["git", "-C", str(root), "rev-list", "--count", "HEAD"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
    )
    by_source = {s["source"]: s for s in report["sources"]}
    assert by_source[f"git:{root}"]["read"] >= commits
    assert by_source[str(docs)]["read"] == len(list(docs.iterdir())) >= 5
    code, out, _ = run("search", "peak RSS while importing", "--home", home, "--json", "--k", "5")
    assert any(h["kind"] in ("note", "file") for h in json.loads(out))
    # again: nothing new in either
    code, out, _ = run("add", "--git", str(root), str(docs), "--home", home, "--json")
    again = json.loads(out)
    assert (again["added"], again["embedded"]) == (0, 0)
    assert {s["mode"] for s in again["sources"]} == {"incremental"}


def test_the_command_table_names_every_command_its_modules_define() -> None:
    # Commands load by name (`_group.COMMANDS`): one defined but not listed would not run.
    import importlib

    from memtrails.cli._group import COMMANDS

    for module in set(COMMANDS.values()):
        importlib.import_module(f"memtrails.cli.{module}")
    assert sorted(main.commands) == sorted(COMMANDS)
