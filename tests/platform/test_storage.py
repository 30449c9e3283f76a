"""Storage, recording and rebuilds — every test runs against SQLite and PostgreSQL."""

from __future__ import annotations

import random
import threading
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import func, select

from arena.competition import tournaments
from arena.db import (
    Base,
    BotVersion,
    Match,
    MatchSeat,
    Rating,
    RatingHistory,
    Tournament,
    get_engine,
    session_scope,
)
from arena.evaluation import ratings
from arena.intake import bots
from arena.records import recording
from referee.engine import ConfigError
from referee.rng import SEED_BITS, match_seed
from tests.platform.conftest import RANDOM_BOT

GAME = "toy"


def _bot_folder(tmp_path: Path, name: str, body: str = "") -> str:
    folder = tmp_path / name
    folder.mkdir(exist_ok=True)
    (folder / "bot.py").write_text(f"# {name}\n{body}\n")
    return str(folder)


def _register_n(tmp_path: Path, n: int) -> list[int]:
    with session_scope() as s:
        return [
            bots.register_version(s, GAME, _bot_folder(tmp_path, f"bot{i}"), name=f"bot{i}").id
            for i in range(n)
        ]


def _fake_record(match: Match, rng: random.Random) -> dict:
    k = match.players
    scores = [rng.randint(0, 3) for _ in range(k)]
    ranks = [1 + sum(1 for o in scores if o > s) for s in scores]  # ties shared
    # Every seat made a legal move before any forfeit: every match is rated (arena.evaluation.ratings).
    forfeits = [{"seat": s, "reason": "timeout", "decision": k} for s in range(k) if rng.random() < 0.1]
    return {
        "match_id": match.id,
        "game": match.game,
        "result": {"scores": scores, "ranks": ranks, "details": {}},
        "forfeits": forfeits,
        "decisions": [{"n": s, "seat": s, "forced": False} for s in range(k)],
    }


def test_migrations_build_exactly_the_models(db_url: str) -> None:
    import importlib.util

    if importlib.util.find_spec("arena.db.accounts"):
        import arena.db.accounts  # noqa: F401 - its tables are migrated too
    with get_engine(db_url).connect() as conn:
        diff = compare_metadata(MigrationContext.configure(conn), Base.metadata)
    assert diff == []


def test_match_seeds_have_63_secret_bits_and_the_database_keeps_them(db_url: str, tmp_path: Path) -> None:
    """Issue 11, item 1: a 31-bit seed was found from the public board of the first decision by
    trying every seed, so seeds are 63 bits (referee.rng.match_seed) and ``matches.seed`` holds
    them whole (a BIGINT: a 32-bit INTEGER would refuse them on PostgreSQL)."""
    ids = _register_n(tmp_path, 3)
    with session_scope() as s:
        t = tournaments.create_tournament(s, GAME, ids, players=2, rounds=1, seed=1)
        tid = t.id
        biggest = recording.create_match(s, GAME, "base", ids[:2], seed=(1 << SEED_BITS) - 1)
        biggest_id = biggest.id
    with session_scope() as s:
        seeds = list(s.scalars(select(Match.seed).where(Match.tournament_id == tid)))
        assert s.get(Match, biggest_id).seed == (1 << 63) - 1
    assert seeds and all(0 <= seed < 1 << 63 for seed in seeds)
    drawn = seeds + [match_seed() for _ in range(30)]
    assert max(drawn).bit_length() > 40  # all below 2**40 with 63 random bits: about 2**-759


def test_migration_0009_gives_pending_matches_a_new_wide_seed_and_keeps_played_ones(db_url: str) -> None:
    """A database at 0008: its pending matches had 31-bit seeds that can be searched, so 0009
    draws them again with 63 bits; a finished match keeps the seed its record replays from."""
    from alembic import command
    from sqlalchemy import text

    from arena.db.migrations import alembic_config, upgrade

    engine = get_engine(db_url)  # migrated to head on first use
    with engine.begin() as conn:
        cfg = alembic_config()
        cfg.attributes["connection"] = conn
        command.downgrade(cfg, "0008_web_cover")
    with engine.begin() as conn:
        for match_id, status in (("waiting", "pending"), ("played", "done")):
            conn.execute(text("INSERT INTO matches (id, game, variant, players, seed, kind, round, \"table\", "
                              "status, sandbox, attempts, created_at) VALUES (:id, 'toy', 'base', 2, 12345, "
                              "'adhoc', 0, 0, :status, false, 0, CURRENT_TIMESTAMP)"),
                         {"id": match_id, "status": status})
    upgrade(engine)
    with engine.connect() as conn:
        seeds = dict(conn.execute(text("SELECT id, seed FROM matches")).all())
        assert compare_metadata(MigrationContext.configure(conn), Base.metadata) == []
    assert seeds["played"] == 12345
    assert seeds["waiting"] != 12345 and seeds["waiting"].bit_length() > 32  # 2**-31 by chance


def test_new_upload_is_a_new_version_inheriting_mu(db_url: str, tmp_path: Path) -> None:
    folder = _bot_folder(tmp_path, "alpha")
    with session_scope() as s:
        v1 = bots.register_version(s, GAME, folder)
        same = bots.register_version(s, GAME, folder)
        assert same.id == v1.id and v1.number == 1
        s.get(Rating, (v1.id, GAME)).mu = 31.5  # as if it had played
    Path(folder, "bot.py").write_text("# changed\n")
    with session_scope() as s:
        v2 = bots.register_version(s, GAME, folder)
        assert (v2.number, v2.predecessor_id) == (2, v1.id)
        r2 = s.get(Rating, (v2.id, GAME))
        assert (r2.mu, r2.sigma, r2.provisional) == (31.5, ratings.SIGMA0, True)
        assert [v.id for v in bots.latest_versions(s, GAME)] == [v2.id]


def test_bad_bot_sources_are_refused_clearly(db_url: str, tmp_path: Path) -> None:
    with session_scope() as s, pytest.raises(bots.BotError, match="bot.py"):
        bots.register_version(s, GAME, str(tmp_path))
    with session_scope() as s, pytest.raises(ConfigError, match="unknown game"):
        bots.register_version(s, "no_such_game", RANDOM_BOT)


@pytest.mark.usefixtures("shortcut_setting")
def test_recording_is_idempotent_and_rebuild_is_exact(db_url: str, tmp_path: Path) -> None:
    ids = _register_n(tmp_path, 5)
    rng = random.Random(4)
    with session_scope() as s:
        t = tournaments.create_tournament(s, GAME, ids, players=3, rounds=2, seed=1)
        tid, total = t.id, t.matches_total
        matches = list(s.scalars(select(Match).where(Match.tournament_id == tid)))
    records = {m.id: _fake_record(m, rng) for m in matches}
    for mid, rec in records.items():
        with session_scope() as s:
            assert recording.record_result(s, mid, rec) is True
    with session_scope() as s:
        before = {r.bot_version_id: (r.mu, r.sigma, r.games_played) for r in s.scalars(select(Rating))}
        # A re-delivered result is not counted twice.
        for mid, rec in list(records.items())[:3]:
            assert recording.record_result(s, mid, rec) is False
    with session_scope() as s:
        after = {r.bot_version_id: (r.mu, r.sigma, r.games_played) for r in s.scalars(select(Rating))}
        assert after == before
        assert ratings.compare_with_stored(s, GAME) == []
        t = s.get(Tournament, tid)
        assert (t.matches_done, t.status) == (total, "done")
        assert s.scalar(select(func.count()).select_from(RatingHistory)) == total * 3
        seqs = sorted(s.scalars(select(Match.rating_seq)))
        assert seqs == list(range(1, total + 1))
        # Forfeiting seats are stored last-ranked with the reason.
        forfeited = s.scalars(select(MatchSeat).where(MatchSeat.forfeit.is_not(None))).all()
        assert forfeited
        for seat in forfeited:
            others = [x for x in seat.match.seats if x.forfeit is None]
            assert all(seat.rank > o.rank for o in others)
        games = {r.bot_version_id: r.games_played for r in s.scalars(select(Rating))}
        assert sum(games.values()) == total * 3
        r = s.get(Rating, (ids[0], GAME))
        assert r.distinct_opponents == 4 and 0 < r.opponent_spread <= 1
        assert sum(r.seat_counts["3"].values()) == r.games_played


@pytest.mark.usefixtures("shortcut_setting")
def test_a_recorded_match_reads_back_through_the_orm_as_sqlalchemy_wrote_it(db_url: str, tmp_path: Path) -> None:
    """record_result and the claim write on the driver's cursor (arena.db.driver_sql), converting
    values as SQLAlchemy's column types would: what the ORM reads back must be the same types
    and values (DateTime, JSON with None as JSON null, Boolean), on both databases."""
    ids = _register_n(tmp_path, 2)
    with session_scope() as s:
        mid = recording.create_match(s, GAME, "base", ids, seed=3).id
    with session_scope() as s:
        assert recording.claim(s, mid, "w1").outcome == "claimed"
    record = {"result": {"scores": [2, 1], "ranks": [1, 2], "details": {"x": None}},
              "forfeits": [{"seat": 1, "reason": "timeout: 1000 ms"}], "timings": None,
              "decisions": [{"seat": 0, "option": "a", "wall_ms": 1.5}]}
    before = datetime.now(UTC).replace(tzinfo=None)
    with session_scope() as s:
        assert recording.record_result(s, mid, record) is True
    with session_scope() as s:
        m = s.get(Match, mid)
        assert m.status == "done" and m.rating_seq == 1 and m.lease_until is None
        assert isinstance(m.started_at, datetime) and before - timedelta(seconds=5) < m.started_at <= before
        assert isinstance(m.finished_at, datetime) and before <= m.finished_at < before + timedelta(seconds=5)
        assert m.result == record["result"] and m.record == record
        assert m.forfeits == record["forfeits"] and m.timings is None
        assert [(x.rank, x.score, x.forfeit) for x in sorted(m.seats, key=lambda x: x.seat)] == [
            (1, 2.0, None), (2, 1.0, "timeout: 1000 ms")]
        r = s.get(Rating, (ids[0], GAME))
        assert r.provisional is True and r.games_played == 1
        assert r.opponent_counts == {str(ids[1]): 1} and r.seat_counts == {"2": {"0": 1}}
        assert r.player_counts == {"2": 1} and isinstance(r.updated_at, datetime)
        history = s.scalars(select(RatingHistory).order_by(RatingHistory.id)).all()
        assert [(h.bot_version_id, h.match_id, h.seq) for h in history] == [(ids[0], mid, 1), (ids[1], mid, 1)]
        assert history[0].created_at == m.finished_at


@pytest.mark.usefixtures("shortcut_setting")
def test_recording_without_update_returning_counts_each_match_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """SQLite before 3.35 has no UPDATE … RETURNING: record_result then reads the lock and the
    match's state first (the whole database is locked by BEGIN IMMEDIATE). Same rows, once."""
    url = f"sqlite:///{tmp_path / 'old.sqlite3'}"
    monkeypatch.setenv("ARENA_DATABASE_URL", url)
    monkeypatch.setattr(get_engine(url).dialect, "update_returning", False)
    ids = _register_n(tmp_path, 3)
    rng = random.Random(5)
    with session_scope() as s:
        t = tournaments.create_tournament(s, GAME, ids, players=2, rounds=1, seed=2)
        tid = t.id
        matches = list(s.scalars(select(Match).where(Match.tournament_id == tid)))
    for m in matches:
        rec = _fake_record(m, rng)
        with session_scope() as s:
            assert recording.record_result(s, m.id, rec) is True
            assert recording.record_result(s, m.id, rec) is False
    with session_scope() as s:
        assert sorted(s.scalars(select(Match.rating_seq))) == list(range(1, len(matches) + 1))
        assert ratings.compare_with_stored(s, GAME) == []
        assert s.get(Tournament, tid).status == "done"
        assert s.scalar(select(func.count()).select_from(RatingHistory)) == 2 * len(matches)


@pytest.mark.usefixtures("shortcut_setting")
def test_concurrent_results_never_corrupt_a_rating(db_url: str, tmp_path: Path) -> None:
    """Eight threads record different matches of one game at once (separate connections)."""
    ids = _register_n(tmp_path, 4)
    rng = random.Random(9)
    with session_scope() as s:
        created = [
            recording.create_match(s, GAME, "base", rng.sample(ids, 2), seed=i) for i in range(40)
        ]
        jobs = [(m.id, _fake_record(m, rng)) for m in created]
    errors: list[BaseException] = []
    chunks = [jobs[i::8] for i in range(8)]

    def work(chunk):  # noqa: ANN001
        try:
            for mid, rec in chunk:
                with session_scope() as s:
                    recording.record_result(s, mid, rec)
                    recording.record_result(s, mid, rec)  # and a duplicate delivery
        except BaseException as exc:  # noqa: BLE001
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(c,)) for c in chunks]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    with session_scope() as s:
        assert ratings.compare_with_stored(s, GAME) == []
        assert sorted(s.scalars(select(Match.rating_seq))) == list(range(1, 41))
        assert sum(r.games_played for r in s.scalars(select(Rating))) == 80


@pytest.mark.usefixtures("shortcut_setting")
def test_claims_and_leases(db_url: str, tmp_path: Path) -> None:
    ids = _register_n(tmp_path, 2)
    with session_scope() as s:
        mid = recording.create_match(s, GAME, "base", ids, seed=1).id
    with session_scope() as s:
        assert recording.claim(s, mid, "w1", lease=30).outcome == "claimed"
        assert recording.claim(s, mid, "w2", lease=30).outcome == "busy"
        assert recording.renew(s, mid, "w1", lease=0.2)
        assert not recording.renew(s, mid, "w2")
    time.sleep(0.3)
    with session_scope() as s:  # w1 stopped renewing (killed): w2 takes over
        assert recording.claim(s, mid, "w2", lease=30).outcome == "claimed"
        assert s.get(Match, mid, populate_existing=True).attempts == 2
        assert recording.release(s, mid, "w2", "sandbox crashed") == "pending"
        assert recording.claim(s, mid, "w3").outcome == "claimed"
        assert recording.release(s, mid, "w3", "again") == "failed"  # third attempt
        assert recording.claim(s, mid, "w4").outcome == "failed"


def test_same_version_twice_at_a_table_is_refused(db_url: str, tmp_path: Path) -> None:
    ids = _register_n(tmp_path, 1)
    with session_scope() as s, pytest.raises(ValueError):
        recording.create_match(s, GAME, "base", [ids[0], ids[0]], seed=1)


def test_leaderboard_sorted_by_conservative_rating(db_url: str, tmp_path: Path) -> None:
    ids = _register_n(tmp_path, 3)
    with session_scope() as s:
        for vid, (mu, sigma) in zip(ids, [(30, 6), (26, 1), (28, 3)], strict=True):
            row = s.get(Rating, (vid, GAME))
            row.mu, row.sigma = mu, sigma
    with session_scope() as s:
        rows = tournaments.leaderboard(s, GAME)
        assert [r.version_id for r in rows] == [ids[1], ids[2], ids[0]]
        assert [r.place for r in rows] == [1, 2, 3]
        assert s.get(BotVersion, ids[0]).label == "bot0 v1"


def test_threads_of_one_process_upgrade_different_databases_at_once(tmp_path) -> None:  # noqa: ANN001
    """Alembic's ``op`` and ``context`` are module-level proxies: two threads migrating two
    databases at once cleared each other's (a CI run failed so). Each database is upgraded
    fully and no thread fails."""
    import threading

    from sqlalchemy import create_engine, inspect

    from arena.db.migrations import upgrade

    errors: list[BaseException] = []
    engines = [create_engine(f"sqlite:///{tmp_path / f'db{i}.sqlite3'}") for i in range(6)]

    def run(engine) -> None:  # noqa: ANN001
        try:
            upgrade(engine)
        except BaseException as exc:  # noqa: BLE001 - collected for the assertion
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(e,)) for e in engines]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert errors == []
    for engine in engines:
        assert "matches" in inspect(engine).get_table_names()
        engine.dispose()
