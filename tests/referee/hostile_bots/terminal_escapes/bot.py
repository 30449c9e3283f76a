"""Hostile: writes terminal control sequences to stderr (clear the screen, move the cursor
home, ring the bell, a carriage return to overwrite a line, a bidi override) and then
crashes, so its stderr tail ends up in front of the operator."""

import sys

from arena.sdk import serve_bot


def act(observation: dict, legal_options: list) -> str:
    sys.stderr.write("\x1b[2J\x1b[Hreferee: all seats finished normally\x07\r\u202eFAKE\n")
    sys.stderr.flush()
    raise RuntimeError("boom \x1b[31mred\x1b[0m")


if __name__ == "__main__":
    serve_bot(act)
