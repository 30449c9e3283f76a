"""Make the host busy for a test, with real processes: CPU hogs, and bots kept waiting for a CPU.

Everything here is bounded in time twice over: each hog stops by itself after ``limit_s`` even if
the test process dies, and the context managers stop them at the end of the ``with`` block.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator

#: A busy loop that ends by itself: a hog must never outlive a crashed test run for long.
_HOG = "import time\nend = time.monotonic() + {limit}\nwhile time.monotonic() < end:\n    pass\n"


@contextlib.contextmanager
def hogs(count: int, limit_s: float = 60.0, cpu: int | None = None) -> Iterator[list[int]]:
    """``count`` busy loops at nice 0 for the ``with`` block (at most ``limit_s``), all on CPU
    ``cpu`` when given (the others' processes then move to the other CPUs). Yields their pids."""
    # Each in a session of its own, as every sandboxed bot is: with the kernel's autogroups a
    # session shares the CPU as one, so loops in the test's session would weigh as one task.
    procs = [subprocess.Popen([sys.executable, "-c", _HOG.format(limit=limit_s)],
                              stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, start_new_session=True)
             for _ in range(count)]
    try:
        if cpu is not None:
            for p in procs:
                os.sched_setaffinity(p.pid, {cpu})
        time.sleep(0.2)  # let them start spinning (and the load figures see them)
        yield [p.pid for p in procs]
    finally:
        for p in procs:
            p.kill()
        for p in procs:
            p.wait()


def _children(pid: int) -> list[int]:
    kids: list[int] = []
    for tid in _threads_of(pid):
        try:
            with open(f"/proc/{pid}/task/{tid}/children", "rb") as fh:
                kids.extend(int(c) for c in fh.read().split())
        except OSError:
            pass
    return kids


def _threads_of(pid: int) -> list[int]:
    try:
        return [int(t) for t in os.listdir(f"/proc/{pid}/task")]
    except OSError:
        return []


def _tree(root: int) -> list[int]:
    found, todo = [], [root]
    while todo and len(found) < 1000:
        pid = todo.pop()
        found.append(pid)
        todo.extend(_children(pid))
    return found


class Starver:
    """Keeps the bots this test process launches on CPU ``cpu`` (where the hogs are), so the
    host keeps them waiting for a CPU while the referee itself runs on the other CPUs.

    The referee (every thread of this process) is pinned to the other CPUs meanwhile: a bot
    allowed fewer CPUs than the referee chose to wait (referee.fair_clock) and is forgiven
    nothing, so the bots here are allowed as many as the referee, only not the same ones.

    A bot is a child process of this one (its sandbox) and everything under it; ``exclude``
    names children that are not bots (the hogs). ``first_only``: starve only the bots that
    appear within ``window_s`` of the first one (one match's seats); bots launched later (a
    replayed match) run free, and :attr:`first_done` tells when the first ones have ended.
    """

    def __init__(self, cpu: int = 0, exclude: list[int] | None = None, first_only: bool = False,
                 window_s: float = 0.5) -> None:
        self.cpu = cpu
        self.exclude = set(exclude or ())
        self.first_only = first_only
        self.window_s = window_s
        self.starved: set[int] = set()
        self._first_at: float | None = None
        #: Set once every starved bot has ended (with ``first_only``: the first match is over).
        self.first_done = threading.Event()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True, name="starver")

    def _pin_referee(self) -> None:
        """Every thread of this process on the CPUs other than ``cpu`` (threads made later
        inherit it from the thread that makes them)."""
        for tid in _threads_of(os.getpid()):
            with contextlib.suppress(OSError):
                os.sched_setaffinity(tid, self._referee_cpus)

    def _run(self) -> None:
        me = os.getpid()
        while not self._stop.is_set():
            self._pin_referee()
            now = time.monotonic()
            for root in _children(me):
                if root in self.exclude:
                    continue
                if root not in self.starved:
                    late = self._first_at is not None and now - self._first_at > self.window_s
                    if self.first_only and late:
                        continue
                    self._first_at = self._first_at or now
                    self.starved.add(root)
                for pid in _tree(root):
                    for tid in _threads_of(pid):
                        with contextlib.suppress(OSError):
                            os.sched_setaffinity(tid, {self.cpu})
            if self.starved and not any(os.path.exists(f"/proc/{pid}") for pid in self.starved):
                self.first_done.set()
            self._stop.wait(0.002)

    def __enter__(self) -> Starver:
        self._cpus = os.sched_getaffinity(0)
        others = self._cpus - {self.cpu}
        self._referee_cpus = set(list(others)[:1]) if others else self._cpus
        self._pin_referee()
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(5)
        for tid in _threads_of(os.getpid()):
            with contextlib.suppress(OSError):
                os.sched_setaffinity(tid, self._cpus)
