"""Hostile: tries every system call the sandbox's seccomp filter denies, a clone into a new user
namespace, `unshare -Urm` and a nested bwrap, and reads its own capability sets; then (issue 35)
tries what a bot could take of the shared kernel: SIGCHLD ignored both ways, socket buffer
sizes, pipe sizes, file locks, leases and dnotify on a shared file, POSIX timers, its
/proc/self/autogroup. It prints one
line `PROBE {json}` to stderr and then fails its first decision, so the report reaches the
crash log the test reads."""

import ctypes
import errno
import fcntl
import json
import os
import signal
import socket
import struct
import subprocess
import sys
import time

from arena.sdk import serve_bot

X86_64 = {
    "mount": 165, "umount2": 166, "pivot_root": 155, "chroot": 161, "fsopen": 430,
    "fsconfig": 431, "fsmount": 432, "fspick": 433, "move_mount": 429, "open_tree": 428,
    "mount_setattr": 442, "swapon": 167, "swapoff": 168, "quotactl": 179,
    "open_by_handle_at": 304, "name_to_handle_at": 303, "unshare": 272, "setns": 308,
    "ptrace": 101, "process_vm_readv": 310, "process_vm_writev": 311, "kcmp": 312,
    "pidfd_getfd": 438, "init_module": 175, "finit_module": 313, "delete_module": 176,
    "kexec_load": 246, "kexec_file_load": 320, "bpf": 321, "perf_event_open": 298,
    "keyctl": 250, "add_key": 248, "request_key": 249, "lookup_dcookie": 212, "syslog": 103,
    "fanotify_init": 300, "userfaultfd": 323, "io_uring_setup": 425, "io_uring_enter": 426,
    "io_uring_register": 427, "reboot": 169, "acct": 163, "settimeofday": 164,
    "clock_settime": 227, "clock_adjtime": 305, "adjtimex": 159, "sethostname": 170,
    "setdomainname": 171, "iopl": 172, "ioperm": 173, "vhangup": 153, "uselib": 134,
    "memfd_create": 319, "memfd_secret": 447, "shmget": 29, "shmat": 30, "shmctl": 31,
    "shmdt": 67, "msgget": 68, "msgsnd": 69, "msgrcv": 70, "msgctl": 71, "semget": 64,
    "semop": 65, "semctl": 66, "semtimedop": 220, "mq_open": 240,
    "clone3": 435,
    "io_setup": 206, "io_destroy": 207, "io_getevents": 208, "io_submit": 209,
    "io_cancel": 210, "io_pgetevents": 333, "inotify_init": 253, "inotify_init1": 294,
    "inotify_add_watch": 254,
}
CLONE_NEWUSER, SIGCHLD = 0x10000000, 17

libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long


def call(nr: int, *args: int) -> str:
    ctypes.set_errno(0)
    ret = libc.syscall(ctypes.c_long(nr), *(ctypes.c_long(a) for a in args))
    if ret == -1:
        return errno.errorcode.get(ctypes.get_errno(), str(ctypes.get_errno()))
    return f"OK:{ret}"


def run(cmd: list[str]) -> str:
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=10)
    except OSError as exc:
        return f"cannot run: {exc!r}"
    return f"rc={done.returncode} {done.stderr.strip()[:120]}"


def _err(fn) -> str:
    try:
        fn()
    except OSError as exc:
        return errno.errorcode.get(exc.errno, str(exc.errno))
    return "OK"


def _set_sigchld(handler: int, flags: int) -> None:
    """sigaction(SIGCHLD) through libc: act runs on a gRPC thread, where Python's signal module
    refuses to work."""
    act = (ctypes.c_char * 152)()  # struct sigaction: handler, mask, flags (at 136), restorer
    ctypes.memmove(act, struct.pack("=Q", handler), 8)
    ctypes.memmove(ctypes.byref(act, 136), struct.pack("=i", flags), 4)
    libc.sigaction(signal.SIGCHLD, act, None)


def _reaped_unseen(how: str) -> bool:
    """Whether a child that exits is reaped by the kernel (no zombie left for a wait)."""
    if how == "SIG_IGN":
        _set_sigchld(1, 0)
    else:  # SIG_DFL with SA_NOCLDWAIT: invisible in /proc/PID/status
        _set_sigchld(0, 2)
    pid = os.fork()
    if pid == 0:
        os._exit(0)
    time.sleep(0.2)
    try:
        state = open(f"/proc/{pid}/stat").read().split(") ")[1].split()[0]
    except FileNotFoundError:
        return True
    os.waitpid(pid, 0)
    return state != "Z"


def issue35() -> dict:
    """Shared-kernel surfaces of issue 35: each answer names what the sandbox made of it."""
    out: dict[str, object] = {}
    out["SIGCHLD SIG_IGN reaps unseen"] = _reaped_unseen("SIG_IGN")
    out["SIGCHLD SA_NOCLDWAIT reaps unseen"] = _reaped_unseen("SA_NOCLDWAIT")
    sock = socket.socket(socket.AF_UNIX)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4 << 20)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)
    out["SO_SNDBUF after 4 MiB"] = sock.getsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF)
    out["SO_RCVBUF after 4 MiB"] = sock.getsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF)
    for name, opt in (("SO_SNDBUFFORCE", 32), ("SO_RCVBUFFORCE", 33)):
        out[name] = _err(lambda opt=opt: sock.setsockopt(socket.SOL_SOCKET, opt, 4 << 20))
    sock.close()
    r, w = os.pipe()
    out["F_SETPIPE_SZ"] = _err(lambda: fcntl.fcntl(w, 1031, 1 << 20))
    out["pipe size"] = fcntl.fcntl(w, 1032)  # F_GETPIPE_SZ
    # Calls that hand a page to a pipe or a socket, kept alive after its mapping is gone.
    out["splice"] = _err(lambda: os.splice(r, w, 1, flags=os.SPLICE_F_NONBLOCK))
    out["sendfile"] = _err(lambda: os.sendfile(w, r, None, 1))
    page = ctypes.create_string_buffer(1)
    iov = (ctypes.c_void_p * 2)(ctypes.cast(page, ctypes.c_void_p), 1)
    out["vmsplice"] = ("OK" if libc.vmsplice(w, iov, 1, 0) >= 0
                       else errno.errorcode.get(ctypes.get_errno(), "?"))
    out["tee"] = ("OK" if libc.tee(r, w, 1, 2) >= 0  # SPLICE_F_NONBLOCK
                  else errno.errorcode.get(ctypes.get_errno(), "?"))
    os.close(r)
    os.close(w)
    shared = os.open("/usr/bin/env", os.O_RDONLY)  # a file every sandbox shares
    out["flock"] = _err(lambda: fcntl.flock(shared, fcntl.LOCK_SH | fcntl.LOCK_NB))
    out["F_SETLK"] = _err(lambda: fcntl.lockf(shared, fcntl.LOCK_SH | fcntl.LOCK_NB))
    lk = struct.pack("=hhqqi", fcntl.F_RDLCK, 0, 0, 0, 0)
    out["F_GETLK"] = _err(lambda: fcntl.fcntl(shared, fcntl.F_GETLK, lk))
    out["F_OFD_SETLK"] = _err(lambda: fcntl.fcntl(shared, 37, lk))
    out["F_GETLEASE"] = _err(lambda: fcntl.fcntl(shared, 1025))
    os.close(shared)
    folder = os.open("/usr/bin", os.O_RDONLY | os.O_DIRECTORY)
    out["F_NOTIFY"] = _err(lambda: fcntl.fcntl(folder, 1026, 0x80000001))  # DN_ACCESS|MULTISHOT
    os.close(folder)
    timers = 0
    timer = ctypes.c_void_p()
    while timers < 100000 and libc.timer_create(1, None, ctypes.byref(timer)) == 0:  # MONOTONIC
        timers += 1
    out["POSIX timers"] = timers
    out["write /proc/self/autogroup"] = _err(lambda: open("/proc/self/autogroup", "w").write("19"))
    r, w = os.pipe()
    out["open /proc/self/fd/N of a pipe for writing"] = _err(lambda: open(f"/proc/self/fd/{w}", "w").close())
    os.close(r)
    os.close(w)
    out["write /dev/null"] = _err(lambda: open("/dev/null", "w").write("x"))
    out["open /dev/ptmx"] = _err(lambda: os.close(os.open("/dev/ptmx", os.O_RDWR | os.O_NOCTTY)))
    _set_sigchld(0, 0)
    return out


def report() -> dict:
    calls = {name: call(nr, 0, 0, 0, 0, 0, 0) for name, nr in X86_64.items()}
    # unshare(0) and ptrace(PTRACE_TRACEME) succeed without a filter; with one they do not.
    calls["setns"] = call(X86_64["setns"], -1, 0)
    pid = libc.syscall(ctypes.c_long(56), ctypes.c_long(CLONE_NEWUSER | SIGCHLD), ctypes.c_long(0),
                       ctypes.c_long(0), ctypes.c_long(0), ctypes.c_long(0))
    if pid == 0:
        os._exit(0)
    calls["clone(CLONE_NEWUSER)"] = "OK" if pid > 0 else errno.errorcode.get(ctypes.get_errno(), "?")
    if pid > 0:
        os.waitpid(pid, 0)
    fork_pid = os.fork()
    if fork_pid == 0:
        os._exit(0)
    os.waitpid(fork_pid, 0)
    status = {}
    with open("/proc/self/status") as fh:
        for line in fh:
            key, _, value = line.partition(":")
            if key.startswith("Cap") or key in ("NoNewPrivs", "Seccomp", "Uid"):
                status[key] = value.strip()
    return {
        "calls": calls,
        "fork": "OK",
        "unshare -Urm": run(["unshare", "-Urm", "true"]),
        "unshare -Ur": run(["unshare", "-Ur", "true"]),
        "nested bwrap": run(["bwrap", "--ro-bind", "/", "/", "--unshare-user", "true"]),
        "nested bwrap pid": run(["bwrap", "--ro-bind", "/", "/", "--unshare-pid", "true"]),
        "status": status,
        "issue35": issue35(),
    }


def act(observation: dict, legal_options: list) -> str:
    print("PROBE " + json.dumps(report()), file=sys.stderr, flush=True)
    raise RuntimeError("probe done")


if __name__ == "__main__":
    serve_bot(act)
