"""The website benchmark runs end to end on a small database (figures are not checked here:
performance is judged from ``arena bench web`` at full size, never from a unit test)."""

from __future__ import annotations

import pytest

from benchmarks.bench_web import bench


def _check_pages(result: dict, postgres: bool) -> None:
    pages = [
        "trivial_route",
        "home",
        "leaderboard_toy",
        "leaderboard_toy_dice",
        "history_first_page",
        "history_deep_page",
        "history_by_bot",
        "history_by_game",
        "history_done_forfeits",
        "history_by_game_and_outcome",
        "match_page",
        "match_replay_step",
        "bot_page",
        "tournaments",
        "tournament_page",
        "api_leaderboard_toy",
        "api_matches_first_page",
        "api_matches_deep_page",
        "api_matches_by_bot",
        "api_match",
        "api_match_replay",
        "api_bot",
        "api_tournaments",
        "api_ladders",
        "api_tournament",
        # the pages of accounts, challenges and the human seat
        "bot_page_with_challenges",
        "play_form",
        "play_form_game",
        "bot_page_signed_in_author",
        "bot_page_signed_in_owner",
        "me",
        "me_bot",
        "me_bot_match",
    ]
    if postgres:  # only the PostgreSQL data has a running tournament with live matches
        pages += ["tournament_running", "live_page", "live_board"]
    for page in pages:
        assert result[page]["n"] == 3, page
        assert 0 < result[page]["p50_ms"] <= result[page]["p95_ms"] <= result[page]["max_ms"]
    assert result["worst_page_p95_ms"] == max(
        v["p95_ms"] for k, v in result.items() if isinstance(v, dict) and k != "trivial_route"
    )
    assert isinstance(result["goal_p95_under_50ms"], bool)
    assert result["me_bot_matches"] > 0  # the private match page had matches to open


def test_bench_web_runs_over_http_on_a_small_postgres_database() -> None:
    from benchmarks.bench_db import postgres_available

    if not postgres_available():
        pytest.skip("no PostgreSQL")
    result = bench(samples=3, bots=20, matches=400)
    assert result["bots"] == 20 and result["matches"] == 400
    assert result["database"].startswith("postgresql") and result["server"].startswith("waitress")
    _check_pages(result, postgres=True)


def test_bench_web_runs_on_a_small_database(tmp_path) -> None:
    result = bench(samples=3, bots=20, matches=400, folder=str(tmp_path), database="sqlite")
    assert result["bots"] == 20 and result["matches"] == 400
    _check_pages(result, postgres=False)
    again = bench(samples=1, bots=20, matches=400, folder=str(tmp_path), database="sqlite")
    assert again["generated_in_s"] == "reused"


def test_generated_postgres_data_is_consistent() -> None:
    """The server-side generator's rows agree with each other as the platform's would: seats
    are distinct bots of the match's game (tournament matches: the entrants only), ranked
    seats have a rating-history row, ratings count the games, records carry their match id."""
    from sqlalchemy import text

    from arena.db import get_engine
    from benchmarks.bench_db import postgres_available, postgres_database
    from benchmarks.bench_web import GAMES, _records, _register_toy
    from benchmarks.bench_web_pg import generate

    if not postgres_available():
        pytest.skip("no PostgreSQL")
    _register_toy()
    lines: list[str] = []
    with postgres_database() as url:
        generate(url, 40, 1200, GAMES, _records, lines.append)
        with get_engine(url).connect() as conn:
            one = lambda sql: conn.execute(text(sql)).scalar()  # noqa: E731
            assert one("SELECT count(*) FROM matches") == 1200
            assert one("SELECT count(*) FROM matches WHERE record->>'match_id' <> id") == 0
            assert (
                one("""SELECT count(*) FROM match_seats s JOIN matches m ON m.id = s.match_id
                          JOIN bots b ON b.id = s.bot_version_id WHERE b.game <> m.game""")
                == 0
            )
            assert (
                one("""SELECT count(*) FROM (SELECT match_id FROM match_seats GROUP BY match_id
                          HAVING count(DISTINCT bot_version_id) <> count(*)) d""")
                == 0
            )
            assert (
                one("""SELECT count(*) FROM matches m WHERE players <>
                          (SELECT count(*) FROM match_seats s WHERE s.match_id = m.id)""")
                == 0
            )
            assert (
                one("""SELECT count(*) FROM match_seats s JOIN matches m ON m.id = s.match_id
                          WHERE m.tournament_id IS NOT NULL AND NOT EXISTS (
                            SELECT 1 FROM tournament_entries e WHERE e.tournament_id =
                            m.tournament_id AND e.bot_version_id = s.bot_version_id)""")
                == 0
            )
            ranked = one("SELECT count(*) FROM match_seats WHERE rank IS NOT NULL")
            assert ranked == one("SELECT count(*) FROM rating_history")
            assert ranked == one("SELECT sum(games_played) FROM ratings")
            assert one("SELECT count(*) FROM matches WHERE status = 'running'") > 0
            assert (
                one("SELECT count(*) FROM matches WHERE status = 'done' AND rating_seq IS NULL")
                == 0
            )
            assert one("SELECT sum(last_seq) FROM rating_locks") == one(
                "SELECT count(*) FROM matches WHERE status = 'done'"
            )
            assert (
                one("SELECT count(*) FROM pg_indexes WHERE indexname = 'ix_matches_created'") == 1
            )
    assert any(line.strip().startswith("matches: 1,200 of 1,200 rows") for line in lines)


def test_accounts_and_challenges_are_added_once_and_sign_in() -> None:
    """The accounts' tokens hash as the platform's do (the benchmark signs in with them), each
    challenge is a two-player ladder match whose seat 0 challenged seat 1 by its owner's
    account, and a second call adds nothing (the mark in ``bench_dataset``)."""
    from sqlalchemy import text

    from arena.db import get_engine
    from arena.sdk.auth import hash_token
    from benchmarks.bench_db import postgres_available, postgres_database
    from benchmarks.bench_web import GAMES, _records, _register_toy
    from benchmarks.bench_web_pg import FOCUS_OWNER, add_accounts, bench_token, generate

    if not postgres_available():
        pytest.skip("no PostgreSQL")
    _register_toy()
    lines: list[str] = []
    with postgres_database() as url:
        generate(url, 40, 1200, GAMES, _records, lines.append)
        assert add_accounts(url, lines.append)
        with get_engine(url).connect() as conn:
            one = lambda sql, **kw: conn.execute(text(sql), kw).scalar()  # noqa: E731
            assert one("SELECT count(*) FROM users") == one(
                "SELECT count(DISTINCT owner) FROM bots"
            )
            assert one("SELECT token_hash FROM users WHERE name = :n", n=FOCUS_OWNER) == hash_token(
                bench_token(FOCUS_OWNER)
            )
            total = one("SELECT count(*) FROM challenges")
            assert total > 0
            assert (
                one("""SELECT count(*) FROM challenges c JOIN matches m ON m.id = c.match_id
                          JOIN match_seats s0 ON s0.match_id = m.id AND s0.seat = 0
                          JOIN match_seats s1 ON s1.match_id = m.id AND s1.seat = 1
                          JOIN users u ON u.id = c.user_id
                          JOIN bots b ON b.id = c.challenger_bot_id
                          WHERE m.players = 2 AND m.kind = 'ladder'
                            AND s0.bot_version_id = c.challenger_bot_id
                            AND s1.bot_version_id = c.opponent_bot_id
                            AND u.name = b.owner""")
                == total
            )
        assert not add_accounts(url, lines.append)
        with get_engine(url).connect() as conn:
            assert conn.execute(text("SELECT count(*) FROM challenges")).scalar() == total


def test_bench_web_keeps_its_postgres_database_and_measures_it_again() -> None:
    """``--keep NAME``: the first run loads and marks the database, the next one reuses it
    as it is (no second load); a database holding another dataset is loaded again."""
    import uuid

    from benchmarks.bench_db import _admin, postgres_available
    from benchmarks.bench_web import kept_dataset

    if not postgres_available():
        pytest.skip("no PostgreSQL")
    name = f"arena_bench_keep_{uuid.uuid4().hex[:8]}"
    lines: list[str] = []
    try:
        first = bench(samples=3, bots=20, matches=400, keep=name, progress=lines.append)
        assert first["database"] == f"postgresql {name} (loaded now, kept)"
        _check_pages(first, postgres=True)
        assert any("loading 20 bots" in line for line in lines)
        lines.clear()
        again = bench(samples=3, bots=20, matches=400, keep=name, progress=lines.append)
        assert again["database"] == f"postgresql {name} (reused, kept)"
        assert again["generated_in_s"] == first["generated_in_s"]  # the first load's time
        assert not any("loading" in line for line in lines)
        _, _, fresh = kept_dataset(name, 24, 400, lines.append)  # another dataset: loaded anew
        assert fresh
    finally:
        conn = _admin()[0]
        with conn.cursor() as cur:
            cur.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.close()


@pytest.mark.parametrize("form", ["json", "compact"])
def test_generated_postgres_data_stores_real_games_records_in_either_form(form: str) -> None:
    """``--records json|compact``: the matches hold real Black Angel and Solenia records, in the
    form asked for, each under its own match id (a compact one regenerates, verified, to the
    same JSON as the template under that id), and the match page replays it."""
    from sqlalchemy import text

    from arena.db import get_engine
    from arena.records import stored
    from benchmarks.bench_db import postgres_available, postgres_database
    from benchmarks.bench_web import REAL_GAMES, _dataset
    from benchmarks.bench_web_pg import generate

    if not postgres_available():
        pytest.skip("no PostgreSQL")
    games, make, variants = _dataset(form)
    assert games == REAL_GAMES
    lines: list[str] = []
    with postgres_database() as url:
        generate(url, 40, 300, games, make, lines.append, form, variants)
        with get_engine(url).connect() as conn:
            rows = conn.execute(
                text("SELECT id, game, record, record_compact, engine_version FROM matches "
                     "WHERE status = 'done' ORDER BY id")
            ).all()
            assert conn.execute(text("SELECT count(DISTINCT game) FROM matches")).scalar() == 2
        assert len(rows) > 250
        blobs = set()
        for mid, game, record, blob, engine in rows:
            assert game in REAL_GAMES
            if form == "json":
                assert record is not None and blob is None and engine is None
            else:
                assert record is None and blob is not None and engine == f"{game}/1"
                blobs.add(bytes(blob))
            data = stored.record_of(record, blob)
            assert data["match_id"] == mid and data["game"] == game and data["decisions"]
        if form == "compact":
            assert len(blobs) == len(rows)  # every match its own bytes, as in production
            assert any("compact records: " in line for line in lines)
        from web.app import create_app

        client = create_app(url).test_client()
        page = client.get(f"/matches/{rows[0][0]}")
        assert page.status_code == 200 and b"data-step" in page.data


def test_bench_web_measures_compact_records_with_a_cold_and_a_warm_cache() -> None:
    """``arena bench web --records compact`` on a small database: the record pages are measured
    on matches never read (regenerated: cache misses) and on a few read before (hits only), and
    the database's sizes are reported."""
    from benchmarks.bench_db import postgres_available

    if not postgres_available():
        pytest.skip("no PostgreSQL")
    result = bench(samples=3, bots=20, matches=400, records="compact")
    assert result["games"] == ["black_angel", "solenia"]
    assert result["records"] == "compact"
    assert result["matches_stored_json"] == 0 and result["matches_stored_compact"] > 300
    assert result["database_bytes"] > result["matches_total_bytes"] > result["matches_table_bytes"] > 0
    for page in ("match_page", "match_replay_step", "api_match", "history_first_page"):
        assert result[page]["n"] == 3 and result[f"{page}_warm" if page != "history_first_page" else page]
    for page in ("match_page", "match_replay_step"):
        assert result[page]["record_cache_misses"] >= 1, page
        warm = result[f"{page}_warm"]
        assert warm["n"] == 3 and warm["record_cache_hits"] == 3 and warm["record_cache_misses"] == 0
    # It reads the header: no regeneration. (A match the record pages above drew too is a cache
    # hit — the header is not read then — so hits may show; a miss never.)
    assert result["api_match"].get("record_cache_misses", 0) == 0
    assert "record_cache_hits" not in result["history_first_page"]  # the list reads no record
