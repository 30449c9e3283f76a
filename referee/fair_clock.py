"""Whose slowness was it? How the referee tells a slow bot from a slow host.

A bot's start budget and decision clock are wall-clock deadlines, but on a busy worker (two
cores, a load of 30) a bot that would answer in 50 ms on its own may wait seconds for a CPU.
Charging that wait to the bot is blaming it for the server. So every window the referee judges
is split, per bot, with the kernel's own accounting:

* ``cpu``: what every process of its sandbox ran (``BotProcess.cpu_ms``: the cpuacct cgroup or
  the sandbox's /proc);
* ``waited``: how long it sat runnable in a run queue, waiting for a CPU the host gave to
  someone else (``/proc/<pid>/task/<tid>/schedstat``, second field): the most any one thread
  of its sandbox waited in the window. The most, not the sum: threads that wait at the same
  time lose the bot that time once, so the bot is forgiven at most what it can have lost.

The bot's **own time** in a window of ``wall`` ms is ``min(wall, max(cpu, wall - waited))``:
wall time, less the time it was kept waiting, but never less than the CPU it used (a bot that
starves its own main thread with its own busy threads used that CPU) and never more than the
wall. A bot that sleeps, blocks or deadlocks waits in no run queue, so its own time is the whole
wall, on a quiet host and on a loaded one alike: it times out exactly as before. Only time spent
*wanting* a CPU is forgiven, and only the host can cause that — except a bot that lowered its
own priority (a nice value above the referee's, or the batch/idle scheduling policy): its waits
are its own choice and are not forgiven.

The window is measured exactly (a mark at its start, a walk at its end), not inferred from the
host's load average or PSI: a bot cannot make another seat's time look forgiven, nor hide its
own sleep behind load it made during the opponents' turns. :class:`HostLoad` (PSI) only decides
whether a decision is worth measuring at all, which keeps the quiet host's hot path as it was.
How the limits use it (hard caps, ``server_error``) is in ``referee.bot_client`` and
``referee.match``; the rule for users is in docs/referee.md ("Whose time is it").
"""

from __future__ import annotations

import os
import time

#: ``sched_setscheduler`` policies a process may pick to run less: SCHED_BATCH, SCHED_IDLE.
_LOW_POLICIES = frozenset({3, 5})


def own_time_ms(wall_ms: float, cpu_ms: float | None, waited_ms: float | None) -> float:
    """The bot's own part of a window of ``wall_ms`` (module docstring); the wall itself when
    its CPU or its waits cannot be measured (a remote bot)."""
    if cpu_ms is None or waited_ms is None:
        return wall_ms
    return min(wall_ms, max(cpu_ms, wall_ms - waited_ms))


class RunQueueWaits:
    """The time the threads of one process tree (a bot's sandbox) waited for a CPU.

    :meth:`mark` notes each thread's cumulative run-queue wait where the window starts (a pread
    per thread on descriptors kept from the last walk, ~5 µs a thread); :meth:`waited_ms` walks
    the tree afresh at its end (~1 ms) and takes the longest wait of one thread since. A thread
    born in between counts from its birth; one that ended counts what it had waited when a walk
    last saw it (a thread born and ended between two walks is not seen: the bot is then charged
    more, never less).
    """

    def __init__(self, root_pid: int) -> None:
        self.root_pid = root_pid
        self._own_nice = os.getpriority(os.PRIO_PROCESS, 0)
        self._own_policy = os.sched_getscheduler(0)
        self._fds: dict[int, int] = {}
        #: The waits of the threads seen by walks since the last mark: a thread that ends
        #: before the window does keeps what it had waited when it was last seen.
        self._seen: dict[int, int] = {}

    def _threads(self) -> list[tuple[int, int]]:
        """(pid, tid) of every thread of the tree."""
        found: list[tuple[int, int]] = []
        todo = [self.root_pid]
        seen: set[int] = set()
        while todo and len(seen) < 4096:
            pid = todo.pop()
            if pid in seen:
                continue
            seen.add(pid)
            try:
                tids = os.listdir(f"/proc/{pid}/task")
            except OSError:
                continue
            for tid in tids:
                found.append((pid, int(tid)))
                try:
                    with open(f"/proc/{pid}/task/{tid}/children", "rb") as fh:
                        todo.extend(int(c) for c in fh.read().split())
                except OSError:
                    pass
        return found

    def _walk(self) -> tuple[dict[int, int], bool]:
        """Every thread's wait (ns) now, and whether any of them lowered its own priority;
        the kept descriptors are renewed on the way."""
        self.close()
        waits: dict[int, int] = {}
        lowered = False
        for pid, tid in self._threads():
            base = f"/proc/{pid}/task/{tid}/"
            try:
                fd = os.open(base + "schedstat", os.O_RDONLY | os.O_CLOEXEC)
            except OSError:
                continue
            try:
                waits[tid] = int(os.pread(fd, 128, 0).split()[1])
                with open(base + "stat", "rb") as fh:
                    data = fh.read()
                fields = data[data.rindex(b")") + 2:].split()
            except (OSError, ValueError, IndexError):
                os.close(fd)
                waits.pop(tid, None)
                continue
            self._fds[tid] = fd
            if int(fields[16]) > self._own_nice or (
                int(fields[38]) in _LOW_POLICIES and self._own_policy not in _LOW_POLICIES
            ):
                lowered = True
        return waits, lowered

    def mark(self) -> dict[int, int]:
        """Each known thread's wait so far (ns): where a window starts."""
        self._seen = {}
        if not self._fds:
            return self._walk()[0]
        marks: dict[int, int] = {}
        for tid, fd in self._fds.items():
            try:
                marks[tid] = int(os.pread(fd, 128, 0).split()[1])
            except (OSError, ValueError, IndexError):
                pass  # gone: its wait before the mark is unknown, and so never forgiven
        return marks

    def waited_ms(self, since: dict[int, int] | None) -> float | None:
        """Milliseconds the tree's threads waited for a CPU since ``since`` (a :meth:`mark`;
        None: since each thread was born). 0 when a thread chose a lower priority; None when
        nothing could be read."""
        now, lowered = self._walk()
        if lowered:
            self._seen[-1] = 1
        self._seen.update(now)
        if not self._seen:
            return None
        if -1 in self._seen:
            return 0.0
        base = since or {}
        return max(max(0, ns - base.get(tid, 0)) for tid, ns in self._seen.items()) / 1e6

    def close(self) -> None:
        for fd in self._fds.values():
            os.close(fd)
        self._fds = {}


class HostLoad:
    """Whether the host is busy enough that a bot may be kept waiting for a CPU: the share of
    the last 10 s in which some runnable task waited (``/proc/pressure/cpu``, "some avg10"),
    or, without PSI, the 1-minute load average against the CPUs. Read at most every
    :data:`HOST_LOAD_TTL_S`, so asking costs nothing on the hot path.

    It only decides whether a decision's window is *measured* (:class:`RunQueueWaits` costs a
    pread per thread): the verdict comes from the bot's own waits, never from this figure.
    """

    def __init__(self) -> None:
        self._checked = -1e9
        self._busy = False

    def busy(self) -> bool:
        now = time.monotonic()
        if now - self._checked >= HOST_LOAD_TTL_S:
            self._checked = now
            self._busy = _host_busy()
        return self._busy


#: How often :class:`HostLoad` looks again.
HOST_LOAD_TTL_S = 0.5
#: "Busy": some task waited for a CPU in at least this share of the last 10 s (PSI), or the
#: load average reached this many runnable tasks per CPU.
BUSY_STALL_PCT = 5.0
BUSY_LOAD_PER_CPU = 0.75


def _host_busy() -> bool:
    try:
        with open("/proc/pressure/cpu", "rb") as fh:
            first = fh.readline().split()
        return float(first[1].split(b"=")[1]) >= BUSY_STALL_PCT
    except (OSError, ValueError, IndexError):
        pass
    try:
        return os.getloadavg()[0] >= BUSY_LOAD_PER_CPU * (os.cpu_count() or 1)
    except OSError:
        return True  # unknown: measure


#: One per referee process: every runner shares the host.
HOST_LOAD = HostLoad()
