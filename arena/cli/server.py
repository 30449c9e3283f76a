"""``arena serve``: run the Arena gRPC server; ``arena organiser NAME``: grant the organiser role.

``organiser`` is an operator's command run on the server machine (it writes the database
directly): no gRPC call can make anyone an organiser, so a stolen user token cannot either.
"""

from __future__ import annotations

import logging
from pathlib import Path

import click

from arena.cli.listen import check_can_listen
from arena.server.errors import ApiError
from referee.tls import TlsError


@click.command("serve")
@click.option("--port", default=50051, show_default=True, type=click.IntRange(0, 65535),
              help="TCP port to listen on (0: any free one).")
@click.option("--host", default="[::]", show_default=True, help="Interface to listen on.")
@click.option(
    "--data-dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Where uploaded bots are stored (default: $ARENA_DATA_DIR, $ARENA_HOME or ~/.local/share/tabletop-arena).",
)
@click.option("--unsafe-no-sandbox", is_flag=True, help="Run qualification matches without bubblewrap (development only).")
@click.option(
    "--tls-cert", type=click.Path(dir_okay=False, path_type=Path), envvar="ARENA_TLS_CERT", default=None,
    help="Serve TLS only, with this certificate chain (PEM) [$ARENA_TLS_CERT].",
)
@click.option(
    "--tls-key", type=click.Path(dir_okay=False, path_type=Path), envvar="ARENA_TLS_KEY", default=None,
    help="The private key (PEM) of --tls-cert [$ARENA_TLS_KEY].",
)
def serve_command(
    port: int, host: str, data_dir: Path | None, unsafe_no_sandbox: bool, tls_cert: Path | None, tls_key: Path | None
) -> None:
    """Serve the Arena gRPC API (with health checking and reflection) until Ctrl-C.

    Without --tls-cert/--tls-key the port is plaintext: put it behind a TLS proxy or keep it
    on a private network, since API tokens and bot archives cross it.
    """
    from arena.db import database_url
    from arena.db.session import check_database, wait_for_db
    from arena.server.app import serve
    from arena.server.config import ServerConfig

    check_can_listen(host, port)  # before the announcement below: a taken port is one line
    check_database()  # and so is a database setting that cannot work
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    logging.getLogger("alembic").setLevel(logging.WARNING)  # its per-plugin set-up lines
    try:
        config = ServerConfig()
    except ValueError as exc:  # a malformed ARENA_MAX_STREAMS… setting
        raise click.ClickException(str(exc)) from None
    if data_dir is not None:
        config.data_dir = data_dir
    if unsafe_no_sandbox:
        config.sandbox = False
    config.tls_cert, config.tls_key = tls_cert, tls_key
    try:
        config.bots_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise click.ClickException(
            f"cannot create the bots folder {config.bots_dir}: {exc.strerror or exc}; pass "
            "--data-dir or set ARENA_DATA_DIR (or ARENA_HOME) to a folder you can write") from None
    mode = "TLS" if tls_cert or tls_key else "plaintext (no --tls-cert)"
    click.echo(f"arena server on {host}:{port} ({mode}); database {database_url()}; bots in {config.bots_dir}", err=True)
    wait_for_db()  # started before PostgreSQL: wait for it (a log line per attempt), do not exit
    try:
        serve(port=port, host=host, config=config)
    except TlsError as exc:
        raise click.ClickException(str(exc)) from None
    except OSError as exc:
        raise click.ClickException(f"cannot serve on {host}:{port}: {exc}") from None


@click.command("organiser")
@click.argument("name")
@click.option("--revoke", is_flag=True, help="Make NAME a plain user again.")
def organiser_command(name: str, revoke: bool) -> None:
    """Let user NAME create tournaments and run ladders (server-side, writes the database)."""
    from arena.db.accounts import ROLE_ORGANISER, ROLE_USER
    from arena.server.accounts import set_role

    try:
        user = set_role(name, ROLE_USER if revoke else ROLE_ORGANISER)
    except ApiError as exc:
        raise click.ClickException(exc.message) from None
    click.echo(f"user {user.name!r} is now {'an organiser' if user.role == ROLE_ORGANISER else 'a plain user'}")


def register(group: click.Group) -> None:
    group.add_command(serve_command)
    group.add_command(organiser_command)
