"""The seccomp program itself, run by a small classic-BPF interpreter: every denied call answers
EPERM, clone3 ENOSYS, clone only with a namespace flag EPERM, a socket of any family but AF_UNIX
EAFNOSUPPORT, setting SIGCHLD's action and sizing a socket's buffers do nothing and answer 0,
file locks answer ENOLCK, dnotify EINVAL, resizing a pipe EPERM, everything else is allowed, and
a foreign ABI is killed. (test_hostile_bots.py tries the calls from inside a real sandbox.)"""

from __future__ import annotations

import errno
import struct

import pytest

from referee import seccomp

ALLOW, KILL = 0x7FFF0000, 0x80000000


def errno_ret(code: int) -> int:
    return 0x00050000 | code


def run(nr: int, arch: int = seccomp.AUDIT_ARCH_X86_64, arg0: int = 0, arg1: int = 0,
        arg2: int = 0, reaped_children_counted: bool = False) -> int:
    """Evaluate the program on one ``struct seccomp_data``."""
    data = struct.pack("=iIQ6Q", nr, arch, 0, arg0, arg1, arg2, 0, 0, 0)
    program = seccomp.program(reaped_children_counted)
    prog = [struct.unpack("=HBBI", program[i:i + 8]) for i in range(0, len(program), 8)]
    acc, pc = 0, 0
    while True:
        code, jt, jf, k = prog[pc]
        if code == 0x20:  # ld [k]
            acc = struct.unpack_from("=I", data, k)[0]
        elif code == 0x06:  # ret k
            return k
        elif code in (0x15, 0x35, 0x45):  # jeq / jge / jset
            hit = {0x15: acc == k, 0x35: acc >= k, 0x45: bool(acc & k)}[code]
            pc += jt if hit else jf
        else:
            raise AssertionError(f"unexpected opcode {code:#x}")
        pc += 1


@pytest.mark.parametrize("name", seccomp.DENIED)
def test_each_denied_call_answers_eperm(name: str) -> None:
    assert run(seccomp.X86_64[name]) == errno_ret(errno.EPERM)


def test_clone3_answers_enosys_so_libc_falls_back_to_clone() -> None:
    assert run(seccomp.X86_64["clone3"]) == errno_ret(errno.ENOSYS)


def test_clone_is_allowed_only_without_namespace_flags() -> None:
    clone, sigchld = seccomp.X86_64["clone"], 17
    thread_flags = 0x003D0F00  # what glibc's pthread_create passes
    assert run(clone, arg0=sigchld) == ALLOW  # fork
    assert run(clone, arg0=thread_flags) == ALLOW
    for flag in (0x10000000, 0x00020000, 0x20000000, 0x40000000, 0x02000000, 0x04000000, 0x08000000):
        assert run(clone, arg0=sigchld | flag) == errno_ret(errno.EPERM), hex(flag)


@pytest.mark.parametrize("call", ["socket", "socketpair"])
def test_only_unix_sockets_can_be_created(call: str) -> None:
    nr = seccomp.X86_64[call]
    assert run(nr, arg0=1) == ALLOW  # AF_UNIX
    # AF_INET, AF_INET6, AF_NETLINK, AF_PACKET, AF_VSOCK, AF_ALG, AF_XDP, and a huge value.
    for family in (2, 10, 16, 17, 40, 38, 44, 0, 0xFFFFFFFF):
        assert run(nr, arg0=family) == errno_ret(errno.EAFNOSUPPORT), family
    # Only the int counts: high bits cannot make another family look like AF_UNIX.
    assert run(nr, arg0=(1 << 32) | 40) == errno_ret(errno.EAFNOSUPPORT)


def test_memory_no_resident_sum_counts_is_denied() -> None:
    for name in ("memfd_create", "memfd_secret", "shmget", "shmat", "msgget", "semget", "mq_open"):
        assert name in seccomp.DENIED and run(seccomp.X86_64[name]) == errno_ret(errno.EPERM)


def test_ordinary_calls_are_allowed() -> None:
    for nr in (0, 1, 2, 9, 39, 57, 231, 257, 293):  # read, write, open, mmap, getpid, fork, ...
        assert run(nr) == ALLOW


def test_other_abis_cannot_sidestep_the_numbers() -> None:
    assert run(272, arch=0x40000003) == KILL  # i386: unshare's number differs there
    assert run(0x40000000 | 272) == errno_ret(errno.EPERM)  # x32


def test_the_program_is_built_once_per_process() -> None:
    assert seccomp.program() is seccomp.program()


# --- issue 35: arguments past the first, read word by word ---------------------------------

NOOP = 0x00050000  # SECCOMP_RET_ERRNO with errno 0: the call is skipped and answers 0


def test_setting_sigchld_does_nothing_so_no_child_is_reaped_unseen() -> None:
    nr, act = seccomp.X86_64["rt_sigaction"], 0x7FFD_1234_5678
    assert run(nr, arg0=17, arg1=act) == NOOP
    assert run(nr, arg0=17, arg1=0x10) == NOOP  # low word only
    assert run(nr, arg0=17, arg1=0x7F00_0000_0000) == NOOP  # high word only
    assert run(nr, arg0=17, arg1=0, arg2=act) == ALLOW  # a query (act NULL) runs
    for sig in (2, 13, 15, 10, 34, 18, 16):  # every other signal
        assert run(nr, arg0=sig, arg1=act) == ALLOW, sig
    # The kernel reads signum as an int: high bits do not make SIGCHLD another signal.
    assert run(nr, arg0=(1 << 32) | 17, arg1=act) == NOOP


def test_socket_buffer_sizes_cannot_be_raised() -> None:
    nr = seccomp.X86_64["setsockopt"]
    for value in seccomp.BUFFER_OPTIONS.values():
        assert run(nr, arg0=3, arg1=1, arg2=value) == NOOP, value
        assert run(nr, arg0=3, arg1=(1 << 32) | 1, arg2=(7 << 32) | value) == NOOP, value
    assert run(nr, arg0=3, arg1=1, arg2=2) == ALLOW  # SO_REUSEADDR
    assert run(nr, arg0=3, arg1=1, arg2=9) == ALLOW  # SO_KEEPALIVE
    assert run(nr, arg0=3, arg1=6, arg2=7) == ALLOW  # IPPROTO_TCP's option 7 is another one


def test_fcntl_locks_leases_dnotify_and_pipe_sizes() -> None:
    nr = seccomp.X86_64["fcntl"]
    for cmd in seccomp.FCNTL_LOCKS.values():
        assert run(nr, arg0=3, arg1=cmd) == errno_ret(errno.ENOLCK), cmd
    assert run(nr, arg0=3, arg1=seccomp.F_NOTIFY) == errno_ret(errno.EINVAL)
    assert run(nr, arg0=3, arg1=seccomp.F_SETPIPE_SZ) == errno_ret(errno.EPERM)
    assert run(nr, arg0=3, arg1=(1 << 32) | seccomp.F_SETPIPE_SZ) == errno_ret(errno.EPERM)
    # F_DUPFD, F_GETFD, F_SETFD, F_GETFL, F_SETFL, F_DUPFD_CLOEXEC, F_GETPIPE_SZ still work.
    for cmd in (0, 1, 2, 3, 4, 1030, 1032):
        assert run(nr, arg0=3, arg1=cmd) == ALLOW, cmd


def test_flock_answers_enolck() -> None:
    assert run(seccomp.X86_64["flock"]) == errno_ret(errno.ENOLCK)


def test_host_wide_quotas_are_denied() -> None:
    for name in ("io_setup", "io_destroy", "io_getevents", "io_submit", "io_cancel",
                 "io_pgetevents", "inotify_init", "inotify_init1", "inotify_add_watch"):
        assert name in seccomp.DENIED and run(seccomp.X86_64[name]) == errno_ret(errno.EPERM)


def test_with_a_cpuacct_cgroup_sigchld_may_be_set() -> None:
    """A root referee's cpuacct cgroup counts the CPU of children the kernel reaps, so there a
    bot may set SIGCHLD's action (Node's child_process needs its handler); the rest is the same."""
    nr, act = seccomp.X86_64["rt_sigaction"], 0x7FFD_1234_5678
    assert run(nr, arg0=17, arg1=act, reaped_children_counted=True) == ALLOW
    assert run(nr, arg0=17, arg1=act) == NOOP
    for name in seccomp.DENIED:
        assert run(seccomp.X86_64[name], reaped_children_counted=True) == errno_ret(errno.EPERM), name


@pytest.mark.parametrize("name", seccomp.NO_PAGE_PINS)
def test_calls_that_pin_pages_in_pipes_answer_enosys(name: str) -> None:
    """vmsplice, splice, tee and sendfile can leave a page referenced by a pipe or a socket after
    its mapping is gone, where no resident sum sees it: ENOSYS, so that libraries fall back to
    read and write (Python's shutil and libuv do)."""
    for counted in (False, True):
        assert run(seccomp.X86_64[name], reaped_children_counted=counted) == errno_ret(errno.ENOSYS)
