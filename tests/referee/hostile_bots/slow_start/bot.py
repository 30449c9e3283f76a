"""Hostile: takes far longer than the start-up deadline before it serves."""

import time

from arena.sdk import serve_bot


def act(observation: dict, legal_options: list) -> str:
    return legal_options[0].id


if __name__ == "__main__":
    time.sleep(60)
    serve_bot(act)
