"""Hostile: holds kernel memory in socket buffers raised as far as the host lets a bot
(``SO_SNDBUF`` to ``net.core.wmem_max``; the kernel doubles it), within the socket cap: mode.txt
is ``SOCKETS`` (both ends of SOCKETS/2 socket pairs filled until they would block), or
``SOCKETS empty`` (the same sockets, buffers raised, nothing sent: what they could hold). It answers
with ``sockets=N buffered=NMiB sndbuf=N`` in its comment once it holds them, after ten looks of
the memory watch; killed on the way, it forfeits. From then on it plays legally and keeps what
it holds (the pool tests seat it again)."""

import socket
import time
from pathlib import Path

from arena.sdk import serve_bot

MODE = (Path(__file__).parent / "mode.txt").read_text().split()
SOCKETS, EMPTY = int(MODE[0]), MODE[1:] == ["empty"]
WMEM_MAX = int(Path("/proc/sys/net/core/wmem_max").read_text())
kept: list = []
report = ""


def fill(sock: socket.socket) -> int:
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, WMEM_MAX)
    sock.setblocking(False)
    sent = 0
    if EMPTY:
        return 0
    try:
        while True:
            sent += sock.send(b"\1" * 65536)
    except BlockingIOError:
        pass
    return sent


def hold() -> str:
    buffered = 0
    for _ in range(SOCKETS // 2):
        a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        kept.append((a, b))
        buffered += fill(a) + fill(b)
    sndbuf = kept[0][0].getsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF) if kept else 0
    return f"sockets={2 * len(kept)} buffered={buffered >> 20}MiB sndbuf={sndbuf}"


def act(observation: dict, legal_options: list):
    global report
    if not report:
        report = hold()
        time.sleep(0.6)  # the watch's looks, a deep one among them
        return legal_options[0].id, report
    return legal_options[0].id


if __name__ == "__main__":
    serve_bot(act)
