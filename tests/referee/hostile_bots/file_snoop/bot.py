"""Hostile: tries to read files outside its own folder (paths listed in targets.txt) and
reports in its comment which it could read."""

from pathlib import Path

from arena.sdk import serve_bot

HERE = Path(__file__).parent
TARGETS = (HERE / "targets.txt").read_text().split()


def readable(path: str) -> bool:
    try:
        with open(path, "rb") as fh:
            fh.read(16)
        return True
    except OSError:
        return False


def act(observation: dict, legal_options: list):
    # The comment is short (200 characters): name only what could be read.
    got = [p for p in TARGETS if readable(p)]
    own = "READ" if readable(str(HERE / "bot.py")) else "DENIED"
    return legal_options[0].id, f"own={own} denied={len(TARGETS) - len(got)} read={','.join(got)}"


if __name__ == "__main__":
    serve_bot(act)
