"""Hostile input: lone surrogates, deep nesting and huge fields end as records, cuts or named errors."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
from aiostream import stream
from click.testing import CliRunner
from helpers import errors, records

from memtrails.add import add_path
from memtrails.cli import main
from memtrails.importers.jsonl import from_jsonl
from memtrails.keys import fingerprint
from memtrails.limits import CUT_KEY, Limits
from memtrails.memory import Memory
from memtrails.pipeline.normalise import normalise, normalise_item
from memtrails.portable import js_stringify
from memtrails.records import ImportReport, MemoryRecord, RecordError, Seen, SourceState
from memtrails.secrets import scrub_record
from memtrails.testing import HashingEmbedder

ROOT = Path(__file__).resolve().parents[1]


def _nested(depth: int, leaf: str = "bottom") -> Any:
    value: Any = leaf
    for _ in range(depth):
        value = [value]
    return value


def _write_lines(path: Path, objs: list[Any]) -> Path:
    # ensure_ascii keeps lone surrogates as \ud800 escapes, as a JavaScript writer would.
    path.write_text("".join(json.dumps(o) + "\n" for o in objs), encoding="utf-8")
    return path


# -- lone surrogates ---------------------------------------------------------------------


async def test_lone_surrogates_import_are_searchable_and_a_rerun_is_unchanged(
    tmp_path: Path, embedder: Any
) -> None:
    path = _write_lines(
        tmp_path / "chat.jsonl",
        [
            {"id": "m1", "text": "x \ud800 y: the quarterly zeppelin budget", "user": "Ana \udc00"},
            {"id": "m2\udfff", "text": "ordinary pelican notes", "room\ud800": {"k": ["v\udc00"]}},
            {"id": "m3", "subject": "\ud83d title only"},
        ],
    )
    async with Memory.open(tmp_path / "m", embedder=embedder) as memory:
        first = await memory.ingest(from_jsonl(path))
        assert (first.added, first.skipped) == (3, 0), first.errors
        hits = await memory.search("zeppelin budget", k=1)
        assert [h.id for h in hits] == ["m1"]
        # A query holding one is read as the tokenizer's U+FFFD too, not refused.
        hits = await memory.search("zeppelin \ud800 budget", k=1)
        assert [h.id for h in hits] == ["m1"]
        stored = await memory.get("m1")
        assert stored is not None
        assert stored.text == "x \ufffd y: the quarterly zeppelin budget"
        assert stored.author == "Ana \ufffd"
        second = await memory.get("m2\ufffd")
        assert second is not None and second.meta == {"room\ufffd": {"k": ["v\ufffd"]}}
        # The id as the source spelled it finds the record too.
        assert await memory.get("m2\udfff") == second
        again = await memory.ingest(from_jsonl(path))
        assert (again.added, again.updated, again.unchanged, again.skipped) == (0, 0, 3, 0)
    # Every line the folder wrote is valid UTF-8 with no surrogate left in it.
    log = (tmp_path / "m" / "records.jsonl").read_bytes().decode("utf-8")
    assert "\\ud800" not in log and "\\udc00" not in log and "\ufffd" in log


def test_normalise_makes_every_string_well_formed_and_keeps_pairs() -> None:
    item = normalise_item(
        {
            "id": "a\ud800",
            "text": "ok \ud83d\ude00 \ude00\ud83d",
            "title": "t\udfff",
            "thread": "\ud800",
            "kind": "note\udc00",
            "meta": {"z": 1, "k\ud800": ["\udfff", {"\ud800": "x"}], "a": 2},
        },
        "src\udc00",
        1,
    )
    assert isinstance(item, MemoryRecord)
    assert (item.id, item.source, item.kind, item.thread) == (
        "a\ufffd",
        "src\ufffd",
        "note\ufffd",
        "\ufffd",
    )
    assert item.text == "ok \U0001f600 \ufffd\ufffd"  # a pair stays one character
    assert item.title == "t\ufffd"
    assert list(item.meta) == ["z", "k\ufffd", "a"]  # keys keep their places
    assert item.meta["k\ufffd"] == ["\ufffd", {"\ufffd": "x"}]


# -- nesting -----------------------------------------------------------------------------


@pytest.mark.parametrize("depth", [65, 900, 5000])
async def test_a_deep_line_is_an_error_naming_the_file_and_line(tmp_path: Path, depth: int) -> None:
    path = tmp_path / "deep.jsonl"
    path.write_text(
        '{"id": "a", "text": "first"}\n'
        + '{"id": "b", "text": "deep", "x": '
        + "[" * depth
        + "]" * depth
        + "}\n"
        + '{"id": "c", "text": "after"}\n'
    )
    items = [i async for i in from_jsonl(path)]
    assert [r.id for r in records(items)] == ["a", "c"]
    [error] = errors(items)
    assert error.source == str(path.resolve()) and error.where == "line 2"
    assert "deeper than 64 levels (Limits.max_depth)" in error.reason


async def test_deep_meta_from_a_custom_source_is_refused_before_the_scrubber_sees_it(
    tmp_path: Path,
) -> None:
    rows = [
        {"id": "ok", "text": "fine", "meta": {"depth": _nested(63)}},
        {"id": "deep", "text": "nested", "meta": {"depth": _nested(900)}},
        MemoryRecord(id="deep2", text="nested", meta={"x": {"y": _nested(5000)}}),
    ]
    async with Memory.open(tmp_path / "m", embedder=HashingEmbedder()) as memory:
        report = await memory.ingest(rows, name="rows")
        assert report.added == 1
        assert [(e.where, e.reason) for e in report.errors] == [
            ("record 'deep'", "meta 'depth' nests deeper than 64 levels (Limits.max_depth)"),
            ("record 'deep2'", "meta 'x' nests deeper than 64 levels (Limits.max_depth)"),
        ]
        kept = await memory.get("ok")
        assert kept is not None and kept.meta == {"depth": _nested(63)}


def test_the_deepest_allowed_meta_goes_through_every_recursive_step() -> None:
    """At the ceiling (200), scrubbing and JSON still have recursion to spare."""
    # (another leaf under "password": every copy of a value found as a secret is replaced)
    meta = {"a": _nested(199), "password": _nested(150, "Kq7-bottom-Zx2")}
    item = normalise_item({"id": "x", "text": "t", "meta": meta}, "s", 1, Limits(max_depth=200))
    assert isinstance(item, MemoryRecord)
    scrubbed, _ = scrub_record(item)
    assert scrubbed.meta["a"] == meta["a"]
    assert json.loads(js_stringify(scrubbed.to_json()))["meta"]["a"] == meta["a"]
    assert len(fingerprint(scrubbed)) == 64


async def test_ingest_takes_limits(tmp_path: Path) -> None:
    deep = {"a": _nested(199), "token": {"b": _nested(150)}}
    rows = [
        {"id": "deep", "text": "t", "meta": deep},
        {"id": "long", "text": "abcdefghij" * 3},
        {"id": "short", "text": "abc"},
    ]
    async with Memory.open(tmp_path / "m", embedder=HashingEmbedder()) as memory:
        report = await memory.ingest(rows, limits=Limits(max_depth=200, max_text_units=20))
        assert (report.added, report.skipped, report.cut) == (3, 0, 1)
        stored = await memory.get("deep")
        assert stored is not None and stored.meta == deep
        cut = await memory.get("long")
        assert cut is not None and cut.text == "abcdefghij" * 2
        assert cut.meta == {CUT_KEY: [{"field": "text", "unit": "UTF-16", "was": 30, "kept": 20}]}
        # The default refuses the deep one, by name; an unchanged re-run cuts nothing new.
        again = await memory.ingest(rows, limits=Limits(max_text_units=20))
        assert (again.unchanged, again.cut) == (2, 0)
        assert [e.where for e in again.errors] == ["record 'deep'"]


def test_the_command_line_takes_limits_and_says_what_it_cut(tmp_path: Path) -> None:
    path = _write_lines(
        tmp_path / "notes.jsonl",
        [{"id": "1", "text": "x" * 50}, {"id": "2", "text": "y" * 5000}, {"id": "3", "text": "z"}],
    )
    home = tmp_path / "home"
    result = CliRunner().invoke(
        main,
        [
            "add",
            str(path),
            "--home",
            str(home),
            "--max-text-units",
            "40",
            "--max-line-bytes",
            "1000",
            "--json",
        ],
        catch_exceptions=False,
    )
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert (report["added"], report["skipped"], report["cut"]) == (2, 1, 1)
    assert report["errors"][0]["where"] == "line 2"
    assert "(Limits.max_line_bytes)" in report["errors"][0]["reason"]
    bad = CliRunner().invoke(main, ["add", str(path), "--home", str(home), "--max-depth", "500"])
    assert bad.exit_code == 2 and "--max-depth" in bad.output


# -- sizes -------------------------------------------------------------------------------


def test_limits_are_validated_with_the_argument_named() -> None:
    assert Limits().max_depth == 64 and Limits().max_record_bytes == 16 * 1024 * 1024
    with pytest.raises(ValueError, match="`max_field_bytes` must be a positive integer, got 0"):
        Limits(max_field_bytes=0)
    with pytest.raises(ValueError, match="`max_line_bytes` must be a positive integer"):
        Limits(max_line_bytes=1.5)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="`max_depth` must be at most 200"):
        Limits(max_depth=201)


def test_a_long_text_and_title_are_cut_and_the_record_says_so() -> None:
    text = "word " * 300_000  # 1.5M units
    item = normalise_item({"id": "big", "text": text, "title": "T" * 600, "meta": {"x": 1}}, "s", 1)
    assert isinstance(item, MemoryRecord)
    assert len(item.text) == 1_000_000 and text.startswith(item.text)
    assert item.title == "T" * 500
    assert item.meta == {
        "x": 1,
        CUT_KEY: [
            {"field": "text", "unit": "UTF-16", "was": 1_499_999, "kept": 1_000_000},
            {"field": "title", "unit": "UTF-16", "was": 600, "kept": 500},
        ],
    }
    small = normalise_item({"id": "s", "text": "short"}, "s", 1)
    assert isinstance(small, MemoryRecord) and CUT_KEY not in small.meta


def test_a_large_meta_entry_is_left_out_and_said() -> None:
    limits = Limits(max_field_bytes=1000)
    item = normalise_item(
        {"id": "r", "text": "t", "meta": {"blob": "x" * 2000, "many": list(range(400)), "ok": "y"}},
        "s",
        1,
        limits,
    )
    assert isinstance(item, MemoryRecord)
    assert item.meta == {
        "ok": "y",
        CUT_KEY: [
            {"field": "meta.blob", "unit": "bytes", "limit": 1000},
            {"field": "meta.many", "unit": "bytes", "limit": 1000},  # 1,490 bytes as JSON
        ],
    }
    # The measure is the stored JSON's UTF-8 bytes, `"é":"éé…"`: 999 fits, 1,001 does not.
    fits = normalise_item({"id": "r", "text": "t", "meta": {"é": "é" * 496}}, "s", 1, limits)
    assert isinstance(fits, MemoryRecord) and CUT_KEY not in fits.meta
    over = normalise_item({"id": "r", "text": "t", "meta": {"é": "é" * 497}}, "s", 1, limits)
    assert isinstance(over, MemoryRecord) and over.meta == {
        CUT_KEY: [{"field": "meta.é", "unit": "bytes", "limit": 1000}]
    }


def test_a_huge_name_field_or_record_is_refused_naming_the_limit() -> None:
    limits = Limits(max_field_bytes=100, max_record_bytes=5000)
    author = normalise_item({"id": "a", "text": "t", "author": "x" * 200}, "s", 1, limits)
    assert author == RecordError(
        "s", "record 'a'", "`author` is over 100 bytes (Limits.max_field_bytes)"
    )
    whole = normalise_item(
        {"id": "b", "text": "t" * 3000, "meta": {f"k{i}": "v" * 80 for i in range(40)}},
        "s",
        1,
        limits,
    )
    assert whole == RecordError(
        "s", "record 'b'", "the record is over 5,000 bytes (Limits.max_record_bytes)"
    )


async def test_the_normalise_stage_takes_limits() -> None:
    items = [{"id": "1", "text": "abcdef"}, {"id": "2", "text": "x", "meta": {"d": _nested(3)}}]
    async with (
        stream.iterate(items) | normalise.pipe("s", Limits(max_text_units=3, max_depth=3))
    ).stream() as it:
        out = [i async for i in it]
    assert isinstance(out[0], MemoryRecord) and out[0].text == "abc"
    assert isinstance(out[1], RecordError) and "deeper than 3 levels" in out[1].reason


def test_the_report_counts_cut_records() -> None:
    report = ImportReport(added=2, cut=1)
    other = ImportReport(updated=1, cut=2)
    report.merge(other)
    assert report.cut == 3 and report.to_json()["cut"] == 3


# -- long lines ----------------------------------------------------------------------------


async def test_a_line_over_the_limit_is_an_error_and_reading_goes_on(tmp_path: Path) -> None:
    path = tmp_path / "long.jsonl"
    long_line = json.dumps({"id": "long", "text": "y" * 5000}) + "\n"
    path.write_text('{"id": "a", "text": "first"}\n' + long_line + '{"id": "c", "text": "after"}\n')
    items = [i async for i in from_jsonl(path, limits=Limits(max_line_bytes=1000))]
    assert [r.id for r in records(items)] == ["a", "c"]
    [error] = errors(items)
    assert error.where == "line 2"
    assert error.reason == (
        f"line of {len(long_line):,} bytes is over 1,000 (Limits.max_line_bytes); not read"
    )
    # The saved position is past every line: a resumed read starts after the file's end.
    [state] = [i for i in items if isinstance(i, SourceState)]
    assert state.state["offset"] == path.stat().st_size and state.state["lines"] == 3


def _peak_rss_mb(code: str, tmp_path: Path) -> tuple[float, str]:
    """Run ``code`` in a fresh interpreter; return its peak RSS in MB and what it printed.

    The peak is the kernel's VmHWM: ru_maxrss would keep the forking test process's own peak
    across the exec.
    """
    script = textwrap.dedent(code) + textwrap.dedent(
        """
        import re
        with open("/proc/self/status") as f:
            print("PEAK", int(re.search(r"VmHWM:\\s+(\\d+) kB", f.read()).group(1)) / 1024)
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={"PYTHONPATH": str(ROOT / "tests"), "PATH": "/usr/bin:/bin"},
        check=True,
    )
    out = done.stdout.strip().splitlines()
    return float(out[-1].split()[1]), "\n".join(out[:-1])


@pytest.mark.slow
def test_a_half_gigabyte_line_without_newline_is_never_held_whole(tmp_path: Path) -> None:
    path = tmp_path / "huge.jsonl"
    with path.open("wb") as f:
        f.write(b'{"id": "a", "text": "first"}\n{"id": "b", "text": "')
        f.truncate(512 * 1024**2)  # a sparse file: one line of zero bytes, never ending
    peak, out = _peak_rss_mb(
        f"""
        import asyncio
        from helpers import collect
        from memtrails.importers.jsonl import from_jsonl
        items = asyncio.run(collect(from_jsonl({str(path)!r})))
        print([str(i) for i in items[:-1]])
        """,
        tmp_path,
    )
    assert out == str(
        [
            "MemoryRecord(id='a', text='first', kind='note', author=None, title=None, "
            f"at=None, source={str(path)!r}, thread=None, meta={{}})",
            f"{path} (line 2): line of 536,870,883 bytes is over 67,108,864 "
            "(Limits.max_line_bytes); not read",
        ]
    )
    # Imports take ~150 MB and the line's first 64 MiB are read to find that it is too long.
    assert peak < 400, f"peak RSS {peak:.0f} MB while passing over a 512 MB line"


@pytest.mark.slow
def test_a_200_mb_meta_field_is_left_out_in_bounded_memory(tmp_path: Path) -> None:
    folder = tmp_path / "m"
    peak, out = _peak_rss_mb(
        f"""
        import asyncio
        from memtrails.testing import HashingEmbedder
        from memtrails.memory import Memory

        async def main():
            rows = [{{"id": "big", "text": "a small text", "meta": {{"dump": "z" * (200 * 1024 * 1024)}}}},
                    {{"id": "long", "text": "word " * (40 * 1024 * 1024)}}]
            async with Memory.open({str(folder)!r}, embedder=HashingEmbedder()) as memory:
                report = await memory.ingest(rows)
                big, long = await memory.get("big"), await memory.get("long")
            print(report.added, report.skipped, report.cut, big.meta, len(long.text), long.meta)

        asyncio.run(main())
        """,
        tmp_path,
    )
    assert out == (
        "2 0 2 {'_cut': [{'field': 'meta.dump', 'unit': 'bytes', 'limit': 1048576}]} 1000000 "
        "{'_cut': [{'field': 'text', 'unit': 'UTF-16', 'was': 209715199, 'kept': 1000000}]}"
    )
    # The inputs hold 400 MB and the imports ~150 MB: measured 576 MB here, against 1,075 MB
    # (and a 210 MB log) when the field was stored whole and the text trimmed by copying.
    assert peak < 700, f"peak RSS {peak:.0f} MB"
    assert (folder / "records.jsonl").stat().st_size < 3 * 1024 * 1024


def test_passing_items_get_the_names_their_records_get() -> None:
    assert normalise_item(Seen("s\udc80", "id\udce9"), "x", 1) == Seen("s\ufffd", "id\ufffd")
    state = normalise_item(SourceState("s\udc80", {}), "x", 1)
    assert isinstance(state, SourceState) and state.source == "s\ufffd"
    error = normalise_item(RecordError("s\udc80", "line \ud800", "bad \udfff", "i\ud800"), "x", 1)
    assert error == RecordError("s\ufffd", "line \ufffd", "bad \ufffd", "i\ufffd")


async def test_a_file_name_that_is_not_utf8_imports_and_prunes_nothing(tmp_path: Path) -> None:
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "plain.md").write_text("plain notes about herons\n")
    # A Latin-1 file name: Python reads it with surrogateescape, a lone surrogate.
    (Path(os.fsdecode(bytes(notes) + b"/caf\xe9.md"))).write_text("notes about the cafe\n")
    async with Memory.open(tmp_path / "m", embedder=HashingEmbedder()) as memory:
        first = await add_path(memory, notes)
        assert (first.added, first.skipped) == (2, 0), first.errors
        again = await add_path(memory, notes, prune=True)
        assert (again.added, again.unchanged, again.removed, again.skipped) == (0, 2, 0, 0)
        hits = await memory.search("cafe", k=1)
        # the conformance rule for such names: U+FFFD for the bad byte, then the path's
        # bytes in hex, so that names differing only in that byte stay apart
        assert hits and hits[0].id == "caf\ufffd.md//" + b"caf\xe9.md".hex()
