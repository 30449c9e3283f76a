"""``matches.rated`` false (an unrated challenge, arena.play.challenges): recorded and ranked like any
match, but no rating, history row or sequence number — on SQLite and PostgreSQL (``db_url``),
and on the recorder's path for databases without ``UPDATE … RETURNING``; and challenges stored
and capped on both databases."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import func, select

from arena.db import Match, MatchSeat, Rating, RatingHistory, RatingLock, get_engine, session_scope
from arena.evaluation import ratings
from arena.intake import bots
from arena.records import recording

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


def _no_show() -> dict:
    """Seat 1 never made a move (its bot never connected): seat 0 played every decision."""
    record = _played([1, 2])
    record["forfeits"] = [{"seat": 1, "reason": "unreachable", "message": "down", "decision": 0}]
    record["decisions"] = [{**d, "forced": d["seat"] == 1} for d in record["decisions"]]
    return record


def _check_a_no_show_in_a_rated_challenge(tmp_path: Path) -> None:
    """A rated challenge with a seat that never played is recorded unrated (a challenger picks
    its opponent: it must not farm one it knows is offline); a ladder match is rated as ever."""
    with session_scope() as s:
        ids = [
            bots.register_version(s, GAME, _folder(tmp_path, f"n{i}"), name=f"n{i}").id
            for i in range(2)
        ]
        challenge_id = recording.create_match(s, GAME, "base", ids, seed=3, kind="challenge").id
        ladder_id = recording.create_match(s, GAME, "base", ids, seed=4, kind="ladder").id
        last = s.scalar(select(func.max(Match.rating_seq))) or 0
    with session_scope() as s:
        assert recording.record_result(s, challenge_id, _no_show()) is True
    with session_scope() as s:
        m = s.get(Match, challenge_id)
        assert (m.status, m.rated, m.rating_seq) == ("done", False, None)
        assert [
            r.rank
            for r in s.scalars(
                select(MatchSeat).where(MatchSeat.match_id == challenge_id).order_by(MatchSeat.seat)
            )
        ] == [1, 2]
        for vid in ids:
            assert s.get(Rating, (vid, GAME)).games_played == 0
    with session_scope() as s:
        assert recording.record_result(s, ladder_id, _no_show()) is True
    with session_scope() as s:
        m = s.get(Match, ladder_id)
        assert (m.rated, m.rating_seq) == (True, last + 1)  # the challenge drew no number
        assert s.get(Rating, (ids[0], GAME)).games_played == 1
        assert ratings.compare_with_stored(s, GAME) == []


def test_an_unrated_match_is_recorded_and_ranked_but_not_rated(db_url: str, tmp_path: Path) -> None:
    _check_unrated_then_rated(tmp_path)


def test_a_rated_challenge_against_a_no_show_is_not_rated(db_url: str, tmp_path: Path) -> None:
    _check_a_no_show_in_a_rated_challenge(tmp_path)


def test_the_same_without_update_returning(
    sqlite_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """SQLite before 3.35 has no ``UPDATE … RETURNING``: the recorder reads the match's state
    (and whether it is rated) first."""
    monkeypatch.setattr(get_engine().dialect, "update_returning", False)
    _check_unrated_then_rated(tmp_path)
    _check_a_no_show_in_a_rated_challenge(tmp_path)


def test_challenges_are_stored_and_capped_on_either_database(db_url: str, tmp_path: Path) -> None:
    """arena.play.challenges on SQLite and PostgreSQL: the account's row lock, the counts, the stored
    rows (no broker here, and this process plays no matches: the match waits, pending)."""
    from arena.db import Challenge, User
    from arena.play import challenges

    with session_scope() as s:
        users = [User(name=f"cap{i}", token_hash=f"{i:064d}") for i in range(2)]
        s.add_all(users)
        s.flush()
        uid = users[0].id
        mine = bots.register_version(
            s, GAME, _folder(tmp_path, "c0"), name="c0", owner="cap0"
        ).bot_id
        theirs = bots.register_version(
            s, GAME, _folder(tmp_path, "c1"), name="c1", owner="cap1"
        ).bot_id
    limits = challenges.ChallengeLimits(per_hour=2, pending=5, pending_per_bot=5)
    made = [
        challenges.challenge(uid, mine, theirs, rated=r, limits=limits, plays_matches=False)
        for r in (False, True)
    ]
    assert [m.remaining_this_hour for m in made] == [1, 0] and [m.match_status for m in made] == [
        "pending"
    ] * 2
    with pytest.raises(challenges.ChallengeRefused) as info:
        challenges.challenge(uid, mine, theirs, limits=limits, plays_matches=False)
    assert info.value.kind == "exhausted" and info.value.retry_after_s > 3000
    with session_scope() as s:
        rows = s.scalars(select(Challenge).order_by(Challenge.id)).all()
        assert [(c.user_id, c.rated) for c in rows] == [(uid, False), (uid, True)]
        assert [s.get(Match, c.match_id).rated for c in rows] == [False, True]
        assert {s.get(Match, c.match_id).kind for c in rows} == {"challenge"}
