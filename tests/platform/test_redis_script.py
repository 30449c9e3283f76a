"""arena.workers.redis_script: a script sent and read directly on a connection of one's own does what
redis-py's Script does — loads itself when Redis forgot it, and reconnects after a lost
connection (the connection's retry policy, as the client's)."""

from __future__ import annotations

import uuid

import redis

from arena.workers import redis_script

SCRIPT = redis_script.Script("redis.call('SET', KEYS[1], ARGV[1]) return ARGV[2]")


def test_a_script_runs_is_reloaded_and_survives_a_lost_connection(redis_db: str) -> None:
    client = redis.Redis.from_url(redis_db)
    key = f"arena-test-script-{uuid.uuid4().hex[:8]}"
    assert SCRIPT.sha == client.script_load(SCRIPT.source)  # the id Redis gives it
    conn = redis_script.new_connection(client.connection_pool)
    try:
        assert redis_script.run_script(conn, SCRIPT, (key,), (b"one", 7)) == b"7"
        assert client.get(key) == b"one"
        client.script_flush()  # as a Redis restart would: EVALSHA fails, EVAL loads it again
        assert redis_script.run_script(conn, SCRIPT, (key,), ("two", "x")) == b"x"
        assert client.get(key) == b"two"
        assert client.script_exists(SCRIPT.sha) == [True]
        retrying = redis_script.new_connection(
            redis.Redis.from_url(redis_db, retry_on_error=[redis.ConnectionError]).connection_pool)
        redis_script.run_script(retrying, SCRIPT, (key,), ("warm", 0))
        retrying.send_command("CLIENT", "ID")
        client.client_kill_filter(_id=retrying.read_response())  # its connection is cut
        assert redis_script.run_script(retrying, SCRIPT, (key,), ("three", 1)) == b"1"
        assert client.get(key) == b"three"
        retrying.disconnect()
    finally:
        conn.disconnect()
        client.delete(key)
