"""Which dial-in bots are connected, for the ladder (the platform's half of dial-in).

How a dialling bot is named (``dialin://OWNER/GAME/NAME``), reached through the relay and keyed
is the referee's half, :mod:`referee.dialin_client`; the relay itself is
``arena/server/dialin.py``.
"""

from __future__ import annotations

import os
import threading

_lock = threading.Lock()

# --- presence: which dial-in bots are connected (for the ladder) ---------------------------------
#: With a broker, each connected source is a Redis key refreshed by its server (expiring, so a
#: server that dies does not leave its bots "connected"); without one, this process's set.
PRESENCE_PREFIX = "arena:dialin:"
PRESENCE_TTL_S = 60
_present: set[str] = set()


def _redis():  # noqa: ANN202 - redis.Redis | None
    url = os.environ.get("ARENA_BROKER_URL") or None
    if url is None:
        return None
    import redis

    return redis.Redis.from_url(url, socket_timeout=3)


def mark(source: str, connected: bool) -> None:
    """The server's hub says a bot (dis)connected. Never raises: presence is only a hint."""
    with _lock:
        (_present.add if connected else _present.discard)(source)
    refresh([source] if connected else [], gone=[] if connected else [source])


def refresh(sources: list[str] | None = None, gone: list[str] | tuple = ()) -> None:
    """Renew the Redis keys of ``sources`` (default: every bot connected to this process)."""
    try:
        client = _redis()
        if client is None:
            return
        with _lock:
            live = list(_present) if sources is None else sources
        pipe = client.pipeline()
        for source in live:
            pipe.set(PRESENCE_PREFIX + source, "1", ex=PRESENCE_TTL_S)
        for source in gone:
            pipe.delete(PRESENCE_PREFIX + source)
        pipe.execute()
    except Exception:  # noqa: BLE001 - Redis down: the ladder may seat an absent bot, no worse
        pass


def connected_among(sources: list[str]) -> set[str]:
    """Which of these dial-in sources are connected now (an unreachable broker: all of them,
    so a Redis hiccup does not empty the ladder)."""
    if not sources:
        return set()
    client = _redis()
    if client is None:
        with _lock:
            return {s for s in sources if s in _present}
    try:
        values = client.mget([PRESENCE_PREFIX + s for s in sources])
    except Exception:  # noqa: BLE001 - see the docstring
        return set(sources)
    return {s for s, v in zip(sources, values, strict=True) if v is not None}
