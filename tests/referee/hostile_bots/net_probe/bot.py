"""Hostile: tries to open TCP connections (to the referee's loopback, to the internet) and
reports what happened in its comment."""

import errno
import socket
from pathlib import Path

from arena.sdk import serve_bot

PORT = int((Path(__file__).parent / "port.txt").read_text())


def probe(host: str, port: int) -> str:
    try:
        with socket.create_connection((host, port), timeout=1.0):
            return f"{host}:{port} CONNECTED"
    except OSError as exc:
        return f"{host}:{port} {errno.errorcode.get(exc.errno or 0, type(exc).__name__)}"


def act(observation: dict, legal_options: list):
    return legal_options[0].id, "; ".join([probe("127.0.0.1", PORT), probe("1.1.1.1", 53)])


if __name__ == "__main__":
    serve_bot(act)
