"""``arena connect DIR``: run a local bot folder as a bot that dials in to an Arena server.

The folder's bot (``bot.py``, or the command its ``bot.json`` names — any language) is started
on this machine, unsandboxed (it is the owner's own code), listening on a private Unix socket;
this process opens the ``ConnectBot`` stream to the server with the owner's token and passes
every call on to it. No port is opened to the outside, so it works behind NAT; a dropped
connection is re-established (the match it cut is forfeited, the next ones are played).
"""

from __future__ import annotations

import threading
from pathlib import Path

import click
import grpc

from arena.cli.client import _need_token, _server_option
from referee.manifest import has_entry


@click.command("connect")
@click.argument("folder", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--game", required=True, help="The game the bot plays (see `arena games`).")
@click.option("--name", default=None, help="The bot's name on the server [the folder's name].")
@_server_option
def connect_command(folder: Path, game: str, name: str | None, server: str) -> None:
    """Play FOLDER's bot on the server by dialling in (no inbound port); Ctrl+C to stop."""
    from arena.sdk.connect import ConnectError, ForwardingDialInBot
    from referee.sandbox import BotProcess, SandboxError

    if not has_entry(folder):
        raise click.ClickException(f"{folder} has no bot.py (nor a bot.json manifest)")
    token = _need_token()
    meta = click.get_current_context().meta
    name = name or folder.resolve().name
    try:
        process = BotProcess(folder, sandbox=False)
    except SandboxError as exc:
        raise click.ClickException(str(exc)) from None
    local = grpc.insecure_channel(process.dial_address())  # unsandboxed: its socket path, at once
    bot = ForwardingDialInBot(local, server, token, name, game,
                              tls=bool(meta.get("arena.tls")) or None, ca=meta.get("arena.tls_ca"))

    def watch_process() -> None:
        while process.exit_status() is None and not bot.wait_stopped(0.5):
            pass
        if process.exit_status() is not None:
            bot.stop()

    threading.Thread(target=watch_process, daemon=True).start()
    try:
        bot.run()
    except ConnectError as exc:
        raise click.ClickException(f"the server refused the bot: {exc}") from None
    except KeyboardInterrupt:
        bot.stop()
    finally:
        local.close()
        died = process.exit_status() is not None
        tail = process.output.text() if died else ""
        what = process.describe_exit()
        process.stop()
    if died:
        raise click.ClickException(f"the bot {what}" + (f"; its last output:\n{tail}" if tail else ""))


def register(group: click.Group) -> None:
    group.add_command(connect_command)
