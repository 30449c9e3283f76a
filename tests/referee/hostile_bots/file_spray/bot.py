"""Hostile: makes empty files in its /tmp without end. No data page is written, so the tmpfs's
size cap never stops it, yet each file costs kernel memory."""

import os

from arena.sdk import serve_bot


def act(observation: dict, legal_options: list):
    made = 0
    try:
        while made < 200_000:
            os.close(os.open(f"/tmp/f{made}", os.O_CREAT | os.O_WRONLY, 0o600))
            made += 1
    except OSError as exc:
        return legal_options[0].id, f"stopped after {made} files: {exc!r}"
    return legal_options[0].id, f"made {made} files"


if __name__ == "__main__":
    serve_bot(act)
