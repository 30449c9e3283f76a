"""A well-behaved bot that imports the game's engine inside the sandbox, as heuristic and
search bots do, and says in its comment which engine class it loaded."""

from arena.sdk import serve_bot
from referee import registry

engine = "none"


def start(match: dict) -> None:
    global engine
    engine = registry.get_game(match["game"]).__name__


def act(observation: dict, legal_options: list):
    return legal_options[0].id, f"engine={engine}"


if __name__ == "__main__":
    serve_bot(act, start=start)
