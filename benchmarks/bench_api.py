"""Arena API throughput and latency: GetLeaderboard and ListMatches against a bare unary call.

Set-up: a fresh PostgreSQL database (created and dropped by the run, see
:mod:`benchmarks.bench_db`; SQLite when no PostgreSQL answers, and ``database`` says which) with
10,000 bots (one rated version each) and 1,000,000 finished two-seat matches (with small
records), bulk-loaded with COPY; an in-process Arena server on a real TCP socket, and a client
in a process of its own. Each call is measured for ``seconds`` by one client (latency
p50/p99 and requests/s), then by ``threads`` concurrent clients (requests/s); the calls take
turns in slices of a tenth of that, so a slow spell of the machine falls on all of them. The bare
unary call is the health check on the same server: the difference is what the Arena's own work
costs (database query, message building), the rest is gRPC and Python.
"""

from __future__ import annotations

import itertools
import multiprocessing
import os
import random
import statistics
import tempfile
import threading
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from datetime import timedelta
from pathlib import Path

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

GAME = "solenia"


def populate(bots: int, matches: int, seed: int = 1) -> None:
    """Fill the (fresh) database of ``ARENA_DATABASE_URL`` with bots, ratings and matches."""
    from arena.db import Bot, BotVersion, Match, MatchSeat, Rating, RatingLock, get_engine, utcnow
    from arena.db.accounts import Submission, User
    from benchmarks.bench_db import analyze, load

    rng = random.Random(seed)
    now = utcnow()
    engine = get_engine()
    # one table after another, each loaded by COPY (PostgreSQL) or executemany
    load(engine, User, [{"id": 1, "name": "bench", "role": "user", "token_hash": "0" * 64, "created_at": now}])
    load(engine, Bot, [
        {"id": i, "owner": "bench", "name": f"bot{i:04d}", "game": GAME, "active": True, "created_at": now}
        for i in range(1, bots + 1)
    ])
    load(engine, BotVersion, [
        {"id": i, "bot_id": i, "number": 1, "kind": "hosted", "source": f"/bots/{i}/v1", "digest": "",
         "initial_mu": 25.0, "initial_sigma": 25 / 3, "created_at": now}
        for i in range(1, bots + 1)
    ])
    load(engine, Submission, [
        {"id": i, "bot_id": i, "number": 1, "kind": "hosted", "source": f"/bots/{i}/v1", "digest": "",
         "status": "qualified", "bot_version_id": i, "created_at": now}
        for i in range(1, bots + 1)
    ])
    load(engine, Rating, [
        {"bot_version_id": i, "game": GAME, "mu": rng.gauss(25, 4), "sigma": rng.uniform(1, 8),
         "provisional": False, "games_played": 200, "distinct_opponents": 150, "opponent_counts": {},
         "seat_counts": {}, "player_counts": {}, "updated_at": now}
        for i in range(1, bots + 1)
    ])
    batch = 10_000
    for start in range(0, matches, batch):
        rows, seats = [], []
        for n in range(start, min(matches, start + batch)):
            mid = f"{n:032x}"
            a, b = rng.sample(range(1, bots + 1), 2)
            when = now - timedelta(seconds=matches - n)
            rows.append({
                "id": mid, "game": GAME, "variant": "base", "players": 2, "seed": n, "kind": "ladder",
                "tournament_id": None, "round": 0, "table": 0, "status": "done", "sandbox": True,
                "attempts": 1, "created_at": when, "finished_at": when,
                "result": {"scores": [3.0, 1.0], "ranks": [1, 2]}, "forfeits": [],
                "record": {"match_id": mid, "seed": n, "decisions": [{"n": 0, "seat": 0, "option": "x"}]},
                "rating_seq": n + 1,
            })
            seats += [
                {"match_id": mid, "seat": 0, "bot_version_id": a, "rank": 1, "score": 3.0},
                {"match_id": mid, "seat": 1, "bot_version_id": b, "rank": 2, "score": 1.0},
            ]
        load(engine, Match, rows)
        load(engine, MatchSeat, seats)
    load(engine, RatingLock, [{"game": GAME, "last_seq": matches}])
    analyze(engine)


#: each call's measuring time is cut into this many slices, taken in turn with the other calls
SLICES = 10


def _measure(calls: dict[str, Callable[[], object]], seconds: float) -> dict[str, dict[str, float]]:
    """One client: every call for ``seconds`` in all, in :data:`SLICES` slices taken in turn.

    The machine has slow spells of a second or more in which every call (the bare one too) is
    2-3x slower; measuring one call after the other for 3 s each charged a spell to whichever
    call it fell on (the leaderboard measured 0.16-0.27x the bare call so, 0.64-0.73x in
    turns, on one evening). In turns, a spell falls on every call alike.
    """
    latencies: dict[str, list[float]] = {name: [] for name in calls}
    for call in calls.values():
        call()  # warm-up
    for _ in range(SLICES):
        for name, call in calls.items():
            end = time.perf_counter() + seconds / SLICES
            while (t0 := time.perf_counter()) < end:
                call()
                latencies[name].append(time.perf_counter() - t0)
    figures = {}
    for name, lat in latencies.items():
        lat.sort()
        figures[name] = {
            "rps": round(len(lat) / sum(lat), 1),
            "p50_ms": round(statistics.median(lat) * 1000, 3),
            "p95_ms": round(lat[min(len(lat) - 1, int(len(lat) * 0.95))] * 1000, 3),
            "p99_ms": round(lat[min(len(lat) - 1, int(len(lat) * 0.99))] * 1000, 3),
            "calls": len(lat),
        }
    return figures


def _burst(call: Callable[[], object], seconds: float, threads: int) -> tuple[int, float]:
    """``threads`` clients calling at once for ``seconds``: (calls made, wall seconds)."""
    counts = [0] * threads
    stop = time.perf_counter() + seconds

    def loop(i: int) -> None:
        while time.perf_counter() < stop:
            call()
            counts[i] += 1

    workers = [threading.Thread(target=loop, args=(i,)) for i in range(threads)]
    t0 = time.perf_counter()
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    return sum(counts), time.perf_counter() - t0


def _concurrent(calls: dict[str, Callable[[], object]], seconds: float, threads: int) -> dict[str, float]:
    """Requests/s of each call with ``threads`` clients, in slices taken in turn as in :func:`_measure`."""
    done = {name: 0 for name in calls}
    spent = {name: 0.0 for name in calls}
    for _ in range(SLICES):
        for name, call in calls.items():
            n, elapsed = _burst(call, seconds / SLICES, threads)
            done[name] += n
            spent[name] += elapsed
    return {name: round(done[name] / spent[name], 1) for name in calls}


def _client(address: str, game: str, seconds: float, threads: int,
            matches: tuple[list[str], list[str]] | None = None) -> dict[str, dict[str, float]]:
    """Every call, measured from this (client) process: by one client, then by ``threads``
    concurrent ones; the bare call comes first. gRPC's I/O stack is the server's: the spawned
    process inherits the ``GRPC_EXPERIMENTS`` that :mod:`referee.grpc_io` set in the parent.
    ``matches``: ``(cold, warm)`` match ids for GetMatch — each cold one asked once (a record
    never read before: a compact one is regenerated), the few warm ones in turn after one read
    each (in the server's cache of regenerated records)."""
    from referee._proto import arena_pb2 as pb
    from referee._proto import arena_pb2_grpc

    channel = grpc.insecure_channel(address)
    try:
        arena = arena_pb2_grpc.ArenaStub(channel)
        health = health_pb2_grpc.HealthStub(channel)
        deep = arena.ListMatches(pb.ListMatchesRequest(page_size=50))
        for _ in range(199):  # page 200 (rows 10,000-10,050): keyset paging costs what page 1 does
            deep = arena.ListMatches(pb.ListMatchesRequest(page_size=50, page_token=deep.next_page_token))
        calls: dict[str, Callable[[], object]] = {
            "bare_unary_health_check": lambda: health.Check(health_pb2.HealthCheckRequest()),
            "get_leaderboard_top100": lambda: arena.GetLeaderboard(pb.GetLeaderboardRequest(game=game, limit=100)),
            "list_matches_page1_50": lambda: arena.ListMatches(pb.ListMatchesRequest(page_size=50)),
            "list_matches_page200_50": lambda: arena.ListMatches(
                pb.ListMatchesRequest(page_size=50, page_token=deep.next_page_token)),
            "list_matches_by_bot_50": lambda: arena.ListMatches(pb.ListMatchesRequest(bot_id=17, page_size=50)),
        }
        if matches is not None:
            cold, warm = itertools.cycle(matches[0]), itertools.cycle(matches[1])
            for match_id in matches[1]:
                arena.GetMatch(pb.GetMatchRequest(match_id=match_id))
            calls["get_match_cold"] = lambda: _get_match(arena, pb, next(cold))
            calls["get_match_warm"] = lambda: _get_match(arena, pb, next(warm))
        figures = _measure(calls, seconds)
        for name, rps in _concurrent(calls, seconds, threads).items():
            figures[name]["rps_concurrent"] = rps
        return figures
    finally:
        channel.close()


def _get_match(arena: object, pb: object, match_id: str) -> None:
    """GetMatch, checked: the reply carries the match's own record."""
    reply = arena.GetMatch(pb.GetMatchRequest(match_id=match_id))  # type: ignore[attr-defined]
    if f'"match_id": "{match_id}"' not in reply.record_json:
        raise RuntimeError(f"GetMatch {match_id}: the reply holds no record of that match")


def _match_ids(matches: int, cold: int = 20_000, warm: int = 20, seed: int = 5) -> tuple[list[str], list[str]]:
    """``(cold, warm)`` ids of finished matches of the website benchmark's dataset: ladder
    matches (every ``i`` not a multiple of ``TOURNAMENT_EVERY``; always finished), whose ids
    the generator makes as ``md5('match-' || i)`` (:mod:`benchmarks.bench_web_pg`)."""
    import hashlib

    from benchmarks.bench_web_pg import TOURNAMENT_EVERY

    rng = random.Random(seed)
    ladder = [i for i in rng.sample(range(matches), min(matches, 2 * (cold + warm)))
              if i % TOURNAMENT_EVERY][: cold + warm]
    ids = [hashlib.md5(f"match-{i}".encode()).hexdigest() for i in ladder]
    return ids[warm:], ids[:warm]


def bench(bots: int = 10_000, matches: int = 1_000_000, seconds: float = 3.0, threads: int = 8,
          database: str = "postgres", keep: str | None = None, records: str = "toy") -> dict:
    """``database``: "postgres" (a throw-away database; SQLite when none answers) or "sqlite".
    ``keep``: measure on the website benchmark's kept PostgreSQL database of that name instead
    (:func:`benchmarks.bench_web.kept_dataset`, loaded first unless an earlier run did; its
    first game, and four-seat tournaments among the matches), GetMatch too (cold and warm:
    :func:`_client`). ``records``: that dataset's record form (``toy``, or real games' records
    as ``json`` or ``compact``: ``arena bench web --records``)."""
    from benchmarks.bench_db import postgres_available, postgres_database

    if keep is not None:
        from arena.records import stored
        from benchmarks import bench_web

        url, _, fresh = bench_web.kept_dataset(keep, bots, matches, records=records)
        games = bench_web._dataset(records)[0]
        hits, misses = stored.CACHE.hits, stored.CACHE.misses
        result = _bench(url, f"postgresql {keep} ({'loaded now' if fresh else 'reused'}, kept)",
                        bots, matches, seconds, threads, game=games[0], match_ids=_match_ids(matches))
        result["records"] = records
        result["record_cache_size"] = stored.CACHE.size
        result["record_cache_hits"] = stored.CACHE.hits - hits
        result["record_cache_misses"] = stored.CACHE.misses - misses
        return result
    if database == "postgres" and postgres_available():
        with postgres_database() as url:
            return _bench(url, "postgresql", bots, matches, seconds, threads)
    tmp = Path(tempfile.mkdtemp(prefix="bench-api-"))
    return _bench(f"sqlite:///{tmp / 'arena.sqlite3'}", "sqlite (WAL)", bots, matches, seconds, threads)


def _bench(url: str, kind: str, bots: int, matches: int, seconds: float, threads: int,
           game: str | None = None, match_ids: tuple[list[str], list[str]] | None = None) -> dict:
    """``game`` None: populate the database first (``GAME``); else it is loaded already.
    ``match_ids``: cold and warm ids for GetMatch (:func:`_client`), or None."""
    from arena.db import dispose_all
    from arena.server.app import start_server
    from arena.server.config import ServerConfig

    tmp = Path(tempfile.mkdtemp(prefix="bench-api-"))
    saved = os.environ.get("ARENA_DATABASE_URL")
    os.environ["ARENA_DATABASE_URL"] = url
    result: dict = {"bots": bots, "matches": matches, "database": kind, "threads": threads}
    try:
        if game is None:
            game = GAME
            t0 = time.perf_counter()
            populate(bots, matches)
            result["populate_s"] = round(time.perf_counter() - t0, 1)
        result["game"] = game
        running = start_server(ServerConfig(data_dir=tmp / "data"), "127.0.0.1:0")
        try:
            # The client runs in a process of its own (spawned: the server's gRPC threads are
            # already running, so no fork): in the server's process its threads and its
            # parsing of every 100-row reply (~11 us) held the server's interpreter lock, so
            # the figure measured the client too — a cost the bare call's empty reply has not.
            with ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn")) as client:
                figures = client.submit(_client, running.address, game, seconds, threads,
                                        match_ids).result()
            result.update(figures)
            bare = result["bare_unary_health_check"]
            for name in list(figures)[1:]:
                result[name]["p50_vs_bare"] = round(result[name]["p50_ms"] / bare["p50_ms"], 1)
                result[name]["rps_vs_bare"] = round(result[name]["rps"] / bare["rps"], 2)
                result[name]["rps_concurrent_vs_bare"] = round(
                    result[name]["rps_concurrent"] / bare["rps_concurrent"], 2)
            board = result["get_leaderboard_top100"]
            result["load_average_1min"] = round(os.getloadavg()[0], 2)
            result["goal_leaderboard_at_least_half_of_bare_rps"] = board["rps_vs_bare"] >= 0.5
        finally:
            running.stop(grace=0)
    finally:
        dispose_all()
        if saved is None:
            os.environ.pop("ARENA_DATABASE_URL", None)
        else:
            os.environ["ARENA_DATABASE_URL"] = saved
    return result


if __name__ == "__main__":
    import json

    print(json.dumps(bench(), indent=2))
