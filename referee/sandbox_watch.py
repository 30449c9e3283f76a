"""The watch over running sandboxes: memory without a cgroup, and files and sockets in any.

Why a thread rather than a kernel limit: a referee that is not root can write no cgroup, and
rlimits are per process (a bot that forks multiplies them); no mount option bwrap offers bounds
a tmpfs's number of files. So one daemon thread per referee process looks at every running
sandbox every :attr:`MemoryWatch.interval_s`, through its :class:`~referee.sandbox_view.SandboxView`,
and acts as the kernel would.
"""

from __future__ import annotations

import threading
import time
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from referee.sandbox import BotProcess
    from referee.sandbox_view import ProcInfo, SandboxView


def held_bytes(view: SandboxView, procs: list[ProcInfo]) -> int:
    """Memory a sandbox without a memory cgroup holds: the resident memory of each of its
    processes plus every data page of its tmpfs, files it unlinked but keeps open included.

    Nothing else a bot could fill is left uncounted: the seccomp filter denies memfds, System V
    shared memory and POSIX message queues (:mod:`referee.seccomp`), and POSIX shared memory is a
    file of its ``/dev/shm`` tmpfs. A page of a tmpfs file that a process also maps counts twice
    (resident and in the tmpfs): the measure errs on the bot's side of its limit, by at most the
    size of its tmpfs.
    """
    return sum(p.rss_bytes for p in procs) + view.private_bytes()


class MemoryWatch:
    """Bounds the memory of sandboxes that have no memory cgroup (a referee that is not root),
    and the number of files of every sandbox.

    rlimits are per process, and a bot that forks multiplies them. One daemon thread per referee
    process sums the resident memory of every process of each such sandbox every
    :attr:`interval_s` together with what its tmpfs hold (:func:`held_bytes`); over the limit,
    it SIGKILLs the largest process, as the kernel's out-of-memory killer does inside a memory
    cgroup. A bot can overshoot only by what it allocates within one interval. A kill does not
    empty a tmpfs: a sandbox still over its limit loses its next largest process at the next
    look, and so on, down to the bot itself, whose death ends the sandbox.

    A tmpfs's size does not bound its files: each empty file or folder costs kernel memory and
    no data page. A sandbox with more than ``SandboxLimits.files`` of them is killed whole. Nor
    does anything count what a socket buffers (a Unix stream socket holds about 200 KiB that is
    in no process's memory, and a memory cgroup v1 does not charge it either): a sandbox with
    more than ``SandboxLimits.sockets`` Unix sockets (the only family it may make) is killed
    whole too. Both are checked in either referee mode.
    """

    interval_s = 0.05

    def __init__(self) -> None:
        self._bots: set[BotProcess] = set()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self.kills = 0

    def add(self, bot: BotProcess) -> None:
        with self._lock:
            self._bots.add(bot)
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._run, name="sandbox-memory", daemon=True)
                self._thread.start()

    def discard(self, bot: BotProcess) -> None:
        with self._lock:
            self._bots.discard(bot)

    def _run(self) -> None:
        while True:
            time.sleep(self.interval_s)
            with self._lock:
                bots = list(self._bots)
            for bot in bots:
                self.check(bot)

    def check(self, bot: BotProcess) -> None:
        """One look at one sandbox; kill its largest process if it is over its memory limit."""
        with bot._lock:  # stop() closes the view under this lock
            view = bot.view
            if view is None:
                return
            try:
                files = view.private_inodes()
            except OSError:
                files = 0
            try:
                sockets = view.unix_sockets()
            except OSError:
                sockets = 0
            if files > bot.limits.files or sockets > bot.limits.sockets:
                bot.memory_kill = (f"it made {files} files in its tmpfs, over the limit of "
                                   f"{bot.limits.files}" if files > bot.limits.files else
                                   f"it made {sockets} sockets, over the limit of "
                                   f"{bot.limits.sockets}")
                self.kills += 1
                try:
                    for p in view.processes():
                        view.kill(p.pid)
                except OSError:
                    pass
                return
            cpu_by_cgroup = bot.cgroup is not None and "cpuacct" in bot.cgroup.paths
            if not bot.memory_limited and cpu_by_cgroup:
                return
            try:
                procs = view.processes()
            except OSError:
                return
            kept = bot._ns_stat
            if kept is not None:
                bot.others_ticks = sum(p.cpu_ticks for p in procs if p.pid not in kept)
            if not bot.memory_limited or not procs:
                return
            limit = bot.limits.memory_mb << 20
            try:
                total = held_bytes(view, procs)
            except OSError:
                return
            if total <= limit:
                return
            victim = max(procs, key=lambda p: p.rss_bytes)
            if view.kill(victim.pid):
                self.kills += 1
                in_tmpfs = total - sum(p.rss_bytes for p in procs)
                bot.memory_kill = (f"out of memory: the memory watch killed its largest process; "
                                   f"the sandbox held {total >> 20} MiB ({in_tmpfs >> 20} MiB of "
                                   f"it in its tmpfs), over the {bot.limits.memory_mb} MiB limit")


MEMORY_WATCH = MemoryWatch()
