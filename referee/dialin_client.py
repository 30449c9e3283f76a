"""Bots that dial in, as the referee reaches them: the names shared by the Arena server's relay
and the referee's client, and where the relay is and which key it wants.

A dialling bot keeps one ``ConnectBot`` stream open to the Arena server. Its seat's source is
``dialin://OWNER/GAME/NAME``. The referee — in a worker, possibly on another machine — does not
hold that stream, so it reaches the bot through the server (the *relay*, on the server's own
port): one ``tabletop.arena.v1.DialinRelay/Relay`` stream per seat, with metadata naming the
bot, carries every call of the match (``referee/relay_stream.py``), and the server forwards
each onto the bot's stream and its answer back. (The unary ``tabletop.bot.v1.Bot`` methods on
the same port, one call each, are still relayed for workers of an earlier release.) To the
referee a dialling bot is thus a remote bot like any other (same deadlines, same faults), with
two more ways to fail: not connected (``unreachable``) and connection dropped mid-match
(``disconnected``).

Who may use the relay: callers that present the relay key (``ARENA_RELAY_KEY``, shared by the
server and its workers; a server without it makes a random key that only its own in-process
matches know). Where workers find it: ``ARENA_RELAY`` (``host:port`` or ``tls://host:port``);
a server that plays matches in its own process sets it for itself.

This is the referee's half, below the platform (layers: ``referee/`` -> ``arena/``): the
server's relay (``arena/server/dialin.py``) and which bots are connected (``arena/competition/dialin_presence.py``)
import it from here.
"""

from __future__ import annotations

import os
import re
import secrets
import threading
from pathlib import Path

from referee.errors import SettingError

SCHEME = "dialin://"
RELAY_ENV = "ARENA_RELAY"
RELAY_KEY_ENV = "ARENA_RELAY_KEY"
#: Call metadata of a relayed call: which bot, the relay key, and (unary relay, after
#: StartMatch) which connection the match is bound to.
SOURCE_HEADER = "x-arena-dialin"
KEY_HEADER = "x-arena-relay-key"
SESSION_HEADER = "x-arena-dialin-session"
#: Status details the referee classifies (see :mod:`referee.bot_client`).
NOT_CONNECTED = "the dial-in bot is not connected"
DROPPED = "the dial-in bot's connection dropped"

#: Matched with fullmatch: ``$`` would also match before a final newline.
_SOURCE = re.compile(r"dialin://(?P<owner>[A-Za-z0-9_-]{1,40})/(?P<game>[a-z0-9_]{1,40})/(?P<name>[A-Za-z0-9_-]{1,40})")

_lock = threading.Lock()
_local: dict[str, str] = {}


def source(owner: str, game: str, name: str) -> str:
    """The seat source of a dialling bot."""
    return f"{SCHEME}{owner}/{game}/{name}"


def is_source(text: str) -> bool:
    return bool(_SOURCE.fullmatch(text or ""))


def relay_key() -> str:
    """The key relayed calls must carry: ``ARENA_RELAY_KEY``, or the file ``ARENA_RELAY_KEY_FILE``
    names (a Docker secret, so the key never stands in the compose file), else one random key
    per process."""
    env = os.environ.get(RELAY_KEY_ENV, "").strip()
    if env:
        return env
    secret = os.environ.get(f"{RELAY_KEY_ENV}_FILE", "").strip()
    if secret:
        try:
            key = Path(secret).read_text(encoding="utf-8").strip()
        except OSError as exc:
            raise SettingError(f"{RELAY_KEY_ENV}_FILE={secret}: cannot read it ({exc.strerror})") from None
        if key:
            return key
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
