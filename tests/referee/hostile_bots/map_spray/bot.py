"""Hostile: holds kernel memory in many small memory mappings (each a kernel structure of a
few hundred bytes; the page is never touched, so nothing is resident): mode.txt is
``MAPPINGS PROCESSES``, each of PROCESSES processes (the bot and forked children) making
MAPPINGS/PROCESSES one-page mappings whose protections alternate, so that none merge. It
answers ``mappings=N`` once they exist and the watch has looked; killed on the way, it
forfeits."""

import ctypes
import os
import time
from pathlib import Path

from arena.sdk import serve_bot

MAPPINGS, PROCESSES = (int(x) for x in (Path(__file__).parent / "mode.txt").read_text().split()[:2])
libc = ctypes.CDLL(None, use_errno=True)
libc.mmap.restype = ctypes.c_void_p
libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int,
                      ctypes.c_long]
MAP_FAILED = ctypes.c_void_p(-1).value
report = ""


def spray(count: int) -> int:
    made = 0
    for i in range(count):
        if libc.mmap(None, 4096, 1 if i % 2 else 3, 0x22, -1, 0) in (None, MAP_FAILED):
            break  # the per-process map count (vm.max_map_count) or the address space
        made += 1
    return made


def act(observation: dict, legal_options: list):
    global report
    if not report:
        each = MAPPINGS // PROCESSES
        reads = []
        for _ in range(PROCESSES - 1):
            r, w = os.pipe()
            if os.fork() == 0:
                os.write(w, f"{spray(each)}\n".encode())
                time.sleep(3600)
                os._exit(0)
            os.close(w)
            reads.append(r)
        made = spray(each) + sum(int(os.read(r, 64) or b"0") for r in reads)
        time.sleep(0.6)
        report = f"mappings={made}"
        return legal_options[0].id, report
    return legal_options[0].id


if __name__ == "__main__":
    serve_bot(act)
