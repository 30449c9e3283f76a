"""``arena matches`` and ``arena ladder start|stop|status``: a bot author's view of a server.

``arena matches`` prints full match ids (what ``arena watch`` and ``arena fork`` take; any
unique prefix works too). ``arena ladder`` (from :mod:`arena.cli.tournament`: ``arena
ladder GAME`` shows the local ladder, ``arena ladder run GAME`` runs it here) gains ``start``,
``stop`` and ``status``, which act on a server's ladder over the API.
"""

from __future__ import annotations

import click

from arena.cli import terminal
from arena.cli.client import _client, _grpc_errors, _need_token, _server_option
from referee._proto import arena_pb2

#: ``ListMatches`` statuses by the words ``--status`` accepts.
STATUSES = ("pending", "running", "done", "failed")


def _bot_id(client: object, bot: str, game: str) -> int:
    """A bot id from ``--bot``: the id itself, or a bot's name (unique among the server's bots)."""
    if bot.isascii() and bot.isdigit():  # "²".isdigit() is true too, and int() refuses it
        if int(bot) >= 2**63:
            raise click.UsageError(f"--bot {bot[:30]}: no bot has so large an id")
        return int(bot)
    found = [b for b in client.bots(game=game) if b.name == bot]  # type: ignore[attr-defined]
    if not found:
        raise click.UsageError(f"--bot {bot}: no bot of that name on the server"
                               + (f" for {game}" if game else ""))
    if len(found) > 1:
        owners = ", ".join(f"{b.id} (owner {b.owner}, {b.game})" for b in found)
        raise click.UsageError(f"--bot {bot}: several bots have that name: {owners}; give the id")
    return int(found[0].id)


def _seat_text(seat: arena_pb2.MatchSeat, done: bool) -> str:
    text = f"{seat.bot} v{seat.version}"
    if done:
        text += f" {seat.score:g} (#{seat.rank})"
    if seat.forfeit_reason:
        text += f" forfeit: {seat.forfeit_reason}"
    if seat.voids:
        text += f" ({seat.voids} void {'try' if seat.voids == 1 else 'tries'} at its decisions)"
    return text


@click.command("matches")
@click.option("--game", default="", help="Only matches of this game.")
@click.option("--bot", default="", metavar="NAME_OR_ID", help="Only matches this bot played.")
@click.option("--live", is_flag=True, help="Only matches being played now (watch them: arena watch ID).")
@click.option("--status", type=click.Choice(STATUSES), default=None, help="Only matches in this state.")
@click.option("--limit", type=click.IntRange(1, 500), default=20, show_default=True, help="Rows to show.")
@_server_option
@_grpc_errors
def matches_command(game: str, bot: str, live: bool, status: str | None, limit: int, server: str) -> None:
    """List matches, newest first, with their full ids."""
    if live and status not in (None, "running"):
        raise click.UsageError("--live lists running matches; it cannot be combined with --status "
                               f"{status}")
    with _client(server) as client:
        bot_id = _bot_id(client, bot, game) if bot else 0
        reply = client.matches(game=game, bot_id=bot_id, status="running" if live else status or "",
                               page_size=limit)
    if not reply.matches:
        click.echo("no matches")
        return
    for m in reply.matches:
        when = m.finished_at or m.created_at
        seats = " · ".join(_seat_text(s, m.status == "done") for s in m.seats)
        terminal.echo(f"{m.id}  {m.game:<12} {m.status:<8} {when[:19]:<19}  {seats}")


def _echo_ladder(ladder: arena_pb2.Ladder) -> None:
    state = "running" if ladder.enabled else "stopped"
    terminal.echo(f"ladder {ladder.game} ({ladder.variant or 'default variant'}): {state}")
    terminal.echo(f"  matches: {ladder.matches_pending} pending, {ladder.matches_running} running, "
                  f"{ladder.matches_done} done, {ladder.matches_failed} failed")
    terminal.echo(f"  house bots: {ladder.house_bots}" if ladder.house_bots else "  house bots: none")


@click.command("start")
@click.argument("game")
@click.option("--variant", default="", help="Variant (default: the game's).")
@click.option("--decision-ms", type=click.IntRange(0), default=0, help="Time per decision (0: the game's).")
@click.option("--bank-ms", type=click.IntRange(0), default=0, help="Bank per seat (0: the game's).")
@click.option("--house/--no-house", default=True, show_default=True,
              help="Seat the house bots (random, greedy, search): the rating scale's reference points.")
@_server_option
@_grpc_errors
def ladder_start(game: str, variant: str, decision_ms: int, bank_ms: int, house: bool, server: str) -> None:
    """Start GAME's ladder on the server (organisers).

    A solo-only variant (e.g. black_angel solo-d10) plays one seat against the engine's
    automaton, which is rated like a player."""
    with _client(server, _need_token()) as client:
        _echo_ladder(client.start_ladder(game, variant, decision_ms, bank_ms, house=house))


@click.command("stop")
@click.argument("game")
@_server_option
@_grpc_errors
def ladder_stop(game: str, server: str) -> None:
    """Stop GAME's ladder on the server (organisers); matches already queued finish."""
    with _client(server, _need_token()) as client:
        _echo_ladder(client.stop_ladder(game))


@click.command("status")
@click.argument("game")
@_server_option
@_grpc_errors
def ladder_status(game: str, server: str) -> None:
    """Show GAME's ladder on the server."""
    with _client(server) as client:
        _echo_ladder(client.ladder(game))


def register(group: click.Group) -> None:
    group.add_command(matches_command)
    ladder = group.commands.get("ladder")
    if not isinstance(ladder, click.Group):  # a build without arena.cli.tournament
        ladder = click.Group("ladder", help="A server's ladder: arena ladder start|stop|status GAME.")
        group.add_command(ladder)
    ladder.help = (ladder.help or "") + ("\n" if ladder.help else "") + \
        "arena ladder start|stop|status GAME   a server's ladder (--server)"
    for command in (ladder_start, ladder_stop, ladder_status):
        ladder.add_command(command)
