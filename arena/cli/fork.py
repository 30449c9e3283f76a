"""``arena fork MATCH --at N --seat S --bot DIR``: play an archived match on from decision N
with another bot in seat S (see :mod:`arena.records.fork`)."""

from __future__ import annotations

import os
from pathlib import Path

import click

from arena.cli import terminal
from arena.cli.play import _Progress, _result_table, check_bots, check_out
from arena.sdk.client import SERVER_ENV
from referee.engine import ConfigError, TimeControl


@click.command("fork")
@click.argument("match")
@click.option("--at", "at", type=int, required=True,
              help="the replay page's step N (the board after N decisions): those N decisions "
                   "are replayed from the record, the new bot plays the next one on")
@click.option("--seat", type=int, required=True, help="the seat the new bot takes over")
@click.option("--bot", required=True, metavar="PATH_OR_NAME",
              help="the new bot: a folder with bot.py, host:port, or random, greedy, ismcts, learned")
@click.option("--others", default=None, metavar="PATH_OR_NAME",
              help="the bot for the other seats whose recorded bot is not on this machine")
@click.option("--db", "db_url", default=None,
              help="database to look MATCH up in (default: $ARENA_DATABASE_URL or the local one; "
                   "wins over $ARENA_SERVER)")
@click.option("--server", default=None, metavar="HOST:PORT",
              help="look MATCH up on this arena server (over the API) instead of the database "
                   "[default: $ARENA_SERVER, as for the other server commands; TLS from "
                   "$ARENA_TLS / $ARENA_TLS_CA]")
@click.option("--out", type=click.Path(dir_okay=False), default=None,
              help="write the forked match's record (JSON) here")
@click.option("--decision-ms", type=int, default=None, help="time per decision (default: the original's)")
@click.option("--bank-ms", type=int, default=None, help="overage bank per seat (default: the original's)")
@click.option("--unsafe-no-sandbox", is_flag=True, default=False,
              help="run hosted bots WITHOUT bubblewrap isolation (only for your own code)")
def fork_command(
    match: str,
    at: int,
    seat: int,
    bot: str,
    others: str | None,
    db_url: str | None,
    server: str | None,
    out: str | None,
    decision_ms: int | None,
    bank_ms: int | None,
    unsafe_no_sandbox: bool,
) -> None:
    """Play MATCH on from decision --at with --bot in --seat.

    MATCH is a record file (``arena play --out``), a match page URL of the website, or the id
    (or a unique id prefix) of a match on an arena server (--server, else $ARENA_SERVER) or,
    without one (or with --db), in the database. The
    other seats are played by their recorded bots when those are on this machine, otherwise
    by --others. The new record names its origin. Exits 1 when a seat forfeits after the fork
    point."""
    from arena.intake.house_bots import UnknownBuiltin, resolve
    from arena.records import fork
    from referee.match import run_match

    check_out(out)
    if server is None and db_url is None:
        server = os.environ.get(SERVER_ENV, "").strip() or None  # as every server command does
    try:
        original = fork.load(match, db_url, server)
        game = original.record.game
        new_bot = resolve(bot, game)
        other_bot = resolve(others, game) if others is not None else None
    except (fork.ForkError, UnknownBuiltin) as exc:
        raise click.UsageError(str(exc)) from None
    check_bots("--bot", [new_bot])
    check_bots("--others", [other_bot] if other_bot is not None else [])
    tc = original.record.time_control
    time_control = TimeControl(decision_ms if decision_ms is not None else tc["decision_ms"],
                               bank_ms if bank_ms is not None else tc["bank_ms"])
    try:
        config = fork.plan(original, at, seat, new_bot, other_bot, sandbox=not unsafe_no_sandbox,
                           time_control=time_control)
    except fork.ForkError as exc:
        raise click.UsageError(str(exc)) from None
    if unsafe_no_sandbox:
        click.echo("warning: hosted bots run WITHOUT a sandbox (--unsafe-no-sandbox)", err=True)
    click.echo(f"fork of {original.record.match_id} at decision {at}, seat {seat}: "
               f"match {config.match_id}", err=True)
    try:
        record = run_match(config, on_event=_Progress())
    except ConfigError as exc:
        raise click.ClickException(str(exc)) from None
    terminal.echo(_result_table(record))
    if out:
        Path(out).write_text(record.to_json(indent=1) + "\n", encoding="utf-8")
        click.echo(f"record written to {out}", err=True)
    new_forfeits = [f for f in record.forfeits if f.decision >= at]
    for f in new_forfeits:
        terminal.echo(f"seat {f.seat} forfeited at decision {f.decision}: {f.reason} ({f.message})")
    if new_forfeits:
        raise SystemExit(1)


def register(group: click.Group) -> None:
    group.add_command(fork_command)
