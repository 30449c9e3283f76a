"""Hostile: tries to write a 1 GiB file in /tmp, and files in its code and socket folders;
reports how far it got in its comment."""

import errno
import os

from arena.sdk import serve_bot

CHUNK = b"\0" * (1 << 20)


def write_big(path: str) -> str:
    written = 0
    try:
        with open(path, "wb") as fh:
            for _ in range(1024):
                fh.write(CHUNK)
                fh.flush()
                written += 1
        return f"big={written}MiB done"
    except OSError as exc:
        return f"big={written}MiB {errno.errorcode.get(exc.errno, exc.errno)}"


def write_small(path: str) -> str:
    try:
        with open(path, "w") as fh:
            fh.write("x")
        return f"{path}=WROTE"
    except OSError as exc:
        return f"{path}={errno.errorcode.get(exc.errno, exc.errno)}"


def act(observation: dict, legal_options: list):
    sock_dir = os.path.dirname(os.environ["ARENA_BOT_ADDRESS"].removeprefix("unix:"))
    notes = [
        write_big("/tmp/big"),
        write_small(os.path.join(os.path.dirname(os.path.abspath(__file__)), "dropped.txt")),
        write_small(os.path.join(sock_dir, "dropped.txt")),
    ]
    return legal_options[0].id, " ".join(notes)


if __name__ == "__main__":
    serve_bot(act)
