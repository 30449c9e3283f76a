"""Hostile: answers its first decision, then sleeps far past the deadline and the bank."""

import time

from arena.sdk import serve_bot

calls = 0


def act(observation: dict, legal_options: list) -> str:
    global calls
    calls += 1
    if calls >= 2:
        time.sleep(60)
    return legal_options[0].id


if __name__ == "__main__":
    serve_bot(act)
