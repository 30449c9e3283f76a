"""Hostile: serves on a socket of its own in /tmp and puts a symbolic link where its socket
belongs, pointing at the host socket named in target.txt, so that a referee that follows it
dials a host service of the bot's choice."""

import os
import sys
from pathlib import Path

from arena.sdk import serve_bot

TARGET = (Path(__file__).parent / "target.txt").read_text().strip()
SOCK = os.environ["ARENA_BOT_ADDRESS"].removeprefix("unix:")


def act(observation: dict, legal_options: list) -> str:
    return legal_options[0].id


if __name__ == "__main__":
    os.symlink(TARGET, SOCK)
    serve_bot(act, argv=["--address", "unix:/tmp/real.sock"])
    sys.exit(0)
