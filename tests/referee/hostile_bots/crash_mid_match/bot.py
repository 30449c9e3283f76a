"""Hostile: plays two decisions, then its process dies in the middle of the third."""

import os
import sys

from arena.sdk import serve_bot

calls = 0


def act(observation: dict, legal_options: list) -> str:
    global calls
    calls += 1
    if calls == 3:
        print("crash_mid_match: dying now", file=sys.stderr, flush=True)
        os._exit(7)
    return legal_options[0].id


if __name__ == "__main__":
    serve_bot(act)
