"""Freezing a seat a moment after its reply, off the match's hot path.

Why: a freeze and a thaw each cost the kernel some 0.1-0.3 ms (every thread of the bot is
woken to stop, then woken to go on), which would double the referee's own work per decision
for bots that answer in a millisecond. Yet freezing matters only while another seat *thinks*.
So after a reply the runner asks for a freeze :data:`FREEZE_AFTER_S` later; if the same seat
is asked again at once (a game where one seat moves several times in a row), its thaw cancels
the freeze that never happened. Before another seat is thawed, the runner makes every pending
freeze of the other seats at once (referee.match), so no opponent runs while a seat thinks,
however late this thread wakes on a loaded host.

One daemon thread per referee process does the freezes that fall due, for every match of the
process (a worker plays several at once).
"""

from __future__ import annotations

import threading
import time
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from referee.sandbox import BotProcess

#: How long after its reply a seat is frozen (unless it is asked again before).
FREEZE_AFTER_S = 0.002


class DeferredFreezes:
    """Freezes due at a time, keyed by process: a newer request replaces an older one, and
    :meth:`cancel` (called by every thaw) drops it."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._due: dict[int, tuple[float, BotProcess, int]] = {}
        self._thread: threading.Thread | None = None

    def later(self, process: BotProcess, generation: int, delay_s: float = FREEZE_AFTER_S) -> None:
        """Freeze ``process`` in ``delay_s`` unless it is thawed (or frozen) before: the freeze
        is made only while its generation (:attr:`BotProcess.freeze_generation`) is unchanged."""
        with self._cond:
            self._due[id(process)] = (time.perf_counter() + delay_s, process, generation)
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._run, name="off-turn-freezer", daemon=True)
                self._thread.start()
            self._cond.notify()

    def cancel(self, process: BotProcess) -> None:
        with self._cond:
            self._due.pop(id(process), None)

    def _run(self) -> None:
        while True:
            with self._cond:
                while True:
                    now = time.perf_counter()
                    ready = [entry for entry in self._due.values() if entry[0] <= now]
                    if ready:
                        for _, process, _ in ready:
                            del self._due[id(process)]
                        break
                    wait = min((entry[0] for entry in self._due.values()), default=now + 60.0) - now
                    self._cond.wait(max(wait, 0.0005))
            for _, process, generation in ready:
                try:
                    process.freeze(generation=generation)
                except Exception:  # noqa: BLE001 - one sandbox's trouble must not stop the others'
                    pass


DEFERRED = DeferredFreezes()
