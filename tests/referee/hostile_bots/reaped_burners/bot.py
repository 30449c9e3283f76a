"""Hostile: hides CPU in children the kernel reaps. It ignores SIGCHLD both ways (SIG_IGN, then
SIG_DFL with SA_NOCLDWAIT, which /proc/PID/status does not show), then on each turn forks
short-lived children that burn CPU and exit without being waited for. Reaped by the kernel, a
child's CPU lands in no process's cutime: a referee that sums /proc would never see it.

The sandbox makes setting SIGCHLD's action a no-op, so the children stay zombies (whose CPU the
referee sees) until the bot's end. Each decision's comment says the CPU its children burned
(each child measures its own) and how many it forked: ``burned=MS forks=N failed=F``."""

import ctypes
import os
import struct
import time

from arena.sdk import serve_bot

BURNERS, BURN_S = 3, 0.1  # per decision: three children of 100 ms of CPU each
libc = ctypes.CDLL(None, use_errno=True)


def set_sigchld(handler: int, flags: int) -> int:
    """sigaction(SIGCHLD) through libc (act runs on a gRPC thread: Python's signal module
    refuses to set handlers there)."""
    act = (ctypes.c_char * 152)()  # struct sigaction: handler, mask, flags (at 136), restorer
    ctypes.memmove(act, struct.pack("=Q", handler), 8)
    ctypes.memmove(ctypes.byref(act, 136), struct.pack("=i", flags), 4)
    return libc.sigaction(17, act, None)


def finished(pid: int) -> bool:
    """Gone (reaped by the kernel) or a zombie: either way it burns no more."""
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(") ", 1)[1].split()[0] == "Z"
    except (FileNotFoundError, ProcessLookupError):  # the read races the reaping
        return True


def burn() -> None:
    start = time.process_time()
    x = 0
    while time.process_time() - start < BURN_S:
        x += 1
    os._exit(0)


def act(observation: dict, legal_options: list):
    set_sigchld(1, 0)  # SIG_IGN
    set_sigchld(0, 2)  # SIG_DFL | SA_NOCLDWAIT
    forks = failed = 0
    children = []
    for _ in range(BURNERS):
        try:
            pid = os.fork()
        except OSError:
            failed += 1
            continue
        if pid == 0:
            burn()
        forks += 1
        children.append(pid)
    while not all(finished(pid) for pid in children):
        time.sleep(0.01)
    time.sleep(0.2)  # past a few of the referee's watch intervals
    return legal_options[0].id, f"burned={forks * BURN_S * 1000:.0f} forks={forks} failed={failed}"


if __name__ == "__main__":
    serve_bot(act)
