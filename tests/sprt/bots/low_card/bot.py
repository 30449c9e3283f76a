"""Toy game: always plays its lowest card and never draws (the weaker side)."""

from arena.sdk import serve_bot


def act(observation: dict, legal_options: list) -> str:
    plays = [o.id for o in legal_options if o.id.startswith("play:")]
    if plays:
        return min(plays, key=lambda i: int(i.split(":")[1]))
    ids = [o.id for o in legal_options]
    return "pass" if "pass" in ids else ids[0]


if __name__ == "__main__":
    serve_bot(act)
