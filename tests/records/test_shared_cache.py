"""The shared cache of record texts (issue 40 item 3): with a Redis broker, the worker that
stores a finished match puts its record text in Redis, and a process that never read the
record serves it from there instead of replaying the engine — never an entry of another record
or one changed in Redis; ``ARENA_RECORD_SHARED=0`` turns it off, a bad value is refused with
a clear message, and Redis trouble while warming never fails a match. Without a broker the
process that stored a match keeps its text in its own cache."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import orjson
import pytest
import zstandard

from arena.db import Match, dispose_all, session_scope
from arena.records import compact, stored
from referee import registry
from tests.platform.conftest import RANDOM_BOT, REDIS_URL, redis_available
from tests.records import golden_records

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def shared(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """The test Redis as the broker, and a key prefix of this test's own (removed after)."""
    import redis

    if not redis_available():
        pytest.skip(f"no Redis at {REDIS_URL}")
    prefix = f"arena-test:record-text:{uuid.uuid4().hex[:10]}:"
    monkeypatch.setenv("ARENA_BROKER_URL", REDIS_URL)
    monkeypatch.setattr(stored.SharedCache, "PREFIX", prefix)
    stored.CACHE.clear()
    stored.SHARED.clear()
    yield prefix
    client = redis.Redis.from_url(REDIS_URL)
    for key in client.scan_iter(f"{prefix}*"):
        client.delete(key)
    stored.CACHE.clear()
    stored.SHARED.clear()


def _entry_key(small: bytes) -> str:
    return stored.SHARED.key(small)


def _redis():  # noqa: ANN202
    import redis

    return redis.Redis.from_url(REDIS_URL)


def _no_regeneration(monkeypatch: pytest.MonkeyPatch) -> list[bytes]:
    calls: list[bytes] = []
    real = compact.regenerate
    monkeypatch.setattr(compact, "regenerate", lambda data, visit=None: calls.append(data) or real(data, visit))
    return calls


def test_a_warmed_record_is_read_from_redis_and_checked(shared: str, monkeypatch: pytest.MonkeyPatch) -> None:
    record = golden_records.make("solenia", 2)
    small = compact.encode(record)
    stored.warm(small, record)
    assert _redis().exists(_entry_key(small))
    calls = _no_regeneration(monkeypatch)
    text = stored.CACHE.text(small)
    assert text == compact.stored_json(record)
    assert calls == [] and stored.SHARED.hits == 1  # no replay: the worker's text
    # another record in the same slot is a miss, never served: the entry names its bytes
    other = golden_records.make("black_angel", 2)
    other_small = compact.encode(other)
    _redis().set(stored.SHARED.key(other_small), _redis().get(_entry_key(small)))
    stored.CACHE.clear()
    assert stored.CACHE.text(other_small) == compact.stored_json(other)
    assert calls == [other_small]


def _tampered(entry: bytes, change) -> bytes:  # noqa: ANN001
    """The entry with its text changed by ``change`` and its text digest made to fit."""
    d = stored._DIGEST
    text = zstandard.ZstdDecompressor().decompress(entry[4 + 2 * d:])
    text = change(text)
    return (entry[:4 + d] + stored._digest(text)
            + zstandard.ZstdCompressor().compress(text))


@pytest.mark.parametrize("how", ["bytes", "event", "match"])
def test_a_tampered_entry_is_refused_and_the_record_regenerated(
        shared: str, monkeypatch: pytest.MonkeyPatch, how: str) -> None:
    record = golden_records.make("black_angel", 2)
    small = compact.encode(record)
    stored.warm(small, record)
    key = _entry_key(small)
    entry = _redis().get(key)
    first_event = next(e for d in record.decisions for e in d.events)
    if how == "bytes":  # damaged: the text no longer is the one the entry names
        forged = entry[:-5] + bytes(5)
    elif how == "event":  # another game's events, digest of the text recomputed
        forged = _tampered(entry, lambda t: t.replace(orjson.dumps(first_event), b'"seat 0 wins at once"', 1))
    else:  # the same text claimed for another match
        forged = _tampered(entry, lambda t: t.replace(record.match_id.encode(), b"f" * len(record.match_id), 1))
    assert forged != entry
    _redis().set(key, forged)
    calls = _no_regeneration(monkeypatch)
    assert stored.CACHE.text(small) == compact.stored_json(record)  # regenerated, not the forgery
    assert calls == [small] and stored.SHARED.refused == 1 and stored.SHARED.hits == 0
    assert not _redis().exists(key)  # the refused entry is gone (readers never write one)


def test_without_a_redis_broker_nothing_is_shared(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ARENA_BROKER_URL", raising=False)
    assert stored.SHARED._client() is None
    monkeypatch.setenv("ARENA_BROKER_URL", "memory://")
    assert stored.SHARED._client() is None
    monkeypatch.setenv("ARENA_BROKER_URL", REDIS_URL)
    assert stored.SharedCache(0)._client() is None  # ARENA_RECORD_SHARED=0


def _python(code: str, **env: str) -> subprocess.CompletedProcess:
    full = {**os.environ, "PYTHONPATH": str(ROOT), **env}
    return subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=full, capture_output=True,
                          text=True, timeout=120)


def test_the_setting_is_checked_and_zero_turns_it_off() -> None:
    out = _python("from arena.records import stored; print(stored.SHARED_SIZE, stored.SHARED._client())",
                  ARENA_RECORD_SHARED="0", ARENA_BROKER_URL=REDIS_URL)
    assert out.returncode == 0 and out.stdout.split() == ["0", "None"], out.stderr
    out = _python("from arena.records import stored; print(stored.SHARED_SIZE)")
    assert out.stdout.split() == [str(stored.SHARED_SIZE)] and stored.SHARED_SIZE == 4096
    for bad in ("lots", "-1", "25MB"):
        out = _python("import arena.records.stored", ARENA_RECORD_SHARED=bad)
        assert out.returncode != 0
        assert f"ARENA_RECORD_SHARED={bad!r}: give a number of records kept in Redis" in out.stderr


def _create(tmp_path: Path, game: str = "black_angel") -> str:
    from arena.intake import bots
    from arena.records import recording

    with session_scope() as s:
        ids = [bots.register_version(s, game, RANDOM_BOT, name=f"r{i}").id for i in range(2)]
        return recording.create_match(s, game, registry.get_spec(game).check(2, None), ids, seed=3,
                                      decision_ms=2000, bank_ms=5000,
                                      sandbox=shutil.which("bwrap") is not None).id


@pytest.fixture
def db(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    url = f"sqlite:///{tmp_path / 'arena.sqlite3'}"
    monkeypatch.setenv("ARENA_DATABASE_URL", url)
    dispose_all()
    yield url
    dispose_all()


_FRESH = """
import sys
from arena.db import Match, session_scope
from arena.records import compact, stored
stored.SharedCache.PREFIX = sys.argv[1]
def refuse(*a, **k):
    raise AssertionError("regenerated")
compact.regenerate = refuse
with session_scope() as s:
    record = stored.record_data(s.get(Match, sys.argv[2]))
print(record["match_id"], len(record["decisions"]), stored.SHARED.hits)
"""


def test_the_worker_warms_and_a_fresh_process_reads_it_without_a_replay(
        shared: str, db: str, tmp_path: Path) -> None:
    from arena.workers import tasks

    mid = _create(tmp_path)
    assert tasks.play_match_now(mid).status == "recorded"
    with session_scope() as s:
        m = s.get(Match, mid)
        small = bytes(m.record_compact)
    assert _redis().exists(_entry_key(small))
    out = subprocess.run([sys.executable, "-c", _FRESH, shared, mid], cwd=ROOT, capture_output=True,
                         text=True, timeout=120,
                         env={**os.environ, "PYTHONPATH": str(ROOT), "ARENA_DATABASE_URL": db,
                              "ARENA_BROKER_URL": REDIS_URL})
    assert out.returncode == 0, out.stderr[-3000:]
    got_id, decisions, hits = out.stdout.split()
    assert got_id == mid and int(decisions) > 0 and hits == "1"
    with session_scope() as s:  # what it served is what a replay gives
        assert stored.record_data(s.get(Match, mid)) == orjson.loads(
            compact.stored_json(compact.regenerate(small)))


def test_without_a_broker_the_process_that_stored_a_match_reads_it_without_a_replay(
        db: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The embedded default: matches are played in the process that serves their pages, so
    # warming puts the text in its own cache (and a person's game's end page reads it next).
    from arena.workers import tasks

    monkeypatch.delenv("ARENA_BROKER_URL", raising=False)
    stored.CACHE.clear()
    mid = _create(tmp_path)
    assert tasks.play_match_now(mid).status == "recorded"
    calls = _no_regeneration(monkeypatch)
    with session_scope() as s:
        m = s.get(Match, mid)
        small = bytes(m.record_compact)
        served = stored.record_data(m)
    assert calls == [] and stored.CACHE.misses == 0 and stored.CACHE.hits == 1
    assert served == orjson.loads(compact.stored_json(compact.regenerate(small)))
    stored.CACHE.clear()


def test_a_record_stored_as_json_warms_nothing() -> None:
    stored.CACHE.clear()
    stored.warm(None, golden_records.make("solenia", 2))
    assert stored.CACHE.peek(b"") is None and not stored.CACHE._items


class _DownRedis:
    def get(self, *a: object) -> None:
        import redis

        raise redis.ConnectionError("Redis went away")

    set = get


def test_redis_trouble_while_warming_never_fails_a_match(
        db: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from arena.workers import live, tasks

    ended: list[object] = []
    real_feed = live.match_feed

    def feed(match_id: str):  # noqa: ANN202
        f = real_feed(match_id)
        finish = f.finish
        f.finish = lambda *a, **k: (ended.append(k or a), finish(*a, **k))[1]
        return f

    monkeypatch.setattr(live, "match_feed", feed)
    monkeypatch.setattr(stored.SHARED, "_client", lambda: _DownRedis())
    mid = _create(tmp_path)
    assert tasks.play_match_now(mid).status == "recorded"
    assert ended  # the live feed's end was sent
    monkeypatch.setattr(stored, "warm", lambda *a: 1 / 0)  # anything at all going wrong
    mid = _create(tmp_path)
    assert tasks.play_match_now(mid).status == "recorded"
    assert len(ended) == 2
    with session_scope() as s:
        assert stored.record_data(s.get(Match, mid))["match_id"] == mid
    stored.SHARED.clear()
