"""The watch over running sandboxes: memory without a cgroup, and files and sockets in any.

Why a thread rather than a kernel limit: a referee that is not root can write no cgroup, and
rlimits are per process (a bot that forks multiplies them); no mount option bwrap offers bounds
a tmpfs's number of files. So one daemon thread per referee process looks at every running
sandbox every :attr:`MemoryWatch.interval_s`, through its :class:`~referee.sandbox_view.SandboxView`,
and acts as the kernel would.

What a sandbox holds (:class:`Held`) is more than its processes' resident memory: its tmpfs
pages, and kernel memory that is in no process — what its Unix sockets and pipes buffer, and
the page tables and mapping structures of its processes. Buffers are charged at the most each
socket or pipe can hold at the sizes a bot can give it (:class:`Ceilings`, read from this
host's ``net.core.wmem_max``, ``fs.pipe-max-size`` …), never at what it holds now: the kernel
shows no byte count for a datagram queue or a pipe that the referee could read without taking
the bot's descriptors, and a ceiling cannot be fooled by a queue emptied just before a look.
"""

from __future__ import annotations

import functools
import os
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from referee import seccomp

if TYPE_CHECKING:
    from referee.sandbox import BotProcess, SandboxLimits
    from referee.sandbox_view import ProcInfo, SandboxView

_PAGE = os.sysconf("SC_PAGE_SIZE")
#: One socket buffer (skb) past a full send buffer: a Unix stream skb carries at most 32 KiB of
#: page fragments and a head of a few KiB; its truesize stays well under this.
SKB_SLACK = 64 << 10
#: A new network namespace's ``net.unix.max_dgram_qlen`` (the kernel's unix_net_init); the
#: sandbox cannot change it (no capability, ``/proc/sys`` read-only).
NEW_NETNS_DGRAM_QLEN = 10
#: Kernel memory of one mapping: its vm_area_struct (192 bytes here), its share of the maple
#: tree, and the anon_vma and chain a written anonymous mapping adds (measured: 60,000 mappings
#: took 13.5 MiB of slab untouched).
MAPPING_BYTES = 512


def _sysctl(name: str, default: int) -> int:
    try:
        return int(Path("/proc/sys", name).read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return default


@dataclass(frozen=True)
class Ceilings:
    """The most one kernel object of a sandbox can hold, on this host.

    * a stream or seqpacket socket: its send buffer plus one skb. Data is charged to the socket
      that sent it until it is read, so each live socket covers what it sent; a socket whose
      peer is gone holds what that peer sent (its own sends died with the peer's queue), no more.
    * a datagram socket: what it sent (a datagram may start while the buffer is one byte short
      of full: twice the buffer), what a connected peer that closed left in its queue (as much
      again), and up to ``max_dgram_qlen + 1`` datagrams of senders that closed since.
    * a pipe: its largest size (``F_SETPIPE_SZ`` up to ``fs.pipe-max-size``), one page a slot
      (a slot filled by ``vmsplice`` can keep a whole huge page alive: docs/referee.md, what is
      still not counted).
    * concurrency: each of up to ``SandboxLimits.processes`` tasks may be past a send buffer's
      check with one more skb (``tasks`` × :data:`SKB_SLACK`, once per sandbox with a socket).

    The largest send buffer a bot can set is ``2 × net.core.wmem_max`` (``SO_SNDBUF`` doubles
    the value it clamps there; ``SO_SNDBUFFORCE`` needs a capability no bot has), and the
    largest pipe ``fs.pipe-max-size``. When the seccomp filter makes the buffer options no-ops
    and denies ``F_SETPIPE_SZ`` (it then lists ``BUFFER_OPTIONS`` and ``F_SETPIPE_SZ``), every
    socket keeps ``net.core.wmem_default`` and every pipe its 16 pages.
    """

    sndbuf: int
    stream_socket: int
    dgram_socket: int
    pipe: int
    buffers_fixed: bool = False  # the filter makes the socket buffer options no-ops
    pipes_fixed: bool = False  # the filter denies F_SETPIPE_SZ

    @classmethod
    def of_host(cls) -> Ceilings:
        default = _sysctl("net/core/wmem_default", 212992)
        fixed_buffers = getattr(seccomp, "BUFFER_OPTIONS", None) is not None
        sndbuf = default if fixed_buffers else max(default, 2 * _sysctl("net/core/wmem_max", default))
        qlen = max(NEW_NETNS_DGRAM_QLEN, _sysctl("net/unix/max_dgram_qlen", NEW_NETNS_DGRAM_QLEN))
        one = sndbuf + SKB_SLACK
        pipe = 16 * _PAGE
        pipes_fixed = getattr(seccomp, "F_SETPIPE_SZ", None) is not None
        if not pipes_fixed:
            most = max(_sysctl("fs/pipe-max-size", 1 << 20), pipe)
            pipe = 1 << (most - 1).bit_length()  # the kernel rounds a size up to a power of two
        return cls(sndbuf=sndbuf, stream_socket=one, dgram_socket=2 * one + 2 * one + (qlen + 1) * one,
                   pipe=pipe, buffers_fixed=fixed_buffers, pipes_fixed=pipes_fixed)


@functools.cache
def ceilings() -> Ceilings:
    return Ceilings.of_host()


@dataclass(frozen=True)
class Held:
    """What one sandbox holds, by the measure its memory limit is enforced with. Without a
    memory cgroup: resident memory + tmpfs pages + the kernel parts. With one: the cgroup's
    usage, plus the kernel parts only where the cgroup does not charge kernel memory."""

    resident: int = 0
    tmpfs: int = 0
    sockets: int = 0  # the ceiling of what its Unix sockets can buffer
    socket_count: int = 0
    pipes: int = 0  # the ceiling of what its pipes can buffer
    pipe_count: int = 0
    mappings: int = 0  # page tables + MAPPING_BYTES per mapping
    mapping_count: int = 0
    cgroup: int | None = None  # the memory cgroup's usage
    kernel_in_cgroup: bool = False  # the usage includes the kernel parts (shown, not added)

    @property
    def kernel(self) -> int:
        return self.sockets + self.pipes + self.mappings

    @property
    def total(self) -> int:
        if self.cgroup is not None:
            return self.cgroup + (0 if self.kernel_in_cgroup else self.kernel)
        return self.resident + self.tmpfs + self.kernel

    def kernel_reason(self) -> str | None:
        """The kernel part that holds the most (``sockets``, ``pipes``, ``mappings``), if any."""
        parts = {"sockets": self.sockets, "pipes": self.pipes, "mappings": self.mappings}
        word = max(parts, key=lambda k: parts[k])
        return word if parts[word] else None

    def describe(self) -> str:
        mib = lambda n: f"{n >> 20} MiB"  # noqa: E731 - a local shorthand
        parts = ([f"{mib(self.cgroup)} charged to its memory cgroup"] if self.cgroup is not None
                 else [f"{mib(self.resident)} resident", f"{mib(self.tmpfs)} in its tmpfs"])
        if self.socket_count:
            parts.append(f"up to {mib(self.sockets)} in the buffers of {self.socket_count} sockets")
        if self.pipe_count:
            parts.append(f"up to {mib(self.pipes)} in {self.pipe_count} pipes")
        if self.mappings:
            parts.append(f"{mib(self.mappings)} in page tables and {self.mapping_count} mappings")
        return ", ".join(parts)


@dataclass
class Deep:
    """The costly part of a look (every descriptor and every mapping of every process), kept
    between looks: it is taken again after :attr:`MemoryWatch.deep_interval_s`, or twenty
    times what the last one cost, whichever is longer (a sandbox near its mapping cap cannot
    make the watch spend more than a twentieth of its time on it)."""

    pipe_count: int = 0
    mapping_count: int = 0
    page_tables: int = 0
    at: float = float("-inf")
    cost: float = 0.0
    #: Processes whose descriptors or mappings could not be read, by when that was first seen:
    #: one being killed is unreadable for a moment; one unreadable for :data:`HIDDEN_S` hides.
    hidden: dict[int, float] = field(default_factory=dict)


#: How long a process may stay unreadable to the watch (a process dying after a kill is, while
#: its memory is freed) before it counts as hiding.
HIDDEN_S = 1.0


class Hidden(Exception):
    """A process of the sandbox made itself unreadable to the watch, or passed a cap."""


def deep_look(view: SandboxView, procs: list[ProcInfo], limits: SandboxLimits,
              hidden: dict[int, float] | None = None) -> Deep:
    """Count the sandbox's pipes (unique pipe inodes among all its descriptors) and its
    mappings (no further than ``limits.mappings + 1`` in all), and sum its page tables.
    Raises :class:`Hidden` when it passes the mapping cap, or when a process has stayed
    unreadable (``hidden``: since when, from the last look) for :data:`HIDDEN_S`."""
    started = time.perf_counter()
    now = time.monotonic()
    seen: dict[int, float] = {}
    pipes: set[int] = set()
    maps = tables = 0
    dead: set[int] | None = None
    for p in procs:
        try:
            pipes |= view.pipe_inodes([p.pid])
            maps += view.mappings(p.pid, limits.mappings - maps)
            tables += view.page_table_bytes(p.pid)
        except PermissionError:
            if dead is None:  # read once, and only when something could not be read
                dead = {pid for pid, state in view.states().items() if state in (b"Z", b"X")}
            if p.pid in dead:
                # Exited, not yet waited for (with SIGCHLD's action fixed, a child stays so
                # until its parent waits): no descriptor, no mapping left to hide. A leader
                # whose threads live on is not listed as dead (SandboxView.states).
                continue
            seen[p.pid] = (hidden or {}).get(p.pid, now)
            if now - seen[p.pid] >= HIDDEN_S:
                raise Hidden("its processes hid their descriptors or mappings from the memory "
                             "watch") from None
        if maps > limits.mappings:
            raise Hidden(f"it made more than {limits.mappings} memory mappings, over the limit "
                         f"of {limits.mappings}")
    # With a process unreadable, look again at the next look rather than after the interval.
    at = float("-inf") if seen else now
    return Deep(len(pipes), maps, tables, at, time.perf_counter() - started, seen)


def measure(view: SandboxView, procs: list[ProcInfo], deep: Deep, sockets: tuple[int, int],
            limits: SandboxLimits, cgroup_usage: int | None = None,
            kernel_in_cgroup: bool = False) -> Held:
    """:class:`Held` from one look (``sockets`` is ``(stream, datagram)``). With a memory
    cgroup that charges kernel memory, its usage is the total (the kernel parts are in it
    already: they are kept to name what holds the memory)."""
    c = ceilings()
    stream, dgram = sockets
    socket_bytes = stream * c.stream_socket + dgram * c.dgram_socket
    if stream + dgram:
        socket_bytes += limits.processes * SKB_SLACK
    kernel = dict(sockets=socket_bytes, socket_count=stream + dgram,
                  pipes=deep.pipe_count * c.pipe, pipe_count=deep.pipe_count,
                  mappings=deep.page_tables + deep.mapping_count * MAPPING_BYTES,
                  mapping_count=deep.mapping_count)
    if cgroup_usage is not None:
        return Held(cgroup=cgroup_usage, kernel_in_cgroup=kernel_in_cgroup, **kernel)
    return Held(resident=sum(p.rss_bytes for p in procs), tmpfs=view.private_bytes(), **kernel)


def held_bytes(view: SandboxView, procs: list[ProcInfo], limits: SandboxLimits) -> int:
    """Memory a sandbox without a memory cgroup holds, by a fresh full look (see :class:`Held`).

    Nothing else a bot could fill is left uncounted: the seccomp filter denies memfds, System V
    shared memory and POSIX message queues (:mod:`referee.seccomp`), and POSIX shared memory is a
    file of its ``/dev/shm`` tmpfs. A page of a tmpfs file that a process also maps counts twice
    (resident and in the tmpfs): the measure errs on the bot's side of its limit, by at most the
    size of its tmpfs.
    """
    return measure(view, procs, deep_look(view, procs, limits), view.unix_socket_kinds(),
                   limits).total


_PROBE_LOCK = threading.Lock()


def cgroup_charges_kernel_memory(memory_root: str = "/sys/fs/cgroup/memory") -> bool:
    """See :func:`_probe_kernel_charge`; one probe per referee process, whichever thread asks
    first (the watch and the pool may ask at once)."""
    with _PROBE_LOCK:
        return _probe_kernel_charge(memory_root)


@functools.cache
def _probe_kernel_charge(memory_root: str) -> bool:
    """Whether a cgroup-v1 memory group on this host charges socket buffers (and with them the
    other kernel memory a bot can hold: pipes, mappings, page tables). It depends on the kernel
    and its boot options (``cgroup.memory=nokmem``), so it is measured once per referee process:
    a child in a scratch group fills a socket pair, and the group's usage must grow by at least
    half of what it buffered (Linux 6.18 here: by all of it)."""
    group = Path(memory_root, "arena", f"{os.getpid()}-kmem-probe")
    code = ("import socket,sys\n"
            "u=lambda:int(open(sys.argv[1]).read())\n"
            "b=u();a,c=socket.socketpair();a.setblocking(False);n=0\n"
            "try:\n while True:n+=a.send(bytes(65536))\n"
            "except BlockingIOError:pass\n"
            "print(n,u()-b)\n")
    try:
        group.mkdir(parents=True)
    except OSError:
        return False
    try:
        done = subprocess.run(
            ["/bin/sh", "-c", 'echo $$ > "$1" && exec "$2" -S -c "$3" "$4"', "sh",
             str(group / "cgroup.procs"), sys.executable, code, str(group / "memory.usage_in_bytes")],
            capture_output=True, text=True, timeout=30)
        buffered, charged = (int(x) for x in done.stdout.split())
        return buffered > 0 and charged * 2 >= buffered
    except (OSError, ValueError, subprocess.SubprocessError):
        return False
    finally:
        for _ in range(100):
            try:
                group.rmdir()
                break
            except OSError:
                time.sleep(0.01)


class MemoryWatch:
    """Bounds the memory of sandboxes that have no memory cgroup (a referee that is not root),
    and the number of files of every sandbox.

    rlimits are per process, and a bot that forks multiplies them. One daemon thread per referee
    process sums every 50 ms what each such sandbox holds (:class:`Held`: resident memory, tmpfs
    pages, and the most its sockets, pipes and mappings can hold in the kernel); over the limit,
    it SIGKILLs the largest process, as the kernel's out-of-memory killer does inside a memory
    cgroup. A bot can overshoot only by what it allocates within one interval (its mappings and
    pipes: within one deep look, :class:`Deep`). A kill does not empty a tmpfs: a sandbox still
    over its limit loses its next largest process at the next look, and so on, down to the bot
    itself, whose death ends the sandbox. A root referee's memory cgroup counts socket buffers,
    pipes and mappings itself where the kernel charges them to it
    (:func:`cgroup_charges_kernel_memory`); where it does not, the watch adds them to the
    group's usage and kills the same way.

    A tmpfs's size does not bound its files: each empty file or folder costs kernel memory and
    no data page. A sandbox with more than ``SandboxLimits.files`` of them is killed whole, as is
    one with more than ``SandboxLimits.sockets`` Unix sockets (the only family it may make), one
    with more than ``SandboxLimits.mappings`` mappings (counting them costs the watch ~1.5 µs
    each), and one whose processes hide their descriptors or mappings from it. All are checked
    in either referee mode.
    """

    interval_s = 0.05
    deep_interval_s = 0.5

    def __init__(self) -> None:
        self._bots: set[BotProcess] = set()
        self._deep: dict[BotProcess, Deep] = {}
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
            self._deep.pop(bot, None)

    def _run(self) -> None:
        while True:
            time.sleep(self.interval_s)
            with self._lock:
                bots = list(self._bots)
            for bot in bots:
                self.check(bot)

    def _kill_all(self, bot: BotProcess, view: SandboxView, why: str) -> None:
        bot.memory_kill = why
        self.kills += 1
        try:
            for p in view.processes():
                view.kill(p.pid)
        except OSError:
            pass

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
                kinds = view.unix_socket_kinds()
            except OSError:
                kinds = (0, 0)
            sockets = sum(kinds)
            if files > bot.limits.files or sockets > bot.limits.sockets:
                self._kill_all(bot, view, f"it made {files} files in its tmpfs, over the limit of "
                                          f"{bot.limits.files}" if files > bot.limits.files else
                                          f"it made {sockets} sockets, over the limit of "
                                          f"{bot.limits.sockets}")
                return
            memory_group = bot.cgroup.paths.get("memory") if bot.cgroup is not None else None
            kernel_counted = memory_group is not None and cgroup_charges_kernel_memory()
            counts = bot.memory_limited or (memory_group is not None and not kernel_counted)
            cpu_by_cgroup = bot.cgroup is not None and "cpuacct" in bot.cgroup.paths
            if not counts and cpu_by_cgroup:
                return
            try:
                procs = view.processes()
            except OSError:
                return
            kept = bot._ns_stat
            if kept is not None:
                bot.others_ticks = sum(p.cpu_ticks for p in procs if p.pid not in kept)
            if not counts or not procs:
                return
            deep = self._deep.get(bot) or Deep()
            now = time.monotonic()
            if now >= deep.at + max(self.deep_interval_s, 20 * deep.cost):
                try:
                    deep = deep_look(view, procs, bot.limits, deep.hidden)
                except Hidden as exc:
                    self._kill_all(bot, view, str(exc))
                    return
                except OSError:
                    return
                with self._lock:
                    if bot in self._bots:
                        self._deep[bot] = deep
            try:
                usage = (int((memory_group / "memory.usage_in_bytes").read_text())
                         if memory_group is not None else None)
                held = measure(view, procs, deep, kinds, bot.limits, usage)
            except (OSError, ValueError):
                return
            if held.total <= bot.limits.memory_mb << 20:
                return
            victim = max(procs, key=lambda p: p.rss_bytes)
            if view.kill(victim.pid):
                self.kills += 1
                with self._lock:
                    self._deep.pop(bot, None)  # what the victim held is gone: look again at once
                bot.memory_kill = (f"out of memory: the memory watch killed its largest process; "
                                   f"the sandbox held {held.total >> 20} MiB ({held.describe()}), "
                                   f"over the {bot.limits.memory_mb} MiB limit")


MEMORY_WATCH = MemoryWatch()
