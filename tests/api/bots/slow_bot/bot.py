"""A random bot that thinks for a while on every decision, so a match lasts long enough to be
watched live in the end-to-end tests."""

import random
import time

from arena.sdk import serve_bot

rng = random.Random(7)


def act(observation: dict, legal_options: list) -> str:
    time.sleep(0.12)
    return rng.choice(legal_options).id


if __name__ == "__main__":
    serve_bot(act)
