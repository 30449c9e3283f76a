"""A random bot that takes a moment on every decision, so a Black Angel match lasts long enough
for the fair-play test to attack it while it runs."""

import random
import time

from arena.sdk import serve_bot

rng = random.Random()


def act(observation: dict, legal_options: list) -> str:
    time.sleep(0.06)
    return rng.choice(legal_options).id


if __name__ == "__main__":
    serve_bot(act)
