"""Toy game: answers an option that does not exist, so it forfeits every game at once (the
clearly weaker side of the SPRT tests, without a timeout to wait for)."""

from arena.sdk import serve_bot


def act(observation: dict, legal_options: list) -> str:
    return "no-such-option"


if __name__ == "__main__":
    serve_bot(act)
