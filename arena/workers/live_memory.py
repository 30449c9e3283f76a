"""A match's live feed in one process's memory, and what every live bus shares.

:class:`InProcessBus` serves ``WatchMatch`` when there is no broker (``arena serve`` with its
embedded workers); :mod:`arena.workers.live` builds the feed on it (or on Redis), and
:mod:`arena.workers.live_table` mirrors it into the database for a website in another process.
In a module of its own so that both import it and neither imports the other back.
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from collections.abc import Iterator
from typing import Any, Protocol

import orjson

#: How long Redis keeps a match's backlog after its last event.
BACKLOG_TTL_S = 6 * 3600
END = {"end": True}


class LiveBus(Protocol):
    def publish(self, match_id: str, event: dict[str, Any]) -> None: ...

    def watch(self, match_id: str, poll_s: float = 0.5) -> Iterator[dict[str, Any] | None]:
        """Every event of the match from the first, then new ones as they come.

        Yields ``None`` whenever ``poll_s`` passes without an event, so the caller can check
        whether its client has gone or the match ended without a marker (a killed worker).
        Stops after the end marker (which it does not yield).
        """
        ...


class _Feed:
    __slots__ = ("events", "done", "cond", "view")

    def __init__(self) -> None:
        self.events: list[dict[str, Any]] = []
        self.done = False
        self.cond = threading.Condition()
        self.view: dict[str, Any] | None = None


class InProcessBus:
    """Events kept in memory for the last ``keep`` matches: one process, no broker."""

    def __init__(self, keep: int = 2000) -> None:
        self._feeds: OrderedDict[str, _Feed] = OrderedDict()
        self._lock = threading.Lock()
        self._keep = keep

    def _feed(self, match_id: str) -> _Feed:
        with self._lock:
            feed = self._feeds.get(match_id)
            if feed is None:
                feed = self._feeds[match_id] = _Feed()
                while len(self._feeds) > self._keep:
                    self._feeds.popitem(last=False)
            return feed

    def publish(self, match_id: str, event: dict[str, Any]) -> None:
        feed = self._feed(match_id)
        with feed.cond:
            if event.get("end"):
                feed.done = True
            else:
                feed.events.append(event)
            feed.cond.notify_all()

    def put_view(self, match_id: str, view: dict[str, Any]) -> None:
        """Keep the newest public board of the match (``GameState.public_view``)."""
        feed = self._feed(match_id)
        with feed.cond:
            feed.view = view

    def snapshot(self, match_id: str) -> tuple[list[dict[str, Any]], dict[str, Any] | None]:
        """The events so far and the newest public board, without waiting."""
        with self._lock:
            feed = self._feeds.get(match_id)
        if feed is None:
            return [], None
        with feed.cond:
            return list(feed.events), feed.view

    def watch(self, match_id: str, poll_s: float = 0.5) -> Iterator[dict[str, Any] | None]:
        feed = self._feed(match_id)
        sent = 0
        while True:
            with feed.cond:
                if sent >= len(feed.events) and not feed.done:
                    feed.cond.wait(poll_s)
                new = feed.events[sent:]
                done = feed.done
            sent += len(new)
            yield from new
            if done and not new:
                return
            if not new:
                yield None


def _dumps(event: dict[str, Any]) -> bytes | str:
    """Compact JSON of an event (orjson: a fast match publishes dozens of events)."""
    try:
        return orjson.dumps(event, option=orjson.OPT_NON_STR_KEYS)
    except TypeError:  # what orjson does not take, json may (e.g. a subclass of int)
        return json.dumps(event, separators=(",", ":"))
