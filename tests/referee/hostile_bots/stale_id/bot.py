"""Hostile: remembers the option ids of its first decision and, at its second, answers one of
them (the card it has already played) instead of a legal option of the decision asked."""

from arena.sdk import serve_bot

first: list[str] = []


def act(observation: dict, legal_options: list) -> str:
    if not first:
        first.extend(o.id for o in legal_options)
        return first[0]
    return first[0]  # played already: legal once, never again


if __name__ == "__main__":
    serve_bot(act)
