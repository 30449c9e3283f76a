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

The shared kernel (issue 35). Arguments past the first are read too (an ``int`` is its low
32-bit word, which is all the kernel reads; a pointer both words):

* ``rt_sigaction(SIGCHLD, act != NULL)`` does nothing and answers success (``SECCOMP_RET_ERRNO``
  with errno 0 skips the call and returns 0). Why: a parent that ignores SIGCHLD (``SIG_IGN``,
  or ``SA_NOCLDWAIT`` with ``SIG_DFL``, which /proc does not even show) has its children reaped
  by the kernel, and a reaped child's CPU lands in no one's ``cutime``: a referee without a
  cpuacct cgroup (not root) would never see the CPU of short-lived children. Now every child
  stays a zombie (its CPU visible to the referee) until its parent waits, which adds it to the
  parent's ``cutime``. Success rather than ``EPERM`` because Go's runtime installs a handler
  for every signal and aborts if one fails. A query (``act`` NULL) runs. The price, for bot
  authors: a SIGCHLD handler is never called, and children must be reaped with ``wait``;
  ``oldact``, when passed with ``act``, is left as the caller had it. Python, grpc and Node only
  query SIGCHLD while a bot starts and plays (strace), and Python's ``subprocess`` and
  ``multiprocessing`` and Go's ``os/exec`` reap with ``waitpid``. Node's ``child_process`` does
  not: libuv sets a SIGCHLD handler when a bot first spawns and learns of an exit only from it,
  so in the sandbox a spawned child's ``exit`` never comes (``spawnSync`` and ``exec`` hang;
  checked): a Node bot must not start processes (worker threads are fine). All this only where
  no cpuacct cgroup counts the sandbox's CPU: a root referee's group counts every process of
  the sandbox, reaped or not, so there SIGCHLD's action may be set (``program(True)``) and Node's
  ``child_process`` works.
* ``setsockopt(SOL_SOCKET, SO_SNDBUF / SO_RCVBUF / SO_SNDBUFFORCE / SO_RCVBUFFORCE)`` does
  nothing and answers success: a socket keeps the host's default buffers. Raised to the host's
  ``wmem_max``, 256 sockets held ~1.9 GiB that no resident-set sum (nor a v1 memory cgroup)
  sees. Python's grpc and Node's set none of them on a Unix socket (strace).
* ``fcntl(F_SETPIPE_SZ)`` answers ``EPERM``: a pipe keeps its default 64 KiB (16 pages).
* ``vmsplice``, ``splice``, ``tee`` and ``sendfile`` answer ``ENOSYS``: one byte of a huge page
  handed to a pipe keeps the whole 2 MiB page alive after it is unmapped, and ``splice`` hands
  it on into a socket charged ~770 bytes for it (measured: 200 bytes spliced held 350 MiB at
  14 MiB resident). Only a memory cgroup sees such pages, so without root nothing could count
  them. ``ENOSYS`` as a kernel without them: glibc, Python's ``shutil`` and libuv copy with read
  and write instead.
* ``flock`` and ``fcntl``'s record, open-file-description and lease commands answer
  ``ENOLCK``; ``fcntl(F_NOTIFY)`` (dnotify) answers ``EINVAL``, as a kernel without dnotify does;
  ``inotify_init``/``inotify_init1``/``inotify_add_watch`` answer ``EPERM``. Why: two bots at one
  table share the read-only files under ``/usr``; a lock one holds there, or an open another
  watches, is a channel between them. A lock in a bot's own ``/tmp`` is refused too (the filter
  cannot tell files apart): SQLite there needs ``:memory:`` or ``?nolock=1``
  (``file:/tmp/db?nolock=1``, with ``uri=True``); ``lockf`` and Python's ``fcntl.flock`` raise
  ``OSError(ENOLCK)``. inotify instances and watches are also a quota counted per user up the
  user-namespace chain (``fs.inotify.max_user_instances``, 128 here): a bot of an unprivileged
  referee could take the referee's own.
* ``io_setup``, ``io_submit``, ``io_getevents``, ``io_pgetevents``, ``io_cancel``, ``io_destroy``
  answer ``EPERM``: kernel AIO contexts come from one host-wide quota (``fs.aio-max-nr``).
  glibc's POSIX AIO (``aio_read`` ...) is threads and keeps working.

Other per-user quotas: queued signals and POSIX timers are charged up the user-namespace chain to
the referee's own user, so the sandbox caps them (``prlimit --sigpending``, see
:data:`referee.sandbox.SIGPENDING`); keyrings are denied above. Pipe pages are counted per host
user (``fs.pipe-user-pages-soft``, 16384 pages): as root every bot has a uid of its own, but
without root a bot's pipes are its referee's user's, and past the soft limit that user's new
pipes get 2 pages instead of 16 (they still work; ``fs.pipe-user-pages-hard`` is 0, no limit, on
a default host — an operator who sets one must leave room for the bots' pipes). With
``F_SETPIPE_SZ`` denied a pipe is at most 16 pages, so a sandbox holds at most 64 KiB per pipe
times the pipes its processes can keep open (64 x 256 descriptors): counting them is the
sandbox watch's. epoll watches (``fs.epoll.max_user_watches``, 5.4 million here) are counted per
host user too; a sandbox can make at most about 64 x 128 x 128 = 1 million of them.

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
    # host-wide quotas (see the module docstring): the kernel's AIO contexts (fs.aio-max-nr),
    # inotify instances and watches (counted per user, up the user-namespace chain)
    "io_setup", "io_destroy", "io_getevents", "io_submit", "io_cancel", "io_pgetevents",
    "inotify_init", "inotify_init1", "inotify_add_watch",
)

#: Calls denied with ``ENOLCK`` ("no locks available", which lock users handle): a lock on a
#: file every sandbox shares is a channel between two bots at one table.
NO_LOCKS: tuple[str, ...] = ("flock",)

#: Calls denied with ``ENOSYS`` (as a kernel without them; glibc, Python's ``shutil`` and
#: libuv then copy with read and write): each can hand a page to a pipe or a socket that keeps it
#: alive after every mapping and file of it is gone, where no resident-set sum sees it.
NO_PAGE_PINS: tuple[str, ...] = ("vmsplice", "splice", "tee", "sendfile")

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
    "io_setup": 206, "io_destroy": 207, "io_getevents": 208, "io_submit": 209,
    "io_cancel": 210, "io_pgetevents": 333, "inotify_init": 253, "inotify_init1": 294,
    "inotify_add_watch": 254, "flock": 73,
    "clone": 56, "clone3": 435, "socket": 41, "socketpair": 53,
    "rt_sigaction": 13, "setsockopt": 54, "fcntl": 72,
    "vmsplice": 278, "splice": 275, "tee": 276, "sendfile": 40,
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
_OFF_NR, _OFF_ARCH = 0, 4


def _arg(n: int, high: bool = False) -> int:
    """Offset of argument ``n``'s low (or high) 32-bit word in ``struct seccomp_data``
    (little-endian). An ``int`` argument is its low word alone: the kernel ignores the rest."""
    return 16 + 8 * n + (4 if high else 0)


#: The one socket family a bot may create (``socket``/``socketpair``'s first argument).
AF_UNIX = 1
SIGCHLD = 17
SOL_SOCKET = 1
#: setsockopt(SOL_SOCKET, ...) options that size a socket's buffers: a no-op (see above).
BUFFER_OPTIONS: dict[str, int] = {"SO_SNDBUF": 7, "SO_RCVBUF": 8, "SO_SNDBUFFORCE": 32,
                                  "SO_RCVBUFFORCE": 33}
#: fcntl commands answered ENOLCK: record locks, open-file-description locks and leases.
FCNTL_LOCKS: dict[str, int] = {"F_GETLK": 5, "F_SETLK": 6, "F_SETLKW": 7, "F_OFD_GETLK": 36,
                               "F_OFD_SETLK": 37, "F_OFD_SETLKW": 38, "F_SETLEASE": 1024,
                               "F_GETLEASE": 1025}
F_NOTIFY = 1026  # answered EINVAL, as on a kernel built without dnotify
F_SETPIPE_SZ = 1031  # answered EPERM: a pipe keeps its default 64 KiB


class SeccompUnsupported(RuntimeError):
    """This machine's architecture has no system call table here."""


def _insn(code: int, jt: int, jf: int, k: int) -> bytes:
    return struct.pack("=HBBI", code, jt, jf, k)


#: One instruction before assembly: (code, jump-if-true, jump-if-false, k), a jump being the
#: name of a label (or None: the next instruction); or a label itself, as ("label", name).
_Asm = tuple


def _ret(value: int) -> _Asm:
    return (_RET_K, None, None, value)


def _ld(offset: int) -> _Asm:
    return (_LD_W_ABS, None, None, offset)


def _assemble(code: list[_Asm]) -> bytes:
    """Resolve label jumps (forward only, at most 255 instructions) and pack the program."""
    at: dict[str, int] = {}
    pc = 0
    for item in code:
        if item[0] == "label":
            at[item[1]] = pc
        else:
            pc += 1
    out, pc = [], 0
    for item in code:
        if item[0] == "label":
            continue
        op, jt, jf, k = item
        offs = []
        for target in (jt, jf):
            off = 0 if target is None else at[target] - pc - 1
            assert 0 <= off < 256, (item, off)
            offs.append(off)
        out.append(_insn(op, offs[0], offs[1], k))
        pc += 1
    return b"".join(out)


@functools.cache
def program(reaped_children_counted: bool = False) -> bytes:
    """The compiled filter (``struct sock_filter[]``), built once per process and kind.

    ``reaped_children_counted``: a cpuacct cgroup counts the CPU of every process of the
    sandbox, children the kernel reaps included (a root referee), so setting SIGCHLD's action
    is allowed there and a Node bot's ``child_process`` works; without one it is a no-op (the
    module docstring says why)."""
    machine = platform.machine()
    if machine not in ("x86_64", "amd64"):
        raise SeccompUnsupported(
            f"the sandbox's seccomp filter knows the x86_64 system calls only, not {machine}"
        )
    code: list[_Asm] = [
        _ld(_OFF_ARCH),
        (_JEQ_K, "native", None, AUDIT_ARCH_X86_64),
        _ret(_RET_KILL_PROCESS),  # a foreign ABI: nothing to allow
        ("label", "native"),
        _ld(_OFF_NR),
        (_JGE_K, "eperm", None, X32_SYSCALL_BIT),
    ]
    code += [(_JEQ_K, "eperm", None, nr) for nr in sorted({X86_64[n] for n in DENIED})]
    code += [(_JEQ_K, "enolck", None, X86_64[n]) for n in NO_LOCKS]
    for name, target in (("clone3", "enosys"), ("clone", "clone"), ("socket", "family"),
                         ("socketpair", "family"), ("setsockopt", "sockopt"), ("fcntl", "fcntl")):
        code.append((_JEQ_K, target, None, X86_64[name]))
    if not reaped_children_counted:
        code.append((_JEQ_K, "sigaction", None, X86_64["rt_sigaction"]))
    code += [(_JEQ_K, "enosys", None, X86_64[n]) for n in NO_PAGE_PINS]
    # Any other call; then the argument checks; then the returns they share (classic BPF
    # jumps forward only).
    code += [
        _ret(_RET_ALLOW),
        # clone: flags are the low 32 bits of the first argument.
        ("label", "clone"), _ld(_arg(0)),
        (_JSET_K, "eperm", "allow", CLONE_NAMESPACE_FLAGS),
        # socket / socketpair: the family is the first argument, an int.
        ("label", "family"), _ld(_arg(0)),
        (_JEQ_K, "allow", None, AF_UNIX),
        _ret(_RET_ERRNO | errno.EAFNOSUPPORT),
        # rt_sigaction(SIGCHLD, act, ...): setting (act, a pointer, not NULL in either word) is
        # a no-op; a query (act NULL) runs.
        ("label", "sigaction"), _ld(_arg(0)),
        (_JEQ_K, None, "allow", SIGCHLD),
        _ld(_arg(1)), (_JSET_K, "noop", None, 0xFFFFFFFF),
        _ld(_arg(1, high=True)), (_JSET_K, "noop", "allow", 0xFFFFFFFF),
        # setsockopt(fd, SOL_SOCKET, a buffer size option, ...): a no-op.
        ("label", "sockopt"), _ld(_arg(1)),
        (_JEQ_K, None, "allow", SOL_SOCKET),
        _ld(_arg(2)),
        *[(_JEQ_K, "noop", None, v) for v in BUFFER_OPTIONS.values()],
        _ret(_RET_ALLOW),
        # fcntl(fd, cmd, ...): cmd is an unsigned int.
        ("label", "fcntl"), _ld(_arg(1)),
        (_JEQ_K, "eperm", None, F_SETPIPE_SZ),
        (_JEQ_K, "einval", None, F_NOTIFY),
        *[(_JEQ_K, "enolck", None, v) for v in FCNTL_LOCKS.values()],
        ("label", "allow"), _ret(_RET_ALLOW),
        ("label", "eperm"), _ret(_RET_ERRNO | errno.EPERM),
        ("label", "enosys"), _ret(_RET_ERRNO | errno.ENOSYS),
        ("label", "enolck"), _ret(_RET_ERRNO | errno.ENOLCK),
        ("label", "einval"), _ret(_RET_ERRNO | errno.EINVAL),
        # errno 0: the kernel skips the call and answers success (0).
        ("label", "noop"), _ret(_RET_ERRNO | 0),
    ]
    return _assemble(code)


def program_fd(reaped_children_counted: bool = False) -> int:
    """A new file descriptor holding :func:`program`, positioned at its start, for one bwrap
    (``--seccomp FD`` reads it to the end). The caller passes it on and closes it."""
    fd = os.memfd_create("arena-seccomp", os.MFD_CLOEXEC)
    try:
        os.write(fd, program(reaped_children_counted))
        os.lseek(fd, 0, os.SEEK_SET)
    except BaseException:
        os.close(fd)
        raise
    return fd
