"""Server-side Redis scripts run on a connection of one's own, sent and read directly.

The platform sends a few small scripts for every match: the live feed's batches
(:mod:`arena.workers.live`) and kombu's bookkeeping of each delivered task message
(:mod:`arena.workers.celery_app`). Through a redis-py client each call checked a connection out of the
client's pool and back, and went through its command wrapper, metrics hooks and argument
checks: about as much CPU as the command's own round trip (a live batch ~130 µs of CPU against
~75 µs sent directly, A/B in one process). :func:`run_script` sends the same ``EVALSHA`` (or
``EVAL`` when Redis forgot the script, e.g. after a restart: that loads it again, as redis-py's
``Script`` does with ``SCRIPT LOAD``), packed by the connection as the client packs it, with
the connection's own retry policy on a lost connection (the client's: reconnect and send
again). The caller owns the connection (one per thread, or per channel behind a lock).

That is a shortcut into redis-py's insides (its ``Connection``'s packing, sending and reading,
outside its pool): ``redis_direct_scripts`` in :mod:`arena.shortcuts`, docs/shortcuts.md. When
it is off (:func:`direct` is False) callers use :func:`call` instead: redis-py's own ``Script``
object (``register_script``), through a client — the same EVALSHA, and the same reload.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Any


def direct() -> bool:
    """Whether scripts go on connections of one's own (:func:`new_connection`,
    :func:`run_script`) rather than through redis-py's ``Script`` objects (:func:`call`)."""
    from arena import shortcuts

    return shortcuts.enabled(shortcuts.REDIS_DIRECT_SCRIPTS)


class Script:
    """A Lua script and its SHA-1 (its id in Redis' script cache)."""

    __slots__ = ("source", "sha", "_public")

    def __init__(self, source: str) -> None:
        self.source = source
        self.sha = hashlib.sha1(source.encode()).hexdigest()  # noqa: S324 - Redis' script id
        self._public: Any = None


def call(client: Any, script: Script, keys: Sequence[Any], args: Sequence[Any]) -> Any:
    """The public path: ``script`` through redis-py's own ``Script`` object (made once, by the
    first client's ``register_script``) on ``client``; EVALSHA, and SCRIPT LOAD then EVALSHA
    again when Redis does not know it."""
    public = script._public
    if public is None:
        public = script._public = client.register_script(script.source)
    return public(keys=list(keys), args=list(args), client=client)


def new_connection(pool):  # noqa: ANN001, ANN201 - redis ConnectionPool -> its connection class
    """A connection with the settings of ``pool``'s own (host, database, password, TLS, timeouts,
    retry policy), outside the pool; it connects when first used, or again after a failure."""
    return pool.connection_class(**pool.connection_kwargs)


def run_script(conn, script: Script, keys: Sequence[Any], args: Sequence[Any]) -> Any:  # noqa: ANN001
    """``EVALSHA`` of ``script`` on ``conn`` (``EVAL`` if Redis does not know it); its reply."""
    from redis.exceptions import NoScriptError

    tail = (len(keys), *keys, *args)

    def attempt() -> Any:
        try:
            conn.send_packed_command(conn.pack_command("EVALSHA", script.sha, *tail))
            return conn.read_response()
        except NoScriptError:
            conn.send_packed_command(conn.pack_command("EVAL", script.source, *tail))
            return conn.read_response()

    return conn.retry.call_with_retry(attempt, lambda _error: conn.disconnect())
