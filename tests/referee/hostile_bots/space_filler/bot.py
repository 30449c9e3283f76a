"""Hostile: fills every place it can write: /tmp and /dev/shm (in 32 MiB files, under the
64 MiB file-size limit), and tries / and /dev themselves. Reports in its comment."""

import errno
import os

from arena.sdk import serve_bot

CHUNK = b"\1" * (1 << 20)


def fill(folder: str) -> str:
    written = 0
    try:
        for i in range(64):
            with open(os.path.join(folder, f"fill{i}"), "wb") as fh:
                for _ in range(32):
                    fh.write(CHUNK)
                    fh.flush()
                    written += 1
        return f"{folder}={written}MiB done"
    except OSError as exc:
        return f"{folder}={written}MiB {errno.errorcode.get(exc.errno, exc.errno)}"


def touch(path: str) -> str:
    try:
        with open(path, "w") as fh:
            fh.write("x")
        return f"{path}=WROTE"
    except OSError as exc:
        return f"{path}={errno.errorcode.get(exc.errno, exc.errno)}"


done = False


def act(observation: dict, legal_options: list):
    global done
    if done:
        return legal_options[0].id
    done = True
    notes = [fill("/tmp"), fill("/dev/shm"), touch("/dropped"), touch("/dev/dropped"),
             touch("/arena/dropped")]
    return legal_options[0].id, " | ".join(notes)


if __name__ == "__main__":
    serve_bot(act)
