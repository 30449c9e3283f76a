"""``arena games``: what can be played, with which player counts and variants."""

from __future__ import annotations

import click

from referee import registry


@click.command("games")
def games_command() -> None:
    """List every hosted game, its player counts and variants."""
    for name in registry.game_names():
        try:
            spec = registry.get_spec(name)
        except ImportError as exc:
            click.echo(f"{name}: engine not available ({exc})")
            continue
        click.secho(f"{spec.name}  —  {spec.title}", bold=True)
        counts = ", ".join(str(p) for p in spec.player_counts)
        click.echo(f"  players: {counts}   default variant: {spec.default_variant}")
        tc = spec.time_control
        click.echo(f"  time control: {tc.decision_ms} ms per decision + {tc.bank_ms} ms bank")
        for variant in spec.variants:
            seats = ", ".join(str(p) for p, v in spec.configurations if v == variant)
            help_text = spec.variant_help.get(variant, "")
            click.echo(f"  - {variant:<16} players {seats:<10} {help_text}")


def register(group: click.Group) -> None:
    group.add_command(games_command)
