"""``arena challenge MY_BOT OTHER_BOT``: challenge another user's active bot to a match now.

Bots are given by id or by name: ``MY_BOT`` among the caller's own bots, ``OTHER_BOT`` as
``OWNER/NAME`` or a bare name among the bots of ``MY_BOT``'s game. Every refusal (unknown bot,
another game, a cap reached …) is one line, never a traceback (see :mod:`arena.play.challenges`).
"""

from __future__ import annotations

import time

import click

from arena.cli import terminal
from arena.cli.client import _client, _grpc_errors, _need_token, _server_option
from arena.sdk.client import ArenaClient
from referee._proto import arena_pb2

_FINISHED = ("done", "failed")


def _id_or_none(text: str, what: str) -> int | None:
    """The id when ``text`` is one (ASCII digits), else None (a name)."""
    if text.isascii() and text.isdigit():
        if int(text) >= 2**63:
            raise click.UsageError(f"{what} {text[:30]}: no bot has so large an id")
        return int(text)
    return None


def _one(found: list[arena_pb2.Bot], what: str, text: str, where: str) -> arena_pb2.Bot:
    if not found:
        raise click.UsageError(f"{what} {text}: no bot of that name {where}")
    if len(found) > 1:
        which = ", ".join(f"{b.id} (owner {b.owner}, {b.game})" for b in found[:10])
        raise click.UsageError(
            f"{what} {text}: several bots have that name {where}: {which}; give the id"
        )
    return found[0]


def resolve_mine(client: ArenaClient, text: str) -> arena_pb2.Bot:
    """``MY_BOT``: an id, or the name of one of the caller's bots."""
    bot_id = _id_or_none(text, "MY_BOT")
    if bot_id is not None:
        return client.bot(bot_id).bot
    return _one(
        [b for b in client.all_bots(mine=True) if b.name == text], "MY_BOT", text, "among your bots"
    )


def resolve_other(client: ArenaClient, text: str, game: str) -> int:
    """``OTHER_BOT``: an id, ``OWNER/NAME``, or a name unique among ``game``'s bots."""
    bot_id = _id_or_none(text, "OTHER_BOT")
    if bot_id is not None:
        return bot_id
    owner, _, name = text.rpartition("/")
    found = [b for b in client.all_bots(game=game, owner=owner) if b.name == name]
    return _one(found, "OTHER_BOT", text, f"in {game}").id


@click.command("challenge")
@click.argument("my_bot")
@click.argument("other_bot")
@click.option(
    "--rated/--unrated",
    default=False,
    show_default=True,
    help="Count the match for both bots' ratings (default: unrated, the result is only shown).",
)
@click.option("--wait", is_flag=True, help="Wait for the match to end and print its result.")
@_server_option
@_grpc_errors
def challenge_command(my_bot: str, other_bot: str, rated: bool, wait: bool, server: str) -> None:
    """Challenge OTHER_BOT with your bot MY_BOT to a two-seat match, played now.

    MY_BOT is one of your bots (id or name); OTHER_BOT is another user's active bot of the same
    game (id, OWNER/NAME, or a name unique in that game). Challenges are capped per account
    (per hour, and not yet finished at once); the result shows on both bots' pages."""
    with _client(server, _need_token()) as client:
        mine = resolve_mine(client, my_bot)
        other_id = resolve_other(client, other_bot, mine.game)
        made = client.challenge(mine.id, other_id, rated)
    kind = "rated" if made.rated else "unrated"
    terminal.echo(
        f"challenge {made.id}: bot {made.bot_id} ({mine.name}) against bot {made.opponent_bot_id}, "
        f"{kind}; match {made.match_id} ({made.remaining_this_hour} challenges left this hour)"
    )
    if not wait:
        click.echo(f"  follow it with `arena watch {made.match_id}`")
        return
    _wait_for(server, made.match_id)


def _wait_for(server: str, match_id: str, interval: float = 1.0) -> None:
    """Poll the match until it ends, then print each seat's rank and score."""
    try:
        while True:
            with _client(server) as client:
                summary = client.match(match_id).summary
            if summary.status in _FINISHED:
                break
            time.sleep(interval)
    except KeyboardInterrupt:
        click.echo(f"\n  stopped waiting; the match goes on: `arena watch {match_id}`")
        raise SystemExit(130) from None
    if summary.status == "failed":
        raise click.ClickException(
            f"match {match_id} could not be played (a server error, not a bot fault)"
        )
    for seat in sorted(summary.seats, key=lambda s: (s.rank, s.seat)):
        forfeit = f", forfeit: {seat.forfeit_reason}" if seat.forfeit_reason else ""
        terminal.echo(f"  {seat.rank}. {seat.bot} v{seat.version}: {seat.score:g}{forfeit}")


def register(group: click.Group) -> None:
    group.add_command(challenge_command)
