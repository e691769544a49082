"""The ``memtrails`` command group."""

from __future__ import annotations

import difflib
from collections.abc import Iterator
from contextlib import contextmanager
from importlib import import_module

import click

from ._terminal import safe_error

__all__ = ["main"]

# Which module defines each command. A command's module is imported when the command runs
# (or when the help lists them all): `memtrails status` then loads what status needs, not
# what `add` does (the importers, the model runtime, the secret rules).
COMMANDS = {
    "add": "_add",
    "check": "_maintain",
    "forget": "_maintain",
    "mcp": "_mcp",
    "move": "_move",
    "optimize": "_maintain",
    "reindex": "_maintain",
    "search": "_read",
    "serve": "_serve",
    "show": "_sources",
    "sources": "_sources",
    "status": "_status",
    "watch": "_watch",
}


class SuggestingGroup(click.Group):
    """A group that names the commands closest to a typo'd one (click suggests only for
    options: `memtrails serch` said 'No such command' and nothing more)."""

    def resolve_command(
        self, ctx: click.Context, args: list[str]
    ) -> tuple[str | None, click.Command | None, list[str]]:
        name = args[0] if args else ""
        unknown = name and not name.startswith("-") and not ctx.resilient_parsing
        if unknown and self.get_command(ctx, name) is None:
            close = difflib.get_close_matches(name, self.list_commands(ctx), n=3, cutoff=0.6)
            if close:
                ctx.fail(
                    f"No such command {name!r}. Did you mean {' or '.join(repr(c) for c in close)}?"
                )
        return super().resolve_command(ctx, args)


class LazyGroup(SuggestingGroup):
    """A group whose commands register themselves when their module is imported."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*COMMANDS, *self.commands})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        module = COMMANDS.get(cmd_name)
        if cmd_name not in self.commands and module is not None:
            import_module(f"{__package__}.{module}")
        return self.commands.get(cmd_name)

    # Every error click prints, its own (a bad option value, an extra argument, an unknown
    # command, all of which quote what was typed) and the commands', is escaped here, once.
    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        with _terminal_safe_errors():
            return super().parse_args(ctx, args)

    def invoke(self, ctx: click.Context) -> object:
        with _terminal_safe_errors():
            return super().invoke(ctx)


@contextmanager
def _terminal_safe_errors() -> Iterator[None]:
    try:
        yield
    except click.ClickException as exc:
        safe_error(exc)
        raise


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="memtrails")
def main() -> None:
    """Stream mail, chat, Git history, notes and JSON Lines into a searchable memory folder."""
