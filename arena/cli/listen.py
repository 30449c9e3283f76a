"""Is a port free to listen on? Asked by ``arena serve`` and ``arena web`` before they say
anything, so a port in use is one line ("cannot listen on …: the port is in use") instead of a
"server on …" announcement, start-up logs and the server library's own error after it."""

from __future__ import annotations

import errno
import socket

import click

from arena.quoting import shorten


def check_can_listen(host: str, port: int) -> None:
    """Bind (and close) a socket on every address of ``host``:``port``; a
    :class:`click.ClickException` when one is taken or not ours to take. Other failures (no
    IPv6 here, an address of another machine) are left to the server, which says them itself.
    ``SO_REUSEADDR`` as servers set it, so a port a previous run left in TIME_WAIT counts as
    free; another process listening on it does not."""
    try:
        infos = socket.getaddrinfo(host.strip("[]") or None, port, type=socket.SOCK_STREAM,
                                   flags=socket.AI_PASSIVE)
    except (socket.gaierror, UnicodeError) as exc:
        raise click.ClickException(f"cannot listen on {shorten(host)}:{port}: the address is "
                                   f"unknown ({exc})") from None
    for family, kind, proto, _, address in infos:
        with socket.socket(family, kind, proto) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                probe.bind(address)
            except OSError as exc:
                if exc.errno == errno.EADDRINUSE:
                    raise click.ClickException(
                        f"cannot listen on {shorten(host)}:{port}: the port is in use (another "
                        "server? choose another with --port)") from None
                if exc.errno == errno.EACCES:
                    raise click.ClickException(
                        f"cannot listen on {shorten(host)}:{port}: permission denied (ports "
                        "below 1024 need root; choose another with --port)") from None
