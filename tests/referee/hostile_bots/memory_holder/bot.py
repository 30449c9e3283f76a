"""Hostile: holds memory, some of it where a sum of resident memory does not see it, chosen by
mode.txt (``KIND MIB``): ``heap`` (plain allocations, the baseline), ``mmap_shared`` (an
anonymous shared mapping), ``memfd`` (memfds written, never mapped), ``memfd_mapped`` (memfds
filled through a mapping dropped after), ``sysv`` (System V segments filled, then detached),
``posix_shm`` (files in /dev/shm, unmapped), ``tmpfs`` (/tmp files unlinked but kept open; each
stops at the file size limit, so as many as it takes) and ``tmpfs_heap`` (fills /tmp that way,
then allocates MIB on the heap).

It fills in 16 MiB steps until it holds MIB or a step fails, waits so the referee's memory watch
has looked, and answers with ``held=NMiB STOP`` in its comment; one that is killed on the way
forfeits. From then on it answers legally and keeps what it holds (the pool tests seat it
again)."""

import ctypes
import errno
import mmap
import os
import time
from pathlib import Path

from arena.sdk import serve_bot

KIND, MIB = (Path(__file__).parent / "mode.txt").read_text().split()[:2]
MIB = int(MIB)
STEP = 16 << 20
CHUNK = b"\1" * STEP
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
libc.shmat.restype = ctypes.c_void_p
kept: list = []  # what it holds on to: descriptors, mappings, buffers
report = ""


def fill_fd(fd: int, limit: int) -> tuple[int, str]:
    held = 0
    while held < limit:
        try:
            written = os.write(fd, CHUNK)
        except OSError as exc:
            return held, errno.errorcode.get(exc.errno, str(exc.errno))
        held += written
    return held, "OK"


def piece(kind: str) -> str:
    """One STEP of memory in a new memfd (written, or through a mapping dropped after) or a new
    System V segment (attached, filled, detached); kept by its descriptor or id."""
    if kind == "sysv":
        shmid = libc.shmget(0, ctypes.c_size_t(STEP), 0o1600)  # IPC_PRIVATE, IPC_CREAT | 0600
        if shmid < 0:
            return errno.errorcode[ctypes.get_errno()]
        addr = libc.shmat(shmid, None, 0)
        if addr in (None, ctypes.c_void_p(-1).value):
            return "shmat " + errno.errorcode[ctypes.get_errno()]
        ctypes.memmove(addr, CHUNK, STEP)
        libc.shmdt(ctypes.c_void_p(addr))  # detached: no process maps it any more
        return "OK"
    fd = libc.syscall(ctypes.c_long(319), b"hold", ctypes.c_uint(0))  # memfd_create
    if fd < 0:
        return errno.errorcode[ctypes.get_errno()]
    kept.append(fd)
    if kind == "memfd":
        return fill_fd(fd, STEP)[1]
    os.ftruncate(fd, STEP)
    with mmap.mmap(fd, STEP) as m:
        m[:] = CHUNK
    return "OK"


def hold() -> str:
    limit = MIB << 20
    kind = KIND
    if kind == "heap":
        held = 0
        while held < limit:
            try:
                kept.append(bytearray(CHUNK))
            except MemoryError:
                return f"held={held >> 20}MiB MemoryError"
            held += STEP
        return f"held={held >> 20}MiB OK"
    if kind == "mmap_shared":  # shared anonymous memory: shmem pages, resident while mapped
        m = mmap.mmap(-1, limit, flags=mmap.MAP_SHARED | mmap.MAP_ANONYMOUS)
        kept.append(m)
        for off in range(0, limit, STEP):
            m[off:off + STEP] = CHUNK
        return f"held={limit >> 20}MiB OK"
    if kind in ("memfd", "memfd_mapped", "sysv"):
        # One 16 MiB piece at a time, never more than one mapped: nothing stays resident.
        held = 0
        while held < limit:
            stop = piece(kind)
            if stop != "OK":
                return f"held={held >> 20}MiB {stop}"
            held += STEP
        return f"held={held >> 20}MiB OK"
    if kind in ("posix_shm", "tmpfs", "tmpfs_heap"):
        folder = "/dev/shm" if kind == "posix_shm" else "/tmp"
        goal = limit if kind != "tmpfs_heap" else 1 << 40
        held, stop, n = 0, "EFBIG", 0
        while stop == "EFBIG" and held < goal:  # one file stops at the file size limit: next
            fd = os.open(f"{folder}/hold{n}", os.O_RDWR | os.O_CREAT, 0o600)
            os.unlink(f"{folder}/hold{n}")  # unlinked: no name left to find, pages kept by fd
            kept.append(fd)
            more, stop = fill_fd(fd, goal - held)
            held, n = held + more, n + 1
        if kind != "tmpfs_heap":
            return f"held={held >> 20}MiB {stop}"
        heap = 0
        while heap < limit:
            kept.append(bytearray(CHUNK))
            heap += STEP
        return f"held={held >> 20}MiB {stop} heap={heap >> 20}MiB"
    return f"unknown kind {kind}"


def act(observation: dict, legal_options: list):
    global report
    if not report:
        report = hold()
        time.sleep(0.5)  # ten looks of the memory watch
        return legal_options[0].id, report
    return legal_options[0].id


if __name__ == "__main__":
    serve_bot(act)
