"""``arena web``: serve the website (leaderboards, bot pages, match history, replays, JSON API).

The website's own sub-command of the ``arena`` CLI, kept in the web layer: the platform
(``arena/``) never imports ``web`` (layers: ``referee/`` -> ``arena/`` -> ``web/``); its CLI
attaches this module by name when it is installed (:data:`arena.cli.COMMAND_MODULES`), and
``arena demo`` serves the site through this command.
"""

from __future__ import annotations

import os

import click

#: waitress's worker threads. ``/play``'s long polls may hold at most
#: ``web.play.LONG_POLL_WAITERS`` (6) of them and its plain form posts ``CHOICE_WAITERS`` (2):
#: at least 6 always serve pages.
THREADS = 14


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
    serve_site(database_url, host, port, debug=debug)


def serve_site(database_url: str | None, host: str, port: int, debug: bool = False) -> None:
    """Serve the site until Ctrl+C: waitress (a production WSGI server) unless debugging.

    Flask's own server is only for development (reloader, tracebacks in the browser).
    """
    from arena.cli.listen import check_can_listen
    from web.app import create_app  # on use: ``arena --help`` need not load Flask

    if os.environ.get("WERKZEUG_RUN_MAIN") != "true":  # --debug's reloaded child: the parent holds it
        check_can_listen(host, port)  # before the "website on" line: a taken port is one line
    app = create_app(database_url)
    click.echo(f"Tabletop Arena website on http://{host}:{port}/  (Ctrl+C stops it)")
    try:
        if debug:
            app.run(host=host, port=port, debug=True, use_reloader=True, threaded=True)
        else:
            from waitress import serve

            serve(app, host=host, port=port, threads=THREADS, ident="tabletop-arena")
    except OSError as exc:
        raise click.ClickException(
            f"cannot listen on {host}:{port}: {exc.strerror or exc}"
        ) from None


def register(group: click.Group) -> None:
    group.add_command(web_command)
