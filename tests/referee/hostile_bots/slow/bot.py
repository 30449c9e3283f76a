"""Slow but honest: thinks 150 ms per decision, so each decision draws on the bank."""

import time

from arena.sdk import serve_bot


def act(observation: dict, legal_options: list) -> str:
    time.sleep(0.15)
    return legal_options[-1].id


if __name__ == "__main__":
    serve_bot(act)
