"""Solo automata as rated pseudo-players (issue 14 item 3): Hal at each difficulty, Solenia's
virtual player and Orbital's bot players are rated in the game's table, shown as references,
never seated, and ``arena ratings rebuild`` reproduces every rating exactly.

Real matches are played by the match runner (no sandbox) and recorded as a worker would.
Database tests run on SQLite and PostgreSQL (``db_url``)."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest
from sqlalchemy import select

from arena.competition import ladder
from arena.db import Bot, Match, MatchSeat, Rating, RatingHistory, session_scope
from arena.evaluation import ratings
from arena.intake import bots, house
from arena.records import recording
from arena.server.results import leaderboard
from arena.workers import tasks
from referee import registry
from tests.platform.conftest import db_url, pg_url  # noqa: F401 - the SQLite + PostgreSQL fixture

RANDOM = str(Path(house.builtin_bots.SAMPLE_BOTS) / "random_bot")


def test_every_solo_configuration_has_its_own_automaton() -> None:
    """Each solo (and bots-N) configuration of the three games names a pseudo-player, one per
    variant and seat count; ordinary multiplayer configurations name none."""
    names = {}
    for game in ("black_angel", "solenia", "orbital"):
        for players, variant in registry.get_spec(game).configurations:
            name = house.automaton_name(game, variant, players)
            solo_like = players == 1 or variant.startswith("bots-")
            assert (name is not None) == solo_like, (game, players, variant)
            if name:
                assert (game, name) not in names, f"{name} names two configurations"
                names[(game, name)] = (players, variant)
    # black-angel.txt, solo rules: Hal's disc starts at 0/5/10/15 VP by difficulty
    assert names[("black_angel", "hal-5")] == (1, "solo")
    assert names[("black_angel", "hal-10-advanced")] == (1, "solo-advanced-d10")
    assert names[("orbital", "goal-22vp")] == (1, "peaceful")
    assert names[("orbital", "bot-players-2-with-2")] == (2, "bots-2")


@pytest.mark.parametrize(("engine", "auto", "forfeited", "want"), [
    ([1], 2, [], ([1], 2)),   # beat Hal
    ([2], 1, [], ([2], 1)),   # lost to Hal
    ([1], 1, [], ([1], 1)),   # Solenia: a tie with the virtual player is shared
    ([1], 2, [0], ([2], 1)),  # a forfeit ranks behind the automaton
])
def test_solo_table_ranks(engine: list[int], auto: int, forfeited: list[int], want: tuple) -> None:
    result = {"ranks": engine, "engine_ranks": engine, "details": {"automaton_rank": auto}}
    assert ratings.automaton_table(result, 1, forfeited) == (want[0], want[1])


def test_bot_players_rank_at_their_best_place() -> None:
    # 1인 규칙: bot players fill seats — places rank every actor, the two seats first.
    result = {"ranks": [1, 2], "details": {"bot_vp": [30, 12], "places": [1, 4, 2, 3]}}
    assert ratings.automaton_table(result, 2) == ([1, 3], 2)
    assert ratings.automaton_table(result, 2, [0]) == ([3, 2], 1)
    assert ratings.automaton_table({"ranks": [1, 2], "details": {}}, 2) is None


def _play(match_id: str) -> dict:
    outcome = tasks.play_match_now(match_id)
    assert outcome.status == "recorded", outcome
    with session_scope() as s:
        return s.get(Match, match_id).result


def test_solo_matches_rate_bot_and_automaton_and_rebuild_exactly(db_url: str) -> None:  # noqa: F811
    """Black Angel against Hal (10 VP): both ratings move in the direction of the result, Hal
    is a house reference on the leaderboard that the ladder never seats, and the rebuild is
    exact — also with a solo match recorded before automata were rated (left unrated)."""
    with session_scope() as s:
        mine = bots.register_version(s, "black_angel", RANDOM, name="solo-bot", owner="alice").id
        ladder.ensure_ladder(s, "black_angel", "solo-d10", queue_target=3, sandbox=False)
        ids = ladder.tick(s, "black_angel", random.Random(1))
    assert len(ids) == 3
    with session_scope() as s:
        assert {m.players for m in s.scalars(select(Match).where(Match.id.in_(ids)))} == {1}
    for mid in ids:
        before = _rating_of(mine)
        result = _play(mid)
        with session_scope() as s:
            match = s.get(Match, mid)
            hal = s.scalar(select(Bot).where(Bot.owner == house.HOUSE_OWNER, Bot.name == "hal-10"))
            assert match.automaton_version_id == hal.versions[0].id
            seat = s.get(MatchSeat, (mid, 0))
            beat = result["details"]["beat_hal"]
            assert (seat.rank, match.automaton_rank) == ((1, 2) if beat else (2, 1))
        after = _rating_of(mine)
        assert (after[0] > before[0]) == beat and after[1] < before[1]
    with session_scope() as s:
        hal_vid = match.automaton_version_id
        hal_row = s.get(Rating, (hal_vid, "black_angel"))
        assert hal_row.games_played == 3 and hal_row.sigma < ratings.SIGMA0
        assert s.scalar(select(RatingHistory.id).where(RatingHistory.bot_version_id == hal_vid)) is not None
        assert hal_vid not in {v.id for v in bots.latest_versions(s, "black_angel")}
        rows = {r.bot: r.house for r in leaderboard(s, "black_angel", 50).rows}
        assert rows == {"hal-10 v1": True, "solo-bot v1": False}
        assert ratings.compare_with_stored(s, "black_angel") == []
        # A solo match recorded before automata were rated: a seq, no automaton, ratings unchanged.
        old = recording.create_match(s, "black_angel", "solo", [mine], seed=5, sandbox=False)
        old.status, old.rating_seq = "done", 99
        old.seats[0].rank = 1
        s.flush()
        assert ratings.compare_with_stored(s, "black_angel") == []
    # The command line says so too (ARENA_DATABASE_URL is the test's database).
    from click.testing import CliRunner

    from arena.cli import cli

    out = CliRunner().invoke(cli, ["ratings", "rebuild", "black_angel"])
    assert out.exit_code == 0 and "2 rating(s) rebuilt from the history; all identical" in out.output, out.output
    with session_scope() as s:  # a tampered automaton rating is caught
        s.get(Rating, (hal_vid, "black_angel")).mu += 1e-9
    out = CliRunner().invoke(cli, ["ratings", "rebuild", "black_angel"])
    assert out.exit_code == 1 and f"version {hal_vid}: stored mu=" in out.output, out.output


def _rating_of(vid: int) -> tuple[float, float]:
    with session_scope() as s:
        r = s.get(Rating, (vid, "black_angel"))
        return r.mu, r.sigma


def test_solenia_virtual_player_and_orbital_bot_players_are_rated(db_url: str) -> None:  # noqa: F811
    """One real game each: Solenia solo (the virtual player), Orbital competitive solo (the two
    bot players) and Orbital with a bot player joining two seats; the rebuild stays exact."""
    cases = [("solenia", "winter", 1, "virtual-player-winter"),
             ("orbital", "competitive", 1, "bot-players"),
             ("orbital", "bots-1", 2, "bot-players-1-with-2")]
    for game, variant, players, name in cases:
        with session_scope() as s:
            # one author per seat: one author's bots never share a rated table (arena.intake.authors)
            seats = [bots.register_version(s, game, RANDOM, name=f"r{i}", owner=f"bob{i}").id for i in range(players)]
            mid = recording.create_match(s, game, variant, seats, seed=7, sandbox=False).id
        _play(mid)
        with session_scope() as s:
            match = s.get(Match, mid)
            auto = s.get(Bot, s.get(Rating, (match.automaton_version_id, game)).version.bot_id)
            assert (auto.name, auto.owner) == (name, house.HOUSE_OWNER)
            assert s.get(Rating, (match.automaton_version_id, game)).games_played == 1
            assert ratings.compare_with_stored(s, game) == []


def test_an_automaton_is_never_a_tournament_entrant(db_url: str) -> None:  # noqa: F811
    from arena.server.errors import ApiError
    from arena.server.tournaments import _entrants

    with session_scope() as s:
        vid = house.ensure_automaton(s, "black_angel", "hal-5")
        assert house.ensure_automaton(s, "black_angel", "hal-5") == vid
        bot_id = s.scalar(select(Bot.id).where(Bot.name == "hal-5"))
        with pytest.raises(ApiError, match="automaton"):
            _entrants(s, "black_angel", [bot_id])


def test_in_process_solo_ladder_rates_against_hal(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``arena ladder black_angel --variant solo-d0 --bot …``: one-seat tables against Hal at
    0 VP, every match rated with the automaton, which the leaderboard lists."""
    import shutil

    from click.testing import CliRunner

    from arena.cli import cli
    from arena.db import dispose_all

    monkeypatch.setenv("ARENA_DATABASE_URL", f"sqlite:///{tmp_path / 'solo.sqlite3'}")
    dispose_all()
    try:
        sandbox = [] if shutil.which("bwrap") else ["--unsafe-no-sandbox"]
        out = CliRunner().invoke(cli, ["ladder", "run", "black_angel", "--variant", "solo-d0", f"--bot=solo={RANDOM}",
                                       "--matches", "2", "--queue", "1", *sandbox])
        assert out.exit_code == 0, out.output
        assert re.search(r"^ +\d +hal-0 v1 ", out.output, re.M) and re.search(r"^ +\d +solo v1 ", out.output, re.M), out.output
        with session_scope() as s:
            done = list(s.scalars(select(Match).where(Match.kind == "ladder", Match.status == "done")))
            assert len(done) >= 2 and {m.players for m in done} == {1}
            assert all(m.automaton_version_id is not None for m in done)
            assert ratings.compare_with_stored(s, "black_angel") == []
    finally:
        dispose_all()


def test_migration_0006_goes_down_and_up_keeping_old_matches(db_url: str) -> None:  # noqa: F811
    """0006 on a database at 0005 with a match: the match gets no automaton (unrated as it
    was), the SPRT rows ``house`` false; down to 0005 and up again builds exactly the models."""
    from alembic import command
    from alembic.autogenerate import compare_metadata
    from alembic.migration import MigrationContext
    from sqlalchemy import text

    from arena.db import Base, get_engine
    from arena.db.migrations import alembic_config, upgrade

    engine = get_engine(db_url)  # migrated to head on first use
    with engine.begin() as conn:
        cfg = alembic_config()
        cfg.attributes["connection"] = conn
        command.downgrade(cfg, "0005_sprt")
    with engine.begin() as conn:
        conn.execute(text("INSERT INTO matches (id, game, variant, players, seed, kind, round, \"table\", status, "
                          "sandbox, attempts, created_at) VALUES ('old', 'black_angel', 'solo', 1, 1, 'adhoc', 0, 0, "
                          "'done', false, 0, CURRENT_TIMESTAMP)"))
    upgrade(engine)
    with engine.connect() as conn:
        row = conn.execute(text("SELECT automaton_version_id, automaton_rank FROM matches WHERE id = 'old'")).one()
        assert tuple(row) == (None, None)
        import arena.db.accounts  # noqa: F401 - its tables are migrated too
        assert compare_metadata(MigrationContext.configure(conn), Base.metadata) == []
