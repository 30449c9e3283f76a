"""The random bot: picks a uniformly random legal option. It plays every game.

Copy this folder to start your own bot: ``act`` gets the observation (a dict) and the legal
options (objects with ``.id`` and ``.label``) and returns one option id.
"""

import random

from arena.sdk import serve_bot

rng = random.Random()


def start(match: dict) -> None:
    # Seed per match so a replayed match makes the same choices.
    rng.seed(f"{match['match_id']}:{match['seat']}")


def act(observation: dict, legal_options: list) -> str:
    return rng.choice(legal_options).id


if __name__ == "__main__":
    serve_bot(act, start=start)
