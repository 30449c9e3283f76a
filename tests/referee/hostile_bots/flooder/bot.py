"""Hostile: prints without end instead of answering."""

from arena.sdk import serve_bot


def act(observation: dict, legal_options: list) -> str:
    line = "flooder: " + "spam " * 200
    while True:
        print(line)


if __name__ == "__main__":
    serve_bot(act)
