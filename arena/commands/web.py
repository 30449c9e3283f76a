"""``arena web``: serve the website (leaderboards, bot pages, match history, replays, JSON API)."""

from __future__ import annotations

import click


@click.command("web")
@click.option(
    "--port",
    default=5000,
    show_default=True,
    type=click.IntRange(1, 65535),
    help="TCP port to listen on.",
)
@click.option(
    "--host",
    default="127.0.0.1",
    show_default=True,
    help="Address to bind; 0.0.0.0 serves other machines too.",
)
@click.option(
    "--database",
    "database_url",
    default=None,
    metavar="URL",
    help="Database URL (default: ARENA_DATABASE_URL or the per-user SQLite file).",
)
@click.option("--debug", is_flag=True, help="Reload on code changes and show tracebacks.")
def web_command(port: int, host: str, database_url: str | None, debug: bool) -> None:
    """Serve the Tabletop Arena website."""
    from web.app import create_app

    app = create_app(database_url)
    click.echo(f"Tabletop Arena website on http://{host}:{port}/  (Ctrl+C stops it)")
    try:
        app.run(host=host, port=port, debug=debug, use_reloader=debug, threaded=True)
    except OSError as exc:
        raise click.ClickException(
            f"cannot listen on {host}:{port}: {exc.strerror or exc}"
        ) from None


def register(group: click.Group) -> None:
    group.add_command(web_command)
