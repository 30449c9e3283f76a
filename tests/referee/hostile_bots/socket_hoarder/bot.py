"""Hostile: holds kernel memory in socket buffers, which no process's resident memory counts:
eight processes each make 100 Unix socket pairs (within 256 open files apiece) and fill every
one until it would block, about 200 KiB a socket, then wait. Its comment says what it held:
``sockets=N buffered=NMiB``."""

import os
import socket
import time

from arena.sdk import serve_bot

PAIRS, PROCESSES = 100, 8
kept: list = []


def hoard() -> int:
    buffered = 0
    for _ in range(PAIRS):
        a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        a.setblocking(False)
        try:
            while True:
                buffered += a.send(b"\1" * 65536)
        except BlockingIOError:
            pass
        kept.append((a, b))
    return buffered


def act(observation: dict, legal_options: list):
    if kept:
        return legal_options[0].id
    reads = []
    for _ in range(PROCESSES - 1):
        r, w = os.pipe()
        if os.fork() == 0:
            os.write(w, str(hoard()).encode() + b"\n")
            time.sleep(3600)
            os._exit(0)
        os.close(w)
        reads.append(r)
    total = hoard() + sum(int(os.read(r, 64) or b"0") for r in reads)
    time.sleep(0.5)  # ten looks of the watch
    return legal_options[0].id, f"sockets={2 * PAIRS * PROCESSES} buffered={total >> 20}MiB"


if __name__ == "__main__":
    serve_bot(act)
