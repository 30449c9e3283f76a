"""Limits for the site's few requests whose cost the visitor chooses.

Most pages read a few indexed rows; ``POST /replay/view`` and ``/replay/step`` instead replay a
posted record with the engine (up to ~1 MiB of decisions, tens of milliseconds of CPU), and a
visitor may send as many as they like. Two limits keep one visitor from denying the site to
everyone else:

- **at most :data:`REPLAYS_AT_ONCE` replays run at once**, in the whole process: the server has
  eight threads (``web.command``), so pages keep at least six however many clients — or
  addresses — an attacker uses. A request that cannot start within a second is answered 503
  with ``Retry-After``.
- **a token bucket per client** (its address, IPv6 by /64, behind ``ARENA_TRUSTED_PROXIES`` the
  address the proxy names, as the gRPC server counts clients): :data:`REPLAY_BURST` requests at
  once, refilled at :data:`REPLAYS_PER_MINUTE` a minute; over it, 429 with ``Retry-After``. A
  person stepping through a replay sends one request per click or per tick of play (4 a second
  at most), well within it.
"""

from __future__ import annotations

import math
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from werkzeug.exceptions import HTTPException, ServiceUnavailable, TooManyRequests

REPLAYS_AT_ONCE = 2
REPLAYS_PER_MINUTE = 240
REPLAY_BURST = 40
#: Buckets kept (least recently used dropped first): a full bucket and a forgotten one are the
#: same, so dropping one only ever lets a client in, and memory stays bounded whatever the
#: number of addresses.
MAX_CLIENTS = 10_000
WAIT_FOR_A_SLOT_S = 1.0


def _too_many(seconds: float) -> HTTPException:
    return TooManyRequests(
        "too many replay requests from your address; try again in a few seconds",
        retry_after=max(1, math.ceil(seconds)),
    )


def _busy() -> HTTPException:
    return ServiceUnavailable(
        "the replay viewer is busy with other visitors; try again in a moment", retry_after=1
    )


class ReplayLimits:
    """The process-wide slot count and the per-client buckets (see the module docstring)."""

    def __init__(
        self,
        at_once: int = REPLAYS_AT_ONCE,
        per_minute: float = REPLAYS_PER_MINUTE,
        burst: int = REPLAY_BURST,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._slots = threading.BoundedSemaphore(at_once)
        self._rate = per_minute / 60.0
        self._burst = float(burst)
        self._clock = clock
        self._lock = threading.Lock()
        self._buckets: OrderedDict[str, tuple[float, float]] = OrderedDict()

    def _take_token(self, key: str) -> float:
        """Take one token from ``key``'s bucket: 0.0, or the seconds until one is there."""
        now = self._clock()
        with self._lock:
            tokens, then = self._buckets.pop(key, (self._burst, now))
            tokens = min(self._burst, tokens + (now - then) * self._rate)
            wait = 0.0
            if tokens >= 1.0:
                tokens -= 1.0
            else:
                wait = (1.0 - tokens) / self._rate
            self._buckets[key] = (tokens, now)
            while len(self._buckets) > MAX_CLIENTS:
                self._buckets.popitem(last=False)
        return wait

    def forget_clients(self) -> None:
        """Refill every bucket (tests that post many replays call this between them)."""
        with self._lock:
            self._buckets.clear()

    @contextmanager
    def replay(self, key: str) -> Iterator[None]:
        wait = self._take_token(key)
        if wait:
            raise _too_many(wait)
        if not self._slots.acquire(timeout=WAIT_FOR_A_SLOT_S):
            raise _busy()
        try:
            yield
        finally:
            self._slots.release()


#: The site's one instance (a process serves one site).
REPLAYS = ReplayLimits()
