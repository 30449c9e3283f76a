"""Hostile (by accident): a bug in ``act`` raises on the third decision."""

from arena.sdk import serve_bot

calls = 0


def evaluate(observation: dict) -> float:
    global calls
    calls += 1
    if calls == 3:
        return {}["no-such-key"]
    return 0.0


def act(observation: dict, legal_options: list) -> str:
    evaluate(observation)
    return legal_options[0].id


if __name__ == "__main__":
    serve_bot(act)
