"""Plays its qualification (against the platform's random-N bots) cleanly, then crashes in
every other match after writing its secrets to stderr: the crash log that only its owner and
the organisers may read."""

import sys

from arena.sdk import serve_bot

qualifying = False


def start(match: dict) -> None:
    global qualifying
    qualifying = any(name.startswith("random-") for name in match["seat_names"])


def act(observation: dict, legal_options: list) -> str:
    if not qualifying:
        sys.stderr.write("SECRET-STDERR: my strategy table is 42\n")
        sys.stderr.flush()
        raise RuntimeError("giving up")
    return legal_options[0].id


if __name__ == "__main__":
    serve_bot(act, start=start)
