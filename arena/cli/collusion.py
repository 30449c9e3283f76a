"""``arena collusion GAME``: pairs of authors whose results against each other the ratings do not
explain (arena.records.collusion) — for an organiser to look at, on the server machine (it reads the
database directly, like ``arena ratings rebuild``)."""

from __future__ import annotations

import json

import click

from arena.cli import terminal
from arena.quoting import shorten
from referee import registry


@click.command("collusion")
@click.argument("game")
@click.option("--min-games", type=click.IntRange(1), default=None,
              help="Pairwise games two authors need before they can be flagged [default: 10].")
@click.option("--threshold", type=click.FloatRange(0.0, 1.0, min_open=True, max_open=True), default=None,
              help="Family-wise significance level: the chance that honest authors get any pair flagged "
                   "[default: 0.01].")
@click.option("--json", "as_json", is_flag=True, help="Print the whole report as JSON.")
@click.option("--all", "show_all", is_flag=True, help="List every pair, not the flagged and the 20 most suspicious.")
def collusion_command(game: str, min_games: int | None, threshold: float | None, as_json: bool,
                      show_all: bool) -> None:
    """Report pairs of authors at GAME whose results against each other the ratings do not
    explain: a seat that loses to one opponent far more often than predicted, and than it loses
    to the field (docs/tournaments-and-ratings.md, "The collusion report"). Exit status 3 when a
    pair is flagged."""
    from arena.db import session_scope
    from arena.records import collusion

    if game not in registry.game_names():
        raise click.UsageError(f"unknown game {shorten(game)!r}; games: {', '.join(registry.game_names())}")
    with session_scope() as s:
        rep = collusion.report(s, game, min_games or collusion.DEFAULT_MIN_GAMES,
                               threshold or collusion.DEFAULT_THRESHOLD)
    if as_json:
        click.echo(json.dumps(rep.to_dict(), indent=1, default=lambda v: None))
    else:
        terminal.echo(collusion.format_report(rep, None if show_all else 20))
    if rep.flagged:
        raise SystemExit(3)


def register(group: click.Group) -> None:
    group.add_command(collusion_command)
