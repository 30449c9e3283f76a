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
own priority (a nice value above the referee's, the batch/idle scheduling policy, an autogroup
nice above the referee's, or fewer CPUs allowed than the referee's): its waits are its own
choice and are never forgiven again. A bot whose CPU cannot be read is judged on the wall.

The window is measured exactly (a mark at its start, a walk at its end, both of the whole tree),
not inferred from the host's load average or PSI: a bot cannot make another seat's time look
forgiven, nor hide its own sleep behind load it made during the opponents' turns, nor bring
into the window waits its helpers gathered before it (issue 35: a task the mark did not see is
counted from its birth only when it was born in the mark's clock tick or later, so at most one
tick of waits from before the mark comes in with it). What remains is bounded
by the caller: a second void at one seat's decisions is that seat's forfeit (``void_limit``). :class:`HostLoad` (PSI) only decides
whether a decision is worth measuring at all, which keeps the quiet host's hot path as it was.
How the limits use it (hard caps, ``server_error``) is in ``referee.bot_client`` and
``referee.match``; the rule for users is in docs/referee.md ("Whose time is it").
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass

#: ``sched_setscheduler`` policies a process may pick to run less: SCHED_BATCH, SCHED_IDLE.
_LOW_POLICIES = frozenset({3, 5})
#: SCHED_RESET_ON_FORK, or-ed into the policy ``sched_getscheduler`` answers.
_RESET_ON_FORK = 0x40000000
#: Clock ticks a second: the unit of a task's start time (field 22 of /proc/<pid>/task/<tid>/stat).
_HZ = os.sysconf("SC_CLK_TCK")
#: A tree walk stops after this many processes (a bot's process limit is far below it).
_MAX_PROCESSES = 4096


def own_time_ms(wall_ms: float, cpu_ms: float | None, waited_ms: float | None) -> float:
    """The bot's own part of a window of ``wall_ms`` (module docstring); the wall itself when
    its CPU or its waits cannot be measured (a remote bot, a CPU that could not be read)."""
    if cpu_ms is None or waited_ms is None:
        return wall_ms
    return min(wall_ms, max(cpu_ms, wall_ms - waited_ms))


def boot_ticks() -> int:
    """Now, in the unit and on the clock of a task's start time (clock ticks since boot,
    CLOCK_BOOTTIME): the kernel truncates a start time to a tick, so a task whose start time
    is *greater* than a moment taken with this was provably born after it, and one whose start
    time equals it was born at most one tick (10 ms) before it."""
    return time.clock_gettime_ns(time.CLOCK_BOOTTIME) // (1_000_000_000 // _HZ)


def _autogroup_nice(pid: int | str) -> int | None:
    """The nice value of ``pid``'s autogroup (``/proc/<pid>/autogroup``: "/autogroup-N nice M"),
    None without autogroups."""
    try:
        fd = os.open(f"/proc/{pid}/autogroup", os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        return int(os.read(fd, 256).split()[-1])
    except (OSError, ValueError, IndexError):
        return None
    finally:
        os.close(fd)


@dataclass(frozen=True)
class WaitMark:
    """Where a window starts (:meth:`RunQueueWaits.mark`): the moment, taken before the walk,
    as :func:`boot_ticks`, and each task then seen: ``{tid: (wait ns, start ticks)}``."""

    at_ticks: int
    tasks: dict[int, tuple[int, int]]


@dataclass
class _Task:
    """A task of the tree as the walks know it: its ``schedstat`` descriptor, kept open between
    walks (a pread instead of an open, a read and a close; a read fails once the task has
    ended, so a later task given the same tid is never taken for it), and its start time."""

    pid: int
    start: int
    schedstat: int

    def close(self) -> None:
        os.close(self.schedstat)


class RunQueueWaits:
    """The time the tasks (threads) of one process tree (a bot's sandbox) waited for a CPU.

    Every :meth:`mark` and every :meth:`waited_ms` walks the whole tree (``/proc/<pid>/task``
    and each task's ``children``): a task the marks do not know was either born after the mark
    — its start time is the mark's clock tick or later — and counts from its birth, or it was
    hidden from the walk (born in an earlier tick) and gets nothing forgiven. Counting a task of
    the mark's own tick from its birth brings into the window at most one tick (10 ms) of waits
    from before the mark, of one task (the window counts the most of any one task, so more
    helpers do not add up); refusing it would forgive nothing to the gRPC worker thread a bot
    starts to answer the very call the mark opened, which is born within milliseconds of it. The old way, a mark that re-read only the tasks found by the
    last walk, let a bot start busy helpers after that walk, stop them and sleep: every wait
    they had gathered before the decision was counted as inside it, and the sleep was forgiven
    (issue 35). A task that ended before the window's end counts what it had waited when a
    walk since the mark last saw it (one born and ended between two walks is not seen: the bot
    is then charged more, never less).

    One descriptor per task is kept between walks (as many as the bot's process limit allows it
    tasks, as before); a walk costs a listdir per process, and per task a pread, a ``children``
    read and three syscalls for its priority (docs/referee.md has the figures).

    A tree that ever lowered its own priority (:attr:`lowered`) is never forgiven a wait again,
    on this object: the choice may be undone between two walks, and a bot that made it once has
    shown it would.
    """

    def __init__(self, root_pid: int) -> None:
        self.root_pid = root_pid
        self._own_nice = os.getpriority(os.PRIO_PROCESS, 0)
        self._own_policy = os.sched_getscheduler(0)
        self._own_cpus = len(os.sched_getaffinity(0))
        # A referee in the default autogroup (a session never made by setsid, as a service's
        # or a container's first process: its file reads empty) runs at the default weight,
        # nice 0; without autogroups at all, no bot has one either.
        self._own_group_nice = max(_autogroup_nice("self") or 0, 0)
        self._tasks: dict[int, _Task] = {}
        #: The waits and start times of the tasks seen by walks since the last mark: a task
        #: that ends before the window does keeps what it had waited when it was last seen.
        self._seen: dict[int, tuple[int, int]] = {}
        #: Why the tree's waits are not forgiven (it lowered its own priority), or "".
        self.lowered = ""

    def _threads(self) -> tuple[list[tuple[int, int]], list[int]]:
        """(pid, tid) of every task of the tree, and the tree's pids."""
        found: list[tuple[int, int]] = []
        pids: list[int] = []
        todo = [self.root_pid]
        seen: set[int] = set()
        while todo and len(seen) < _MAX_PROCESSES:
            pid = todo.pop()
            if pid in seen:
                continue
            seen.add(pid)
            try:
                tids = os.listdir(f"/proc/{pid}/task")
            except OSError:
                continue
            pids.append(pid)
            for tid in tids:
                found.append((pid, int(tid)))
                try:  # os.open/read: a buffered open() costs several times more here
                    fd = os.open(f"/proc/{pid}/task/{tid}/children", os.O_RDONLY | os.O_CLOEXEC)
                except OSError:
                    continue
                try:
                    todo.extend(int(c) for c in os.read(fd, 65536).split())
                except (OSError, ValueError):
                    pass
                finally:
                    os.close(fd)
        return found, pids

    @staticmethod
    def _open(pid: int, tid: int) -> _Task | None:
        """Open a task first seen by this walk: its schedstat descriptor and its start time."""
        base = f"/proc/{pid}/task/{tid}/"
        try:
            fd = os.open(base + "schedstat", os.O_RDONLY | os.O_CLOEXEC)
        except OSError:
            return None
        try:
            with open(base + "stat", "rb") as fh:
                data = fh.read()
            return _Task(pid, int(data[data.rindex(b")") + 2:].split()[19]), fd)
        except (OSError, ValueError, IndexError):
            os.close(fd)
            return None

    def _walk(self) -> dict[int, tuple[int, int]]:
        """Every task's (wait ns, start ticks) now; notes in :attr:`lowered` a task that
        lowered its own priority. Descriptors of tasks gone are closed, new ones opened."""
        now: dict[int, tuple[int, int]] = {}
        tasks, pids = self._threads()
        old, self._tasks = self._tasks, {}
        for pid, tid in tasks:
            task = old.pop(tid, None)
            if task is not None and task.pid != pid:
                task.close()
                task = None
            for _ in range(2):  # a kept descriptor of a task that has ended: open the new one
                if task is None and (task := self._open(pid, tid)) is None:
                    break
                try:
                    wait = int(os.pread(task.schedstat, 128, 0).split()[1])
                except (OSError, ValueError, IndexError):
                    task.close()
                    task = None
                    continue
                self._tasks[tid] = task
                now[tid] = (wait, task.start)
                if not self.lowered:
                    self.lowered = self._lowered_task(tid)
                break
        for task in old.values():
            task.close()
        if not self.lowered:
            self.lowered = self._lowered_group(pids)
        return now

    def _lowered_task(self, tid: int) -> str:
        """Why task ``tid`` chose to wait: a nice value above the referee's, the batch or idle
        policy, fewer CPUs than the referee may use; "" if it did not (or it has ended)."""
        try:
            nice = os.getpriority(os.PRIO_PROCESS, tid)
            policy = os.sched_getscheduler(tid) & ~_RESET_ON_FORK
            cpus = len(os.sched_getaffinity(tid))
        except OSError:
            return ""
        if nice > self._own_nice:
            return f"a nice value of {nice}"
        if policy in _LOW_POLICIES and self._own_policy not in _LOW_POLICIES:
            return "the batch or idle scheduling policy"
        if cpus < self._own_cpus:
            return f"{cpus} CPU(s) of the {self._own_cpus} it may use"
        return ""

    def _lowered_group(self, pids: list[int]) -> str:
        """An autogroup nice (``/proc/<pid>/autogroup``, writable by its owner) above the
        referee's own: the whole session then yields to every other one. Read for every
        process, as a bot may make sessions (autogroups) of its own."""
        for pid in pids:
            nice = _autogroup_nice(pid)
            if nice is not None and nice > self._own_group_nice:
                return f"an autogroup nice value of {nice}"
        return ""

    def mark(self) -> WaitMark:
        """Where a window starts: the moment (before the walk), and every task's wait so far."""
        at = boot_ticks()
        self._seen = {}
        return WaitMark(at, self._walk())

    def waited_ms(self, since: WaitMark | None) -> float | None:
        """Milliseconds the tree's tasks waited for a CPU since ``since`` (a :meth:`mark`;
        None: since each task was born), the most of any one task. 0 when the tree lowered its
        own priority; None when nothing could be read."""
        self._seen.update(self._walk())
        if not self._seen:
            return None
        if self.lowered:
            return 0.0
        most = 0
        for tid, (ns, start) in self._seen.items():
            if since is None:
                base = 0
            elif (marked := since.tasks.get(tid)) is not None and marked[1] == start:
                base = marked[0]
            elif start >= since.at_ticks:
                base = 0  # born in the mark's tick or later: at most one tick before the mark
            else:
                continue  # born before the mark but not in it: nothing of it is forgiven
            most = max(most, ns - base)
        return most / 1e6

    def close(self) -> None:
        for task in self._tasks.values():
            task.close()
        self._tasks = {}


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
