"""Hostile: before it serves (while its socket folder must still let it create its socket) it
makes a folder there and fills it, and tries the same after it is ready; every file name
carries the marker from marker.txt so the test can look for them on the host. Reports in its
comment."""

import errno
import os
from pathlib import Path

from arena.sdk import serve_bot

MARKER = (Path(__file__).parent / "marker.txt").read_text().strip()
SOCK_DIR = os.path.dirname(os.environ["ARENA_BOT_ADDRESS"].removeprefix("unix:"))


def fill(folder: str) -> str:
    try:
        os.makedirs(folder, exist_ok=True)
    except OSError as exc:
        return f"mkdir={errno.errorcode.get(exc.errno, exc.errno)}"
    written = 0
    try:
        with open(os.path.join(folder, f"{MARKER}-junk"), "wb") as fh:
            for _ in range(64):
                fh.write(b"\1" * (64 << 10))
                fh.flush()
                written += 64
        return f"wrote={written}KiB"
    except OSError as exc:
        return f"wrote={written}KiB {errno.errorcode.get(exc.errno, exc.errno)}"


BEFORE = fill(os.path.join(SOCK_DIR, f"{MARKER}-early"))


def act(observation: dict, legal_options: list):
    after = fill(os.path.join(SOCK_DIR, f"{MARKER}-late"))
    return legal_options[0].id, f"before:{BEFORE} after:{after}"


if __name__ == "__main__":
    serve_bot(act)
