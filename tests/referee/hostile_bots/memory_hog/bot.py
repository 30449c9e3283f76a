"""Hostile: tries to allocate 4 GiB in its first decision."""

import sys

from arena.sdk import serve_bot


def act(observation: dict, legal_options: list) -> str:
    try:
        hog = bytearray(4 << 30)
    except MemoryError:
        print("memory_hog: MemoryError allocating 4 GiB", file=sys.stderr, flush=True)
        raise
    return legal_options[0].id + str(len(hog))


if __name__ == "__main__":
    serve_bot(act)
