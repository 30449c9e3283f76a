"""``matches.rated`` false (an unrated challenge, arena.challenges): recorded and ranked like any
match, but no rating, history row or sequence number — on SQLite and PostgreSQL (``db_url``),
and on the recorder's path for databases without ``UPDATE … RETURNING``."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import func, select

from arena import bots, ratings, recording
from arena.db import Match, MatchSeat, Rating, RatingHistory, RatingLock, get_engine, session_scope

GAME = "toy"


def _folder(tmp_path: Path, name: str) -> str:
    folder = tmp_path / name
    folder.mkdir(exist_ok=True)
    (folder / "bot.py").write_text(f"# {name}\n")
    return str(folder)


def _played(ranks: list[int]) -> dict:
    moves = [
        {"n": n, "seat": s, "option": "x", "forced": False} for n, s in enumerate((0, 1, 0, 1))
    ]
    return {
        "result": {"scores": [float(-r) for r in ranks], "ranks": ranks, "details": {}},
        "forfeits": [],
        "decisions": moves,
    }


def _check_unrated_then_rated(tmp_path: Path) -> None:
    with session_scope() as s:
        ids = [
            bots.register_version(s, GAME, _folder(tmp_path, f"u{i}"), name=f"u{i}").id
            for i in range(2)
        ]
        unrated = recording.create_match(s, GAME, "base", ids, seed=1, kind="challenge")
        unrated.rated = False
        unrated_id = unrated.id
        rated_id = recording.create_match(s, GAME, "base", ids, seed=2, kind="challenge").id
    with session_scope() as s:
        assert recording.record_result(s, unrated_id, _played([1, 2])) is True
        assert recording.record_result(s, unrated_id, _played([1, 2])) is False  # counted once
    with session_scope() as s:
        m = s.get(Match, unrated_id)
        assert (m.status, m.rated, m.rating_seq) == ("done", False, None)
        seats = s.scalars(
            select(MatchSeat).where(MatchSeat.match_id == unrated_id).order_by(MatchSeat.seat)
        ).all()
        assert [x.rank for x in seats] == [1, 2] and all(x.mu_before is None for x in seats)
        for vid in ids:
            r = s.get(Rating, (vid, GAME))
            assert (r.mu, r.sigma, r.games_played) == (ratings.MU0, ratings.SIGMA0, 0)
        assert s.scalar(select(func.count()).select_from(RatingHistory)) == 0
        assert not s.scalar(select(RatingLock.last_seq).where(RatingLock.game == GAME))
    with session_scope() as s:
        assert recording.record_result(s, rated_id, _played([1, 2])) is True
    with session_scope() as s:
        assert s.get(Match, rated_id).rating_seq == 1  # the unrated match drew no number
        assert s.get(Rating, (ids[0], GAME)).mu > ratings.MU0
        assert s.scalar(select(func.count()).select_from(RatingHistory)) == 2
        assert ratings.compare_with_stored(s, GAME) == []  # the rebuild skips the unrated one too


def test_an_unrated_match_is_recorded_and_ranked_but_not_rated(db_url: str, tmp_path: Path) -> None:
    _check_unrated_then_rated(tmp_path)


def test_the_same_without_update_returning(
    sqlite_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """SQLite before 3.35 has no ``UPDATE … RETURNING``: the recorder reads the match's state
    (and whether it is rated) first."""
    monkeypatch.setattr(get_engine().dialect, "update_returning", False)
    _check_unrated_then_rated(tmp_path)
