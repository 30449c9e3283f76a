"""The ladder's population cache (arena/competition/ladder_population.py): a tick with the cache chooses
exactly the tables a tick without it chooses, after every kind of change, on SQLite and
PostgreSQL, with two caches (two processes) ticking the same database."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from sqlalchemy import select, update

from arena.competition import dialin_presence as dialin
from arena.competition import ladder
from arena.competition.ladder_population import PopulationCache
from arena.db import Bot, BotVersion, Match, Rating, RatingLock, session_scope
from arena.intake import bots
from arena.records import recording
from arena.workers import tasks
from referee import dialin_client

GAME = "toy"  # 2-4 players: tables of every size


def _bot(tmp_path: Path, name: str, text: str | None = None) -> str:
    folder = tmp_path / name
    folder.mkdir(exist_ok=True)
    (folder / "bot.py").write_text(text or f"# {name}\n")
    return str(folder)


def _setup(tmp_path: Path, n: int = 10) -> list[int]:
    with session_scope() as s:
        ids = [bots.register_version(s, GAME, _bot(tmp_path, f"b{i}"), name=f"b{i}").id for i in range(n)]
        ladder.ensure_ladder(s, GAME, queue_target=3)
    return ids


def _tables(population: PopulationCache | None, seed: int = 11) -> list[list[int]]:
    """The tables one tick chooses (seat order), rolled back: the database is left as it was."""
    with session_scope() as s:
        ids = ladder.tick(s, GAME, random.Random(seed), population=population)
        out = [[x.bot_version_id for x in sorted(s.get(Match, m).seats, key=lambda x: x.seat)] for m in ids]
        s.rollback()
    return out


def _same(population: PopulationCache, seed: int = 11) -> list[list[int]]:
    """The cache gives what a full read gives (candidates, their order and every count), and a
    tick with it the tables a tick without it chooses — and that tick leaves the cache as the
    database is (its queued seats are counted in copies)."""
    with session_scope() as s:
        assert list(population.candidates(s, GAME).items()) == list(ladder.load_candidates(s, GAME).items())
    cached = _tables(population, seed)
    assert cached == _tables(None, seed)
    assert len(cached) == 3 and all(2 <= len(t) <= 4 for t in cached)
    with session_scope() as s:
        assert list(population.candidates(s, GAME).items()) == list(ladder.load_candidates(s, GAME).items())
    return cached


def _play_queue(rng: random.Random) -> None:
    """Queue a tick's matches for real (no cache) and rate them with made-up results."""
    with session_scope() as s:
        ladder.tick(s, GAME, rng)
    with session_scope() as s:
        todo = [(m.id, m.players) for m in ladder.queued_ladder_matches(s, GAME)]
    for mid, players in todo:
        scores = [rng.random() for _ in range(players)]
        with session_scope() as s:
            recording.record_result(s, mid, {"result": {
                "scores": scores, "ranks": [1 + sum(o > x for o in scores) for x in scores]}})


def _candidate_ids(population: PopulationCache) -> set[int]:
    with session_scope() as s:
        return set(population.candidates(s, GAME))


def test_cached_ticks_choose_the_tables_uncached_ticks_choose(db_url: str, tmp_path: Path) -> None:
    """After ratings change, a bot is added, deactivated, reactivated, a version is replaced and
    an SPRT holds the new one back: the same candidates and tables, read incrementally (one full
    read in all), the changed rating rows only."""
    ids = _setup(tmp_path)
    cache = PopulationCache()
    rng = random.Random(3)
    _same(cache)
    _same(cache, seed=12)  # nothing changed: nothing but who plays is read
    assert cache.stats.rows_read == len(ids)
    # Ratings change: matches rated (and 3 more queued, which the next tick counts as pending).
    _play_queue(rng)
    _play_queue(rng)
    with session_scope() as s:
        moved = {r.bot_version_id for r in s.scalars(select(Rating).where(Rating.game == GAME, Rating.games_played > 0))}
    read = cache.stats.rows_read
    _same(cache)
    assert 0 < cache.stats.rows_read - read <= 2 * 3 * 4 and moved  # the seats of 6 rated matches at most
    # A bot is added.
    with session_scope() as s:
        new = bots.register_version(s, GAME, _bot(tmp_path, "late"), name="late").id
    _same(cache)
    assert new in _candidate_ids(cache)
    # A bot is deactivated, then comes back.
    with session_scope() as s:
        s.get(BotVersion, ids[0]).bot.active = False
    _same(cache)
    assert ids[0] not in _candidate_ids(cache)
    _play_queue(rng)  # its rating cannot move while it is away, the others' do
    with session_scope() as s:
        s.get(BotVersion, ids[0]).bot.active = True
    _same(cache)
    assert ids[0] in _candidate_ids(cache)
    # A version is replaced: the new one plays (predecessor's mu, sigma reset), the old one not.
    with session_scope() as s:
        v2 = bots.register_version(s, GAME, _bot(tmp_path, "b1", "# b1 v2\n"), name="b1").id
    _same(cache)
    assert v2 in _candidate_ids(cache) and ids[1] not in _candidate_ids(cache)
    # An SPRT holds it back: the old version plays again, with its rating as it is now.
    _play_queue(rng)
    with session_scope() as s:
        s.get(BotVersion, v2).held = True
    _same(cache)
    assert ids[1] in _candidate_ids(cache) and v2 not in _candidate_ids(cache)
    assert cache.stats.full == 1 and cache.stats.incremental > 10
    assert cache.entries() == len(_candidate_ids(cache))  # only the playing versions are held


def test_two_caches_on_one_database_each_see_the_others_changes(db_url: str, tmp_path: Path) -> None:
    """Two processes tick the same ladder (beat's worker and ``arena ladder``), each with its own
    cache, while results are recorded and bots change in between: each tick sees everything
    committed before it, whoever wrote it — and queues what the other did not."""
    ids = _setup(tmp_path, 12)
    first, second = PopulationCache(), PopulationCache()
    rng = random.Random(5)
    for round_ in range(6):
        for cache in (first, second):
            _same(cache, seed=round_)
            with session_scope() as s:  # this "process" queues for real, the other records results
                made = ladder.tick(s, GAME, random.Random(round_), population=cache)
            assert made  # the other's queued matches were played: the queue had room
            with session_scope() as s:
                todo = [(m.id, m.players) for m in ladder.queued_ladder_matches(s, GAME)]
            for mid, players in todo:
                scores = [rng.random() for _ in range(players)]
                with session_scope() as s:
                    recording.record_result(s, mid, {"result": {
                        "scores": scores, "ranks": [1 + sum(o > x for o in scores) for x in scores]}})
        with session_scope() as s:  # and a change of who plays, each round
            if round_ % 2:
                bots.register_version(s, GAME, _bot(tmp_path, f"n{round_}"), name=f"n{round_}")
            else:
                s.get(BotVersion, ids[round_]).bot.active = False
    for cache in (first, second):
        _same(cache)
        assert cache.stats.full == 1
    with session_scope() as s:
        assert s.scalar(select(RatingLock.last_seq).where(RatingLock.game == GAME)) >= 30


def test_full_reload_is_the_safety_net_and_the_cache_is_bounded(sqlite_url: str, tmp_path: Path) -> None:
    """A rating written without a rated match (``ratings --rebuild --write``) is seen at the next
    full reload (every ``full_every_ticks``); a sequence that went backwards (a database
    replaced) reloads at once; at most ``max_games`` games are held."""
    ids = _setup(tmp_path, 6)
    cache = PopulationCache(full_every_ticks=3, max_games=1)
    _play_queue(random.Random(1))
    _same(cache)
    with session_scope() as s:
        s.execute(update(Rating).where(Rating.bot_version_id == ids[2]).values(mu=40.0))
    with session_scope() as s:
        assert cache.candidates(s, GAME)[ids[2]].mu != 40.0  # not a rated match: not seen yet
        cache.candidates(s, GAME)
        assert cache.candidates(s, GAME)[ids[2]].mu == 40.0 and cache.stats.full == 2
    with session_scope() as s:
        s.execute(update(RatingLock).where(RatingLock.game == GAME).values(last_seq=0))
        s.execute(update(Rating).where(Rating.bot_version_id == ids[3]).values(mu=-3.0))
    with session_scope() as s:
        assert cache.candidates(s, GAME)[ids[3]].mu == -3.0 and cache.stats.full == 3
    _same(cache)
    # Another game's ladder: the bound of one game drops the first one.
    with session_scope() as s:
        bots.register_version(s, "solenia", _bot(tmp_path, "s0"), name="s0")
        bots.register_version(s, "solenia", _bot(tmp_path, "s1"), name="s1")
        held = cache.memory_bytes()
        assert len(cache.candidates(s, "solenia")) == 2
        assert cache.entries() == 2 and cache.memory_bytes() < held  # 2 bots of one game, not 6
        s.execute(update(Bot).where(Bot.game == "solenia").values(active=False))
        assert cache.candidates(s, "solenia") == {} and cache.entries() == 0


def test_beat_and_arena_ladder_tick_with_the_process_cache(sqlite_url: str, tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """Every tick of a process goes through ``tasks.ladder_tick`` (beat's worker, ``arena
    ladder``, ``arena serve``'s ticker), which keeps the population in the process's cache."""
    ids = _setup(tmp_path, 5)
    sent: list[str] = []
    monkeypatch.setattr(tasks, "enqueue", sent.extend)  # queued, not played: the bots are stand-ins
    monkeypatch.setattr(tasks, "POPULATION", PopulationCache())
    assert tasks.ladder_tick(GAME) == 3 == len(sent)
    assert tasks.POPULATION.stats.full == 1 and tasks.POPULATION.entries() == len(ids)


def test_a_dial_in_bot_is_a_candidate_only_while_connected(sqlite_url: str, tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """Presence is asked on every tick, not cached: a dial-in bot that disconnects leaves the
    cached population at once, and comes back when it reconnects."""
    monkeypatch.delenv("ARENA_BROKER_URL", raising=False)  # presence: this process's set
    _setup(tmp_path, 3)
    source = dialin_client.source("someone", GAME, "caller")
    with session_scope() as s:
        vid = bots.register_version(s, GAME, source, name="caller", owner="someone").id
    cache = PopulationCache()
    try:
        for connected in (True, False, True):
            dialin.mark(source, connected)
            _same(cache)
            assert (vid in _candidate_ids(cache)) is connected
    finally:
        dialin.mark(source, False)
    assert cache.stats.full == 1
