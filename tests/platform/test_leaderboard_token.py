"""The API's leaderboard cache on SQLite and PostgreSQL: the token it checks (rating sequence,
newest version) moves with every result and every new version, and a broken database
connection is replaced rather than failing the call twice."""

from __future__ import annotations

import time
from pathlib import Path

from sqlalchemy import update

from arena.db import Bot, session_scope
from arena.intake import bots
from arena.records import recording
from arena.server.results import LeaderboardCache


def _bot(tmp_path: Path, name: str, text: str) -> str:
    folder = tmp_path / name
    folder.mkdir(exist_ok=True)
    (folder / "bot.py").write_text(text)
    return str(folder)


def _rows(cache: LeaderboardCache, url: str) -> dict[str, tuple[float, int]]:
    return {r.bot: (r.mu, r.matches) for r in cache.get(url, "toy", 10).rows}


def test_cache_follows_results_versions_and_deactivation(db_url: str, tmp_path: Path) -> None:
    with session_scope() as s:
        a = bots.register_version(s, "toy", _bot(tmp_path, "a", "# a\n"), name="a")
        b = bots.register_version(s, "toy", _bot(tmp_path, "b", "# b\n"), name="b")
        ids, bot_a = [a.id, b.id], a.bot_id
    cache = LeaderboardCache(recheck=0.0)
    assert _rows(cache, db_url) == {"a v1": (25.0, 0), "b v1": (25.0, 0)}
    with session_scope() as s:
        mid = recording.create_match(s, "toy", "base", ids, seed=1).id
    with session_scope() as s:
        recording.record_result(s, mid, {"result": {"scores": [0, 1], "ranks": [2, 1]}})
    rows = _rows(cache, db_url)
    assert rows["b v1"][0] > 25.0 > rows["a v1"][0] and rows["a v1"][1] == rows["b v1"][1] == 1
    with session_scope() as s:
        bots.register_version(s, "toy", _bot(tmp_path, "a", "# a, again\n"), name="a")
    assert set(_rows(cache, db_url)) == {"a v2", "b v1"}
    with session_scope() as s:  # deactivated elsewhere: visible after invalidate() or max_age
        s.execute(update(Bot).where(Bot.id == bot_a).values(active=False))
    cache.invalidate()
    assert set(_rows(cache, db_url)) == {"b v1"}


def test_recheck_window_then_fresh(db_url: str, tmp_path: Path) -> None:
    with session_scope() as s:
        ids = [bots.register_version(s, "toy", _bot(tmp_path, n, f"# {n}\n"), name=n).id for n in "cd"]
    cache = LeaderboardCache(recheck=0.3)
    before = _rows(cache, db_url)
    with session_scope() as s:
        mid = recording.create_match(s, "toy", "base", ids, seed=2).id
    with session_scope() as s:
        recording.record_result(s, mid, {"result": {"scores": [1, 0], "ranks": [1, 2]}})
    time.sleep(0.35)  # past the recheck window: the new result must show
    after = _rows(cache, db_url)
    assert after != before and after["c v1"][1] == 1


def test_a_broken_token_connection_is_replaced(db_url: str, tmp_path: Path) -> None:
    with session_scope() as s:
        bots.register_version(s, "toy", _bot(tmp_path, "e", "# e\n"), name="e")
    cache = LeaderboardCache(recheck=0.0)
    assert set(_rows(cache, db_url)) == {"e v1"}
    kept = cache._token_conns.get(db_url)
    if kept is not None:  # PostgreSQL: the kept connection dies (a database restart)
        kept[0].driver_connection.close()
    assert set(_rows(cache, db_url)) == {"e v1"}


def test_more_threads_than_pooled_connections_never_wait_for_the_pool(db_url: str, tmp_path: Path) -> None:
    """The server has 32 threads and the pool 10 connections: the token check must not hold
    one per thread (threads past the tenth waited 30 s for a pooled connection)."""
    import threading

    with session_scope() as s:
        bots.register_version(s, "toy", _bot(tmp_path, "f", "# f\n"), name="f")
    cache = LeaderboardCache(recheck=0.0)
    answers: list[set[str]] = []
    barrier = threading.Barrier(24)

    def call() -> None:
        barrier.wait()
        for _ in range(3):
            answers.append(set(_rows(cache, db_url)))

    threads = [threading.Thread(target=call) for _ in range(24)]
    started = time.monotonic()
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert answers == [{"f v1"}] * 72
    assert time.monotonic() - started < 20  # the pool's timeout is 30 s
