"""Toy game: always plays its highest card and draws when it may (the stronger side)."""

from arena.sdk import serve_bot


def act(observation: dict, legal_options: list) -> str:
    plays = [o.id for o in legal_options if o.id.startswith("play:")]
    if plays:
        return max(plays, key=lambda i: int(i.split(":")[1]))
    ids = [o.id for o in legal_options]
    return "draw" if "draw" in ids else ids[0]


if __name__ == "__main__":
    serve_bot(act)
