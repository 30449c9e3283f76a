"""Bots that dial in: names shared by the arena server's relay and the referee's client.

A dialling bot keeps one ``ConnectBot`` stream open to the Arena server. Its seat's source is
``dialin://OWNER/GAME/NAME``. The referee — in a worker, possibly on another machine — does not
hold that stream, so it reaches the bot through the server: it calls the ordinary
``tabletop.bot.v1.Bot`` methods on the server's own port (the *relay*), with metadata naming
the bot, and the server forwards each call onto the bot's stream and its answer back. To the
referee a dialling bot is thus a remote bot like any other (same deadlines, same faults), with
two more ways to fail: not connected (``unreachable``) and connection dropped mid-match
(``disconnected``).

Who may use the relay: callers that present the relay key (``ARENA_RELAY_KEY``, shared by the
server and its workers; a server without it makes a random key that only its own in-process
matches know). Where workers find it: ``ARENA_RELAY`` (``host:port`` or ``tls://host:port``);
a server that plays matches in its own process sets it for itself.
"""

from __future__ import annotations

import os
import re
import secrets
import threading

SCHEME = "dialin://"
RELAY_ENV = "ARENA_RELAY"
RELAY_KEY_ENV = "ARENA_RELAY_KEY"
#: Call metadata of a relayed call: which bot, the relay key, and (after StartMatch) which
#: connection the match is bound to.
SOURCE_HEADER = "x-arena-dialin"
KEY_HEADER = "x-arena-relay-key"
SESSION_HEADER = "x-arena-dialin-session"
#: Status details the referee classifies (see referee.bot_client).
NOT_CONNECTED = "the dial-in bot is not connected"
DROPPED = "the dial-in bot's connection dropped"

_SOURCE = re.compile(r"^dialin://(?P<owner>[A-Za-z0-9_-]{1,40})/(?P<game>[a-z0-9_]{1,40})/(?P<name>[A-Za-z0-9_-]{1,40})$")

_lock = threading.Lock()
_local: dict[str, str] = {}


def source(owner: str, game: str, name: str) -> str:
    """The seat source of a dialling bot."""
    return f"{SCHEME}{owner}/{game}/{name}"


def is_source(text: str) -> bool:
    return bool(_SOURCE.match(text or ""))


def relay_key() -> str:
    """The key relayed calls must carry: ``ARENA_RELAY_KEY``, else one random key per process."""
    env = os.environ.get(RELAY_KEY_ENV, "").strip()
    if env:
        return env
    with _lock:
        if "key" not in _local:
            _local["key"] = secrets.token_urlsafe(24)
        return _local["key"]


def set_local_relay(address: str) -> None:
    """An in-process server announces its own port (used when ``ARENA_RELAY`` is unset)."""
    with _lock:
        _local["address"] = address


def clear_local_relay(address: str) -> None:
    with _lock:
        if _local.get("address") == address:
            _local.pop("address", None)


def relay_address() -> str | None:
    """Where the referee reaches the relay, or None when nothing says so."""
    env = os.environ.get(RELAY_ENV, "").strip()
    if env:
        return env
    with _lock:
        return _local.get("address")
