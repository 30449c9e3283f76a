"""kombu's bookkeeping of unacknowledged messages, done by one script per delivery and per ack
(arena.workers.celery_app._patch_kombu_unacked_scripts), stays kombu's: the same entries, removed on
ack, and restored by kombu's own restore as a message delivered again. Real Redis. Each test runs
with the shortcuts on and off (kombu's own methods: the same entries)."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
import redis
from kombu import Connection
from kombu.message import Message
from kombu.simple import SimpleQueue

from arena.workers import celery_app
from tests.platform.conftest import REDIS_URL, redis_available

pytestmark = [pytest.mark.skipif(not redis_available(), reason=f"no Redis at {REDIS_URL}"),
              pytest.mark.usefixtures("shortcut_setting")]


def _entry(client: redis.Redis, tag: str) -> tuple[float | None, list | None]:
    raw = client.hget("unacked", tag)
    return client.zscore("unacked_index", tag), (json.loads(raw) if raw else None)


@contextmanager
def _delivered(payload: dict) -> Iterator[tuple[Connection, SimpleQueue, Message, redis.Redis]]:
    """A message put on a fresh queue and delivered, not yet acknowledged."""
    queue = f"arena-test-unacked-{uuid.uuid4().hex[:8]}"
    client = redis.Redis.from_url(REDIS_URL)
    try:
        with Connection(REDIS_URL) as conn:
            q = conn.SimpleQueue(queue, no_ack=False)
            q.put(payload)
            yield conn, q, q.get(timeout=5), client
            q.close()
    finally:
        client.delete(queue, f"_kombu.binding.{queue}")


def test_a_delivery_is_booked_as_kombu_books_it_and_removed_on_ack(shortcut_setting: str) -> None:
    from kombu.transport import redis as kombu_redis

    own = celery_app._KOMBU_ORIGINALS.get((kombu_redis.QoS, "append"), kombu_redis.QoS.append)
    assert (kombu_redis.QoS.append is not own) == (shortcut_setting == "on")
    with _delivered({"match": 1}) as (_, _q, message, client):
        tag = message.delivery_tag
        score, stored = _entry(client, tag)
        assert score is not None
        # kombu's own entry: the raw message, its exchange and routing key
        info = message.delivery_info
        assert stored == [message._raw, info["exchange"], info["routing_key"]]
        message.ack()
        assert _entry(client, tag) == (None, None)


def test_an_unacknowledged_delivery_is_restored_by_kombu() -> None:
    with _delivered({"match": 2}) as (conn, q, message, client):
        tag = message.delivery_tag
        assert _entry(client, tag)[1] is not None
        conn.default_channel.qos.restore_unacked()  # what closing a channel does
        assert _entry(client, tag) == (None, None)
        again = q.get(timeout=5)
        assert again.payload == {"match": 2}
        again.ack()
