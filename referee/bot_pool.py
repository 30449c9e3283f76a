"""A warm pool of hosted bots: a worker reuses a bot's sandboxed process across matches.

Why: starting Python and gRPC inside a fresh sandbox costs about 0.15 CPU-s per bot, most of a
quick match's CPU. A worker plays the same few bot versions over and over, so after a match in
which a bot behaved, its process is kept idle and seated again by the next match that needs the
same bot, instead of being killed and launched anew.

What is reused, and what never is:

* Processes are keyed by everything that defines the sandbox (:func:`pool_key`): the bot folder,
  a fingerprint of its files (a changed ``bot.py`` never meets an old process), sandbox on/off
  and the :class:`SandboxLimits`.
* Only a bot whose match ended normally, that did not forfeit and acknowledged ``EndMatch`` is
  given back. It is retired (closed, a fresh one launched next time) when it has served
  ``max_uses`` matches, has used ``max_cpu_s`` of CPU (RLIMIT_CPU counts over the process's
  life), kept a thread at work once its match was over or burnt CPU while idle (``idle_cpu``),
  sat idle longer than ``max_idle_s``, died, or flooded its output;
  and, checked when it is given back and again when it is taken, when it keeps a process of its
  own alive (a child could work between matches, or play the next match's opponent), holds more
  than ``max_idle_memory_mb`` (by the measure its memory limit is enforced with: the memory
  cgroup's usage, or resident memory plus its tmpfs pages plus the most its sockets, pipes and
  mappings can hold in the kernel; retired as ``sockets``, ``pipes`` or ``mappings`` when that
  kernel part alone is over), or left files in its private
  ``/tmp``, ``/dev/shm`` or socket folder, named or unlinked but kept open (state carried from
  one match to the next, or junk that holds memory; a file with no name is found by the pages
  its tmpfs holds). Why each was
  retired is counted in :attr:`BotPool.retired`.
* An idle bot is frozen (:meth:`~referee.sandbox.BotProcess.freeze`) until it is taken: it
  cannot work between matches, so a thread still at work when it is given back retires it (it
  would work in its next match's turns), and CPU used while frozen means the freeze did not
  hold (both ``idle_cpu``).
* One process serves one match at a time; two seats of one bot take two processes.
* Remote bots (``host:port``) are not pooled: there is nothing to start.

Every launch goes through one long-lived launcher thread: bwrap's ``--die-with-parent`` is a
``PR_SET_PDEATHSIG``, which fires when the *thread* that forked the sandbox ends. Launched from a
match thread of a thread pool, a kept bot would die mid-match when that thread is retired; from
the launcher, it dies exactly when the whole referee process dies (SIGKILL included).
"""

from __future__ import annotations

import atexit
import collections
import hashlib
import os
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from referee.bot_client import BotClient, BotSource
from referee.manifest import entry_files
from referee.sandbox import SandboxLimits

PoolKey = tuple
#: A bot given back is looked at this many times, this far apart, for a thread still at work.
BUSY_LOOKS = 4
BUSY_LOOK_S = 0.003
#: A bot that looked busy in every look is watched this long more, and counts as still at work
#: only if it used this much CPU meanwhile: on a loaded host an idle bot's thread can sit in the
#: run queue after EndMatch through all the looks (seen at a load of 14 on 2 CPUs: clean bots
#: retired, the pool launching afresh), while a spinning one uses its share of a core (~4 %
#: here, 10 ms in 0.25 s, is a third of what a load of 14 on 2 CPUs still leaves it).
BUSY_CONFIRM_S = 0.25
BUSY_CONFIRM_CPU_MS = 10.0


def bot_fingerprint(bot_dir: Path) -> str:
    """Identity of a bot folder's content: every file's path, size and mtime, and the bytes of
    ``bot.py`` (an edit within the mtime granularity must not slip through). Cheap enough per
    match for a bot folder of a few hundred files."""
    h = hashlib.sha256()
    for root, dirs, files in os.walk(bot_dir):
        dirs.sort()
        for name in sorted(files):
            path = os.path.join(root, name)
            try:
                st = os.stat(path)
            except OSError:
                continue
            h.update(f"{os.path.relpath(path, bot_dir)}\0{st.st_size}\0{st.st_mtime_ns}\0".encode())
    for entry in entry_files(bot_dir):  # bot.py, or the bot.json manifest
        try:
            h.update(entry.read_bytes())
        except OSError:
            pass
    return h.hexdigest()


def pool_key(source: BotSource, sandbox: bool, limits: SandboxLimits) -> PoolKey:
    path = Path(source.location).resolve()
    return (str(path), bot_fingerprint(path), sandbox, limits)


@dataclass
class _Entry:
    client: BotClient
    key: PoolKey
    uses: int = 0
    idle_since: float = 0.0
    cpu_at_release: float | None = None


class BotPool:
    """Idle hosted bots by :func:`pool_key`. Thread-safe: matches on several threads may take
    and give back at once. Use it as ``MatchConfig(..., pool=pool)``."""

    def __init__(
        self,
        max_uses: int = 50,
        max_idle: int = 8,
        max_idle_s: float = 300.0,
        max_cpu_s: float = 120.0,
        idle_cpu_ms: float = 500.0,
        max_idle_memory_mb: float = 512.0,
    ) -> None:
        self.max_uses = max_uses
        self.max_idle = max_idle  # over every key: each idle bot holds memory and a uid
        self.max_idle_s = max_idle_s
        self.max_cpu_s = max_cpu_s
        self.idle_cpu_ms = idle_cpu_ms  # more than this while idle: it is doing something
        self.max_idle_memory_mb = max_idle_memory_mb
        #: Why bots were retired instead of reused, by reason (``child_process``, ``memory``,
        #: ``sockets``, ``pipes``, ``mappings``, ``files``, ``idle_cpu``, ``cpu``, ``uses``,
        #: ``dead``, ``flood``).
        self.retired: collections.Counter[str] = collections.Counter()
        self.launches = 0
        self.reuses = 0
        self._idle: list[_Entry] = []  # oldest first
        self._busy: dict[int, _Entry] = {}
        self._lock = threading.Lock()
        self._closed = False
        self._launcher = ThreadPoolExecutor(1, thread_name_prefix="bot-launcher")
        self._pid = os.getpid()
        atexit.register(self.close)

    # --- taking --------------------------------------------------------------------------------
    def take(self, source: BotSource, sandbox: bool, limits: SandboxLimits) -> BotClient:
        """A healthy idle bot for ``source``, reset for a new match, or a freshly launched one.
        Raises :class:`BotFault` (``start_failed``) like :meth:`BotClient.launch`."""
        if source.kind != "hosted":
            return BotClient.launch(source, sandbox, limits)
        key = pool_key(source, sandbox, limits)
        retired: list[_Entry] = []
        chosen: _Entry | None = None
        with self._lock:
            if self._closed:
                raise RuntimeError("the bot pool is closed")
            retired += self._expire_locked()
            for entry in self._idle:
                if entry.key == key:
                    self._idle.remove(entry)
                    if self._healthy(entry):
                        chosen = entry
                        self._busy[id(entry.client)] = entry
                        self.reuses += 1
                        break
                    retired.append(entry)
        self._close_entries(retired)
        if chosen is not None:
            chosen.uses += 1
            if chosen.client.process is not None:
                chosen.client.process.thaw()  # frozen while it sat idle
            chosen.client.reset_for_match()
            return chosen.client
        client = self._launcher.submit(BotClient.launch, source, sandbox, limits).result()
        entry = _Entry(client, key, uses=1)
        with self._lock:
            self._busy[id(client)] = entry
            self.launches += 1
            closed = self._closed
        if closed:  # closed while launching: do not leave it running
            self.discard(client)
            raise RuntimeError("the bot pool is closed")
        return client

    def _healthy(self, entry: _Entry) -> bool:
        reason = self._problem(entry)
        if reason is not None:
            self.retired[reason] += 1
        return reason is None

    def _problem(self, entry: _Entry) -> str | None:
        """Why this bot must not be seated again, or None. Runs at give-back and at take."""
        proc = entry.client.process
        if proc is None or proc.exit_status() is not None or (proc.frozen and proc.kill_pending()):
            return "dead"
        if proc.output.flooded:
            return "flood"
        cpu = entry.client.cpu_ms()
        if cpu is not None:
            if cpu > self.max_cpu_s * 1000.0:
                return "cpu"
            if entry.cpu_at_release is not None and cpu - entry.cpu_at_release > self.idle_cpu_ms:
                return "idle_cpu"
        if proc.sandboxed:
            if len(proc.processes()) > 2:  # the namespace's init and the bot: nothing else
                return "child_process"
            held = proc.held()
            if held is not None and held.total > self.max_idle_memory_mb * (1 << 20):
                # Named by what holds it: what it keeps in the kernel, when that alone is over.
                kernel = held.kernel_reason()
                return kernel if kernel and held.kernel > self.max_idle_memory_mb * (1 << 20) else "memory"
            if proc.private_files() or proc.tmpfs_bytes():
                return "files"
        return None

    @staticmethod
    def _still_working(client: BotClient) -> bool:
        """Whether the bot keeps a thread at work after its match is over (it acknowledged
        EndMatch): a thread of its sandbox running or waiting for a CPU in every one of
        :data:`BUSY_LOOKS` looks :data:`BUSY_LOOK_S` apart. An idle bot's threads all wait
        (on its socket), bar a moment after the answer; a spinning one is always there — and
        uses CPU, which :data:`BUSY_CONFIRM_S` more of watching confirms. Frozen
        while idle it could not do that work, but it would do it in its next match's turns."""
        proc = client.process
        if proc is None or proc.view is None:
            return False
        for look in range(BUSY_LOOKS):
            if look:
                time.sleep(BUSY_LOOK_S)
            try:
                if proc.view.running_threads() == 0:
                    return False
            except OSError:
                return False
        before = client.cpu_ms()
        if before is None:
            return True
        time.sleep(BUSY_CONFIRM_S)
        after = client.cpu_ms()
        return after is None or after - before >= BUSY_CONFIRM_CPU_MS

    def _expire_locked(self) -> list[_Entry]:
        now = time.monotonic()
        old = [e for e in self._idle if now - e.idle_since > self.max_idle_s]
        for e in old:
            self._idle.remove(e)
        return old

    # --- giving back -------------------------------------------------------------------------
    def give_back(self, client: BotClient) -> None:
        """The match ended and this bot behaved: keep it for the next match, unless it is worn."""
        with self._lock:
            entry = self._busy.pop(id(client), None)
        if entry is None:  # not one of ours (a remote bot)
            client.close()
            return
        entry.cpu_at_release = None
        reason = "uses" if entry.uses >= self.max_uses else self._problem(entry)
        if reason is None and self._still_working(client):
            reason = "idle_cpu"
        if reason is None and client.process is not None and not client.process.freeze():
            reason = "dead"  # it could not be stopped, and was killed for it
        if reason is not None:
            with self._lock:
                self.retired[reason] += 1
            client.close()
            return
        entry.idle_since = time.monotonic()
        entry.cpu_at_release = client.cpu_ms()
        evicted: list[_Entry] = []
        with self._lock:
            if self._closed:
                evicted.append(entry)
            else:
                self._idle.append(entry)
                evicted += self._expire_locked()
                while len(self._idle) > self.max_idle:
                    evicted.append(self._idle.pop(0))
        self._close_entries(evicted)

    def discard(self, client: BotClient) -> None:
        """The bot faulted or the match broke off: never reuse it."""
        with self._lock:
            self._busy.pop(id(client), None)
        client.close()

    # --- the end -------------------------------------------------------------------------------
    def idle_count(self) -> int:
        with self._lock:
            return len(self._idle)

    def close(self) -> None:
        """Close every idle bot, and every bot still in a match (a worker shutting down).
        Idempotent; registered with atexit. A forked child leaves its parent's bots alone."""
        if os.getpid() != self._pid:
            return
        with self._lock:
            self._closed = True
            entries = self._idle + list(self._busy.values())
            self._idle, self._busy = [], {}
        self._close_entries(entries)
        self._launcher.shutdown(wait=False)
        atexit.unregister(self.close)

    @staticmethod
    def _close_entries(entries: list[_Entry]) -> None:
        for entry in entries:
            try:
                entry.client.close()
            except Exception:  # noqa: BLE001 - keep closing the others
                pass
