"""Hostile: tries every system call the sandbox's seccomp filter denies, a clone into a new user
namespace, `unshare -Urm` and a nested bwrap, and reads its own capability sets. It prints one
line `PROBE {json}` to stderr and then fails its first decision, so the report reaches the
crash log the test reads."""

import ctypes
import errno
import json
import os
import subprocess
import sys

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
    }


def act(observation: dict, legal_options: list) -> str:
    print("PROBE " + json.dumps(report()), file=sys.stderr, flush=True)
    raise RuntimeError("probe done")


if __name__ == "__main__":
    serve_bot(act)
