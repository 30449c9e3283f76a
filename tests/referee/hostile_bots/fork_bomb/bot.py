"""Hostile: forks until the kernel refuses, leaving every child asleep, then crashes."""

import os
import sys
import time

from arena.sdk import serve_bot


def act(observation: dict, legal_options: list) -> str:
    forks = 0
    while True:
        try:
            pid = os.fork()
        except OSError as exc:
            print(f"fork_bomb: fork failed after {forks} forks: {exc!r}", file=sys.stderr, flush=True)
            os._exit(9)
        if pid == 0:
            time.sleep(3600)
            os._exit(0)
        forks += 1
        if forks >= 5000:
            print(f"fork_bomb: {forks} forks and no limit", file=sys.stderr, flush=True)
            os._exit(9)


if __name__ == "__main__":
    serve_bot(act)
