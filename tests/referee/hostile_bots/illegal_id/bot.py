"""Hostile: answers an option id that is never legal."""

from arena.sdk import serve_bot


def act(observation: dict, legal_options: list) -> str:
    return "checkmate-in-one"


if __name__ == "__main__":
    serve_bot(act)
