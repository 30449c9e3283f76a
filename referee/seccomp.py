"""The seccomp filter every sandboxed bot runs under: a small classic-BPF program, built here.

Why it is written by hand rather than with libseccomp's Python binding: the binding is not on
PyPI under its own name and Debian's ``python3-seccomp`` does not reach a virtual environment;
the program is a few dozen instructions, and bubblewrap takes it as raw bytes (``--seccomp FD``).

What it does: a bot plays a board game over a Unix socket. It never needs to mount anything,
make namespaces, trace or read other processes, load kernel code or keys, or touch the clock,
swap or reboot. Those calls answer ``EPERM`` (``clone3`` answers ``ENOSYS``, so that glibc falls
back to ``clone``, whose flags a filter can read: ``clone`` with any namespace flag answers
``EPERM``). Any architecture other than the one the program was built for (the x32 ABI, a 32-bit
``int 0x80`` call) is denied outright, so the numbers cannot be sidestepped.

Memory no process maps is memory no resident-set sum sees: a referee that is not root has no
memory cgroup, and its watch (:mod:`referee.sandbox_watch`) counts resident memory plus the
bot's tmpfs. So the kinds of memory that live outside both are denied: ``memfd_create`` and
``memfd_secret`` (an unmapped memfd held gigabytes unseen), System V shared memory, message
queues and semaphores, and POSIX message queues. POSIX shared memory (``shm_open``) is a file in
the sandbox's own size-capped ``/dev/shm``, which the watch counts. Python, grpc and Node call
none of these to run a bot (checked with strace: no ``memfd_create``, ``shm*``, ``msg*``,
``sem*`` or ``mq_*`` call while a Python or Node bot starts and plays); the referee makes the
memfd that carries this program itself, outside the filter.

Sockets: a bot may create ``AF_UNIX`` sockets only (``socket`` and ``socketpair`` with any other
family answer ``EAFNOSUPPORT``). The network namespace already leaves a bot no way out over IP,
but some families ignore network namespaces (``AF_VSOCK`` reaches the hypervisor of a VM), and
netlink, packet and the rest are kernel surface a board game never needs. What runtimes do:
grpc's core opens one ``AF_INET`` socket at start to ask whether ``SO_REUSEPORT`` works; refused,
it assumes not, which changes nothing for a Unix-socket server. Node's gRPC library opens none.
glibc's ``getaddrinfo`` would try netlink, but a bot resolves no names.

The program is built once per process (:func:`program`) and written to a fresh memfd for each
bot (:func:`program_fd`): microseconds per launch.
"""

from __future__ import annotations

import errno
import functools
import os
import platform
import struct

#: Calls a bot never needs, by name: every one is denied with EPERM.
DENIED: tuple[str, ...] = (
    # file systems and mounts
    "mount", "umount2", "pivot_root", "chroot", "fsopen", "fsconfig", "fsmount", "fspick",
    "move_mount", "open_tree", "mount_setattr", "swapon", "swapoff", "quotactl",
    "open_by_handle_at", "name_to_handle_at",
    # namespaces
    "unshare", "setns",
    # other processes
    "ptrace", "process_vm_readv", "process_vm_writev", "kcmp", "pidfd_getfd",
    # kernel code, keys, tracing
    "init_module", "finit_module", "delete_module", "kexec_load", "kexec_file_load", "bpf",
    "perf_event_open", "keyctl", "add_key", "request_key", "lookup_dcookie", "syslog",
    "fanotify_init", "userfaultfd", "io_uring_setup", "io_uring_enter", "io_uring_register",
    # memory that no resident-set sum counts (see the module docstring)
    "memfd_create", "memfd_secret", "shmget", "shmat", "shmctl", "shmdt", "msgget", "msgsnd",
    "msgrcv", "msgctl", "semget", "semop", "semctl", "semtimedop", "mq_open",
    # the machine
    "reboot", "acct", "settimeofday", "clock_settime", "clock_adjtime", "adjtimex",
    "sethostname", "setdomainname", "iopl", "ioperm", "vhangup", "uselib",
)

#: x86_64 system call numbers (arch/x86/entry/syscalls/syscall_64.tbl).
X86_64: dict[str, int] = {
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
    "clone": 56, "clone3": 435, "socket": 41, "socketpair": 53,
}
AUDIT_ARCH_X86_64 = 0xC000003E
X32_SYSCALL_BIT = 0x40000000

#: clone() flags that make a namespace (CLONE_NEWNS ... CLONE_NEWNET; not CLONE_NEWTIME,
#: whose bit is the exit signal's in clone's first argument).
CLONE_NAMESPACE_FLAGS = 0x00020000 | 0x02000000 | 0x04000000 | 0x08000000 | 0x10000000 | 0x20000000 | 0x40000000

# Classic BPF opcodes and seccomp return values (linux/filter.h, linux/seccomp.h).
_LD_W_ABS = 0x20
_JEQ_K = 0x15
_JGE_K = 0x35
_JSET_K = 0x45
_RET_K = 0x06
_RET_ALLOW = 0x7FFF0000
_RET_ERRNO = 0x00050000
_RET_KILL_PROCESS = 0x80000000
_OFF_NR, _OFF_ARCH, _OFF_ARG0 = 0, 4, 16

#: The one socket family a bot may create (``socket``/``socketpair``'s first argument).
AF_UNIX = 1


class SeccompUnsupported(RuntimeError):
    """This machine's architecture has no system call table here."""


def _insn(code: int, jt: int, jf: int, k: int) -> bytes:
    return struct.pack("=HBBI", code, jt, jf, k)


@functools.cache
def program() -> bytes:
    """The compiled filter (``struct sock_filter[]``), built once per process."""
    machine = platform.machine()
    if machine not in ("x86_64", "amd64"):
        raise SeccompUnsupported(
            f"the sandbox's seccomp filter knows the x86_64 system calls only, not {machine}"
        )
    denied = sorted({X86_64[name] for name in DENIED})
    # Each "checks" instruction compares the call number and jumps to a return or an argument
    # check placed after them; jt counts the instructions skipped (at most 255).
    checks: list[tuple[str | int, str]] = [("x32", "eperm")]
    checks += [(nr, "eperm") for nr in denied]
    checks += [(X86_64["clone3"], "enosys"), (X86_64["clone"], "clone"),
               (X86_64["socket"], "family"), (X86_64["socketpair"], "family")]
    # After the checks: ALLOW, then the blocks below, each starting at a known offset.
    blocks: dict[str, list[bytes]] = {
        "allow": [_insn(_RET_K, 0, 0, _RET_ALLOW)],
        "eperm": [_insn(_RET_K, 0, 0, _RET_ERRNO | errno.EPERM)],
        "enosys": [_insn(_RET_K, 0, 0, _RET_ERRNO | errno.ENOSYS)],
        # clone: flags are the low 32 bits of the first argument (little-endian).
        "clone": [
            _insn(_LD_W_ABS, 0, 0, _OFF_ARG0),
            _insn(_JSET_K, 1, 0, CLONE_NAMESPACE_FLAGS),
            _insn(_RET_K, 0, 0, _RET_ALLOW),
            _insn(_RET_K, 0, 0, _RET_ERRNO | errno.EPERM),
        ],
        # socket / socketpair: the family is the first argument, an int.
        "family": [
            _insn(_LD_W_ABS, 0, 0, _OFF_ARG0),
            _insn(_JEQ_K, 0, 1, AF_UNIX),
            _insn(_RET_K, 0, 0, _RET_ALLOW),
            _insn(_RET_K, 0, 0, _RET_ERRNO | errno.EAFNOSUPPORT),
        ],
    }
    start: dict[str, int] = {}
    at = len(checks)
    for name, insns in blocks.items():
        start[name] = at
        at += len(insns)
    out = [
        _insn(_LD_W_ABS, 0, 0, _OFF_ARCH),
        _insn(_JEQ_K, 1, 0, AUDIT_ARCH_X86_64),
        _insn(_RET_K, 0, 0, _RET_KILL_PROCESS),  # a foreign ABI: nothing to allow
        _insn(_LD_W_ABS, 0, 0, _OFF_NR),
    ]
    for i, (nr, target) in enumerate(checks):
        jump = start[target] - i - 1
        assert 0 <= jump < 256
        if nr == "x32":
            out.append(_insn(_JGE_K, jump, 0, X32_SYSCALL_BIT))
        else:
            out.append(_insn(_JEQ_K, jump, 0, nr))
    for insns in blocks.values():
        out += insns
    return b"".join(out)


def program_fd() -> int:
    """A new file descriptor holding :func:`program`, positioned at its start, for one bwrap
    (``--seccomp FD`` reads it to the end). The caller passes it on and closes it."""
    fd = os.memfd_create("arena-seccomp", os.MFD_CLOEXEC)
    try:
        os.write(fd, program())
        os.lseek(fd, 0, os.SEEK_SET)
    except BaseException:
        os.close(fd)
        raise
    return fd
