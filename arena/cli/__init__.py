"""The ``arena`` command line.

Sub-commands live in :mod:`arena.cli` (one module per concern) and are attached here, so
this file only knows their names. The website's ``arena web`` lives in the web layer
(``web/command.py``): the platform never imports ``web``, it attaches that module by name when
it is installed, like any part a build may leave out. User mistakes (unknown game, bad player count, missing file)
are reported as one clear line (``Error: …`` on stderr) and exit code 1, or 2 for a wrong use
of the command — never a traceback.
"""

from __future__ import annotations

import importlib
import sys

import click

from arena import SettingError
from arena.quoting import shorten
from referee.engine import EngineError

#: Modules that contribute sub-commands, in help order: a bare name is a module of
#: arena.cli; a dotted one is a module of a layer or a room above the CLI (arena.datasets),
#: loaded by name only.
COMMAND_MODULES = ("games", "play", "fork", "benchmarks.command", "tournament", "season", "server", "client", "challenge", "author", "connect",
                   "collusion", "records", "arena.datasets.export", "web.command")


class ArenaGroup(click.Group):
    """Turns the engine's own errors for bad input into clean CLI errors."""

    def invoke(self, ctx: click.Context):  # type: ignore[override]
        try:
            return super().invoke(ctx)
        except (EngineError, SettingError) as exc:
            raise click.ClickException(str(exc)) from None
        except click.UsageError as exc:
            # A refusal written by a command (plain UsageError, not click's parsing errors)
            # says what is wrong and what to type: one line, without click's usage and
            # "Try --help" lines around it. Exit code 2 either way.
            if type(exc) is click.UsageError:
                exc.ctx = None
            raise
        except Exception as exc:
            message = database_failure(exc)
            if message is None:
                raise
            raise click.ClickException(message) from None


def database_failure(exc: BaseException) -> str | None:
    """One line for a database that cannot be reached or opened (a server down, a wrong host,
    password or file), None for anything else (a bug keeps its traceback). SQLAlchemy is only
    looked at when it was imported: a command that never opened the database cannot fail so."""
    sa_exc = sys.modules.get("sqlalchemy.exc")
    if sa_exc is None or not isinstance(exc, sa_exc.OperationalError | sa_exc.InterfaceError):
        return None
    from arena.db.session import database_url, url_for_display

    reason = " ".join(str(exc.orig or exc).split()) or type(exc).__name__
    try:
        where = url_for_display(database_url())
    except SettingError:
        where = "the database"
    return f"cannot use the database {where}: {shorten(reason, 300)}"


@click.group(cls=ArenaGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="tabletop-arena")
def cli() -> None:
    """Tabletop Arena: AI bots play Black Angel, Star Scrappers: Orbital and Solenia; tournaments, ratings, replays."""
    check_shortcuts()


#: Modules that register shortcuts (docs/shortcuts.md), imported so ``ARENA_SHORTCUTS`` is
#: checked against every name before any command runs.
SHORTCUT_MODULES = ("referee.direct_stream", "arena.sdk.bot_server")


def check_shortcuts() -> None:
    """A malformed ``ARENA_SHORTCUTS`` (an unknown name, a typo) is one line at start-up, not a
    shortcut silently left on."""
    from referee import shortcuts

    for name in SHORTCUT_MODULES:
        importlib.import_module(name)
    try:
        shortcuts.check_setting()
    except shortcuts.ShortcutSettingError as exc:
        raise click.ClickException(str(exc)) from None


def _load_commands() -> None:
    for name in COMMAND_MODULES:
        module_name = name if "." in name else f"arena.cli.{name}"
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as exc:
            if exc.name == module_name:
                continue  # that part of the platform is not installed in this build
            raise
        module.register(cli)


_load_commands()


def main() -> None:
    try:
        cli.main(prog_name="arena")
    except KeyboardInterrupt:
        click.echo("interrupted", err=True)
        sys.exit(130)
