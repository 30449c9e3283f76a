"""Hostile for the warm pool: plays legally, but in its first decision leaves something behind
for the time between matches, chosen by mode.txt: `child` (a child process that lives on),
`memory` (600 MiB it keeps), `files` (a file in /tmp), `shm` (a file in /dev/shm), `spin` (a
thread that burns CPU once the match is over)."""

import os
import threading
import time
from pathlib import Path

from arena.sdk import serve_bot

MODE = (Path(__file__).parent / "mode.txt").read_text().strip()
kept: list[bytes] = []
done = False


def spin() -> None:
    while True:
        pass


def act(observation: dict, legal_options: list) -> str:
    global done
    if not done:
        done = True
        if MODE == "child" and os.fork() == 0:
            time.sleep(3600)
            os._exit(0)
        if MODE == "memory":
            kept.append(b"\1" * (600 << 20))
        if MODE == "files":
            Path("/tmp/state-for-next-match").write_text("remember me")
        if MODE == "shm":
            Path("/dev/shm/state").write_text("remember me")
    return legal_options[0].id


def end(summary: dict) -> None:
    if MODE == "spin":
        threading.Thread(target=spin, daemon=True).start()


if __name__ == "__main__":
    serve_bot(act, end=end)
