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
        # columns as wide as their longest entry, so a long variant name (solo-advanced-d10)
        # never pushes its row out of line
        rows = [(variant, ", ".join(str(p) for p, v in spec.configurations if v == variant),
                 spec.variant_help.get(variant, "")) for variant in spec.variants]
        name_w = max((len(v) for v, _, _ in rows), default=0)
        seats_w = max((len(s) for _, s, _ in rows), default=0)
        for variant, seats, help_text in rows:
            click.echo(f"  - {variant:<{name_w}}  players {seats:<{seats_w}}  {help_text}".rstrip())


def register(group: click.Group) -> None:
    group.add_command(games_command)
