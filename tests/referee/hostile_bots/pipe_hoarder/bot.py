"""Hostile: holds kernel memory in pipe buffers, which are in no process's resident memory:
mode.txt is ``PIPES`` (pipes made in one process, each grown with ``F_SETPIPE_SZ`` to
``fs.pipe-max-size`` where the kernel allows it, and filled until it would block). It answers
with ``pipes=N buffered=NMiB`` once it holds them, after ten looks of the memory watch; killed
on the way, it forfeits."""

import fcntl
import os
import time
from pathlib import Path

from arena.sdk import serve_bot

PIPES = int((Path(__file__).parent / "mode.txt").read_text().split()[0])
MAX_SIZE = int(Path("/proc/sys/fs/pipe-max-size").read_text())
F_SETPIPE_SZ = 1031
kept: list = []
report = ""


def hold() -> str:
    buffered = 0
    for _ in range(PIPES):
        r, w = os.pipe()
        kept.append((r, w))
        try:
            fcntl.fcntl(w, F_SETPIPE_SZ, MAX_SIZE)
        except OSError:
            pass  # denied, or over the per-user soft limit: it keeps its size
        os.set_blocking(w, False)
        try:
            while True:
                buffered += os.write(w, b"\1" * 65536)
        except BlockingIOError:
            pass
    return f"pipes={len(kept)} buffered={buffered >> 20}MiB"


def act(observation: dict, legal_options: list):
    global report
    if not report:
        report = hold()
        time.sleep(0.6)
        return legal_options[0].id, report
    return legal_options[0].id


if __name__ == "__main__":
    serve_bot(act)
