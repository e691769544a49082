"""The one planner of an import's inputs (``memtrails add`` and the service's import
endpoint): what each input becomes, and the error of an import that can read none."""

from __future__ import annotations

from pathlib import Path

import pytest

from memtrails._exceptions import SourceError
from memtrails.importers.detect import close_parts
from memtrails.importers.plan import InputPlan, plan_inputs

_MBOX = (
    "From a@example.com Tue Apr  1 12:21:37 2003\nFrom: a@example.com\nSubject: tides\n"
    "Message-ID: <tides@example.com>\n\nthe tides table\n\n"
)


def _folder(root: Path) -> dict[str, Path]:
    """A folder holding a readable mbox, a file that cannot be read (a link that loops), a
    file of no kind (binary), and a lone text note."""
    root.mkdir()
    (root / "list.mbox").write_text(_MBOX, encoding="utf-8")
    (root / "loop").symlink_to(root / "loop")
    (root / "blob.bin").write_bytes(bytes(range(256)) * 8)
    (root / "plan.md").write_text("# Harbour plan\n\nThe crane moves in May.\n", encoding="utf-8")
    return {p.name: p for p in root.iterdir()}


def _closed(planned: InputPlan) -> InputPlan:
    for parts in planned.parts:
        close_parts(list(parts))
    return planned


def test_each_input_becomes_a_part_a_note_or_its_error(tmp_path: Path) -> None:
    files = _folder(tmp_path / "in")
    plain = tmp_path / "plain"  # a folder, no repository
    plain.mkdir()
    given = [str(files[n]) for n in ("list.mbox", "loop", "blob.bin", "plan.md")]
    # the folder too: its own plan reads the mbox as a part, which is planned already
    planned = _closed(plan_inputs([*given, str(tmp_path / "in")], [plain]))

    mbox, folder = planned.parts
    assert [(p.kind, p.source) for p in mbox] == [("mbox", str(files["list.mbox"]))]
    assert [(p.kind, p.source) for p in folder] == [("files", str(tmp_path / "in"))]
    (note,) = planned.notes
    assert (note.source, note.title) == (str(files["plan.md"]), "Harbour plan")
    assert [path for path, _ in planned.unread] == [str(files["loop"]), str(files["blob.bin"])]
    assert [given for given, _ in planned.no_repos] == [str(plain)]
    assert planned.repos == () and planned.readable and planned.failure() is None

    loop, blob, repo = planned.errors()
    assert (loop.source, loop.where) == (str(files["loop"]), str(files["loop"]))
    assert "loops" in loop.reason
    assert (blob.source, blob.where) == (str(files["blob.bin"]), str(files["blob.bin"]))
    assert blob.reason.startswith("not a kind memtrails reads")
    assert (repo.source, repo.where) == (f"git:{plain}", str(plain))
    assert repo.reason == "not a git repository"


def test_with_a_kind_a_lone_text_file_is_no_note_but_its_error(tmp_path: Path) -> None:
    files = _folder(tmp_path / "in")
    planned = _closed(plan_inputs([files["plan.md"], tmp_path / "in"], kind="maildir"))
    assert planned.notes == () and [p.kind for (p,) in planned.parts] == ["maildir"]
    ((path, exc),) = planned.unread
    assert (path, str(exc)) == (
        str(files["plan.md"]),
        f"{path}: is a file; --kind maildir reads a folder",
    )
    (error,) = planned.errors(name="harbour")
    assert error.source == "harbour"  # the name a read of it would have had


def test_nothing_readable_is_one_error_naming_each_input_as_given(tmp_path: Path) -> None:
    files = _folder(tmp_path / "in")
    plain = tmp_path / "plain"
    plain.mkdir()
    planned = plan_inputs([files["blob.bin"], files["loop"]], [plain])
    assert not planned.readable
    failure = planned.failure()
    assert isinstance(failure, SourceError)
    said = str(failure)
    assert said.startswith(f"{files['blob.bin']}: not a kind memtrails reads: ")
    assert said.endswith(
        f" (and 2 more: {files['loop']}: a symbolic link that loops (it leads back to itself)"
        f": nothing to read; {plain}: not a git repository)"
    )
    # one input alone: its own error, whole
    (alone,) = plan_inputs([], [plain]).no_repos
    assert plan_inputs([], [plain]).failure() is not None
    assert str(plan_inputs([], [plain]).failure()) == str(alone[1])


def test_an_input_the_caller_refused_comes_first_and_keeps_its_words(tmp_path: Path) -> None:
    files = _folder(tmp_path / "in")
    pipe = str(tmp_path / "a-pipe")
    refused = [(pipe, ValueError(f"path {pipe!r} is a pipe or a device, not a file: send it"))]
    planned = plan_inputs([files["blob.bin"]], refused=refused)
    failure = planned.failure()
    assert type(failure) is ValueError
    assert str(failure).startswith(f"path {pipe!r} is a pipe or a device, not a file: send it")
    assert (
        f"(and 1 more: {files['blob.bin']}: not a kind memtrails reads: it holds binary data)"
        in str(failure)
    )
    first, _ = planned.errors()
    assert (first.where, first.reason) == (pipe, "is a pipe or a device, not a file: send it")


def test_an_unknown_kind_is_the_callers_mistake(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="`kind` must be one of"):
        plan_inputs([tmp_path], kind="nope")


def test_a_lone_text_file_over_the_limit_says_so_and_reads_with_a_higher_limit(
    tmp_path: Path,
) -> None:
    """A long note given alone was "not a kind memtrails reads", whatever --max-file-bytes
    said; a large binary file of no kind is still that."""
    big = tmp_path / "journal.md"
    big.write_text("# Journal\n\n" + "a day on the harbour wall. " * 60_000, encoding="utf-8")
    blob = tmp_path / "blob.bin"
    blob.write_bytes(bytes(range(256)) * 8_000)
    planned = _closed(plan_inputs([big, blob]))
    assert planned.notes == ()
    (journal, why), (_, binary) = planned.unread
    assert journal == str(big)
    assert isinstance(why, SourceError)
    assert f"{big.stat().st_size:,} bytes; the limit is 1,000,000" in why.reason
    assert "--max-file-bytes" in why.reason
    assert "not a kind memtrails reads" in str(binary)
    (note,) = plan_inputs([big], max_file_bytes=2_000_000).notes
    assert note.title == "Journal" and note.text == big.read_text(encoding="utf-8")
