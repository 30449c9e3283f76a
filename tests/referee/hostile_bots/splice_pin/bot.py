"""Hostile: pins memory that belongs to no process and that no buffer size bounds. It fills a
transparent huge page (2 MiB), hands one byte of it to the kernel by ``vmsplice`` into a pipe
(``pipe`` mode) or by ``vmsplice`` and then ``splice`` on into a Unix socket (``socket`` mode),
and unmaps it: the pipe's slot or the socket's skb still references the page, which keeps the
whole huge page alive while the socket is charged ~770 bytes for it. mode.txt is ``MODE MIB``.
It answers ``pinned=NMiB`` after the watch has looked; killed on the way, it forfeits."""

import ctypes
import errno
import os
import socket
import time
from pathlib import Path

from arena.sdk import serve_bot

MODE, MIB = (Path(__file__).parent / "mode.txt").read_text().split()[:2]
HUGE = 2 << 20
libc = ctypes.CDLL(None, use_errno=True)
libc.mmap.restype = ctypes.c_void_p
libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int,
                      ctypes.c_long]
libc.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
libc.madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]


class IoVec(ctypes.Structure):
    _fields_ = [("base", ctypes.c_void_p), ("len", ctypes.c_size_t)]


libc.vmsplice.argtypes = [ctypes.c_int, ctypes.POINTER(IoVec), ctypes.c_ulong, ctypes.c_uint]
kept: list = []
report = ""


def pin() -> str:
    pinned, goal = 0, int(MIB) << 20
    pair = socket.socketpair()
    kept.append(pair)
    r = w = -1
    while pinned < goal:
        if MODE == "socket" or r < 0 or pinned % (16 * HUGE) == 0:
            r, w = os.pipe()  # a fresh pipe every 16 pages in pipe mode (16 slots each)
            kept.append((r, w))
        addr = libc.mmap(None, 2 * HUGE, 3, 0x22, -1, 0)  # PROT_READ|WRITE, MAP_PRIVATE|ANONYMOUS
        base = (addr + HUGE - 1) & ~(HUGE - 1)
        libc.madvise(base, HUGE, 14)  # MADV_HUGEPAGE
        ctypes.memset(base, 1, HUGE)
        if libc.vmsplice(w, ctypes.byref(IoVec(base, 1)), 1, 0) < 0:
            return f"pinned={pinned >> 20}MiB vmsplice {errno.errorcode[ctypes.get_errno()]}"
        if MODE == "socket":
            try:
                os.splice(r, pair[0].fileno(), 1)
            except OSError as exc:
                return f"pinned={pinned >> 20}MiB splice {errno.errorcode.get(exc.errno)}"
            os.close(r)
            os.close(w)
            kept.pop()
        libc.munmap(addr, 2 * HUGE)
        pinned += HUGE
    return f"pinned={pinned >> 20}MiB"


def act(observation: dict, legal_options: list):
    global report
    if not report:
        report = pin()
        time.sleep(0.6)
        return legal_options[0].id, report
    return legal_options[0].id


if __name__ == "__main__":
    serve_bot(act)
