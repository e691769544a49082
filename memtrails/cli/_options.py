"""What the commands share: options, opening the folder, turning errors into one line."""

from __future__ import annotations

import errno
import json
import os
import stat
import sys
from collections.abc import AsyncIterator, Callable, Coroutine
from contextlib import asynccontextmanager
from functools import wraps
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click

from .._exceptions import MemtrailsError, said_at_the_command_line
from ._terminal import for_terminal

# The open, the event loop and the limits are imported where they are used: `memtrails
# status` answers a sound folder without any of them (folder.glance), in half the time.
if TYPE_CHECKING:
    from ..memory import Memory

__all__ = []

T = TypeVar("T")
SHOWN_ERRORS = 20
# Model threads past this are refused in one line: onnxruntime would try to start them all
# (--threads 100000 never answered).
MAX_THREADS = 256


class KindChoice(click.Choice[str]):
    """The kinds the importer registry knows, read when the command runs (a plugin's too)."""

    name = "kind"

    def __init__(self) -> None:
        super().__init__([])

    @property
    def choices(self) -> tuple[str, ...]:
        from ..importers.registry import kinds

        return kinds()

    @choices.setter
    def choices(self, value: object) -> None:
        pass  # click sets it in __init__; the registry is the list


def default_home() -> Path:
    """$MEMTRAILS_HOME, else ~/.memtrails, once :func:`checked_home` finds it usable."""
    return checked_home(Path(os.environ.get("MEMTRAILS_HOME") or Path.home() / ".memtrails"))


def checked_home(folder: Path) -> Path:
    """Return ``folder``, or say in one line why it can be no memory folder: a file, or a
    folder this user cannot read. One that is not there is for the command to answer (a
    read says there is no memory folder, ``add`` creates it)."""
    try:
        st = folder.stat()
    except (FileNotFoundError, NotADirectoryError):
        return folder
    except OSError as exc:  # a folder above it that this user cannot enter
        raise click.ClickException(
            f"cannot reach the memory folder {folder}: {exc.strerror}; give this user access "
            "to it and the folders above it, or choose another --home"
        ) from exc
    if not stat.S_ISDIR(st.st_mode):
        raise click.ClickException(
            f"{folder} is a file, not a memory folder: give --home (or $MEMTRAILS_HOME) a "
            "folder; `memtrails add --home FOLDER` creates a new one"
        )
    if not os.access(folder, os.R_OK | os.X_OK):
        raise click.ClickException(
            f"cannot read the memory folder {folder}: permission denied; give this user "
            "read and write access to it (chmod u+rwx), or choose another --home"
        )
    return folder


def home_option(f: Callable[..., Any]) -> Callable[..., Any]:
    return click.option(
        "--home",
        # Checked by checked_home, which says what to do in one line (click's check printed
        # the usage and "Directory '...' is a file." or "is not readable").
        type=click.Path(path_type=Path, readable=False),
        callback=lambda _ctx, _param, value: None if value is None else checked_home(value),
        default=None,
        help="Memory folder (default: $MEMTRAILS_HOME, else ~/.memtrails).",
    )(f)


def quiet_option(f: Callable[..., Any]) -> Callable[..., Any]:
    return click.option(
        "-q", "--quiet", is_flag=True, help="No progress on stderr: only the result and errors."
    )(f)


def qdrant_option(f: Callable[..., Any]) -> Callable[..., Any]:
    return click.option(
        "--qdrant-url",
        default=None,
        help="A new folder: keep its index on the Qdrant server at this URL (recorded in the "
        "folder without credentials; the API key comes from $QDRANT_API_KEY). An existing "
        "folder: only if its server moved.",
    )(f)


def index_options(f: Callable[..., Any]) -> Callable[..., Any]:
    f = qdrant_option(f)
    f = click.option(
        "--threads",
        type=click.IntRange(min=1, max=MAX_THREADS),
        default=None,
        help="Model threads (default: the cores this process may use, within any CPU quota).",
    )(f)
    return f


LIMIT_OPTIONS = (
    ("--max-depth", "max_depth", "Deepest nesting of a record's meta or a JSON Lines line [64]."),
    ("--max-text-units", "max_text_units", "Longer texts are cut (UTF-16 units) [1000000]."),
    ("--max-field-bytes", "max_field_bytes", "Larger meta entries are left out [1 MiB]."),
    ("--max-record-bytes", "max_record_bytes", "Larger records are skipped [16 MiB]."),
    ("--max-line-bytes", "max_line_bytes", "Longer JSON Lines lines are skipped [64 MiB]."),
    (
        "--max-file-bytes",
        "max_file_bytes",
        "Larger notes or Slack export members are skipped [1 MB notes, 128 MiB Slack].",
    ),
)


def limit_options(f: Callable[..., Any]) -> Callable[..., Any]:
    """Add the --max-* options; the command receives them as one ``limits=Limits(...)``."""

    from ..limits import MAX_DEPTH_CEILING, Limits

    @wraps(f)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        given = {name: kwargs.pop(name) for _, name, _ in LIMIT_OPTIONS}
        kwargs["limits"] = Limits(**{k: v for k, v in given.items() if v is not None})
        return f(*args, **kwargs)

    command: Callable[..., Any] = wrapper
    for flag, name, text in reversed(LIMIT_OPTIONS):
        top = MAX_DEPTH_CEILING if name == "max_depth" else None
        command = click.option(
            flag, name, type=click.IntRange(min=1, max=top), default=None, help=text
        )(command)
    return command


def model_option(f: Callable[..., Any]) -> Callable[..., Any]:
    return click.option(
        "--model",
        default=None,
        metavar="NAME",
        help="Embedding model of a new folder: multilingual-e5-small (default where it "
        "installs: x86-64 Linux; ~100 languages) or minilm (English, every platform, the "
        "fastest), or a folder with "
        "model.onnx and tokenizer.json. An existing folder keeps the model it was built with "
        "(`memtrails reindex --model` moves it).",
    )(f)


# What Ctrl-C leaves, per command; a command not named here only read.
INTERRUPTED = {
    "add": "every record reported added is kept, and where each source got to; run the same "
    "command again to continue from there",
    "reindex": "the index is partly rebuilt; run `memtrails reindex` again to finish it",
    "check": "nothing was changed that the log cannot redo; run `memtrails check` again",
    "mcp": "the server stopped; the memory folder is as the last request left it",
    "serve": "the service stopped; imports it ran resume on the next `memtrails add`",
}


def as_command(coro_fn: Callable[..., Coroutine[Any, Any, T]]) -> Callable[..., T]:
    """Run an async command; turn memtrails errors into a one-line message and exit code 1.

    Ctrl-C ends it with exit code 130 (as a shell reports SIGINT) after the folder is closed,
    and a line on what was kept, instead of click's bare "Aborted!". With ``--json`` a
    failure is still one JSON object on stdout, ``{"error": ...}``, so a script reading the
    report always gets one.
    """
    name = coro_fn.__name__.rstrip("_")

    @wraps(coro_fn)
    def wrapper(*args: Any, **kwargs: Any) -> T:
        import asyncio

        return run_command(
            name, bool(kwargs.get("as_json")), lambda: asyncio.run(coro_fn(*args, **kwargs))
        )

    return wrapper


def run_command(name: str, as_json: bool, call: Callable[[], T]) -> T:
    """Run the command ``name`` (``call``) as :func:`as_command` runs an async one: its
    errors one line (one JSON object with ``as_json``), Ctrl-C exit code 130."""
    try:
        return _run(call)
    except KeyboardInterrupt:
        kept = INTERRUPTED.get(name, "nothing was changed")
        click.echo(f"\ninterrupted: {kept}", err=True)
        raise click.exceptions.Exit(130) from None
    except click.ClickException as exc:
        if as_json:  # exact; the command group escapes the line on stderr (_group.py)
            click.echo(json.dumps(failed_report(name, exc.format_message()), ensure_ascii=False))
        raise


def stdout_gone() -> bool:
    """True when standard output is a pipe whose reader has closed it."""
    import select

    try:
        poller = select.poll()
        poller.register(sys.stdout.fileno(), select.POLLOUT)
        return any(events & select.POLLERR for _, events in poller.poll(0))
    except (AttributeError, OSError, ValueError):  # no poll (Windows), no file descriptor
        return False


def failed_report(command: str, message: str) -> dict[str, Any]:
    """The JSON a command prints under ``--json`` when it cannot run: its report, empty, and why."""
    if command == "add":
        from ..records import ImportReport

        return {**ImportReport().to_json(), "error": message}
    return {"error": message}


def _run(call: Callable[[], T]) -> T:
    try:
        return call()
    except MemtrailsError as exc:
        raise click.ClickException(said_at_the_command_line(exc)) from exc
    except BrokenPipeError as exc:
        if not stdout_gone():
            raise click.ClickException(str(exc)) from exc
        # The reader went away (`memtrails search x | head -1`): end quietly, as git and
        # grep do, with the shell's code for SIGPIPE; nothing more goes to the closed pipe.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        raise click.exceptions.Exit(141) from None
    except OSError as exc:
        if exc.errno in (errno.ENOSPC, errno.EDQUOT):
            # A write that memtrails did not name itself: say which file, when known.
            if exc.filename:
                from ..folder.space import disk_full

                where = Path(exc.filename)
                message = str(disk_full(where, f"writing {where.name}"))
            else:
                message = "no space left on the device while writing; free some space"
            raise click.ClickException(message) from exc
        raise click.ClickException(
            f"{exc.filename or ''}: {exc.strerror or exc}".lstrip(": ")
        ) from exc


def open_memory(
    home: Path | None,
    threads: int | None = None,
    qdrant_url: str | None = None,
    model: str | None = None,
    *,
    brief: bool = False,
    create: bool = False,
    catch_up: bool = True,
    progress: bool = True,
) -> Any:
    """Open the folder for a command (``brief``: a short read an import may wait for).

    Only a command that writes new records (``add``) passes ``create=True``: a read command
    given a typo'd ``--home`` says there is no memory folder there and leaves the path alone.
    Log lines the index missed (a crash) are indexed first, with progress unless
    ``progress`` is False (``--quiet``, ``--json``); ``catch_up=False`` leaves them to the
    command (``reindex`` rebuilds everything anyway).
    """
    from ..memory import Memory

    opening = Memory.open(
        home or default_home(),
        threads=threads,
        qdrant_url=qdrant_url,
        model=model,
        brief=brief,
        create=create,
        catch_up=False,
    )
    return told(opening, catch_up=catch_up, progress=progress)


@asynccontextmanager
async def told(
    opening: Any, *, catch_up: bool = False, progress: bool = True
) -> AsyncIterator[Memory]:
    """Open a memory, say on stderr, once, what opening repaired, and catch up its index."""
    from ..folder.manifest import opening_line  # loaded by the open already

    async with opening as memory:
        for repair in memory.repairs:
            click.echo(for_terminal(opening_line(repair), quoted=True), err=True)
        if catch_up and not memory.remote:  # a service catches up its own folder
            # Here, not at the top: the progress bar's library (tqdm, which reads package
            # metadata) is ~40 ms of the start of commands that never show one (`status`).
            from ..pipeline.progress import steps

            with steps("catching up the index", enabled=progress) as shown:
                await memory.catch_up(on_progress=shown)
        yield memory


async def no_model() -> Any:
    raise click.ClickException("this command does not load the model")  # pragma: no cover


def open_light(home: Path | None, qdrant_url: str | None = None, *, brief: bool = False) -> Any:
    """Open an existing folder without the model: for commands that only read or delete."""
    from ..memory import Memory

    return told(
        Memory.open(
            home or default_home(),
            embedder=no_model,
            qdrant_url=qdrant_url,
            create=False,
            catch_up=False,
            brief=brief,
        )
    )
